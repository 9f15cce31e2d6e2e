/* Host memory <-> device buffers.  The pool keeps its buffers across calls
 * (a new pinned buffer per call would cost more than small GEMMs);
 * zero-copy wraps the caller's memory where its alignment allows; blocks
 * are packed densely otherwise.  C is only ever written here, by the host,
 * from a tile that the device has completely finished.
 *
 * Large copies between the caller's memory and the pinned staging buffers
 * are split by columns over worker threads (copy.c).  The staged path
 * uploads operands chunk by chunk through a ring of pinned buffers, so
 * that the link carries chunk i while the host packs chunk i + 1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ocl.h"

enum hop_status hop_ocl_status(cl_int err)
{
  switch (err) {
  case CL_MEM_OBJECT_ALLOCATION_FAILURE:
  case CL_INVALID_BUFFER_SIZE:
    return HOP_ERR_DEVMEM;
  case CL_OUT_OF_HOST_MEMORY:
    return HOP_ERR_NOMEM;
  default:
    return HOP_ERR_DEVICE;
  }
}

static void slot_release(struct hop_ocl_state *st, struct hop_ocl_slot *s)
{
  if (s->mem == NULL)
    return;
  if (s->host != NULL) {
    clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_UP], s->mem, s->host, 0, NULL, NULL);
    clFinish(st->q[HOP_OCL_Q_UP]);
  }
  clReleaseMemObject(s->mem);
  s->mem = NULL;
  s->host = NULL;
  s->size = 0;
}

void hop_ocl_pool_release(struct hop_ocl_state *st)
{
  hop_ocl_copy_release(st);
  for (int x = 0; x < 3; x++) {
    for (int i = 0; i < HOP_OCL_OP_SLOTS; i++)
      slot_release(st, &st->pool.dev[x][i]);
    for (int i = 0; i < HOP_OCL_SLOTS; i++)
      slot_release(st, &st->pool.stage[x][i]);
  }
  for (int x = 0; x < 2; x++)
    for (int i = 0; i < HOP_OCL_OP_SLOTS; i++)
      slot_release(st, &st->pool.compact[x][i]);
  for (int r = 0; r < HOP_OCL_RING_MAX; r++)
    slot_release(st, &st->pool.ring[r]);
  for (int r = 0; r < HOP_OCL_RING; r++)
    slot_release(st, &st->pool.shared_ring[r]);
  slot_release(st, &st->pool.shared);
  slot_release(st, &st->pool.acc);
  slot_release(st, &st->pool.batch[0]);
  slot_release(st, &st->pool.batch[1]);
}

cl_int hop_ocl_slot_ensure(struct hop_ocl_state *st, struct hop_ocl_slot *s, size_t size,
                           cl_mem_flags flags, bool mapped)
{
  bool read_only = (flags & CL_MEM_READ_ONLY) != 0;
  if (s->mem != NULL && s->size >= size && (read_only || !s->read_only))
    return CL_SUCCESS;
  slot_release(st, s);
  /* Grow by a quarter beyond the need, so slowly growing calls do not reallocate each time. */
  size_t want = size + size / 4;
  if (want > st->cap)
    want = size;
  cl_int err;
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_ALLOC))
    return CL_MEM_OBJECT_ALLOCATION_FAILURE;
  s->mem = clCreateBuffer(st->ctx, flags, want, NULL, &err);
  if (err != CL_SUCCESS) {
    s->mem = NULL;
    return err;
  }
  s->size = want;
  s->read_only = read_only;
  if (mapped) {
    /* A staging buffer stays mapped for its life: its host image is pinned memory. */
    s->host = clEnqueueMapBuffer(st->q[HOP_OCL_Q_UP], s->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                 0, want, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
      s->host = NULL;
      slot_release(st, s);
      return err;
    }
  }
  return CL_SUCCESS;
}

/* A read-only buffer over the caller's memory [first, first + bytes).  The
 * buffer starts at the device's base alignment below `first` (still on the
 * same page, so the bytes before `first` are mapped and never read); *off
 * is the element offset of `first` in it.  NULL with err == CL_SUCCESS
 * when the pointer is not element-aligned against that base, or the region
 * (leading dimension included) is larger than a buffer may be: pack instead. */
