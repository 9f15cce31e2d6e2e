/* Batched GEMM on the OpenCL engine: the problems of a batch packed into
 * one buffer per operand and computed by one launch of the family's batched
 * kernel (kernels/gemm_generic.cl's sgemm_batched_generic and
 * dgemm_batched_generic, the generic GEMM's tiles and k loop): a work-group
 * per tile of a problem, the problems along the grid's third dimension,
 * each described by a row of a descriptor buffer.  A batch larger than the
 * device's buffers (or than 65535 problems, the third dimension NVIDIA's
 * OpenCL takes) goes in several such launches, one after another.
 *
 * Complex problems (c, z) go as their real embeddings, written while packing
 * (hop_complex_embed: A' = [Ar Ai] (m x 2k), B' = [Br Bi; -Bi Br] (2k x 2n)),
 * and the kernel's C' = A' B' = [Pr Pi] comes back as P; the host writes
 * C = alpha P + beta C (hop_complex_combine: C read only where beta != 0).
 *
 * C is written only by the host, from a launch the device has finished; a
 * failure before that leaves C untouched (the router runs the CPU engine),
 * after it the CPU finishes the problems the device did not.  A flushing
 * device declines batches: no results are recomputed here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "tune.h"

enum { DESC = 16,            /* ulongs per problem: kernels/gemm_generic.cl's BATCH_DESC */
       MAX_PROBLEMS = 65535 }; /* per launch */

struct problem {
  struct hop_call g;
  size_t a_at, b_at, c_at; /* element offsets in the launch's packed buffers */
};

struct launch {
  struct hop_ocl_state *st;
  struct problem *p;
  size_t first, end; /* problems [first, end) */
  size_t a_elems, b_elems, c_elems;
  int tiles_m, tiles_n;
  bool c_in; /* a problem with beta != 0: C goes up too */
};

static bool is_complex(const struct hop_call *g) { return hop_dtype_info(g->dtype)->is_complex; }

/* The family's batched kernel for dt and the tiles it was built with. */
static bool batch_kernel(const struct hop_ocl_state *st, enum hop_dtype dt, cl_kernel *kn,
                         const struct hop_ocl_params **params)
{
  dt = hop_dtype_real(dt);
  enum hop_ocl_kernel k = dt == HOP_DTYPE_D ? HOP_OCL_DGEMM_BATCH : HOP_OCL_SGEMM_BATCH;
  const struct hop_ocl_program *pr = &st->prog;
  if (pr->kernel[k] != NULL) {
    *kn = pr->kernel[k];
    *params = dt == HOP_DTYPE_D ? &pr->fp64_params : &pr->params;
    return true;
  }
  for (int u = 0; u < pr->units; u++)
    if (pr->unit[u].kernel[k] != NULL) {
      *kn = pr->unit[u].kernel[k];
      *params = &pr->unit[u].params;
      return true;
    }
  return false;
}

/* Real elements of the packed A, B and C of a problem (a complex one's embedding). */
static void sizes(const struct hop_call *g, size_t *a, size_t *b, size_t *c)
{
  size_t x = is_complex(g) ? 2 : 1;
  *a = (size_t)g->m * (size_t)g->k * x, *b = (size_t)g->k * (size_t)g->n * x * x;
  *c = (size_t)g->m * (size_t)g->n * x;
}

/* Columns of the device's C of a problem. */
static int64_t device_n(const struct hop_call *g) { return is_complex(g) ? 2 * g->n : g->n; }

/* The next launch from problem `first`: as many problems as the buffers
 * (cap bytes each) and the grid take. */
static void next_launch(struct launch *l, size_t count, size_t first, size_t e, size_t cap,
                        const struct hop_ocl_params *pp)
{
  *l = (struct launch){.st = l->st, .p = l->p, .first = first, .end = first};
  while (l->end < count && l->end - first < MAX_PROBLEMS) {
    struct problem *p = &l->p[l->end];
    size_t a, b, c;
    sizes(&p->g, &a, &b, &c);
    if (l->end > first && ((l->a_elems + a) * e > cap || (l->b_elems + b) * e > cap ||
                           (l->c_elems + c) * e > cap))
      break;
    p->a_at = l->a_elems, p->b_at = l->b_elems, p->c_at = l->c_elems;
    l->a_elems += a, l->b_elems += b, l->c_elems += c;
    l->c_in = l->c_in || (!is_complex(&p->g) && !hop_scalar_is_zero(p->g.beta));
    int tm = (int)((p->g.m + pp->mwg - 1) / pp->mwg);
    int tn = (int)((device_n(&p->g) + pp->nwg - 1) / pp->nwg);
    l->tiles_m = tm > l->tiles_m ? tm : l->tiles_m;
    l->tiles_n = tn > l->tiles_n ? tn : l->tiles_n;
    l->end++;
  }
}

