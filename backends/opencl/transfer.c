/* Host memory <-> device buffers.  The pool keeps its buffers across calls
 * (a new pinned buffer per call would cost more than small GEMMs);
 * zero-copy wraps the caller's memory where its alignment allows; blocks
 * are packed densely otherwise.  C is only ever written here, by the host,
 * from a tile that the device has completely finished.
 *
 * Large copies between the caller's memory and the pinned staging buffers
 * are split by columns over a few worker threads: one core cannot keep up
 * with a discrete GPU's link.  The workers are created on the first large
 * copy, under the engine lock (every copy runs under it), and live as long
 * as the engine; a forked child never uses them (the engine is off there). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ocl.h"

enum {
  COPY_MAX_THREADS = 64,
  COPY_DEFAULT_MAX = 8,          /* more threads than this rarely add bandwidth */
  COPY_MIN_BYTES = 1 << 20,      /* below this, waking workers costs more than it saves */
  COPY_MIN_PART = 256 << 10,     /* each thread copies at least this much */
};

typedef void copy_fn(void *arg, int j0, int j1);

struct copy_worker {
  struct hop_ocl_copy *cp;
  int part; /* which share of each job it copies (1..; the caller copies share 0) */
  pthread_t tid;
};

struct hop_ocl_copy {
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  int threads;         /* workers started, plus the calling thread */
  bool quit;
  unsigned long round; /* one per job: a worker runs each round once */
  copy_fn *fn;         /* the job: columns [0, cols) in `parts` shares */
  void *arg;
  int cols, parts, left;
  struct copy_worker w[COPY_MAX_THREADS];
};

static void share(int cols, int parts, int part, int *j0, int *j1)
{
  *j0 = (int)((long long)cols * part / parts);
  *j1 = (int)((long long)cols * (part + 1) / parts);
}

static void *copy_worker_main(void *arg)
{
  struct copy_worker *w = arg;
  struct hop_ocl_copy *cp = w->cp;
  unsigned long seen = 0;
  pthread_mutex_lock(&cp->lock);
  for (;;) {
    while (cp->round == seen && !cp->quit)
      pthread_cond_wait(&cp->go, &cp->lock);
    if (cp->quit)
      break;
    seen = cp->round;
    if (w->part >= cp->parts)
      continue;
    int j0, j1;
    share(cp->cols, cp->parts, w->part, &j0, &j1);
    copy_fn *fn = cp->fn;
    void *job = cp->arg;
    pthread_mutex_unlock(&cp->lock);
    fn(job, j0, j1);
    pthread_mutex_lock(&cp->lock);
    if (--cp->left == 0)
      pthread_cond_signal(&cp->done);
  }
  pthread_mutex_unlock(&cp->lock);
  return NULL;
}

/* The workers, created on first use; NULL: copy on the calling thread. */
static struct hop_ocl_copy *copy_pool(struct hop_ocl_state *st)
{
  if (st->pool.copy != NULL || st->pool.copy_tried)
    return st->pool.copy;
  st->pool.copy_tried = true;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  long dflt = cores < 1 ? 1 : cores < COPY_DEFAULT_MAX ? cores : COPY_DEFAULT_MAX;
  long want = hop_config_int("HOPBLAS_OPENCL_COPY_THREADS", 0, COPY_MAX_THREADS, 0);
  if (want == 0)
    want = dflt;
  if (want < 2)
    return NULL;
  struct hop_ocl_copy *cp = calloc(1, sizeof *cp);
  if (cp == NULL)
    return NULL;
  pthread_mutex_init(&cp->lock, NULL);
  pthread_cond_init(&cp->go, NULL);
  pthread_cond_init(&cp->done, NULL);
  /* The workers take none of the host program's signals. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int started = 0;
  for (int i = 1; i < want; i++) {
    cp->w[started] = (struct copy_worker){.cp = cp, .part = i};
    if (pthread_create(&cp->w[started].tid, NULL, copy_worker_main, &cp->w[started]) != 0)
      break;
    started++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  cp->threads = started + 1;
  hop_log(3, "opencl: %d threads copy between host memory and staging buffers", cp->threads);
  if (started == 0) {
    pthread_cond_destroy(&cp->done);
    pthread_cond_destroy(&cp->go);
    pthread_mutex_destroy(&cp->lock);
    free(cp);
    return NULL;
  }
  return st->pool.copy = cp;
}

static void copy_pool_release(struct hop_ocl_state *st)
{
  struct hop_ocl_copy *cp = st->pool.copy;
  st->pool.copy = NULL;
  st->pool.copy_tried = false;
  if (cp == NULL)
    return;
  pthread_mutex_lock(&cp->lock);
  cp->quit = true;
  pthread_cond_broadcast(&cp->go);
  pthread_mutex_unlock(&cp->lock);
  for (int i = 0; i < cp->threads - 1; i++)
    pthread_join(cp->w[i].tid, NULL);
  pthread_cond_destroy(&cp->done);
  pthread_cond_destroy(&cp->go);
  pthread_mutex_destroy(&cp->lock);
  free(cp);
}

/* Run fn over columns [0, cols) of a copy of `bytes` bytes: in shares on
 * the workers when it is large, else here.  Returns when every share is done. */
static void copy_columns(struct hop_ocl_state *st, size_t bytes, int cols, copy_fn *fn, void *arg)
{
  struct hop_ocl_copy *cp = bytes >= COPY_MIN_BYTES && cols > 1 ? copy_pool(st) : NULL;
  size_t by_size = bytes / COPY_MIN_PART;
  int parts = cp == NULL ? 1 : cp->threads;
  parts = (size_t)parts > by_size ? (int)by_size : parts;
  parts = parts > cols ? cols : parts;
  if (parts < 2) {
    fn(arg, 0, cols);
    return;
  }
  pthread_mutex_lock(&cp->lock);
  cp->fn = fn, cp->arg = arg, cp->cols = cols, cp->parts = parts, cp->left = parts - 1;
  cp->round++;
  pthread_cond_broadcast(&cp->go);
  pthread_mutex_unlock(&cp->lock);
  int j0, j1;
  share(cols, parts, 0, &j0, &j1);
  fn(arg, j0, j1);
  pthread_mutex_lock(&cp->lock);
  while (cp->left > 0)
    pthread_cond_wait(&cp->done, &cp->lock);
  pthread_mutex_unlock(&cp->lock);
}

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
  copy_pool_release(st);
  for (int x = 0; x < 3; x++)
    for (int i = 0; i < 2; i++) {
      slot_release(st, &st->pool.dev[x][i]);
      slot_release(st, &st->pool.stage[x][i]);
    }
}

