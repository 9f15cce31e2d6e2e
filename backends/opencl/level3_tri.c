/* trmm and trsm on the OpenCL engine (s, d), blocked in slabs of NB rows
 * (left) or columns (right) of B, with A and B uploaded once and resident
 * on the device for the whole call; the off-diagonal work is the family's
 * GEMM launches on them (buffer families; the image families decline).
 *
 * trmm: every slab's off-diagonal product alpha op(A)(I, L) B(L, :) is
 * computed from B as it was, into a device C, in launches queued back to
 * back; C comes back once, and the host adds each slab's diagonal block
 * (the CPU's trmm of an NB x NB triangle) as it writes B.
 *
 * trsm: slab by slab in the order the substitution needs, all on the
 * device: kernels/trsm_slab.cl solves the slab against its diagonal block
 * by substitution (stable: no inverted blocks; a work-group per few
 * vectors, each step of the substitution on every entry at once, where the
 * device runs a work-group that large), then one GEMM launch takes
 * it from the unsolved rows of its block of OUTER slabs,
 * B(rest) = -op(A)(rest, I) X(I) + beta B(rest); a solved block is taken
 * from the rows beyond it by one GEMM as deep as the block.  beta is alpha
 * at the first launch that reaches a row (which scales it once), 1 after.
 * B goes up first; A goes up block by block as the solve reaches it, only
 * the panel of its stored triangle that block's solves and launches read
 * (about half of A in all), and the device waits for each panel's upload
 * while the host packs the next.  B comes back once, at the end, the next
 * shares crossing the link while one is written into the caller's B.
 *
 * Neither writes B before every launch and the read-back succeeded: a
 * failure leaves it untouched, for the next engine. */
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "level3.h"
#include "run.h"
#include "tune.h"

struct tri {
  struct hop_ocl_state *st;
  const struct hop_call *g;
  size_t e;
  int64_t k; /* order of A; B is m x n */
  int64_t nb;
  bool left, op_upper;
  cl_mem a, b, c; /* A (k x k, ld k), B (m x n, ld m), trmm's C (m x n, ld m) */
  struct hop_ocl_stager *sg; /* the pinned ring trsm's panels of A go up through */
  enum hop_ocl_kernel kernel;
  cl_int err;
  bool timed;      /* HOPBLAS_VERBOSE=3: phases separated by waits, and logged */
  double solve_s;  /* the slab solves' device time, when timed */
  int solves;
  double up_s, up_pack_s, up_bytes; /* B's (and trmm's A's) upload, when timed */
  double compute_t0;
};

/* When timed: wait for the device and return the time. */
static double timed_finish(struct tri *t)
{
  if (t->timed)
    clFinish(t->st->q[HOP_OCL_Q_EXEC]);
  return hop_now();
}

/* Slab s of the k slabs' dimension (rows of B on the left, columns on the right). */
static int64_t slab_len(const struct tri *t, int64_t start) { return t->k - start < t->nb ? t->k - start : t->nb; }

static cl_command_queue queue(const struct tri *t) { return t->st->q[HOP_OCL_Q_EXEC]; }

/* The rows x cols block of the device's B (ld m) at (r0, c0) into host
 * (ld hld), queued; done marks its end. */
static bool read_block(struct tri *t, int64_t r0, int64_t c0, int64_t rows, int64_t cols,
                       void *host, int64_t hld, cl_event *done)
{
  if (t->err != CL_SUCCESS)
    return false;
  size_t e = t->e, m = (size_t)t->g->m;
  size_t dev_origin[3] = {(size_t)r0 * e, (size_t)c0, 0}, host_origin[3] = {0, 0, 0};
  size_t region[3] = {(size_t)rows * e, (size_t)cols, 1};
  if (hop_ocl_fault_hit(&t->st->fault, HOP_OCL_FAULT_READ))
    t->err = CL_OUT_OF_RESOURCES;
  else
    t->err = clEnqueueReadBufferRect(queue(t), t->b, CL_FALSE, dev_origin, host_origin, region,
                                     m * e, 0, (size_t)hld * e, 0, host, 0, NULL, done);
  return t->err == CL_SUCCESS;
}

