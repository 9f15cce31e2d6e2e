/* Interposition overhead on tiny calls: the same loop of cblas_sgemm and
 * sgemm_ calls, run once against OpenBLAS alone and once with hopblas
 * preloaded (benchmark/overhead.sh).  Linked only against OpenBLAS.
 * Usage: overhead N CALLS  -> prints ns per call for cblas_sgemm and sgemm_. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *);

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 8;
  long calls = argc > 2 ? atol(argv[2]) : 100000;
  float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n),
        *c = malloc(sizeof(float) * n * n);
  for (int i = 0; i < n * n; i++)
    a[i] = (float)(i % 7) * 0.25f, b[i] = (float)(i % 5) * 0.5f, c[i] = 0.0f;
  float alpha = 1.0f, beta = 0.5f;
  double t0 = now();
  for (long r = 0; r < calls; r++)
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, alpha, a, n, b, n, beta, c, n);
  double t1 = now();
  for (long r = 0; r < calls; r++)
    sgemm_("N", "N", &n, &n, &n, &alpha, a, &n, b, &n, &beta, c, &n);
  double t2 = now();
  printf("n=%d calls=%ld cblas_sgemm %.1f ns/call sgemm_ %.1f ns/call (checksum %g)\n", n, calls,
         1e9 * (t1 - t0) / calls, 1e9 * (t2 - t1) / calls, (double)c[0]);
  free(a), free(b), free(c);
  return 0;
}
