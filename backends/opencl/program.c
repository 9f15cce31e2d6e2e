/* The kernel family's program (family.c), or its programs for a family of
 * several (nvidia): built once per process, on the first call that reaches
 * the device, each from the on-disk binary cache when a valid entry
 * exists, else from the embedded source (then stored).  A failed
 * build is reported once (the router's line for that call) and the engine
 * declines quietly afterwards. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

/* Everything that changes the binary; label names the program (its family,
 * and the part of a family of several). */
static void cache_key(const struct hop_ocl_device *d, const char *label, const char *src,
                      const char *options, char *key, size_t len)
{
  snprintf(key, len,
           "device=%s\nvendor=%s\ndevice-version=%s\ndriver=%s\nlibrary=%s %s\n"
           "source=%s %016" PRIx64 "\noptions=%s\n",
           d->name, d->vendor, d->version, d->driver, PACKAGE_NAME, PACKAGE_VERSION, label,
           hop_hash_fnv1a(src, strlen(src), HOP_HASH_SEED), options);
}

/* First line of the build log, for the one line that explains a failure. */
static void build_log_line(cl_program prog, cl_device_id dev, char *out, size_t len)
{
  size_t need = 0;
  char *log = NULL;
  out[0] = '\0';
  if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &need) != CL_SUCCESS ||
      need == 0 || (log = malloc(need)) == NULL)
    return;
  if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, need, log, NULL) == CL_SUCCESS) {
    log[need - 1] = '\0';
    const char *p = log;
    while (*p == '\n' || *p == ' ')
      p++;
    /* "error: /tmp/x/tempfile.cl:21:3: msg" (PoCL): the line and column will do. */
    const char *at = strstr(p, ".cl:");
    if (at != NULL && at < p + strcspn(p, "\n"))
      p = at + 4;
    snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
  }
  free(log);
}

static cl_program from_cache(struct hop_ocl_state *st, const char *key, const char *options)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  unsigned char *bin = NULL;
  size_t len = 0;
  if (!hop_ocl_cache_load(key, &bin, &len))
    return NULL;
  const unsigned char *bins[1] = {bin};
  cl_int err, status;
  cl_program prog = clCreateProgramWithBinary(st->ctx, 1, &d->id, &len, bins, &status, &err);
  free(bin);
  if (err == CL_SUCCESS && status == CL_SUCCESS &&
      clBuildProgram(prog, 1, &d->id, options, NULL, NULL) == CL_SUCCESS)
    return prog;
  hop_log(2, "opencl: the cached program binary was refused by the driver; rebuilding");
  if (prog != NULL)
    clReleaseProgram(prog);
  return NULL;
}

static void to_cache(cl_program prog, const char *key)
{
  size_t len = 0;
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) != CL_SUCCESS ||
      len == 0)
    return;
  unsigned char *bin = malloc(len);
  unsigned char *bins[1] = {bin};
  if (bin != NULL &&
      clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
    hop_ocl_cache_store(key, bin, len);
  free(bin);
}

static cl_program from_source(struct hop_ocl_state *st, const char *src, const char *options,
                              char *why, size_t len)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  cl_int err;
  cl_program prog = clCreateProgramWithSource(st->ctx, 1, &src, NULL, &err);
  if (err != CL_SUCCESS) {
    snprintf(why, len, "clCreateProgramWithSource failed (error %d)", (int)err);
    return NULL;
  }
  err = clBuildProgram(prog, 1, &d->id, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char line[160];
    build_log_line(prog, d->id, line, sizeof line);
    snprintf(why, len, "build failed (error %d)%s%s", (int)err, line[0] ? ": " : "", line);
    clReleaseProgram(prog);
    return NULL;
  }
  return prog;
}

/* The kernels names[] (NULL: none in this slot) of a built program; false
 * (why) if one is missing or cannot run a work-group of `items`. */
static bool make_kernels(struct hop_ocl_state *st, cl_program prog, const char *const *names,
                         size_t items, cl_kernel *out, char *why, size_t len)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  for (int k = 0; k < HOP_OCL_KERNELS; k++) {
    if (names[k] == NULL)
      continue;
    cl_int err;
    out[k] = clCreateKernel(prog, names[k], &err);
    size_t wg = 0;
    if (err == CL_SUCCESS)
      err = clGetKernelWorkGroupInfo(out[k], d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                     NULL);
    if (err != CL_SUCCESS) {
      snprintf(why, len, "kernel %s: error %d", names[k], (int)err);
      return false;
    }
    if (wg < items) {
      snprintf(why, len, "kernel %s runs at most %zu work-items per group, %zu asked", names[k], wg,
               items);
      return false;
    }
  }
  return true;
}

