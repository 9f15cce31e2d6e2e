/* One call through the device: the plan's tiles of C go through two C
 * slots in turn, so that while the host waits for one tile's read-back and
 * writes it into C, the next tile's uploads, kernels and read-back are
 * already queued.  Uploads, kernels and downloads use three in-order queues
 * tied together by events; A and B blocks sit in two slots each and are
 * reused while the next tile needs the same block.
 *
 * C on the host is written only by the host, from a tile the device has
 * completely finished.  After an error every tile is either final or
 * untouched: with none final the call fails before C was touched (the
 * router runs the CPU engine); otherwise the CPU finishes the untouched
 * tiles here. */
#include <stdlib.h>
#include <string.h>

#include "family.h"

struct op_slot {     /* an A or B block on the device */
  bool valid;
  int r0, c0;        /* its corner in op(X) */
  cl_mem wrap;       /* zero-copy: a buffer over the caller's memory, else NULL */
  cl_mem mem;
  cl_ulong off;
  int ld;
  cl_event ready;    /* upload (or unmap) done */
  cl_event last_use; /* the last kernel that reads it */
};

struct c_slot {
  bool busy;         /* a tile is in flight in it */
  size_t tile;
  int i0, j0, rows, cols;
  cl_mem wrap_in;    /* zero-copy: C's host region, read when beta != 0 */
  cl_event ready;    /* C input in place */
  cl_event done;     /* read-back (staged) or map (zero-copy) complete */
  cl_event unmapped; /* zero-copy: the map released, the kernel may write again */
  void *mapped;
};

struct call {
  struct hop_ocl_state *st;
  const struct hop_gemm *g;
  struct hop_ocl_plan p;
  bool staged;
  struct op_slot ops[2][2]; /* [A, B][slot] */
  int recent[2];
  struct c_slot cs[2];
  unsigned char *final;     /* per tile: C on the host holds its final values */
  size_t ntiles, nfinal;
  cl_int err;
  const char *what;         /* the step that failed */
};

static bool fail(struct call *c, cl_int err, const char *what)
{
  if (c->err == CL_SUCCESS) {
    c->err = err;
    c->what = what;
  }
  return false;
}

/* Replace the event held in *slot (taking ownership of ev). */
static void ev_put(cl_event *slot, cl_event ev)
{
  if (*slot != NULL)
    clReleaseEvent(*slot);
  *slot = ev;
}

static void ev_share(cl_event *slot, cl_event ev)
{
  clRetainEvent(ev);
  ev_put(slot, ev);
}

static void flush_all(struct call *c)
{
  for (int q = 0; q < HOP_OCL_QUEUES; q++)
    clFlush(c->st->q[q]);
}

