/* HOPBLAS_VERIFY: recompute an offloaded call on the CPU engine (OpenBLAS)
 * and compare element by element with the contract's bound
 *   |C - R| <= 2 k eps (|alpha| (|A||B|)_ij + |beta| |C0_ij|) + (k + 2) (|alpha| + 1) tiny
 * (+ final rounding for half C), eps and tiny the accumulation type's
 * (core/dtype.c); complex parts each, with |x| taken as |re| + |im|;
 * |A||B| stands for the magnitudes of each result's terms
 * (core/verify_terms.c).  trsm is judged by its residual,
 *   |op(A) X - alpha B| <= 2 k eps (|op(A)||X| + |alpha||B|) + (k + 2) (|alpha| + 1) tiny.
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

/* Bytes of C's m x n elements a snapshot keeps: none where the call does
 * not read C (it is write-only then). */
static size_t snapshot_bytes(const struct hop_call *g)
{
  return hop_call_reads_c(g) ? (size_t)g->m * (size_t)g->n * hop_dtype_c_size(g->dtype) : 0;
}

static void snapshot(const struct hop_call *g, void *dst)
{
  size_t es = hop_dtype_c_size(g->dtype);
  for (int64_t j = 0; j < g->n; j++)
    memcpy((char *)dst + (size_t)j * g->m * es, (const char *)g->c + hop_at(0, j, g->ldc) * es,
           (size_t)g->m * es);
}

/* A batch's snapshot holds its problems' in turn. */
bool hop_verify_begin(const struct hop_call *g, struct hop_verify_snapshot *snap)
{
  memset(snap, 0, sizeof *snap);
  if (hop_config()->verify == HOP_VERIFY_OFF)
    return true;
  snap->active = true;
  bool batch = g->op == HOP_OP_GEMM_BATCH;
  size_t bytes = batch ? 0 : snapshot_bytes(g);
  for (size_t gi = 0; batch && gi < g->batch->groups; gi++)
    for (int64_t p = 0; p < g->batch->group[gi].count; p++) {
      struct hop_call m = hop_batch_member(g, &g->batch->group[gi], p);
      bytes += snapshot_bytes(&m);
    }
  if (bytes == 0)
    return true; /* C is write-only: nothing to keep */
  snap->c = malloc(bytes);
  if (snap->c == NULL)
    return false;
  if (!batch) {
    snapshot(g, snap->c);
    return true;
  }
  char *at = snap->c;
  for (size_t gi = 0; gi < g->batch->groups; gi++)
    for (int64_t p = 0; p < g->batch->group[gi].count; p++) {
      struct hop_call m = hop_batch_member(g, &g->batch->group[gi], p);
      snapshot(&m, at);
      at += snapshot_bytes(&m);
    }
  return true;
}

static bool within(double c, double r, double bound)
{
  if (isnan(r) || isnan(c))
    return isnan(r) && isnan(c);
  if (isinf(r) || isinf(c))
    return c == r;
  return fabs((double)c - (double)r) <= bound;
}

/* What one element is judged on: got against want within bound. */
struct judged {
  size_t bad, worst_i, worst_j;
  double worst;
};

static void judge(struct judged *j, int64_t row, int64_t col, struct hop_scalar got,
                  struct hop_scalar want, double bound)
{
  if (within(got.re, want.re, bound) && within(got.im, want.im, bound))
    return;
  double err = fmax(fabs(got.re - want.re), fabs(got.im - want.im));
  if (j->bad == 0 || err > j->worst || isnan(err))
    j->worst = err, j->worst_i = (size_t)row, j->worst_j = (size_t)col;
  j->bad++;
}

/* A copy of the m x n C as it is now (ld m), or the snapshot's. */
static void *copy_c(const struct hop_call *g, const void *from, int64_t ld)
{
  size_t es = hop_dtype_c_size(g->dtype);
  void *x = malloc((size_t)g->m * (size_t)g->n * es);
  for (int64_t j = 0; x != NULL && j < g->n; j++)
    memcpy((char *)x + hop_at(0, j, g->m) * es, (const char *)from + hop_at(0, j, ld) * es,
           (size_t)g->m * es);
  return x;
}

/* trsm: op(A) X (the fallback's trmm of the engine's X) against alpha B. */
static bool judge_residual(const struct hop_call *g, const void *b0, const void *terms,
                           struct judged *jd)
{
  void *ox = copy_c(g, g->c, g->ldc);
  if (ox == NULL)
    return false;
  struct hop_call t = *g;
  t.op = HOP_OP_TRMM, t.alpha = (struct hop_scalar){1.0, 0.0}, t.c = ox, t.ldc = g->m;
  hop_fallback_run(&t);
  const struct hop_dtype_info *info = hop_dtype_info(g->dtype);
  enum hop_dtype bt = bound_dtype(g->dtype);
  double alpha = magnitude(g->alpha), underflow = (g->k + 2) * (alpha + 1.0) * info->tiny;
  for (int64_t j = 0; j < g->n; j++)
    for (int64_t i = 0; i < g->m; i++) {
      size_t at = hop_at(i, j, g->m);
      struct hop_scalar b = hop_dtype_load(g->dtype, true, b0, at);
      struct hop_scalar want = {g->alpha.re * b.re - g->alpha.im * b.im,
                                g->alpha.re * b.im + g->alpha.im * b.re};
      double bound = 2.0 * g->k * info->eps *
                       (hop_dtype_load(bt, true, terms, at).re + alpha * magnitude(b)) +
                     underflow;
      judge(jd, i, j, hop_dtype_load(g->dtype, true, ox, at), want, bound);
    }
  free(ox);
  return true;
}

