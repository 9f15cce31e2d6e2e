/* One packing of the operand that the devices of a column split share.
 * Cut by columns of C, every device's part reads all of op(A): packed by
 * each part on its own, A crossed the host's memory once per device, and
 * the host's copies, not the kernels, bounded a GEMM on two GPUs.  Here
 * op(A) is packed once, in bands of its rows, and each chunk goes up to
 * every device from the pinned buffer it was packed into (a pinned buffer
 * of one context feeds another context's device at the link's full rate on
 * NVIDIA's driver; elsewhere it is host memory, still right).  Each device
 * keeps op(A) whole, as stored (transposed or not), in a buffer of its
 * pool, and its part's pipeline takes A's blocks from it (run.c's provide).
 *
 * op(A) is cut into units: bands of its rows, and in each band slabs of k
 * at the bounds of the leading passes (run_lead.c), so that a part's first
 * pass waits for the first slab of its first block only, as on one device.
 *
 * Who packs: a part that needs units not yet packed claims the first of
 * them (slab by slab, band by band) and packs it with its own copy threads
 * and pinned buffers, while the other parts claim the next ones or wait;
 * so the units are packed side by side by the devices' threads, each part
 * also packing its own B and C as before.
 *
 * Failures lose nothing: a unit whose upload failed on a device makes that
 * part's tiles that need it pack their A blocks themselves. */
#include <stdlib.h>
#include <string.h>

#include "run.h"

enum { BANDS = 4 }; /* bands of op(A)'s rows: the first tiles wait for the first ones only */
enum { SLABS = 9 }; /* at most: the leading passes' (up to 8) and the rest */

enum band_state { UNCLAIMED, PACKING, DONE };

struct hop_ocl_shared {
  pthread_mutex_t lock;
  pthread_cond_t more;
  int ndev;
  struct hop_ocl_state *dev[HOP_OCL_SHARE_MAX];
  cl_mem mem[HOP_OCL_SHARE_MAX];                /* each device's copy of op(A) as stored */
  int slabs;
  int64_t slab_end[SLABS]; /* slab s: k in [slab_end[s - 1] (0 for the first), slab_end[s]) */
  enum band_state state[SLABS][BANDS];
  cl_event unit[SLABS][BANDS][HOP_OCL_SHARE_MAX]; /* its last upload to each device; NULL: failed */
  bool ta;
  int64_t m, k, ld, band_rows; /* op(A) is m x k; stored with leading dimension ld */
  size_t e;
  const void *a;               /* the caller's A */
  int lda;
  /* Each packer's pinned buffers' last uploads to each device. */
  cl_event sent[HOP_OCL_SHARE_MAX][HOP_OCL_RING][HOP_OCL_SHARE_MAX];
  int next[HOP_OCL_SHARE_MAX]; /* each packer's next pinned buffer */
};

static int index_of(const struct hop_ocl_shared *sh, const struct hop_ocl_state *st)
{
  for (int d = 0; d < sh->ndev; d++)
    if (sh->dev[d] == st)
      return d;
  return -1;
}

/* Whether the devices can share g's A: a real GEMM without complex planes,
 * staged on buffer families, op(A) within every device's largest buffer. */
bool hop_ocl_share_fits(struct hop_ocl_state *const *dev, int n, const struct hop_call *g)
{
  if (n < 2 || n > HOP_OCL_SHARE_MAX || g->op != HOP_OP_GEMM || g->planes != NULL ||
      (g->dtype != HOP_DTYPE_S && g->dtype != HOP_DTYPE_D) ||
      hop_config_int("HOPBLAS_OPENCL_SPLIT_SHARE", 0, 1, 1) == 0)
    return false;
  size_t bytes = (size_t)g->m * (size_t)g->k * hop_dtype_ab_size(g->dtype);
  for (int d = 0; d < n; d++) {
    /* Within the device's own limits (an eighth of its memory, as the
     * plan's buffers), whatever HOPBLAS_OPENCL_MAX_ALLOC makes the plan cut. */
    const struct hop_ocl_device *dv = hop_ocl_device(dev[d]);
    cl_ulong most = dv->global_mem / 8 >= (64u << 20) && dv->global_mem / 8 < dv->max_alloc
                      ? dv->global_mem / 8 : dv->max_alloc;
    if (dev[d]->memory != HOP_OCL_STAGED || dev[d]->family == NULL ||
        dev[d]->family->provide != NULL || bytes > most || dev[d]->off)
      return false;
  }
  return true;
}