/* Wait for ev; its command's own failure counts too. */
static cl_int wait_ok(struct call *c, cl_event ev)
{
  if (ev == NULL)
    return CL_SUCCESS;
  flush_all(c); /* a cross-queue wait must not hang on an unflushed queue */
  cl_int err = clWaitForEvents(1, &ev), status = CL_COMPLETE;
  if (err == CL_SUCCESS || err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  return err != CL_SUCCESS ? err : status < 0 ? status : CL_SUCCESS;
}

static cl_uint wait_list(cl_event *out, cl_event a, cl_event b, cl_event c, cl_event d)
{
  cl_uint n = 0;
  cl_event in[4] = {a, b, c, d};
  for (int i = 0; i < 4; i++)
    if (in[i] != NULL)
      out[n++] = in[i];
  return n;
}

/* The rows x cols block of op(X) at (r0, c0) on the device: reused when a
 * slot holds it, else wrapped (zero-copy) or packed and uploaded. */
static struct op_slot *provide(struct call *c, int x, int r0, int c0, int rows, int cols)
{
  struct hop_ocl_state *st = c->st;
  const struct hop_gemm *g = c->g;
  struct op_slot *slots = c->ops[x];
  for (int i = 0; i < 2; i++)
    if (slots[i].valid && slots[i].r0 == r0 && slots[i].c0 == c0) {
      c->recent[x] = i;
      return &slots[i];
    }
  int i = c->recent[x] = 1 - c->recent[x];
  struct op_slot *o = &slots[i];
  bool trans = x == 0 ? g->ta : g->tb;
  const unsigned char *base = x == 0 ? g->a : g->b;
  int ld = x == 0 ? g->lda : g->ldb;
  size_t e = hop_dtype_ab_size(g->dtype);
  int sr = trans ? c0 : r0, sc = trans ? r0 : c0, srows = trans ? cols : rows,
      scols = trans ? rows : cols;
  size_t dense = (size_t)srows * (size_t)scols * e;
  size_t full = (size_t)(x == 0 ? c->p.tm : c->p.tn) * (size_t)c->p.tk * e;
  struct hop_ocl_slot *dev = &st->pool.dev[x][i];
  cl_event wl[1], ev = NULL;
  cl_uint nw = wait_list(wl, o->last_use, NULL, NULL, NULL);
  cl_int err;
  o->valid = false;
  if (o->wrap != NULL) { /* the runtime keeps it alive until its kernels are done */
    clReleaseMemObject(o->wrap);
    o->wrap = NULL;
  }
  if (st->family->provide != NULL) { /* image families pack op(X) blocks themselves */
    struct hop_ocl_block blk = {.x = x, .slot = i, .r0 = r0, .c0 = c0, .rows = rows,
                                .cols = cols, .staged = c->staged, .last_use = o->last_use,
                                .uploaded = o->ready};
    err = st->family->provide(st, g, &blk, &o->mem, &o->ld, &ev);
    if (err != CL_SUCCESS)
      return fail(c, err, "packing an operand"), NULL;
    ev_put(&o->ready, ev);
    o->off = 0;
  } else if (!c->staged) {
    size_t region = ((size_t)(scols - 1) * (size_t)ld + (size_t)srows) * e;
    o->wrap = hop_ocl_wrap(st, base + hop_at(sr, sc, ld) * e, region, e, &o->off, &err);
    if (err != CL_SUCCESS)
      return fail(c, err, "wrapping an operand"), NULL;
    if (o->wrap != NULL) {
      o->mem = o->wrap;
      o->ld = ld;
      ev_put(&o->ready, NULL);
    } else { /* not element-aligned, or the region too large: pack through a map */
      err = hop_ocl_slot_ensure(st, dev, full, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, false);
      if (err != CL_SUCCESS)
        return fail(c, err, "allocating an operand buffer"), NULL;
      flush_all(c);
      void *ptr = clEnqueueMapBuffer(st->q[HOP_OCL_Q_UP], dev->mem, CL_TRUE,
                                     CL_MAP_WRITE_INVALIDATE_REGION, 0, dense, nw,
                                     nw ? wl : NULL, NULL, &err);
      if (err != CL_SUCCESS)
        return fail(c, err, "mapping an operand buffer"), NULL;
      hop_ocl_pack(st, base, ld, e, sr, sc, srows, scols, ptr);
      err = clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_UP], dev->mem, ptr, 0, NULL, &ev);
      if (err != CL_SUCCESS)
        return fail(c, err, "unmapping an operand buffer"), NULL;
      ev_put(&o->ready, ev);
      o->mem = dev->mem, o->off = 0, o->ld = srows;
    }
  } else {
    struct hop_ocl_slot *stage = &st->pool.stage[x][i];
    err = hop_ocl_slot_ensure(st, dev, full, CL_MEM_READ_ONLY, false);
    if (err == CL_SUCCESS)
      err = hop_ocl_slot_ensure(st, stage, full, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, true);
    if (err == CL_SUCCESS)
      err = wait_ok(c, o->ready); /* the staging buffer's last upload has left it */
    if (err != CL_SUCCESS)
      return fail(c, err, "allocating an operand buffer"), NULL;
    hop_ocl_pack(st, base, ld, e, sr, sc, srows, scols, stage->host);
    err = clEnqueueWriteBuffer(st->q[HOP_OCL_Q_UP], dev->mem, CL_FALSE, 0, dense, stage->host, nw,
                               nw ? wl : NULL, &ev);
    if (err != CL_SUCCESS)
      return fail(c, err, "uploading an operand"), NULL;
    ev_put(&o->ready, ev);
    o->mem = dev->mem, o->off = 0, o->ld = srows;
  }
  o->r0 = r0, o->c0 = c0, o->valid = true;
  return o;
}

