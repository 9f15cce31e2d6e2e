/* Leading passes over k: a staged call from host memory first computes
 * alpha op(A) op(B) over the first half of k (HOPBLAS_OPENCL_LEAD_DEPTH:
 * another share) for every tile at once, in two passes of k/4
 * (HOPBLAS_OPENCL_LEAD_PASSES: more, each twice as deep as the one
 * before), into one device buffer the size of C; then each
 * tile runs the second half, adding that buffer, and comes back as usual
 * (run.c).
 *
 * Why: a tile needs its whole A block and B panel, so in tile order the
 * device waits at the start for the first block of A and, later, for the
 * next one (on the H200, dgemm 8192's kernels sat idle about 8 of its
 * 35 ms while 1 GiB went up at 48 GB/s, against 25.8 ms of kernels).  A
 * pass over every tile needs only a slab of k of each block: its bytes
 * grow with m + n, its work with m n, so after the first thin slab the
 * link stays ahead of the device.  The second half stays per tile so that
 * the read-backs overlap its kernels.
 *
 * Only where every block of A and every panel of B stay on the device
 * (they are uploaded slab by slab, once), C is held in the accumulation's
 * type and beta is the host's or zero (the first pass writes the buffer
 * without reading it), for GEMM-shaped calls, and where each tile's first
 * pass is worth a launch (HOPBLAS_OPENCL_SLICE_MIN_FLOPS, as k slices).
 *
 * And only for calls of at least HOPBLAS_OPENCL_LEAD_MIN_INTENSITY flops
 * per byte of A and B (500): the passes crowd the host's copies into the
 * second half (the rests packed while C is written), which costs where
 * the host's copies are as long as the kernels.  On the H200 at n = 8192
 * from host memory (one call, ms, two rounds): two passes made dgemm
 * (1024 flop/B) 34.0 against 35.5 and 36.4 in tile order, zgemm's real
 * GEMM (1365) 113 to 117 against 120, sgemm 27.6 to 28.1 against 28.3 to
 * 28.7; four passes (thinner slabs, 64 launches) made dgemm 39.5 to 40.1,
 * one pass 34.6 to 35.9.
 *
 * The parts of a call shared by several devices take them too, reading
 * each slab of A from the one packing of op(A) (split_share.c, which goes
 * up slab by slab at these bounds, hop_ocl_lead_slabs): on two H200s
 * sgemm 16384 took 106 to 108 ms against 115 to 119 in tile order;
 * dgemm, bound by the host's copies, neither gained nor lost. */
#include "run.h"

enum { LEAD_DEPTH = 2, LEAD_GRAIN = 64 };
static const double LEAD_INTENSITY = 500.0; /* flops per byte of A and B */

/* HOPBLAS_OPENCL_LEAD_DEPTH: the share of k the leading passes reach (1/2). */
static double lead_depth(void)
{
  return hop_config_double("HOPBLAS_OPENCL_LEAD_DEPTH", 0.125, 0.875, 0.5);
}

/* The k at which pass p of `passes` leading passes ends (the last: k/2,
 * or HOPBLAS_OPENCL_LEAD_DEPTH of k), a multiple of LEAD_GRAIN. */
static int64_t pass_end(int64_t k, int passes, int p)
{
  int64_t lead = (int64_t)((double)k * lead_depth()) / LEAD_GRAIN * LEAD_GRAIN;
  int64_t end = lead >> (passes - 1 - p);
  return end / LEAD_GRAIN * LEAD_GRAIN;
}

/* HOPBLAS_OPENCL_LEAD_PASSES: how many passes a call takes at most. */
static int passes_wanted(void)
{
  return (int)hop_config_int("HOPBLAS_OPENCL_LEAD_PASSES", 0, 8, LEAD_DEPTH);
}