/* Device offset of op(A)(i0, l0) and whether the launch transposes. */
static cl_ulong opa_at(const struct tri *t, int64_t i0, int64_t l0, bool *ta)
{
  *ta = hop_transposed(t->g->ta);
  return *ta ? (cl_ulong)l0 + (cl_ulong)i0 * (cl_ulong)t->k : (cl_ulong)i0 + (cl_ulong)l0 * (cl_ulong)t->k;
}

/* Left: out(I, :) = alpha op(A)(I, L) B(L, :) + beta out(I, :), I = [i0, i0 + ni),
 * L = [l0, l0 + nl).  Right: out(:, I) = alpha B(:, L) op(A)(L, I) + beta out(:, I). */
static bool launch(struct tri *t, cl_mem out, int64_t i0, int64_t ni, int64_t l0, int64_t nl,
                   double alpha, double beta)
{
  if (t->err != CL_SUCCESS || ni == 0 || nl == 0)
    return t->err == CL_SUCCESS;
  const struct hop_call *g = t->g;
  int m = (int)g->m, n = (int)g->n;
  struct hop_ocl_launch l = {.kernel = t->kernel, .alpha = (float)alpha, .beta = (float)beta,
                             .alpha_d = alpha, .beta_d = beta, .cin = out, .cout = out,
                             .ldcin = m, .ldcout = m};
  bool ta;
  if (t->left) {
    l.m = (int)ni, l.n = n, l.k = (int)nl;
    l.a = t->a, l.a_off = opa_at(t, i0, l0, &ta), l.ta = ta, l.lda = (int)t->k;
    l.b = t->b, l.b_off = (cl_ulong)l0, l.ldb = m;
    l.cin_off = l.cout_off = (cl_ulong)i0;
  } else {
    l.m = m, l.n = (int)ni, l.k = (int)nl;
    l.a = t->b, l.a_off = (cl_ulong)l0 * (cl_ulong)m, l.lda = m;
    l.b = t->a, l.b_off = opa_at(t, l0, i0, &ta), l.tb = ta, l.ldb = (int)t->k;
    l.cin_off = l.cout_off = (cl_ulong)i0 * (cl_ulong)m;
  }
  cl_event done = NULL;
  t->err = hop_ocl_family_launch(t->st, &l, 0, NULL, &done);
  if (done != NULL)
    clReleaseEvent(done);
  return t->err == CL_SUCCESS;
}

/* The CPU's call on one slab of the caller's B (or of a host copy of it). */
static struct hop_call slab_call(const struct tri *t, enum hop_op op, int64_t s0, int64_t len,
                                 void *b, int64_t ldb, struct hop_scalar alpha)
{
  const struct hop_call *g = t->g;
  struct hop_call c = *g;
  c.op = op, c.alpha = alpha, c.k = len, c.c = b, c.ldc = ldb;
  c.a = (const unsigned char *)g->a + hop_at(s0, s0, g->lda) * t->e;
  if (t->left)
    c.m = len;
  else
    c.n = len;
  return c;
}

/* Pointer to B(r, c) of the caller. */
static unsigned char *b_at(const struct tri *t, int64_t r, int64_t c)
{
  return (unsigned char *)t->g->c + hop_at(r, c, t->g->ldc) * t->e;
}

/* B(slab) += C(slab) for the rows (left) or columns (right) of one slab. */
static void add_slab(const struct tri *t, const unsigned char *c, int64_t s0, int64_t len)
{
  const struct hop_call *g = t->g;
  int64_t r0 = t->left ? s0 : 0, rows = t->left ? len : g->m;
  int64_t c0 = t->left ? 0 : s0, cols = t->left ? g->n : len;
  bool dbl = g->dtype == HOP_DTYPE_D;
  for (int64_t j = c0; j < c0 + cols; j++)
    for (int64_t i = r0; i < r0 + rows; i++) {
      size_t at = hop_at(i, j, g->ldc), src = hop_at(i, j, g->m);
      if (dbl)
        ((double *)g->c)[at] += ((const double *)c)[src];
      else
        ((float *)g->c)[at] += ((const float *)c)[src];
    }
}

/* Where a slab's off-diagonal operands lie: the slabs op(A) multiplies it by. */
static void others(const struct tri *t, int64_t s0, int64_t len, int64_t *l0, int64_t *nl)
{
  /* trmm left with op(A) upper, or right with it lower, takes the later ones. */
  bool later = t->left == t->op_upper;
  *l0 = later ? s0 + len : 0;
  *nl = later ? t->k - s0 - len : s0;
}