/* The shared A's buffers on every device, each under its lock; NULL when
 * one cannot be had (the parts then pack A themselves). */
struct hop_ocl_shared *hop_ocl_share_begin(struct hop_ocl_state *const *dev, int n,
                                           const struct hop_call *g)
{
  struct hop_ocl_shared *sh = calloc(1, sizeof *sh);
  if (sh == NULL)
    return NULL;
  sh->ndev = n, sh->ta = g->ta, sh->m = g->m, sh->k = g->k, sh->e = hop_dtype_ab_size(g->dtype);
  sh->ld = sh->ta ? sh->k : sh->m;
  sh->a = g->a, sh->lda = (int)g->lda;
  sh->band_rows = (sh->m + BANDS - 1) / BANDS;
  sh->slabs = hop_ocl_lead_slabs(sh->k, sh->slab_end, SLABS);
  size_t bytes = (size_t)sh->m * (size_t)sh->k * sh->e;
  for (int d = 0; d < n; d++) {
    sh->dev[d] = dev[d];
    pthread_mutex_lock(&dev[d]->lock);
    cl_int err = hop_ocl_slot_ensure(dev[d], &dev[d]->pool.shared, bytes, CL_MEM_READ_ONLY, false);
    pthread_mutex_unlock(&dev[d]->lock);
    if (err != CL_SUCCESS) {
      hop_log(2, "opencl: device %zu has no room for the shared A (error %d); each part packs its own",
              dev[d]->dev, (int)err);
      free(sh);
      return NULL;
    }
    sh->mem[d] = dev[d]->pool.shared.mem;
  }
  pthread_mutex_init(&sh->lock, NULL);
  pthread_cond_init(&sh->more, NULL);
  for (int d = 0; d < n; d++)
    dev[d]->shared = sh;
  return sh;
}

static int64_t slab_start(const struct hop_ocl_shared *sh, int s)
{
  return s == 0 ? 0 : sh->slab_end[s - 1];
}

/* The slab that holds k. */
static int slab_of(const struct hop_ocl_shared *sh, int64_t k)
{
  int s = 0;
  while (s < sh->slabs - 1 && sh->slab_end[s] <= k)
    s++;
  return s;
}

/* The stored block of slab s of band b: rows [r0, r0 + rows) x columns [c0, c0 + cols). */
static void unit_block(const struct hop_ocl_shared *sh, int s, int b, int64_t *r0, int64_t *c0,
                       int64_t *rows, int64_t *cols)
{
  int64_t at = (int64_t)b * sh->band_rows;
  int64_t h = sh->m - at < sh->band_rows ? sh->m - at : sh->band_rows;
  int64_t k0 = slab_start(sh, s), kb = sh->slab_end[s] - k0;
  *r0 = sh->ta ? k0 : at, *rows = sh->ta ? kb : h;
  *c0 = sh->ta ? at : k0, *cols = sh->ta ? h : kb;
}

/* Slab s of band b packed by device p's copy threads into its pinned
 * buffers, each chunk queued up to every device; the unit's events into
 * ev.  On p's thread, under p's lock (inside its part). */