int hop_ocl_lead_passes(const struct hop_ocl_call *c, bool panels_fit)
{
  const struct hop_call *g = c->g;
  const struct hop_ocl_plan *p = &c->p;
  if (!panels_fit || c->ops != &hop_ocl_staged || !p->by_columns || p->chunks != 1 ||
      c->st->flushes || p->c_esize != hop_ocl_acc_size(g->dtype) ||
      (!p->beta_host && !hop_scalar_is_zero(g->beta)) || hop_ocl_call_part(g) != HOP_OCL_ALL)
    return 0;
  int want = passes_wanted();
  double ab = ((double)g->m + (double)g->n) * (double)g->k * (double)hop_dtype_ab_size(g->dtype);
  double least = hop_config_double("HOPBLAS_OPENCL_LEAD_MIN_INTENSITY", 0.0, 1e12, LEAD_INTENSITY);
  if (hop_call_flops(g) < least * ab)
    return 0;
  double min_flops = hop_ocl_slice_min_flops();
  double mm = g->m < p->tm ? (double)g->m : (double)p->tm;
  double nn = g->n < p->tn ? (double)g->n : (double)p->tn;
  /* The deepest set whose first pass is at least LEAD_GRAIN deep and a launch's worth. */
  for (int passes = want; passes > 0; passes--) {
    int64_t first = pass_end(g->k, passes, 0);
    if (first >= LEAD_GRAIN && 2.0 * mm * nn * (double)first >= min_flops)
      return passes;
  }
  return 0;
}

int hop_ocl_lead_slabs(int64_t k, int64_t *end, int most)
{
  int want = passes_wanted(), n = 0;
  for (int p = 0; p < want && n < most - 1; p++) {
    int64_t e = pass_end(k, want, p);
    if (e > (n > 0 ? end[n - 1] : 0) && e < k)
      end[n++] = e;
  }
  end[n++] = k;
  return n;
}

/* How much of a dimension of `total` the block of `size` at `at` covers. */
static int extent(int64_t total, int64_t at, int size)
{
  return (int)(total - at < size ? total - at : size);
}

/* Slab [k0, k0 + kb) of A's row block i (x 0) or B's panel j (x 1) into
 * the slot of that index, which it keeps for the call. */
static bool slab(struct hop_ocl_call *c, int x, int idx, int64_t k0, int64_t kb, cl_event *ev)
{
  const struct hop_call *g = c->g;
  struct hop_ocl_op_slot *o = &c->op[x][idx];
  int r0 = x == 0 ? idx * c->p.tm : 0, c0 = x == 0 ? 0 : idx * c->p.tn;
  int rows = x == 0 ? extent(g->m, r0, c->p.tm) : (int)g->k;
  int cols = x == 0 ? (int)g->k : extent(g->n, c0, c->p.tn);
  /* A split's parts read A's slab from the one copy on the device once it is
   * up, else (it did not go up) upload it themselves. */
  bool viewed = x == 0 && c->st->shared != NULL &&
                hop_ocl_share_slab(c->st, o, r0, rows, (int)k0, (int)kb, ev);
  if (!viewed) {
    struct hop_ocl_src s = hop_ocl_call_source(c, o, x, r0, c0, rows, cols);
    if (!c->ops->block_part(c, o, &s, (int)k0, (int)kb, ev))
      return false;
  }
  o->r0 = r0, o->c0 = c0, o->valid = true;
  o->used = ++c->clock;
  return true;
}

/* The launch of tile (i, j) into its place in the whole C held in acc. */
static struct hop_ocl_launch lead_launch(const struct hop_ocl_call *c, cl_mem acc, int i, int j)
{
  const struct hop_call *g = c->g;
  int i0 = i * c->p.tm, j0 = j * c->p.tn;
  return hop_ocl_call_launch(c, i0, j0, extent(g->m, i0, c->p.tm), extent(g->n, j0, c->p.tn), acc,
                             (cl_ulong)i0 + (cl_ulong)j0 * (cl_ulong)g->m, (int)g->m);
}