/* ---- the host's copies, problems shared over the copy threads ------------ */

struct copy_job {
  const struct launch *l;
  unsigned char *a, *b, *c; /* pinned images of the buffers */
  cl_ulong *desc;
  size_t e;
};

static cl_ulong real_bits(enum hop_dtype dt, double v)
{
  if (dt == HOP_DTYPE_D) {
    cl_ulong bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
  }
  float f = (float)v;
  cl_uint bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}

/* rows x cols of x (column-major, ld) densely into dst.  Plain copies: the
 * problems themselves are what is shared over the copy threads. */
static void pack(unsigned char *dst, const void *x, int64_t ld, int64_t rows, int64_t cols,
                 size_t e)
{
  for (int64_t j = 0; j < cols; j++)
    memcpy(dst + (size_t)j * (size_t)rows * e, (const unsigned char *)x + hop_at(0, j, ld) * e,
           (size_t)rows * e);
}

static void pack_problems(void *arg, int i0, int i1)
{
  const struct copy_job *j = arg;
  for (size_t i = j->l->first + (size_t)i0; i < j->l->first + (size_t)i1; i++) {
    const struct problem *p = &j->l->p[i];
    const struct hop_call *g = &p->g;
    if (is_complex(g)) {
      hop_complex_embed(g, j->a + p->a_at * j->e, j->b + p->b_at * j->e);
      cl_ulong *d = j->desc + (i - j->l->first) * DESC;
      memset(d, 0, DESC * sizeof *d);
      d[0] = (cl_ulong)g->m, d[1] = (cl_ulong)(2 * g->n), d[2] = (cl_ulong)(2 * g->k);
      d[5] = (cl_ulong)g->m, d[6] = (cl_ulong)(2 * g->k), d[7] = (cl_ulong)g->m;
      d[8] = p->a_at, d[9] = p->b_at, d[10] = p->c_at;
      d[11] = real_bits(hop_dtype_real(g->dtype), 1.0), d[12] = real_bits(hop_dtype_real(g->dtype), 0.0);
      continue;
    }
    bool ta = hop_transposed(g->ta), tb = hop_transposed(g->tb);
    int64_t ar = ta ? g->k : g->m, br = tb ? g->n : g->k;
    pack(j->a + p->a_at * j->e, g->a, g->lda, ar, ta ? g->m : g->k, j->e);
    pack(j->b + p->b_at * j->e, g->b, g->ldb, br, tb ? g->k : g->n, j->e);
    if (!hop_scalar_is_zero(g->beta)) /* else C is write-only: never read */
      pack(j->c + p->c_at * j->e, g->c, g->ldc, g->m, g->n, j->e);
    cl_ulong *d = j->desc + (i - j->l->first) * DESC;
    memset(d, 0, DESC * sizeof *d);
    d[0] = (cl_ulong)g->m, d[1] = (cl_ulong)g->n, d[2] = (cl_ulong)g->k;
    d[3] = ta, d[4] = tb, d[5] = (cl_ulong)ar, d[6] = (cl_ulong)br, d[7] = (cl_ulong)g->m;
    d[8] = p->a_at, d[9] = p->b_at, d[10] = p->c_at;
    d[11] = real_bits(g->dtype, g->alpha.re), d[12] = real_bits(g->dtype, g->beta.re);
  }
}

static void unpack_problems(void *arg, int i0, int i1)
{
  const struct copy_job *j = arg;
  for (size_t i = j->l->first + (size_t)i0; i < j->l->first + (size_t)i1; i++) {
    const struct hop_call *g = &j->l->p[i].g;
    const unsigned char *src = j->c + j->l->p[i].c_at * j->e;
    if (is_complex(g)) {
      hop_complex_combine(g, src);
      continue;
    }
    for (int64_t col = 0; col < g->n; col++)
      memcpy((unsigned char *)g->c + hop_at(0, col, g->ldc) * j->e,
             src + (size_t)col * (size_t)g->m * j->e, (size_t)g->m * j->e);
  }
}

/* ---- one launch ------------------------------------------------------------ */

