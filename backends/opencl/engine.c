/* The OpenCL engine behind its vtable: init (once, lazily, under the lock
 * core/context.c holds), the cost model the router asks, the call, the
 * lines of `hopblas info`, and the release when the library is unloaded.
 * The engine is not fork-safe: a forked child never touches the parent's
 * context and queues (core switches it off). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "family.h"
#include "level3.h"
#include "tune.h"

/* After this many failed calls in a row the device is treated as lost. */
enum { MAX_FAILURES = 3 };

/* Cost-model defaults per kind of device until `hopblas tune` measures it:
 * FP32 lanes per compute unit, the share of that peak the generic family
 * reaches, the size at which it reaches half of it, fixed cost, link. */
static const struct model_default {
  cl_device_type type; /* 0 = any */
  int unified;         /* -1 = either */
  double lanes, efficiency, half_size, setup_s, link_bytes_s;
} model_defaults[] = {
  {CL_DEVICE_TYPE_GPU, 0, 64, 0.5, 768, 50e-6, 12e9},  /* discrete GPU behind PCIe */
  {CL_DEVICE_TYPE_GPU, 1, 32, 0.4, 256, 150e-6, 0},    /* integrated and mobile GPUs */
  {CL_DEVICE_TYPE_CPU, -1, 8, 0.25, 160, 400e-6, 0},   /* PoCL and other CPU drivers */
  {0, -1, 16, 0.3, 256, 200e-6, 8e9},
};

/* Double's rate against float's, until measured: anything from 1/2
 * (CPUs, NVIDIA's data-centre GPUs) to 1/64 (consumer GPUs).  Where it is
 * not known the low end is assumed, so that the CPU keeps what it was
 * faster at. */
static double fp64_ratio(const struct hop_ocl_device *d)
{
  static const char *const half_rate[] = {"A100", "H100", "H200", "H800", "GH200", "B200", "V100",
                                          "P100", "MI100", "MI210", "MI250", "MI300", NULL};
  if (!hop_ocl_has_extension(d, "cl_khr_fp64"))
    return 0.0;
  if (d->type & CL_DEVICE_TYPE_CPU)
    return 0.5;
  for (size_t i = 0; half_rate[i] != NULL; i++)
    if (strstr(d->name, half_rate[i]) != NULL)
      return 0.5;
  return 1.0 / 64.0;
}

static void model_init(struct hop_ocl_state *st)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  const struct model_default *m = model_defaults;
  while (m->type != 0 &&
         ((d->type & m->type) == 0 || (m->unified >= 0 && m->unified != d->unified)))
    m++;
  double units = d->units ? d->units : 1, clock = d->clock_mhz ? d->clock_mhz : 1000;
  st->model.peak_flops = units * clock * 1e6 * 2.0 * m->lanes * m->efficiency;
  st->model.half_size = m->half_size;
  st->model.setup_s = m->setup_s;
  st->model.link_bytes_s = m->link_bytes_s > 0 ? m->link_bytes_s : 8e9;
  st->model.fp64_ratio = fp64_ratio(d);
}

/* Untuned, the staged path's link is measured once when the engine opens
 * (a few milliseconds): the default for discrete GPUs is PCIe 3's, and a
 * PCIe 5 link four times faster decides where LAPACK's panel-wide calls
 * belong, which read a large operand for few flops. */
static void model_measure_link(struct hop_ocl_state *st)
{
  const struct hop_ocl_calib *cal = hop_ocl_tune_calib(st);
  if (st->memory != HOP_OCL_STAGED || (cal != NULL && cal->have))
    return;
  double rate = hop_ocl_link_bandwidth(st, (size_t)16 << 20);
  if (rate <= 0.0) {
    hop_log(2, "opencl: the link could not be measured; the model assumes %.1f GB/s",
            st->model.link_bytes_s * 1e-9);
    return;
  }
  st->model.link_bytes_s = rate;
  st->model.link_measured = true;
  hop_log(2, "opencl: link measured at %.1f GB/s", rate * 1e-9);
}

/* One device's state: its runtime (the first device's chosen by
 * HOPBLAS_DEVICE when first is NULL, else device dev of first's list), the
 * faults injected there, its cost model, family and tuning. */
