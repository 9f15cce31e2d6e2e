/* Zero-copy operands: the device reads the caller's A, B and C where they
 * lie, through buffers wrapped over them, and C comes back through one map
 * of the tile's buffer.  A block the runtime cannot wrap (not element-aligned,
 * or too large) is packed into a mapped buffer instead.  Two slots of each. */
#include "run.h"

/* Map dev's first bytes for writing once `after` is done, pack the block
 * there, unmap; *ready is the unmap.  map_what and unmap_what name the
 * step that failed. */
static bool map_pack(struct hop_ocl_call *c, cl_mem dev, size_t bytes, cl_event after,
                     const void *x, int ld, size_t e, int r0, int c0, int rows, int cols,
                     cl_event *ready, const char *map_what, const char *unmap_what)
{
  struct hop_ocl_state *st = c->st;
  cl_uint nw = after != NULL;
  cl_int err;
  hop_ocl_call_flush(c);
  void *ptr = clEnqueueMapBuffer(st->q[HOP_OCL_Q_UP], dev, CL_TRUE,
                                 CL_MAP_WRITE_INVALIDATE_REGION, 0, bytes, nw,
                                 nw ? &after : NULL, NULL, &err);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, map_what);
  hop_ocl_call_pack(c, x, ld, e, r0, c0, rows, cols, ptr);
  err = clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_UP], dev, ptr, 0, NULL, ready);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, unmap_what);
  return true;
}

static bool block(struct hop_ocl_call *c, struct hop_ocl_op_slot *o, const struct hop_ocl_src *s)
{
  struct hop_ocl_state *st = c->st;
  size_t region = ((size_t)(s->scols - 1) * (size_t)s->ld + (size_t)s->srows) * s->e;
  cl_int err;
  o->wrap = hop_ocl_wrap(st, s->base + hop_at(s->sr, s->sc, s->ld) * s->e, region, s->e, &o->off,
                         &err);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "wrapping an operand");
  if (o->wrap != NULL) {
    o->mem = o->wrap;
    o->ld = s->ld;
    hop_ocl_ev_put(&o->ready, NULL);
    return true;
  }
  struct hop_ocl_slot *dev = &st->pool.dev[s->x][s->slot];
  err = hop_ocl_slot_ensure(st, dev, s->full, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, false);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "allocating an operand buffer");
  cl_event ev = NULL;
  if (!map_pack(c, dev->mem, s->dense, o->last_use, s->base, s->ld, s->e, s->sr, s->sc, s->srows,
                s->scols, &ev, "mapping an operand buffer", "unmapping an operand buffer"))
    return false;
  hop_ocl_ev_put(&o->ready, ev);
  o->mem = dev->mem, o->off = 0, o->ld = s->srows;
  return true;
}

static bool block_images(struct hop_ocl_call *c, struct hop_ocl_op_slot *o,
                         const struct hop_ocl_src *s)
{
  return hop_ocl_call_family_block(c, o, s, false);
}

static bool c_in(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, struct hop_ocl_launch *l)
{
  struct hop_ocl_state *st = c->st;
  const struct hop_call *g = c->g;
  size_t e = hop_dtype_c_size(g->dtype), bytes = (size_t)cs->rows * (size_t)cs->cols * e;
  cl_mem dev = st->pool.dev[2][cs - c->cs].mem;
  const unsigned char *first = (const unsigned char *)g->c + hop_at(cs->i0, cs->j0, g->ldc) * e;
  size_t region = ((size_t)(cs->cols - 1) * (size_t)g->ldc + (size_t)cs->rows) * e;
  cl_event ev = NULL;
  cl_int err = CL_SUCCESS;
  l->cin = dev, l->cin_off = 0, l->ldcin = cs->rows;
  cs->wrap_in = hop_ocl_wrap(st, first, region, e, &l->cin_off, &err);
  if (cs->wrap_in != NULL) {
    l->cin = cs->wrap_in, l->ldcin = g->ldc;
    return true;
  }
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "passing C to the device");
  if (!map_pack(c, dev, bytes, cs->unmapped, g->c, g->ldc, e, cs->i0, cs->j0, cs->rows, cs->cols,
                &ev, "passing C to the device", "passing C to the device"))
    return false;
  hop_ocl_ev_put(&cs->ready, ev);
  return true;
}

static int c_parts(const struct hop_ocl_call *c, const struct hop_ocl_c_slot *cs)
{
  (void)c, (void)cs;
  return 1;
}

static cl_int c_read(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, int j, int n,
                     cl_event kev, cl_event *done)
{
  struct hop_ocl_state *st = c->st;
  cl_int err;
  (void)j, (void)n; /* one part: the whole tile */
  cs->mapped = clEnqueueMapBuffer(st->q[HOP_OCL_Q_DOWN], st->pool.dev[2][cs - c->cs].mem,
                                  CL_FALSE, CL_MAP_READ, 0,
                                  (size_t)cs->cols * (size_t)cs->rows * c->p.c_esize, 1, &kev,
                                  done, &err);
  if (err != CL_SUCCESS)
    cs->mapped = NULL;
  return err;
}

static const unsigned char *c_host(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs)
{
  (void)c;
  return cs->mapped;
}

static bool c_done(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs)
{
  struct hop_ocl_state *st = c->st;
  if (cs->mapped != NULL) {
    cl_event ev = NULL;
    cl_int err = clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_DOWN], st->pool.dev[2][cs - c->cs].mem,
                                         cs->mapped, 0, NULL, &ev);
    cs->mapped = NULL;
    hop_ocl_ev_put(&cs->unmapped, ev);
    if (err != CL_SUCCESS)
      return hop_ocl_call_fail(c, err, "unmapping C");
  }
  if (cs->wrap_in != NULL) {
    clReleaseMemObject(cs->wrap_in);
    cs->wrap_in = NULL;
  }
  return true;
}

static void c_drop(struct hop_ocl_call *c, int i)
{
  struct hop_ocl_state *st = c->st;
  struct hop_ocl_c_slot *cs = &c->cs[i];
  if (cs->mapped != NULL) {
    clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_DOWN], st->pool.dev[2][i].mem, cs->mapped, 0, NULL,
                            NULL);
    clFinish(st->q[HOP_OCL_Q_DOWN]);
  }
  if (cs->wrap_in != NULL)
    clReleaseMemObject(cs->wrap_in);
}

const struct hop_ocl_operands hop_ocl_zero_copy = {
  .name = "zero-copy", .op_slots = 2, .c_slots = 2, .c_flags = CL_MEM_ALLOC_HOST_PTR,
  .block = block, .c_in = c_in, .c_parts = c_parts, .c_read = c_read, .c_host = c_host,
  .c_done = c_done, .c_drop = c_drop,
};

const struct hop_ocl_operands hop_ocl_zero_copy_images = {
  .name = "zero-copy", .op_slots = 2, .c_slots = 2, .c_flags = CL_MEM_ALLOC_HOST_PTR,
  .block = block_images, .c_in = c_in, .c_parts = c_parts, .c_read = c_read, .c_host = c_host,
  .c_done = c_done, .c_drop = c_drop,
};
