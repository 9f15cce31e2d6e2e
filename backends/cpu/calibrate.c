/* Router calibration of the CPU engine (DESIGN §4): its GFLOPS-versus-size
 * curve, measured by `hopblas tune` on this machine and stored in the
 * tuning cache, so that the CPU/GPU crossover is the machine's own.  The
 * CPU engine's predict() reads the curve once (hop_calib_cpu_seconds);
 * without one it keeps its built-in model.  Curves are text
 * "SIZE:GFLOPS,..." with SIZE = cbrt(m n k), parsed with bounds. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu.h"
#include "engine_tools.h"

/* ---- curves --------------------------------------------------------------- */

bool hop_curve_parse(const char *text, struct hop_curve *c)
{
  c->n = 0;
  const char *p = text;
  while (*p != '\0') {
    char *end;
    double size = strtod(p, &end);
    if (end == p || *end != ':' || c->n == HOP_CURVE_POINTS)
      return false;
    p = end + 1;
    double gf = strtod(p, &end);
    if (end == p || (*end != ',' && *end != '\0'))
      return false;
    /* Sizes increase; rates are positive and below any machine's (1e7 GFLOPS = 10 PFLOPS). */
    if (!(size >= 1.0 && size <= 1e6) || !(gf > 0.0 && gf < 1e7) ||
        (c->n > 0 && size <= c->size[c->n - 1]))
      return false;
    c->size[c->n] = size;
    c->gflops[c->n] = gf;
    c->n++;
    p = end;
    if (*p == ',' && *++p == '\0')
      return false; /* "32:1," is cut short */
  }
  return c->n > 0;
}

void hop_curve_format(const struct hop_curve *c, char *buf, size_t len)
{
  size_t o = 0;
  buf[0] = '\0';
  for (int i = 0; i < c->n && o < len; i++)
    o += (size_t)snprintf(buf + o, len - o, "%s%.0f:%.4g", i ? "," : "", c->size[i], c->gflops[i]);
}

double hop_curve_gflops(const struct hop_curve *c, double size)
{
  if (size <= c->size[0])
    return c->gflops[0] * (size > 0 ? fmin(1.0, size / c->size[0]) : 1.0);
  for (int i = 1; i < c->n; i++)
    if (size <= c->size[i]) {
      double t = log(size / c->size[i - 1]) / log(c->size[i] / c->size[i - 1]);
      return c->gflops[i - 1] + t * (c->gflops[i] - c->gflops[i - 1]);
    }
  return c->gflops[c->n - 1];
}

/* ---- the CPU's identity: what its curve depends on --------------------- */

static void cpu_model(char *buf, size_t len)
{
  snprintf(buf, len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL)
    return;
  char line[256];
  while (fgets(line, sizeof line, f) != NULL) {
    /* x86: "model name"; arm: "Hardware" or "CPU part" (the first one found). */
    if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Hardware", 8) == 0 ||
        strncmp(line, "CPU part", 8) == 0) {
      char *colon = strchr(line, ':');
      if (colon != NULL) {
        colon += strspn(colon, ": \t");
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, len, "%.100s", colon);
        break;
      }
    }
  }
  fclose(f);
}

void hop_calib_cpu_scope(char *buf, size_t len)
{
  char model[128];
  cpu_model(model, sizeof model);
  const char *threads = getenv("OPENBLAS_NUM_THREADS");
  if (threads == NULL)
    threads = getenv("OMP_NUM_THREADS");
  snprintf(buf, len, "cpu;model=%s;cores=%ld;blas=%.120s;threads=%.8s;lib=%s", model,
           sysconf(_SC_NPROCESSORS_ONLN), hop_cpu_blas_name(), threads ? threads : "default",
           PACKAGE_VERSION);
}

/* The record of each curve: float's, and double's beside it (a cache
 * written before double was measured has none, and stays readable). */
static const char *curve_name(bool dbl) { return dbl ? "cpu.rate.d" : "cpu.rate"; }

