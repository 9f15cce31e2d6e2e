/* ScaLAPACK's pdgemm and pdpotrf timed on every rank of the job, on a
 * squarest process grid, with whatever BLAS each rank's dynamic linker
 * gives it (OpenBLAS, or hopblas preloaded).  Rank 0 prints one line per
 * repetition and the best:
 *
 *   mpirun -np P pbench pdgemm|pdpotrf N NB [REPS [WARM]]
 *   -> "pdgemm n=16384 nb=1024 ranks=4 grid=2x2 rep=1 seconds=3.21 tflops=2.74"
 *      "pdgemm n=16384 nb=1024 ranks=4 grid=2x2 best seconds=... tflops=..."
 *
 * pdgemm: C = A B + C (2 n^3 flops); pdpotrf: the upper Cholesky factor of
 * a diagonally dominant symmetric matrix (n^3 / 3 flops), refilled before
 * each repetition; WARM 1 (the default) runs one untimed repetition first
 * (libraries loaded, device programs built, pages touched).  The check of results is the tests' business
 * (test/mpi/scalapack.test); here only INFO is checked. */
#include <math.h>
#include <stdbool.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, int *info);

/* PBLAS asks PILAENV for the k of the local GEMMs of pdgemm (and of the
 * updates the factorizations make through it); ScaLAPACK's own returns 32,
 * which keeps every local call thin, and asks its users to set their own.
 * PBENCH_KB sets it here (unset: 32, as ScaLAPACK's); linked with
 * -rdynamic, this definition is the one libscalapack calls. */
int pilaenv_(const int *ictxt, const char *prec, size_t prec_len)
{
  (void)ictxt, (void)prec, (void)prec_len;
  const char *kb = getenv("PBENCH_KB");
  return kb != NULL && atoi(kb) > 0 ? atoi(kb) : 32;
}

static double value(unsigned which, long i, long j)
{
  unsigned h = which * 2654435761u ^ (unsigned)i * 40503u ^ (unsigned)j * 9973u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (double)(h % 20001u) / 10000.0 - 1.0;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np;
  Cblacs_pinfo(&rank, &np);
  if (argc < 4) {
    if (rank == 0)
      fprintf(stderr, "usage: pbench pdgemm|pdpotrf N NB [REPS [WARM]]\n");
    MPI_Finalize();
    return 2;
  }
  const char *routine = argv[1];
  int n = atoi(argv[2]), nb = atoi(argv[3]), reps = argc > 4 ? atoi(argv[4]) : 3;
  bool warm = argc > 5 ? atoi(argv[5]) != 0 : true;
  bool gemm = strcmp(routine, "pdgemm") == 0;
  int nprow, npcol, myrow, mycol, ctx, zero = 0, one = 1, info = 0;
  for (nprow = (int)sqrt((double)np); np % nprow != 0; nprow--)
    ;
  npcol = np / nprow;
  Cblacs_get(-1, 0, &ctx);
  Cblacs_gridinit(&ctx, "Row", nprow, npcol);
  Cblacs_gridinfo(ctx, &nprow, &npcol, &myrow, &mycol);
  int lr = numroc_(&n, &nb, &myrow, &zero, &nprow), lc = numroc_(&n, &nb, &mycol, &zero, &npcol);
  int lld = lr > 1 ? lr : 1, desc[9];
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctx, &lld, &info);
  size_t len = (size_t)lld * (size_t)(lc > 1 ? lc : 1);
  double *a = malloc(len * sizeof *a), *b = gemm ? malloc(len * sizeof *b) : NULL;
  double *c = gemm ? malloc(len * sizeof *c) : NULL;
  if (a == NULL || (gemm && (b == NULL || c == NULL))) {
    fprintf(stderr, "rank %d: out of memory for %zu elements\n", rank, len);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double flops = gemm ? 2.0 * n * (double)n * n : (double)n * n * n / 3.0, best = INFINITY;
  for (int r = warm ? 0 : 1; r <= reps; r++) { /* repetition 0: the warm-up */
    for (int lj = 0; lj < lc; lj++)
      for (int li = 0; li < lr; li++) {
        long i = ((long)(li / nb) * nprow + myrow) * nb + li % nb;
        long j = ((long)(lj / nb) * npcol + mycol) * nb + lj % nb;
        size_t at = (size_t)lj * lld + li;
        if (gemm) {
          a[at] = value(1, i, j), b[at] = value(2, i, j), c[at] = value(3, i, j);
        } else {
          long lo = i < j ? i : j, hi = i < j ? j : i;
          a[at] = value(4, lo, hi) + (i == j ? (double)n : 0.0);
        }
      }
    double alpha = 1.0, beta = 1.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (gemm)
      pdgemm_("N", "N", &n, &n, &n, &alpha, a, &one, &one, desc, b, &one, &one, desc, &beta, c,
              &one, &one, desc);
    else
      pdpotrf_("U", &n, a, &one, &one, desc, &info);
    MPI_Barrier(MPI_COMM_WORLD);
    double s = MPI_Wtime() - t0;
    if (info != 0 && rank == 0)
      printf("%s: info = %d\n", routine, info);
    if (r > 0 && rank == 0) {
      printf("%s n=%d nb=%d ranks=%d grid=%dx%d rep=%d seconds=%.3f tflops=%.3f\n", routine, n, nb,
             np, nprow, npcol, r, s, flops / s * 1e-12);
      fflush(stdout);
    }
    if (r > 0 && s < best)
      best = s;
  }
  if (rank == 0)
    printf("%s n=%d nb=%d ranks=%d grid=%dx%d best seconds=%.3f tflops=%.3f\n", routine, n, nb, np,
           nprow, npcol, best, flops / best * 1e-12);
  free(a), free(b), free(c);
  Cblacs_gridexit(ctx);
  MPI_Finalize();
  return info == 0 ? 0 : 1;
}
