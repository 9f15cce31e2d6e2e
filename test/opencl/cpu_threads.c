/* OpenBLAS's thread count around the CPU engine's calls while the OpenCL
 * engine's copy threads hold cores (backends/cpu/threads.c).  Linked to
 * OpenBLAS itself, so that hopblas (preloaded) shares this program's copy,
 * whose idle workers spin as OpenBLAS's default says.  One dgemm_ large
 * enough for the device (HOPBLAS_MIN_FLOPS), which starts the copy
 * threads, then small ones that stay on the CPU; prints the thread count
 * before and after, and the largest difference from a plain triple loop. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);
int openblas_get_num_threads(void);

static double check(int n, const double *a, const double *b, const double *c)
{
  double worst = 0.0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double s = 0.0;
      for (int l = 0; l < n; l++)
        s += a[i + l * n] * b[l + j * n];
      worst = fmax(worst, fabs(s - c[i + j * n]));
    }
  return worst;
}

int main(void)
{
  int before = openblas_get_num_threads();
  double worst = 0.0, one = 1.0, zero = 0.0;
  int sizes[] = {400, 48, 64, 400, 40};
  for (int t = 0; t < 5; t++) {
    int n = sizes[t];
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n),
           *c = malloc(sizeof(double) * n * n);
    if (a == NULL || b == NULL || c == NULL)
      return 2;
    for (int i = 0; i < n * n; i++)
      a[i] = (double)(i % 7) - 3.0, b[i] = (double)(i % 5) - 2.0;
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
    worst = fmax(worst, check(n, a, b, c));
    free(a), free(b), free(c);
  }
  printf("%d %d %g\n", before, openblas_get_num_threads(), worst);
  return 0;
}
