/* One call through the device: the plan's tiles of C go through C slots
 * in turn, so that while the host waits for one tile's read-back and
 * writes it into C, later tiles' uploads, kernels and read-backs are
 * already queued.  Uploads, kernels and downloads use three in-order queues
 * tied together by events; A and B blocks sit in slots and are reused
 * while the next tile needs the same block.
 *
 * Zero-copy (and the image families' operands) keep two slots of each.
 * The staged path is where a discrete GPU spends its time: every byte is
 * copied by the host into pinned memory and back, and those copies cost
 * more than the link or the kernels.  So the host must copy all the time,
 * never waiting for the device: operands go up chunk by chunk through a
 * ring of pinned buffers (transfer.c), each chunk on the link while the
 * next is packed; up to three operand slots and four C slots let the host
 * pack the next panels' B while earlier kernels run; each C tile comes
 * back in parts, the first written into C while the next is on the link.
 *
 * C on the host is written only by the host, from a tile the device has
 * completely finished, a prefix of its columns at a time.  After an error
 * every element of C is final or untouched: with none final the call fails
 * before C was touched (the router runs the CPU engine); otherwise the CPU
 * finishes the untouched columns here. */
#include <stdlib.h>
#include <string.h>

#include "family.h"

enum {
  PARTS = 8,              /* most read-backs per C tile */
  CHUNK_DEFAULT = 4 << 20 /* bytes per upload: a few hundred microseconds of copying */
};

struct op_slot {     /* an A or B block on the device */
  bool valid;
  unsigned long used; /* when it was last provided: the oldest is replaced */
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
  int parts, part_cols;   /* read back in parts of part_cols columns (zero-copy: one) */
  cl_event done[PARTS];   /* each part's read-back (staged) or the map (zero-copy) complete */
  cl_event unmapped; /* zero-copy: the map released, the kernel may write again */
  void *mapped;
};

struct call {
  struct hop_ocl_state *st;
  const struct hop_gemm *g;
  struct hop_ocl_plan p;
  bool staged;
  int nx, nc;               /* operand slots (each of A and B), C slots */
  struct op_slot ops[2][HOP_OCL_SLOTS]; /* [A, B][slot] */
  unsigned long clock;
  struct c_slot cs[HOP_OCL_SLOTS];
  int *done_cols;           /* per tile: its first done_cols columns are final in C */
  size_t ntiles, nfinal;
  bool touched;             /* some column of C holds final values */
  size_t redone;            /* results recomputed on the CPU (a flushing device) */
  struct hop_ocl_stager sg; /* staged uploads; every path's host time by phase */
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

/* Wait for ev, counted as the host's waiting time. */
static cl_int wait_ok(struct call *c, cl_event ev)
{
  double t0 = hop_ocl_now();
  cl_int err = hop_ocl_wait(c->st, ev);
  c->sg.wait_s += hop_ocl_now() - t0;
  return err;
}

/* hop_ocl_pack, counted as the host's packing time. */
static void pack_timed(struct call *c, const void *x, int ld, size_t e, int r0, int c0, int rows,
                       int cols, void *dst)
{
  double t0 = hop_ocl_now();
  hop_ocl_pack(c->st, x, ld, e, r0, c0, rows, cols, dst);
  c->sg.pack_s += hop_ocl_now() - t0;
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

/* The rows x cols block of op(X) at (r0, c0) on the device: reused when a
 * slot holds it, else wrapped (zero-copy) or packed and uploaded. */
static struct op_slot *provide(struct call *c, int x, int r0, int c0, int rows, int cols)
{
  struct hop_ocl_state *st = c->st;
  const struct hop_gemm *g = c->g;
  struct op_slot *slots = c->ops[x];
  int i = 0;
  for (int s = 0; s < c->nx; s++) {
    if (slots[s].valid && slots[s].r0 == r0 && slots[s].c0 == c0) {
      slots[s].used = ++c->clock;
      return &slots[s];
    }
    if (slots[s].used < slots[i].used)
      i = s;
  }
  struct op_slot *o = &slots[i];
  o->used = ++c->clock;
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
      pack_timed(c, base, ld, e, sr, sc, srows, scols, ptr);
      err = clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_UP], dev->mem, ptr, 0, NULL, &ev);
      if (err != CL_SUCCESS)
        return fail(c, err, "unmapping an operand buffer"), NULL;
      ev_put(&o->ready, ev);
      o->mem = dev->mem, o->off = 0, o->ld = srows;
    }
  } else {
    err = hop_ocl_slot_ensure(st, dev, full, CL_MEM_READ_ONLY, false);
    if (err != CL_SUCCESS)
      return fail(c, err, "allocating an operand buffer"), NULL;
    err = hop_ocl_stage_upload(st, &c->sg, base, ld, e, sr, sc, srows, scols, dev->mem,
                               o->last_use, &ev);
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
  if (c->staged) { /* the slot's last read-back was waited for: nothing reads it now */
    err = hop_ocl_stage_upload(st, &c->sg, g->c, g->ldc, e, cs->i0, cs->j0, cs->rows, cs->cols,
                               dev->mem, NULL, &ev);
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
      pack_timed(c, g->c, g->ldc, e, cs->i0, cs->j0, cs->rows, cs->cols, ptr);
      err = clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_UP], dev->mem, ptr, 0, NULL, &ev);
    }
  }
  if (err != CL_SUCCESS)
    return fail(c, err, "passing C to the device");
  ev_put(&cs->ready, ev);
  return true;
}