cl_mem hop_ocl_wrap(struct hop_ocl_state *st, const void *first, size_t bytes, size_t esize,
                    cl_ulong *off, cl_int *err)
{
  uintptr_t align = hop_ocl_device(st)->base_align;
  uintptr_t p = (uintptr_t)first, base = p / align * align;
  *err = CL_SUCCESS;
  if ((p - base) % esize != 0 || (p - base) + bytes > st->cap)
    return NULL;
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_ALLOC)) {
    *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return NULL;
  }
  cl_mem m = clCreateBuffer(st->ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, (p - base) + bytes,
                            (void *)base, err);
  if (*err != CL_SUCCESS)
    return NULL;
  *off = (p - base) / esize;
  return m;
}

struct pack_job {
  const unsigned char *src; /* the block's first column */
  unsigned char *out;
  size_t ld_bytes, run;
};

static void pack_columns(void *arg, int j0, int j1)
{
  const struct pack_job *p = arg;
  if (p->ld_bytes == p->run) { /* whole columns: one run, which memcpy streams best */
    memcpy(p->out + (size_t)j0 * p->run, p->src + (size_t)j0 * p->run, (size_t)(j1 - j0) * p->run);
    return;
  }
  /* Ordinary stores here: the ring of staging buffers is small enough to
   * stay in the cache, where the device's DMA reads it (streaming stores
   * made packing slower on the H200's host; doc/PERFORMANCE.md). */
  for (int j = j0; j < j1; j++)
    memcpy(p->out + (size_t)j * p->run, p->src + (size_t)j * p->ld_bytes, p->run);
}

/* Copy the rows x cols block at (row0, col0) of a column-major matrix into
 * dst, densely (ld = rows). */
static void pack_beside(struct hop_ocl_state *st, const void *x, int ld, size_t esize, int row0,
                        int col0, int rows, int cols, void *dst, void (*beside)(void *),
                        void *beside_arg)
{
  struct pack_job p = {.src = (const unsigned char *)x + hop_at(row0, col0, ld) * esize,
                       .out = dst, .ld_bytes = (size_t)ld * esize, .run = (size_t)rows * esize};
  hop_ocl_copy_columns_beside(st, p.run * (size_t)cols, cols, pack_columns, &p, beside,
                              beside_arg);
}

void hop_ocl_pack(struct hop_ocl_state *st, const void *x, int ld, size_t esize, int row0,
                  int col0, int rows, int cols, void *dst)
{
  pack_beside(st, x, ld, esize, row0, col0, rows, cols, dst, NULL, NULL);
}

struct view_job {
  const struct hop_plane_view *v;
  int64_t row0, col0, rows;
  unsigned char *out; /* read: the dense block; NULL for a write */
  const unsigned char *in; /* write: the dense block */
};

static void view_columns(void *arg, int j0, int j1)
{
  const struct view_job *p = arg;
  size_t col = (size_t)p->rows * (p->v->dbl ? 8 : 4);
  if (p->out != NULL)
    hop_plane_view_read(p->v, p->row0, p->col0 + j0, p->rows, j1 - j0, p->out + (size_t)j0 * col);
  else
    hop_plane_view_write(p->v, p->in + (size_t)j0 * col, p->row0, p->col0 + j0, p->rows, j1 - j0);
}

/* hop_ocl_pack for a plane view of a complex call: its block read in place. */
static void pack_view_beside(struct hop_ocl_state *st, const struct hop_plane_view *v, int row0,
                             int col0, int rows, int cols, void *dst, void (*beside)(void *),
                             void *beside_arg)
{
  struct view_job p = {.v = v, .row0 = row0, .col0 = col0, .rows = rows, .out = dst};
  hop_ocl_copy_columns_beside(st, (size_t)rows * (size_t)cols * (v->dbl ? 8 : 4), cols,
                              view_columns, &p, beside, beside_arg);
}

void hop_ocl_pack_view(struct hop_ocl_state *st, const struct hop_plane_view *v, int row0,
                       int col0, int rows, int cols, void *dst)
{
  pack_view_beside(st, v, row0, col0, rows, cols, dst, NULL, NULL);
}