enum hop_status hop_ocl_engine_open(struct hop_ocl_state *st, const struct hop_ocl_state *first,
                                    size_t dev, char *why, size_t len)
{
  pthread_mutex_init(&st->lock, NULL);
  enum hop_status rc = first == NULL ? hop_ocl_runtime_open(st, why, len)
                                     : hop_ocl_runtime_open_on(st, first, dev, why, len);
  if (rc != HOP_OK) {
    hop_ocl_runtime_close(st);
    pthread_mutex_destroy(&st->lock);
    return rc;
  }
  hop_ocl_fault_parse(&st->fault, hop_config_get("HOPBLAS_OPENCL_FAULT"), st->dev);
  model_init(st);
  hop_ocl_family_choose(st);
  hop_ocl_tune_attach(st); /* the lookup chain of parameters, the calibration (tune_select.c) */
  model_measure_link(st);
  return HOP_OK;
}

/* The copy threads joined, every OpenCL object released. */
void hop_ocl_engine_close(struct hop_ocl_state *st)
{
  hop_ocl_tune_release(st);
  hop_ocl_triangular_release(st);
  hop_ocl_spread_release(st);
  hop_ocl_family_release(st);
  hop_ocl_runtime_close(st);
  pthread_mutex_destroy(&st->lock);
}

static enum hop_status ocl_init(void **state, char *why, size_t len)
{
  struct hop_ocl_state *st = calloc(1, sizeof *st);
  if (st == NULL) {
    snprintf(why, len, "out of memory");
    return HOP_ERR_NOMEM;
  }
  enum hop_status rc = hop_ocl_engine_open(st, NULL, 0, why, len);
  if (rc != HOP_OK) {
    free(st);
    return rc;
  }
  hop_ocl_split_open(st); /* the other devices of a list, a CPU share: or nothing */
  *state = st;
  return HOP_OK;
}

/* When the library is unloaded. */
static void ocl_release(void *state)
{
  struct hop_ocl_state *st = state;
  hop_ocl_split_release(st);
  hop_ocl_engine_close(st);
  free(st);
}

/* Double kernels are missing when the device or the family has none. */
static bool no_fp64(const struct hop_ocl_state *st)
{
  return st->model.fp64_ratio == 0.0 ||
         (st->prog.tried && st->prog.status == HOP_OK &&
          st->prog.fp64_tried &&
          !hop_ocl_program_has(&st->prog, HOP_OCL_DGEMM));
}

/* The real GEMM a complex call runs as (core/complex_real.c): the same flops. */
static struct hop_call as_real(const struct hop_call *g)
{
  struct hop_call r = *g;
  r.dtype = hop_dtype_real(g->dtype);
  r.n = 2 * g->n, r.k = 2 * g->k;
  return r;
}

/* This device's own prediction, for level3.c's GEMMs: never a shared one. */
static double predict_here(void *state, const struct hop_call *g)
{
  return hop_ocl_engine_predict(state, g);
}

/* setup + bytes / link + flops / rate(shape); unified memory moves nothing. */
double hop_ocl_engine_predict(const struct hop_ocl_state *st, const struct hop_call *g)
{
  if (st->declines)
    return -1.0;
  if (g->op != HOP_OP_GEMM && g->op != HOP_OP_GEMMT && g->op != HOP_OP_GEMM_BATCH)
    return hop_ocl_level3_predict(st, g, predict_here); /* the GEMMs they are built on */
  switch (g->dtype) {
  case HOP_DTYPE_C:
  case HOP_DTYPE_Z: {
    if (g->op == HOP_OP_GEMM_BATCH) /* its problems' embeddings, in batch.c */
      return g->dtype == HOP_DTYPE_Z && no_fp64(st) ? -1.0 : hop_ocl_batch_predict(st, g);
    struct hop_call r = as_real(g);
    return hop_ocl_engine_predict(st, &r);
  }
  case HOP_DTYPE_D:
    if (no_fp64(st))
      return -1.0;
    break;
  case HOP_DTYPE_S:
  case HOP_DTYPE_H:
  case HOP_DTYPE_SH: break;
  case HOP_DTYPE_COUNT: return -1.0;
  }
  if (g->op == HOP_OP_GEMM_BATCH)
    return hop_ocl_batch_predict(st, g);
  /* Measured by `hopblas tune` (d on its own curve, where it was measured). */
  double calibrated = hop_ocl_calib_seconds(st, g);
  if (calibrated >= 0.0)
    return calibrated;
  double m = g->m, n = g->n, k = g->k;
  double size = cbrt(m * n * k);
  double rate = st->model.peak_flops * size / (size + st->model.half_size);
  if (g->dtype == HOP_DTYPE_D)
    rate *= st->model.fp64_ratio;
  double bytes = 0.0;
  if (st->memory == HOP_OCL_STAGED) {
    double eab = (double)hop_dtype_ab_size(g->dtype), ec = (double)hop_dtype_c_size(g->dtype);
    bool c_up = !hop_scalar_is_zero(g->beta) && !hop_ocl_beta_on_host(g, st->memory, false);
    bytes = (m * k + k * n) * eab + m * n * ec * (c_up ? 2.0 : 1.0);
  }
  return hop_ocl_model_setup(st) + bytes / st->model.link_bytes_s + hop_call_flops(g) / rate;
}

