/* Resident timing for `hopblas bench` (core/engine_tools.h): A, B and C in
 * device buffers of the engine's context, and the kernel alone timed
 * (launch to finish, no transfers) through the family's own launch.  An
 * image family's operands are packed once, before the timing, by the
 * family's own packing into its images or k-major buffer. */
#include <stdlib.h>
#include <string.h>

#include "engine_tools.h"
#include "tune.h"

/* With an image family, A and B are the family's packed objects (the
 * engine's own images and pool buffers: borrowed, not released here), with
 * their pitches in elements. */
struct hop_resident {
  struct hop_ocl_state *st;
  struct hop_call g; /* the case, with its host operands */
  cl_mem a, b, c;
  int lda, ldb;
  bool packed;
};

bool hop_ocl_resident_ready(void *state, char *why, size_t len)
{
  struct hop_ocl_state *st = state;
  pthread_mutex_lock(&st->lock);
  enum hop_status rc = hop_ocl_program_ready(st);
  pthread_mutex_unlock(&st->lock);
  if (rc != HOP_OK)
    snprintf(why, len, "the %s program did not build: %s", st->family->name, st->prog.origin);
  return rc == HOP_OK;
}

void hop_ocl_resident_close(struct hop_resident *r)
{
  if (r == NULL)
    return;
  if (r->a != NULL && !r->packed)
    clReleaseMemObject(r->a);
  if (r->b != NULL && !r->packed)
    clReleaseMemObject(r->b);
  if (r->c != NULL)
    clReleaseMemObject(r->c);
  free(r);
}