/* The tile's read-back, queued after its last kernel kev: staged, in parts
 * of about a chunk each (at most PARTS), so that the host writes the first
 * into C while the next crosses the link; zero-copy, one map. */
static cl_int read_back(struct call *c, struct c_slot *cs, cl_event kev)
{
  struct hop_ocl_state *st = c->st;
  cl_mem mem = st->pool.dev[2][cs - c->cs].mem;
  size_t col_bytes = (size_t)cs->rows * c->p.c_esize;
  size_t want = c->staged ? ((size_t)cs->cols * col_bytes + c->sg.chunk - 1) / c->sg.chunk : 1;
  int parts = want < 1 ? 1 : want > PARTS ? PARTS : (int)want;
  parts = parts > cs->cols ? cs->cols : parts;
  cs->part_cols = (cs->cols + parts - 1) / parts;
  cs->parts = 0;
  cl_int err = CL_SUCCESS;
  for (int j = 0; j < cs->cols && err == CL_SUCCESS; j += cs->part_cols) {
    int n = cs->cols - j < cs->part_cols ? cs->cols - j : cs->part_cols;
    cl_event *done = &cs->done[cs->parts];
    if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_READ)) {
      err = CL_OUT_OF_RESOURCES;
    } else if (c->staged) {
      unsigned char *host = st->pool.stage[2][cs - c->cs].host;
      err = clEnqueueReadBuffer(st->q[HOP_OCL_Q_DOWN], mem, CL_FALSE, (size_t)j * col_bytes,
                                (size_t)n * col_bytes, host + (size_t)j * col_bytes, 1, &kev,
                                done);
    } else {
      cs->mapped = clEnqueueMapBuffer(st->q[HOP_OCL_Q_DOWN], mem, CL_FALSE, CL_MAP_READ, 0,
                                      (size_t)cs->cols * col_bytes, 1, &kev, done, &err);
      if (err != CL_SUCCESS)
        cs->mapped = NULL;
    }
    if (err == CL_SUCCESS)
      cs->parts++;
    if (c->staged)
      clFlush(st->q[HOP_OCL_Q_DOWN]);
  }
  return err;
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
  for (int i = 0; i < PARTS; i++)
    ev_put(&cs->done[i], NULL);
  cs->parts = 0;
  cs->i0 = ti * p->tm, cs->j0 = tj * p->tn;
  cs->rows = g->m - cs->i0 < p->tm ? g->m - cs->i0 : p->tm;
  cs->cols = g->n - cs->j0 < p->tn ? g->n - cs->j0 : p->tn;
  size_t slot_bytes = (size_t)p->tm * (size_t)p->tn * p->c_esize;
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
      return ev_put(&kev, NULL), false;
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
  err = read_back(c, cs, kev);
  ev_put(&kev, NULL);
  cs->busy = cs->parts > 0; /* parts already queued are waited for, even after an error */
  if (err != CL_SUCCESS)
    return fail(c, err, "reading C back");
  flush_all(c);
  return true;
}

/* Wait for slot cs's tile and write it into C, part by part; after an
 * error, the same keeps the parts whose read-back had completed. */
