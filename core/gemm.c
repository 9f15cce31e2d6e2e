/* The one entry of core/: trivial cases, re-entry, routing, the trace. */
#include <inttypes.h>
#include <math.h>
#include <time.h>

#include "hop.h"

int64_t hop_call_max_dim(const struct hop_call *g)
{
  int64_t d[] = {g->m, g->n, g->k, g->lda, g->ldb, g->ldc}, most = 0;
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
    most = d[i] > most ? d[i] : most;
  return most;
}

double hop_call_flops(const struct hop_call *g)
{
  double fma = hop_dtype_info(g->dtype)->flops_per_fma;
  switch (g->op) {
  case HOP_OP_GEMM: return fma * (double)g->m * (double)g->n * (double)g->k;
  case HOP_OP_GEMMT: return fma * (double)g->m * ((double)g->n + 1.0) / 2.0 * (double)g->k;
  case HOP_OP_COUNT: break;
  }
  return 0.0;
}

void hop_call_rows(const struct hop_call *g, int64_t j, int64_t *lo, int64_t *hi)
{
  *lo = 0, *hi = g->m;
  switch (g->op) {
  case HOP_OP_GEMM: return;
  case HOP_OP_GEMMT:
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

/* Runs of columns that own the same rows of the block go as one GEMM: the
 * whole block for GEMM, a column at a time along a triangle's edge. */
void hop_fallback_block(const struct hop_call *g, int64_t i0, int64_t rows, int64_t j0,
                        int64_t cols)
{
  int64_t run = j0, run_lo = 0, run_hi = 0;
  for (int64_t j = j0; j <= j0 + cols; j++) {
    int64_t lo = 0, hi = 0;
    if (j < j0 + cols) {
      hop_call_rows(g, j, &lo, &hi);
      lo = lo > i0 ? lo : i0;
      hi = hi < i0 + rows ? hi : i0 + rows;
      hi = hi > lo ? hi : lo;
    }
    if (j > j0 && (lo != run_lo || hi != run_hi || j == j0 + cols)) {
      if (run_hi > run_lo) {
        struct hop_call s = hop_call_block(g, run_lo, run_hi - run_lo, run, j - run);
        hop_fallback_run(&s);
      }
      run = j;
    }
    run_lo = lo, run_hi = hi;
  }
}

/* C = beta * C (the rows the call owns) without reading A or B; beta == 0
 * writes zeros without reading C. */
static void scale_c(const struct hop_call *g)
{
  bool zero = hop_scalar_is_zero(g->beta);
  for (int64_t j = 0; j < g->n; j++) {
    int64_t lo, hi;
    hop_call_rows(g, j, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
      size_t at = hop_at(i, j, g->ldc);
      struct hop_scalar c = {0.0, 0.0};
      if (!zero) {
        struct hop_scalar old = hop_dtype_load(g->dtype, true, g->c, at);
        c.re = g->beta.re * old.re - g->beta.im * old.im;
        c.im = g->beta.re * old.im + g->beta.im * old.re;
      }
      hop_dtype_store(g->dtype, g->c, at, c);
    }
  }
}

static double now_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void hop_call_run(const struct hop_call *g)
{
  bool trivial = hop_scalar_is_zero(g->alpha) || g->k == 0;
  /* A real BLAS calling back into our exported names: straight to the CPU. */
  if (hop_reentry_depth() > 0 && !trivial) {
    hop_fallback_run(g);
    return;
  }
  const struct hop_config *cfg = hop_config();
  bool tracing = cfg->trace_path[0] != '\0', telling = cfg->verbose >= 2;
  double t0 = tracing ? now_seconds() : 0.0;
  hop_reentry_enter();
  struct hop_route_result res; /* not zeroed whole: the why buffer is only filled when read */
  res.explain = tracing || telling;
  res.engine = NULL;
  res.why[0] = '\0';
  res.verify = NULL;
  if (trivial) {
    /* Handled once, here: A and B are not read, nor C when beta == 0. */
    scale_c(g);
    if (res.explain)
      snprintf(res.why, sizeof res.why, "alpha == 0 or k == 0: C = beta*C");
  } else {
    hop_route_run(g, &res);
  }
  hop_reentry_leave();
  hop_fast_path_prepare();
  const char *engine = res.engine ? res.engine->name : "core";
  if (telling)
    hop_log(2, "route: %s %s %" PRId64 "x%" PRId64 "x%" PRId64 " -> %s: %s", g->symbol, hop_dtype_name(g->dtype), g->m, g->n,
            g->k, engine, res.why);
  if (tracing)
    hop_trace_row(g, engine, res.why, now_seconds() - t0,
                  res.verify);
}