/* A program from the binary cache, else from source; *cached says which,
 * key is what to store it under once its kernels are made. */
static cl_program obtain(struct hop_ocl_state *st, const char *label, const char *src,
                         const char *options, char *key, size_t key_len, bool *cached, char *why,
                         size_t len)
{
  cache_key(hop_ocl_device(st), label, src, options, key, key_len);
  cl_program prog = from_cache(st, key, options);
  *cached = prog != NULL;
  return *cached ? prog : from_source(st, src, options, why, len);
}

cl_program hop_ocl_program_build(struct hop_ocl_state *st, const char *label, const char *src,
                                 const char *options, char *why, size_t len)
{
  char key[2048];
  bool cached;
  cl_program prog = obtain(st, label, src, options, key, sizeof key, &cached, why, len);
  if (prog != NULL && !cached)
    to_cache(prog, key);
  return prog;
}

cl_program hop_ocl_program_aux(struct hop_ocl_state *st, const char *label,
                               const char *const *files, const char *options, char *why,
                               size_t len)
{
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_BUILD)) { /* as if from source or cache */
    snprintf(why, len, "build failed (injected by HOPBLAS_OPENCL_FAULT)");
    return NULL;
  }
  char *src = hop_ocl_source_join(files, why, len);
  cl_program prog = src ? hop_ocl_program_build(st, label, src, options, why, len) : NULL;
  free(src);
  return prog;
}

/* The family's dgemm kernel, from the same source built with -DHOP_FP64,
 * where the family has one and the device cl_khr_fp64.  Without it the
 * engine declines d and z; pr->fp64 says why (`hopblas info`).  Built on
 * the first d or z call, with the family's default tiles (not the float
 * kernels' tuned ones: twice the local memory, and a driver's compiler may
 * fail on them), so that a float-only program never pays for it. */
static void build_fp64(struct hop_ocl_state *st, const struct hop_ocl_family *f,
                       const struct hop_ocl_params *params)
{
  struct hop_ocl_program *pr = &st->prog;
  const char *name = f->kernel_name(HOP_OCL_DGEMM);
  char options[512], srcwhy[80];
  f->options(st, params, options, sizeof options);
  char *src = hop_ocl_family_source(f, srcwhy, sizeof srcwhy);
  if (name == NULL) {
    snprintf(pr->fp64, sizeof pr->fp64, "no: the %s family has no double kernel", f->name);
  } else if (!hop_ocl_has_extension(hop_ocl_device(st), "cl_khr_fp64")) {
    snprintf(pr->fp64, sizeof pr->fp64, "no: the device lacks cl_khr_fp64");
  } else if (src == NULL) {
    snprintf(pr->fp64, sizeof pr->fp64, "no: the kernel source is missing");
  } else {
    char opts[600], label[64], key[2048], why[200] = "";
    snprintf(opts, sizeof opts, "%s -DHOP_FP64", options);
    snprintf(label, sizeof label, "%s/fp64", f->name);
    bool cached;
    cl_program prog = obtain(st, label, src, opts, key, sizeof key, &cached, why, sizeof why);
    const char *names[HOP_OCL_KERNELS] = {
      [HOP_OCL_DGEMM] = name, [HOP_OCL_DGEMM_BATCH] = f->kernel_name(HOP_OCL_DGEMM_BATCH)};
    size_t items = (size_t)params->mdimc * (size_t)params->ndimc;
    if (prog != NULL && make_kernels(st, prog, names, items, pr->kernel, why, sizeof why)) {
      if (!cached)
        to_cache(prog, key);
      snprintf(pr->fp64, sizeof pr->fp64, "yes (%s)", name);
    } else {
      for (int k = 0; k < HOP_OCL_KERNELS; k++) /* made, but cannot run the work-group */
        if (hop_ocl_kernel_fp64((enum hop_ocl_kernel)k) && pr->kernel[k] != NULL) {
          clReleaseKernel(pr->kernel[k]);
          pr->kernel[k] = NULL;
        }
      snprintf(pr->fp64, sizeof pr->fp64, "no: %s", why);
      hop_log(2, "opencl: the %s double program: %s; d and z go to other engines", f->name, why);
    }
    if (prog != NULL)
      clReleaseProgram(prog); /* the kernel keeps it */
  }
  free(src);
}

static void build_fp64_units(struct hop_ocl_state *st);
static void release(cl_program *prog, cl_kernel *kernel);

