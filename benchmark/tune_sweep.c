/* The timing half of benchmark/tune-crossover.sh: square cblas_sgemm calls
 * through the public entry point, as a preloaded program makes them, in
 * whatever routing the environment sets (HOPBLAS_BACKEND=cpu, =opencl, or
 * auto).  For each size: two warm-up calls (program builds, first-touch),
 * then the best of at least 3 calls and 0.2 s.
 *
 *   tune-sweep N [N ...]         prints "N SECONDS GFLOPS" per size
 *   tune-sweep --once N [N ...]  one call per size, untimed (for a trace of the routing) */
#include <string.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hopblas.h"

enum { ORDER_COL = 102, NO_TRANS = 111 }; /* CblasColMajor, CblasNoTrans */

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  bool once = argc > 1 && strcmp(argv[1], "--once") == 0;
  if (argc < 2 + once) {
    fprintf(stderr, "usage: tune-sweep [--once] N [N ...]\n");
    return 2;
  }
  for (int i = 1 + once; i < argc; i++) {
    int n = atoi(argv[i]);
    if (n < 1 || n > 32768) {
      fprintf(stderr, "tune-sweep: %s is not a size in 1..32768\n", argv[i]);
      return 2;
    }
    size_t nn = (size_t)n * (size_t)n;
    /* Page-aligned, so that every mode's process sees the same layout (the CPU's
     * speed on small matrices depends on it, and the modes run in different processes). */
    float *a = NULL, *b = NULL, *c = NULL;
    if (posix_memalign((void **)&a, 4096, nn * sizeof *a) != 0 ||
        posix_memalign((void **)&b, 4096, nn * sizeof *b) != 0 ||
        posix_memalign((void **)&c, 4096, nn * sizeof *c) != 0) {
      fprintf(stderr, "tune-sweep: no memory for n = %d\n", n);
      return 1;
    }
    for (size_t j = 0; j < nn; j++) {
      a[j] = (float)(j % 17) / 17.0f - 0.5f;
      b[j] = (float)(j % 13) / 13.0f - 0.5f;
      c[j] = 0.0f;
    }
    for (int w = 0; w < (once ? 1 : 2); w++)
      cblas_sgemm(ORDER_COL, NO_TRANS, NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    if (once) {
      free(a), free(b), free(c);
      continue;
    }
    double best = 1e30, start = now();
    for (int r = 0; r < 3 || now() - start < 0.2; r++) {
      double t0 = now();
      cblas_sgemm(ORDER_COL, NO_TRANS, NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
      double t = now() - t0;
      best = t < best ? t : best;
    }
    printf("%d %.9f %.3f\n", n, best, 2.0 * n * (double)n * n / best * 1e-9);
    fflush(stdout);
    free(a), free(b), free(c);
  }
  return 0;
}
