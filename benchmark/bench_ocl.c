/* Device-side engines of the benchmark.  Resident mode keeps A, B and C in
 * device buffers and times the kernel alone (launch to finish, no
 * transfers): hopblas's kernels through the engine's resident entries
 * (core/engine_tools.h: the engine places the operands, an image family
 * packing them once, before the timing), and CLBlast's
 * CLBlast's ?gemm on the engine's own context and queue.  A complex case
 * on hopblas's kernels is the real GEMM of its real embedding
 * (core/complex_real.c): the planes are written on the host, that real
 * GEMM alone is timed on device buffers of them, and C = alpha P + beta C
 * is formed on the host once, for the check; the note says so.
 * CLBlast also has a host mode: buffers created, written and read back on
 * every call, as its netlib wrapper does.  libclblast is loaded at run
 * time (Debian libclblast1), so the build does not need it. */
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "engine_tools.h"
#include "hop.h"

/* The case as an engine sees a call: dense column-major operands, C in
 * d->c (holding C0 once bench_data_reset_c has run). */
static struct hop_call case_call(struct bench_data *d)
{
  const struct bench_case *c = &d->cs;
  return (struct hop_call){.dtype = c->dtype, .symbol = "bench", .ta = c->ta,
                           .tb = c->tb, .m = c->m, .n = c->n, .k = c->k, .alpha = {c->alpha, 0.0},
                           .beta = {c->beta, 0.0}, .a = d->a, .lda = c->ta ? c->k : c->m, .b = d->b,
                           .ldb = c->tb ? c->n : c->k, .c = d->c, .ldc = c->m};
}

/* The first call's C back on the host, checked; then the timed calls. */
static void measure(bool (*call)(void *), void *arg, bool (*read)(void *, void *),
                    const char **failed, struct bench_data *d, const struct bench_opts *o,
                    struct bench_result *r)
{
  if (!call(arg) || !read(arg, d->c)) {
    r->skipped = true;
    if (r->note[0] == '\0')
      snprintf(r->note, sizeof r->note, "failed: %s", *failed ? *failed : "read-back");
    return;
  }
  bench_check(d, d->c, r);
  if (!bench_time(call, arg, o, r))
    r->skipped = true;
}

/* ---- hopblas's own kernels, through the engine's resident entries ----------------- */

static const struct hop_engine_tools *rt; /* the engine of this child */
static void *rt_state;

bool bench_resident_open(const char *name, char *why, size_t len)
{
  size_t i = hop_engine_index(name);
  if (i == hop_backend_count || hop_backends[i]->tools == NULL ||
      hop_backends[i]->tools->resident_open == NULL) {
    snprintf(why, len, "the %s engine has no resident mode", name);
    return false;
  }
  struct hop_engine_view v;
  hop_engine_get(i, &v);
  if (v.status != HOP_OK) {
    snprintf(why, len, "%s engine off: %s", hop_backends[i]->tools->title, v.why);
    return false;
  }
  rt = hop_backends[i]->tools;
  rt_state = v.state;
  return rt->resident_ready == NULL || rt->resident_ready(rt_state, why, len);
}

struct resident_run {
  struct hop_resident *res;
  const char *failed;
};

static bool resident_call(void *arg)
{
  struct resident_run *rr = arg;
  return rt->resident_call(rr->res, &rr->failed);
}

static bool resident_read(void *arg, void *c)
{
  return rt->resident_read(((struct resident_run *)arg)->res, c);
}

/* The real call on device buffers, its first result read back into
 * g->c, then the timed calls; false (the case skipped) when it could not run. */
static bool resident_time(const struct hop_call *g, const struct bench_opts *o,
                          struct bench_result *r)
{
  struct resident_run rr = {rt->resident_open(rt_state, g, r->note, sizeof r->note), NULL};
  if (rr.res == NULL)
    return false;
  bool ok = resident_call(&rr) && resident_read(&rr, g->c) && bench_time(resident_call, &rr, o, r);
  if (!ok && r->note[0] == '\0')
    snprintf(r->note, sizeof r->note, "failed: %s", rr.failed ? rr.failed : "read-back");
  if (ok && r->note[0] == '\0')
    rt->resident_note(rr.res, r->note, sizeof r->note);
  rt->resident_close(rr.res);
  return ok;
}