/* C's input for tile cs when beta != 0 and k is whole; *cin set for the kernel. */
static bool c_input(struct call *c, struct c_slot *cs, struct hop_ocl_launch *l)
{
  struct hop_ocl_state *st = c->st;
  const struct hop_gemm *g = c->g;
  size_t e = hop_dtype_c_size(g->dtype), bytes = (size_t)cs->rows * (size_t)cs->cols * e;
  struct hop_ocl_slot *dev = &st->pool.dev[2][cs - c->cs];
  const unsigned char *first = (const unsigned char *)g->c + hop_at(cs->i0, cs->j0, g->ldc) * e;
  cl_event ev = NULL;
  cl_int err = CL_SUCCESS;
  l->cin = dev->mem, l->cin_off = 0, l->ldcin = cs->rows;
  if (c->staged) {
    struct hop_ocl_slot *stage = &st->pool.stage[2][cs - c->cs];
    hop_ocl_pack(st, g->c, g->ldc, e, cs->i0, cs->j0, cs->rows, cs->cols, stage->host);
    err = clEnqueueWriteBuffer(st->q[HOP_OCL_Q_UP], dev->mem, CL_FALSE, 0, bytes, stage->host, 0,
                               NULL, &ev);
  } else {
    size_t region = ((size_t)(cs->cols - 1) * (size_t)g->ldc + (size_t)cs->rows) * e;
    cs->wrap_in = hop_ocl_wrap(st, first, region, e, &l->cin_off, &err);
    if (cs->wrap_in != NULL) {
      l->cin = cs->wrap_in, l->ldcin = g->ldc;
      return true;
    }
    cl_event wl[1];
    cl_uint nw = wait_list(wl, cs->unmapped, NULL, NULL, NULL);
    void *ptr = NULL;
    if (err == CL_SUCCESS) {
      flush_all(c);
      ptr = clEnqueueMapBuffer(st->q[HOP_OCL_Q_UP], dev->mem, CL_TRUE,
                               CL_MAP_WRITE_INVALIDATE_REGION, 0, bytes, nw, nw ? wl : NULL, NULL,
                               &err);
    }
    if (err == CL_SUCCESS) {
      hop_ocl_pack(st, g->c, g->ldc, e, cs->i0, cs->j0, cs->rows, cs->cols, ptr);
      err = clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_UP], dev->mem, ptr, 0, NULL, &ev);
    }
  }
  if (err != CL_SUCCESS)
    return fail(c, err, "passing C to the device");
  ev_put(&cs->ready, ev);
  return true;
}

