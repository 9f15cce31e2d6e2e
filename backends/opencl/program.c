/* The kernel family's program (family.c): built once per process, on the first call
 * that reaches the device, from the on-disk binary cache when a valid
 * entry exists, else from the embedded source (then stored).  A failed
 * build is reported once (the router's line for that call) and the engine
 * declines quietly afterwards. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "family.h"

/* Everything that changes the binary. */
static void cache_key(const struct hop_ocl_device *d, const char *family, const char *src,
                      const char *options, char *key, size_t len)
{
  snprintf(key, len,
           "device=%s\nvendor=%s\ndevice-version=%s\ndriver=%s\nlibrary=%s %s\n"
           "source=%s %016" PRIx64 "\noptions=%s\n",
           d->name, d->vendor, d->version, d->driver, PACKAGE_NAME, PACKAGE_VERSION, family,
           hop_ocl_hash(src, strlen(src), HOP_OCL_HASH_SEED), options);
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

/* Kernels of a built program; false (why) if one is missing or cannot run
 * with the work-group the parameters ask for. */
static bool make_kernels(struct hop_ocl_state *st, struct hop_ocl_program *pr, char *why,
                         size_t len)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  const struct hop_ocl_family *f = st->family;
  size_t items = f->group_items(pr);
  for (int k = 0; k < HOP_OCL_KERNELS; k++) {
    cl_int err;
    pr->kernel[k] = clCreateKernel(pr->program, f->kernel_name(k), &err);
    size_t wg = 0;
    if (err == CL_SUCCESS)
      err = clGetKernelWorkGroupInfo(pr->kernel[k], d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                     &wg, NULL);
    if (err != CL_SUCCESS) {
      snprintf(why, len, "kernel %s: error %d", f->kernel_name(k), (int)err);
      return false;
    }
    if (wg < items) {
      snprintf(why, len, "kernel %s runs at most %zu work-items per group, %zu asked",
               f->kernel_name(k), wg, items);
      return false;
    }
  }
  return true;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
  cache_key(hop_ocl_device(st), f->name, src, options, key, sizeof key);
  pr->params = *params;
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_BUILD)) { /* as if from source or cache */
    free(src);
    snprintf(why, len, "build failed (injected by HOPBLAS_OPENCL_FAULT)");
    return HOP_ERR_BUILD;
  }
  double t0 = now();
  pr->program = from_cache(st, key, options);
  bool cached = pr->program != NULL;
  if (!cached)
    pr->program = from_source(st, src, options, why, len);
  free(src);
  if (pr->program == NULL)
    return HOP_ERR_BUILD;
  if (!make_kernels(st, pr, why, len)) {
    hop_ocl_program_release(pr);
    return HOP_ERR_BUILD;
  }
  if (!cached)
    to_cache(pr->program, key);
  snprintf(pr->origin, sizeof pr->origin, "%s in %.2f s",
           cached ? "loaded from the binary cache" : "built from source", now() - t0);
  hop_log(2, "opencl: %s program %s", f->name, pr->origin);
  return HOP_OK;
}

enum hop_status hop_ocl_program_ready(struct hop_ocl_state *st)
{
  struct hop_ocl_program *pr = &st->prog;
  if (pr->tried)
    return pr->status == HOP_OK ? HOP_OK : HOP_DECLINED;
  pr->tried = true;
  char why[240] = "";
  pr->status = build_with(st, &st->params, why, sizeof why);
  /* Kernels that cannot run the asked work-group: once more with the smallest tiles. */
  if (pr->status == HOP_ERR_BUILD && strstr(why, "work-items") != NULL) {
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

void hop_ocl_program_release(struct hop_ocl_program *p)
{
  for (int k = 0; k < HOP_OCL_KERNELS; k++)
    if (p->kernel[k] != NULL) {
      clReleaseKernel(p->kernel[k]);
      p->kernel[k] = NULL;
    }
  if (p->program != NULL) {
    clReleaseProgram(p->program);
    p->program = NULL;
  }
}