static enum hop_status trmm(struct tri *t)
{
  const struct hop_call *g = t->g;
  for (int64_t s0 = 0; s0 < t->k; s0 += t->nb) {
    int64_t len = slab_len(t, s0), l0, nl;
    others(t, s0, len, &l0, &nl);
    launch(t, t->c, s0, len, l0, nl, g->alpha.re, 0.0);
  }
  size_t bytes = (size_t)g->m * (size_t)g->n * t->e;
  unsigned char *c = malloc(bytes);
  if (c == NULL)
    return HOP_ERR_NOMEM;
  if (t->err == CL_SUCCESS && hop_ocl_fault_hit(&t->st->fault, HOP_OCL_FAULT_READ))
    t->err = CL_OUT_OF_RESOURCES;
  if (t->err == CL_SUCCESS)
    t->err = clEnqueueReadBuffer(queue(t), t->c, CL_TRUE, 0, bytes, c, 0, NULL, NULL);
  if (t->err != CL_SUCCESS) {
    free(c);
    return hop_ocl_status(t->err); /* B untouched */
  }
  for (int64_t s0 = 0; s0 < t->k; s0 += t->nb) {
    int64_t len = slab_len(t, s0), l0, nl;
    others(t, s0, len, &l0, &nl);
    struct hop_call d = slab_call(t, HOP_OP_TRMM, s0, len, t->left ? b_at(t, s0, 0) : b_at(t, 0, s0),
                                  g->ldc, g->alpha);
    hop_fallback_run(&d);
    if (nl > 0)
      add_slab(t, c, s0, len);
  }
  free(c);
  return HOP_OK;
}

static void hop_ocl_triangular_release_one(struct hop_ocl_trsm *k, int d)
{
  if (k->kernel[d] != NULL)
    clReleaseKernel(k->kernel[d]);
  if (k->prog[d] != NULL)
    clReleaseProgram(k->prog[d]);
  k->kernel[d] = NULL, k->prog[d] = NULL, k->nb[d] = 0, k->group[d] = 0;
}

enum { SLAB_COLS = 4 }; /* vectors per work-group of the work-group solver */

/* The slab solver for this precision and slab size: built once. */
static cl_kernel slab_kernel(struct tri *t)
{
  struct hop_ocl_state *st = t->st;
  struct hop_ocl_trsm *k = &st->trsm;
  int d = t->g->dtype == HOP_DTYPE_D;
  if (k->nb[d] == (int)t->nb)
    return k->kernel[d];
  if (k->failed[d])
    return NULL;
  hop_ocl_triangular_release_one(k, d);
  static const char *const files[] = {"trsm_slab.cl", NULL};
  char why[160] = "", options[96];
  snprintf(options, sizeof options, "-DNBMAX=%d -DCOLS=%d%s", (int)t->nb, SLAB_COLS,
           d ? " -DHOP_FP64" : "");
  cl_program prog = hop_ocl_program_aux(st, "trsm_slab", files, options, why, sizeof why);
  /* The work-group solver where the device runs a work-group of the slab's
   * entries (HOPBLAS_OPENCL_TRSM_GROUP=0: never), else a work-item per vector. */
  size_t group = ((size_t)t->nb + 31) / 32 * 32, most = 0;
  cl_int err = CL_BUILD_PROGRAM_FAILURE;
  cl_kernel kn = NULL;
  if (prog != NULL && hop_config_int("HOPBLAS_OPENCL_TRSM_GROUP", 0, 1, 1) == 1) {
    kn = clCreateKernel(prog, "trsm_slab_wg", &err);
    if (kn != NULL &&
        (clGetKernelWorkGroupInfo(kn, hop_ocl_device(st)->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                  NULL) != CL_SUCCESS ||
         most < group)) {
      clReleaseKernel(kn);
      kn = NULL;
    }
  }
  if (kn == NULL)
    group = 0;
  if (kn == NULL && prog != NULL)
    kn = clCreateKernel(prog, "trsm_slab", &err);
  if (kn == NULL) {
    hop_log(1, "opencl: trsm's slab solver did not build (%s); %ctrsm stays on the CPU",
            why[0] ? why : "no kernel", d ? 'd' : 's');
    if (prog != NULL)
      clReleaseProgram(prog);
    k->failed[d] = true;
    return NULL;
  }
  k->group[d] = group;
  k->prog[d] = prog, k->kernel[d] = kn, k->nb[d] = (int)t->nb;
  return kn;
}

