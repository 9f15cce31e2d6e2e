/* The tiny-call fast path (see core/hop.h): set up once, after the first
 * call through core/, from the configuration and the CPU engine. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "hop.h"

static struct {
  pthread_once_t once;
  struct hop_fast_path path;
} fast = {PTHREAD_ONCE_INIT};

const struct hop_fast_path hop_fast_path_off = {.max_mnk = {0}};
const struct hop_fast_path *hop_fast_path_ready = &hop_fast_path_off;

/* OpenBLAS's entry points in a process with threads: a fork() in another
 * thread waits until the call has left OpenBLAS (core/fork_guard.c). */
#define GUARDED(name, call)                                                                        \
  do {                                                                                             \
    atomic_int *stripe = hop_blas_enter();                                                         \
    fast.path.e.name call;                                                                         \
    hop_blas_leave(stripe);                                                                        \
  } while (0)

static void guarded_cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha,
                                const float *a, int lda, const float *b, int ldb, float beta,
                                float *c, int ldc)
{
  GUARDED(cblas_sgemm, (order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
}

static void guarded_cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha,
                                const double *a, int lda, const double *b, int ldb, double beta,
                                double *c, int ldc)
{
  GUARDED(cblas_dgemm, (order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
}

static void guarded_cblas_cgemm(int order, int ta, int tb, int m, int n, int k, const void *alpha,
                                const void *a, int lda, const void *b, int ldb, const void *beta,
                                void *c, int ldc)
{
  GUARDED(cblas_cgemm, (order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
}

static void guarded_cblas_zgemm(int order, int ta, int tb, int m, int n, int k, const void *alpha,
                                const void *a, int lda, const void *b, int ldb, const void *beta,
                                void *c, int ldc)
{
  GUARDED(cblas_zgemm, (order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
}

static void guarded_sgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                          const float *alpha, const float *a, const int *lda, const float *b,
                          const int *ldb, const float *beta, float *c, const int *ldc,
                          size_t len_ta, size_t len_tb)
{
  GUARDED(sgemm, (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, len_ta, len_tb));
}

static void guarded_dgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                          const double *alpha, const double *a, const int *lda, const double *b,
                          const int *ldb, const double *beta, double *c, const int *ldc,
                          size_t len_ta, size_t len_tb)
{
  GUARDED(dgemm, (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, len_ta, len_tb));
}

static void guarded_cgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                          const void *alpha, const void *a, const int *lda, const void *b,
                          const int *ldb, const void *beta, void *c, const int *ldc, size_t len_ta,
                          size_t len_tb)
{
  GUARDED(cgemm, (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, len_ta, len_tb));
}

static void guarded_zgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                          const void *alpha, const void *a, const int *lda, const void *b,
                          const int *ldb, const void *beta, void *c, const int *ldc, size_t len_ta,
                          size_t len_tb)
{
  GUARDED(zgemm, (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, len_ta, len_tb));
}

static const struct hop_direct_entries guarded_entries = {
  .cblas_sgemm = guarded_cblas_sgemm, .sgemm = guarded_sgemm,
  .cblas_dgemm = guarded_cblas_dgemm, .dgemm = guarded_dgemm,
  .cblas_cgemm = guarded_cblas_cgemm, .cgemm = guarded_cgemm,
  .cblas_zgemm = guarded_cblas_zgemm, .zgemm = guarded_zgemm,
};

static void fast_prepare(void)
{
  const struct hop_config *cfg = hop_config();
  /* Every call must reach core/ when it has to be traced, told about
   * (HOPBLAS_VERBOSE=2 logs each routing decision) or sent to a device. */
  if (cfg->trace_path[0] != '\0' || cfg->verbose >= 2)
    return;
  double max_flops;
  const struct hop_backend *last = hop_backends[hop_backend_count - 1];
  if (strcmp(cfg->backend, last->name) == 0)
    max_flops = INFINITY;
  else if (strcmp(cfg->backend, "auto") != 0)
    return;
  else
    max_flops = cfg->min_flops >= 0.0 ? cfg->min_flops : cfg->device_floor_flops;
  if (last->direct == NULL)
    return;
  struct hop_engine_view v;
  hop_engine_get(hop_backend_count - 1, &v);
  struct hop_direct_entries *e = &fast.path.e;
  last->direct(v.state, e);
  fast.path.guarded = guarded_entries;
  /* The same flops threshold for every dtype: a complex multiply-add is 4
   * real ones. */
  uint64_t real = (uint64_t)fmin(max_flops / 2.0, HOP_FAST_PATH_MAX_MNK);
  uint64_t cplx = (uint64_t)fmin(max_flops / 8.0, HOP_FAST_PATH_MAX_MNK);
  fast.path.max_mnk[HOP_DTYPE_S] = e->cblas_sgemm && e->sgemm ? real : 0;
  fast.path.max_mnk[HOP_DTYPE_D] = e->cblas_dgemm && e->dgemm ? real : 0;
  fast.path.max_mnk[HOP_DTYPE_C] = e->cblas_cgemm && e->cgemm ? cplx : 0;
  fast.path.max_mnk[HOP_DTYPE_Z] = e->cblas_zgemm && e->zgemm ? cplx : 0;
  __atomic_store_n(&hop_fast_path_ready, &fast.path, __ATOMIC_RELEASE);
}

void hop_fast_path_prepare(void) { pthread_once(&fast.once, fast_prepare); }
