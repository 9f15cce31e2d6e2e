/* Host-mode timing of whatever engine and kernel family the environment
 * selects (HOPBLAS_BACKEND, HOPBLAS_OPENCL_VARIANT): square column-major
 * NN calls from host memory, so every call pays its packing and transfers,
 * as a BLAS caller sees it.  One warm-up call per size (program build,
 * buffers), then the best of --reps.  Prints "dtype n seconds GFLOPS".
 *
 *   families-bench [--sizes 1024,2048,4096] [--dtypes s,h] [--reps 3] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hopblas.h"

void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void one(char dt, int n, int reps)
{
  size_t cells = (size_t)n * (size_t)n, es = dt == 's' ? 4 : 2;
  unsigned char *a = malloc(cells * es), *b = malloc(cells * es), *c = malloc(cells * es);
  if (a == NULL || b == NULL || c == NULL) {
    printf("%c %d out-of-memory\n", dt, n);
    free(a), free(b), free(c);
    return;
  }
  for (size_t i = 0; i < cells; i++) {
    float v = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
    if (dt == 's') {
      ((float *)a)[i] = v, ((float *)b)[i] = -v, ((float *)c)[i] = 0.0f;
    } else { /* halves of magnitude 1/16 .. 2, random signs: no overflow at these k */
      uint16_t h = (uint16_t)(((i * 40503u) & 0x8000u) | ((11u + i % 4u) << 10) | (i * 37u % 1024u));
      ((uint16_t *)a)[i] = h, ((uint16_t *)b)[i] = h ^ 0x8000u, ((uint16_t *)c)[i] = 0;
    }
  }
  double best = 1e30;
  for (int r = -1; r < reps; r++) { /* r == -1: warm-up */
    double t0 = now();
    if (dt == 's')
      cblas_sgemm(102, 111, 111, n, n, n, 1.0f, (float *)a, n, (float *)b, n, 0.0f, (float *)c, n);
    else
      cblas_hgemm(102, 111, 111, n, n, n, 0x3c00, (uint16_t *)a, n, (uint16_t *)b, n, 0,
                  (uint16_t *)c, n);
    double t = now() - t0;
    if (r >= 0 && t < best)
      best = t;
  }
  printf("%c %d %.6f %.1f\n", dt, n, best, 2.0 * n * (double)n * n / best * 1e-9);
  fflush(stdout);
  free(a), free(b), free(c);
}

int main(int argc, char **argv)
{
  const char *sizes = "1024,2048,4096", *dtypes = "s,h";
  int reps = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--sizes") == 0)
      sizes = argv[i + 1];
    else if (strcmp(argv[i], "--dtypes") == 0)
      dtypes = argv[i + 1];
    else if (strcmp(argv[i], "--reps") == 0)
      reps = atoi(argv[i + 1]);
  }
  for (const char *d = dtypes; *d != '\0'; d++) {
    if (*d != 's' && *d != 'h')
      continue;
    char list[256];
    snprintf(list, sizeof list, "%s", sizes);
    for (char *t = strtok(list, ","); t != NULL; t = strtok(NULL, ","))
      one(*d, atoi(t), reps);
  }
  return 0;
}
