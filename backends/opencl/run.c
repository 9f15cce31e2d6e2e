/* One call through the device: the plan's tiles of C go through C slots
 * in turn, so that while the host waits for one tile's read-back and
 * writes it into C, later tiles' uploads, kernels and read-backs are
 * already queued.  Uploads, kernels and downloads use three in-order queues
 * tied together by events; A and B blocks sit in slots and are reused
 * while the next tile needs the same block.
 *
 * How operands reach the device is the call's operand strategy (run.h),
 * chosen once: zero-copy (run_zero_copy.c), which keeps two slots of each,
 * or staged through a ring of pinned buffers (run_staged.c), with more
 * slots so that the host never waits; the image families pack their own
 * operand blocks under either.
 *
 * C on the host is written only by the host, from a tile the device has
 * completely finished, a prefix of its columns at a time.  After an error
 * every element of C is final or untouched: with none final the call fails
 * before C was touched (the router runs the CPU engine); otherwise the CPU
 * finishes the untouched columns here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* Bytes per upload: on the H200 8 MiB kept the link busier than 4 (each
 * transfer costs a fixed time: 4 MiB ones moved 43 GB/s, 8 MiB ones 52)
 * and made the host's copies cheaper: zgemm 8192 from host memory 122 ms
 * against 188, dgemm 36 against 41.  Calls with 1 GiB of A and B or more
 * take 16 MiB: their kernels keep pace with the link, and fewer, longer
 * uploads and packs keep it busier (dgemm and zgemm 8192; sgemm and
 * hgemm, a quarter of that, lost with 16) (doc/PERFORMANCE.md). */
enum { CHUNK_DEFAULT = 8 << 20, CHUNK_LARGE = 16 << 20 };
static const double LARGE_CALL_AB = 1073741824.0; /* bytes of A and B */
enum { ROW_BLOCKS_DEFAULT = 2 }; /* A's row blocks in a staged call (plan.c) */
bool hop_ocl_call_fail(struct hop_ocl_call *c, cl_int err, const char *what)
{
  if (c->err == CL_SUCCESS) {
    c->err = err;
    c->what = what;
  }
  return false;
}

void hop_ocl_ev_put(cl_event *slot, cl_event ev)
{
  if (*slot != NULL)
    clReleaseEvent(*slot);
  *slot = ev;
}

static void ev_share(cl_event *slot, cl_event ev)
{
  clRetainEvent(ev);
  hop_ocl_ev_put(slot, ev);
}

void hop_ocl_call_flush(struct hop_ocl_call *c)
{
  for (int q = 0; q < HOP_OCL_QUEUES; q++)
    clFlush(c->st->q[q]);
}

void hop_ocl_call_pack(struct hop_ocl_call *c, const void *x, int ld, size_t e, int r0, int c0,
                       int rows, int cols, void *dst)
{
  double t0 = hop_now();
  hop_ocl_pack(c->st, x, ld, e, r0, c0, rows, cols, dst);
  c->sg.pack_s += hop_now() - t0;
  c->sg.pack_bytes += (double)rows * (double)cols * (double)e;
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

bool hop_ocl_call_family_block(struct hop_ocl_call *c, struct hop_ocl_op_slot *o,
                               const struct hop_ocl_src *s, bool staged)
{
  struct hop_ocl_state *st = c->st;
  struct hop_ocl_block blk = {.x = s->x, .slot = s->slot, .r0 = s->r0, .c0 = s->c0,
                              .rows = s->rows, .cols = s->cols, .staged = staged,
                              .last_use = o->last_use, .uploaded = o->ready};
  cl_event ev = NULL;
  cl_int err = st->family->provide(st, c->g, &blk, &o->mem, &o->ld, &ev);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "packing an operand");
  hop_ocl_ev_put(&o->ready, ev);
  o->off = 0;
  return true;
}

/* The index of op(X)'s slot that holds the block at (r0, c0), or -1. */
static int holder(const struct hop_ocl_call *c, int x, int r0, int c0)
{
  for (int s = 0; s < c->nx; s++)
    if (c->op[x][s].valid && c->op[x][s].r0 == r0 && c->op[x][s].c0 == c0)
      return s;
  return -1;
}

/* That slot, counted as used now, or NULL. */
static struct hop_ocl_op_slot *held(struct hop_ocl_call *c, int x, int r0, int c0)
{
  int s = holder(c, x, r0, c0);
  if (s < 0)
    return NULL;
  c->op[x][s].used = ++c->clock;
  return &c->op[x][s];
}

