/* A batch of sgemm problems (10,000 of 64 x 64 x 64 by default), each in
 * buffers of its own as a program would hold them, timed four ways:
 * OpenBLAS called in a loop (loaded privately, never through hopblas),
 * OpenBLAS's own cblas_sgemm_batch where it has one (0.3.27 and later),
 * hopblas's cblas_sgemm called in a loop, and hopblas's cblas_sgemm_batch
 * (on whichever engine the environment routes it to; benchmark/batch.sh
 * runs it per engine).  Best of REPS runs each; hopblas's batch results are
 * checked against OpenBLAS's loop.  Prints a Markdown table.
 *
 *   batch-bench [COUNT [N [REPS [OPENBLAS]]]] */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hopblas.h"

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);

typedef void sgemm_fn(int, int, int, int, int, int, float, const float *, int, const float *, int,
                      float, float *, int);
typedef void sgemm_batch_fn(int, const int *, const int *, const int *, const int *, const int *,
                            const float *, const float **, const int *, const float **,
                            const int *, const float *, float **, const int *, int, const int *);

enum { COL = 102, NO_TRANS = 111 };

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct batch {
  int count, n;
  const float **a, **b;
  float **c;
};

static void loop(sgemm_fn *gemm, const struct batch *x)
{
  for (int i = 0; i < x->count; i++)
    gemm(COL, NO_TRANS, NO_TRANS, x->n, x->n, x->n, 1.0f, x->a[i], x->n, x->b[i], x->n, 0.0f,
         x->c[i], x->n);
}

static void batched(sgemm_batch_fn *gemm, const struct batch *x)
{
  int t = NO_TRANS, n = x->n, size = x->count;
  float alpha = 1.0f, beta = 0.0f;
  gemm(COL, &t, &t, &n, &n, &n, &alpha, x->a, &n, x->b, &n, &beta, x->c, &n, 1, &size);
}

/* Best of reps runs of one way (a first run warms it up: programs built,
 * buffers allocated, threads started). */
static double best(void (*run)(void *, const struct batch *), void *fn, const struct batch *x,
                   int reps)
{
  double t = INFINITY;
  run(fn, x);
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    run(fn, x);
    double s = now() - t0;
    t = s < t ? s : t;
  }
  return t;
}

static void run_loop(void *fn, const struct batch *x) { loop((sgemm_fn *)fn, x); }
static void run_batched(void *fn, const struct batch *x) { batched((sgemm_batch_fn *)fn, x); }

static void row(const char *what, double s, double flops, double base)
{
  printf("| %s | %.3f | %.1f | %.2f |\n", what, 1e3 * s, flops / s * 1e-9, base / s);
}

int main(int argc, char **argv)
{
  int count = argc > 1 ? atoi(argv[1]) : 10000, n = argc > 2 ? atoi(argv[2]) : 64;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  const char *lib = argc > 4 ? argv[4] : "libopenblas.so.0";
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  sgemm_fn *ob = h ? (sgemm_fn *)dlsym(h, "cblas_sgemm") : NULL;
  sgemm_batch_fn *ob_batch = h ? (sgemm_batch_fn *)dlsym(h, "cblas_sgemm_batch") : NULL;
  if (count < 1 || n < 1 || reps < 1 || ob == NULL) {
    fprintf(stderr, "usage: batch-bench [COUNT [N [REPS [OPENBLAS]]]] (%s: %s)\n", lib,
            h ? "no cblas_sgemm" : dlerror());
    return 2;
  }
  size_t elems = (size_t)n * (size_t)n;
  struct batch x = {count, n, calloc((size_t)count, sizeof(float *)),
                    calloc((size_t)count, sizeof(float *)), calloc((size_t)count, sizeof(float *))};
  float **ref = calloc((size_t)count, sizeof(float *));
  for (int i = 0; i < count && x.a && x.b && x.c && ref; i++) {
    float *a = malloc(elems * sizeof *a), *b = malloc(elems * sizeof *b);
    x.c[i] = calloc(elems, sizeof(float)), ref[i] = calloc(elems, sizeof(float));
    if (a == NULL || b == NULL || x.c[i] == NULL || ref[i] == NULL) {
      fprintf(stderr, "batch-bench: out of memory\n");
      return 1;
    }
    for (size_t e = 0; e < elems; e++)
      a[e] = (float)((e * 7 + (size_t)i) % 13) / 13.0f - 0.5f,
      b[e] = (float)((e * 5 + (size_t)i) % 11) / 11.0f - 0.5f;
    x.a[i] = a, x.b[i] = b;
  }
  double flops = 2.0 * count * (double)n * n * n;
  struct batch xr = x;
  xr.c = ref;
  double t_ob = best(run_loop, (void *)ob, &xr, reps);
  printf("%d sgemm of %d x %d x %d, best of %d; OpenBLAS: %s%s\n\n", count, n, n, n, reps, lib,
         ob_batch ? "" : " (no cblas_sgemm_batch: 0.3.27 has it)");
  printf("| way | ms | GFLOPS | x OpenBLAS loop |\n|---|---|---|---|\n");
  row("OpenBLAS, cblas_sgemm in a loop", t_ob, flops, t_ob);
  if (ob_batch != NULL)
    row("OpenBLAS, cblas_sgemm_batch", best(run_batched, (void *)ob_batch, &x, reps), flops, t_ob);
  row("hopblas, cblas_sgemm in a loop", best(run_loop, (void *)cblas_sgemm, &x, reps), flops, t_ob);
  for (int i = 0; i < count; i++) /* what the batch must overwrite: beta == 0 never reads it */
    for (size_t e = 0; e < elems; e++)
      x.c[i][e] = NAN;
  row("hopblas, cblas_sgemm_batch", best(run_batched, (void *)cblas_sgemm_batch, &x, reps), flops,
      t_ob);
  double worst = 0.0;
  for (int i = 0; i < count; i++)
    for (size_t e = 0; e < elems; e++) {
      double d = fabs((double)x.c[i][e] - (double)ref[i][e]);
      worst = isnan(d) || d > worst ? d : worst;
    }
  printf("\nhopblas's batch against OpenBLAS's loop: largest difference %.3g (k = %d)\n", worst, n);
  return worst <= 1e-4 * n ? 0 : 1; /* NaN (a result not written) fails too */
}
