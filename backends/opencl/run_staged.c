/* Staged operands, where a discrete GPU spends its time: every byte is
 * copied by the host into pinned memory and back, and those copies cost
 * more than the link or the kernels.  So the host must copy all the time,
 * never waiting for the device: operands go up chunk by chunk through a
 * ring of pinned buffers (transfer.c), each chunk on the link while the
 * next is packed; three operand slots (all of B's panels where they fit,
 * run.c) and four C slots let the host pack the next panels' B while
 * earlier kernels run; each C tile comes back in parts, the first written
 * into C while the next is on the link.  A complex call's doubled plane
 * goes up as the caller's complex elements and is spread on the device
 * (plane_spread.c).
 * C goes up only for half C (plan.c: elsewhere the host adds beta C as it
 * writes the results, one read of C instead of a pack and an upload). */
#include "run.h"

/* Where a complex call's planes of the block's X are read, else NULL. */
static const struct hop_plane_view *view_of(const struct hop_ocl_call *c,
                                            const struct hop_ocl_src *s)
{
  const struct hop_planes *pv = c->g->planes;
  return pv == NULL ? NULL : s->x == 0 ? &pv->a : &pv->b;
}

/* A block that may be spread on the device is written there by a kernel:
 * the same for every part of the call's blocks of X, which share the slot. */
static cl_mem_flags dev_flags(struct hop_ocl_call *c, const struct hop_plane_view *v)
{
  return hop_ocl_spread_wanted(c, v) ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY;
}

static bool block(struct hop_ocl_call *c, struct hop_ocl_op_slot *o, const struct hop_ocl_src *s)
{
  struct hop_ocl_state *st = c->st;
  struct hop_ocl_slot *dev = &st->pool.dev[s->x][s->slot];
  cl_event ev = NULL;
  if (!hop_ocl_spread_settle(c, o))
    return false;
  const struct hop_plane_view *v = view_of(c, s);
  cl_int err = hop_ocl_slot_ensure(st, dev, s->full, dev_flags(c, v), false);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "allocating an operand buffer");
  o->mem = dev->mem, o->off = 0, o->ld = s->srows;
  if (hop_ocl_spread_fits(c, v, s->sr, s->sc, s->srows, s->scols, 0, 0, s->srows)) {
    if (!hop_ocl_spread_up(c, o, s, v, s->sr, s->sc, s->srows, s->scols, dev->mem, 0, 0, s->srows,
                           &ev))
      return false;
  } else {
    err = hop_ocl_stage_upload(st, &c->sg, s->base, v, s->ld, s->e, s->sr, s->sc, s->srows,
                               s->scols, dev->mem, o->last_use, &ev);
    if (err != CL_SUCCESS)
      return hop_ocl_call_fail(c, err, "uploading an operand");
  }
  hop_ocl_ev_put(&o->ready, ev);
  return true;
}

static bool block_part(struct hop_ocl_call *c, struct hop_ocl_op_slot *o,
                       const struct hop_ocl_src *s, int k0, int kb, cl_event *ev)
{
  struct hop_ocl_state *st = c->st;
  struct hop_ocl_slot *dev = &st->pool.dev[s->x][s->slot];
  if (!hop_ocl_spread_settle(c, o))
    return false;
  /* Every part: a split's earlier slabs may have been views of its shared A. */
  const struct hop_plane_view *v = view_of(c, s);
  cl_int err = hop_ocl_slot_ensure(st, dev, s->full, dev_flags(c, v), false);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "allocating an operand buffer");
  o->mem = dev->mem, o->off = 0, o->ld = s->srows;
  /* k runs along the stored block's columns (A as is, B transposed) or its rows. */
  bool k_cols = s->x == 0 ? !c->g->ta : c->g->tb;
  int r0 = k_cols ? s->sr : s->sr + k0, c0 = k_cols ? s->sc + k0 : s->sc;
  int rows = k_cols ? s->srows : kb, cols = k_cols ? kb : s->scols;
  int dr0 = k_cols ? 0 : k0, dc0 = k_cols ? k0 : 0;
  if (hop_ocl_spread_fits(c, v, r0, c0, rows, cols, dr0, dc0, s->srows))
    return hop_ocl_spread_up(c, o, s, v, r0, c0, rows, cols, dev->mem, dr0, dc0, s->srows, ev);
  err = hop_ocl_stage_upload_into(st, &c->sg, s->base, v, s->ld, s->e, r0, c0, rows, cols,
                                  dev->mem, s->srows, dr0, dc0, o->last_use, ev);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "uploading an operand");
  return true;
}