bool hop_calib_cpu_curve(bool dbl, struct hop_curve *c)
{
  char scope[HOP_TUNE_SCOPE_MAX], value[HOP_TUNE_VALUE_MAX];
  hop_calib_cpu_scope(scope, sizeof scope);
  if (!hop_tune_get(scope, curve_name(dbl), value, sizeof value))
    return false;
  if (hop_curve_parse(value, c))
    return true;
  hop_log(1, "tuning cache: the CPU %s \"%.60s\" is out of bounds; using %s",
          dbl ? "double curve" : "curve", value, dbl ? "half the float curve" : "the built-in model");
  return false;
}

/* ---- measuring -------------------------------------------------------------- */

/* Best seconds of one n x n x n sgemm or dgemm on the CPU engine: 3 runs,
 * more until 50 ms have passed (within the deadline), so the clock's
 * resolution and a stray interruption do not count; the best run is the
 * machine's. */
static double time_cpu(bool dbl, int n, void *a, void *b, void *c, double deadline)
{
  struct hop_call g = {.dtype = dbl ? HOP_DTYPE_D : HOP_DTYPE_S, .symbol = "tune", .m = n,
                       .n = n, .k = n,
                       .alpha = {1.0, 0.0}, .beta = {0.0, 0.0}, .a = a, .lda = n, .b = b, .ldb = n,
                       .c = c, .ldc = n};
  hop_fallback_run(&g); /* warm-up: threads started, pages touched */
  double best = INFINITY, start = hop_now();
  for (int runs = 0; runs < 3 || (hop_now() - start < 0.05 && hop_now() < deadline); runs++) {
    double t0 = hop_now();
    hop_fallback_run(&g);
    double t = hop_now() - t0;
    best = t < best ? t : best;
  }
  return best;
}

/* One curve (float or double) at the sizes until the deadline. */
static bool measure_curve(bool dbl, const int *sizes, int count, size_t elems, double deadline,
                          struct hop_curve *out, void (*progress)(int, int, void *), void *arg,
                          int *done, int steps)
{
  void *a = malloc(elems * 8), *b = malloc(elems * 8), *c = malloc(elems * 8);
  out->n = 0;
  for (size_t i = 0; a != NULL && b != NULL && c != NULL && i < elems; i++) {
    double x = (double)((i * 7919u) % 1000u) / 1000.0 - 0.5;
    double y = (double)((i * 104729u) % 1000u) / 1000.0 - 0.5;
    if (dbl)
      ((double *)a)[i] = x, ((double *)b)[i] = y;
    else
      ((float *)a)[i] = (float)x, ((float *)b)[i] = (float)y;
  }
  /* Sizes up to 512 always: they are quick, and the crossover is usually among them. */
  for (int i = 0; a != NULL && b != NULL && c != NULL && i < count &&
                  (hop_now() < deadline || sizes[i] <= 512); i++) {
    int n = sizes[i];
    double t = time_cpu(dbl, n, a, b, c, deadline);
    if (out->n == 0 || n > out->size[out->n - 1]) {
      out->size[out->n] = n;
      out->gflops[out->n] = 2.0 * n * (double)n * n / t * 1e-9;
      out->n++;
    }
    if (progress != NULL)
      progress(++*done, steps, arg);
  }
  free(a), free(b), free(c);
  if (out->n == 0)
    return false;
  char scope[HOP_TUNE_SCOPE_MAX], value[HOP_TUNE_VALUE_MAX];
  hop_calib_cpu_scope(scope, sizeof scope);
  hop_curve_format(out, value, sizeof value);
  hop_tune_put(scope, curve_name(dbl), value);
  return true;
}

