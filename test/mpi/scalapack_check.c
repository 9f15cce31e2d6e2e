/* ScaLAPACK over MPI, each rank's local BLAS being whatever the dynamic
 * linker gives it (hopblas when preloaded): pdgemm, psgemm, pdpotrf and
 * pdgetrf on a block-cyclic process grid of every rank, each checked
 * against a serial computation of the same global problem that every rank
 * does for the elements it holds.  Rank 0 prints TAP; the exit status is 0
 * only when every check passed everywhere.
 *
 *   mpirun -np P scalapack_check [N [NB]]     (defaults 96 and 16)
 *
 * The matrices are functions of (i, j), so no rank sends another its part;
 * ScaLAPACK's own communication is what is under test, with the local
 * dgemm/sgemm calls it makes. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ScaLAPACK, PBLAS and BLACS as Debian's libscalapack-openmpi exports them. */
void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctx, int what, int *val);
void Cblacs_gridinit(int *ctx, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctx, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctx);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ctx, const int *lld, int *info);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca,
             const double *b, const int *ib, const int *jb, const int *descb, const double *beta,
             double *c, const int *ic, const int *jc, const int *descc);
void psgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *ia, const int *ja, const int *desca,
             const float *b, const int *ib, const int *jb, const int *descb, const float *beta,
             float *c, const int *ic, const int *jc, const int *descc);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *ipiv, int *info);

static int n_, nb_, nprow, npcol, myrow, mycol, ctx, rank;
static int lrows, lcols; /* this rank's local part of an n x n matrix */

/* The deterministic global matrices: a smooth pseudo-random value in [-1, 1]. */
static double gen(int which, int i, int j)
{
  unsigned h = (unsigned)which * 2654435761u ^ (unsigned)i * 40503u ^ (unsigned)j * 9973u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (double)(h % 20001u) / 10000.0 - 1.0;
}

/* Symmetric positive definite: B B^T / n + 2 I would need a product; a
 * symmetric matrix with a dominant diagonal is SPD and cheap. */
static double spd(int i, int j)
{
  int lo = i < j ? i : j, hi = i < j ? j : i;
  return gen(7, lo, hi) + (i == j ? (double)n_ : 0.0);
}

/* Global index of local row (or column) l on process coordinate p of np. */
static int global_of(int l, int p, int np) { return ((l / nb_) * np + p) * nb_ + l % nb_; }

static void fill(double *x, double (*f)(int, int, int), int which)
{
  for (int lj = 0; lj < lcols; lj++)
    for (int li = 0; li < lrows; li++)
      x[(size_t)lj * lrows + li] = f(which, global_of(li, myrow, nprow), global_of(lj, mycol, npcol));
}

static double spd3(int which, int i, int j)
{
  (void)which;
  return spd(i, j);
}

static int passed_all = 1, test_no = 0;

