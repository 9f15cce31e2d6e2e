/* The one entry of core/: trivial cases, re-entry, routing, the trace. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hop.h"

int64_t hop_call_max_dim(const struct hop_call *g)
{
  int64_t d[] = {g->m, g->n, g->k, g->lda, g->ldb, g->ldc}, most = 0;
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
    most = d[i] > most ? d[i] : most;
  return most;
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

enum { LOCAL_GROUPS = 16 };

/* A batch: as for one GEMM, core/ handles the trivial problems itself,
 * group by group: alpha == 0 or k == 0 is C = beta C (A and B never read,
 * C never read when beta == 0), netlib's quick return leaves C alone; the
 * other groups go to one engine as one call, which runs every problem.
 * res NULL: a re-entrant call, whose rest goes to the fallback unrouted. */
static void batch_run(const struct hop_call *g, struct hop_route_result *res)
{
  const struct hop_batch *b = g->batch;
  struct hop_batch_group local[LOCAL_GROUPS];
  struct hop_batch_group *rest = b->groups <= LOCAL_GROUPS ? local : malloc(b->groups * sizeof *rest);
  size_t kept = 0;
  int64_t scaled = 0, left = 0;
  for (size_t i = 0; i < b->groups; i++) {
    const struct hop_batch_group *gr = &b->group[i];
    bool trivial = hop_scalar_is_zero(gr->alpha) || gr->k == 0;
    if (gr->count <= 0 || gr->m == 0 || gr->n == 0 ||
        (trivial && gr->beta.re == 1.0 && gr->beta.im == 0.0)) {
      left += gr->count > 0 ? gr->count : 0;
      continue;
    }
    if (trivial || rest == NULL) { /* without memory for the list, each problem on its own */
      for (int64_t p = 0; p < gr->count; p++) {
        struct hop_call m = hop_batch_member(g, gr, p);
        if (trivial)
          hop_call_scale_c(&m);
        else
          hop_fallback_run(&m);
      }
      scaled += trivial ? gr->count : 0;
      continue;
    }
    rest[kept++] = *gr;
  }
  if (kept > 0) {
    struct hop_batch routed = {kept, rest};
    struct hop_call call = hop_batch_call(g->dtype, g->symbol, g->row_major, &routed);
    if (res != NULL)
      hop_route_run(&call, res);
    else
      hop_fallback_run(&call);
  }
  if (res != NULL && res->explain) {
    size_t used = strlen(res->why);
    snprintf(res->why + used, sizeof res->why - used,
             "%s%" PRId64 " problems in %zu groups; %" PRId64 " C = beta*C in core, %" PRId64
             " left alone", used ? "; " : "", hop_batch_count(b), b->groups, scaled, left);
  }
  if (rest != local)
    free(rest);
}

void hop_call_run(const struct hop_call *g)
{
  bool batch = g->op == HOP_OP_GEMM_BATCH; /* trivial group by group (batch_run) */
  bool trivial = hop_call_trivial(g);
  /* A real BLAS calling back into our exported names: straight to the CPU. */
  if (hop_reentry_depth() > 0 && !trivial) {
    if (batch)
      batch_run(g, NULL);
    else
      hop_fallback_run(g);
    return;
  }
  const struct hop_config *cfg = hop_config();
  bool tracing = cfg->trace_path[0] != '\0', telling = cfg->verbose >= 2;
  double t0 = tracing ? hop_now() : 0.0;
  hop_reentry_enter();
  struct hop_route_result res; /* not zeroed whole: the why buffer is only filled when read */
  res.explain = tracing || telling;
  res.engine = NULL;
  res.why[0] = '\0';
  res.verify = NULL;
  if (trivial) {
    /* Handled once, here: A and B are not read, nor C when beta == 0. */
    hop_call_scale_c(g);
    if (res.explain)
      snprintf(res.why, sizeof res.why, "%s",
               g->op == HOP_OP_TRMM || g->op == HOP_OP_TRSM ? "alpha == 0: B = 0"
                                                            : "alpha == 0 or k == 0: C = beta*C");
  } else if (batch) {
    batch_run(g, &res);
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
    hop_trace_row(g, engine, res.why, hop_now() - t0,
                  res.verify);
}