struct unpack_job {
  const struct hop_call *g;
  bool accumulated;
  float limit; /* a flushing device: results below it are recomputed (core/subnormal.c) */
  size_t redone;
  const void *src;
  int i0, j0, rows;
};

/* The tile's rows [*r0, *r1) of its column j that the call writes
 * (hop_call_rows: gemmt's triangle; all of them for GEMM). */
static void owned_rows(const struct unpack_job *u, int j, int *r0, int *r1)
{
  int64_t lo, hi;
  hop_call_rows(u->g, (int64_t)u->j0 + j, &lo, &hi);
  lo -= u->i0, hi -= u->i0;
  *r0 = lo > 0 ? (int)lo : 0;
  *r1 = hi < u->rows ? (int)hi : u->rows;
  *r1 = *r1 > *r0 ? *r1 : *r0;
}

/* c = a + beta c over n elements: a loop per case, so that each vectorises
 * (beta == 1, LAPACK's updates, adds exactly what the device's fma would). */
#define DEFINE_MERGE(name, T)                                                 \
  static void name(T *restrict c, const T *restrict a, T beta, int n)         \
  {                                                                           \
    if (beta == 0)                                                            \
      memcpy(c, a, (size_t)n * sizeof *c);                                    \
    else if (beta == 1)                                                       \
      for (int i = 0; i < n; i++)                                             \
        c[i] += a[i];                                                         \
    else                                                                      \
      for (int i = 0; i < n; i++)                                             \
        c[i] = a[i] + beta * c[i];                                            \
  }
DEFINE_MERGE(merge_d, double)
DEFINE_MERGE(merge_s, float)

static void unpack_columns(void *arg, int j0, int j1)
{
  struct unpack_job *u = arg;
  const struct hop_call *g = u->g;
  int rows = u->rows, r0, r1;
  if (!u->accumulated && u->limit == 0.0f) {
    size_t e = hop_dtype_c_size(g->dtype), run = (size_t)rows * e;
    bool whole = rows == g->ldc;
    for (int j = j0; j < j1 && whole; j++) {
      owned_rows(u, j, &r0, &r1);
      whole = r0 == 0 && r1 == rows;
    }
    if (whole) { /* whole columns of C: one run */
      hop_ocl_copy_bytes((unsigned char *)g->c + hop_at(u->i0, u->j0 + j0, g->ldc) * e,
                         (const unsigned char *)u->src + (size_t)j0 * run, (size_t)(j1 - j0) * run);
      return;
    }
    for (int j = j0; j < j1; j++) {
      owned_rows(u, j, &r0, &r1);
      hop_ocl_copy_bytes((unsigned char *)g->c + hop_at(u->i0 + r0, u->j0 + j, g->ldc) * e,
                         (const unsigned char *)u->src + (size_t)j * run + (size_t)r0 * e,
                         (size_t)(r1 - r0) * e);
    }
    return;
  }
  if (g->dtype == HOP_DTYPE_D) { /* sums in double; doubles are never flushed */
    for (int j = j0; j < j1; j++) {
      owned_rows(u, j, &r0, &r1);
      merge_d((double *)g->c + hop_at(u->i0 + r0, u->j0 + j, g->ldc),
              (const double *)u->src + (size_t)j * rows + r0, g->beta.re, r1 - r0);
    }
    return;
  }
  const float *acc = u->src;
  const float beta = (float)g->beta.re; /* the other dtypes accumulate in float */
  size_t redone = 0;
  for (int j = j0; j < j1; j++) {
    const float *a = acc + (size_t)j * rows;
    size_t at = hop_at(u->i0, u->j0 + j, g->ldc);
    owned_rows(u, j, &r0, &r1);
    if (g->dtype == HOP_DTYPE_H) { /* never flushed (core/subnormal.c): accumulated only */
      uint16_t *c = (uint16_t *)g->c + at;
      for (int i = r0; i < r1; i++)
        c[i] = hop_float_to_half(beta == 0.0f ? a[i] : a[i] + beta * hop_half_to_float(c[i]));
      continue;
    }
    float *c = (float *)g->c + at;
    if (u->limit == 0.0f) { /* accumulated: the tight loop of every large staged call */
      merge_s(c + r0, a + r0, beta, r1 - r0);
      continue;
    }
    for (int i = r0; i < r1; i++) {
      float v = u->accumulated && beta != 0.0f ? a[i] + beta * c[i] : a[i];
      if (fabsf(v) < u->limit) { /* c[i] still holds C's old value */
        v = hop_subnormal_redo(g, u->i0 + i, u->j0 + j);
        redone++;
      }
      c[i] = v;
    }
  }
  if (redone > 0) /* the shares run on several threads */
    __atomic_fetch_add(&u->redone, redone, __ATOMIC_RELAXED);
}