static void pack_unit(struct hop_ocl_shared *sh, int p, int s, int b, cl_event *ev)
{
  struct hop_ocl_state *st = sh->dev[p];
  int64_t r0, c0, rows, cols;
  unit_block(sh, s, b, &r0, &c0, &rows, &cols);
  size_t col_bytes = (size_t)rows * sh->e;
  int64_t per = (int64_t)(hop_ocl_chunk_bytes(st) / col_bytes);
  per = per < 1 ? 1 : per > cols ? cols : per;
  bool ok[HOP_OCL_SHARE_MAX];
  for (int d = 0; d < sh->ndev; d++)
    ok[d] = true, ev[d] = NULL;
  for (int64_t j = 0; j < cols; j += per) {
    int64_t n = cols - j < per ? cols - j : per;
    int r = sh->next[p];
    sh->next[p] = (r + 1) % HOP_OCL_RING;
    struct hop_ocl_slot *ring = &st->pool.shared_ring[r];
    for (int d = 0; d < sh->ndev; d++) { /* the buffer's uploads from an earlier chunk are done */
      if (sh->sent[p][r][d] != NULL && hop_ocl_wait(sh->dev[d], sh->sent[p][r][d]) != CL_SUCCESS)
        ok[d] = false;
      hop_ocl_ev_put(&sh->sent[p][r][d], NULL);
    }
    cl_int err = hop_ocl_slot_ensure(st, ring, (size_t)per * col_bytes,
                                     CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, true);
    if (err == CL_SUCCESS && hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_SHARE))
      err = CL_OUT_OF_RESOURCES;
    if (err != CL_SUCCESS) {
      hop_log(1, "opencl: device %zu: packing band %d of the shared A failed (slab %d, error %d); "
              "the parts pack those blocks themselves", st->dev, b, s, (int)err);
      for (int d = 0; d < sh->ndev; d++)
        ok[d] = false;
      break;
    }
    hop_ocl_pack(st, sh->a, sh->lda, sh->e, (int)r0, (int)(c0 + j), (int)rows, (int)n, ring->host);
    size_t dev_origin[3] = {(size_t)r0 * sh->e, (size_t)(c0 + j), 0}, host_origin[3] = {0, 0, 0};
    size_t region[3] = {col_bytes, (size_t)n, 1};
    for (int d = 0; d < sh->ndev; d++) {
      cl_event up = NULL;
      cl_command_queue q = sh->dev[d]->q[HOP_OCL_Q_SHARE];
      if (!ok[d])
        continue;
      cl_int werr = clEnqueueWriteBufferRect(q, sh->mem[d], CL_FALSE, dev_origin, host_origin,
                                             region, (size_t)sh->ld * sh->e, 0, col_bytes, 0,
                                             ring->host, 0, NULL, &up);
      if (werr != CL_SUCCESS) {
        hop_log(1, "opencl: device %zu: uploading band %d of the shared A failed (slab %d, error "
                "%d); its part packs those blocks itself", sh->dev[d]->dev, b, s, (int)werr);
        ok[d] = false;
        continue;
      }
      clFlush(q);
      sh->sent[p][r][d] = up;
      clRetainEvent(up);
      hop_ocl_ev_put(&ev[d], up);
    }
  }
  for (int d = 0; d < sh->ndev; d++)
    if (!ok[d])
      hop_ocl_ev_put(&ev[d], NULL);
}

/* Slabs s0 to s1 of bands b0 to b1 packed and queued (by this part or
 * another): the first of them unclaimed is this part's to pack, else it
 * waits for those being packed. */
static void units_up(struct hop_ocl_shared *sh, int p, int b0, int b1, int s0, int s1)
{
  pthread_mutex_lock(&sh->lock);
  for (;;) {
    int ts = -1, tb = -1;
    bool waiting = false;
    for (int s = s0; s <= s1 && ts < 0; s++)
      for (int b = b0; b <= b1 && ts < 0; b++) {
        if (sh->state[s][b] == UNCLAIMED)
          ts = s, tb = b;
        else if (sh->state[s][b] == PACKING)
          waiting = true;
      }
    if (ts >= 0) {
      sh->state[ts][tb] = PACKING;
      pthread_mutex_unlock(&sh->lock);
      cl_event ev[HOP_OCL_SHARE_MAX];
      pack_unit(sh, p, ts, tb, ev);
      pthread_mutex_lock(&sh->lock);
      memcpy(sh->unit[ts][tb], ev, sizeof ev);
      sh->state[ts][tb] = DONE;
      pthread_cond_broadcast(&sh->more);
    } else if (waiting) {
      pthread_cond_wait(&sh->more, &sh->lock);
    } else {
      break;
    }
  }
  pthread_mutex_unlock(&sh->lock);
}

