/* `hopblas tune`: offline tuning and router calibration.
 *
 *   hopblas tune [--budget SECONDS] [--sizes N,N,...] [--family NAME]
 *                [--no-calibrate] [--calibrate-only]
 *
 * For every size, the search over each device engine's parameters within
 * its share of the budget (the engine prints its table: the chosen
 * parameters and their gain over the defaults); then the calibration of
 * the engines' cost models (the CPU's GFLOPS curve, a device's setup cost,
 * link and rates), all stored in the tuning cache, and the crossover the
 * router now uses.  The engines are found in the registry by the entries
 * they offer (core/engine_tools.h).  A progress bar goes to a terminal only. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine_tools.h"
#include "hop.h"
#include "hopblas_cli.h"
#include "tune_cache.h"

enum { MAX_SIZES = 16 };

struct cli_tune_opts {
  double budget;
  int sizes[MAX_SIZES + 1];
  const char *family;
  bool calibrate, tune;
};

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int usage(FILE *out, int rc)
{
  fprintf(out,
          "usage: hopblas tune [--budget SECONDS] [--sizes N,N,...] [--family generic|adreno|mali]\n"
          "                    [--no-calibrate] [--calibrate-only]\n"
          "  --budget   seconds for the whole run (default 300): 80%% tuning, 20%% calibration\n"
          "  --sizes    square sizes to tune (default 256,512,1024,2048); each stands for the\n"
          "             size bucket (power of two) nearest it\n"
          "  --family   the OpenCL kernel family to tune (default: the device's own)\n"
          "Results go to the tuning cache (`hopblas info` shows where); doc/TUNING.md.\n");
  return rc;
}

static bool parse_sizes(const char *s, int *out)
{
  int n = 0;
  while (*s != '\0') {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 16 || v > 16384 || n == MAX_SIZES || (*end != ',' && *end != '\0'))
      return false;
    out[n++] = (int)v;
    s = *end == ',' ? end + 1 : end;
  }
  out[n] = 0;
  return n > 0;
}

static bool parse(int argc, char **argv, struct cli_tune_opts *o)
{
  *o = (struct cli_tune_opts){.budget = 300, .sizes = {256, 512, 1024, 2048, 0}, .calibrate = true,
                     .tune = true};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end;
    if (strcmp(a, "--budget") == 0 && v != NULL) {
      o->budget = strtod(v, &end);
      if (*end != '\0' || !(o->budget >= 0 && o->budget <= 86400))
        return false;
      i++;
    } else if (strcmp(a, "--sizes") == 0 && v != NULL) {
      if (!parse_sizes(v, o->sizes))
        return false;
      i++;
    } else if (strcmp(a, "--family") == 0 && v != NULL) {
      o->family = v;
      i++;
    } else if (strcmp(a, "--no-calibrate") == 0) {
      o->calibrate = false;
    } else if (strcmp(a, "--calibrate-only") == 0) {
      o->tune = false;
    } else {
      return false;
    }
  }
  return o->calibrate || o->tune;
}

/* ---- progress: a bar on a terminal, nothing otherwise ---------------------- */

struct bar {
  const char *what;
};

static void bar_draw(void *arg, double frac, const char *detail)
{
  struct bar *b = arg;
  int fill = (int)(frac * 30 + 0.5);
  fill = fill < 0 ? 0 : fill > 30 ? 30 : fill;
  fprintf(stderr, "\r  %-14s [%.*s%.*s] %-36.36s", b->what, fill,
          "##############################", 30 - fill, "..............................", detail);
  fflush(stderr);
}

static void bar_end(void *arg)
{
  (void)arg;
  fprintf(stderr, "\r%*s\r", 90, "");
}

static struct hop_tools_progress progress(struct bar *b, const char *what)
{
  b->what = what;
  if (isatty(2) != 1)
    return (struct hop_tools_progress){.shown = false};
  return (struct hop_tools_progress){.draw = bar_draw, .end = bar_end, .shown = true, .arg = b};
}

static void progress_end(const struct hop_tools_progress *p)
{
  if (p->end != NULL)
    p->end(p->arg);
}

