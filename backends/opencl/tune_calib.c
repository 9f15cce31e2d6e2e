/* Calibration of the OpenCL engine's cost model (DESIGN §4): the router
 * predicts setup + bytes / link + flops / rate(size), and `hopblas tune`
 * measures all three here, on this device, through the engine's own calls
 * (so the rates are those of the parameters the lookup chain gives each
 * size), and stores them in the tuning cache beside the tuned parameters.
 *
 *   setup  the best time of a 16 x 16 x 16 call: the fixed cost of a call
 *   link   host <-> device bandwidth, the mean of a write and a read of up
 *          to 64 MiB (staged memory only; zero-copy moves no bytes)
 *   rate   per size, flops over what remains of a whole call's time once
 *          setup and transfers are taken away: the model then gives back
 *          the measured time at every calibrated size
 *   rate.d the same for dgemm calls, where the double kernel exists: a
 *          GPU's double rate is anywhere from 1/2 to 1/64 of its float
 *          rate.  A record of its own, so that a cache written before it
 *          stays readable (d then takes the float curve times the
 *          device's default share). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

extern const struct hop_backend hop_backend_opencl;

static void scope_of(const struct hop_ocl_state *st, char *buf, size_t len)
{
  char base[HOP_TUNE_SCOPE_MAX];
  hop_ocl_tune_scope(st, base, sizeof base);
  snprintf(buf, len, "%.250s;memory=%s", base,
           st->memory == HOP_OCL_STAGED ? "staged" : "zero-copy");
}

static double bytes_moved(const struct hop_ocl_state *st, const struct hop_call *g)
{
  if (st->memory != HOP_OCL_STAGED)
    return 0.0;
  double m = g->m, n = g->n, k = g->k;
  double eab = (double)hop_dtype_ab_size(g->dtype), ec = (double)hop_dtype_c_size(g->dtype);
  return (m * k + k * n) * eab + m * n * ec * (hop_scalar_is_zero(g->beta) ? 1.0 : 2.0);
}

void hop_ocl_calib_load(struct hop_ocl_state *st, struct hop_ocl_calib *c)
{
  *c = (struct hop_ocl_calib){0};
  if (hop_tune_mode() == HOP_TUNE_OFF)
    return;
  char scope[HOP_TUNE_SCOPE_MAX], setup[64], link[64], rate[HOP_TUNE_VALUE_MAX], *end;
  scope_of(st, scope, sizeof scope);
  if (!hop_tune_get(scope, "cal.setup", setup, sizeof setup) ||
      !hop_tune_get(scope, "cal.link", link, sizeof link) ||
      !hop_tune_get(scope, "cal.rate", rate, sizeof rate))
    return;
  c->setup_s = strtod(setup, &end);
  bool ok = *end == '\0' && c->setup_s >= 1e-7 && c->setup_s <= 10.0;
  c->link_bytes_s = strtod(link, &end);
  ok = ok && *end == '\0' && c->link_bytes_s >= 1e5 && c->link_bytes_s <= 1e13;
  ok = ok && hop_curve_parse(rate, &c->rate);
  if (!ok)
    hop_log(1, "tuning cache: the OpenCL calibration is out of bounds; using the built-in model");
  c->have = ok;
  if (ok && hop_tune_get(scope, "cal.rate.d", rate, sizeof rate)) {
    c->have_d = hop_curve_parse(rate, &c->rate_d);
    if (!c->have_d)
      hop_log(1, "tuning cache: the OpenCL double curve is out of bounds; d uses the float curve");
  }
}

double hop_ocl_calib_seconds(const struct hop_ocl_state *st, const struct hop_call *g)
{
  const struct hop_ocl_calib *c = hop_ocl_tune_calib(st);
  if (c == NULL || !c->have)
    return -1.0;
  double size = cbrt((double)g->m * g->n * g->k);
  double gflops = hop_curve_gflops(&c->rate, size);
  if (g->dtype == HOP_DTYPE_D)
    gflops = c->have_d ? hop_curve_gflops(&c->rate_d, size) : gflops * st->model.fp64_ratio;
  return c->setup_s + bytes_moved(st, g) / c->link_bytes_s + hop_call_flops(g) / (gflops * 1e9);
}

/* ---- measuring ------------------------------------------------------------ */

/* Best seconds of one call through the engine (warm-up first): 3 runs,
 * more until 50 ms have passed (within the deadline). */