/* Solve the slab [s0, s0 + len) of the device's B against op(A)'s diagonal block. */
static bool solve(struct tri *t, cl_kernel kn, int64_t s0, int64_t len, double alpha)
{
  if (t->err != CL_SUCCESS)
    return false;
  const struct hop_call *g = t->g;
  bool tr = hop_transposed(g->ta);
  /* Left: columns of the slab, M = op(A_II); right: its rows, M = op(A_II)^T. */
  cl_int nb = (cl_int)len, count = (cl_int)(t->left ? g->n : g->m), lda = (cl_int)t->k;
  cl_int trans = t->left ? tr : !tr, lower = t->left ? !t->op_upper : t->op_upper, unit = g->unit_diag;
  cl_ulong a_off = (cl_ulong)s0 + (cl_ulong)s0 * (cl_ulong)t->k, m = (cl_ulong)g->m;
  cl_ulong b_off = t->left ? (cl_ulong)s0 : (cl_ulong)s0 * m;
  cl_ulong vstep = t->left ? m : 1, estep = t->left ? 1 : m;
  float alpha_f = (float)alpha;
  cl_int err = 0;
  cl_uint i = 0;
  err |= clSetKernelArg(kn, i++, sizeof nb, &nb);
  err |= clSetKernelArg(kn, i++, sizeof count, &count);
  if (g->dtype == HOP_DTYPE_D)
    err |= clSetKernelArg(kn, i++, sizeof alpha, &alpha);
  else
    err |= clSetKernelArg(kn, i++, sizeof alpha_f, &alpha_f);
  err |= clSetKernelArg(kn, i++, sizeof t->a, &t->a);
  err |= clSetKernelArg(kn, i++, sizeof a_off, &a_off);
  err |= clSetKernelArg(kn, i++, sizeof lda, &lda);
  err |= clSetKernelArg(kn, i++, sizeof trans, &trans);
  err |= clSetKernelArg(kn, i++, sizeof lower, &lower);
  err |= clSetKernelArg(kn, i++, sizeof unit, &unit);
  err |= clSetKernelArg(kn, i++, sizeof t->b, &t->b);
  err |= clSetKernelArg(kn, i++, sizeof b_off, &b_off);
  err |= clSetKernelArg(kn, i++, sizeof vstep, &vstep);
  err |= clSetKernelArg(kn, i++, sizeof estep, &estep);
  size_t group = t->st->trsm.group[g->dtype == HOP_DTYPE_D];
  size_t global = group == 0 ? (size_t)count : ((size_t)count + SLAB_COLS - 1) / SLAB_COLS * group;
  if (err != CL_SUCCESS)
    t->err = CL_INVALID_KERNEL_ARGS;
  else if (hop_ocl_fault_hit(&t->st->fault, HOP_OCL_FAULT_ENQUEUE))
    t->err = CL_OUT_OF_RESOURCES;
  else
    t->err = clEnqueueNDRangeKernel(queue(t), kn, 1, NULL, &global, group == 0 ? NULL : &group,
                                    0, NULL, NULL);
  t->st->window.launches++;
  return t->err == CL_SUCCESS;
}

/* Columns [j0, j1) of a dense block into the caller's B (copy.c's threads), with
 * streaming stores as C's write-back (copy_stream.c): nothing reads B soon. */
struct unpack {
  unsigned char *dst;
  size_t ld_bytes;
  const unsigned char *src;
  size_t run;
};

static void unpack_columns(void *arg, int j0, int j1)
{
  const struct unpack *u = arg;
  for (int j = j0; j < j1; j++)
    hop_ocl_copy_bytes(u->dst + (size_t)j * u->ld_bytes, u->src + (size_t)j * u->run, u->run);
}

/* Share s (per systems from s * per) of the solution read into pin, queued. */
static bool read_share(struct tri *t, int64_t s, int64_t per, struct hop_ocl_slot *pin,
                       cl_event *done)
{
  const struct hop_call *g = t->g;
  int64_t total = t->left ? g->n : g->m, at = s * per;
  int64_t len = total - at < per ? total - at : per;
  int64_t rows = t->left ? g->m : len, cols = t->left ? len : g->n;
  return read_block(t, t->left ? 0 : at, t->left ? at : 0, rows, cols, pin->host, rows, done);
}