struct complex_run {
  const struct bench_opts *o;
  struct bench_result *r;
  int m, n, k; /* the real call's shape */
};

/* hop_complex_by_real's real call: timed resident, its C' left in the planes. */
static enum hop_status complex_real_call(void *arg, const struct hop_call *real)
{
  struct complex_run *cr = arg;
  cr->m = real->m, cr->n = real->n, cr->k = real->k;
  return resident_time(real, cr->o, cr->r) ? HOP_OK : HOP_ERR_DEVICE;
}

void bench_resident_run(const char *name, enum bench_mode mode, struct bench_data *d,
                        const struct bench_opts *o, struct bench_result *r)
{
  bench_data_reset_c(d);
  struct hop_call g = case_call(d); /* C0 goes up; the result comes back into d->c */
  bool cplx = hop_dtype_info(g.dtype)->is_complex;
  struct complex_run cr = {o, r, 0, 0, 0};
  bool ok = cplx ? hop_complex_by_real(&g, complex_real_call, &cr, false) == HOP_OK
                 : resident_time(&g, o, r);
  if (!ok) {
    r->skipped = true;
    if (r->note[0] == '\0')
      snprintf(r->note, sizeof r->note, "the real embedding could not be made (memory)");
    return;
  }
  bench_check(d, d->c, r);
  if (cplx) {
    char what[96];
    snprintf(what, sizeof what, "%s", r->note);
    snprintf(r->note, sizeof r->note, "real %dx%dx%d %sgemm of the planes timed; %.50s", cr.m, cr.n,
             cr.k, g.dtype == HOP_DTYPE_Z ? "d" : "s", what);
  }
}

/* ---- CLBlast, on the engine's context and queue -------------------------------------- */

static cl_context cl_ctx;
static cl_command_queue cl_queue;
static cl_device_id cl_dev;

/* A, B and C in device buffers; C holds C0. */
struct resident {
  struct bench_data *d;
  cl_mem a, b, c;
  cl_command_queue q;
  const char *failed;
};

static void resident_free(struct resident *r)
{
  if (r->a != NULL)
    clReleaseMemObject(r->a);
  if (r->b != NULL)
    clReleaseMemObject(r->b);
  if (r->c != NULL)
    clReleaseMemObject(r->c);
}

static cl_mem upload(const void *host, size_t bytes, cl_int *err)
{
  cl_mem m = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, err);
  if (*err == CL_SUCCESS)
    *err = clEnqueueWriteBuffer(cl_queue, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
  return m;
}

static bool resident_make(struct resident *r, struct bench_data *d)
{
  size_t eab = hop_dtype_ab_size(d->cs.dtype), ec = hop_dtype_c_size(d->cs.dtype);
  cl_int e1 = CL_SUCCESS, e2 = CL_SUCCESS, e3 = CL_SUCCESS;
  memset(r, 0, sizeof *r);
  r->d = d;
  r->q = cl_queue;
  r->a = upload(d->a, d->a_elems * eab, &e1);
  r->b = upload(d->b, d->b_elems * eab, &e2);
  r->c = upload(d->c0, d->c_elems * ec, &e3);
  return e1 == CL_SUCCESS && e2 == CL_SUCCESS && e3 == CL_SUCCESS;
}

static bool resident_read_c(void *arg, void *c)
{
  struct resident *res = arg;
  struct bench_data *d = res->d;
  return clEnqueueReadBuffer(res->q, res->c, CL_TRUE, 0, d->c_elems * hop_dtype_c_size(d->cs.dtype),
                             c, 0, NULL, NULL) == CL_SUCCESS;
}

/* The engine whose device CLBlast shares: the first in the registry that
 * hands out its OpenCL handles. */