/* The calibration ladder: 32 ... the largest tuned size (2048 at least). */
static void ladder(const struct cli_tune_opts *o, int *out)
{
  static const int steps[] = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048,
                              3072, 4096, 6144, 8192, 12288, 16384};
  int top = 2048, n = 0;
  for (int i = 0; o->sizes[i] > 0; i++)
    top = o->sizes[i] > top ? o->sizes[i] : top;
  for (size_t i = 0; i < sizeof steps / sizeof steps[0] && n < HOP_CURVE_POINTS - 1; i++)
    if (steps[i] <= top)
      out[n++] = steps[i];
  out[n] = 0;
}

/* ---- the engines ------------------------------------------------------------ */

/* Device engines that can be tuned or calibrated, routable ones only (a
 * test engine or an emulator is not the machine's). */
static bool tunable(const struct hop_backend *be)
{
  return be->is_device && !be->only_when_named && be->tools != NULL &&
         (be->tools->tune != NULL || be->tools->calibrate != NULL);
}

static const char *fallback_title(void)
{
  const struct hop_backend *be = hop_backends[hop_backend_count - 1];
  return be->tools != NULL && be->tools->title != NULL ? be->tools->title : be->name;
}

/* Start the device engines; tune those that are up.  up[i]: engine i's state. */
static int tune_engines(const struct cli_tune_opts *o, double budget, void **up)
{
  int rc = 0, count = 0;
  for (size_t i = 0; i < hop_backend_count; i++)
    count += tunable(hop_backends[i]);
  if (count == 0)
    printf("  no device engine built; only the %s is calibrated\n", fallback_title());
  for (size_t i = 0; i < hop_backend_count; i++) {
    const struct hop_backend *be = hop_backends[i];
    if (!tunable(be))
      continue;
    struct hop_engine_view v;
    hop_engine_get(i, &v);
    if (v.status != HOP_OK) {
      printf("  %s: off (%s); only the %s is calibrated\n", be->name, v.why, fallback_title());
      rc = o->tune ? 1 : rc;
      continue;
    }
    up[i] = v.state;
    if (o->tune && be->tools->tune != NULL) {
      struct bar b;
      struct hop_tune_request rq = {.sizes = o->sizes, .budget_s = budget / count,
                                    .family = o->family, .out = stdout,
                                    .progress = progress(&b, "tuning")};
      rc |= !be->tools->tune(v.state, &rq);
    }
  }
  return rc;
}

static const char *what_runs(const struct hop_backend *be, void *state)
{
  return be->tools->what_runs != NULL ? be->tools->what_runs(state) : be->name;
}

/* The crossover the router will now apply to square calls. */
static void crossover(const struct hop_backend *be, void *state, const struct hop_calibration *c,
                      const struct hop_curve *host)
{
  if (host == NULL || host->n == 0 || be->tools->calibrated_seconds == NULL)
    return;
  int from = 0;
  for (int i = 0; i < c->rate.n; i++) {
    int n = (int)c->rate.size[i];
    struct hop_call g = {.dtype = HOP_DTYPE_S, .m = n, .n = n, .k = n, .alpha = {1.0, 0.0}};
    double t_host = hop_call_flops(&g) / (hop_curve_gflops(host, n) * 1e9);
    double t_dev = be->tools->calibrated_seconds(state, &g);
    if (t_dev < t_host && from == 0)
      from = n;
    else if (t_dev >= t_host)
      from = 0;
  }
  if (from > 0)
    printf("  crossover: %s is predicted faster from n = %d on (square sgemm)\n",
           be->tools->title, from);
  else
    printf("  crossover: the %s is predicted faster at every calibrated size up to n = %.0f\n",
           fallback_title(), c->rate.size[c->rate.n - 1]);
}

/* One engine's calibration and its line; host: the fallback's curve, for
 * a device engine's crossover. */