/* The least recently used slot of op(X), emptied for a new block. */
static struct hop_ocl_op_slot *empty_slot(struct hop_ocl_call *c, int x)
{
  struct hop_ocl_op_slot *slots = c->op[x];
  int i = 0;
  for (int s = 1; s < c->nx; s++)
    if (slots[s].used < slots[i].used)
      i = s;
  struct hop_ocl_op_slot *o = &slots[i];
  o->used = ++c->clock;
  o->valid = false;
  if (o->wrap != NULL) { /* the runtime keeps it alive until its kernels are done */
    clReleaseMemObject(o->wrap);
    o->wrap = NULL;
  }
  return o;
}

/* Where the rows x cols block of op(X) at (r0, c0), for slot o, lies in X. */
struct hop_ocl_src hop_ocl_call_source(const struct hop_ocl_call *c, const struct hop_ocl_op_slot *o,
                                       int x, int r0, int c0, int rows, int cols)
{
  const struct hop_call *g = c->g;
  bool trans = x == 0 ? g->ta : g->tb;
  size_t e = hop_dtype_ab_size(g->dtype);
  struct hop_ocl_src s = {
    .x = x, .slot = (int)(o - c->op[x]), .r0 = r0, .c0 = c0, .rows = rows, .cols = cols,
    .base = x == 0 ? g->a : g->b, .ld = x == 0 ? g->lda : g->ldb, .e = e,
    .sr = trans ? c0 : r0, .sc = trans ? r0 : c0, .srows = trans ? cols : rows,
    .scols = trans ? rows : cols,
  };
  s.dense = (size_t)s.srows * (size_t)s.scols * e;
  s.full = (size_t)(x == 0 ? c->p.tm : c->p.tn) * (size_t)c->p.tk * e;
  return s;
}

/* The rows x cols block of op(X) at (r0, c0) on the device: reused when a
 * slot holds it, else put there by the operand strategy. */
static struct hop_ocl_op_slot *provide(struct hop_ocl_call *c, int x, int r0, int c0, int rows,
                                       int cols)
{
  struct hop_ocl_op_slot *o = held(c, x, r0, c0);
  if (o != NULL)
    return o;
  o = empty_slot(c, x);
  if (x == 0 && c->st->shared != NULL && hop_ocl_share_block(c->st, o, r0, c0, rows, cols))
    return o; /* a view of the copy of op(A) already on the device, never matched as a block */
  struct hop_ocl_src s = hop_ocl_call_source(c, o, x, r0, c0, rows, cols);
  if (!c->ops->block(c, o, &s))
    return NULL;
  o->r0 = r0, o->c0 = c0, o->valid = true;
  return o;
}

/* The tile's read-back, queued after its last kernel kev, in the parts
 * the strategy asks for. */
static cl_int read_back(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, cl_event kev)
{
  int parts = c->ops->c_parts(c, cs);
  parts = parts > cs->cols ? cs->cols : parts;
  cs->part_cols = (cs->cols + parts - 1) / parts;
  cs->parts = 0;
  cl_int err = CL_SUCCESS;
  for (int j = 0; j < cs->cols && err == CL_SUCCESS; j += cs->part_cols) {
    int n = cs->cols - j < cs->part_cols ? cs->cols - j : cs->part_cols;
    double t0 = hop_now();
    if (hop_ocl_fault_hit(&c->st->fault, HOP_OCL_FAULT_READ))
      err = CL_OUT_OF_RESOURCES;
    else
      err = c->ops->c_read(c, cs, j, n, kev, &cs->done[cs->parts]);
    c->sg.queue_s += hop_now() - t0;
    if (err == CL_SUCCESS)
      hop_ocl_timeline_add(c->sg.tl, cs->done[cs->parts++], HOP_OCL_TL_DOWN);
  }
  return err;
}

bool hop_ocl_call_read_tile(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, cl_event kev)
{
  cl_int err = read_back(c, cs, kev);
  cs->busy = cs->parts > 0; /* parts already queued are waited for, even after an error */
  return err == CL_SUCCESS || hop_ocl_call_fail(c, err, "reading C back");
}

/* Which elements of its tiles a call wants (gemmt: a triangle). */
enum hop_ocl_part hop_ocl_call_part(const struct hop_call *g)
{
  switch (g->op) {
  case HOP_OP_GEMM:
  case HOP_OP_SYMM: /* these four reach the pipeline as the GEMMs they are made of */
  case HOP_OP_HEMM:
  case HOP_OP_TRMM:
  case HOP_OP_TRSM:
  case HOP_OP_GEMM_BATCH: return HOP_OCL_ALL; /* not here: backends/opencl/batch.c */
  case HOP_OP_GEMMT:
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K: return g->upper ? HOP_OCL_UPPER : HOP_OCL_LOWER;
  case HOP_OP_COUNT: break;
  }
  return HOP_OCL_ALL;
}

/* Where tile t lies in C. */
struct box {
  int64_t i0, j0, rows, cols;
};