/* Queue everything for tile t in slot cs: operands, kernels, read-back. */
static bool tile_start(struct call *c, struct c_slot *cs, size_t t)
{
  struct hop_ocl_state *st = c->st;
  const struct hop_gemm *g = c->g;
  const struct hop_ocl_plan *p = &c->p;
  int ti = (int)(t / (size_t)p->tiles_n), tj = (int)(t % (size_t)p->tiles_n);
  cs->tile = t;
  ev_put(&cs->ready, NULL);
  ev_put(&cs->done, NULL);
  cs->i0 = ti * p->tm, cs->j0 = tj * p->tn;
  cs->rows = g->m - cs->i0 < p->tm ? g->m - cs->i0 : p->tm;
  cs->cols = g->n - cs->j0 < p->tn ? g->n - cs->j0 : p->tn;
  size_t slot_bytes = (size_t)p->tm * (size_t)p->tn * p->c_esize;
  size_t bytes = (size_t)cs->rows * (size_t)cs->cols * p->c_esize;
  int si = (int)(cs - c->cs);
  struct hop_ocl_slot *dev = &st->pool.dev[2][si], *stage = &st->pool.stage[2][si];
  cl_mem_flags flags = CL_MEM_READ_WRITE | (c->staged ? 0 : CL_MEM_ALLOC_HOST_PTR);
  cl_int err = hop_ocl_slot_ensure(st, dev, slot_bytes, flags, false);
  if (err == CL_SUCCESS && c->staged)
    err = hop_ocl_slot_ensure(st, stage, slot_bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                              true);
  if (err != CL_SUCCESS)
    return fail(c, err, "allocating a C buffer");
  struct hop_ocl_launch l = {
    .kernel = p->kernel, .m = cs->rows, .n = cs->cols, .alpha = g->alpha, .ta = g->ta,
    .tb = g->tb, .cin = dev->mem, .cout = dev->mem, .ldcin = cs->rows, .ldcout = cs->rows,
  };
  if (!p->ksplit && g->beta != 0.0f && !c_input(c, cs, &l))
    return false;
  cl_event kev = NULL;
  for (int ch = 0; ch < p->chunks; ch++) {
    int k0 = ch * p->tk, kb = g->k - k0 < p->tk ? g->k - k0 : p->tk;
    struct op_slot *a = provide(c, 0, cs->i0, k0, cs->rows, kb);
    struct op_slot *b = a ? provide(c, 1, k0, cs->j0, kb, cs->cols) : NULL;
    if (b == NULL)
      return false;
    l.k = kb;
    l.a = a->mem, l.a_off = a->off, l.lda = a->ld;
    l.b = b->mem, l.b_off = b->off, l.ldb = b->ld;
    /* A cut k: chunk 0 starts the float sum, the others add to it; beta waits for the host. */
    l.beta = p->ksplit ? (ch == 0 ? 0.0f : 1.0f) : g->beta;
    cl_event wl[4];
    cl_uint nw = wait_list(wl, a->ready, b->ready, cs->ready, cs->unmapped);
    ev_put(&kev, NULL);
    err = hop_ocl_family_launch(st, &l, nw, wl, &kev); /* slabs, queue window: family.c */
    if (err != CL_SUCCESS)
      return fail(c, err, "enqueueing a kernel");
    ev_share(&a->last_use, kev);
    ev_share(&b->last_use, kev);
  }
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_READ)) {
    err = CL_OUT_OF_RESOURCES;
  } else if (c->staged) {
    err = clEnqueueReadBuffer(st->q[HOP_OCL_Q_DOWN], dev->mem, CL_FALSE, 0, bytes, stage->host, 1,
                              &kev, &cs->done);
  } else {
    cs->mapped = clEnqueueMapBuffer(st->q[HOP_OCL_Q_DOWN], dev->mem, CL_FALSE, CL_MAP_READ, 0,
                                    bytes, 1, &kev, &cs->done, &err);
    if (err != CL_SUCCESS)
      cs->mapped = NULL;
  }
  ev_put(&kev, NULL);
  if (err != CL_SUCCESS)
    return fail(c, err, "reading C back");
  cs->busy = true;
  flush_all(c);
  return true;
}

/* Wait for slot cs's tile and write it into C; after an error, the same
 * keeps a tile whose read-back had already completed. */
static bool tile_finish(struct call *c, struct c_slot *cs)
{
  struct hop_ocl_state *st = c->st;
  cl_int err = wait_ok(c, cs->done);
  cs->busy = false;
  if (err != CL_SUCCESS)
    return fail(c, err, "reading C back");
  const void *src = c->staged ? st->pool.stage[2][cs - c->cs].host : cs->mapped;
  hop_ocl_unpack_c(st, c->g, c->p.ksplit, src, cs->i0, cs->j0, cs->rows, cs->cols);
  c->final[cs->tile] = 1;
  c->nfinal++;
  if (cs->mapped != NULL) {
    cl_event ev = NULL;
    err = clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_DOWN], st->pool.dev[2][cs - c->cs].mem,
                                  cs->mapped, 0, NULL, &ev);
    cs->mapped = NULL;
    ev_put(&cs->unmapped, ev);
    if (err != CL_SUCCESS)
      return fail(c, err, "unmapping C");
  }
  if (cs->wrap_in != NULL) {
    clReleaseMemObject(cs->wrap_in);
    cs->wrap_in = NULL;
  }
  return true;
}