/* Slot o as a view of op(A)'s rows [r0, r0 + rows) from k = k_origin in
 * st's shared copy; *ready: an event once k in [k0, k0 + kb) of them is
 * up.  False when some of it did not go up (o untouched). */
static bool view(struct hop_ocl_state *st, struct hop_ocl_op_slot *o, int r0, int rows,
                 int k_origin, int k0, int kb, cl_event *ready)
{
  struct hop_ocl_shared *sh = st->shared;
  int d = index_of(sh, st);
  if (d < 0 || rows <= 0 || kb <= 0)
    return false;
  /* Every unit the block spans, each uploaded (packers on other threads
   * may have queued them in any order): the kernels wait for all of them. */
  int b0 = (int)(r0 / sh->band_rows), b1 = (int)((r0 + rows - 1) / sh->band_rows);
  int s0 = slab_of(sh, k0), s1 = slab_of(sh, (int64_t)k0 + kb - 1);
  units_up(sh, d, b0, b1, s0, s1);
  cl_event need[SLABS * BANDS];
  cl_uint n = 0;
  bool all = true; /* else a unit did not go up: this block is packed as before */
  pthread_mutex_lock(&sh->lock);
  for (int s = s0; s <= s1; s++)
    for (int b = b0; b <= b1; b++) {
      need[n++] = sh->unit[s][b][d];
      all = all && need[n - 1] != NULL;
    }
  pthread_mutex_unlock(&sh->lock);
  *ready = NULL;
  if (!all || clEnqueueMarkerWithWaitList(st->q[HOP_OCL_Q_EXEC], n, need, ready) != CL_SUCCESS)
    return false;
  int64_t sr = sh->ta ? k_origin : r0, sc = sh->ta ? r0 : k_origin;
  o->mem = sh->mem[d];
  o->off = (cl_ulong)sr + (cl_ulong)sc * (cl_ulong)sh->ld;
  o->ld = (int)sh->ld;
  return true;
}

/* run.c's provide: op(A)'s rows x cols block at (r0, c0) (cols of k from
 * c0) from st's shared copy into slot o, once it is queued; false when it
 * is not there. */
bool hop_ocl_share_block(struct hop_ocl_state *st, struct hop_ocl_op_slot *o, int r0, int c0,
                         int rows, int cols)
{
  cl_event ready = NULL;
  if (!view(st, o, r0, rows, c0, c0, cols, &ready))
    return false;
  hop_ocl_ev_put(&o->ready, ready);
  return true;
}

bool hop_ocl_share_slab(struct hop_ocl_state *st, struct hop_ocl_op_slot *o, int r0, int rows,
                        int k0, int kb, cl_event *ready)
{
  return view(st, o, r0, rows, 0, k0, kb, ready);
}

/* After every part (and any part run again) returned: nothing of the
 * shared A is in flight, and no device refers to it. */
void hop_ocl_share_end(struct hop_ocl_shared *sh)
{
  if (sh == NULL)
    return;
  for (int p = 0; p < sh->ndev; p++)
    for (int r = 0; r < HOP_OCL_RING; r++)
      for (int d = 0; d < sh->ndev; d++) {
        if (sh->sent[p][r][d] != NULL)
          hop_ocl_wait(sh->dev[d], sh->sent[p][r][d]);
        hop_ocl_ev_put(&sh->sent[p][r][d], NULL);
      }
  for (int s = 0; s < sh->slabs; s++)
    for (int b = 0; b < BANDS; b++)
      for (int d = 0; d < sh->ndev; d++)
        hop_ocl_ev_put(&sh->unit[s][b][d], NULL);
  for (int d = 0; d < sh->ndev; d++)
    sh->dev[d]->shared = NULL;
  pthread_cond_destroy(&sh->more);
  pthread_mutex_destroy(&sh->lock);
  free(sh);
}
