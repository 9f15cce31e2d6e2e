/* The one routing function.  Only engines that declare the call's
 * operation and dtype are asked; candidates are ordered by predicted time;
 * the first that accepts runs; a decline or a failure hands the call to
 * the next, and the CPU engine, always last, cannot decline. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hop.h"

/* Append to res->why; formatting numbers costs more than a tiny GEMM, so
 * only when someone will read it (the trace). */
__attribute__((format(printf, 2, 3))) static void explain(struct hop_route_result *res,
                                                          const char *fmt, ...)
{
  if (!res->explain)
    return;
  size_t used = strlen(res->why);
  if (used + 3 >= sizeof res->why)
    return;
  if (used > 0) {
    memcpy(res->why + used, "; ", 3);
    used += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(res->why + used, sizeof res->why - used, fmt, ap);
  va_end(ap);
}

struct candidate {
  size_t index;
  double seconds;
  struct hop_engine_view view;
};

static size_t fallback_index(void) { return hop_backend_count - 1; }

static void run_fallback(const struct hop_call *g, struct hop_route_result *res)
{
  hop_fallback_run(g);
  res->engine = hop_backends[fallback_index()];
}

/* Try one engine; on HOP_OK fill res and return true.  A device engine's
 * result is checked against OpenBLAS in verify mode. */
static bool try_engine(const struct hop_call *g, const struct hop_engine_view *v,
                       struct hop_route_result *res)
{
  if (!v->be->is_device) {
    run_fallback(g, res);
    return true;
  }
  /* A flushed subnormal input can change a result by any amount. */
  if (v->be->flushes != NULL && v->be->flushes(v->state) && hop_subnormal_inputs(g)) {
    hop_log(2, "%s declines %s %" PRId64 "x%" PRId64 "x%" PRId64 ": subnormal inputs, which it flushes to zero", v->be->name,
            g->symbol, g->m, g->n, g->k);
    explain(res, "%s declined: subnormal inputs (it flushes them)", v->be->name);
    return false;
  }
  struct hop_verify_snapshot snap;
  if (!hop_verify_begin(g, &snap)) {
    explain(res, "verify: no memory for a snapshot of C; ran on the CPU");
    hop_log(1, "verify: no memory for a snapshot of C (%" PRId64 "x%" PRId64 "); call ran on the CPU", g->m, g->n);
    run_fallback(g, res);
    return true;
  }
  struct hop_sighold hold; /* drivers write files (kernel caches) inside calls */
  hop_sighold_begin(&hold);
  enum hop_status st = v->be->run(v->state, g);
  hop_sighold_end(&hold);
  if (st != HOP_OK) {
    hop_verify_end(NULL, &snap);
    if (st != HOP_DECLINED)
      hop_log(1, "engine %s failed on %s %" PRId64 "x%" PRId64 "x%" PRId64 ": %s; the call goes on to the next engine",
              v->be->name, g->symbol, g->m, g->n, g->k, hop_status_message(st));
    explain(res, "%s %s", v->be->name, st == HOP_DECLINED ? "declined" : "failed");
    return false;
  }
  res->engine = v->be;
  if (res->explain && v->be->detail != NULL) {
    const char *note = v->be->detail(v->state);
    if (note != NULL && *note != '\0')
      explain(res, "%s", note);
  }
  res->verify = hop_verify_end(g, &snap);
  return true;
}

static int by_seconds(const void *pa, const void *pb)
{
  const struct candidate *a = pa, *b = pb;
  return (a->seconds > b->seconds) - (a->seconds < b->seconds);
}

static void route_forced(const struct hop_call *g, const char *name, struct hop_route_result *res)
{
  size_t i = hop_engine_index(name);
  if (i == hop_backend_count) {
    explain(res, "HOPBLAS_BACKEND=%s is not built in", name);
    run_fallback(g, res);
    return;
  }
  if (!hop_backend_takes(hop_backends[i], g)) {
    explain(res, "HOPBLAS_BACKEND=%s does not take %s%s", name, hop_dtype_name(g->dtype),
            hop_op_name(g->op));
    run_fallback(g, res);
    return;
  }
  if (!hop_backend_holds(hop_backends[i], g)) {
    explain(res, "HOPBLAS_BACKEND=%s holds dimensions up to %" PRId64 " only", name,
            hop_backends[i]->max_dim);
    run_fallback(g, res);
    return;
  }
  struct hop_engine_view v;
  hop_engine_get(i, &v);
  if (v.status != HOP_OK) {
    explain(res, "HOPBLAS_BACKEND=%s is off: %.100s", name, v.why);
    run_fallback(g, res);
    return;
  }
  explain(res, "HOPBLAS_BACKEND=%s", name);
  if (!try_engine(g, &v, res))
    run_fallback(g, res);
}

/* Auto routing, or "device first" when flops reach HOPBLAS_MIN_FLOPS. */
static void route_by_prediction(const struct hop_call *g, bool devices_only,
                                struct hop_route_result *res)
{
  struct candidate cands[16];
  size_t n = 0;
  for (size_t i = 0; i < hop_backend_count && n < 16; i++) {
    if (!hop_backend_takes(hop_backends[i], g) || !hop_backend_holds(hop_backends[i], g))
      continue; /* not started for a call it cannot take */
    struct hop_engine_view v;
    hop_engine_get(i, &v);
    if (v.status != HOP_OK || (devices_only && !v.be->is_device))
      continue;
    if (v.be->only_when_named)
      continue;
    double t = v.be->predict ? v.be->predict(v.state, g) : -1.0;
    if (t < 0.0)
      continue;
    cands[n++] = (struct candidate){.index = i, .seconds = t, .view = v};
  }
  qsort(cands, n, sizeof cands[0], by_seconds);
  if (n == 0) {
    explain(res, "%s", devices_only ? "no device engine takes it" : "only engine");
    run_fallback(g, res);
    return;
  }
  if (devices_only)
    explain(res, "flops >= HOPBLAS_MIN_FLOPS");
  else if (n > 1)
    explain(res, "predicted %.3g ms < %s %.3g ms", 1e3 * cands[0].seconds,
             cands[1].view.be->name, 1e3 * cands[1].seconds);
  else
    explain(res, "only engine up");
  for (size_t c = 0; c < n; c++)
    if (try_engine(g, &cands[c].view, res))
      return;
  run_fallback(g, res);
}

void hop_route_run(const struct hop_call *g, struct hop_route_result *res)
{
  const struct hop_config *cfg = hop_config();
  res->why[0] = '\0';
  if (strcmp(cfg->backend, "auto") != 0) {
    route_forced(g, cfg->backend, res);
    return;
  }
  double flops = hop_call_flops(g);
  if (cfg->min_flops >= 0.0) {
    if (flops < cfg->min_flops) {
      explain(res, "below HOPBLAS_MIN_FLOPS");
      run_fallback(g, res);
    } else {
      route_by_prediction(g, true, res);
    }
    return;
  }
  if (flops < cfg->device_floor_flops) {
    explain(res, "small: %.3g flops < device floor", flops);
    run_fallback(g, res);
    return;
  }
  route_by_prediction(g, false, res);
}