static double time_call(struct hop_ocl_state *st, struct hop_call *g, double deadline)
{
  if (hop_backend_opencl.run(st, g) != HOP_OK)
    return -1.0;
  double best = INFINITY, start = hop_now();
  for (int runs = 0; runs < 3 || (hop_now() - start < 0.05 && hop_now() < deadline); runs++) {
    double t0 = hop_now();
    if (hop_backend_opencl.run(st, g) != HOP_OK)
      return -1.0;
    double t = hop_now() - t0;
    best = t < best ? t : best;
  }
  return best;
}

/* Host <-> device bandwidth from pinned host memory, as the staged path
 * moves it (transfer.c): the mean of a write and a read of up to max_bytes,
 * best of three each after a warm-up; negative when it could not be
 * measured. */
double hop_ocl_link_bandwidth(struct hop_ocl_state *st, size_t max_bytes)
{
  size_t bytes = st->cap < max_bytes ? st->cap : max_bytes;
  cl_int err = CL_SUCCESS, e2 = CL_SUCCESS;
  cl_mem pinned = clCreateBuffer(st->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                                 &err);
  cl_mem dev = clCreateBuffer(st->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e2);
  double best[2] = {INFINITY, INFINITY};
  pthread_mutex_lock(&st->lock);
  cl_command_queue q = st->q[HOP_OCL_Q_UP];
  void *host = err == CL_SUCCESS && e2 == CL_SUCCESS
                 ? clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                      NULL, NULL, &err)
                 : NULL;
  if (host != NULL) {
    memset(host, 1, bytes);
    for (int i = 0; i < 4 && err == CL_SUCCESS; i++)
      for (int dir = 0; dir < 2 && err == CL_SUCCESS; dir++) {
        double t0 = hop_now();
        err = dir == 0 ? clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                       : clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
        if (i > 0) /* the first of each is a warm-up */
          best[dir] = fmin(best[dir], hop_now() - t0);
      }
    clEnqueueUnmapMemObject(q, pinned, host, 0, NULL, NULL);
    clFinish(q);
  }
  pthread_mutex_unlock(&st->lock);
  if (pinned != NULL)
    clReleaseMemObject(pinned);
  if (dev != NULL)
    clReleaseMemObject(dev);
  if (host == NULL || err != CL_SUCCESS || !isfinite(best[0]) || !isfinite(best[1]))
    return -1.0;
  return 2.0 * (double)bytes / (best[0] + best[1]);
}

/* A, B and C of the largest size in g's dtype (float or double). */
static bool operands(struct hop_call *g, size_t elems)
{
  bool dbl = g->dtype == HOP_DTYPE_D;
  void *a = malloc(elems * 8), *b = malloc(elems * 8), *c = malloc(elems * 8);
  g->a = a, g->b = b, g->c = c;
  if (a == NULL || b == NULL || c == NULL)
    return false;
  for (size_t i = 0; i < elems; i++) {
    double x = (double)(i % 61u) / 61.0 - 0.5, y = (double)(i % 53u) / 53.0 - 0.5;
    if (dbl)
      ((double *)a)[i] = x, ((double *)b)[i] = y;
    else
      ((float *)a)[i] = (float)x, ((float *)b)[i] = (float)y;
  }
  return true;
}

static void operands_free(struct hop_call *g)
{
  free((void *)g->a), free((void *)g->b), free(g->c);
}

/* The rate at each size in g's dtype into curve; steps done are counted
 * from *done.  Sizes up to 512 always: they are quick, and the crossover
 * is usually among them. */
static void ladder(struct hop_ocl_state *st, struct hop_call *g, const int *sizes, int count,
                   double deadline, const struct hop_ocl_calib *cal, struct hop_curve *curve,
                   void (*progress)(int done, int count, void *arg), void *arg, int *done,
                   int steps)
{
  for (int i = 0; i < count && (hop_now() < deadline || sizes[i] <= 512); i++) {
    int n = sizes[i];
    g->m = g->n = g->k = g->lda = g->ldb = g->ldc = n;
    double t = time_call(st, g, deadline);
    if (t <= 0)
      break;
    /* What the kernels took once the fixed cost and the transfers are paid (at
     * least a fifth of the call: transfers overlap kernels on the staged path). */
    double kernel = fmax(t - cal->setup_s - bytes_moved(st, g) / cal->link_bytes_s, 0.2 * t);
    if (curve->n == 0 || n > curve->size[curve->n - 1]) {
      curve->size[curve->n] = n;
      curve->gflops[curve->n++] = hop_call_flops(g) / kernel * 1e-9;
    }
    if (progress != NULL)
      progress(++*done, steps, arg);
  }
}