bool hop_ocl_program_fp64(struct hop_ocl_state *st)
{
  struct hop_ocl_program *pr = &st->prog;
  if (pr->fp64_tried)
    return hop_ocl_program_has(pr, HOP_OCL_DGEMM);
  pr->fp64_tried = true;
  if (st->family->units != NULL) {
    build_fp64_units(st);
    return hop_ocl_program_has(pr, HOP_OCL_DGEMM);
  }
  char why[120];
  hop_ocl_generic_params(hop_ocl_device(st), &pr->fp64_params, why, sizeof why);
  build_fp64(st, st->family, &pr->fp64_params);
  return pr->kernel[HOP_OCL_DGEMM] != NULL;
}

/* One attempt with one parameter set. */
static enum hop_status build_with(struct hop_ocl_state *st, const struct hop_ocl_params *params,
                                  char *why, size_t len)
{
  struct hop_ocl_program *pr = &st->prog;
  const struct hop_ocl_family *f = st->family;
  char *src = hop_ocl_family_source(f, why, len);
  if (src == NULL)
    return HOP_ERR_INTERNAL;
  char options[512], key[2048];
  f->options(st, params, options, sizeof options);
  pr->params = *params;
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_BUILD)) { /* as if from source or cache */
    free(src);
    snprintf(why, len, "build failed (injected by HOPBLAS_OPENCL_FAULT)");
    return HOP_ERR_BUILD;
  }
  double t0 = hop_now();
  bool cached;
  pr->program = obtain(st, f->name, src, options, key, sizeof key, &cached, why, len);
  free(src);
  if (pr->program == NULL)
    return HOP_ERR_BUILD;
  const char *names[HOP_OCL_KERNELS];
  for (int k = 0; k < HOP_OCL_KERNELS; k++)
    names[k] = hop_ocl_kernel_fp64((enum hop_ocl_kernel)k) ? NULL : f->kernel_name(k);
  if (!make_kernels(st, pr->program, names, f->group_items(pr), pr->kernel, why, len)) {
    hop_ocl_program_release(pr);
    return HOP_ERR_BUILD;
  }
  if (!cached)
    to_cache(pr->program, key);
  pr->fp64_tried = false; /* built on the first double call (hop_ocl_program_fp64) */
  snprintf(pr->fp64, sizeof pr->fp64, "built on the first dgemm or zgemm");
  snprintf(pr->origin, sizeof pr->origin, "%s in %.2f s",
           cached ? "loaded from the binary cache" : "built from source", hop_now() - t0);
  hop_log(2, "opencl: %s program %s", f->name, pr->origin);
  return HOP_OK;
}

/* Program u of a family of several, built (or loaded) and cached on its own;
 * false with why.  *cached says whether it came from the binary cache. */
static bool build_unit(struct hop_ocl_state *st, const struct hop_ocl_unit_spec *spec, int u,
                       bool *cached, char *why, size_t len)
{
  struct hop_ocl_program *pr = &st->prog;
  struct hop_ocl_unit *un = &pr->unit[u];
  char label[64], key[2048], sub[200] = "";
  *cached = false;
  snprintf(label, sizeof label, "%s/%s", st->family->name, spec->name);
  char *src = hop_ocl_source_join(spec->sources, sub, sizeof sub);
  if (src != NULL)
    un->program = obtain(st, label, src, spec->options, key, sizeof key, cached, sub, sizeof sub);
  free(src);
  un->params = spec->params;
  size_t items = (size_t)un->params.mdimc * (size_t)un->params.ndimc;
  if (un->program == NULL ||
      !make_kernels(st, un->program, spec->kernel, items, un->kernel, sub, sizeof sub)) {
    snprintf(why, len, "%s: %s", spec->name, sub);
    return false;
  }
  if (!*cached)
    to_cache(un->program, key);
  return true;
}

/* A family of several programs: each built (or loaded) and cached on its
 * own; the double ones wait for the first d or z call. */
