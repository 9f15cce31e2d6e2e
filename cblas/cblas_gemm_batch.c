/* cblas_?gemm_batch (the group API of MKL and OpenBLAS 0.3.27) and
 * cblas_?gemm_batch_strided, in s, d, c, z.  Group i holds group_size[i]
 * problems of one shape, transposes and scalars; their operands are the
 * next group_size[i] entries of the pointer arrays.  Every group is checked
 * first, as OpenBLAS's interface/gemm_batch.c does, with GEMM's numbers
 * (row-major in the swapped problem's terms) and the routine name
 * "SGEMM_BATCH " ("SGEMM_BATCH_STRIDED "): one bad group and no problem is
 * computed.  A negative group count or size is an empty batch or group, as
 * there.  Row-major groups are swapped to column-major here, as for GEMM. */
#include <stdlib.h>

#include "blas_int.h"
#include "check.h"
#include "hopblas.h"

/* A group's shape checked and swapped into gr (its scalars and operands
 * still unset); false after reporting a bad argument. */
static bool group_args(enum hop_dtype dt, const char *symbol, const char *xname, int order,
                       int transa, int transb, int64_t m, int64_t n, int64_t k, int64_t lda,
                       int64_t ldb, int64_t ldc, struct hop_batch_group *gr)
{
  struct hop_call g = {0};
  int info = hop_cblas_gemm_args(dt, order, transa, transb, m, n, k, NULL, lda, NULL, ldb, NULL,
                                 ldc, &g);
  if (info >= 0) {
    struct hop_trace_call call = {.symbol = symbol, .dtype = dt, .m = m, .n = n, .k = k,
                                  .transa = hop_trace_cblas_trans(transa),
                                  .transb = hop_trace_cblas_trans(transb)};
    hop_entry_finish(HOP_XERBLA, true, info, xname, &call, &g);
    return false;
  }
  *gr = (struct hop_batch_group){.ta = g.ta, .tb = g.tb, .m = g.m, .n = g.n, .k = g.k,
                                 .lda = g.lda, .ldb = g.ldb, .ldc = g.ldc};
  return true;
}

/* The group API's arguments. */
struct group_api {
  enum hop_dtype dt;
  const char *symbol, *xname;
  int order;
  const int *transa, *transb;
  const hop_blas_int *m, *n, *k, *lda, *ldb, *ldc, *size;
  const void *alpha, *beta;
  const void *const *a, *const *b;
  void *const *c;
};

/* Group i, whose problems start at entry `at` of the pointer arrays. */
static bool group_at(const struct group_api *x, size_t i, size_t at, struct hop_batch_group *gr)
{
  if (!group_args(x->dt, x->symbol, x->xname, x->order, x->transa[i], x->transb[i], x->m[i],
                  x->n[i], x->k[i], x->lda[i], x->ldb[i], x->ldc[i], gr))
    return false;
  bool row = x->order == HOP_CBLAS_ROW_MAJOR;
  gr->alpha = hop_dtype_load(x->dt, true, x->alpha, i);
  gr->beta = hop_dtype_load(x->dt, true, x->beta, i);
  gr->count = x->size[i];
  gr->a = (row ? x->b : x->a) + at, gr->b = (row ? x->a : x->b) + at, gr->c = x->c + at;
  return true;
}

enum { LOCAL_GROUPS = 16 };

static void batch_through_core(const struct group_api *x, hop_blas_int group_count)
{
  size_t groups = group_count > 0 ? (size_t)group_count : 0, at = 0;
  struct hop_batch_group local[LOCAL_GROUPS], one;
  struct hop_batch_group *gr = groups <= LOCAL_GROUPS ? local : malloc(groups * sizeof *gr);
  bool ok = true;
  for (size_t i = 0; i < groups && ok; i++) {
    ok = group_at(x, i, at, gr != NULL ? &gr[i] : &one);
    at += x->size[i] > 0 ? (size_t)x->size[i] : 0;
  }
  bool row = x->order == HOP_CBLAS_ROW_MAJOR;
  if (ok && gr != NULL) {
    struct hop_batch batch = {groups, gr};
    struct hop_call call = hop_batch_call(x->dt, x->symbol, row, &batch);
    hop_call_run(&call);
  }
  /* No memory for the list of groups: all checked above, now one group at a time. */
  at = 0;
  for (size_t i = 0; ok && gr == NULL && i < groups; i++) {
    group_at(x, i, at, &one);
    at += x->size[i] > 0 ? (size_t)x->size[i] : 0;
    struct hop_batch batch = {1, &one};
    struct hop_call call = hop_batch_call(x->dt, x->symbol, row, &batch);
    hop_call_run(&call);
  }
  if (gr != local)
    free(gr);
}