static struct box tile_box(const struct hop_ocl_call *c, size_t t)
{
  const struct hop_call *g = c->g;
  size_t i = t / (size_t)c->p.tiles_n, j = t % (size_t)c->p.tiles_n;
  if (c->p.by_columns) { /* groups of panels; in each, row block by row block */
    size_t rows = (size_t)c->p.tiles_m, group = (size_t)c->p.group;
    size_t g0 = t / (rows * group) * group, in = t % (rows * group);
    size_t width = (size_t)c->p.tiles_n - g0 < group ? (size_t)c->p.tiles_n - g0 : group;
    i = in / width, j = g0 + in % width;
  }
  struct box b = {(int64_t)i * c->p.tm, (int64_t)j * c->p.tn, 0, 0};
  b.rows = g->m - b.i0 < c->p.tm ? g->m - b.i0 : c->p.tm;
  b.cols = g->n - b.j0 < c->p.tn ? g->n - b.j0 : c->p.tn;
  return b;
}

void hop_ocl_call_tile(const struct hop_ocl_call *c, size_t t, int *i, int *j)
{
  struct box b = tile_box(c, t);
  *i = (int)(b.i0 / c->p.tm), *j = (int)(b.j0 / c->p.tn);
}

/* Does tile t hold an element the call writes?  gemmt's tiles wholly in
 * the other triangle are never started: final from the outset. */
static bool tile_wanted(const struct hop_ocl_call *c, size_t t)
{
  struct box b = tile_box(c, t);
  for (int64_t j = b.j0; j < b.j0 + b.cols; j++) {
    int64_t lo, hi;
    hop_call_rows(c->g, j, &lo, &hi);
    if (lo < b.i0 + b.rows && hi > b.i0 && hi > lo)
      return true;
  }
  return false;
}

/* Launch the kernel for tile cs over k in [k0, k0 + kb) of blocks a and b
 * (held whole from k = 0, or from k0 for a cut k), after those events. */
bool hop_ocl_call_launch_part(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs,
                              struct hop_ocl_launch *l, struct hop_ocl_op_slot *a,
                              struct hop_ocl_op_slot *b, int k0, int kb, bool first,
                              cl_event a_ready, cl_event b_ready, cl_event *kev)
{
  const struct hop_call *g = c->g;
  /* Where k0 lies in each block as stored: along its columns (A as is, B
   * transposed: k0 whole columns in) or its rows. */
  l->k = kb;
  l->a = a->mem, l->a_off = a->off + (cl_ulong)k0 * (g->ta ? 1u : (cl_ulong)a->ld), l->lda = a->ld;
  l->b = b->mem, l->b_off = b->off + (cl_ulong)k0 * (g->tb ? (cl_ulong)b->ld : 1u), l->ldb = b->ld;
  /* The first launch applies beta (none: the host adds it); later ones add to its sums. */
  l->beta_d = !first ? 1.0 : c->p.beta_host ? 0.0 : g->beta.re;
  l->beta = (float)l->beta_d;
  /* A block still to be spread into its plane is spread now, and the
   * kernel waits for that instead of the block's upload. */
  cl_event a_spread = NULL, b_spread = NULL;
  if (!hop_ocl_spread_run(c, a, &a_spread) || !hop_ocl_spread_run(c, b, &b_spread))
    return hop_ocl_ev_put(&a_spread, NULL), false;
  cl_event wl[4];
  cl_uint nw = wait_list(wl, a_spread ? a_spread : a_ready, b_spread ? b_spread : b_ready,
                         cs->ready, cs->unmapped);
  hop_ocl_ev_put(kev, NULL);
  double t0 = hop_now();
  cl_int err = hop_ocl_family_launch(c->st, l, nw, wl, kev); /* slabs, queue window: family.c */
  c->sg.queue_s += hop_now() - t0;
  hop_ocl_ev_put(&a_spread, NULL);
  hop_ocl_ev_put(&b_spread, NULL);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "enqueueing a kernel");
  hop_ocl_timeline_add(c->sg.tl, *kev, HOP_OCL_TL_KERNEL);
  return true;
}

/* The tile's kernels, one per k chunk of the plan (one when k is whole). */
static bool launch_chunks(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs,
                          struct hop_ocl_launch *l, cl_event *kev)
{
  for (int ch = 0; ch < c->p.chunks; ch++) {
    int k0 = ch * c->p.tk, kb = c->g->k - k0 < c->p.tk ? c->g->k - k0 : c->p.tk;
    struct hop_ocl_op_slot *a = provide(c, 0, cs->i0, k0, cs->rows, kb);
    struct hop_ocl_op_slot *b = a ? provide(c, 1, k0, cs->j0, kb, cs->cols) : NULL;
    if (b == NULL || !hop_ocl_call_launch_part(c, cs, l, a, b, 0, kb, ch == 0, a->ready, b->ready, kev))
      return false;
    ev_share(&a->last_use, *kev);
    ev_share(&b->last_use, *kev);
  }
  return true;
}