static cl_mem upload(struct hop_ocl_state *st, const void *host, size_t bytes, cl_int *err)
{
  cl_mem m = clCreateBuffer(st->ctx, CL_MEM_READ_WRITE, bytes, NULL, err);
  if (*err == CL_SUCCESS)
    *err = clEnqueueWriteBuffer(st->q[HOP_OCL_Q_EXEC], m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
  return m;
}

/* ab false: C alone (an image family packs A and B itself). */
static bool buffers(struct hop_resident *r, bool ab)
{
  const struct hop_call *g = &r->g;
  size_t eab = hop_dtype_ab_size(g->dtype), ec = hop_dtype_c_size(g->dtype);
  cl_int e1 = CL_SUCCESS, e2 = CL_SUCCESS, e3 = CL_SUCCESS;
  if (ab) {
    r->a = upload(r->st, g->a, (size_t)g->m * (size_t)g->k * eab, &e1);
    r->b = upload(r->st, g->b, (size_t)g->k * (size_t)g->n * eab, &e2);
  }
  r->c = upload(r->st, g->c, (size_t)g->ldc * (size_t)g->n * ec, &e3);
  return e1 == CL_SUCCESS && e2 == CL_SUCCESS && e3 == CL_SUCCESS;
}

/* An image family's A and B, packed once by the family itself (one block
 * each: the whole operand); false with a note when they cannot be.  The
 * engine cuts operands larger than one image into blocks; a resident
 * operand is one object, so such sizes are declined here, not tiled. */
static bool image_pack(struct hop_resident *res, char *note, size_t len)
{
  struct hop_ocl_state *st = res->st;
  const struct hop_call *g = &res->g;
  struct hop_ocl_plan lim = {0};
  st->family->limits(st, g, &lim);
  if ((lim.max_tm > 0 && g->m > lim.max_tm) || (lim.max_tn > 0 && g->n > lim.max_tn) ||
      (lim.max_tk > 0 && g->k > lim.max_tk)) {
    snprintf(note, len, "beyond one image (m <= %d, n <= %d, k <= %d): not measured",
             lim.max_tm, lim.max_tn, lim.max_tk);
    return false;
  }
  res->packed = true;
  struct hop_ocl_block blk[2] = {
    {.x = 0, .r0 = 0, .c0 = 0, .rows = g->m, .cols = g->k},
    {.x = 1, .r0 = 0, .c0 = 0, .rows = g->k, .cols = g->n},
  };
  cl_mem *mem[2] = {&res->a, &res->b};
  int *ld[2] = {&res->lda, &res->ldb};
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(&st->lock);
  for (int x = 0; x < 2 && err == CL_SUCCESS; x++) {
    cl_event ready = NULL;
    blk[x].staged = st->memory == HOP_OCL_STAGED;
    err = st->family->provide(st, g, &blk[x], mem[x], ld[x], &ready);
    if (ready != NULL) {
      clFlush(st->q[HOP_OCL_Q_UP]);
      if (err == CL_SUCCESS)
        err = clWaitForEvents(1, &ready);
      clReleaseEvent(ready);
    }
  }
  pthread_mutex_unlock(&st->lock);
  if (err != CL_SUCCESS)
    snprintf(note, len, "packing the %s family's operands failed (error %d)", st->family->name,
             (int)err);
  return err == CL_SUCCESS;
}

/* The parameters the engine would use for this case (the tuning lookup
 * chain: user cache, built-in table, default), built before the timing. */
static bool select_params(struct hop_ocl_state *st, const struct hop_call *g, char *note,
                          size_t len)
{
  pthread_mutex_lock(&st->lock);
  enum hop_status rc = hop_ocl_tune_select(st, g);
  pthread_mutex_unlock(&st->lock);
  if (rc != HOP_OK)
    snprintf(note, len, "the %s program did not build: %.60s", st->family->name,
             st->prog.origin);
  return rc == HOP_OK;
}

struct hop_resident *hop_ocl_resident_open(void *state, const struct hop_call *g, char *note,
                                           size_t len)
{
  struct hop_ocl_state *st = state;
  if (!select_params(st, g, note, len))
    return NULL;
  if (g->dtype == HOP_DTYPE_D && !hop_ocl_program_fp64(st)) {
    snprintf(note, len, "double (d, z): %s", st->prog.fp64);
    return NULL;
  }
  struct hop_resident *r = calloc(1, sizeof *r);
  if (r == NULL) {
    snprintf(note, len, "out of host memory");
    return NULL;
  }
  r->st = st;
  r->g = *g;
  r->lda = g->lda;
  r->ldb = g->ldb;
  if (!buffers(r, st->family->provide == NULL)) {
    snprintf(note, len, "device buffers not allocated");
  } else if (st->family->provide == NULL || image_pack(r, note, len)) {
    return r;
  }
  hop_ocl_resident_close(r);
  return NULL;
}

bool hop_ocl_resident_call(struct hop_resident *r, const char **failed)
{
  struct hop_ocl_state *st = r->st;
  const struct hop_call *g = &r->g;
  struct hop_ocl_launch l = {
    .m = g->m, .n = g->n, .k = g->k, .alpha = (float)g->alpha.re, .beta = (float)g->beta.re,
    .alpha_d = g->alpha.re, .beta_d = g->beta.re, .ta = g->ta, .tb = g->tb, .a = r->a, .b = r->b, .cin = r->c, .cout = r->c,
    .lda = r->lda, .ldb = r->ldb, .ldcin = g->ldc, .ldcout = g->ldc,
  };
  if (!hop_ocl_kernel_for(g->dtype, false, &l.kernel)) {
    *failed = "no kernel for this dtype";
    return false;
  }
  cl_event done = NULL;
  pthread_mutex_lock(&st->lock);
  cl_int err = hop_ocl_family_launch(st, &l, 0, NULL, &done);
  if (err == CL_SUCCESS)
    err = clWaitForEvents(1, &done);
  pthread_mutex_unlock(&st->lock);
  if (done != NULL)
    clReleaseEvent(done);
  *failed = err == CL_SUCCESS ? NULL : "kernel launch";
  return err == CL_SUCCESS;
}

bool hop_ocl_resident_read(struct hop_resident *r, void *c)
{
  size_t bytes = (size_t)r->g.ldc * (size_t)r->g.n * hop_dtype_c_size(r->g.dtype);
  return clEnqueueReadBuffer(r->st->q[HOP_OCL_Q_EXEC], r->c, CL_TRUE, 0, bytes, c, 0, NULL,
                             NULL) == CL_SUCCESS;
}

/* The family, and where its parameters came from. */
void hop_ocl_resident_note(struct hop_resident *r, char *note, size_t len)
{
  const char *detail = hop_ocl_tune_detail(r->st);
  const char *params = detail != NULL ? strstr(detail, "params=") : NULL;
  snprintf(note, len, "%s family kernel%s%.100s%s", r->st->family->name, params ? " (" : "",
           params ? params : "", params ? ")" : "");
}

bool hop_ocl_handles(void *state, void **context, void **queue, void **device)
{
  struct hop_ocl_state *st = state;
  *context = st->ctx;
  *queue = st->q[HOP_OCL_Q_EXEC];
  *device = hop_ocl_device(st)->id;
  return true;
}
