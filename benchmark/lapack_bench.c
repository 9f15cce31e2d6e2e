/* Times LAPACK's factorizations and the Level-3 routines they spend their
 * time in, through the standard Fortran symbols, so that whichever BLAS the
 * process resolves (OpenBLAS, hopblas or NVBLAS preloaded) does the work:
 *
 *   lapack-bench [--reps R] ROUTINE:N ...   ROUTINE: dpotrf dgetrf dtrsm dsyrk
 *
 * Linked against liblapack.so.3 and libblas.so.3 by soname: run it with
 * Debian's reference LAPACK (.../lapack/liblapack.so.3), whose routines call
 * dgemm_, dtrsm_ and dsyrk_ through the PLT, where a preloaded BLAS gets
 * them (OpenBLAS's own LAPACK calls its kernels directly).  Each result is
 * checked at 64 sampled elements against its definition (L L^T = A, L U = A
 * with the diagonally dominant A that needs no row exchange, A X = B,
 * C = A A^T); a line per run: routine, n, best seconds, GFLOPS, the check. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *,
            const double *, const double *, const int *, double *, const int *, size_t, size_t,
            size_t, size_t);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *,
            const int *, const double *, double *, const int *, size_t, size_t);

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static unsigned long long seed = 20261126;
static double uniform(void) /* [-1, 1) */
{
  seed = seed * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(seed >> 11) / (double)(1ull << 52) - 1.0;
}

#define AT(x, i, j, n) (x)[(size_t)(j) * (size_t)(n) + (size_t)(i)]

/* A symmetric (lower triangle used) or general matrix, diagonally dominant. */
static void fill(double *a, int n, bool symmetric)
{
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      AT(a, i, j, n) = symmetric && i < j ? AT(a, j, i, n) : (i == j ? n : uniform());
}

static double run(const char *routine, int n, const double *a0, double *a, double *b,
                  const double *b0, int *ipiv, bool *ok)
{
  size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  memcpy(a, a0, bytes);
  if (b != NULL)
    memcpy(b, b0, bytes);
  int info = 0;
  double one = 1.0, zero = 0.0, t0 = now();
  if (strcmp(routine, "dpotrf") == 0)
    dpotrf_("L", &n, a, &n, &info, 1);
  else if (strcmp(routine, "dgetrf") == 0)
    dgetrf_(&n, &n, a, &n, ipiv, &info);
  else if (strcmp(routine, "dtrsm") == 0)
    dtrsm_("L", "L", "N", "N", &n, &n, &one, a, &n, b, &n, 1, 1, 1, 1);
  else
    dsyrk_("L", "N", &n, &n, &one, a, &n, &zero, b, &n, 1, 1);
  double t = now() - t0;
  *ok = info == 0;
  return t;
}

/* 64 sampled elements of the result against the definition. */
static double check(const char *routine, int n, const double *a0, const double *a,
                    const double *b, const double *b0, const int *ipiv)
{
  double worst = 0.0;
  for (int s = 0; s < 64; s++) {
    int i = (int)((uniform() + 1.0) / 2.0 * n), j = (int)((uniform() + 1.0) / 2.0 * n);
    i = i >= n ? n - 1 : i, j = j >= n ? n - 1 : j;
    double got = 0.0, want = 0.0, scale = 1.0;
    if (strcmp(routine, "dpotrf") == 0) { /* (L L^T)(i, j), i >= j */
      if (i < j) { int t = i; i = j; j = t; }
      for (int l = 0; l <= j; l++)
        got += AT(a, i, l, n) * AT(a, j, l, n), scale += fabs(AT(a, i, l, n) * AT(a, j, l, n));
      want = AT(a0, i, j, n);
    } else if (strcmp(routine, "dgetrf") == 0) { /* (L U)(i, j), no exchange expected */
      if (ipiv[i] != i + 1)
        return INFINITY;
      for (int l = 0; l <= (i < j ? i : j); l++) {
        double lv = l == i ? 1.0 : AT(a, i, l, n), uv = AT(a, l, j, n);
        got += lv * uv, scale += fabs(lv * uv);
      }
      want = AT(a0, i, j, n);
    } else if (strcmp(routine, "dtrsm") == 0) { /* (L X)(i, j) = B(i, j) */
      for (int l = 0; l <= i; l++)
        got += AT(a0, i, l, n) * AT(b, l, j, n), scale += fabs(AT(a0, i, l, n) * AT(b, l, j, n));
      want = AT(b0, i, j, n);
    } else { /* (A A^T)(i, j), i >= j */
      if (i < j) { int t = i; i = j; j = t; }
      for (int l = 0; l < n; l++)
        want += AT(a0, i, l, n) * AT(a0, j, l, n), scale += fabs(AT(a0, i, l, n) * AT(a0, j, l, n));
      got = AT(b, i, j, n);
    }
    double err = fabs(got - want) / (scale * n * 1.1e-16);
    worst = err > worst ? err : worst;
  }
  return worst; /* in units of n eps |terms|: below 1 is right */
}

int main(int argc, char **argv)
{
  int reps = 3;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
      continue;
    }
    char routine[16];
    int n;
    if (sscanf(argv[i], "%15[a-z]:%d", routine, &n) != 2 || n < 1 ||
        (strcmp(routine, "dpotrf") && strcmp(routine, "dgetrf") && strcmp(routine, "dtrsm") &&
         strcmp(routine, "dsyrk"))) {
      fprintf(stderr, "usage: lapack-bench [--reps R] dpotrf|dgetrf|dtrsm|dsyrk:N ...\n");
      return 2;
    }
    bool two = strcmp(routine, "dtrsm") == 0 || strcmp(routine, "dsyrk") == 0;
    size_t bytes = (size_t)n * (size_t)n * sizeof(double);
    double *a0 = malloc(bytes), *a = malloc(bytes), *b0 = two ? malloc(bytes) : NULL;
    double *b = two ? malloc(bytes) : NULL;
    int *ipiv = malloc((size_t)n * sizeof(int));
    if (a0 == NULL || a == NULL || ipiv == NULL || (two && (b0 == NULL || b == NULL))) {
      fprintf(stderr, "lapack-bench: no memory for n = %d\n", n);
      return 1;
    }
    fill(a0, n, strcmp(routine, "dpotrf") == 0);
    if (two)
      for (size_t l = 0; l < (size_t)n * (size_t)n; l++)
        b0[l] = uniform();
    double best = INFINITY;
    bool ok = true;
    for (int r = 0; r < reps; r++) {
      bool this_ok;
      double t = run(routine, n, a0, a, b, b0, ipiv, &this_ok);
      ok = ok && this_ok;
      best = t < best ? t : best;
    }
    double flops = strcmp(routine, "dpotrf") == 0   ? n * (double)n * n / 3.0
                   : strcmp(routine, "dgetrf") == 0 ? 2.0 * n * (double)n * n / 3.0
                                                     : (double)n * n * n;
    double err = check(routine, n, a0, a, b, b0, ipiv);
    printf("%-7s %6d %10.4f s %9.1f GFLOPS  check %.2g %s\n", routine, n, best,
           flops / best / 1e9, err, ok && err < 1.0 ? "ok" : "WRONG");
    free(a0), free(a), free(b0), free(b), free(ipiv);
  }
  return 0;
}