/* A new block of A (a row block's first tile) in k slices: each slice's
 * kernel starts once that slice of A (and of B, when it is new too) is up,
 * so the device waits for a quarter of the block instead of all of it (on
 * the H200 the first kernel of sgemm 8192 from host memory waited 3.5 ms
 * for half of A, zgemm's 17 ms; sliced, 1.7 and 9).  Each slice's sums go
 * to the tile's C buffer, the next adding to them: only where that buffer
 * holds the accumulation's type, for blocks the strategy can upload part
 * by part, for whole tiles (a triangle's slabs would each be launched four
 * times: dsyrk 8192 ran slower) and for slices of at least
 * HOPBLAS_OPENCL_SLICE_MIN_FLOPS (small kernels pay more in launches than
 * they gain). */
enum { SLICES = 4, SLICE_MIN_K = 256 };
static const double SLICE_MIN_FLOPS = 4e9;

double hop_ocl_slice_min_flops(void)
{
  return (double)hop_config_int("HOPBLAS_OPENCL_SLICE_MIN_FLOPS", 0, 1LL << 50,
                                (long long)SLICE_MIN_FLOPS);
}

static int tile_slices(const struct hop_ocl_call *c, const struct hop_ocl_c_slot *cs)
{
  const struct hop_call *g = c->g;
  if (c->ops->block_part == NULL || c->st->shared != NULL || c->p.chunks != 1 || c->st->flushes ||
      c->p.c_esize != hop_ocl_acc_size(g->dtype) || hop_ocl_call_part(g) != HOP_OCL_ALL)
    return 1;
  if (2.0 * cs->rows * cs->cols * ((double)g->k / SLICES) < hop_ocl_slice_min_flops())
    return 1;
  if (holder(c, 0, cs->i0, 0) >= 0)
    return 1;
  int64_t n = g->k / SLICE_MIN_K;
  return n < 1 ? 1 : n > SLICES ? SLICES : (int)n;
}

static bool launch_sliced(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs,
                          struct hop_ocl_launch *l, int slices, cl_event *kev)
{
  const struct hop_call *g = c->g;
  struct hop_ocl_op_slot *a = empty_slot(c, 0), *b = held(c, 1, 0, cs->j0);
  struct hop_ocl_src sa = hop_ocl_call_source(c, a, 0, cs->i0, 0, cs->rows, (int)g->k), sb = {0};
  bool b_new = b == NULL;
  if (b_new) {
    b = empty_slot(c, 1);
    sb = hop_ocl_call_source(c, b, 1, 0, cs->j0, (int)g->k, cs->cols);
  }
  int kb = (int)((g->k + slices - 1) / slices);
  for (int k0 = 0; k0 < g->k; k0 += kb) {
    int n = g->k - k0 < kb ? (int)g->k - k0 : kb;
    cl_event ea = NULL, eb = NULL;
    bool ok = c->ops->block_part(c, a, &sa, k0, n, &ea) &&
              (!b_new || c->ops->block_part(c, b, &sb, k0, n, &eb)) &&
              hop_ocl_call_launch_part(c, cs, l, a, b, k0, n, k0 == 0, ea,
                                       b_new ? eb : b->ready, kev);
    hop_ocl_ev_put(&a->ready, ea); /* the last slice's upload stands for them all */
    if (b_new)
      hop_ocl_ev_put(&b->ready, eb);
    if (!ok)
      return false;
  }
  /* Only now: each slice's upload waited for the kernels that read the slot before. */
  ev_share(&a->last_use, *kev);
  ev_share(&b->last_use, *kev);
  a->r0 = cs->i0, a->c0 = 0, a->valid = true;
  if (b_new)
    b->r0 = 0, b->c0 = cs->j0, b->valid = true;
  return true;
}

struct hop_ocl_launch hop_ocl_call_launch(const struct hop_ocl_call *c, int i0, int j0, int rows,
                                          int cols, cl_mem cmem, cl_ulong off, int ld)
{
  const struct hop_call *g = c->g;
  struct hop_ocl_launch l = {
    .kernel = c->p.kernel, .part = hop_ocl_call_part(g), .diag = j0 - i0, .m = rows, .n = cols,
    .alpha = (float)g->alpha.re, .alpha_d = g->alpha.re, .ta = g->ta, .tb = g->tb,
    .cin = cmem, .cout = cmem, .cin_off = off, .cout_off = off, .ldcin = ld, .ldcout = ld,
  };
  return l;
}

