/* The generic family: tile parameters (built-in defaults per kind of
 * device, or HOPBLAS_OPENCL_PARAMS), the -D options that carry them into
 * kernels/gemm_generic.cl, one launch of a kernel, and the family's entry
 * in family.c's table. */
#include <stdlib.h>
#include <string.h>

#include "tune.h"

/* Built-in defaults until the tuner stores better ones: first match wins. */
static const struct params_default {
  cl_device_type type; /* 0 = any */
  struct hop_ocl_params p;
  const char *why;
} defaults[] = {
  {CL_DEVICE_TYPE_GPU, {64, 64, 16, 16, 16, 4, 4, 4, 0, 0}, "built-in default for GPUs"},
  {CL_DEVICE_TYPE_CPU, {64, 32, 32, 8, 8, 8, 4, 8, 0, 0}, "built-in default for CPU devices"},
  {0, {32, 32, 16, 8, 8, 4, 4, 4, 0, 0}, "built-in default"},
};

/* The smallest set, valid on every OpenCL 1.2 device (64 items, 4 KiB local). */
static const struct hop_ocl_params safe_params = {32, 32, 16, 8, 8, 4, 4, 4, 0, 0};

static bool is_width(int v) { return v == 1 || v == 2 || v == 4 || v == 8; }

bool hop_ocl_generic_params_fit(const struct hop_ocl_device *d, const struct hop_ocl_params *p,
                                char *why, size_t len)
{
  const char *bad = NULL;
  size_t local = sizeof(float) * (size_t)p->kwg * (size_t)(p->mwg + p->pada + p->nwg + p->padb);
  if (!is_width(p->vwm) || !is_width(p->vwn) || !is_width(p->vwl))
    bad = "VWM, VWN and VWL must be 1, 2, 4 or 8";
  else if (p->mdimc < 1 || p->ndimc < 1 || p->mwg < 1 || p->nwg < 1 || p->kwg < 1 ||
           p->mwg > 256 || p->nwg > 256 || p->kwg > 128 || p->pada < 0 || p->pada > 16 ||
           p->padb < 0 || p->padb > 16)
    bad = "a value is out of range";
  else if (p->mwg % (p->mdimc * p->vwm) != 0 || p->nwg % (p->ndimc * p->vwn) != 0)
    bad = "MWG must be a multiple of MDIMC*VWM and NWG of NDIMC*VWN";
  else if (p->mwg % p->vwl != 0 || p->nwg % p->vwl != 0 || p->kwg % p->vwl != 0)
    bad = "MWG, NWG and KWG must be multiples of VWL";
  else if ((size_t)p->mdimc * (size_t)p->ndimc > d->max_wg)
    bad = "MDIMC*NDIMC is larger than the device's work-group limit";
  else if (local > d->local_mem)
    bad = "the tiles do not fit the device's local memory";
  if (bad != NULL && why != NULL)
    snprintf(why, len, "%s", bad);
  return bad == NULL;
}

/* "MWG=32,NWG=64,..." over a copy of the defaults; false when not understood. */
static bool parse_params(const char *spec, struct hop_ocl_params *p)
{
  static const char *const names[] = {"MWG", "NWG", "KWG", "MDIMC", "NDIMC",
                                      "VWM", "VWN", "VWL", "PADA", "PADB"};
  int *fields[] = {&p->mwg, &p->nwg, &p->kwg, &p->mdimc, &p->ndimc,
                   &p->vwm, &p->vwn, &p->vwl, &p->pada, &p->padb};
  while (*spec != '\0') {
    size_t len = strcspn(spec, ",");
    const char *eq = memchr(spec, '=', len);
    if (eq == NULL)
      return false;
    size_t name_len = (size_t)(eq - spec);
    char *end;
    long v = strtol(eq + 1, &end, 10);
    if (end != spec + len || end == eq + 1 || v < 0 || v > 4096)
      return false;
    size_t i = 0;
    while (i < sizeof names / sizeof names[0] &&
           !(strlen(names[i]) == name_len && strncmp(names[i], spec, name_len) == 0))
      i++;
    if (i == sizeof names / sizeof names[0])
      return false;
    *fields[i] = (int)v;
    spec += len;
    if (*spec == ',')
      spec++;
  }
  return true;
}