/* Every other operation: C against the fallback's result ref. */
static void judge_result(const struct hop_call *g, const void *c0, const void *ref,
                         const void *terms, int64_t kk, struct judged *jd)
{
  const struct hop_dtype_info *info = hop_dtype_info(g->dtype);
  enum hop_dtype bt = bound_dtype(g->dtype);
  double alpha = magnitude(g->alpha), beta = magnitude(g->beta);
  bool tri = g->op == HOP_OP_TRMM; /* its C0 is B, inside the terms */
  bool real_diag = g->op == HOP_OP_HERK || g->op == HOP_OP_HER2K;
  /* Gradual underflow: each operation may be off by half the smallest
   * subnormal besides eps: 2 (k + 2) (|alpha| + 1) tiny / 2. */
  double underflow = (kk + 2) * (alpha + 1.0) * info->tiny;
  for (int64_t j = 0; j < g->n; j++) {
    int64_t lo, hi; /* the reference wrote these rows only (gemmt: its triangle) */
    hop_call_rows(g, j, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
      size_t at = hop_at(i, j, g->m);
      struct hop_scalar c = hop_dtype_load(g->dtype, true, g->c, hop_at(i, j, g->ldc));
      struct hop_scalar rv = hop_dtype_load(g->dtype, true, ref, at);
      struct hop_scalar old = c0 != NULL && !tri ? hop_dtype_load(g->dtype, true, c0, at)
                                                  : (struct hop_scalar){0.0, 0.0};
      if (real_diag && i == j) /* herk's and her2k's: never read, whatever it holds */
        old.im = 0.0;
      double mc0 = magnitude(old);
      double ab = hop_dtype_load(bt, true, terms, at).re;
      double bound = 2.0 * kk * info->eps * (alpha * ab + beta * mc0) +
                     2.0 * info->out_eps * magnitude(rv) + underflow;
      judge(jd, i, j, c, rv, bound);
    }
  }
}

/* Check one call (a batch's problem: quiet, no line when it matches)
 * against OpenBLAS; c0 its snapshot, NULL where it does not read C. */
static const char *check_one(const struct hop_call *g, const void *c0, bool quiet)
{
  const struct hop_config *cfg = hop_config();
  size_t es = hop_dtype_c_size(g->dtype), mn = (size_t)g->m * (size_t)g->n;
  bool solve = g->op == HOP_OP_TRSM;
  /* The terms of trsm's residual hold the solution; of trmm's products, B as it was. */
  int64_t kk;
  void *terms = hop_verify_terms(g, bound_dtype(g->dtype), solve ? g->c : c0,
                                 solve ? g->ldc : g->m, &kk);
  void *ref = terms == NULL ? NULL : c0 != NULL ? copy_c(g, c0, g->m) : malloc(mn * es);
  struct judged jd = {0};
  bool judged = false;
  if (ref != NULL) {
    struct hop_call r = *g;
    r.c = ref;
    r.ldc = g->m;
    hop_fallback_run(&r);
    if (solve)
      judged = judge_residual(g, c0, terms, &jd);
    else
      judge_result(g, c0, ref, terms, kk, &jd), judged = true;
  }
  if (!judged) {
    hop_log(1, "verify: no memory to check %s %" PRId64 "x%" PRId64 "x%" PRId64 "; skipped", g->symbol, g->m, g->n, g->k);
    free(ref), free(terms);
    return "skipped";
  }
  const char *verdict = "ok";
  if (jd.bad == 0) {
    if (!quiet)
      hop_log(2, "verify: %s %" PRId64 "x%" PRId64 "x%" PRId64 " matches OpenBLAS", g->symbol, g->m, g->n, g->k);
  } else {
    bool replace = cfg->verify == HOP_VERIFY_FALLBACK;
    hop_log(1, "verify: %s %" PRId64 "x%" PRId64 "x%" PRId64 ": %zu of %zu elements out of tolerance, max error %.3g at (%zu,%zu)%s",
            g->symbol, g->m, g->n, g->k, jd.bad, mn, jd.worst, jd.worst_i, jd.worst_j,
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
  free(ref), free(terms);
  return verdict;
}

/* The worse of two verdicts: bad, replaced, skipped, ok. */
static const char *worse(const char *x, const char *y)
{
  static const char *const order[] = {"ok", "skipped", "replaced", "bad"};
  int rx = 0, ry = 0;
  for (int i = 0; i < 4; i++)
    rx = strcmp(x, order[i]) == 0 ? i : rx, ry = strcmp(y, order[i]) == 0 ? i : ry;
  return order[rx > ry ? rx : ry];
}

const char *hop_verify_end(const struct hop_call *g, struct hop_verify_snapshot *snap)
{
  if (g == NULL || !snap->active) {
    free(snap->c);
    return NULL;
  }
  const char *verdict = "ok";
  if (g->op != HOP_OP_GEMM_BATCH) {
    verdict = check_one(g, snap->c, false);
  } else {
    const char *at = snap->c;
    int64_t problems = 0;
    for (size_t gi = 0; gi < g->batch->groups; gi++)
      for (int64_t p = 0; p < g->batch->group[gi].count; p++, problems++) {
        struct hop_call m = hop_batch_member(g, &g->batch->group[gi], p);
        verdict = worse(verdict, check_one(&m, hop_call_reads_c(&m) ? at : NULL, true));
        at += snapshot_bytes(&m);
      }
    hop_log(2, "verify: %s, %" PRId64 " problems: %s", g->symbol, problems, verdict);
  }
  free(snap->c);
  return verdict;
}