cl_int hop_ocl_slot_ensure(struct hop_ocl_state *st, struct hop_ocl_slot *s, size_t size,
                           cl_mem_flags flags, bool mapped)
{
  if (s->mem != NULL && s->size >= size)
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
  for (int j = j0; j < j1; j++)
    memcpy(p->out + (size_t)j * p->run, p->src + (size_t)j * p->ld_bytes, p->run);
}

/* Copy the rows x cols block at (row0, col0) of a column-major matrix into
 * dst, densely (ld = rows). */
void hop_ocl_pack(struct hop_ocl_state *st, const void *x, int ld, size_t esize, int row0,
                  int col0, int rows, int cols, void *dst)
{
  struct pack_job p = {.src = (const unsigned char *)x + hop_at(row0, col0, ld) * esize,
                       .out = dst, .ld_bytes = (size_t)ld * esize, .run = (size_t)rows * esize};
  copy_columns(st, p.run * (size_t)cols, cols, pack_columns, &p);
}

struct unpack_job {
  const struct hop_gemm *g;
  bool accumulated;
  const void *src;
  int i0, j0, rows;
};

static void unpack_columns(void *arg, int j0, int j1)
{
  const struct unpack_job *u = arg;
  const struct hop_gemm *g = u->g;
  int rows = u->rows;
  if (!u->accumulated) {
    size_t e = hop_dtype_c_size(g->dtype), run = (size_t)rows * e;
    for (int j = j0; j < j1; j++)
      memcpy((unsigned char *)g->c + hop_at(u->i0, u->j0 + j, g->ldc) * e,
             (const unsigned char *)u->src + (size_t)j * run, run);
    return;
  }
  const float *acc = u->src;
  for (int j = j0; j < j1; j++) {
    const float *a = acc + (size_t)j * rows;
    size_t at = hop_at(u->i0, u->j0 + j, g->ldc);
    if (g->dtype == HOP_DTYPE_H) {
      uint16_t *c = (uint16_t *)g->c + at;
      for (int i = 0; i < rows; i++)
        c[i] = hop_float_to_half(g->beta == 0.0f ? a[i] : a[i] + g->beta * hop_half_to_float(c[i]));
    } else {
      float *c = (float *)g->c + at;
      for (int i = 0; i < rows; i++)
        c[i] = g->beta == 0.0f ? a[i] : a[i] + g->beta * c[i];
    }
  }
}

/* Write a finished rows x cols tile (dense, ld = rows) into C at (i0, j0).
 * `accumulated`: the tile holds alpha op(A) op(B) in float (k was cut) and
 * beta * C is added here; else it holds the final values in C's type.
 * Every column is written when this returns (nothing here can fail). */
void hop_ocl_unpack_c(struct hop_ocl_state *st, const struct hop_gemm *g, bool accumulated,
                      const void *src, int i0, int j0, int rows, int cols)
{
  struct unpack_job u = {.g = g, .accumulated = accumulated, .src = src, .i0 = i0, .j0 = j0,
                         .rows = rows};
  size_t e = accumulated ? 4 : hop_dtype_c_size(g->dtype);
  copy_columns(st, (size_t)rows * (size_t)cols * e, cols, unpack_columns, &u);
}