/* Shares of the read-back: this many upload chunks each, so that waiting
 * for one and handing it to the copy threads is a small part of its time. */
enum { FETCH_CHUNKS = 4 };

/* X into the caller's B, through the ring of pinned buffers of C's
 * read-backs, in shares of independent systems (columns of B on the left,
 * rows on the right) of about FETCH_CHUNKS x HOPBLAS_OPENCL_CHUNK bytes: the
 * next shares cross the link while the copy threads write one into B, each
 * share written whole.  A failed read leaves the shares not yet written to
 * the CPU, which solves them from B as it still is. */
static enum hop_status fetch(struct tri *t)
{
  const struct hop_call *g = t->g;
  struct hop_ocl_state *st = t->st;
  int64_t total = t->left ? g->n : g->m, across = t->left ? g->m : g->n;
  int64_t per = (int64_t)(FETCH_CHUNKS * hop_ocl_chunk_bytes(st) / ((size_t)across * t->e));
  per = per < 1 ? 1 : per > total ? total : per;
  int64_t shares = (total + per - 1) / per;
  enum { RING = HOP_OCL_SLOTS };
  struct hop_ocl_slot *pin[RING];
  for (int i = 0; i < RING; i++) {
    pin[i] = &st->pool.stage[2][i];
    if (t->err == CL_SUCCESS && i < shares)
      t->err = hop_ocl_slot_ensure(st, pin[i], (size_t)per * (size_t)across * t->e,
                                   CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, true);
  }
  cl_event ev[RING] = {NULL};
  int64_t queued = 0; /* shares whose read is queued */
  cl_int late = CL_SUCCESS; /* a failed read of a later share ends the loop at it */
  while (queued < shares && queued < RING - 1 &&
         read_share(t, queued, per, pin[queued % RING], &ev[queued % RING]))
    queued++;
  if (t->err != CL_SUCCESS && queued > 0)
    late = t->err, t->err = CL_SUCCESS;
  int64_t done = 0;
  for (int64_t s = 0; s < queued && t->err == CL_SUCCESS; s++) {
    if (queued < shares && late == CL_SUCCESS) {
      read_share(t, queued, per, pin[queued % RING], &ev[queued % RING]);
      if (t->err != CL_SUCCESS)
        late = t->err, t->err = CL_SUCCESS;
      else
        queued++;
    }
    t->err = hop_ocl_wait(st, ev[s % RING]);
    hop_ocl_ev_put(&ev[s % RING], NULL);
    if (t->err != CL_SUCCESS)
      break;
    int64_t len = total - done < per ? total - done : per;
    int64_t rows = t->left ? g->m : len, cols = t->left ? len : g->n;
    struct unpack u = {.dst = t->left ? b_at(t, 0, done) : b_at(t, done, 0),
                       .ld_bytes = (size_t)g->ldc * t->e, .src = pin[s % RING]->host,
                       .run = (size_t)rows * t->e};
    hop_ocl_copy_columns(st, (size_t)rows * (size_t)cols * t->e, (int)cols, unpack_columns, &u);
    done += len;
  }
  if (t->err == CL_SUCCESS)
    t->err = late;
  bool pending = false;
  for (int i = 0; i < RING; i++)
    pending |= ev[i] != NULL;
  if (pending) /* a read still in flight into a pinned buffer */
    clFinish(queue(t));
  for (int i = 0; i < RING; i++)
    hop_ocl_ev_put(&ev[i], NULL);
  if (done >= total)
    return HOP_OK;
  if (done == 0)
    return hop_ocl_status(t->err); /* B untouched */
  hop_log(1, "opencl: %s: reading the solution failed after %lld of %lld %s; the CPU solves the rest",
          g->symbol, (long long)done, (long long)total, t->left ? "columns" : "rows");
  struct hop_call rest = *g;
  rest.c = t->left ? b_at(t, 0, done) : b_at(t, done, 0);
  if (t->left)
    rest.n = total - done;
  else
    rest.m = total - done;
  hop_fallback_run(&rest);
  return HOP_OK;
}

/* Slabs per block of the outer level: the update of the rows beyond a
 * block is one GEMM of depth OUTER * nb, the kernel's full rate, where
 * rank-nb updates of every unsolved row would run at a fraction of it. */