/* Queue everything for tile t in slot cs: operands, kernels, read-back. */
static bool tile_start(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, size_t t)
{
  struct hop_ocl_state *st = c->st;
  const struct hop_call *g = c->g;
  const struct hop_ocl_plan *p = &c->p;
  cs->tile = t;
  hop_ocl_ev_put(&cs->ready, NULL);
  for (int i = 0; i < HOP_OCL_PARTS; i++)
    hop_ocl_ev_put(&cs->done[i], NULL);
  cs->parts = 0;
  struct box b = tile_box(c, t);
  cs->i0 = (int)b.i0, cs->j0 = (int)b.j0, cs->rows = (int)b.rows, cs->cols = (int)b.cols;
  size_t slot_bytes = (size_t)p->tm * (size_t)p->tn * p->c_esize;
  int si = (int)(cs - c->cs);
  struct hop_ocl_slot *dev = &st->pool.dev[2][si], *stage = &st->pool.stage[2][si];
  cl_int err = hop_ocl_slot_ensure(st, dev, slot_bytes, CL_MEM_READ_WRITE | c->ops->c_flags, false);
  if (err == CL_SUCCESS && c->ops->c_pinned)
    err = hop_ocl_slot_ensure(st, stage, slot_bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                              true);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "allocating a C buffer");
  struct hop_ocl_launch l =
    hop_ocl_call_launch(c, cs->i0, cs->j0, cs->rows, cs->cols, dev->mem, 0, cs->rows);
  if (!p->beta_host && !hop_scalar_is_zero(g->beta) && !c->ops->c_in(c, cs, &l))
    return false;
  if (c->lead.passes > 0) {
    if (!hop_ocl_lead_rest(c, cs, &l))
      return false;
  } else {
    int slices = tile_slices(c, cs);
    cl_event kev = NULL;
    bool ok = slices > 1 ? launch_sliced(c, cs, &l, slices, &kev) : launch_chunks(c, cs, &l, &kev);
    if (!ok)
      return hop_ocl_ev_put(&kev, NULL), false;
    if (!hop_ocl_later_read(c, cs, kev))
      return false;
  }
  hop_ocl_call_flush(c);
  return c->lead.passes == 0 || hop_ocl_lead_ahead(c, t);
}

/* Wait for slot cs's tile and write it into C, part by part; after an
 * error, the same keeps the parts whose read-back had completed. */
static bool tile_finish(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs)
{
  if (cs->held)
    hop_ocl_later_run(c);
  cs->busy = false;
  for (int p = 0; p < cs->parts; p++) {
    cl_int err = hop_ocl_stager_wait(c->st, &c->sg, cs->done[p]);
    if (err != CL_SUCCESS)
      return hop_ocl_call_fail(c, err, "reading C back");
    int j = p * cs->part_cols, n = cs->cols - j < cs->part_cols ? cs->cols - j : cs->part_cols;
    size_t off = (size_t)j * (size_t)cs->rows * c->p.c_esize;
    const unsigned char *src = c->ops->c_host(c, cs);
    double t0 = hop_now();
    c->redone +=
      hop_ocl_unpack_c(c->st, &c->sg, c->g, c->p.beta_host, src + off, cs->i0, cs->j0 + j,
                       cs->rows, n);
    c->sg.unpack_s += hop_now() - t0;
    c->sg.unpack_bytes += (double)n * (double)cs->rows * (double)c->p.c_esize;
    c->done_cols[cs->tile] = j + n;
    c->touched = true;
  }
  if (c->done_cols[cs->tile] == cs->cols)
    c->nfinal++;
  return c->ops->c_done(c, cs);
}

/* Nothing may touch host memory after the call returns: drain and release. */
static void call_end(struct hop_ocl_call *c)
{
  struct hop_ocl_state *st = c->st;
  hop_ocl_later_end(c);
  hop_ocl_call_flush(c);
  for (int q = 0; q < HOP_OCL_QUEUES; q++)
    clFinish(st->q[q]);
  for (int i = 0; i < HOP_OCL_SLOTS; i++) {
    struct hop_ocl_c_slot *cs = &c->cs[i];
    c->ops->c_drop(c, i);
    hop_ocl_ev_put(&cs->ready, NULL);
    for (int p = 0; p < HOP_OCL_PARTS; p++)
      hop_ocl_ev_put(&cs->done[p], NULL);
    hop_ocl_ev_put(&cs->unmapped, NULL);
  }
  for (int x = 0; x < 2; x++)
    for (int i = 0; i < HOP_OCL_OP_SLOTS; i++) {
      struct hop_ocl_op_slot *o = &c->op[x][i];
      if (o->wrap != NULL)
        clReleaseMemObject(o->wrap);
      hop_ocl_ev_put(&o->ready, NULL);
      hop_ocl_ev_put(&o->last_use, NULL);
      hop_ocl_spread_drop(o);
    }
  hop_ocl_stager_end(&c->sg);
}