/* Nothing may touch host memory after the call returns: drain and release. */
static void call_end(struct call *c)
{
  struct hop_ocl_state *st = c->st;
  flush_all(c);
  for (int q = 0; q < HOP_OCL_QUEUES; q++)
    clFinish(st->q[q]);
  for (int i = 0; i < 2; i++) {
    struct c_slot *cs = &c->cs[i];
    if (cs->mapped != NULL) {
      clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_DOWN], st->pool.dev[2][i].mem, cs->mapped, 0, NULL,
                              NULL);
      clFinish(st->q[HOP_OCL_Q_DOWN]);
    }
    if (cs->wrap_in != NULL)
      clReleaseMemObject(cs->wrap_in);
    ev_put(&cs->ready, NULL);
    ev_put(&cs->done, NULL);
    ev_put(&cs->unmapped, NULL);
    for (int x = 0; x < 2; x++) {
      struct op_slot *o = &c->ops[x][i];
      if (o->wrap != NULL)
        clReleaseMemObject(o->wrap);
      ev_put(&o->ready, NULL);
      ev_put(&o->last_use, NULL);
    }
  }
}

/* The tiles the device did not finish, on the CPU (C there is untouched). */
static void finish_on_cpu(struct call *c)
{
  const struct hop_gemm *g = c->g;
  size_t e = hop_dtype_ab_size(g->dtype), ec = hop_dtype_c_size(g->dtype);
  for (size_t t = 0; t < c->ntiles; t++) {
    if (c->final[t])
      continue;
    int i0 = (int)(t / (size_t)c->p.tiles_n) * c->p.tm;
    int j0 = (int)(t % (size_t)c->p.tiles_n) * c->p.tn;
    struct hop_gemm sub = *g;
    sub.m = g->m - i0 < c->p.tm ? g->m - i0 : c->p.tm;
    sub.n = g->n - j0 < c->p.tn ? g->n - j0 : c->p.tn;
    size_t a_at = g->ta ? hop_at(0, i0, g->lda) : hop_at(i0, 0, g->lda);
    size_t b_at = g->tb ? hop_at(j0, 0, g->ldb) : hop_at(0, j0, g->ldb);
    sub.a = (const unsigned char *)g->a + a_at * e;
    sub.b = (const unsigned char *)g->b + b_at * e;
    sub.c = (unsigned char *)g->c + hop_at(i0, j0, g->ldc) * ec;
    hop_cpu_gemm(&sub);
  }
}

enum hop_status hop_ocl_run(struct hop_ocl_state *st, const struct hop_gemm *g)
{
  struct call c = {.st = st, .g = g, .staged = st->memory == HOP_OCL_STAGED};
  if (st->family->limits != NULL)
    st->family->limits(st, g, &c.p);
  if (!hop_ocl_plan_make(g, st->memory, st->cap, &c.p)) {
    hop_log(2, "opencl: no tiling of %dx%dx%d fits buffers of %zu bytes; declined", g->m, g->n,
            g->k, st->cap);
    return HOP_DECLINED;
  }
  c.ntiles = (size_t)c.p.tiles_m * (size_t)c.p.tiles_n;
  c.final = calloc(c.ntiles, 1);
  if (c.final == NULL)
    return HOP_ERR_NOMEM;
  for (size_t t = 0; t < c.ntiles; t++) {
    struct c_slot *cs = &c.cs[t % 2];
    if ((cs->busy && !tile_finish(&c, cs)) || !tile_start(&c, cs, t))
      break;
  }
  for (size_t t = c.ntiles; t < c.ntiles + 2 && c.err == CL_SUCCESS; t++)
    if (c.cs[t % 2].busy)
      tile_finish(&c, &c.cs[t % 2]);
  if (c.err != CL_SUCCESS) { /* keep what the device already finished */
    flush_all(&c);
    for (int q = 0; q < HOP_OCL_QUEUES; q++)
      clFinish(st->q[q]);
    for (int i = 0; i < 2; i++)
      if (c.cs[i].busy)
        tile_finish(&c, &c.cs[i]);
  }
  call_end(&c);
  enum hop_status rc = HOP_OK;
  if (c.err == CL_SUCCESS) {
    st->failures = 0;
  } else {
    st->failures++;
    if (c.nfinal == 0) {
      hop_log(2, "opencl: %s failed (error %d); C untouched", c.what, (int)c.err);
      rc = hop_ocl_status(c.err);
    } else {
      hop_log(1, "opencl: %s failed (error %d) after %zu of %zu tiles; the CPU finished the rest",
              c.what, (int)c.err, c.nfinal, c.ntiles);
      finish_on_cpu(&c);
    }
  }
  free(c.final);
  return rc;
}
