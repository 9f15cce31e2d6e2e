/* The untuned model's fixed cost of a call, corrected by the calls the
 * engine ran.  Until `hopblas tune` measures it (tune_calib.c), the model
 * takes a default per kind of device (engine.c: 50 us for a discrete GPU),
 * and small calls are decided by it: on the H200 a dgemm of 256 from host
 * memory was predicted at 0.095 ms, 50 us of it fixed, and took 0.205 ms
 * (packing, several transfers and launches, the waits), while OpenBLAS
 * took about 0.1 ms (doc/PERFORMANCE.md).
 *
 * Each plain GEMM call the engine runs on its own (not its first: the
 * program's build or load, the first buffers, are no call's cost) whose
 * predicted transfers and flops are no more than a few times the fixed
 * cost tells the fixed cost: what it measured less that predicted rest.  The estimate
 * moves towards it geometrically, half of the way on the first call, a
 * quarter later, at most 16x a step, as the CPU engine's rate does
 * (backends/cpu/learn.c).  It never drops below the default: a device
 * whose calls cost less than guessed keeps the guess, so that the CPU keeps
 * what it was faster at, as the untuned double rate does. */
#include <math.h>

#include "ocl.h"
#include "tune.h"

/* A call teaches the fixed cost when the rest of its prediction is at most this many times it. */
static const double LEARN_REST_MAX = 4.0;
/* One call moves the estimate by at most this factor either way. */
static const double LEARN_MAX_STEP = 16.0;

double hop_ocl_model_setup(const struct hop_ocl_state *st)
{
  double learnt = atomic_load(&st->model.setup_learnt);
  return learnt > st->model.setup_s ? learnt : st->model.setup_s;
}

bool hop_ocl_model_learns(const struct hop_ocl_state *st, const struct hop_call *g)
{
  const struct hop_ocl_calib *cal = hop_ocl_tune_calib(st);
  return g->op == HOP_OP_GEMM && (g->dtype == HOP_DTYPE_S || g->dtype == HOP_DTYPE_D) &&
         st->model.calls_run > 0 && st->prog.tried && st->prog.status == HOP_OK &&
         (cal == NULL || !cal->have);
}

double hop_ocl_model_setup_step(double setup, double fallback, double rest, double measured,
                                bool first)
{
  double seen = measured - rest;
  seen = seen < fallback ? fallback : seen;
  double step = seen / setup;
  step = step > LEARN_MAX_STEP           ? LEARN_MAX_STEP
         : step < 1.0 / LEARN_MAX_STEP ? 1.0 / LEARN_MAX_STEP
                                       : step;
  double now = setup * pow(step, first ? 0.5 : 0.25);
  return now < fallback ? fallback : now;
}

void hop_ocl_model_learn(struct hop_ocl_state *st, const struct hop_call *g, double measured_s)
{
  double setup = hop_ocl_model_setup(st), predicted = hop_ocl_engine_predict(st, g);
  double rest = predicted - setup;
  if (!(measured_s > 0.0) || predicted < 0.0 || rest > LEARN_REST_MAX * setup)
    return;
  /* Calls of one device run under its lock: no update is lost. */
  bool first = atomic_load(&st->model.setup_learnt) == 0.0;
  double now = hop_ocl_model_setup_step(setup, st->model.setup_s, rest, measured_s, first);
  atomic_store(&st->model.setup_learnt, now);
  if (first)
    hop_log(2,
            "opencl: device %zu: the untuned model's fixed cost of a call checked against a call "
            "it ran (%s %lldx%lldx%lld, %.6g ms against %.6g predicted, %.6g us of it fixed): "
            "now %.6g us (never under the default, %.6g)",
            st->dev, hop_dtype_name(g->dtype), (long long)g->m, (long long)g->n, (long long)g->k,
            measured_s * 1e3, predicted * 1e3, setup * 1e6, now * 1e6, st->model.setup_s * 1e6);
}