enum { OUTER = 8 };

/* The device waits for ev before what is queued after (ev released). */
static void await_upload(struct tri *t, cl_event ev)
{
  if (t->err == CL_SUCCESS)
    t->err = clEnqueueBarrierWithWaitList(queue(t), 1, &ev, NULL);
  clReleaseEvent(ev);
}

/* Up with the panel of stored A that block [b0, b0 + blen) reads: op(A)(X,
 * block) on the left, op(A)(block, X) on the right, X the block and the
 * rows (left) or columns (right) of op(A) it updates, which lie beyond it
 * in the solve's order; then the device waits for it. */
static void upload_panel(struct tri *t, int64_t b0, int64_t blen, bool forward)
{
  if (t->err != CL_SUCCESS)
    return;
  const struct hop_call *g = t->g;
  int64_t x0 = forward ? b0 : 0, nx = forward ? t->k - b0 : b0 + blen;
  /* X runs along stored rows when it runs along op(A)'s rows (left) untransposed, or its columns transposed. */
  bool x_rows = t->left != hop_transposed(g->ta);
  int64_t r0 = x_rows ? x0 : b0, rows = x_rows ? nx : blen;
  int64_t c0 = x_rows ? b0 : x0, cols = x_rows ? blen : nx;
  cl_event up = NULL;
  t->err = hop_ocl_stage_upload_at(t->st, t->sg, g->a, (int)g->lda, t->e, (int)r0, (int)c0,
                                   (int)rows, (int)cols, t->a, (int)t->k, &up);
  if (up != NULL)
    await_upload(t, up);
}

static enum hop_status trsm(struct tri *t)
{
  const struct hop_call *g = t->g;
  cl_kernel kn = slab_kernel(t);
  if (kn == NULL)
    return HOP_DECLINED;
  /* Forward when each slab needs the ones before it: op(A) lower on the left, upper on the right. */
  bool forward = t->left != t->op_upper;
  int64_t ob = OUTER * t->nb, blocks = (t->k + ob - 1) / ob;
  /* Two levels: the slabs of a block solved and each taken from the block's
   * unsolved rows, then the whole block from the rows beyond it.  The first
   * launch that reaches a row scales it by alpha (its beta), once. */
  for (int64_t b = 0; b < blocks && t->err == CL_SUCCESS; b++) {
    int64_t b0 = (forward ? b : blocks - 1 - b) * ob, blen = t->k - b0 < ob ? t->k - b0 : ob;
    int64_t slabs = (blen + t->nb - 1) / t->nb;
    upload_panel(t, b0, blen, forward);
    for (int64_t s = 0; s < slabs && t->err == CL_SUCCESS; s++) {
      int64_t s0 = b0 + (forward ? s : slabs - 1 - s) * t->nb, len = slab_len(t, s0);
      double step_alpha = b == 0 && s == 0 ? g->alpha.re : 1.0;
      double t0 = timed_finish(t);
      solve(t, kn, s0, len, step_alpha);
      t->solve_s += timed_finish(t) - t0, t->solves++;
      int64_t r0 = forward ? s0 + len : b0, nr = forward ? b0 + blen - s0 - len : s0 - b0;
      launch(t, t->b, r0, nr, s0, len, -1.0, step_alpha);
    }
    int64_t r0 = forward ? b0 + blen : 0, nr = forward ? t->k - b0 - blen : b0;
    launch(t, t->b, r0, nr, b0, blen, -1.0, b == 0 ? g->alpha.re : 1.0);
  }
  double t0 = timed_finish(t);
  enum hop_status rc = fetch(t);
  if (t->timed)
    hop_log(3, "opencl trsm phases: %s %c%c%c %lldx%lld, nb %lld: B up %.3f ms (packed in %.3f, "
            "%.1f MiB); then A's panels packed in %.3f ms (%.1f MiB), %d slab solves %.3f ms, "
            "updates and A's uploads %.3f ms; B read back and written %.3f ms",
            g->symbol, t->left ? 'L' : 'R', g->upper ? 'U' : 'L', hop_transposed(g->ta) ? 'T' : 'N',
            (long long)g->m, (long long)g->n, (long long)t->nb, 1e3 * t->up_s, 1e3 * t->up_pack_s,
            t->up_bytes / (1 << 20), 1e3 * (t->sg->pack_s - t->up_pack_s),
            (t->sg->pack_bytes - t->up_bytes) / (1 << 20), t->solves, 1e3 * t->solve_s,
            1e3 * (t0 - t->compute_t0 - t->solve_s), 1e3 * (hop_now() - t0));
  return rc;
}