void hop_ocl_generic_params(const struct hop_ocl_device *d, struct hop_ocl_params *p, char *why,
                            size_t len)
{
  size_t i = 0;
  while (defaults[i].type != 0 && (d->type & defaults[i].type) == 0)
    i++;
  *p = defaults[i].p;
  snprintf(why, len, "%s", defaults[i].why);
  if (!hop_ocl_generic_params_fit(d, p, NULL, 0)) {
    *p = safe_params;
    snprintf(why, len, "smallest tiles: the default does not fit this device");
  }
  const char *spec = hop_config_get("HOPBLAS_OPENCL_PARAMS");
  if (spec == NULL || *spec == '\0')
    return;
  struct hop_ocl_params asked = *p;
  char bad[120];
  if (!parse_params(spec, &asked)) {
    hop_log(1, "HOPBLAS_OPENCL_PARAMS=%.80s is not NAME=N,... (MWG NWG KWG MDIMC NDIMC VWM VWN "
               "VWL PADA PADB); using the default", spec);
  } else if (!hop_ocl_generic_params_fit(d, &asked, bad, sizeof bad)) {
    hop_log(1, "HOPBLAS_OPENCL_PARAMS=%.80s: %s; using the default", spec, bad);
  } else {
    *p = asked;
    snprintf(why, len, "HOPBLAS_OPENCL_PARAMS");
  }
}

void hop_ocl_generic_options(const struct hop_ocl_params *p, char *buf, size_t len)
{
  /* Never -cl-fast-relaxed-math: NaN and Inf must propagate as in the reference. */
  snprintf(buf, len,
           "-cl-std=CL1.2 -DMWG=%d -DNWG=%d -DKWG=%d -DMDIMC=%d -DNDIMC=%d -DVWM=%d -DVWN=%d "
           "-DVWL=%d -DPADA=%d -DPADB=%d",
           p->mwg, p->nwg, p->kwg, p->mdimc, p->ndimc, p->vwm, p->vwn, p->vwl, p->pada, p->padb);
}

const char *hop_ocl_generic_kernel_name(enum hop_ocl_kernel k)
{
  static const char *const names[HOP_OCL_KERNELS] = {
    [HOP_OCL_SGEMM] = "sgemm_generic_tiled",
    [HOP_OCL_HGEMM] = "hgemm_generic_tiled",
    [HOP_OCL_SHGEMM] = "shgemm_generic_tiled",
    [HOP_OCL_DGEMM] = "dgemm_generic_tiled",
    [HOP_OCL_SGEMM_BATCH] = "sgemm_batched_generic",
    [HOP_OCL_DGEMM_BATCH] = "dgemm_batched_generic",
  };
  return names[k];
}

cl_int hop_ocl_generic_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l,
                               cl_uint nwait, const cl_event *wait, cl_event *done)
{
  /* The double kernel has tiles of its own (program.c). */
  const struct hop_ocl_params *p =
    l->kernel == HOP_OCL_DGEMM ? &st->prog.fp64_params : &st->prog.params;
  return hop_ocl_generic_enqueue_with(st, st->prog.kernel[l->kernel], p, l, 1, nwait, wait, done);
}

/* Any kernel with the generic signature: local (MDIMC, NDIMC), one
 * work-group per MWG x NWG tile of C (the nvidia family's kernels too),
 * times `slices` along a third dimension. */