static void strided_through_core(enum hop_dtype dt, const char *symbol, const char *xname,
                                 int order, int transa, int transb, hop_blas_int m, hop_blas_int n,
                                 hop_blas_int k, struct hop_scalar alpha, const void *a,
                                 hop_blas_int lda, hop_blas_int stride_a, const void *b,
                                 hop_blas_int ldb, hop_blas_int stride_b, struct hop_scalar beta,
                                 void *c, hop_blas_int ldc, hop_blas_int stride_c,
                                 hop_blas_int count)
{
  struct hop_batch_group gr;
  if (!group_args(dt, symbol, xname, order, transa, transb, m, n, k, lda, ldb, ldc, &gr))
    return;
  bool row = order == HOP_CBLAS_ROW_MAJOR;
  gr.alpha = alpha, gr.beta = beta, gr.count = count;
  gr.a0 = row ? b : a, gr.stride_a = row ? stride_b : stride_a;
  gr.b0 = row ? a : b, gr.stride_b = row ? stride_a : stride_b;
  gr.c0 = c, gr.stride_c = stride_c;
  struct hop_batch batch = {1, &gr};
  struct hop_call call = hop_batch_call(dt, symbol, row, &batch);
  hop_call_run(&call);
}

/* Real scalars (arrays of them, or one by value); complex ones by pointer. */
#define HOP_BATCH(name, xname, dt, type)                                                         \
  HOP_EXPORT void HOP_CBLAS_NAME(name)(                                                          \
    int order, const int *transa, const int *transb, const hop_blas_int *m,                      \
    const hop_blas_int *n, const hop_blas_int *k, const type *alpha, const type **a,             \
    const hop_blas_int *lda, const type **b, const hop_blas_int *ldb, const type *beta, type **c, \
    const hop_blas_int *ldc, hop_blas_int group_count, const hop_blas_int *group_size)           \
  {                                                                                              \
    struct group_api x = {dt, HOP_XSTR(HOP_CBLAS_NAME(name)), xname, order, transa, transb, m, n,  \
                          k, lda, ldb, ldc, group_size, alpha, beta, (const void *const *)a,     \
                          (const void *const *)b, (void *const *)c};                             \
    batch_through_core(&x, group_count);                                                         \
  }
#define HOP_STRIDED_REAL(name, xname, dt, type)                                                  \
  HOP_EXPORT void HOP_CBLAS_NAME(name)(                                                          \
    int order, int transa, int transb, hop_blas_int m, hop_blas_int n, hop_blas_int k,           \
    type alpha, const type *a, hop_blas_int lda, hop_blas_int stride_a, const type *b,           \
    hop_blas_int ldb, hop_blas_int stride_b, type beta, type *c, hop_blas_int ldc,               \
    hop_blas_int stride_c, hop_blas_int count)                                                   \
  {                                                                                              \
    strided_through_core(dt, HOP_XSTR(HOP_CBLAS_NAME(name)), xname, order, transa, transb, m, n,  \
                         k, (struct hop_scalar){alpha, 0.0}, a, lda, stride_a, b, ldb, stride_b, \
                         (struct hop_scalar){beta, 0.0}, c, ldc, stride_c, count);               \
  }
#define HOP_STRIDED_COMPLEX(name, xname, dt)                                                     \
  HOP_EXPORT void HOP_CBLAS_NAME(name)(                                                          \
    int order, int transa, int transb, hop_blas_int m, hop_blas_int n, hop_blas_int k,           \
    const void *alpha, const void *a, hop_blas_int lda, hop_blas_int stride_a, const void *b,    \
    hop_blas_int ldb, hop_blas_int stride_b, const void *beta, void *c, hop_blas_int ldc,        \
    hop_blas_int stride_c, hop_blas_int count)                                                   \
  {                                                                                              \
    strided_through_core(dt, HOP_XSTR(HOP_CBLAS_NAME(name)), xname, order, transa, transb, m, n,  \
                         k, hop_dtype_load(dt, true, alpha, 0), a, lda, stride_a, b, ldb,        \
                         stride_b, hop_dtype_load(dt, true, beta, 0), c, ldc, stride_c, count);  \
  }

HOP_BATCH(sgemm_batch, "SGEMM_BATCH ", HOP_DTYPE_S, float)
HOP_BATCH(dgemm_batch, "DGEMM_BATCH ", HOP_DTYPE_D, double)
HOP_BATCH(cgemm_batch, "CGEMM_BATCH ", HOP_DTYPE_C, void)
HOP_BATCH(zgemm_batch, "ZGEMM_BATCH ", HOP_DTYPE_Z, void)
HOP_STRIDED_REAL(sgemm_batch_strided, "SGEMM_BATCH_STRIDED ", HOP_DTYPE_S, float)
HOP_STRIDED_REAL(dgemm_batch_strided, "DGEMM_BATCH_STRIDED ", HOP_DTYPE_D, double)
HOP_STRIDED_COMPLEX(cgemm_batch_strided, "CGEMM_BATCH_STRIDED ", HOP_DTYPE_C)
HOP_STRIDED_COMPLEX(zgemm_batch_strided, "ZGEMM_BATCH_STRIDED ", HOP_DTYPE_Z)

/* scipy-openblas's names. */
HOP_CBLAS_ALIASES(sgemm_batch);
HOP_CBLAS_ALIASES(dgemm_batch);
HOP_CBLAS_ALIASES(cgemm_batch);
HOP_CBLAS_ALIASES(zgemm_batch);
HOP_CBLAS_ALIASES(sgemm_batch_strided);
HOP_CBLAS_ALIASES(dgemm_batch_strided);
HOP_CBLAS_ALIASES(cgemm_batch_strided);
HOP_CBLAS_ALIASES(zgemm_batch_strided);