static bool tile_finish(struct call *c, struct c_slot *cs)
{
  struct hop_ocl_state *st = c->st;
  cs->busy = false;
  for (int p = 0; p < cs->parts; p++) {
    cl_int err = wait_ok(c, cs->done[p]);
    if (err != CL_SUCCESS)
      return fail(c, err, "reading C back");
    int j = p * cs->part_cols, n = cs->cols - j < cs->part_cols ? cs->cols - j : cs->part_cols;
    size_t off = (size_t)j * (size_t)cs->rows * c->p.c_esize;
    const unsigned char *src = c->staged ? st->pool.stage[2][cs - c->cs].host : cs->mapped;
    double t0 = hop_ocl_now();
    c->redone += hop_ocl_unpack_c(st, c->g, c->p.ksplit, src + off, cs->i0, cs->j0 + j, cs->rows, n);
    c->sg.unpack_s += hop_ocl_now() - t0;
    c->sg.unpack_bytes += (double)n * (double)cs->rows * (double)c->p.c_esize;
    c->done_cols[cs->tile] = j + n;
    c->touched = true;
  }
  if (c->done_cols[cs->tile] == cs->cols)
    c->nfinal++;
  if (cs->mapped != NULL) {
    cl_event ev = NULL;
    cl_int err = clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_DOWN], st->pool.dev[2][cs - c->cs].mem,
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
  for (int i = 0; i < HOP_OCL_SLOTS; i++) {
    struct c_slot *cs = &c->cs[i];
    if (cs->mapped != NULL) {
      clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_DOWN], st->pool.dev[2][i].mem, cs->mapped, 0, NULL,
                              NULL);
      clFinish(st->q[HOP_OCL_Q_DOWN]);
    }
    if (cs->wrap_in != NULL)
      clReleaseMemObject(cs->wrap_in);
    ev_put(&cs->ready, NULL);
    for (int p = 0; p < PARTS; p++)
      ev_put(&cs->done[p], NULL);
    ev_put(&cs->unmapped, NULL);
    for (int x = 0; x < 2; x++) {
      struct op_slot *o = &c->ops[x][i];
      if (o->wrap != NULL)
        clReleaseMemObject(o->wrap);
      ev_put(&o->ready, NULL);
      ev_put(&o->last_use, NULL);
    }
  }
  hop_ocl_stager_end(&c->sg);
}

/* The columns the device did not finish, on the CPU (C there is untouched). */
static void finish_on_cpu(struct call *c)
{
  const struct hop_gemm *g = c->g;
  size_t e = hop_dtype_ab_size(g->dtype), ec = hop_dtype_c_size(g->dtype);
  for (size_t t = 0; t < c->ntiles; t++) {
    int i0 = (int)(t / (size_t)c->p.tiles_n) * c->p.tm;
    int j0 = (int)(t % (size_t)c->p.tiles_n) * c->p.tn;
    struct hop_gemm sub = *g;
    sub.m = g->m - i0 < c->p.tm ? g->m - i0 : c->p.tm;
    sub.n = (g->n - j0 < c->p.tn ? g->n - j0 : c->p.tn) - c->done_cols[t];
    j0 += c->done_cols[t];
    if (sub.n == 0)
      continue;
    size_t a_at = g->ta ? hop_at(0, i0, g->lda) : hop_at(i0, 0, g->lda);
    size_t b_at = g->tb ? hop_at(j0, 0, g->ldb) : hop_at(0, j0, g->ldb);
    sub.a = (const unsigned char *)g->a + a_at * e;
    sub.b = (const unsigned char *)g->b + b_at * e;
    sub.c = (unsigned char *)g->c + hop_at(i0, j0, g->ldc) * ec;
    hop_cpu_gemm(&sub);
  }
}

/* Slots in flight.  Zero-copy and the image families' operands: two each,
 * as the families expect.  Staged: up to three of each operand and four
 * of C, while the device buffers stay within the six largest buffers of
 * the two-slot pipeline (6 x cap); an operand loaded once takes one slot.
 * Pinned host memory: a C slot's image each, and the ring's chunks. */
static void choose_slots(struct call *c)
{
  const struct hop_ocl_plan *p = &c->p;
  c->nx = c->nc = 2;
  if (!c->staged)
    return;
  double eab = (double)hop_dtype_ab_size(c->g->dtype);
  double a = (double)p->tm * p->tk * eab, b = (double)p->tk * p->tn * eab;
  double cc = (double)p->tm * p->tn * (double)p->c_esize;
  bool a_once = p->tiles_m == 1 && p->chunks == 1, b_once = p->tiles_n == 1 && p->chunks == 1;
  c->nx = c->st->family->provide == NULL ? 3 : 2;
  c->nc = HOP_OCL_SLOTS;
  for (;;) {
    double bytes = (a_once ? 1 : c->nx) * a + (b_once ? 1 : c->nx) * b + c->nc * cc;
    if (bytes <= 6.0 * (double)c->st->cap)
      break;
    if (c->nc > 2)
      c->nc--;
    else if (c->nx > 2)
      c->nx--;
    else
      break;
  }
}

