/* The magnitudes of the terms of each result, for HOPBLAS_VERIFY's bound:
 * for every operation, sum_l |left(i, l)| |right(l, j)| is one GEMM of
 * magnitude matrices (computed by the fallback engine, not in a loop):
 * GEMM and the syrk-like |op(A)||op(B)|; syr2k's second product beside the
 * first (2k terms); symm's and trmm's triangles expanded; trsm's
 * |op(A)||X|, X the computed solution, for its residual. */
#include <math.h>
#include <stdlib.h>

#include "hop.h"

static double magnitude(struct hop_scalar x) { return fabs(x.re) + fabs(x.im); }

/* |x| of element (r, c) of a matrix of the call's dtype. */
static double mag_at(const struct hop_call *g, const void *x, int64_t ld, int64_t r, int64_t c)
{
  return magnitude(hop_dtype_load(g->dtype, false, x, hop_at(r, c, ld)));
}

/* |op(X)(r, c)| of A (x = 0) or B (x = 1) in GEMM form. */
static double mag_op(const struct hop_call *g, int x, int64_t r, int64_t c)
{
  bool t = hop_transposed(x == 0 ? g->ta : g->tb);
  const void *base = x == 0 ? g->a : g->b;
  int64_t ld = x == 0 ? g->lda : g->ldb;
  return t ? mag_at(g, base, ld, c, r) : mag_at(g, base, ld, r, c);
}

/* |A(i, l)| of symm's A from its stored triangle (hemm: the diagonal's real part). */
static double mag_sym(const struct hop_call *g, int64_t i, int64_t l)
{
  bool stored = g->upper ? i <= l : i >= l;
  if (i == l && g->op == HOP_OP_HEMM)
    return fabs(hop_dtype_load(g->dtype, false, g->a, hop_at(i, i, g->lda)).re);
  return stored ? mag_at(g, g->a, g->lda, i, l) : mag_at(g, g->a, g->lda, l, i);
}

/* |op(A)(i, l)| of trmm's and trsm's triangle: 0 outside it, 1 on a unit diagonal. */
static double mag_tri(const struct hop_call *g, int64_t i, int64_t l)
{
  int64_t r = hop_transposed(g->ta) ? l : i, c = hop_transposed(g->ta) ? i : l;
  if (r == c && g->unit_diag)
    return 1.0;
  if (g->upper ? r > c : r < c)
    return 0.0;
  return mag_at(g, g->a, g->lda, r, c);
}

struct terms {
  const struct hop_call *g;
  const void *x; /* trmm: B as it was (ld m); trsm: the solution (ld ldx) */
  int64_t ldx;
};

/* The inner dimension of the terms. */
static int64_t inner(const struct hop_call *g)
{
  return g->op == HOP_OP_SYR2K || g->op == HOP_OP_HER2K ? 2 * g->k : g->k;
}

static double left(const struct terms *t, int64_t i, int64_t l)
{
  const struct hop_call *g = t->g;
  switch (g->op) {
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT:
  case HOP_OP_SYRK:
  case HOP_OP_HERK: return mag_op(g, 0, i, l);
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K: return l < g->k ? mag_op(g, 0, i, l) : mag_op(g, 1, l - g->k, i);
  case HOP_OP_SYMM:
  case HOP_OP_HEMM:
    return g->right_side ? mag_at(g, g->b, g->ldb, i, l) : mag_sym(g, i, l);
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: return g->right_side ? mag_at(g, t->x, t->ldx, i, l) : mag_tri(g, i, l);
  case HOP_OP_GEMM_BATCH: /* verify.c checks its problems one by one */
  case HOP_OP_COUNT: break;
  }
  return 0.0;
}

static double right(const struct terms *t, int64_t l, int64_t j)
{
  const struct hop_call *g = t->g;
  switch (g->op) {
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT:
  case HOP_OP_SYRK:
  case HOP_OP_HERK: return mag_op(g, 1, l, j);
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K: return l < g->k ? mag_op(g, 1, l, j) : mag_op(g, 0, j, l - g->k);
  case HOP_OP_SYMM:
  case HOP_OP_HEMM:
    return g->right_side ? mag_sym(g, l, j) : mag_at(g, g->b, g->ldb, l, j);
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: return g->right_side ? mag_tri(g, l, j) : mag_at(g, t->x, t->ldx, l, j);
  case HOP_OP_GEMM_BATCH: /* verify.c checks its problems one by one */
  case HOP_OP_COUNT: break;
  }
  return 0.0;
}

void *hop_verify_terms(const struct hop_call *g, enum hop_dtype bt, const void *x, int64_t ldx,
                       int64_t *kk)
{
  struct terms t = {g, x, ldx};
  size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)inner(g), es = hop_dtype_c_size(bt);
  *kk = (int64_t)k;
  void *l = malloc(m * k * es), *r = malloc(k * n * es), *p = malloc(m * n * es);
  if (l == NULL || r == NULL || p == NULL) {
    free(l), free(r), free(p);
    return NULL;
  }
  for (size_t c = 0; c < k; c++)
    for (size_t i = 0; i < m; i++)
      hop_dtype_store(bt, l, i + c * m, (struct hop_scalar){left(&t, (int64_t)i, (int64_t)c), 0.0});
  for (size_t j = 0; j < n; j++)
    for (size_t c = 0; c < k; c++)
      hop_dtype_store(bt, r, c + j * k, (struct hop_scalar){right(&t, (int64_t)c, (int64_t)j), 0.0});
  struct hop_call abs = {.op = HOP_OP_GEMM, .dtype = bt, .symbol = "verify", .m = g->m,
                         .n = g->n, .k = (int64_t)k, .alpha = {1.0, 0.0}, .beta = {0.0, 0.0},
                         .a = l, .lda = g->m, .b = r, .ldb = (int64_t)k, .c = p, .ldc = g->m};
  hop_fallback_run(&abs);
  free(l), free(r);
  return p;
}