static cl_int ensure(struct hop_ocl_state *st, struct hop_ocl_slot *dev, struct hop_ocl_slot *pin,
                     size_t bytes)
{
  cl_int err = hop_ocl_slot_ensure(st, dev, bytes, CL_MEM_READ_WRITE, false);
  if (err == CL_SUCCESS)
    err = hop_ocl_slot_ensure(st, pin, bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, true);
  return err;
}

static cl_int upload(struct hop_ocl_state *st, const struct hop_ocl_slot *dev, const void *host,
                     size_t bytes, cl_event *done)
{
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_UPLOAD))
    return CL_OUT_OF_RESOURCES;
  return clEnqueueWriteBuffer(st->q[HOP_OCL_Q_UP], dev->mem, CL_FALSE, 0, bytes, host, 0, NULL,
                              done);
}

/* Pack, upload, launch, read back and unpack one launch's problems; C is
 * written only once everything before succeeded. */
static cl_int run_launch(struct hop_ocl_state *st, const struct launch *l, cl_kernel kn,
                         const struct hop_ocl_params *pp, size_t e)
{
  struct hop_ocl_pool *pool = &st->pool;
  size_t problems = l->end - l->first, desc_bytes = problems * DESC * sizeof(cl_ulong);
  size_t a_bytes = l->a_elems * e, b_bytes = l->b_elems * e, c_bytes = l->c_elems * e;
  cl_int err = ensure(st, &pool->dev[0][0], &pool->stage[0][0], a_bytes);
  if (err == CL_SUCCESS)
    err = ensure(st, &pool->dev[1][0], &pool->stage[1][0], b_bytes);
  if (err == CL_SUCCESS)
    err = ensure(st, &pool->dev[2][0], &pool->stage[2][0], c_bytes);
  if (err == CL_SUCCESS)
    err = ensure(st, &pool->batch[0], &pool->batch[1], desc_bytes);
  if (err != CL_SUCCESS)
    return err;
  struct copy_job job = {l, pool->stage[0][0].host, pool->stage[1][0].host, pool->stage[2][0].host,
                         pool->batch[1].host, e};
  hop_ocl_copy_columns(st, a_bytes + b_bytes + c_bytes, (int)problems, pack_problems, &job);
  cl_event up[4] = {NULL, NULL, NULL, NULL}, kev = NULL, down = NULL;
  cl_uint nup = 0;
  err = upload(st, &pool->dev[0][0], job.a, a_bytes, &up[nup++]);
  if (err == CL_SUCCESS)
    err = upload(st, &pool->dev[1][0], job.b, b_bytes, &up[nup++]);
  if (err == CL_SUCCESS)
    err = upload(st, &pool->batch[0], job.desc, desc_bytes, &up[nup++]);
  if (err == CL_SUCCESS && l->c_in) /* the parts of beta == 0 go too: the kernel never reads them */
    err = upload(st, &pool->dev[2][0], job.c, c_bytes, &up[nup++]);
  cl_uint i = 0;
  if (err == CL_SUCCESS) {
    err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &pool->batch[0].mem);
    err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &pool->dev[0][0].mem);
    err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &pool->dev[1][0].mem);
    err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &pool->dev[2][0].mem);
    err = err != CL_SUCCESS ? CL_INVALID_KERNEL_ARGS : CL_SUCCESS;
  }
  if (err == CL_SUCCESS && hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_ENQUEUE))
    err = CL_OUT_OF_RESOURCES;
  if (err == CL_SUCCESS) {
    size_t local[3] = {(size_t)pp->mdimc, (size_t)pp->ndimc, 1};
    size_t global[3] = {(size_t)l->tiles_m * local[0], (size_t)l->tiles_n * local[1], problems};
    clFlush(st->q[HOP_OCL_Q_UP]);
    err = clEnqueueNDRangeKernel(st->q[HOP_OCL_Q_EXEC], kn, 3, NULL, global, local, nup, up, &kev);
    if (err == CL_SUCCESS)
      st->window.launches++;
  }
  if (err == CL_SUCCESS && hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_READ))
    err = CL_OUT_OF_RESOURCES;
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(st->q[HOP_OCL_Q_DOWN], pool->dev[2][0].mem, CL_FALSE, 0, c_bytes,
                              job.c, 1, &kev, &down);
  if (err == CL_SUCCESS)
    err = hop_ocl_wait(st, down);
  for (int q = 0; q < HOP_OCL_QUEUES; q++) /* nothing may touch the buffers after this */
    clFinish(st->q[q]);
  for (int x = 0; x < 4; x++)
    if (up[x] != NULL)
      clReleaseEvent(up[x]);
  if (kev != NULL)
    clReleaseEvent(kev);
  if (down != NULL)
    clReleaseEvent(down);
  if (err == CL_SUCCESS)
    hop_ocl_copy_columns(st, c_bytes, (int)problems, unpack_problems, &job);
  return err;
}