bool hop_calib_cpu_measure(const int *sizes, double budget_s, struct hop_curve *out,
                           struct hop_curve *out_d,
                           void (*progress)(int done, int count, void *arg), void *arg)
{
  int count = 0, largest = 0, done = 0;
  while (sizes[count] > 0 && count < HOP_CURVE_POINTS) {
    largest = sizes[count] > largest ? sizes[count] : largest;
    count++;
  }
  size_t elems = (size_t)largest * (size_t)largest;
  double start = hop_now();
  /* Float first, in two thirds of the time; double in what is left. */
  bool ok = measure_curve(false, sizes, count, elems, start + budget_s * 2.0 / 3.0, out, progress,
                          arg, &done, 2 * count);
  out_d->n = 0;
  if (ok)
    measure_curve(true, sizes, count, elems, start + budget_s, out_d, progress, arg, &done,
                  2 * count);
  return ok;
}

/* ---- the CPU engine's prediction -------------------------------------------- */

static struct {
  pthread_once_t once;
  bool have, have_d;
  struct hop_curve curve, curve_d;
} cpu_cal = {PTHREAD_ONCE_INIT};

static void cpu_cal_load(void)
{
  cpu_cal.have = hop_tune_mode() != HOP_TUNE_OFF && hop_calib_cpu_curve(false, &cpu_cal.curve);
  cpu_cal.have_d = cpu_cal.have && hop_calib_cpu_curve(true, &cpu_cal.curve_d);
  if (cpu_cal.have)
    hop_log(2, "cpu: predictions from the calibrated curve (%d sizes; double: %d)",
            cpu_cal.curve.n, cpu_cal.have_d ? cpu_cal.curve_d.n : 0);
}

/* d and z on the double curve where it was measured, s, c and the half
 * types on the float one. */
static const struct hop_curve *curve_for(enum hop_dtype dt)
{
  switch (dt) {
  case HOP_DTYPE_D:
  case HOP_DTYPE_Z: return cpu_cal.have_d ? &cpu_cal.curve_d : &cpu_cal.curve;
  case HOP_DTYPE_S:
  case HOP_DTYPE_C:
  case HOP_DTYPE_H:
  case HOP_DTYPE_SH:
  case HOP_DTYPE_COUNT: break;
  }
  return &cpu_cal.curve;
}

double hop_calib_cpu_seconds(const struct hop_call *g)
{
  pthread_once(&cpu_cal.once, cpu_cal_load);
  if (!cpu_cal.have)
    return -1.0;
  double size = cbrt((double)g->m * g->n * g->k);
  double gflops = hop_curve_gflops(curve_for(g->dtype), size);
  if (hop_cpu_double_rate(g->dtype) && !cpu_cal.have_d)
    gflops /= 2.0; /* the float curve: a double fills half the SIMD lanes */
  return hop_call_flops(g) / (gflops * 1e9);
}

bool hop_calib_cpu_describe(bool dbl, char *buf, size_t len)
{
  pthread_once(&cpu_cal.once, cpu_cal_load);
  if (!cpu_cal.have || (dbl && !cpu_cal.have_d))
    return false;
  hop_curve_format(dbl ? &cpu_cal.curve_d : &cpu_cal.curve, buf, len);
  return true;
}

/* ---- for `hopblas tune` (core/engine_tools.h) -------------------------------- */

static const char *cpu_what_runs(void *state)
{
  return ((const struct hop_cpu_state *)state)->name;
}

static void cpu_steps(int done, int count, void *arg)
{
  hop_tools_steps(arg, done, count);
}

static bool cpu_calibrate(void *state, const int *sizes, double budget_s,
                          struct hop_calibration *out, const struct hop_tools_progress *progress)
{
  (void)state;
  *out = (struct hop_calibration){.transfers = false};
  bool ok = hop_calib_cpu_measure(sizes, budget_s, &out->rate, &out->rate_d, cpu_steps,
                                  (void *)progress);
  hop_tune_flush();
  if (!ok)
    snprintf(out->why, sizeof out->why, "out of memory or no time left");
  return ok;
}

const struct hop_engine_tools hop_cpu_tools = {
  .title = "CPU",
  .what_runs = cpu_what_runs,
  .calibrate = cpu_calibrate,
};
