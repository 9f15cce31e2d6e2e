/* HOPBLAS_VERIFY: recompute an offloaded call on the CPU engine (OpenBLAS)
 * and compare element by element with the contract's bound
 *   |C - R| <= 2 k eps (|alpha| (|A||B|)_ij + |beta| |C0_ij|) + (k + 2) (|alpha| + 1) tiny
 * (+ final rounding for half C), eps and tiny the accumulation type's
 * (core/dtype.c); complex parts each, with |x| taken as |re| + |im|.
 * "fallback" also replaces a result that is out of tolerance. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hop.h"

/* |x| bounded by |re| + |im|: what the bound's |A||B| is built from. */
static double magnitude(struct hop_scalar x) { return fabs(x.re) + fabs(x.im); }

/* The dtype |A| and |B| are multiplied in: the accumulation's own
 * precision, so that |A||B| does not overflow where C does not. */
static enum hop_dtype bound_dtype(enum hop_dtype dt)
{
  switch (dt) {
  case HOP_DTYPE_S:
  case HOP_DTYPE_C:
  case HOP_DTYPE_H:
  case HOP_DTYPE_SH: return HOP_DTYPE_S;
  case HOP_DTYPE_D:
  case HOP_DTYPE_Z: return HOP_DTYPE_D;
  case HOP_DTYPE_COUNT: break;
  }
  return HOP_DTYPE_S;
}

bool hop_verify_begin(const struct hop_call *g, struct hop_verify_snapshot *snap)
{
  memset(snap, 0, sizeof *snap);
  if (hop_config()->verify == HOP_VERIFY_OFF)
    return true;
  snap->active = true;
  if (hop_scalar_is_zero(g->beta))
    return true; /* C is write-only: nothing to keep */
  size_t es = hop_dtype_c_size(g->dtype);
  snap->c = malloc((size_t)g->m * (size_t)g->n * es);
  if (snap->c == NULL)
    return false;
  for (int64_t j = 0; j < g->n; j++)
    memcpy((char *)snap->c + (size_t)j * g->m * es, (const char *)g->c + hop_at(0, j, g->ldc) * es,
           (size_t)g->m * es);
  return true;
}

/* (|A||B|)_ij, column-major m x n in bound_dtype's real type, for the
 * error bound; computed by the fallback engine (OpenBLAS), not in a loop. */
static void *abs_product(const struct hop_call *g)
{
  enum hop_dtype bt = bound_dtype(g->dtype);
  size_t m = g->m, n = g->n, k = g->k, es = hop_dtype_c_size(bt);
  void *a = malloc(m * k * es), *b = malloc(k * n * es), *p = malloc(m * n * es);
  if (a == NULL || b == NULL || p == NULL) {
    free(a), free(b), free(p);
    return NULL;
  }
  for (size_t l = 0; l < k; l++)
    for (size_t i = 0; i < m; i++) {
      size_t at = hop_transposed(g->ta) ? hop_at(l, i, g->lda) : hop_at(i, l, g->lda);
      struct hop_scalar v = {magnitude(hop_dtype_load(g->dtype, false, g->a, at)), 0.0};
      hop_dtype_store(bt, a, i + l * m, v);
    }
  for (size_t j = 0; j < n; j++)
    for (size_t l = 0; l < k; l++) {
      size_t at = hop_transposed(g->tb) ? hop_at(j, l, g->ldb) : hop_at(l, j, g->ldb);
      struct hop_scalar v = {magnitude(hop_dtype_load(g->dtype, false, g->b, at)), 0.0};
      hop_dtype_store(bt, b, l + j * k, v);
    }
  struct hop_call abs = {.op = HOP_OP_GEMM, .dtype = bt, .symbol = "verify", .m = g->m,
                         .n = g->n, .k = g->k, .alpha = {1.0, 0.0}, .beta = {0.0, 0.0}, .a = a,
                         .lda = g->m, .b = b, .ldb = g->k, .c = p, .ldc = g->m};
  hop_fallback_run(&abs);
  free(a), free(b);
  return p;
}