static bool handles_up(char *why, size_t len)
{
  for (size_t i = 0; i < hop_backend_count; i++) {
    const struct hop_backend *be = hop_backends[i];
    if (be->tools == NULL || be->tools->opencl_handles == NULL)
      continue;
    struct hop_engine_view v;
    hop_engine_get(i, &v);
    if (v.status != HOP_OK) {
      snprintf(why, len, "%s engine off: %s", be->tools->title, v.why);
      return false;
    }
    void *ctx, *q, *dev;
    if (!be->tools->opencl_handles(v.state, &ctx, &q, &dev))
      break;
    cl_ctx = ctx, cl_queue = q, cl_dev = dev;
    return true;
  }
  snprintf(why, len, "no OpenCL engine");
  return false;
}

/* CLBlast's hgemm needs half arithmetic, its dgemm and zgemm double (words
 * of CL_DEVICE_EXTENSIONS). */
static bool has_extension(const char *word)
{
  size_t need = 0;
  char *all = NULL;
  bool found = false;
  if (clGetDeviceInfo(cl_dev, CL_DEVICE_EXTENSIONS, 0, NULL, &need) != CL_SUCCESS || need == 0 ||
      (all = calloc(need + 2, 1)) == NULL)
    return false;
  all[0] = ' ';
  if (clGetDeviceInfo(cl_dev, CL_DEVICE_EXTENSIONS, need, all + 1, NULL) == CL_SUCCESS) {
    all[need] = ' ';
    char padded[64];
    snprintf(padded, sizeof padded, " %s ", word);
    found = strstr(all, padded) != NULL;
  }
  free(all);
  return found;
}

/* CLBlast's C API: one signature, the scalar type of each precision. */
#define CLBLAST_GEMM(name, scalar)                                                                \
  static int (*name)(int, int, int, size_t, size_t, size_t, scalar, cl_mem, size_t, size_t, cl_mem, \
                     size_t, size_t, scalar, cl_mem, size_t, size_t, cl_command_queue *, cl_event *)
CLBLAST_GEMM(clblast_sgemm, float);
CLBLAST_GEMM(clblast_hgemm, cl_half);
CLBLAST_GEMM(clblast_dgemm, double);
CLBLAST_GEMM(clblast_cgemm, cl_float2);
CLBLAST_GEMM(clblast_zgemm, cl_double2);
static int clblast_status;

bool bench_clblast_open(const char *name, char *why, size_t len)
{
  const char *path = getenv("CLBLAST_LIB") ? getenv("CLBLAST_LIB") : "libclblast.so.1";
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h != NULL) {
    *(void **)&clblast_sgemm = dlsym(h, "CLBlastSgemm");
    *(void **)&clblast_hgemm = dlsym(h, "CLBlastHgemm");
    *(void **)&clblast_dgemm = dlsym(h, "CLBlastDgemm");
    *(void **)&clblast_cgemm = dlsym(h, "CLBlastCgemm");
    *(void **)&clblast_zgemm = dlsym(h, "CLBlastZgemm");
  }
  if (clblast_sgemm == NULL) {
    snprintf(why, len, "%s not loadable (Debian: libclblast1)", path);
    return false;
  }
  return handles_up(why, len);
}

