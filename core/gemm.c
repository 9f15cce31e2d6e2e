/* The one entry of core/: trivial cases, re-entry, routing, the trace. */
#include <math.h>
#include <time.h>

#include "hop.h"

size_t hop_dtype_ab_size(enum hop_dtype dt) { return dt == HOP_DTYPE_S ? 4 : 2; }
size_t hop_dtype_c_size(enum hop_dtype dt) { return dt == HOP_DTYPE_H ? 2 : 4; }

const char *hop_dtype_name(enum hop_dtype dt)
{
  return dt == HOP_DTYPE_S ? "s" : dt == HOP_DTYPE_H ? "h" : "sh";
}

double hop_call_flops(const struct hop_call *g)
{
  return 2.0 * (double)g->m * (double)g->n * (double)g->k;
}

/* C = beta * C without reading A or B; beta == 0 writes zeros without reading C. */
static void scale_c(const struct hop_call *g)
{
  for (int j = 0; j < g->n; j++)
    for (int i = 0; i < g->m; i++) {
      size_t at = hop_at(i, j, g->ldc);
      if (g->dtype == HOP_DTYPE_H) {
        uint16_t *c = g->c;
        c[at] = g->beta == 0.0f ? 0 : hop_float_to_half(g->beta * hop_half_to_float(c[at]));
      } else {
        float *c = g->c;
        c[at] = g->beta == 0.0f ? 0.0f : g->beta * c[at];
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
  bool trivial = g->alpha == 0.0f || g->k == 0;
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
    hop_log(2, "route: %s %s %dx%dx%d -> %s: %s", g->symbol, hop_dtype_name(g->dtype), g->m, g->n,
            g->k, engine, res.why);
  if (tracing)
    hop_trace_row(g, engine, res.why, now_seconds() - t0,
                  res.verify);
}