/* The columns the device did not finish, on the CPU (C there is untouched). */
static void finish_on_cpu(struct hop_ocl_call *c)
{
  for (size_t t = 0; t < c->ntiles; t++) {
    struct box b = tile_box(c, t);
    int64_t done = c->done_cols[t];
    if (b.cols <= done)
      continue;
    if (c->g->planes != NULL) {
      if (!hop_planes_fallback(c->g, b.i0, b.j0 + done, b.rows, b.cols - done))
        hop_log(1, "opencl: no memory to finish a complex call's tile on the CPU; C is incomplete");
      continue;
    }
    hop_fallback_block(c->g, b.i0, b.rows, b.j0 + done, b.cols - done);
  }
}

/* The strategy's operand slots; staged buffers take
 * HOPBLAS_OPENCL_OPERAND_SLOTS (2 to 8) where set: more slots let the host
 * upload B panels further ahead of the kernels (and A in as many row
 * blocks).  *pinned (unless NULL): the user chose. */
static int operand_slots(const struct hop_ocl_call *c, bool *pinned)
{
  long long v = c->ops != &hop_ocl_staged
                  ? 0
                  : hop_config_int("HOPBLAS_OPENCL_OPERAND_SLOTS", 2, HOP_OCL_OP_SLOTS, 0);
  if (pinned != NULL)
    *pinned = v >= 2;
  return v >= 2 ? (int)v : c->ops->op_slots;
}

/* Slots in flight: as many as the strategy keeps (staged: three of each
 * operand and four of C), while the device buffers stay within the six
 * largest buffers of the two-slot pipeline (6 x cap); an operand loaded
 * once takes one slot.  Pinned host memory: a C slot's image each, and the
 * ring's chunks.  True where, beside that, every block of A and every
 * panel of B (at most HOP_OCL_OP_SLOTS of each) and a buffer the size of
 * C would fit too: what leading passes over k need (run_lead.c). */
static bool choose_slots(struct hop_ocl_call *c)
{
  const struct hop_ocl_plan *p = &c->p;
  const struct hop_call *g = c->g;
  double eab = (double)hop_dtype_ab_size(g->dtype);
  double a = (double)p->tm * p->tk * eab, b = (double)p->tk * p->tn * eab;
  double cc = (double)p->tm * p->tn * (double)p->c_esize;
  double room = 6.0 * (double)c->st->cap;
  bool a_once = p->tiles_m == 1 && p->chunks == 1, b_once = p->tiles_n == 1 && p->chunks == 1;
  bool pinned;
  c->nx = operand_slots(c, &pinned);
  c->nc = c->ops->c_slots;
  /* A's row blocks must all stay on the device: never fewer slots. */
  int least = p->by_columns && p->tiles_m > 2 ? p->tiles_m : 2;
  for (;;) {
    double bytes = (a_once ? 1 : c->nx) * a + (b_once ? 1 : c->nx) * b + c->nc * cc;
    if (bytes <= room)
      break;
    if (c->nc > 2)
      c->nc--;
    else if (c->nx > least)
      c->nx--;
    else
      break;
  }
  /* As many panels per group as B has slots: each panel's B block stays
   * while every row block of A passes over it. */
  c->p.group = c->nx;
  double whole = (double)g->m * (double)g->n * (double)p->c_esize;
  return !pinned && p->tiles_m <= HOP_OCL_OP_SLOTS && p->tiles_n <= HOP_OCL_OP_SLOTS &&
         whole <= (double)c->st->cap && p->tiles_m * a + p->tiles_n * b + c->nc * cc + whole <= room;
}

