/* HOPBLAS_VERIFY: recompute an offloaded call on the CPU engine (OpenBLAS)
 * and compare element by element with the contract's bound
 *   |C - R| <= 2 k eps (|alpha| (|A||B|)_ij + |beta| |C0_ij|) + 2 (k + 2) (|alpha| + 1) 2^-150
 * (+ final rounding for half C).
 * "fallback" also replaces a result that is out of tolerance. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hop.h"

static float load_c(const struct hop_call *g, const void *c, size_t at)
{
  if (g->dtype == HOP_DTYPE_H)
    return hop_half_to_float(((const uint16_t *)c)[at]);
  return ((const float *)c)[at];
}

static float load_ab(enum hop_dtype dt, const void *p, size_t at)
{
  if (dt == HOP_DTYPE_S)
    return ((const float *)p)[at];
  return hop_half_to_float(((const uint16_t *)p)[at]);
}

bool hop_verify_begin(const struct hop_call *g, struct hop_verify_snapshot *snap)
{
  memset(snap, 0, sizeof *snap);
  if (hop_config()->verify == HOP_VERIFY_OFF)
    return true;
  snap->active = true;
  if (g->beta == 0.0f)
    return true; /* C is write-only: nothing to keep */
  size_t es = hop_dtype_c_size(g->dtype);
  snap->c = malloc((size_t)g->m * (size_t)g->n * es);
  if (snap->c == NULL)
    return false;
  for (int j = 0; j < g->n; j++)
    memcpy((char *)snap->c + (size_t)j * g->m * es, (const char *)g->c + hop_at(0, j, g->ldc) * es,
           (size_t)g->m * es);
  return true;
}

/* (|A||B|)_ij in float, column-major m x n, for the error bound. */
static float *abs_product(const struct hop_call *g)
{
  size_t m = g->m, n = g->n, k = g->k;
  float *a = malloc(m * k * sizeof *a), *b = malloc(k * n * sizeof *b), *p = malloc(m * n * sizeof *p);
  if (a == NULL || b == NULL || p == NULL) {
    free(a), free(b), free(p);
    return NULL;
  }
  for (size_t l = 0; l < k; l++)
    for (size_t i = 0; i < m; i++)
      a[i + l * m] = fabsf(load_ab(g->dtype, g->a, g->ta ? hop_at(l, i, g->lda) : hop_at(i, l, g->lda)));
  for (size_t j = 0; j < n; j++)
    for (size_t l = 0; l < k; l++)
      b[l + j * k] = fabsf(load_ab(g->dtype, g->b, g->tb ? hop_at(j, l, g->ldb) : hop_at(l, j, g->ldb)));
  struct hop_call abs = {.dtype = HOP_DTYPE_S, .symbol = "verify", .m = g->m, .n = g->n, .k = g->k,
                         .alpha = 1.0f, .beta = 0.0f, .a = a, .lda = g->m, .b = b, .ldb = g->k,
                         .c = p, .ldc = g->m};
  hop_fallback_run(&abs);
  free(a), free(b);
  return p;
}

static bool within(float c, float r, double bound)
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
  float *absab = ref ? abs_product(g) : NULL;
  if (absab == NULL) {
    hop_log(1, "verify: no memory to check %s %dx%dx%d; skipped", g->symbol, g->m, g->n, g->k);
    free(ref), free(snap->c);
    return "skipped";
  }
  if (snap->c != NULL)
    memcpy(ref, snap->c, mn * es);
  struct hop_call r = *g;
  r.c = ref;
  r.ldc = g->m;
  hop_fallback_run(&r);

  double eps_acc = FLT_EPSILON, eps_out = g->dtype == HOP_DTYPE_H ? 0x1p-10 : 0.0;
  /* Gradual underflow: each operation may be off by 2^-150 besides eps. */
  double underflow = 2.0 * (g->k + 2) * (fabs(g->alpha) + 1.0) * 0x1p-150;
  size_t bad = 0, worst_i = 0, worst_j = 0;
  double worst = 0.0;
  for (int j = 0; j < g->n; j++)
    for (int i = 0; i < g->m; i++) {
      size_t at = hop_at(i, j, g->m);
      float c = load_c(g, g->c, hop_at(i, j, g->ldc)), rv = load_c(g, ref, at);
      float c0 = snap->c ? load_c(g, snap->c, at) : 0.0f;
      double bound = 2.0 * g->k * eps_acc * (fabs(g->alpha) * absab[at] + fabs(g->beta) * fabsf(c0)) +
                     2.0 * eps_out * fabsf(rv) + underflow;
      if (!within(c, rv, bound)) {
        double err = fabs((double)c - (double)rv);
        if (bad == 0 || err > worst || isnan(err))
          worst = err, worst_i = i, worst_j = j;
        bad++;
      }
    }
  const char *verdict = "ok";
  if (bad == 0) {
    hop_log(2, "verify: %s %dx%dx%d matches OpenBLAS", g->symbol, g->m, g->n, g->k);
  } else {
    bool replace = cfg->verify == HOP_VERIFY_FALLBACK;
    hop_log(1, "verify: %s %dx%dx%d: %zu of %zu elements out of tolerance, max error %.3g at (%zu,%zu)%s",
            g->symbol, g->m, g->n, g->k, bad, mn, worst, worst_i, worst_j,
            replace ? "; replaced by the OpenBLAS result" : "");
    verdict = "bad";
    if (replace) {
      for (int j = 0; j < g->n; j++)
        memcpy((char *)g->c + hop_at(0, j, g->ldc) * es, (char *)ref + (size_t)j * g->m * es,
               (size_t)g->m * es);
      verdict = "replaced";
    }
  }
  free(ref), free(absab), free(snap->c);
  return verdict;
}