static bool calibrate(size_t index, void *state, const int *sizes, double budget,
                      struct hop_calibration *c, const struct hop_curve *host)
{
  const struct hop_backend *be = hop_backends[index];
  struct bar b;
  char what[32], text[HOP_TUNE_VALUE_MAX];
  snprintf(what, sizeof what, be->is_device ? "%s calls" : "%s curve", be->tools->title);
  struct hop_tools_progress p = progress(&b, what);
  bool ok = be->tools->calibrate(state, sizes, budget, c, &p);
  progress_end(&p);
  if (!ok) {
    printf("  %s: not calibrated (%s)\n", be->name, c->why);
    return false;
  }
  hop_curve_format(&c->rate, text, sizeof text);
  if (!be->is_device)
    printf("  %s (%s): GFLOPS by size %s\n", be->name, what_runs(be, state), text);
  else if (c->transfers)
    printf("  %s: setup %.0f us, link %.2f GB/s, GFLOPS by size %s\n", be->name,
           c->setup_s * 1e6, c->link_bytes_s * 1e-9, text);
  else
    printf("  %s: setup %.0f us, zero-copy (no transfers), GFLOPS by size %s\n", be->name,
           c->setup_s * 1e6, text);
  if (c->rate_d.n > 0) {
    hop_curve_format(&c->rate_d, text, sizeof text);
    printf("  %s double (d, z): GFLOPS by size %s\n", be->name, text);
  } else {
    printf("  %s double (d, z): not measured\n", be->name);
  }
  if (be->is_device)
    crossover(be, state, c, host);
  return true;
}

/* The fallback first (its curve is what the devices are weighed against,
 * half of what is left), then each device engine that is up. */
static int calibrate_engines(const struct cli_tune_opts *o, double t0, double cal_budget,
                             void **up)
{
  int sizes[HOP_CURVE_POINTS + 1], rc = 0, devices = 0;
  ladder(o, sizes);
  printf("calibration (the router's cost model):\n");
  double left = fmax(cal_budget, o->budget - (now() - t0));
  size_t last = hop_backend_count - 1;
  const struct hop_backend *fb = hop_backends[last];
  struct hop_calibration host = {0};
  if (fb->tools != NULL && fb->tools->calibrate != NULL) {
    struct hop_engine_view v;
    hop_engine_get(last, &v);
    if (!calibrate(last, v.state, sizes, 0.5 * left, &host, NULL))
      rc = 1;
  }
  for (size_t i = 0; i < last; i++)
    devices += up[i] != NULL && hop_backends[i]->tools->calibrate != NULL;
  for (size_t i = 0; i < last; i++) {
    if (up[i] == NULL || hop_backends[i]->tools->calibrate == NULL)
      continue;
    struct hop_calibration c;
    double budget = fmax(1.0, o->budget - (now() - t0)) / devices--;
    if (!calibrate(i, up[i], sizes, budget, &c, &host.rate))
      rc = 1;
  }
  return rc;
}

int hop_cli_tune(int argc, char **argv)
{
  struct cli_tune_opts o;
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
    return usage(stdout, 0);
  if (!parse(argc, argv, &o))
    return usage(stderr, 2);
  /* Read once, when an engine starts: set before any has. */
  for (size_t i = 0; o.family != NULL && i < hop_backend_count; i++)
    if (hop_backends[i]->tools != NULL && hop_backends[i]->tools->variant_key != NULL)
      setenv(hop_backends[i]->tools->variant_key, o.family, 1);
  double t0 = now(), cal_budget = o.calibrate ? (o.tune ? 0.2 : 1.0) * o.budget : 0.0;
  printf("hopblas tune: budget %.0f s, HOPBLAS_TUNE=%s\n", o.budget,
         hop_tune_mode_name(hop_tune_mode()));
  void *up[hop_backend_count];
  memset(up, 0, sizeof up);
  int rc = tune_engines(&o, o.budget - cal_budget, up);
  if (o.calibrate && calibrate_engines(&o, t0, cal_budget, up) != 0)
    rc = 1;
  char path[4200], state[200];
  hop_tune_describe(path, sizeof path, state, sizeof state);
  printf("cache: %s (%s); %.1f s spent\n", path, state, now() - t0);
  return rc;
}