static double ocl_predict(void *state, const struct hop_call *g)
{
  const struct hop_ocl_state *st = state;
  double t = hop_ocl_engine_predict(st, g);
  return st->split != NULL ? hop_ocl_split_predict(st, g, t) : t;
}

/* A real call through the parameters, the program and the pipeline. */
static enum hop_status run_real(void *state, const struct hop_call *g)
{
  struct hop_ocl_state *st = state;
  enum hop_status rc = hop_ocl_tune_select(st, g);
  /* z: a batch's embedding */
  if (rc == HOP_OK && hop_dtype_real(g->dtype) == HOP_DTYPE_D && !hop_ocl_program_fp64(st))
    rc = HOP_DECLINED; /* why: `hopblas info`'s fp64 line */
  if (rc == HOP_OK) {
    hop_ocl_family_call_begin(st);
    rc = g->op == HOP_OP_GEMM_BATCH ? hop_ocl_batch_run(st, g) : hop_ocl_run(st, g);
    hop_ocl_family_call_end(st, g);
  }
  return rc;
}

/* A complex GEMM as the real GEMM of its embedding. */
static enum hop_status run_complex(void *state, const struct hop_call *g)
{
  return hop_complex_by_real(g, run_real, state, true);
}

enum hop_status hop_ocl_engine_call(struct hop_ocl_state *st, const struct hop_call *g)
{
  pthread_mutex_lock(&st->lock);
  enum hop_status rc = HOP_DECLINED;
  bool complex = hop_dtype_info(g->dtype)->is_complex;
  if (st->off)
    rc = HOP_DECLINED;
  else if (complex && g->op != HOP_OP_GEMM && g->op != HOP_OP_GEMM_BATCH)
    rc = hop_ocl_level3_complex(st, g, run_complex);
  else if (g->op != HOP_OP_GEMM && g->op != HOP_OP_GEMMT && g->op != HOP_OP_GEMM_BATCH)
    rc = hop_ocl_level3(st, g, run_real);
  else if (complex && g->op != HOP_OP_GEMM_BATCH)
    rc = run_complex(st, g);
  else {
    bool timed = hop_ocl_model_learns(st, g); /* the untuned model's fixed cost, corrected */
    double t0 = timed ? hop_now() : 0.0;
    rc = run_real(st, g);
    if (timed && rc == HOP_OK)
      hop_ocl_model_learn(st, g, hop_now() - t0);
  }
  __atomic_fetch_add(&st->model.calls_run, 1, __ATOMIC_RELAXED); /* split.c reads it unlocked */
  if (st->failures >= MAX_FAILURES && !st->off) {
    st->off = true;
    hop_log(1, "opencl: %d device failures in a row on device %zu; it is off for this process",
            st->failures, st->dev);
  }
  st->declines = st->off || (st->prog.tried && st->prog.status != HOP_OK);
  pthread_mutex_unlock(&st->lock);
  return rc;
}

static enum hop_status ocl_gemm(void *state, const struct hop_call *g)
{
  struct hop_ocl_state *st = state;
  if (st->split != NULL)
    return hop_ocl_split_call(st, g); /* one device's part, or all of it when small */
  return hop_ocl_engine_call(st, g);
}

static const char *ocl_detail(void *state)
{
  const struct hop_ocl_state *st = state;
  const char *split = st->split != NULL ? hop_ocl_split_detail() : NULL;
  return split != NULL ? split : hop_ocl_tune_detail(state);
}

