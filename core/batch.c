/* Batched GEMM: the problems of a batch (struct hop_batch, built by the
 * entry points in cblas/cblas_gemm_batch.c).  Nothing here routes or runs
 * (core/gemm.c does), so that the subnormal scan can walk a batch without
 * pulling the router into programs that link core/ without engines. */
#include "hop.h"

int64_t hop_batch_count(const struct hop_batch *b)
{
  int64_t n = 0;
  for (size_t i = 0; i < b->groups; i++)
    n += b->group[i].count > 0 ? b->group[i].count : 0;
  return n;
}

struct hop_call hop_batch_member(const struct hop_call *g, const struct hop_batch_group *gr,
                                 int64_t p)
{
  struct hop_call s = {.op = HOP_OP_GEMM, .dtype = g->dtype, .symbol = g->symbol,
                       .row_major = g->row_major, .ta = gr->ta, .tb = gr->tb, .m = gr->m,
                       .n = gr->n, .k = gr->k, .alpha = gr->alpha, .beta = gr->beta,
                       .lda = gr->lda, .ldb = gr->ldb, .ldc = gr->ldc};
  if (gr->a != NULL) {
    s.a = gr->a[p], s.b = gr->b[p], s.c = gr->c[p];
  } else {
    ptrdiff_t ea = (ptrdiff_t)hop_dtype_ab_size(g->dtype), ec = (ptrdiff_t)hop_dtype_c_size(g->dtype);
    s.a = (const char *)gr->a0 + (ptrdiff_t)(p * gr->stride_a) * ea;
    s.b = (const char *)gr->b0 + (ptrdiff_t)(p * gr->stride_b) * ea;
    s.c = (char *)gr->c0 + (ptrdiff_t)(p * gr->stride_c) * ec;
  }
  return s;
}

static int64_t max64(int64_t x, int64_t y) { return x > y ? x : y; }

struct hop_call hop_batch_call(enum hop_dtype dt, const char *symbol, bool row_major,
                               const struct hop_batch *b)
{
  struct hop_call g = {.op = HOP_OP_GEMM_BATCH, .dtype = dt, .symbol = symbol,
                       .row_major = row_major, .batch = b};
  if (b->groups > 0) /* the trace's transposes: the first group's */
    g.ta = b->group[0].ta, g.tb = b->group[0].tb;
  for (size_t i = 0; i < b->groups; i++) {
    const struct hop_batch_group *gr = &b->group[i];
    g.m = max64(g.m, gr->m), g.n = max64(g.n, gr->n), g.k = max64(g.k, gr->k);
    g.lda = max64(g.lda, gr->lda), g.ldb = max64(g.ldb, gr->ldb), g.ldc = max64(g.ldc, gr->ldc);
  }
  return g;
}
