/* Device-side engines of the benchmark.  Resident mode keeps A, B and C in
 * device buffers and times the kernel alone (launch to finish, no
 * transfers): hopblas's kernels through the engine's own launch (the image
 * families' operands packed once, before the timing, by the family's own
 * packing into its images or k-major buffer), and
 * CLBlast's CLBlastSgemm/CLBlastHgemm on the same context and queue.
 * CLBlast also has a host mode: buffers created, written and read back on
 * every call, as its netlib wrapper does.  libclblast is loaded at run
 * time (Debian libclblast1), so the build does not need it. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "family.h"
#include "tune.h"

static struct hop_ocl_state *st; /* the OpenCL engine of this child */

static bool engine_up(char *why, size_t len)
{
  struct hop_engine_view v;
  hop_engine_get(hop_engine_index("opencl"), &v);
  if (v.status != HOP_OK) {
    snprintf(why, len, "OpenCL engine off: %s", v.why);
    return false;
  }
  st = v.state;
  return true;
}

/* A, B and C in device buffers of the engine's context; C holds C0.  With
 * an image family, A and B are the family's packed objects instead (the
 * engine's own images and pool buffers: borrowed, not released here), with
 * their pitches in elements. */
struct resident {
  struct bench_data *d;
  cl_mem a, b, c;
  int lda, ldb;
  bool packed;
  cl_command_queue q;
  const char *failed;
};

static void resident_free(struct resident *r)
{
  if (r->a != NULL && !r->packed)
    clReleaseMemObject(r->a);
  if (r->b != NULL && !r->packed)
    clReleaseMemObject(r->b);
  if (r->c != NULL)
    clReleaseMemObject(r->c);
}

