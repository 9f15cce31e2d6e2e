/* `hopblas tune`: offline tuning and router calibration.
 *
 *   hopblas tune [--budget SECONDS] [--sizes N,N,...] [--family NAME]
 *                [--no-calibrate] [--calibrate-only]
 *
 * For every size, the search over the OpenCL family's parameters
 * (backends/opencl/tune.c) within its share of the budget; then the
 * calibration of both engines (the CPU's GFLOPS curve, the OpenCL setup
 * cost, link and rates), all stored in the tuning cache.  A progress bar
 * goes to a terminal only; the closing table gives the chosen parameters
 * and their gain over the defaults, and the crossover the router now uses. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hop.h"
#include "hopblas_cli.h"
#include "cli_tune.h"
#include "cpu.h"
#include "tune_cache.h"

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

void hop_cli_bar_draw(struct cli_bar *b, double frac, const char *detail)
{
  if (!b->tty)
    return;
  int fill = (int)(frac * 30 + 0.5);
  fill = fill < 0 ? 0 : fill > 30 ? 30 : fill;
  fprintf(stderr, "\r  %-14s [%.*s%.*s] %-36.36s", b->what, fill,
          "##############################", 30 - fill, "..............................", detail);
  fflush(stderr);
}

void hop_cli_bar_end(struct cli_bar *b)
{
  if (b->tty)
    fprintf(stderr, "\r%*s\r", 90, "");
}

void hop_cli_steps_progress(int done, int count, void *arg)
{
  char text[64];
  snprintf(text, sizeof text, "%d of %d sizes", done, count);
  hop_cli_bar_draw(arg, (double)done / count, text);
}

/* The calibration ladder: 32 ... the largest tuned size (2048 at least). */
void hop_cli_ladder(const struct cli_tune_opts *o, int *out)
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

static bool calibrate_cpu(const struct cli_tune_opts *o, double budget, struct cli_bar *b, struct hop_curve *c)
{
  int sizes[HOP_CURVE_POINTS + 1];
  hop_cli_ladder(o, sizes);
  b->what = "CPU curve";
  bool ok = hop_calib_cpu_measure(sizes, budget, c, hop_cli_steps_progress, b);
  hop_cli_bar_end(b);
  hop_tune_flush();
  char text[HOP_TUNE_VALUE_MAX];
  if (ok) {
    hop_curve_format(c, text, sizeof text);
    printf("  cpu (%s): GFLOPS by size %s\n", hop_cpu_blas_name(), text);
  } else {
    printf("  cpu: not calibrated (out of memory or no time left)\n");
  }
  return ok;
}

int hop_cli_tune(int argc, char **argv)
{
  struct cli_tune_opts o;
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
    return usage(stdout, 0);
  if (!parse(argc, argv, &o))
    return usage(stderr, 2);
  if (o.family != NULL)
    setenv("HOPBLAS_OPENCL_VARIANT", o.family, 1); /* read once, when the engine starts */
  struct cli_bar b = {.tty = isatty(2) == 1};
  double t0 = now(), cal_budget = o.calibrate ? (o.tune ? 0.2 : 1.0) * o.budget : 0.0;
  int rc = 0;
  printf("hopblas tune: budget %.0f s, HOPBLAS_TUNE=%s\n", o.budget,
         hop_tune_mode_name(hop_tune_mode()));
#ifdef HOP_WITH_OPENCL
  struct hop_engine_view v;
  hop_engine_get(hop_engine_index("opencl"), &v);
  if (v.status != HOP_OK) {
    printf("  opencl: off (%s); only the CPU is calibrated\n", v.why);
    rc = o.tune ? 1 : 0;
  } else if (o.tune) {
    rc = hop_cli_tune_sizes(v.state, &o, o.budget - cal_budget, &b);
  }
#else
  printf("  opencl: not built; only the CPU is calibrated\n");
#endif
  if (o.calibrate) {
    printf("calibration (the router's cost model):\n");
    double left = fmax(cal_budget, o.budget - (now() - t0));
    struct hop_curve cpu = {0};
    if (!calibrate_cpu(&o, 0.5 * left, &b, &cpu))
      rc = 1;
#ifdef HOP_WITH_OPENCL
    if (v.status == HOP_OK &&
        !hop_cli_calibrate_ocl(v.state, &o, fmax(1.0, o.budget - (now() - t0)), &b, &cpu))
      rc = 1;
#endif
  }
  char path[4200], state[200];
  hop_tune_describe(path, sizeof path, state, sizeof state);
  printf("cache: %s (%s); %.1f s spent\n", path, state, now() - t0);
  return rc;
}