void hop_ocl_stager_later(struct hop_ocl_stager *sg)
{
  if (sg->later != NULL)
    sg->later(sg->later_arg);
}

/* The stager's later work beside a copy, its queueing time counted as inside the copy. */
static void later_beside(void *arg)
{
  struct hop_ocl_stager *sg = arg;
  double queued = sg->queue_s;
  hop_ocl_stager_later(sg);
  sg->queue_beside_s += sg->queue_s - queued;
}

/* Write a finished rows x cols tile (dense, ld = rows) into C at (i0, j0),
 * the elements the call writes only (gemmt: its triangle).
 * `accumulated`: the tile holds alpha op(A) op(B) (in float where k was cut,
 * except for d) and beta * C is added here; else it holds the final values
 * in C's type.
 * Every column is written when this returns (nothing here can fail).  On a
 * flushing device, returns how many results were recomputed. */
size_t hop_ocl_unpack_c(struct hop_ocl_state *st, struct hop_ocl_stager *sg,
                        const struct hop_call *g, bool accumulated, const void *src, int i0, int j0,
                        int rows, int cols)
{
  void (*beside)(void *) = sg != NULL ? later_beside : NULL;
  if (g->planes != NULL) { /* C' of a complex call: into C's parts (never accumulated) */
    struct view_job p = {.v = &g->planes->c, .row0 = i0, .col0 = j0, .rows = rows, .in = src};
    hop_ocl_copy_columns_beside(st, (size_t)rows * (size_t)cols * hop_dtype_c_size(g->dtype),
                                cols, view_columns, &p, beside, sg);
    return 0;
  }
  struct unpack_job u = {.g = g, .accumulated = accumulated, .src = src, .i0 = i0, .j0 = j0,
                         .rows = rows, .limit = st->flushes ? hop_subnormal_limit(g) : 0.0f};
  size_t e = accumulated ? hop_ocl_acc_size(g->dtype) : hop_dtype_c_size(g->dtype);
  hop_ocl_copy_columns_beside(st, (size_t)rows * (size_t)cols * e, cols, unpack_columns, &u,
                              beside, sg);
  return u.redone;
}