/* HOPBLAS_VERBOSE=3: where the call's host time went, and the plan. */
static void log_phases(const struct call *c, double seconds)
{
  if (hop_config()->verbose < 3)
    return;
  const struct hop_ocl_plan *p = &c->p;
  const struct hop_gemm *g = c->g;
  double busy = c->sg.pack_s + c->sg.unpack_s + c->sg.wait_s, mib = 1.0 / (1 << 20);
  hop_log(3,
          "opencl phases: %s %dx%dx%d %s%s beta=%g: %zu tiles (%dx%d) of %dx%d, k in %d; slots "
          "%d operand, %d C; %ld uploads of <= %zu KiB, %d copy threads; host ms: pack %.3f "
          "(%.1f MiB), unpack %.3f (%.1f MiB), wait %.3f, other %.3f, total %.3f",
          c->staged ? "staged" : "zero-copy", g->m, g->n, g->k, g->ta ? "T" : "N",
          g->tb ? "T" : "N", (double)g->beta, c->ntiles, p->tiles_m, p->tiles_n, p->tm, p->tn,
          p->chunks, c->nx, c->nc, c->sg.uploads, c->sg.chunk >> 10,
          hop_ocl_copy_threads(c->st), 1e3 * c->sg.pack_s, mib * c->sg.pack_bytes,
          1e3 * c->sg.unpack_s, mib * c->sg.unpack_bytes, 1e3 * c->sg.wait_s,
          1e3 * (seconds - busy), 1e3 * seconds);
}

static size_t chunk_bytes(struct hop_ocl_state *st)
{
  if (st->pool.chunk == 0)
    st->pool.chunk = (size_t)hop_config_int("HOPBLAS_OPENCL_CHUNK", 0, 1L << 30, 0);
  if (st->pool.chunk == 0)
    st->pool.chunk = CHUNK_DEFAULT;
  return st->pool.chunk < st->cap ? st->pool.chunk : st->cap;
}

/* Zero-copy wraps each operand in a new buffer object per call, a few
 * driver round trips that dwarf a tiny call (PoCL: 90 us against 58 us
 * staged for 4x4x4); copying a few KiB into the kept buffers is cheaper. */
enum { SMALL_CALL_BYTES = 64 * 1024 };

static enum hop_ocl_memory call_memory(const struct hop_ocl_state *st, const struct hop_gemm *g)
{
  if (st->memory == HOP_OCL_STAGED || st->memory_chosen_by_user)
    return st->memory;
  double eab = (double)hop_dtype_ab_size(g->dtype), ec = (double)hop_dtype_c_size(g->dtype);
  double bytes = ((double)g->m * g->k + (double)g->k * g->n) * eab + (double)g->m * g->n * ec;
  return bytes <= SMALL_CALL_BYTES ? HOP_OCL_STAGED : HOP_OCL_ZERO_COPY;
}

enum hop_status hop_ocl_run(struct hop_ocl_state *st, const struct hop_gemm *g)
{
  double t0 = hop_ocl_now();
  enum hop_ocl_memory memory = call_memory(st, g);
  struct call c = {.st = st, .g = g, .staged = memory == HOP_OCL_STAGED};
  if (st->family->limits != NULL)
    st->family->limits(st, g, &c.p);
  if (!hop_ocl_plan_make(g, memory, st->cap, &c.p)) {
    hop_log(2, "opencl: no tiling of %dx%dx%d fits buffers of %zu bytes; declined", g->m, g->n,
            g->k, st->cap);
    return HOP_DECLINED;
  }
  c.ntiles = (size_t)c.p.tiles_m * (size_t)c.p.tiles_n;
  c.done_cols = calloc(c.ntiles, sizeof *c.done_cols);
  if (c.done_cols == NULL)
    return HOP_ERR_NOMEM;
  c.sg.chunk = chunk_bytes(st);
  choose_slots(&c);
  for (size_t t = 0; t < c.ntiles; t++) {
    struct c_slot *cs = &c.cs[t % (size_t)c.nc];
    if ((cs->busy && !tile_finish(&c, cs)) || !tile_start(&c, cs, t))
      break;
  }
  for (size_t t = c.ntiles; t < c.ntiles + (size_t)c.nc && c.err == CL_SUCCESS; t++)
    if (c.cs[t % (size_t)c.nc].busy)
      tile_finish(&c, &c.cs[t % (size_t)c.nc]);
  if (c.err != CL_SUCCESS) { /* keep what the device already finished, oldest tile first */
    flush_all(&c);
    for (int q = 0; q < HOP_OCL_QUEUES; q++)
      clFinish(st->q[q]);
    size_t oldest = c.ntiles;
    for (int i = 0; i < c.nc; i++)
      if (c.cs[i].busy && c.cs[i].tile < oldest)
        oldest = c.cs[i].tile;
    for (size_t t = oldest; t < oldest + (size_t)c.nc; t++)
      if (c.cs[t % (size_t)c.nc].busy)
        tile_finish(&c, &c.cs[t % (size_t)c.nc]);
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
  log_phases(&c, hop_ocl_now() - t0);
  free(c.done_cols);
  return rc;
}