bool hop_ocl_calib_measure(struct hop_ocl_state *st, const int *sizes, double budget_s,
                           struct hop_ocl_calib *out,
                           void (*progress)(int done, int count, void *arg), void *arg)
{
  int count = 0, largest = 16, done = 0;
  while (sizes[count] > 0 && count < HOP_CURVE_POINTS)
    largest = sizes[count] > largest ? sizes[count] : largest, count++;
  size_t elems = (size_t)largest * (size_t)largest;
  *out = (struct hop_ocl_calib){.link_bytes_s = 1e13};
  struct hop_call g = {.dtype = HOP_DTYPE_S, .symbol = "calibrate", .m = 16, .n = 16, .k = 16,
                       .alpha = {1.0, 0.0}, .beta = {0.0, 0.0}, .lda = 16, .ldb = 16, .ldc = 16};
  if (!operands(&g, elems)) {
    operands_free(&g);
    return false;
  }
  double start = hop_now(), deadline = start + budget_s;
  if (st->memory == HOP_OCL_STAGED)
    out->link_bytes_s = hop_ocl_link_bandwidth(st, (size_t)64 << 20);
  out->setup_s = time_call(st, &g, deadline);
  /* The double kernel, when the first call's program has one, gets a
   * third of the time: its curve has the same sizes. */
  bool dbl = st->model.fp64_ratio > 0.0 && hop_ocl_program_fp64(st);
  int steps = dbl ? 2 * count : count;
  if (out->setup_s > 0 && out->link_bytes_s > 0)
    ladder(st, &g, sizes, count, dbl ? start + budget_s * 2.0 / 3.0 : deadline, out, &out->rate,
           progress, arg, &done, steps);
  operands_free(&g);
  out->have = out->setup_s > 0 && out->link_bytes_s > 0 && out->rate.n > 0;
  if (!out->have)
    return false;
  g = (struct hop_call){.dtype = HOP_DTYPE_D, .symbol = "calibrate", .alpha = {1.0, 0.0}};
  if (dbl && operands(&g, elems))
    ladder(st, &g, sizes, count, deadline, out, &out->rate_d, progress, arg, &done, steps);
  operands_free(&g);
  out->have_d = out->rate_d.n > 0;
  char scope[HOP_TUNE_SCOPE_MAX], text[HOP_TUNE_VALUE_MAX];
  scope_of(st, scope, sizeof scope);
  snprintf(text, sizeof text, "%.6g", out->setup_s);
  hop_tune_put(scope, "cal.setup", text);
  snprintf(text, sizeof text, "%.6g", out->link_bytes_s);
  hop_tune_put(scope, "cal.link", text);
  hop_curve_format(&out->rate, text, sizeof text);
  hop_tune_put(scope, "cal.rate", text);
  if (out->have_d) {
    hop_curve_format(&out->rate_d, text, sizeof text);
    hop_tune_put(scope, "cal.rate.d", text);
  }
  hop_tune_flush();
  struct hop_ocl_calib *mine = hop_ocl_tune_calib(st);
  if (mine != NULL)
    *mine = *out;
  return true;
}

void hop_ocl_calib_describe(const struct hop_ocl_state *st, const struct hop_ocl_calib *c,
                            FILE *out)
{
  bool staged = st->memory == HOP_OCL_STAGED;
  if (c != NULL && c->have) {
    char curve[HOP_TUNE_VALUE_MAX];
    hop_curve_format(&c->rate, curve, sizeof curve);
    fprintf(out, "  cost model (calibrated by `hopblas tune`): setup %.0f us, %s", c->setup_s * 1e6,
            staged ? "" : "no transfers\n");
    if (staged)
      fprintf(out, "link %.2f GB/s\n", c->link_bytes_s * 1e-9);
    fprintf(out, "  kernel GFLOPS by size: %s\n", curve);
    if (c->have_d) {
      hop_curve_format(&c->rate_d, curve, sizeof curve);
      fprintf(out, "  double (d, z) GFLOPS by size: %s\n", curve);
    } else {
      fprintf(out, "  double (d, z): not calibrated; %.3g of the float rate (default share)\n",
              st->model.fp64_ratio);
    }
    return;
  }
  double setup = hop_ocl_model_setup(st);
  fprintf(out, "  cost model (untuned default): setup %.0f us%s, %s, %.1f GFLOPS at large sizes "
               "(half of it at n = %.0f)\n",
          setup * 1e6, setup > st->model.setup_s ? " (learnt from the calls run)" : "",
          staged ? "link counted" : "no transfers",
          st->model.peak_flops * 1e-9, st->model.half_size);
  fprintf(out, "  double (d, z): %.3g of that rate (default share)\n", st->model.fp64_ratio);
  if (staged)
    fprintf(out, "  link: %.1f GB/s (%s)\n", st->model.link_bytes_s * 1e-9,
            st->model.link_measured ? "measured when the engine opened" : "untuned default");
}