static cl_mem upload(const void *host, size_t bytes, cl_int *err)
{
  cl_mem m = clCreateBuffer(st->ctx, CL_MEM_READ_WRITE, bytes, NULL, err);
  if (*err == CL_SUCCESS)
    *err = clEnqueueWriteBuffer(st->q[HOP_OCL_Q_EXEC], m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
  return m;
}

/* ab false: C alone (an image family packs A and B itself). */
static bool resident_make(struct resident *r, struct bench_data *d, bool ab)
{
  size_t eab = hop_dtype_ab_size(d->cs.dtype), ec = hop_dtype_c_size(d->cs.dtype);
  cl_int e1 = CL_SUCCESS, e2 = CL_SUCCESS, e3 = CL_SUCCESS;
  memset(r, 0, sizeof *r);
  r->d = d;
  r->q = st->q[HOP_OCL_Q_EXEC];
  r->lda = d->cs.ta ? d->cs.k : d->cs.m;
  r->ldb = d->cs.tb ? d->cs.n : d->cs.k;
  if (ab) {
    r->a = upload(d->a, d->a_elems * eab, &e1);
    r->b = upload(d->b, d->b_elems * eab, &e2);
  }
  r->c = upload(d->c0, d->c_elems * ec, &e3);
  return e1 == CL_SUCCESS && e2 == CL_SUCCESS && e3 == CL_SUCCESS;
}

/* The first call's C back on the host, checked; then the timed calls. */
static void resident_measure(struct resident *res, bool (*call)(void *),
                             const struct bench_opts *o, struct bench_result *r)
{
  struct bench_data *d = res->d;
  if (!call(res) || clEnqueueReadBuffer(res->q, res->c, CL_TRUE, 0,
                                        d->c_elems * hop_dtype_c_size(d->cs.dtype), d->c, 0, NULL,
                                        NULL) != CL_SUCCESS) {
    r->skipped = true;
    if (r->note[0] == '\0')
      snprintf(r->note, sizeof r->note, "failed: %s", res->failed ? res->failed : "read-back");
    return;
  }
  bench_check(d, d->c, r);
  if (!bench_time(call, res, o, r))
    r->skipped = true;
}

/* ---- hopblas's own kernels (the engine's family) ------------------------------------ */

bool bench_resident_open(const char *name, char *why, size_t len)
{
  if (!engine_up(why, len))
    return false;
  pthread_mutex_lock(&st->lock);
  enum hop_status rc = hop_ocl_program_ready(st);
  pthread_mutex_unlock(&st->lock);
  if (rc != HOP_OK)
    snprintf(why, len, "the %s program did not build: %s", st->family->name, st->prog.origin);
  return rc == HOP_OK;
}

static bool hopblas_kernel(void *arg)
{
  struct resident *res = arg;
  const struct bench_case *c = &res->d->cs;
  struct hop_ocl_launch l = {
    .m = c->m, .n = c->n, .k = c->k, .alpha = c->alpha, .beta = c->beta, .ta = c->ta,
    .tb = c->tb, .a = res->a, .b = res->b, .cin = res->c, .cout = res->c,
    .lda = res->lda, .ldb = res->ldb, .ldcin = c->m, .ldcout = c->m,
  };
  if (!hop_ocl_kernel_for(c->dtype, false, &l.kernel))
    return false;
  cl_event done = NULL;
  pthread_mutex_lock(&st->lock);
  cl_int err = hop_ocl_family_launch(st, &l, 0, NULL, &done);
  if (err == CL_SUCCESS)
    err = clWaitForEvents(1, &done);
  pthread_mutex_unlock(&st->lock);
  if (done != NULL)
    clReleaseEvent(done);
  res->failed = err == CL_SUCCESS ? NULL : "kernel launch";
  return err == CL_SUCCESS;
}

/* The case as the engine sees a call (no operands). */
static struct hop_call case_gemm(const struct bench_case *c)
{
  return (struct hop_call){.dtype = c->dtype, .ta = c->ta, .tb = c->tb,
                           .m = c->m, .n = c->n, .k = c->k, .alpha = {c->alpha, 0.0}, .beta = {c->beta, 0.0}};
}

/* An image family's A and B, packed once by the family itself (one block
 * each: the whole operand); false with a note when they cannot be.  The
 * engine cuts operands larger than one image into blocks; a resident
 * operand is one object, so such sizes are declined here, not tiled. */
static bool image_pack(struct resident *res, struct bench_result *r)
{
  const struct bench_case *c = &res->d->cs;
  struct hop_call g = case_gemm(c);
  g.a = res->d->a, g.lda = res->lda, g.b = res->d->b, g.ldb = res->ldb;
  struct hop_ocl_plan lim = {0};
  st->family->limits(st, &g, &lim);
  if ((lim.max_tm > 0 && c->m > lim.max_tm) || (lim.max_tn > 0 && c->n > lim.max_tn) ||
      (lim.max_tk > 0 && c->k > lim.max_tk)) {
    snprintf(r->note, sizeof r->note, "beyond one image (m <= %d, n <= %d, k <= %d): not measured",
             lim.max_tm, lim.max_tn, lim.max_tk);
    return false;
  }
  res->packed = true;
  struct hop_ocl_block blk[2] = {
    {.x = 0, .r0 = 0, .c0 = 0, .rows = c->m, .cols = c->k},
    {.x = 1, .r0 = 0, .c0 = 0, .rows = c->k, .cols = c->n},
  };
  cl_mem *mem[2] = {&res->a, &res->b};
  int *ld[2] = {&res->lda, &res->ldb};
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(&st->lock);
  for (int x = 0; x < 2 && err == CL_SUCCESS; x++) {
    cl_event ready = NULL;
    blk[x].staged = st->memory == HOP_OCL_STAGED;
    err = st->family->provide(st, &g, &blk[x], mem[x], ld[x], &ready);
    if (ready != NULL) {
      clFlush(st->q[HOP_OCL_Q_UP]);
      if (err == CL_SUCCESS)
        err = clWaitForEvents(1, &ready);
      clReleaseEvent(ready);
    }
  }
  pthread_mutex_unlock(&st->lock);
  if (err != CL_SUCCESS)
    snprintf(r->note, sizeof r->note, "packing the %s family's operands failed (error %d)",
             st->family->name, (int)err);
  return err == CL_SUCCESS;
}

/* The parameters the engine would use for this case (the tuning lookup
 * chain: user cache, built-in table, default), built before the timing. */
static bool select_params(const struct bench_data *d, struct bench_result *r)
{
  struct hop_call g = case_gemm(&d->cs);
  pthread_mutex_lock(&st->lock);
  enum hop_status rc = hop_ocl_tune_select(st, &g);
  pthread_mutex_unlock(&st->lock);
  if (rc != HOP_OK)
    snprintf(r->note, sizeof r->note, "the %s program did not build: %.60s", st->family->name,
             st->prog.origin);
  return rc == HOP_OK;
}

void bench_resident_run(const char *name, enum bench_mode mode, struct bench_data *d,
                        const struct bench_opts *o, struct bench_result *r)
{
  struct resident res = {0};
  if (!select_params(d, r)) {
    r->skipped = true;
  } else if (!resident_make(&res, d, st->family->provide == NULL)) {
    r->skipped = true;
    snprintf(r->note, sizeof r->note, "device buffers not allocated");
  } else if (st->family->provide != NULL && !image_pack(&res, r)) {
    r->skipped = true;
  } else {
    resident_measure(&res, hopblas_kernel, o, r);
    const char *detail = hop_ocl_tune_detail(st); /* the family, and where its parameters came from */
    if (r->note[0] == '\0')
      snprintf(r->note, sizeof r->note, "%s family kernel%s%.100s%s", st->family->name,
               detail != NULL && strstr(detail, "params=") ? " (" : "",
               detail != NULL && strstr(detail, "params=") ? strstr(detail, "params=") : "",
               detail != NULL && strstr(detail, "params=") ? ")" : "");
  }
  resident_free(&res);
}

/* ---- CLBlast ----------------------------------------------------------------------- */

typedef int (*clblast_sgemm_fn)(int, int, int, size_t, size_t, size_t, float, cl_mem, size_t,
                                size_t, cl_mem, size_t, size_t, float, cl_mem, size_t, size_t,
                                cl_command_queue *, cl_event *);
typedef int (*clblast_hgemm_fn)(int, int, int, size_t, size_t, size_t, cl_half, cl_mem, size_t,
                                size_t, cl_mem, size_t, size_t, cl_half, cl_mem, size_t, size_t,
                                cl_command_queue *, cl_event *);
static clblast_sgemm_fn clblast_sgemm;
static clblast_hgemm_fn clblast_hgemm;
static int clblast_status;

bool bench_clblast_open(const char *name, char *why, size_t len)
{
  const char *path = getenv("CLBLAST_LIB") ? getenv("CLBLAST_LIB") : "libclblast.so.1";
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h != NULL) {
    *(void **)&clblast_sgemm = dlsym(h, "CLBlastSgemm");
    *(void **)&clblast_hgemm = dlsym(h, "CLBlastHgemm");
  }
  if (clblast_sgemm == NULL) {
    snprintf(why, len, "%s not loadable (Debian: libclblast1)", path);
    return false;
  }
  return engine_up(why, len);
}