cl_int hop_ocl_generic_enqueue_with(struct hop_ocl_state *st, cl_kernel kn,
                                    const struct hop_ocl_params *p, const struct hop_ocl_launch *l,
                                    cl_uint slices, cl_uint nwait, const cl_event *wait,
                                    cl_event *done)
{
  cl_int ta = l->ta, tb = l->tb;
  cl_int err = 0;
  cl_uint i = 0;
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->m);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->n);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->k);
  bool fp64 = l->kernel == HOP_OCL_DGEMM;
  if (fp64)
    err |= clSetKernelArg(kn, i++, sizeof(cl_double), &l->alpha_d);
  else
    err |= clSetKernelArg(kn, i++, sizeof(cl_float), &l->alpha);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &l->a);
  err |= clSetKernelArg(kn, i++, sizeof(cl_ulong), &l->a_off);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->lda);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &ta);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &l->b);
  err |= clSetKernelArg(kn, i++, sizeof(cl_ulong), &l->b_off);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->ldb);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &tb);
  if (fp64)
    err |= clSetKernelArg(kn, i++, sizeof(cl_double), &l->beta_d);
  else
    err |= clSetKernelArg(kn, i++, sizeof(cl_float), &l->beta);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &l->cin);
  err |= clSetKernelArg(kn, i++, sizeof(cl_ulong), &l->cin_off);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->ldcin);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &l->cout);
  err |= clSetKernelArg(kn, i++, sizeof(cl_ulong), &l->cout_off);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->ldcout);
  if (err != CL_SUCCESS)
    return CL_INVALID_KERNEL_ARGS;
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_ENQUEUE))
    return CL_OUT_OF_RESOURCES;
  size_t local[3] = {(size_t)p->mdimc, (size_t)p->ndimc, 1};
  size_t global[3] = {((size_t)l->m + (size_t)p->mwg - 1) / (size_t)p->mwg * local[0],
                      ((size_t)l->n + (size_t)p->nwg - 1) / (size_t)p->nwg * local[1], slices};
  return clEnqueueNDRangeKernel(st->q[HOP_OCL_Q_EXEC], kn, slices > 1 ? 3 : 2, NULL, global,
                                local, nwait, nwait ? wait : NULL, done);
}

/* ---- the generic family: these kernels as they are ----------------------- */

static const char *const generic_sources[] = {"gemm_generic.cl", NULL};

static void generic_options(const struct hop_ocl_state *st, const struct hop_ocl_params *p,
                            char *buf, size_t len)
{
  (void)st;
  hop_ocl_generic_options(p, buf, len);
}

static size_t generic_group_items(const struct hop_ocl_program *pr)
{
  return (size_t)pr->params.mdimc * (size_t)pr->params.ndimc;
}

/* Columns [col0, col0 + cols) of C: the same kernel over a narrower C and
 * the matching columns of op(B). */
struct hop_ocl_launch hop_ocl_generic_slab(const struct hop_ocl_launch *l, int col0, int cols)
{
  struct hop_ocl_launch s = *l;
  s.n = cols;
  s.diag = l->diag + col0;
  s.b_off += l->tb ? (cl_ulong)col0 : (cl_ulong)col0 * (cl_ulong)l->ldb;
  s.cin_off += (cl_ulong)col0 * (cl_ulong)l->ldcin;
  s.cout_off += (cl_ulong)col0 * (cl_ulong)l->ldcout;
  return s;
}

struct hop_ocl_launch hop_ocl_generic_rows(const struct hop_ocl_launch *l, int row0, int rows)
{
  struct hop_ocl_launch s = *l;
  s.m = rows;
  s.diag = l->diag - row0;
  s.a_off += l->ta ? (cl_ulong)row0 * (cl_ulong)l->lda : (cl_ulong)row0;
  s.cin_off += (cl_ulong)row0;
  s.cout_off += (cl_ulong)row0;
  return s;
}

static cl_int generic_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l, int col0,
                              int cols, cl_uint nwait, const cl_event *wait, cl_event *done)
{
  struct hop_ocl_launch s = hop_ocl_generic_slab(l, col0, cols);
  return hop_ocl_generic_enqueue(st, &s, nwait, wait, done);
}

static int generic_col_grain(const struct hop_ocl_state *st) { return st->prog.params.nwg; }

/* Any device: the last of family.c's table. */
static bool generic_match(const struct hop_ocl_device *d, char *why, size_t len)
{
  snprintf(why, len, "device \"%.60s\" is neither Adreno, Mali nor NVIDIA", d->name);
  return true;
}

static void generic_note(const struct hop_ocl_state *st, const struct hop_call *g,
                         const char *waits, char *buf, size_t len)
{
  (void)g;
  snprintf(buf, len, "family=generic launches=%ld%s", st->window.launches, waits);
}

const struct hop_ocl_family hop_ocl_family_generic = {
  .name = "generic",
  .match = generic_match,
  .tuning = &hop_tune_space_generic,
  .sources = generic_sources,
  .options = generic_options,
  .kernel_name = hop_ocl_generic_kernel_name,
  .group_items = generic_group_items,
  .enqueue = generic_enqueue,
  .col_grain = generic_col_grain,
  .note = generic_note,
};