/* HOPBLAS_VERBOSE=3: where the call's host time went, and the plan. */
static void log_phases(const struct hop_ocl_call *c, double seconds)
{
  if (hop_config()->verbose < 3)
    return;
  const struct hop_ocl_plan *p = &c->p;
  const struct hop_call *g = c->g;
  /* Sends and queueing done inside pack's and unpack's time are counted there. */
  double sends = c->sg.enqueue_s - c->sg.pack_beside_s;
  double queued = c->sg.queue_s - c->sg.queue_beside_s;
  double busy = c->sg.pack_s + c->sg.unpack_s + c->sg.wait_s + sends + queued;
  double mib = 1.0 / (1 << 20);
  char lead[64] = "", spread[48] = "";
  if (c->lead.passes > 0)
    snprintf(lead, sizeof lead, "k to %lld first in %d passes over every tile; ",
             (long long)c->lead.k, c->lead.passes);
  if (c->sg.spreads > 0)
    snprintf(spread, sizeof spread, "%ld blocks spread into planes; ", c->sg.spreads);
  hop_log(3,
          "opencl phases: %s%s %dx%dx%d %s%s beta=%g%s: %zu tiles (%dx%d) of %dx%d, k in %d; slots "
          "%d operand, %d C; %s%s%ld uploads of <= %zu KiB through %d pinned buffers, %d copy "
          "threads; host ms: pack %.3f "
          "(%.1f MiB), unpack %.3f (%.1f MiB), wait %.3f, sending uploads %.3f (%.3f of it inside "
          "pack), queueing kernels and read-backs %.3f (%.3f of it inside pack or unpack), other "
          "%.3f, total %.3f",
          c->ops->name, g->planes != NULL ? " (complex planes read in place)" : "", (int)g->m,
          (int)g->n, (int)g->k, g->ta ? "T" : "N",
          g->tb ? "T" : "N", g->beta.re, p->beta_host ? " (on the host)" : "", c->ntiles,
          p->tiles_m, p->tiles_n, p->tm, p->tn, p->chunks, c->nx, c->nc, lead, spread, c->sg.uploads,
          c->sg.chunk >> 10, hop_ocl_ring_depth(c->st), hop_ocl_copy_threads(c->st), 1e3 * c->sg.pack_s, mib * c->sg.pack_bytes,
          1e3 * c->sg.unpack_s, mib * c->sg.unpack_bytes, 1e3 * c->sg.wait_s,
          1e3 * c->sg.enqueue_s, 1e3 * c->sg.pack_beside_s, 1e3 * c->sg.queue_s,
          1e3 * c->sg.queue_beside_s, 1e3 * (seconds - busy),
          1e3 * seconds);
}

int hop_ocl_row_blocks(struct hop_ocl_state *st)
{
  if (st->pool.row_blocks == 0)
    st->pool.row_blocks = (int)hop_config_int("HOPBLAS_OPENCL_ROW_BLOCKS", 1, 16,
                                              ROW_BLOCKS_DEFAULT);
  return st->pool.row_blocks;
}

size_t hop_ocl_chunk_planned(const struct hop_ocl_state *st)
{
  size_t chunk = st->pool.chunk;
  if (chunk == 0)
    chunk = (size_t)hop_config_int("HOPBLAS_OPENCL_CHUNK", 0, 1L << 30, 0);
  if (chunk == 0)
    chunk = CHUNK_DEFAULT;
  return chunk < st->cap ? chunk : st->cap;
}

size_t hop_ocl_chunk_bytes(struct hop_ocl_state *st)
{
  if (st->pool.chunk == 0)
    st->pool.chunk = hop_ocl_chunk_planned(st);
  return st->pool.chunk;
}

size_t hop_ocl_call_chunk(size_t planned, bool configured, double ab_bytes, size_t cap)
{
  if (configured || planned != CHUNK_DEFAULT || ab_bytes < LARGE_CALL_AB || cap < CHUNK_LARGE)
    return planned;
  return CHUNK_LARGE;
}

/* Zero-copy wraps each operand in a new buffer object per call, a few
 * driver round trips that dwarf a tiny call (PoCL: 90 us against 58 us
 * staged for 4x4x4); copying a few KiB into the kept buffers is cheaper. */
enum { SMALL_CALL_BYTES = 64 * 1024 };

static enum hop_ocl_memory call_memory(const struct hop_ocl_state *st, const struct hop_call *g)
{
  if (st->memory == HOP_OCL_STAGED || st->memory_chosen_by_user)
    return st->memory;
  double eab = (double)hop_dtype_ab_size(g->dtype), ec = (double)hop_dtype_c_size(g->dtype);
  double bytes = ((double)g->m * g->k + (double)g->k * g->n) * eab + (double)g->m * g->n * ec;
  return bytes <= SMALL_CALL_BYTES ? HOP_OCL_STAGED : HOP_OCL_ZERO_COPY;
}

static const struct hop_ocl_operands *operands(const struct hop_ocl_state *st,
                                               enum hop_ocl_memory memory)
{
  bool images = st->family->provide != NULL;
  if (memory == HOP_OCL_STAGED)
    return images ? &hop_ocl_staged_images : &hop_ocl_staged;
  return images ? &hop_ocl_zero_copy_images : &hop_ocl_zero_copy;
}

