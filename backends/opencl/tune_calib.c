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
 *          the measured time at every calibrated size */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tune.h"

extern const struct hop_backend hop_backend_opencl;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
}

double hop_ocl_calib_seconds(const struct hop_ocl_state *st, const struct hop_call *g)
{
  const struct hop_ocl_calib *c = hop_ocl_tune_calib(st);
  if (c == NULL || !c->have)
    return -1.0;
  double size = cbrt((double)g->m * g->n * g->k);
  return c->setup_s + bytes_moved(st, g) / c->link_bytes_s +
         hop_call_flops(g) / (hop_curve_gflops(&c->rate, size) * 1e9);
}

/* ---- measuring ------------------------------------------------------------ */

/* Best seconds of one call through the engine (warm-up first): 3 runs,
 * more until 50 ms have passed (within the deadline). */
static double time_call(struct hop_ocl_state *st, struct hop_call *g, double deadline)
{
  if (hop_backend_opencl.run(st, g) != HOP_OK)
    return -1.0;
  double best = INFINITY, start = now();
  for (int runs = 0; runs < 3 || (now() - start < 0.05 && now() < deadline); runs++) {
    double t0 = now();
    if (hop_backend_opencl.run(st, g) != HOP_OK)
      return -1.0;
    double t = now() - t0;
    best = t < best ? t : best;
  }
  return best;
}

/* Host <-> device bandwidth from pinned host memory, as the staged path
 * moves it (transfer.c): the mean of a write and a read, best of three each. */
static double link_bandwidth(struct hop_ocl_state *st)
{
  size_t bytes = st->cap < ((size_t)64 << 20) ? st->cap : (size_t)64 << 20;
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
        double t0 = now();
        err = dir == 0 ? clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                       : clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
        if (i > 0) /* the first of each is a warm-up */
          best[dir] = fmin(best[dir], now() - t0);
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

bool hop_ocl_calib_measure(struct hop_ocl_state *st, const int *sizes, double budget_s,
                           struct hop_ocl_calib *out,
                           void (*progress)(int done, int count, void *arg), void *arg)
{
  int count = 0, largest = 16;
  while (sizes[count] > 0 && count < HOP_CURVE_POINTS)
    largest = sizes[count] > largest ? sizes[count] : largest, count++;
  size_t elems = (size_t)largest * (size_t)largest;
  float *a = malloc(elems * sizeof *a), *b = malloc(elems * sizeof *b),
        *c = malloc(elems * sizeof *c);
  *out = (struct hop_ocl_calib){.link_bytes_s = 1e13};
  if (a == NULL || b == NULL || c == NULL) {
    free(a), free(b), free(c);
    return false;
  }
  for (size_t i = 0; i < elems; i++)
    a[i] = (float)(i % 61u) / 61.0f - 0.5f, b[i] = (float)(i % 53u) / 53.0f - 0.5f;
  double deadline = now() + budget_s;
  if (st->memory == HOP_OCL_STAGED)
    out->link_bytes_s = link_bandwidth(st);
  struct hop_call g = {.dtype = HOP_DTYPE_S, .symbol = "calibrate", .m = 16, .n = 16, .k = 16,
                       .alpha = {1.0, 0.0}, .beta = {0.0, 0.0}, .a = a, .lda = 16, .b = b, .ldb = 16,
                       .c = c, .ldc = 16};
  out->setup_s = time_call(st, &g, deadline);
  bool ok = out->setup_s > 0 && out->link_bytes_s > 0;
  /* Sizes up to 512 always: they are quick, and the crossover is usually among them. */
  for (int i = 0; ok && i < count && (now() < deadline || sizes[i] <= 512); i++) {
    int n = sizes[i];
    g.m = g.n = g.k = g.lda = g.ldb = g.ldc = n;
    double t = time_call(st, &g, deadline);
    if (t <= 0)
      break;
    /* What the kernels took once the fixed cost and the transfers are paid (at
     * least a fifth of the call: transfers overlap kernels on the staged path). */
    double kernel = fmax(t - out->setup_s - bytes_moved(st, &g) / out->link_bytes_s, 0.2 * t);
    if (out->rate.n == 0 || n > out->rate.size[out->rate.n - 1]) {
      out->rate.size[out->rate.n] = n;
      out->rate.gflops[out->rate.n++] = hop_call_flops(&g) / kernel * 1e-9;
    }
    if (progress != NULL)
      progress(i + 1, count, arg);
  }
  free(a), free(b), free(c);
  out->have = ok && out->rate.n > 0;
  if (!out->have)
    return false;
  char scope[HOP_TUNE_SCOPE_MAX], text[HOP_TUNE_VALUE_MAX];
  scope_of(st, scope, sizeof scope);
  snprintf(text, sizeof text, "%.6g", out->setup_s);
  hop_tune_put(scope, "cal.setup", text);
  snprintf(text, sizeof text, "%.6g", out->link_bytes_s);
  hop_tune_put(scope, "cal.link", text);
  hop_curve_format(&out->rate, text, sizeof text);
  hop_tune_put(scope, "cal.rate", text);
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
    return;
  }
  fprintf(out, "  cost model (untuned default): setup %.0f us, %s, %.1f GFLOPS at large sizes "
               "(half of it at n = %.0f)\n",
          st->model.setup_s * 1e6, staged ? "link counted" : "no transfers",
          st->model.peak_flops * 1e-9, st->model.half_size);
  if (staged)
    fprintf(out, "  link: %.1f GB/s (untuned default)\n", st->model.link_bytes_s * 1e-9);
}