static bool ocl_flushes(void *state)
{
  const struct hop_ocl_state *st = state;
  return st->flushes || (st->split != NULL && hop_ocl_split_flushes(st));
}

/* The lines of one device's state: family, tiles, program, tuning.  Under its lock. */
void hop_ocl_engine_describe(struct hop_ocl_state *st, FILE *out)
{
  const struct hop_ocl_params *p = &st->params;
  fprintf(out, "  family: %s\n", st->variant_why);
  if (st->family->describe != NULL)
    st->family->describe(st, out);
  else
    fprintf(out, "  tiles: MWG=%d NWG=%d KWG=%d MDIMC=%d NDIMC=%d VWM=%d VWN=%d VWL=%d (%s)\n",
            p->mwg, p->nwg, p->kwg, p->mdimc, p->ndimc, p->vwm, p->vwn, p->vwl, st->params_why);
  fprintf(out, "  program: %s\n", st->prog.tried ? st->prog.origin : "built on the first call");
  if (st->prog.tried)
    fprintf(out, "  double (d, z): %s\n", st->prog.fp64);
  else if (st->model.fp64_ratio == 0.0)
    fprintf(out, "  double (d, z): no: the device lacks cl_khr_fp64\n");
  fprintf(out, "  largest buffer: %.1f MiB\n", (double)st->cap / (1 << 20));
  hop_ocl_tune_describe(st, out); /* tuning, and the cost model with its calibration */
  if (st->off)
    fprintf(out, "  off: repeated device failures\n");
}

static void ocl_describe(void *state, FILE *out)
{
  struct hop_ocl_state *st = state;
  pthread_mutex_lock(&st->lock);
  hop_ocl_runtime_describe(st, out);
  hop_ocl_engine_describe(st, out);
  pthread_mutex_unlock(&st->lock);
  if (st->split != NULL)
    hop_ocl_split_describe(st, out);
}

#define COMPLEX (HOP_DTYPE_BIT(HOP_DTYPE_C) | HOP_DTYPE_BIT(HOP_DTYPE_Z))
#define ALL4 (HOP_DTYPE_BIT(HOP_DTYPE_S) | HOP_DTYPE_BIT(HOP_DTYPE_D) | COMPLEX)
const struct hop_backend hop_backend_opencl = {
  .name = "opencl",
  .is_device = true,
  /* d and z only where the device and the family have double kernels
   * (predict() and run() decline them otherwise); c and z as real GEMMs. */
  .takes = {[HOP_OP_GEMM] = HOP_DTYPE_BIT(HOP_DTYPE_S) | HOP_DTYPE_BIT(HOP_DTYPE_D) |
                            HOP_DTYPE_BIT(HOP_DTYPE_C) | HOP_DTYPE_BIT(HOP_DTYPE_Z) |
                            HOP_DTYPE_BIT(HOP_DTYPE_H) | HOP_DTYPE_BIT(HOP_DTYPE_SH),
            /* gemmt: real ones by launches over the triangle's slabs
             * (family.c); the rest built on the GEMMs (level3.c; complex
             * ones as complex GEMMs, level3_complex.c) */
            [HOP_OP_GEMMT] = ALL4, [HOP_OP_SYMM] = ALL4, [HOP_OP_SYRK] = ALL4,
            [HOP_OP_SYR2K] = ALL4, [HOP_OP_TRMM] = ALL4, [HOP_OP_TRSM] = ALL4,
            [HOP_OP_HEMM] = COMPLEX, [HOP_OP_HERK] = COMPLEX, [HOP_OP_HER2K] = COMPLEX,
            /* batches in one launch of the batched kernel (batch.c), where the
             * family has it; complex problems as their real embeddings */
            [HOP_OP_GEMM_BATCH] = ALL4},
  .max_dim = INT_MAX, /* int sizes in launches and packing */
  .fork_safe = false,
  .init = ocl_init,
  .predict = ocl_predict,
  .run = ocl_gemm,
  .describe = ocl_describe,
  .detail = ocl_detail,
  .flushes = ocl_flushes,
  .release = ocl_release,
  .keys = hop_opencl_keys,
  .tools = &hop_ocl_tools,
};