static bool block_images(struct hop_ocl_call *c, struct hop_ocl_op_slot *o,
                         const struct hop_ocl_src *s)
{
  return hop_ocl_call_family_block(c, o, s, true);
}

/* The slot's last read-back was waited for: nothing reads it now. */
static bool c_in(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, struct hop_ocl_launch *l)
{
  struct hop_ocl_state *st = c->st;
  const struct hop_call *g = c->g;
  cl_mem dev = st->pool.dev[2][cs - c->cs].mem;
  cl_event ev = NULL;
  l->cin = dev, l->cin_off = 0, l->ldcin = cs->rows;
  cl_int err = hop_ocl_stage_upload(st, &c->sg, g->c, g->planes == NULL ? NULL : &g->planes->c,
                                    g->ldc, hop_dtype_c_size(g->dtype), cs->i0, cs->j0, cs->rows,
                                    cs->cols, dev, NULL, &ev);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "passing C to the device");
  hop_ocl_ev_put(&cs->ready, ev);
  return true;
}

/* Parts of about a chunk each, so that the host writes the first into C
 * while the next crosses the link. */
static int c_parts(const struct hop_ocl_call *c, const struct hop_ocl_c_slot *cs)
{
  size_t col_bytes = (size_t)cs->rows * c->p.c_esize;
  size_t want = ((size_t)cs->cols * col_bytes + c->sg.chunk - 1) / c->sg.chunk;
  return want < 1 ? 1 : want > HOP_OCL_PARTS ? HOP_OCL_PARTS : (int)want;
}

static cl_int c_read(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, int j, int n,
                     cl_event kev, cl_event *done)
{
  struct hop_ocl_state *st = c->st;
  int si = (int)(cs - c->cs);
  size_t col_bytes = (size_t)cs->rows * c->p.c_esize;
  unsigned char *host = st->pool.stage[2][si].host;
  cl_int err = clEnqueueReadBuffer(st->q[HOP_OCL_Q_DOWN], st->pool.dev[2][si].mem, CL_FALSE,
                                   (size_t)j * col_bytes, (size_t)n * col_bytes,
                                   host + (size_t)j * col_bytes, 1, &kev, done);
  clFlush(st->q[HOP_OCL_Q_DOWN]);
  return err;
}

static const unsigned char *c_host(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs)
{
  return c->st->pool.stage[2][cs - c->cs].host;
}

/* The pinned images and device buffers stay in the pool for the next call. */
static bool c_done(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs)
{
  (void)c, (void)cs;
  return true;
}

static void c_drop(struct hop_ocl_call *c, int i)
{
  (void)c, (void)i;
}

const struct hop_ocl_operands hop_ocl_staged = {
  .name = "staged", .op_slots = 3, .c_slots = HOP_OCL_SLOTS, .c_pinned = true, .block = block,
  .block_part = block_part, .c_in = c_in, .c_parts = c_parts, .c_read = c_read, .c_host = c_host, .c_done = c_done,
  .c_drop = c_drop,
};

/* The image families' operands keep two slots each, as they expect. */
const struct hop_ocl_operands hop_ocl_staged_images = {
  .name = "staged", .op_slots = 2, .c_slots = HOP_OCL_SLOTS, .c_pinned = true,
  .block = block_images, .c_in = c_in, .c_parts = c_parts, .c_read = c_read, .c_host = c_host,
  .c_done = c_done, .c_drop = c_drop,
};