/* Every rank's largest error to rank 0, which prints one TAP line. */
static void report(const char *what, double err, double tol)
{
  double worst = 0.0;
  MPI_Reduce(&err, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int ok = worst <= tol; /* NaN fails */
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  passed_all &= ok;
  test_no++;
  if (rank == 0)
    printf("%s %d - %s, n = %d, nb = %d, %dx%d grid: largest error %.3g (bound %.3g)\n",
           ok ? "ok" : "not ok", test_no, what, n_, nb_, nprow, npcol, worst, tol);
}

static void check_gemm(int desc[9])
{
  int one = 1;
  size_t len = (size_t)lrows * lcols;
  double *a = malloc(len * sizeof *a), *b = malloc(len * sizeof *b), *c = malloc(len * sizeof *c);
  float *as = malloc(len * sizeof *as), *bs = malloc(len * sizeof *bs), *cs = malloc(len * sizeof *cs);
  fill(a, gen, 1);
  fill(b, gen, 2);
  fill(c, gen, 3);
  for (size_t i = 0; i < len; i++)
    as[i] = (float)a[i], bs[i] = (float)b[i], cs[i] = (float)c[i];
  /* C = 1.5 A^T B - 0.5 C: a transpose and both scalars. */
  double alpha = 1.5, beta = -0.5;
  float alphas = 1.5f, betas = -0.5f;
  pdgemm_("T", "N", &n_, &n_, &n_, &alpha, a, &one, &one, desc, b, &one, &one, desc, &beta, c,
          &one, &one, desc);
  psgemm_("T", "N", &n_, &n_, &n_, &alphas, as, &one, &one, desc, bs, &one, &one, desc, &betas,
          cs, &one, &one, desc);
  double errd = 0.0, errs = 0.0;
  for (int lj = 0; lj < lcols; lj++)
    for (int li = 0; li < lrows; li++) {
      int i = global_of(li, myrow, nprow), j = global_of(lj, mycol, npcol);
      double ref = 0.0, mag = 0.0;
      for (int p = 0; p < n_; p++) {
        ref += gen(1, p, i) * gen(2, p, j);
        mag += fabs(gen(1, p, i) * gen(2, p, j));
      }
      ref = alpha * ref + beta * gen(3, i, j);
      mag = fabs(alpha) * mag + fabs(beta * gen(3, i, j));
      size_t at = (size_t)lj * lrows + li;
      /* Relative to the sum of magnitudes: the contract's bound divided by k eps. */
      double ed = fabs(c[at] - ref) / mag, es = fabs(cs[at] - ref) / mag;
      errd = ed > errd || ed != ed ? ed : errd;
      errs = es > errs || es != es ? es : errs;
    }
  report("pdgemm (T, N, alpha 1.5, beta -0.5) against a serial product", errd, 4.0 * n_ * 1.2e-16);
  report("psgemm (T, N, alpha 1.5, beta -0.5) against a serial product", errs, 4.0 * n_ * 6.0e-8);
  free(a), free(b), free(c), free(as), free(bs), free(cs);
}

/* The serial factorizations, of the whole matrix, column-major n x n. */
static void serial_cholesky_upper(double *u)
{
  for (int j = 0; j < n_; j++) {
    for (int i = 0; i < j; i++) {
      double s = u[(size_t)j * n_ + i];
      for (int p = 0; p < i; p++)
        s -= u[(size_t)i * n_ + p] * u[(size_t)j * n_ + p];
      u[(size_t)j * n_ + i] = s / u[(size_t)i * n_ + i];
    }
    double d = u[(size_t)j * n_ + j];
    for (int p = 0; p < j; p++)
      d -= u[(size_t)j * n_ + p] * u[(size_t)j * n_ + p];
    u[(size_t)j * n_ + j] = sqrt(d);
  }
}

static void serial_lu(double *x, int *piv)
{
  for (int j = 0; j < n_; j++) {
    int p = j;
    for (int i = j + 1; i < n_; i++)
      if (fabs(x[(size_t)j * n_ + i]) > fabs(x[(size_t)j * n_ + p]))
        p = i;
    piv[j] = p + 1;
    if (p != j)
      for (int c = 0; c < n_; c++) {
        double t = x[(size_t)c * n_ + j];
        x[(size_t)c * n_ + j] = x[(size_t)c * n_ + p];
        x[(size_t)c * n_ + p] = t;
      }
    for (int i = j + 1; i < n_; i++)
      x[(size_t)j * n_ + i] /= x[(size_t)j * n_ + j];
    for (int c = j + 1; c < n_; c++)
      for (int i = j + 1; i < n_; i++)
        x[(size_t)c * n_ + i] -= x[(size_t)j * n_ + i] * x[(size_t)c * n_ + j];
  }
}

/* Largest |local - global| / (|global| + 1) over the elements this rank holds. */
static double compare_local(const double *loc, const double *glob, int upper_only)
{
  double err = 0.0;
  for (int lj = 0; lj < lcols; lj++)
    for (int li = 0; li < lrows; li++) {
      int i = global_of(li, myrow, nprow), j = global_of(lj, mycol, npcol);
      if (upper_only && i > j)
        continue;
      double g = glob[(size_t)j * n_ + i], e = fabs(loc[(size_t)lj * lrows + li] - g) / (fabs(g) + 1.0);
      err = e > err || e != e ? e : err;
    }
  return err;
}

static void check_factorizations(int desc[9])
{
  int one = 1, info = 0;
  size_t len = (size_t)lrows * lcols, glen = (size_t)n_ * n_;
  double *a = malloc(len * sizeof *a), *g = malloc(glen * sizeof *g);
  int *ipiv = malloc((size_t)(lrows + nb_) * sizeof *ipiv), *gpiv = malloc((size_t)n_ * sizeof *gpiv);
  double tol = 1e-11;

  fill(a, spd3, 0);
  for (int j = 0; j < n_; j++)
    for (int i = 0; i < n_; i++)
      g[(size_t)j * n_ + i] = spd(i, j);
  pdpotrf_("U", &n_, a, &one, &one, desc, &info);
  serial_cholesky_upper(g);
  report("pdpotrf (U) against a serial Cholesky factor", info != 0 ? INFINITY : compare_local(a, g, 1),
         tol);

  fill(a, gen, 4);
  for (int j = 0; j < n_; j++)
    for (int i = 0; i < n_; i++)
      g[(size_t)j * n_ + i] = gen(4, i, j);
  pdgetrf_(&n_, &n_, a, &one, &one, desc, ipiv, &info);
  serial_lu(g, gpiv);
  double err = info != 0 ? INFINITY : compare_local(a, g, 0);
  /* The pivots of this rank's row blocks: the same rows chosen. */
  for (int li = 0; li < lrows && err <= tol; li++)
    if (ipiv[li] != gpiv[global_of(li, myrow, nprow)])
      err = INFINITY;
  report("pdgetrf against a serial LU with partial pivoting (factors and pivots)", err, tol);
  free(a), free(g), free(ipiv), free(gpiv);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int np;
  Cblacs_pinfo(&rank, &np);
  n_ = argc > 1 ? atoi(argv[1]) : 96;
  nb_ = argc > 2 ? atoi(argv[2]) : 16;
  /* The squarest grid of every rank: 2 -> 1x2, 4 -> 2x2. */
  for (nprow = (int)sqrt((double)np); np % nprow != 0; nprow--)
    ;
  npcol = np / nprow;
  Cblacs_get(-1, 0, &ctx);
  Cblacs_gridinit(&ctx, "Row", nprow, npcol);
  Cblacs_gridinfo(ctx, &nprow, &npcol, &myrow, &mycol);
  int zero = 0, info = 0;
  lrows = numroc_(&n_, &nb_, &myrow, &zero, &nprow);
  lcols = numroc_(&n_, &nb_, &mycol, &zero, &npcol);
  int lld = lrows > 1 ? lrows : 1, desc[9];
  descinit_(desc, &n_, &n_, &nb_, &nb_, &zero, &zero, &ctx, &lld, &info);
  if (info != 0) {
    if (rank == 0)
      printf("Bail out! descinit failed (info %d)\n", info);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  check_gemm(desc);
  check_factorizations(desc);
  if (rank == 0) {
    printf("1..%d\n", test_no);
    fflush(stdout);
  }
  Cblacs_gridexit(ctx);
  MPI_Finalize();
  return passed_all ? 0 : 1;
}
