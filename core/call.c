/* What each operation does, in one place: its flops, which elements of C
 * it owns, whether it reads C, and the trivial calls core/ finishes itself
 * (see struct hop_call in core/hop.h for the fields of each). */
#include "hop.h"

double hop_call_flops(const struct hop_call *g)
{
  double fma = hop_dtype_info(g->dtype)->flops_per_fma;
  double m = (double)g->m, n = (double)g->n, k = (double)g->k;
  switch (g->op) {
  case HOP_OP_GEMM:
  case HOP_OP_SYMM:
  case HOP_OP_HEMM: return fma * m * n * k;
  case HOP_OP_GEMMT:
  case HOP_OP_SYRK:
  case HOP_OP_HERK: return fma * m * (n + 1.0) / 2.0 * k; /* the triangle */
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K: return fma * n * (n + 1.0) * k;
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: return fma * m * n * (k + 1.0) / 2.0;
  case HOP_OP_GEMM_BATCH: {
    double sum = 0.0;
    for (size_t i = 0; i < g->batch->groups; i++) {
      const struct hop_batch_group *gr = &g->batch->group[i];
      if (gr->count > 0)
        sum += (double)gr->count * (double)gr->m * (double)gr->n * (double)gr->k;
    }
    return fma * sum;
  }
  case HOP_OP_COUNT: break;
  }
  return 0.0;
}

void hop_call_rows(const struct hop_call *g, int64_t j, int64_t *lo, int64_t *hi)
{
  *lo = 0, *hi = g->m;
  switch (g->op) {
  case HOP_OP_GEMM:
  case HOP_OP_SYMM:
  case HOP_OP_HEMM:
  case HOP_OP_TRMM:
  case HOP_OP_TRSM:
  case HOP_OP_GEMM_BATCH: return; /* its problems are GEMMs (hop_batch_member) */
  case HOP_OP_GEMMT:
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K:
    if (g->upper)
      *hi = j + 1 < g->m ? j + 1 : g->m;
    else
      *lo = j < g->m ? j : g->m;
    return;
  case HOP_OP_COUNT: return;
  }
}

struct hop_call hop_call_block(const struct hop_call *g, int64_t i0, int64_t rows, int64_t j0,
                               int64_t cols)
{
  size_t ea = hop_dtype_ab_size(g->dtype), ec = hop_dtype_c_size(g->dtype);
  struct hop_call s = *g;
  s.op = HOP_OP_GEMM;
  s.m = rows, s.n = cols;
  s.a = (const char *)g->a +
        ea * (hop_transposed(g->ta) ? hop_at(0, i0, g->lda) : hop_at(i0, 0, g->lda));
  s.b = (const char *)g->b +
        ea * (hop_transposed(g->tb) ? hop_at(j0, 0, g->ldb) : hop_at(0, j0, g->ldb));
  s.c = (char *)g->c + ec * hop_at(i0, j0, g->ldc);
  return s;
}

bool hop_call_columns(const struct hop_call *g, int64_t j0, int64_t cols, struct hop_call *out)
{
  if (g->planes != NULL)
    return false;
  size_t eb = hop_dtype_ab_size(g->dtype), ec = hop_dtype_c_size(g->dtype);
  *out = *g;
  out->n = cols;
  out->c = (char *)g->c + ec * hop_at(0, j0, g->ldc);
  switch (g->op) {
  case HOP_OP_GEMM: *out = hop_call_block(g, 0, g->m, j0, cols); return true;
  case HOP_OP_SYMM:
  case HOP_OP_HEMM: /* C's columns are A times B's: with A on the left, B's own */
    out->b = (const char *)g->b + eb * hop_at(0, j0, g->ldb);
    return !g->right_side;
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: return !g->right_side; /* B (in c) by right-hand sides */
  /* A column panel of a triangle is a trapezoid: a GEMM above (below) the
   * diagonal block and a triangle, not one call of the operation. */
  case HOP_OP_GEMMT:
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K:
  case HOP_OP_GEMM_BATCH: /* many problems: to be shared by problems, not by columns */
  case HOP_OP_COUNT: return false;
  }
  return false;
}

bool hop_call_real_diagonal(const struct hop_call *g)
{
  return g->op == HOP_OP_HERK || g->op == HOP_OP_HER2K;
}

bool hop_call_reads_c(const struct hop_call *g)
{
  switch (g->op) {
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: return !hop_scalar_is_zero(g->alpha);
  case HOP_OP_GEMM:
  case HOP_OP_SYMM:
  case HOP_OP_HEMM:
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K:
  case HOP_OP_GEMMT: return !hop_scalar_is_zero(g->beta);
  case HOP_OP_GEMM_BATCH: /* each problem's beta: hop_batch_member */
  case HOP_OP_COUNT: break;
  }
  return true;
}

bool hop_call_trivial(const struct hop_call *g)
{
  return g->op != HOP_OP_GEMM_BATCH && (hop_scalar_is_zero(g->alpha) || g->k == 0);
}

void hop_call_scale_c(const struct hop_call *g)
{
  /* TRMM and TRSM with alpha == 0: B = 0 without reading it. */
  bool tri = g->op == HOP_OP_TRMM || g->op == HOP_OP_TRSM;
  bool zero = tri || hop_scalar_is_zero(g->beta), real_diag = hop_call_real_diagonal(g);
  for (int64_t j = 0; j < g->n; j++) {
    int64_t lo, hi;
    hop_call_rows(g, j, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
      size_t at = hop_at(i, j, g->ldc);
      struct hop_scalar c = {0.0, 0.0};
      if (!zero) {
        struct hop_scalar old = hop_dtype_load(g->dtype, true, g->c, at);
        if (real_diag && i == j)
          old.im = 0.0;
        c.re = g->beta.re * old.re - g->beta.im * old.im;
        c.im = g->beta.re * old.im + g->beta.im * old.re;
      }
      hop_dtype_store(g->dtype, g->c, at, c);
    }
  }
}

void hop_call_letters(const struct hop_call *g, char *side, char *uplo, char *diag)
{
  *side = *uplo = *diag = '-';
  switch (g->op) {
  case HOP_OP_GEMM:
  case HOP_OP_GEMM_BATCH: return;
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: *diag = g->unit_diag ? 'U' : 'N'; /* fall through */
  case HOP_OP_SYMM:
  case HOP_OP_HEMM: *side = g->right_side ? 'R' : 'L'; /* fall through */
  case HOP_OP_GEMMT:
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K: *uplo = g->upper ? 'U' : 'L'; return;
  case HOP_OP_COUNT: return;
  }
}