/* Wait for ev (flushing first: it may wait on another queue); its own failure counts too. */
cl_int hop_ocl_wait(struct hop_ocl_state *st, cl_event ev)
{
  if (ev == NULL)
    return CL_SUCCESS;
  for (int q = 0; q < HOP_OCL_QUEUES; q++)
    clFlush(st->q[q]);
  cl_int err = clWaitForEvents(1, &ev), status = CL_COMPLETE;
  if (err == CL_SUCCESS || err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  return err != CL_SUCCESS ? err : status < 0 ? status : CL_SUCCESS;
}

void hop_ocl_stager_end(struct hop_ocl_stager *sg)
{
  for (int r = 0; r < HOP_OCL_RING_MAX; r++)
    if (sg->sent[r] != NULL) {
      clReleaseEvent(sg->sent[r]);
      sg->sent[r] = NULL;
    }
}

/* One chunk packed into ring buffer r, waiting to go up (n == 0: none). */
struct upload {
  struct hop_ocl_state *st;
  struct hop_ocl_stager *sg;
  cl_mem dev;
  int dev_ld, dev_r0, dev_c0;
  size_t esize, col_bytes;
  cl_event after;
  int r, j, n;
  cl_event last; /* the last chunk sent (held by sg->sent) */
  cl_int err;
};

/* Send u's chunk and flush it to the link; after an error, nothing more. */
static void upload_send(void *arg)
{
  struct upload *u = arg;
  if (u->n == 0 || u->err != CL_SUCCESS)
    return;
  struct hop_ocl_state *st = u->st;
  struct hop_ocl_stager *sg = u->sg;
  double t0 = hop_now();
  const void *host = st->pool.ring[u->r].host;
  cl_uint waits = u->after != NULL;
  const cl_event *wait = u->after != NULL ? &u->after : NULL;
  cl_event ev = NULL;
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_UPLOAD)) {
    u->err = CL_OUT_OF_RESOURCES;
  } else if (u->dev_ld == 0) {
    u->err = clEnqueueWriteBuffer(st->q[HOP_OCL_Q_UP], u->dev, CL_FALSE,
                                  (size_t)u->j * u->col_bytes, (size_t)u->n * u->col_bytes, host,
                                  waits, wait, &ev);
  } else {
    size_t dev_origin[3] = {(size_t)u->dev_r0 * u->esize, (size_t)u->dev_c0 + (size_t)u->j, 0};
    size_t host_origin[3] = {0, 0, 0}, region[3] = {u->col_bytes, (size_t)u->n, 1};
    u->err = clEnqueueWriteBufferRect(st->q[HOP_OCL_Q_UP], u->dev, CL_FALSE, dev_origin,
                                      host_origin, region, (size_t)u->dev_ld * u->esize, 0,
                                      u->col_bytes, 0, host, waits, wait, &ev);
  }
  u->n = 0;
  if (u->err == CL_SUCCESS) {
    clFlush(st->q[HOP_OCL_Q_UP]);
    if (sg->sent[u->r] != NULL)
      clReleaseEvent(sg->sent[u->r]);
    sg->sent[u->r] = ev;
    sg->uploads++;
    hop_ocl_timeline_add(sg->tl, ev, HOP_OCL_TL_UP);
    u->last = ev;
  }
  sg->enqueue_s += hop_now() - t0;
}

int hop_ocl_ring_depth(const struct hop_ocl_state *st)
{
  if (st->pool.ring_depth > 0)
    return st->pool.ring_depth;
  return (int)hop_config_int("HOPBLAS_OPENCL_RING", 2, HOP_OCL_RING_MAX, HOP_OCL_RING);
}

/* Has ev completed or failed (NULL: yes)?  Asked without waiting. */
static bool ev_over(cl_event ev)
{
  cl_int status = CL_COMPLETE;
  if (ev != NULL &&
      clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) !=
        CL_SUCCESS)
    return false;
  return status == CL_COMPLETE || status < 0;
}

cl_int hop_ocl_stager_wait(struct hop_ocl_state *st, struct hop_ocl_stager *sg, cl_event ev)
{
  if (!ev_over(ev)) /* the host is to wait: queue what waits for it first */
    hop_ocl_stager_later(sg);
  double t0 = hop_now();
  cl_int err = hop_ocl_wait(st, ev);
  sg->wait_s += hop_now() - t0;
  return err;
}

/* Beside a pack: the stager's later work, then the upload held. */
static void upload_beside(void *arg)
{
  struct upload *u = arg;
  later_beside(u->sg);
  upload_send(u);
}

/* Beside a pack, where uploads are sent after it: the later work alone. */
static void later_beside_pack(void *arg)
{
  struct upload *u = arg;
  later_beside(u->sg);
}

/* HOPBLAS_OPENCL_ENQUEUE_BESIDE: each chunk is sent while the next is packed. */
static bool enqueue_beside(void)
{
  return hop_config_int("HOPBLAS_OPENCL_ENQUEUE_BESIDE", 0, 1, 1) == 1;
}

/* Copy the rows x cols block at (row0, col0) of x (column-major, ld; or of
 * the plane `view` when not NULL) into dev through the ring of pinned
 * buffers: densely from offset 0 when dev_ld is 0, else at the same
 * (row0, col0) of a column-major dev of leading dimension dev_ld.  Whole
 * columns of about sg->chunk bytes at a time, each upload flushed at once
 * so that it crosses the link while the next chunk is packed.  A ring
 * buffer is refilled once its previous upload has left it.  The calling
 * thread sends each chunk while the copy threads start on the next (the
 * driver's enqueue and flush then cost the host no time of its own); the
 * ring still holds two chunks on the link when the host waits for the
 * third.  The uploads wait for `after` (the last kernel that read dev);
 * *done is the last one (the queue is in order: it stands for them all). */
