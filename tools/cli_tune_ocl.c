/* `hopblas tune`, the OpenCL half: the search at each size within its share
 * of the budget (a share left unused passes to the next size), the closing
 * table, and the calibration of the engine's cost model with the crossover
 * it gives against the CPU's curve. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_tune.h"
#include "hop.h"
#include "tune.h"

extern const struct hop_backend hop_backend_opencl;

struct row {
  int n;
  bool ok;
  struct hop_tune_result r;
};

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct tick {
  struct cli_bar *bar;
  int size_index, sizes, n;
};

static void tick(int tried, double spent, double budget, void *arg)
{
  struct tick *t = arg;
  char text[80];
  double in_size = budget > 0 ? fmin(1.0, spent / budget) : 1.0;
  snprintf(text, sizeof text, "n=%d: %d candidates, %.0f of %.0f s", t->n, tried, spent, budget);
  hop_cli_bar_draw(t->bar, (t->size_index + in_size) / t->sizes, text);
}

static void print_table(const struct hop_ocl_state *st, const struct row *rows, int count)
{
  const struct hop_tune_space *sp = hop_tune_space_of(st->family);
  char text[300];
  printf("\n  %-6s %-62s %8s %8s %6s  %s\n", "n", "parameters (family)", "GFLOPS", "default",
         "gain", "candidates");
  for (int i = 0; i < count; i++) {
    const struct hop_tune_result *r = &rows[i].r;
    if (!rows[i].ok) {
      printf("  %-6d %s\n", rows[i].n, r->why);
      continue;
    }
    hop_tune_point_format(sp, &r->best, text, sizeof text);
    bool same = hop_tune_point_equal(&r->best, &r->dflt);
    printf("  %-6d %-62s %8.2f %8.2f %5.2fx  %d (%d refused), %s\n", rows[i].n,
           same ? "the default" : text, r->best_gflops, r->dflt_gflops,
           r->dflt_gflops > 0 ? r->best_gflops / r->dflt_gflops : 0.0, r->tried, r->rejected,
           r->budget_hit ? "budget reached" : "search complete");
  }
  printf("  (kernel rates from profiling events, operands resident on the device; "
         "`hopblas info` shows what calls use)\n\n");
}

int hop_cli_tune_sizes(void *state, const struct cli_tune_opts *o, double budget,
                       struct cli_bar *b)
{
  struct hop_ocl_state *st = state;
  if (o->family != NULL && strcmp(o->family, st->family->name) != 0) {
    printf("  opencl: the %s family cannot run here (%s); nothing tuned\n", o->family,
           st->variant_why);
    return 1;
  }
  if (hop_tune_space_of(st->family) == NULL) { /* nvidia: its tiles are fixed, nothing is wrong */
    printf("  opencl: the %s family has no parameter space (fixed tiles); nothing tuned "
           "(--family generic tunes the generic family)\n", st->family->name);
    return 0;
  }
  const struct hop_ocl_device *d = hop_ocl_device(st);
  printf("opencl: %s (%s), family %s\n", d->name, d->platform_name, st->family->name);
  int count = 0;
  while (o->sizes[count] > 0)
    count++;
  struct row rows[MAX_SIZES];
  double end = now() + budget;
  int rc = 0;
  for (int i = 0; i < count; i++) {
    struct tick t = {b, i, count, o->sizes[i]};
    b->what = "tuning";
    struct hop_tune_opts to = {.n = o->sizes[i], .budget_s = fmax(0.0, (end - now()) / (count - i)),
                               .progress = tick, .arg = &t};
    const char *fault = hop_config_get("HOPBLAS_TUNE_FAULT");
    if (fault != NULL && strncmp(fault, "wrong:", 6) == 0)
      to.wrong_at = strtol(fault + 6, NULL, 10);
    pthread_mutex_lock(&st->lock);
    rows[i].n = o->sizes[i];
    rows[i].ok = hop_ocl_tune_run(st, &to, &rows[i].r);
    if (rows[i].ok)
      hop_ocl_tune_store(st, o->sizes[i], &rows[i].r);
    pthread_mutex_unlock(&st->lock);
    rc |= !rows[i].ok;
    if (!b->tty)
      printf("  n=%d: %d candidates in %.1f s%s\n", o->sizes[i], rows[i].r.tried,
             rows[i].r.spent_s, rows[i].r.budget_hit ? " (budget reached)" : "");
  }
  hop_cli_bar_end(b);
  print_table(st, rows, count);
  return rc;
}

bool hop_cli_calibrate_ocl(void *state, const struct cli_tune_opts *o, double budget,
                           struct cli_bar *b, const struct hop_curve *cpu)
{
  struct hop_ocl_state *st = state;
  int sizes[HOP_CURVE_POINTS + 1];
  struct hop_ocl_calib c;
  hop_cli_ladder(o, sizes);
  b->what = "OpenCL calls";
  bool ok = hop_ocl_calib_measure(st, sizes, budget, &c, hop_cli_steps_progress, b);
  hop_cli_bar_end(b);
  if (!ok) {
    printf("  opencl: not calibrated (a call failed, or no time left)\n");
    return false;
  }
  char text[HOP_TUNE_VALUE_MAX];
  hop_curve_format(&c.rate, text, sizeof text);
  if (st->memory == HOP_OCL_STAGED)
    printf("  opencl: setup %.0f us, link %.2f GB/s, GFLOPS by size %s\n", c.setup_s * 1e6,
           c.link_bytes_s * 1e-9, text);
  else
    printf("  opencl: setup %.0f us, zero-copy (no transfers), GFLOPS by size %s\n",
           c.setup_s * 1e6, text);
  if (cpu == NULL || cpu->n == 0)
    return true;
  /* The crossover the router will now apply to square calls. */
  int from = 0;
  for (int i = 0; i < c.rate.n; i++) {
    int n = (int)c.rate.size[i];
    struct hop_call g = {.dtype = HOP_DTYPE_S, .m = n, .n = n, .k = n, .alpha = {1.0, 0.0}};
    double t_cpu = hop_call_flops(&g) / (hop_curve_gflops(cpu, n) * 1e9);
    double t_ocl = hop_ocl_calib_seconds(st, &g);
    if (t_ocl < t_cpu && from == 0)
      from = n;
    else if (t_ocl >= t_cpu)
      from = 0;
  }
  if (from > 0)
    printf("  crossover: OpenCL is predicted faster from n = %d on (square sgemm)\n", from);
  else
    printf("  crossover: the CPU is predicted faster at every calibrated size up to n = %.0f\n",
           c.rate.size[c.rate.n - 1]);
  return true;
}