static enum hop_status build_units(struct hop_ocl_state *st, char *why, size_t len)
{
  struct hop_ocl_program *pr = &st->prog;
  const struct hop_ocl_family *f = st->family;
  struct hop_ocl_unit_spec spec[HOP_OCL_UNITS];
  int n = f->units(st, spec), hits = 0, built = 0;
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_BUILD)) {
    snprintf(why, len, "build failed (injected by HOPBLAS_OPENCL_FAULT)");
    return HOP_ERR_BUILD;
  }
  double t0 = hop_now();
  char names[160] = "";
  for (int u = 0; u < n; u++) {
    pr->units = u + 1;
    if (spec[u].fp64) /* its slot stays empty until then: no launch picks it */
      continue;
    bool cached;
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", built ? ", " : "",
             spec[u].name);
    if (!build_unit(st, &spec[u], u, &cached, why, len)) {
      hop_ocl_program_release(pr);
      return HOP_ERR_BUILD;
    }
    built++;
    hits += cached;
  }
  snprintf(pr->origin, sizeof pr->origin, "%d programs (%s) %s in %.2f s", built, names,
           hits == built ? "loaded from the binary cache"
           : hits == 0   ? "built from source"
                         : "built from source and the binary cache",
           hop_now() - t0);
  hop_log(2, "opencl: %s programs: %s", f->name, pr->origin);
  return HOP_OK;
}

/* The double programs of a family of several; a failure leaves d and z to
 * other engines, never the float programs. */
static void build_fp64_units(struct hop_ocl_state *st)
{
  struct hop_ocl_program *pr = &st->prog;
  struct hop_ocl_unit_spec spec[HOP_OCL_UNITS];
  int n = st->family->units(st, spec);
  char why[240] = "", names[120] = "";
  for (int u = 0; u < n && u < pr->units; u++) {
    bool cached;
    if (!spec[u].fp64)
      continue;
    if (!build_unit(st, &spec[u], u, &cached, why, sizeof why)) {
      hop_log(2, "opencl: the %s double program %s; d and z go to other engines",
              st->family->name, why);
      release(&pr->unit[u].program, pr->unit[u].kernel);
      continue;
    }
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "",
             spec[u].name);
  }
  if (names[0] != '\0')
    snprintf(pr->fp64, sizeof pr->fp64, "yes (%s)", names);
  else
    snprintf(pr->fp64, sizeof pr->fp64, "no: %s",
             why[0] ? why : "the family has no double program for this device");
}

bool hop_ocl_program_has(const struct hop_ocl_program *pr, enum hop_ocl_kernel k)
{
  if (pr->kernel[k] != NULL)
    return true;
  for (int u = 0; u < pr->units; u++)
    if (pr->unit[u].kernel[k] != NULL)
      return true;
  return false;
}

enum hop_status hop_ocl_program_ready(struct hop_ocl_state *st)
{
  struct hop_ocl_program *pr = &st->prog;
  if (pr->tried)
    return pr->status == HOP_OK ? HOP_OK : HOP_DECLINED;
  pr->tried = true;
  char why[240] = "";
  if (st->family->units != NULL) {
    pr->status = build_units(st, why, sizeof why);
    pr->fp64_tried = false;
    if (!hop_ocl_has_extension(hop_ocl_device(st), "cl_khr_fp64"))
      snprintf(pr->fp64, sizeof pr->fp64, "no: the device lacks cl_khr_fp64");
    else
      snprintf(pr->fp64, sizeof pr->fp64, "built on the first dgemm or zgemm");
  }
  else
    pr->status = build_with(st, &st->params, why, sizeof why);
  /* Kernels that cannot run the asked work-group: once more with the smallest tiles. */
  if (pr->status == HOP_ERR_BUILD && st->family->units == NULL &&
      strstr(why, "work-items") != NULL) {
    static const struct hop_ocl_params smallest = {32, 32, 16, 8, 8, 4, 4, 4, 0, 0};
    hop_log(2, "opencl: %s; retrying with the smallest tiles", why);
    st->params = smallest;
    snprintf(st->params_why, sizeof st->params_why, "smallest tiles (the default did not run)");
    pr->status = build_with(st, &st->params, why, sizeof why);
  }
  if (pr->status != HOP_OK) {
    snprintf(pr->origin, sizeof pr->origin, "failed: %s", why);
    hop_log(2, "opencl: %s program %s", st->family->name, pr->origin);
  }
  return pr->status;
}

static void release(cl_program *prog, cl_kernel *kernel)
{
  for (int k = 0; k < HOP_OCL_KERNELS; k++)
    if (kernel[k] != NULL) {
      clReleaseKernel(kernel[k]);
      kernel[k] = NULL;
    }
  if (*prog != NULL) {
    clReleaseProgram(*prog);
    *prog = NULL;
  }
}

void hop_ocl_program_release(struct hop_ocl_program *p)
{
  p->fp64_tried = false;
  release(&p->program, p->kernel);
  for (int u = 0; u < p->units; u++)
    release(&p->unit[u].program, p->unit[u].kernel);
  p->units = 0;
}