void hop_ocl_triangular_release(struct hop_ocl_state *st)
{
  for (int d = 0; d < 2; d++)
    hop_ocl_triangular_release_one(&st->trsm, d);
}

/* Rows (left) or columns (right) per slab: HOPBLAS_OPENCL_L3_BLOCK, else 128. */
int64_t hop_ocl_l3_block(void)
{
  return hop_config_int("HOPBLAS_OPENCL_L3_BLOCK", 1, 1 << 16, 128);
}

enum hop_status hop_ocl_triangular(struct hop_ocl_state *st, const struct hop_call *g,
                                   hop_ocl_run_fn run)
{
  (void)run;
  if (st->family->provide != NULL)
    return HOP_DECLINED; /* the image families pack their own operands */
  struct tri t = {.st = st, .g = g, .e = hop_dtype_c_size(g->dtype), .k = g->k, .nb = hop_ocl_l3_block(),
                  .left = !g->right_side, .op_upper = g->upper != hop_transposed(g->ta)};
  size_t a_bytes = (size_t)t.k * (size_t)t.k * t.e, b_bytes = (size_t)g->m * (size_t)g->n * t.e;
  if (a_bytes > st->cap || b_bytes > st->cap || !hop_ocl_kernel_for(g->dtype, false, &t.kernel))
    return HOP_DECLINED;
  /* The program and parameters of the largest update's GEMM. */
  struct hop_call shape = *g;
  shape.op = HOP_OP_GEMM, shape.k = t.nb < t.k ? t.nb : t.k;
  enum hop_status rc = hop_ocl_tune_select(st, &shape);
  if (rc == HOP_OK && g->dtype == HOP_DTYPE_D && !hop_ocl_program_fp64(st))
    rc = HOP_DECLINED;
  if (rc != HOP_OK)
    return rc;
  struct hop_ocl_pool *p = &st->pool;
  cl_int err = hop_ocl_slot_ensure(st, &p->dev[0][0], a_bytes, CL_MEM_READ_WRITE, false);
  if (err == CL_SUCCESS)
    err = hop_ocl_slot_ensure(st, &p->dev[1][0], b_bytes, CL_MEM_READ_WRITE, false);
  if (err == CL_SUCCESS && g->op == HOP_OP_TRMM)
    err = hop_ocl_slot_ensure(st, &p->dev[2][0], b_bytes, CL_MEM_READ_WRITE, false);
  if (err != CL_SUCCESS)
    return hop_ocl_status(err);
  t.a = p->dev[0][0].mem, t.b = p->dev[1][0].mem, t.c = p->dev[2][0].mem;
  /* B, and for trmm A's k x k square (the other triangle too: no launch
   * reads it), through the pinned ring of the staged path (copy threads
   * pack a chunk while the previous one crosses the link); trsm's A
   * follows in panels (upload_panel). */
  struct hop_ocl_stager sg = {.chunk = hop_ocl_chunk_bytes(st)};
  t.sg = &sg;
  t.timed = hop_config()->verbose >= 3;
  double up_t0 = hop_now();
  cl_event up_a = NULL, up_b = NULL;
  if (g->op == HOP_OP_TRMM)
    t.err = hop_ocl_stage_upload(st, &sg, g->a, NULL, (int)g->lda, t.e, 0, 0, (int)t.k, (int)t.k,
                                 t.a, NULL, &up_a);
  if (t.err == CL_SUCCESS)
    t.err = hop_ocl_stage_upload(st, &sg, g->c, NULL, (int)g->ldc, t.e, 0, 0, (int)g->m,
                                 (int)g->n, t.b, NULL, &up_b);
  hop_ocl_ev_put(&up_a, NULL);
  if (up_b != NULL) /* Q_UP is in order: the last upload stands for all */
    await_upload(&t, up_b);
  if (t.err != CL_SUCCESS) {
    clFinish(st->q[HOP_OCL_Q_UP]); /* nothing in flight from the ring once we return */
    hop_ocl_stager_end(&sg);
    return hop_ocl_status(t.err);
  }
  if (t.timed) {
    clFinish(st->q[HOP_OCL_Q_UP]);
    t.compute_t0 = timed_finish(&t);
    t.up_s = t.compute_t0 - up_t0, t.up_pack_s = sg.pack_s, t.up_bytes = sg.pack_bytes;
  }
  hop_ocl_family_call_begin(st);
  rc = g->op == HOP_OP_TRMM ? trmm(&t) : trsm(&t);
  hop_ocl_family_call_end(st, g);
  if (g->op == HOP_OP_TRSM) /* which slab solver ran */
    hop_ocl_family_detail_add(st->trsm.group[g->dtype == HOP_DTYPE_D] ? " solver=group" : " solver=vector");
  clFinish(st->q[HOP_OCL_Q_UP]);
  hop_ocl_stager_end(&sg);
  st->failures = t.err == CL_SUCCESS ? 0 : st->failures + 1;
  return rc;
}

