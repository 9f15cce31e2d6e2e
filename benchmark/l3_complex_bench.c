/* The complex Level-3 routines through the public CBLAS entry points, as a
 * program calling them gets them: zgemm, zhemm, zherk, zher2k, ztrmm and
 * ztrsm (left, lower, no transpose; A, B, C n x n), best of REPS calls at
 * each n, on whichever engine the environment routes them to
 * (HOPBLAS_BACKEND=cpu for the CPU's own figures; benchmark/nvidia/level3.sh
 * runs both).  A's diagonal is dominant, so that ztrsm's solution stays
 * bounded.  One line per routine and n: seconds and GFLOPS (complex
 * multiply-adds counted as 8 real operations).
 *
 *   l3-complex-bench [--reps R] N...   */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { COL = 102, NO_TRANS = 111, CONJ_TRANS = 113, UPPER = 121, LOWER = 122, NON_UNIT = 131,
       LEFT = 141 };

void cblas_zgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_zhemm(int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_zherk(int, int, int, int, int, double, const void *, int, double, void *, int);
void cblas_zher2k(int, int, int, int, int, const void *, const void *, int, const void *, int,
                  double, void *, int);
void cblas_ztrmm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);
void cblas_ztrsm(int, int, int, int, int, int, int, const void *, const void *, int, void *, int);

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double complex *matrix(int n, unsigned seed)
{
  double complex *x = malloc((size_t)n * (size_t)n * sizeof *x);
  for (size_t i = 0; x != NULL && i < (size_t)n * (size_t)n; i++) {
    seed = seed * 1103515245u + 12345u;
    double re = (double)(seed >> 8 & 0xffff) / 65536.0 - 0.5;
    seed = seed * 1103515245u + 12345u;
    x[i] = re + I * ((double)(seed >> 8 & 0xffff) / 65536.0 - 0.5);
  }
  for (int i = 0; x != NULL && i < n; i++)
    x[(size_t)i * (size_t)n + (size_t)i] += n;
  return x;
}

/* One call of routine r on n x n operands; C (B for trmm, trsm) from c0. */
static double call(const char *r, int n, const double complex *a, const double complex *b,
                   const double complex *c0, double complex *c)
{
  const double complex one = 1.0, alpha = 0.5 + 0.25 * I;
  memcpy(c, c0, (size_t)n * (size_t)n * sizeof *c);
  double t0 = now();
  if (strcmp(r, "zgemm") == 0)
    cblas_zgemm(COL, NO_TRANS, NO_TRANS, n, n, n, &alpha, a, n, b, n, &one, c, n);
  else if (strcmp(r, "zhemm") == 0)
    cblas_zhemm(COL, LEFT, LOWER, n, n, &alpha, a, n, b, n, &one, c, n);
  else if (strcmp(r, "zherk") == 0)
    cblas_zherk(COL, LOWER, NO_TRANS, n, n, -1.0, a, n, 1.0, c, n);
  else if (strcmp(r, "zher2k") == 0)
    cblas_zher2k(COL, UPPER, CONJ_TRANS, n, n, &alpha, a, n, b, n, 1.0, c, n);
  else if (strcmp(r, "ztrmm") == 0)
    cblas_ztrmm(COL, LEFT, LOWER, NO_TRANS, NON_UNIT, n, n, &alpha, a, n, c, n);
  else
    cblas_ztrsm(COL, LEFT, LOWER, NO_TRANS, NON_UNIT, n, n, &alpha, a, n, c, n);
  return now() - t0;
}

/* Real operations: 8 per complex multiply-add. */
static double flops(const char *r, double n)
{
  double full = 8.0 * n * n * n;
  if (strcmp(r, "zgemm") == 0 || strcmp(r, "zhemm") == 0 || strcmp(r, "zher2k") == 0)
    return full;
  return full / 2.0; /* herk's triangle, the triangular ones */
}

int main(int argc, char **argv)
{
  static const char *const routines[] = {"zgemm", "zhemm", "zherk", "zher2k", "ztrmm", "ztrsm"};
  int first = 1, reps = 2;
  if (argc > 2 && strcmp(argv[1], "--reps") == 0)
    reps = atoi(argv[2]), first = 3;
  if (first >= argc || reps < 1) {
    fprintf(stderr, "usage: l3-complex-bench [--reps R] N...\n");
    return 2;
  }
  for (int i = first; i < argc; i++) {
    int n = atoi(argv[i]);
    double complex *a = matrix(n, 1), *b = matrix(n, 2), *c0 = matrix(n, 3), *c = matrix(n, 4);
    if (n < 1 || a == NULL || b == NULL || c0 == NULL || c == NULL) {
      fprintf(stderr, "l3-complex-bench: no memory for n = %d\n", n);
      return 1;
    }
    for (size_t r = 0; r < sizeof routines / sizeof *routines; r++) {
      double best = 0.0;
      for (int k = 0; k < reps; k++) {
        double t = call(routines[r], n, a, b, c0, c);
        best = k == 0 || t < best ? t : best;
      }
      printf("%-7s %6d %10.4f s %10.1f GFLOPS\n", routines[r], n, best,
             flops(routines[r], n) / best / 1e9);
      fflush(stdout);
    }
    free(a), free(b), free(c0), free(c);
  }
  return 0;
}