/* ---- the call ---------------------------------------------------------------- */

double hop_ocl_batch_predict(const struct hop_ocl_state *st, const struct hop_call *g)
{
  const struct hop_ocl_family *f = st->family;
  if (st->flushes || (f->units == NULL && f->kernel_name(HOP_OCL_SGEMM_BATCH) == NULL))
    return -1.0;
  /* The launch fills the device as one GEMM of the whole batch's work would;
   * a problem's own tiles and k bound how well each work-group does. */
  /* A complex problem's embedding: A' twice A's reals, B' four times B's, C' twice C's. */
  double x = is_complex(g) ? 2.0 : 1.0, er = (double)hop_dtype_ab_size(hop_dtype_real(g->dtype));
  double flops = hop_call_flops(g), bytes = 0.0;
  double eff = 0.0, work = 0.0;
  for (size_t i = 0; i < g->batch->groups; i++) {
    const struct hop_batch_group *gr = &g->batch->group[i];
    double mnk = (double)gr->m * (double)gr->n * (double)gr->k, size = cbrt(mnk);
    double mine = (double)gr->count * mnk;
    eff += mine * size / (size + st->model.half_size);
    work += mine;
    bool c_up = x == 1.0 && !hop_scalar_is_zero(gr->beta);
    bytes += (double)gr->count * er * x *
             ((double)gr->m * gr->k + x * (double)gr->k * gr->n + (double)gr->m * gr->n * (c_up ? 2.0 : 1.0));
  }
  double rate = st->model.peak_flops * (work > 0.0 ? eff / work : 1.0);
  if (hop_dtype_real(g->dtype) == HOP_DTYPE_D)
    rate *= st->model.fp64_ratio;
  /* The link and the fixed cost as `hopblas tune` measured them, where it did. */
  const struct hop_ocl_calib *c = hop_ocl_tune_calib(st);
  bool calibrated = c != NULL && c->have;
  double link_s = calibrated ? c->link_bytes_s : st->model.link_bytes_s;
  double link = st->memory == HOP_OCL_STAGED ? bytes / link_s : 0.0;
  return (calibrated ? c->setup_s : st->model.setup_s) + link + (rate > 0.0 ? flops / rate : 1.0);
}

enum hop_status hop_ocl_batch_run(struct hop_ocl_state *st, const struct hop_call *g)
{
  cl_kernel kn;
  const struct hop_ocl_params *pp;
  if (st->flushes || !batch_kernel(st, g->dtype, &kn, &pp))
    return HOP_DECLINED;
  int64_t count = hop_batch_count(g->batch);
  size_t e = hop_dtype_c_size(hop_dtype_real(g->dtype));
  struct problem *p = malloc((size_t)count * sizeof *p);
  if (p == NULL)
    return HOP_ERR_NOMEM;
  size_t n = 0;
  bool fits = true;
  for (size_t i = 0; i < g->batch->groups; i++)
    for (int64_t q = 0; q < g->batch->group[i].count; q++, n++) {
      p[n].g = hop_batch_member(g, &g->batch->group[i], q);
      size_t a, b, c;
      sizes(&p[n].g, &a, &b, &c);
      fits = fits && a * e <= st->cap && b * e <= st->cap && c * e <= st->cap;
    }
  if (!fits) {
    free(p);
    hop_log(2, "opencl: a problem of the batch is larger than a buffer may be; declined");
    return HOP_DECLINED;
  }
  struct launch l = {.st = st, .p = p};
  size_t done = 0;
  cl_int err = CL_SUCCESS;
  while (done < n && err == CL_SUCCESS) {
    next_launch(&l, n, done, e, st->cap, pp);
    err = run_launch(st, &l, kn, pp, e);
    if (err == CL_SUCCESS)
      done = l.end;
  }
  enum hop_status rc = HOP_OK;
  if (err == CL_SUCCESS) {
    st->failures = 0;
  } else {
    st->failures++;
    if (done == 0) {
      hop_log(2, "opencl: a batched launch failed (error %d); C untouched", (int)err);
      rc = hop_ocl_status(err);
    } else {
      hop_log(1, "opencl: a batched launch failed (error %d) after %zu of %zu problems; the CPU "
                 "finished the rest", (int)err, done, n);
      for (size_t i = done; i < n; i++)
        hop_fallback_run(&p[i].g);
    }
  }
  free(p);
  return rc;
}