static bool within(double c, double r, double bound)
{
  if (isnan(r) || isnan(c))
    return isnan(r) && isnan(c);
  if (isinf(r) || isinf(c))
    return c == r;
  return fabs((double)c - (double)r) <= bound;
}

const char *hop_verify_end(const struct hop_call *g, struct hop_verify_snapshot *snap)
{
  if (g == NULL || !snap->active) {
    free(snap->c);
    return NULL;
  }
  const struct hop_config *cfg = hop_config();
  size_t es = hop_dtype_c_size(g->dtype), mn = (size_t)g->m * (size_t)g->n;
  void *ref = malloc(mn * es);
  void *absab = ref ? abs_product(g) : NULL;
  if (absab == NULL) {
    hop_log(1, "verify: no memory to check %s %" PRId64 "x%" PRId64 "x%" PRId64 "; skipped", g->symbol, g->m, g->n, g->k);
    free(ref), free(snap->c);
    return "skipped";
  }
  if (snap->c != NULL)
    memcpy(ref, snap->c, mn * es);
  struct hop_call r = *g;
  r.c = ref;
  r.ldc = g->m;
  hop_fallback_run(&r);

  const struct hop_dtype_info *info = hop_dtype_info(g->dtype);
  enum hop_dtype bt = bound_dtype(g->dtype);
  double alpha = magnitude(g->alpha), beta = magnitude(g->beta);
  /* Gradual underflow: each operation may be off by half the smallest
   * subnormal besides eps: 2 (k + 2) (|alpha| + 1) tiny / 2. */
  double underflow = (g->k + 2) * (alpha + 1.0) * info->tiny;
  size_t bad = 0, worst_i = 0, worst_j = 0;
  double worst = 0.0;
  for (int64_t j = 0; j < g->n; j++) {
    int64_t lo, hi; /* the reference wrote these rows only (gemmt: its triangle) */
    hop_call_rows(g, j, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
      size_t at = hop_at(i, j, g->m);
      struct hop_scalar c = hop_dtype_load(g->dtype, true, g->c, hop_at(i, j, g->ldc));
      struct hop_scalar rv = hop_dtype_load(g->dtype, true, ref, at);
      double c0 = snap->c ? magnitude(hop_dtype_load(g->dtype, true, snap->c, at)) : 0.0;
      double ab = hop_dtype_load(bt, true, absab, at).re;
      double bound = 2.0 * g->k * info->eps * (alpha * ab + beta * c0) +
                     2.0 * info->out_eps * magnitude(rv) + underflow;
      if (!within(c.re, rv.re, bound) || !within(c.im, rv.im, bound)) {
        double err = fmax(fabs(c.re - rv.re), fabs(c.im - rv.im));
        if (bad == 0 || err > worst || isnan(err))
          worst = err, worst_i = (size_t)i, worst_j = (size_t)j;
        bad++;
      }
    }
  }
  const char *verdict = "ok";
  if (bad == 0) {
    hop_log(2, "verify: %s %" PRId64 "x%" PRId64 "x%" PRId64 " matches OpenBLAS", g->symbol, g->m, g->n, g->k);
  } else {
    bool replace = cfg->verify == HOP_VERIFY_FALLBACK;
    hop_log(1, "verify: %s %" PRId64 "x%" PRId64 "x%" PRId64 ": %zu of %zu elements out of tolerance, max error %.3g at (%zu,%zu)%s",
            g->symbol, g->m, g->n, g->k, bad, mn, worst, worst_i, worst_j,
            replace ? "; replaced by the OpenBLAS result" : "");
    verdict = "bad";
    if (replace) {
      for (int64_t j = 0; j < g->n; j++) {
        int64_t lo, hi;
        hop_call_rows(g, j, &lo, &hi);
        memcpy((char *)g->c + hop_at(lo, j, g->ldc) * es, (char *)ref + hop_at(lo, j, g->m) * es,
               (size_t)(hi - lo) * es);
      }
      verdict = "replaced";
    }
  }
  free(ref), free(absab), free(snap->c);
  return verdict;
}