static bool clblast_call(void *arg)
{
  struct resident *res = arg;
  const struct bench_case *c = &res->d->cs;
  int ta = c->ta ? 112 : 111, tb = c->tb ? 112 : 111;
  size_t lda = c->ta ? c->k : c->m, ldb = c->tb ? c->n : c->k;
  cl_event ev = NULL;
  clblast_status = c->dtype == HOP_DTYPE_S
                     ? clblast_sgemm(102, ta, tb, c->m, c->n, c->k, c->alpha, res->a, 0, lda,
                                     res->b, 0, ldb, c->beta, res->c, 0, c->m, &res->q, &ev)
                     : clblast_hgemm(102, ta, tb, c->m, c->n, c->k, hop_float_to_half(c->alpha),
                                     res->a, 0, lda, res->b, 0, ldb, hop_float_to_half(c->beta),
                                     res->c, 0, c->m, &res->q, &ev);
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
  bool ok = resident_make(&res, d, true) && clblast_call(&res) &&
            clEnqueueReadBuffer(res.q, res.c, CL_TRUE, 0, d->c_elems * hop_dtype_c_size(d->cs.dtype),
                                d->c, 0, NULL, NULL) == CL_SUCCESS;
  resident_free(&res);
  return ok;
}

void bench_clblast_run(const char *name, enum bench_mode mode, struct bench_data *d,
                       const struct bench_opts *o, struct bench_result *r)
{
  if (d->cs.dtype == HOP_DTYPE_SH || (d->cs.dtype == HOP_DTYPE_H && clblast_hgemm == NULL)) {
    r->skipped = true;
    snprintf(r->note, sizeof r->note, "CLBlast has no %sgemm", hop_dtype_name(d->cs.dtype));
    return;
  }
  if (d->cs.dtype == HOP_DTYPE_H && !hop_ocl_has_extension(hop_ocl_device(st), "cl_khr_fp16")) {
    r->skipped = true;
    snprintf(r->note, sizeof r->note, "CLBlast's hgemm needs cl_khr_fp16, which the device lacks");
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
    if (resident_make(&res, d, true))
      resident_measure(&res, clblast_call, o, r);
    else
      r->skipped = true;
    resident_free(&res);
  }
  if (r->skipped && r->note[0] == '\0')
    snprintf(r->note, sizeof r->note, "CLBlast status %d%s", clblast_status,
             clblast_status == -2045 ? " (no cl_khr_fp16)" : "");
}