enum hop_status hop_ocl_run(struct hop_ocl_state *st, const struct hop_call *g)
{
  double t0 = hop_now();
  enum hop_ocl_memory memory = call_memory(st, g);
  struct hop_ocl_call c = {.st = st, .g = g, .ops = operands(st, memory)};
  if (st->family->limits != NULL)
    st->family->limits(st, g, &c.p);
  /* Every row block of A keeps a slot of its own. */
  int rb = hop_ocl_row_blocks(st), slots = operand_slots(&c, NULL);
  c.p.row_blocks = rb < slots ? rb : slots;
  if (!hop_ocl_plan_make(g, memory, st->cap, &c.p)) {
    hop_log(2, "opencl: no tiling of %dx%dx%d fits buffers of %zu bytes; declined", (int)g->m,
            (int)g->n, (int)g->k, st->cap);
    return HOP_DECLINED;
  }
  /* Plane views are read and written only by the staged buffer copies, and
   * only final tiles go back (no k cut, no subnormal fix-up): else the
   * planes are written out (core/complex_real.c). */
  if (g->planes != NULL && (c.ops != &hop_ocl_staged || c.p.ksplit || st->flushes))
    return HOP_DECLINED;
  c.ntiles = (size_t)c.p.tiles_m * (size_t)c.p.tiles_n;
  c.done_cols = calloc(c.ntiles, sizeof *c.done_cols);
  if (c.done_cols == NULL)
    return HOP_ERR_NOMEM;
  double ab = ((double)g->m + (double)g->n) * (double)g->k * (double)hop_dtype_ab_size(g->dtype);
  c.sg.chunk = hop_ocl_call_chunk(hop_ocl_chunk_bytes(st), hop_config_int("HOPBLAS_OPENCL_CHUNK", 0, 1L << 30, 0) != 0,
                                  ab, st->cap);
  struct hop_ocl_timeline timeline = {0};
  c.sg.tl = hop_ocl_timeline_wanted() ? &timeline : NULL;
  c.lead.passes = hop_ocl_lead_passes(&c, choose_slots(&c));
  hop_ocl_later_start(&c);
  if (c.lead.passes > 0) {
    /* Every block keeps a slot.  The rests of k go panel by panel, each
     * panel's tiles row block by row block: every row block's rest is
     * needed at the start, and what goes up last is needed only by the
     * last panel's tiles (row block by row block, the second block's
     * rest went up last and the last eight tiles waited for it). */
    c.nx = c.p.tiles_n > c.p.tiles_m ? c.p.tiles_n : c.p.tiles_m;
    c.p.group = 1;
  }
  /* Tiles go through the slots in turn: the one started u-th in slot u % nc. */
  size_t started = 0, nc = (size_t)c.nc;
  bool lead_ok = c.lead.passes == 0 || hop_ocl_lead_run(&c);
  /* c.err too: work held for a host copy (run_later.c) may have failed there. */
  for (size_t t = 0; lead_ok && c.err == CL_SUCCESS && t < c.ntiles; t++) {
    if (!tile_wanted(&c, t)) {
      c.done_cols[t] = (int)tile_box(&c, t).cols;
      c.nfinal++;
      continue;
    }
    struct hop_ocl_c_slot *cs = &c.cs[started++ % nc];
    if ((cs->busy && !tile_finish(&c, cs)) || !tile_start(&c, cs, t))
      break;
  }
  for (size_t u = started; u < started + nc && c.err == CL_SUCCESS; u++)
    if (c.cs[u % nc].busy)
      tile_finish(&c, &c.cs[u % nc]);
  if (c.err != CL_SUCCESS) { /* keep what the device already finished, oldest tile first */
    hop_ocl_call_flush(&c);
    for (int q = 0; q < HOP_OCL_QUEUES; q++)
      clFinish(st->q[q]);
    for (size_t u = started; u < started + nc; u++)
      if (c.cs[u % nc].busy)
        tile_finish(&c, &c.cs[u % nc]);
  }
  call_end(&c);
  enum hop_status rc = HOP_OK;
  if (c.err == CL_SUCCESS) {
    st->failures = 0;
  } else {
    st->failures++;
    if (!c.touched) {
      hop_log(2, "opencl: %s failed (error %d); C untouched", c.what, (int)c.err);
      rc = hop_ocl_status(c.err);
    } else {
      hop_log(1, "opencl: %s failed (error %d) after %zu of %zu tiles; the CPU finished the rest",
              c.what, (int)c.err, c.nfinal, c.ntiles);
      finish_on_cpu(&c);
    }
  }
  if (c.redone > 0)
    hop_log(2, "opencl recomputed %zu of %zu results on the CPU: below %.3g, where the device's "
               "flush of subnormals could have moved them", c.redone, (size_t)g->m * (size_t)g->n,
            (double)hop_subnormal_limit(g));
  log_phases(&c, hop_now() - t0);
  if (c.sg.tl != NULL)
    hop_ocl_timeline_report(c.sg.tl, g, t0, hop_now() - t0);
  free(c.done_cols);
  return rc;
}