bool hop_ocl_lead_run(struct hop_ocl_call *c)
{
  struct hop_ocl_state *st = c->st;
  const struct hop_call *g = c->g;
  size_t bytes = (size_t)g->m * (size_t)g->n * c->p.c_esize;
  cl_int err = hop_ocl_slot_ensure(st, &st->pool.acc, bytes, CL_MEM_READ_WRITE, false);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "allocating the leading passes' sums");
  int tiles_m = c->p.tiles_m, tiles_n = c->p.tiles_n;
  cl_event ea[HOP_OCL_OP_SLOTS] = {NULL}, eb[HOP_OCL_OP_SLOTS] = {NULL};
  bool ok = true;
  for (int p = 0; p < c->lead.passes && ok && c->err == CL_SUCCESS; p++) {
    int64_t k0 = p == 0 ? 0 : pass_end(g->k, c->lead.passes, p - 1);
    int64_t kb = pass_end(g->k, c->lead.passes, p) - k0;
    for (int i = 0; i < tiles_m && ok; i++)
      for (int j = 0; j < tiles_n && ok; j++) {
        if (j == 0)
          hop_ocl_ev_put(&ea[i], NULL), ok = slab(c, 0, i, k0, kb, &ea[i]);
        if (ok && i == 0)
          hop_ocl_ev_put(&eb[j], NULL), ok = slab(c, 1, j, k0, kb, &eb[j]);
        struct hop_ocl_launch l = lead_launch(c, st->pool.acc.mem, i, j);
        ok = ok && hop_ocl_later_launch(c, NULL, &l, &c->op[0][i], &c->op[1][j], (int)k0, (int)kb,
                                        p == 0, ea[i], eb[j]);
      }
  }
  c->lead.k = pass_end(g->k, c->lead.passes, c->lead.passes - 1);
  for (int i = 0; i < HOP_OCL_OP_SLOTS; i++)
    hop_ocl_ev_put(&ea[i], NULL), hop_ocl_ev_put(&eb[i], NULL);
  hop_ocl_call_flush(c);
  return ok && c->err == CL_SUCCESS;
}

/* Tile t's blocks' rest of k uploaded, each once. */
static bool rest_of(struct hop_ocl_call *c, size_t t)
{
  const struct hop_call *g = c->g;
  int idx[2];
  hop_ocl_call_tile(c, t, &idx[0], &idx[1]);
  for (int x = 0; x < 2; x++) {
    if (c->lead.rest_up[x][idx[x]])
      continue;
    cl_event ev = NULL;
    if (!slab(c, x, idx[x], c->lead.k, g->k - c->lead.k, &ev))
      return hop_ocl_ev_put(&ev, NULL), false;
    hop_ocl_ev_put(&c->op[x][idx[x]].ready, ev);
    c->lead.rest_up[x][idx[x]] = true;
  }
  return true;
}

/* Twice the C slots: the host starts a tile only once the one four back
 * is read back, and rests uploaded only as their tiles start left the link
 * idle 4 of dgemm 8192's 27 ms of uploads on the H200.  Queued after the
 * tile's kernel, so that packing them never holds a kernel back. */
bool hop_ocl_lead_ahead(struct hop_ocl_call *c, size_t t)
{
  for (size_t u = t + 1; u < c->ntiles && u <= t + 2 * (size_t)c->nc; u++)
    if (!rest_of(c, u))
      return false;
  hop_ocl_call_flush(c);
  return true;
}

bool hop_ocl_lead_rest(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, struct hop_ocl_launch *l)
{
  const struct hop_call *g = c->g;
  if (!rest_of(c, cs->tile))
    return false;
  int i = cs->i0 / c->p.tm, j = cs->j0 / c->p.tn;
  int64_t k0 = c->lead.k, kb = g->k - k0;
  struct hop_ocl_op_slot *a = &c->op[0][i], *b = &c->op[1][j];
  l->cin = c->st->pool.acc.mem;
  l->cin_off = (cl_ulong)cs->i0 + (cl_ulong)cs->j0 * (cl_ulong)g->m;
  l->ldcin = (int)g->m;
  return hop_ocl_later_launch(c, cs, l, a, b, (int)k0, (int)kb, false, a->ready, b->ready);
}