static bool clblast_call(void *arg)
{
  struct resident *res = arg;
  const struct bench_case *c = &res->d->cs;
  int ta = c->ta ? 112 : 111, tb = c->tb ? 112 : 111;
  size_t lda = c->ta ? c->k : c->m, ldb = c->tb ? c->n : c->k;
  cl_event ev = NULL;
  cl_float2 ac = {{c->alpha, 0.0f}}, bc = {{c->beta, 0.0f}};
  cl_double2 az = {{c->alpha, 0.0}}, bz = {{c->beta, 0.0}};
  clblast_status = -1; /* bench_clblast_run lets through only what CLBlast has */
  switch (c->dtype) {
  case HOP_DTYPE_S:
    clblast_status = clblast_sgemm(102, ta, tb, c->m, c->n, c->k, c->alpha, res->a, 0, lda, res->b,
                                   0, ldb, c->beta, res->c, 0, c->m, &res->q, &ev);
    break;
  case HOP_DTYPE_D:
    clblast_status = clblast_dgemm(102, ta, tb, c->m, c->n, c->k, c->alpha, res->a, 0, lda, res->b,
                                   0, ldb, c->beta, res->c, 0, c->m, &res->q, &ev);
    break;
  case HOP_DTYPE_C:
    clblast_status = clblast_cgemm(102, ta, tb, c->m, c->n, c->k, ac, res->a, 0, lda, res->b, 0,
                                   ldb, bc, res->c, 0, c->m, &res->q, &ev);
    break;
  case HOP_DTYPE_Z:
    clblast_status = clblast_zgemm(102, ta, tb, c->m, c->n, c->k, az, res->a, 0, lda, res->b, 0,
                                   ldb, bz, res->c, 0, c->m, &res->q, &ev);
    break;
  case HOP_DTYPE_H:
    clblast_status = clblast_hgemm(102, ta, tb, c->m, c->n, c->k, hop_float_to_half(c->alpha),
                                   res->a, 0, lda, res->b, 0, ldb, hop_float_to_half(c->beta),
                                   res->c, 0, c->m, &res->q, &ev);
    break;
  case HOP_DTYPE_SH:
  case HOP_DTYPE_COUNT: break;
  }
  if (ev != NULL) {
    clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
  }
  static char failed[48];
  snprintf(failed, sizeof failed, "CLBlast status %d", clblast_status);
  res->failed = clblast_status == 0 ? NULL : failed;
  return clblast_status == 0;
}

/* Host mode: what a CLBlast user with host arrays does on every call. */
static bool clblast_host_call(void *arg)
{
  struct bench_data *d = arg;
  struct resident res;
  bool ok = resident_make(&res, d) && clblast_call(&res) && resident_read_c(&res, d->c);
  resident_free(&res);
  return ok;
}

void bench_clblast_run(const char *name, enum bench_mode mode, struct bench_data *d,
                       const struct bench_opts *o, struct bench_result *r)
{
  const char *need = NULL; /* the device's extension the dtype needs */
  bool have = false;
  switch (d->cs.dtype) {
  case HOP_DTYPE_S: have = true; break;
  case HOP_DTYPE_D: have = clblast_dgemm != NULL, need = "cl_khr_fp64"; break;
  case HOP_DTYPE_C: have = clblast_cgemm != NULL; break;
  case HOP_DTYPE_Z: have = clblast_zgemm != NULL, need = "cl_khr_fp64"; break;
  case HOP_DTYPE_H: have = clblast_hgemm != NULL, need = "cl_khr_fp16"; break;
  case HOP_DTYPE_SH:
  case HOP_DTYPE_COUNT: break;
  }
  if (!have) {
    r->skipped = true;
    snprintf(r->note, sizeof r->note, "CLBlast has no %sgemm", hop_dtype_name(d->cs.dtype));
    return;
  }
  if (need != NULL && !has_extension(need)) {
    r->skipped = true;
    snprintf(r->note, sizeof r->note, "CLBlast's %sgemm needs %s, which the device lacks",
             hop_dtype_name(d->cs.dtype), need);
    return;
  }
  if (mode == BENCH_HOST) {
    bench_data_reset_c(d);
    if (clblast_host_call(d)) {
      bench_check(d, d->c, r);
      if (!bench_time(clblast_host_call, d, o, r))
        r->skipped = true;
    } else {
      r->skipped = true;
    }
  } else {
    struct resident res;
    if (resident_make(&res, d))
      measure(clblast_call, &res, resident_read_c, &res.failed, d, o, r);
    else
      r->skipped = true;
    resident_free(&res);
  }
  if (r->skipped && r->note[0] == '\0')
    snprintf(r->note, sizeof r->note, "CLBlast status %d%s", clblast_status,
             clblast_status == -2045 ? " (no cl_khr_fp16)" : "");
}
