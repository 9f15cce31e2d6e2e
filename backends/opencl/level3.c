/* The rest of Level 3 on the OpenCL engine, built on its GEMM path rather
 * than beside it (s and d; complex ones in level3_complex.c):
 * - symm: the symmetric A expanded from its stored triangle into a dense
 *   copy on the host (one pass over k x k elements, what packing it for the
 *   device costs anyway), then one GEMM;
 * - syrk: already a GEMM on a triangle in its GEMM form (B = A): the gemmt
 *   pipeline runs it, never starting the tiles of the other triangle and
 *   writing back only the owned one;
 * - syr2k: alpha (op(A) op(B) + op(B) op(A)) as one gemmt of twice the
 *   depth, [op(A) op(B)] [op(B); op(A)], the operands side by side in
 *   host copies;
 * - trmm and trsm: blocked on operands resident on the device for the
 *   whole call (level3_tri.c).
 * Every path keeps the engine contract: the GEMM pipeline's C is final or
 * untouched, and finishes on the CPU what it leaves. */
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "level3.h"

/* A dense copy of symm's A, both triangles from the stored one. */
static void *expand_symmetric(const struct hop_call *g)
{
  size_t k = (size_t)g->k, e = hop_dtype_ab_size(g->dtype);
  unsigned char *full = malloc(k * k * e);
  if (full == NULL)
    return NULL;
  const unsigned char *a = g->a;
  for (size_t j = 0; j < k; j++)
    for (size_t i = 0; i < k; i++) {
      bool stored = g->upper ? i <= j : i >= j;
      size_t at = stored ? hop_at((int64_t)i, (int64_t)j, g->lda) : hop_at((int64_t)j, (int64_t)i, g->lda);
      memcpy(full + (i + j * k) * e, a + at * e, e);
    }
  return full;
}

static enum hop_status symm(void *st, const struct hop_call *g, hop_ocl_run_fn run)
{
  void *full = expand_symmetric(g);
  if (full == NULL)
    return HOP_ERR_NOMEM;
  struct hop_call m = *g;
  m.op = HOP_OP_GEMM, m.ta = m.tb = HOP_TRANS_N;
  if (g->right_side) /* C = alpha B A + beta C */
    m.a = g->b, m.lda = g->ldb, m.b = full, m.ldb = g->k;
  else
    m.a = full, m.lda = g->k;
  enum hop_status rc = run(st, &m);
  free(full);
  return rc;
}

/* syr2k's operands side by side: x = [op(A) op(B)] stored as op() of what
 * is copied (trans N: [A B], n x 2k; T: [A; B], 2k x n), y the same of B
 * and A; then alpha op(x) op(y)^T on the triangle. */
static void *side_by_side(const struct hop_call *g, const void *p, int64_t ldp, const void *q,
                          int64_t ldq)
{
  size_t n = (size_t)g->n, k = (size_t)g->k, e = hop_dtype_ab_size(g->dtype);
  unsigned char *x = malloc(2 * n * k * e);
  if (x == NULL)
    return NULL;
  bool t = hop_transposed(g->ta);
  size_t rows = t ? k : n, cols = t ? n : k, ld = t ? 2 * k : n;
  for (size_t j = 0; j < cols; j++) {
    memcpy(x + j * ld * e, (const unsigned char *)p + hop_at(0, (int64_t)j, ldp) * e, rows * e);
    size_t at = t ? rows + j * ld : (cols + j) * ld; /* below it (T), or right of it (N) */
    memcpy(x + at * e, (const unsigned char *)q + hop_at(0, (int64_t)j, ldq) * e, rows * e);
  }
  return x;
}

static enum hop_status syr2k(void *st, const struct hop_call *g, hop_ocl_run_fn run)
{
  void *x = side_by_side(g, g->a, g->lda, g->b, g->ldb);
  void *y = x != NULL ? side_by_side(g, g->b, g->ldb, g->a, g->lda) : NULL;
  enum hop_status rc = HOP_ERR_NOMEM;
  if (y != NULL) {
    bool t = hop_transposed(g->ta);
    struct hop_call m = *g;
    m.op = HOP_OP_GEMMT, m.k = 2 * g->k;
    m.a = x, m.b = y, m.lda = m.ldb = t ? 2 * g->k : g->n;
    rc = run(st, &m);
  }
  free(x), free(y);
  return rc;
}

enum hop_status hop_ocl_level3(struct hop_ocl_state *st, const struct hop_call *g,
                               hop_ocl_run_fn run)
{
  struct hop_call m;
  switch (g->op) {
  case HOP_OP_SYMM: return symm(st, g, run);
  case HOP_OP_SYRK: /* its GEMM form is a gemmt */
    m = *g;
    m.op = HOP_OP_GEMMT;
    return run(st, &m);
  case HOP_OP_SYR2K: return syr2k(st, g, run);
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: return hop_ocl_triangular(st, g, run);
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT:
  case HOP_OP_GEMM_BATCH:
  case HOP_OP_HEMM: /* complex: not in the engine's takes */
  case HOP_OP_HERK:
  case HOP_OP_HER2K:
  case HOP_OP_COUNT: break;
  }
  return HOP_DECLINED;
}