double hop_ocl_level3_predict(const struct hop_ocl_state *st, const struct hop_call *g,
                              double (*gemm)(void *st, const struct hop_call *g))
{
  struct hop_call m = *g;
  double e = (double)hop_dtype_ab_size(g->dtype), host_s = 0.0;
  double cpu_flops_s = 2e10; /* the host's share: an OpenBLAS call on a small block */
  bool complex = hop_dtype_info(g->dtype)->is_complex;
  m.op = HOP_OP_GEMM;
  switch (g->op) {
  case HOP_OP_SYMM: /* the expansion of A on the host, then the GEMM */
  case HOP_OP_HEMM:
    host_s = (double)g->k * (double)g->k * e / 4e9;
    break;
  case HOP_OP_SYRK:
  case HOP_OP_HERK: m.op = HOP_OP_GEMMT; break;
  case HOP_OP_SYR2K: /* a gemmt of twice the depth: real operands side by side */
  case HOP_OP_HER2K: /* (copied on the host), complex as two gemmts */
    m.op = HOP_OP_GEMMT, m.k = 2 * g->k;
    host_s = complex ? 0.0 : 4.0 * (double)g->n * (double)g->k * e / 4e9;
    break;
  case HOP_OP_TRMM:
  case HOP_OP_TRSM:
    if (complex) { /* level3_complex.c */
      double t = gemm((void *)st, &m), k = (double)g->k;
      if (t < 0.0 || g->op == HOP_OP_TRMM) /* one whole GEMM; the triangle and B copied */
        return t < 0.0 ? t : t + (k * k + (double)g->m * (double)g->n) * e / 4e9;
      /* trsm: the GEMMs of half the products, and sixteen diagonal blocks
       * solved on the CPU, as the CPU engine predicts them */
      struct hop_call d = *g;
      int64_t nb = hop_ocl_complex_trsm_block(g->k, st->family->provide == NULL);
      d.k = nb;
      if (g->right_side)
        d.n = nb;
      else
        d.m = nb;
      double cpu = hop_fallback_predict(&d);
      double other = g->right_side ? (double)g->m : (double)g->n;
      cpu = cpu >= 0.0 ? cpu : 4.0 * (double)nb * (double)nb * other / cpu_flops_s;
      return t / 2.0 + (k / (double)nb) * cpu;
    }
    {
    /* A GEMM of half the flops, and the diagonal blocks: trmm's on the host,
     * trsm's by the slab solver (a launch each, at a small share of the
     * GEMM rate: a step of the substitution at a time; on the H200 a 128-row
     * slab of 8192 vectors took about 0.17 ms, 1/16 of the model's peak). */
    double nb = (double)hop_ocl_l3_block(), k = (double)g->k, other = g->right_side ? g->m : g->n;
    double slabs = k / nb + 1.0, diag_flops = k * nb * other;
    host_s = g->op == HOP_OP_TRMM ? diag_flops / cpu_flops_s
                                  : slabs * hop_ocl_model_setup(st) / 4.0 +
                                      diag_flops / (st->model.peak_flops / 16.0);
    double t = gemm((void *)st, &m);
    return t < 0.0 ? t : t / 2.0 + host_s;
  }
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT: /* engine.c predicts these itself */
  case HOP_OP_GEMM_BATCH:
  case HOP_OP_COUNT: return -1.0;
  }
  double t = gemm((void *)st, &m);
  return t < 0.0 ? t : t + host_s;
}
