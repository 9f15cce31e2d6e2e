/* `hopblas tune`, the OpenCL engine's part (core/engine_tools.h): the
 * search at each size within its share of the budget (a share left unused
 * passes to the next size) with the closing table, which names the
 * family's parameters, and the calibration of the cost model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_tools.h"
#include "tune.h"

enum { MAX_SIZES = 16 };

struct row {
  int n;
  bool ok;
  struct hop_tune_result r;
};

struct tick {
  const struct hop_tools_progress *bar;
  int size_index, sizes, n;
};

static void tick(int tried, double spent, double budget, void *arg)
{
  struct tick *t = arg;
  char text[80];
  double in_size = budget > 0 ? fmin(1.0, spent / budget) : 1.0;
  snprintf(text, sizeof text, "n=%d: %d candidates, %.0f of %.0f s", t->n, tried, spent, budget);
  if (t->bar->draw != NULL)
    t->bar->draw(t->bar->arg, (t->size_index + in_size) / t->sizes, text);
}

static void print_table(FILE *out, const struct hop_ocl_state *st, const struct row *rows,
                        int count)
{
  const struct hop_tune_space *sp = hop_tune_space_of(st->family);
  char text[300];
  fprintf(out, "\n  %-6s %-62s %8s %8s %6s  %s\n", "n", "parameters (family)", "GFLOPS", "default",
          "gain", "candidates");
  for (int i = 0; i < count; i++) {
    const struct hop_tune_result *r = &rows[i].r;
    if (!rows[i].ok) {
      fprintf(out, "  %-6d %s\n", rows[i].n, r->why);
      continue;
    }
    hop_tune_point_format(sp, &r->best, text, sizeof text);
    bool same = hop_tune_point_equal(&r->best, &r->dflt);
    fprintf(out, "  %-6d %-62s %8.2f %8.2f %5.2fx  %d (%d refused), %s\n", rows[i].n,
            same ? "the default" : text, r->best_gflops, r->dflt_gflops,
            r->dflt_gflops > 0 ? r->best_gflops / r->dflt_gflops : 0.0, r->tried, r->rejected,
            r->budget_hit ? "budget reached" : "search complete");
  }
  fprintf(out, "  (kernel rates from profiling events, operands resident on the device; "
               "`hopblas info` shows what calls use)\n\n");
}

static bool ocl_tune(void *state, const struct hop_tune_request *rq)
{
  struct hop_ocl_state *st = state;
  FILE *out = rq->out;
  if (rq->family != NULL && strcmp(rq->family, st->family->name) != 0) {
    fprintf(out, "  opencl: the %s family cannot run here (%s); nothing tuned\n", rq->family,
            st->variant_why);
    return false;
  }
  if (hop_tune_space_of(st->family) == NULL) { /* nvidia: its tiles are fixed, nothing is wrong */
    fprintf(out, "  opencl: the %s family has no parameter space (fixed tiles); nothing tuned "
                 "(--family generic tunes the generic family)\n", st->family->name);
    return true;
  }
  const struct hop_ocl_device *d = hop_ocl_device(st);
  fprintf(out, "opencl: %s (%s), family %s\n", d->name, d->platform_name, st->family->name);
  int count = 0;
  while (count < MAX_SIZES && rq->sizes[count] > 0)
    count++;
  struct row rows[MAX_SIZES];
  double end = hop_now() + rq->budget_s;
  bool ok = true;
  for (int i = 0; i < count; i++) {
    struct tick t = {&rq->progress, i, count, rq->sizes[i]};
    struct hop_tune_opts to = {.n = rq->sizes[i],
                               .budget_s = fmax(0.0, (end - hop_now()) / (count - i)),
                               .progress = tick, .arg = &t};
    const char *fault = hop_config_get("HOPBLAS_TUNE_FAULT");
    if (fault != NULL && strncmp(fault, "wrong:", 6) == 0)
      to.wrong_at = strtol(fault + 6, NULL, 10);
    pthread_mutex_lock(&st->lock);
    rows[i].n = rq->sizes[i];
    rows[i].ok = hop_ocl_tune_run(st, &to, &rows[i].r);
    if (rows[i].ok)
      hop_ocl_tune_store(st, rq->sizes[i], &rows[i].r);
    pthread_mutex_unlock(&st->lock);
    ok = ok && rows[i].ok;
    if (!rq->progress.shown)
      fprintf(out, "  n=%d: %d candidates in %.1f s%s\n", rq->sizes[i], rows[i].r.tried,
              rows[i].r.spent_s, rows[i].r.budget_hit ? " (budget reached)" : "");
  }
  if (rq->progress.end != NULL)
    rq->progress.end(rq->progress.arg);
  print_table(out, st, rows, count);
  return ok;
}

static void steps(int done, int count, void *arg)
{
  hop_tools_steps(arg, done, count);
}

static bool ocl_calibrate(void *state, const int *sizes, double budget_s,
                          struct hop_calibration *out, const struct hop_tools_progress *progress)
{
  struct hop_ocl_state *st = state;
  struct hop_ocl_calib c;
  *out = (struct hop_calibration){.transfers = st->memory == HOP_OCL_STAGED};
  if (!hop_ocl_calib_measure(st, sizes, budget_s, &c, steps, (void *)progress)) {
    snprintf(out->why, sizeof out->why, "a call failed, or no time left");
    return false;
  }
  out->setup_s = c.setup_s;
  out->link_bytes_s = c.link_bytes_s;
  out->rate = c.rate;
  out->rate_d = c.have_d ? c.rate_d : (struct hop_curve){0};
  return true;
}

static double ocl_calibrated_seconds(void *state, const struct hop_call *g)
{
  return hop_ocl_calib_seconds(state, g);
}

static const char *ocl_what_runs(void *state)
{
  return ((const struct hop_ocl_state *)state)->family->name;
}

const struct hop_engine_tools hop_ocl_tools = {
  .title = "OpenCL",
  .variant_key = "HOPBLAS_OPENCL_VARIANT",
  .what_runs = ocl_what_runs,
  .tune = ocl_tune,
  .calibrate = ocl_calibrate,
  .calibrated_seconds = ocl_calibrated_seconds,
  .resident_ready = hop_ocl_resident_ready,
  .resident_open = hop_ocl_resident_open,
  .resident_call = hop_ocl_resident_call,
  .resident_read = hop_ocl_resident_read,
  .resident_note = hop_ocl_resident_note,
  .resident_close = hop_ocl_resident_close,
  .opencl_handles = hop_ocl_handles,
};