static cl_int stage_upload(struct hop_ocl_state *st, struct hop_ocl_stager *sg, const void *x,
                           const struct hop_plane_view *view, int ld, size_t esize, int row0,
                           int col0, int rows, int cols, cl_mem dev, int dev_ld, int dev_r0,
                           int dev_c0, cl_event after, cl_event *done)
{
  size_t col_bytes = (size_t)rows * esize;
  size_t per = sg->chunk / col_bytes;
  per = per < 1 ? 1 : per > (size_t)cols ? (size_t)cols : per;
  bool beside = enqueue_beside();
  if (st->pool.ring_depth == 0) /* kept with the pool's buffers, as the chunk is */
    st->pool.ring_depth = hop_ocl_ring_depth(st);
  struct upload held = {.st = st, .sg = sg, .dev = dev, .dev_ld = dev_ld, .dev_r0 = dev_r0,
                        .dev_c0 = dev_c0, .esize = esize, .col_bytes = col_bytes, .after = after,
                        .err = CL_SUCCESS};
  *done = NULL;
  for (int j = 0; j < cols && held.err == CL_SUCCESS; j += (int)per) {
    int n = cols - j < (int)per ? cols - j : (int)per;
    int r = sg->next;
    sg->next = (r + 1) % st->pool.ring_depth;
    struct hop_ocl_slot *ring = &st->pool.ring[r];
    cl_int err = hop_ocl_stager_wait(st, sg, sg->sent[r]);
    double t1 = hop_now();
    if (err == CL_SUCCESS)
      err = hop_ocl_slot_ensure(st, ring, per * col_bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                true);
    if (err != CL_SUCCESS) {
      upload_send(&held);
      return err;
    }
    void (*side)(void *) = beside ? upload_beside : later_beside_pack;
    double sent = sg->enqueue_s;
    if (view != NULL)
      pack_view_beside(st, view, row0, col0 + j, rows, n, ring->host, side, &held);
    else
      pack_beside(st, x, ld, esize, row0, col0 + j, rows, n, ring->host, side, &held);
    sg->pack_s += hop_now() - t1;
    sg->pack_beside_s += sg->enqueue_s - sent;
    sg->pack_bytes += (double)n * (double)col_bytes;
    upload_send(&held); /* the previous chunk, unless it went beside */
    held.r = r, held.j = j, held.n = n;
    if (!beside)
      upload_send(&held);
  }
  upload_send(&held);
  if (held.err != CL_SUCCESS)
    return held.err;
  clRetainEvent(held.last);
  *done = held.last;
  return CL_SUCCESS;
}

cl_int hop_ocl_stage_upload(struct hop_ocl_state *st, struct hop_ocl_stager *sg, const void *x,
                            const struct hop_plane_view *view, int ld, size_t esize, int row0,
                            int col0, int rows, int cols, cl_mem dev, cl_event after,
                            cl_event *done)
{
  return stage_upload(st, sg, x, view, ld, esize, row0, col0, rows, cols, dev, 0, 0, 0, after,
                      done);
}

cl_int hop_ocl_stage_upload_into(struct hop_ocl_state *st, struct hop_ocl_stager *sg,
                                 const void *x, const struct hop_plane_view *view, int ld,
                                 size_t esize, int row0, int col0, int rows, int cols, cl_mem dev,
                                 int dev_ld, int dev_r0, int dev_c0, cl_event after,
                                 cl_event *done)
{
  return stage_upload(st, sg, x, view, ld, esize, row0, col0, rows, cols, dev, dev_ld, dev_r0,
                      dev_c0, after, done);
}

cl_int hop_ocl_stage_upload_at(struct hop_ocl_state *st, struct hop_ocl_stager *sg, const void *x,
                               int ld, size_t esize, int row0, int col0, int rows, int cols,
                               cl_mem dev, int dev_ld, cl_event *done)
{
  return stage_upload(st, sg, x, NULL, ld, esize, row0, col0, rows, cols, dev, dev_ld, row0, col0,
                      NULL, done);
}
