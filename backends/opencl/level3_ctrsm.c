/* Complex trsm (c, z) on the OpenCL engine with its operands resident on
 * the device (buffer families).  The system is taken as T X = R with T
 * triangular: on the left T = op(A) and R = alpha B; on the right,
 * X op(A) = alpha B is solved as its transpose, T = op(A)^T, R = alpha B^T.
 *
 * The device's real kernels compute complex products on interleaved data:
 * R, k x nr complex, is a real matrix of 2k rows (re, im of each entry), and
 * T's blocks below (above) its diagonal blocks go up as their real
 * embedding, each entry the 2 x 2 block [re -im; im re], so that one real
 * GEMM is the complex update R(rest) = R(rest) - T(rest, I) X(I).
 *
 * R goes up once.  Block by block in the substitution's order (blocks of
 * hop_ocl_complex_trsm_block's rows: at most 128, at least sixteen blocks),
 * the CPU solves the block's rows against T's diagonal block, they go back
 * up, and two GEMMs take them from the rows beyond: the next block's rows
 * first, which come down while the device updates the rest.  Each block's
 * panel of T is packed and goes up while the device runs the updates
 * before it.  Every
 * solved block is final on the host and B is written once, at the end:
 * a failure on the device leaves B untouched, for the next engine. */
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "level3.h"
#include "run.h"
#include "tune.h"

struct ctrsm {
  struct hop_ocl_state *st;
  const struct hop_call *g;
  size_t e;            /* bytes of a complex element; a real one is e / 2 */
  int64_t k, nr;       /* T is k x k, R is k x nr */
  int64_t nb, blocks;
  bool right, t_trans, t_conj, t_lower; /* T(i, j) = A(j, i) when t_trans; conjugated when t_conj */
  enum hop_ocl_kernel kernel;
  cl_mem r_dev, t_dev;           /* R (ld 2k reals); the panels, packed one after another */
  unsigned char *r_host, *t_host; /* pinned images of the same */
  cl_int err;
  int gemms; /* update launches queued */
};

static cl_command_queue exec_q(const struct ctrsm *c) { return c->st->q[HOP_OCL_Q_EXEC]; }

/* Block q in the solve's order: its first row and length. */
static void block_of(const struct ctrsm *c, int64_t q, int64_t *b0, int64_t *len)
{
  int64_t p = c->t_lower ? q : c->blocks - 1 - q;
  *b0 = p * c->nb;
  *len = c->k - *b0 < c->nb ? c->k - *b0 : c->nb;
}

/* The rows the block's solution updates: after it (T lower), else before. */
static void rest_of(const struct ctrsm *c, int64_t b0, int64_t len, int64_t *r0, int64_t *nr)
{
  *r0 = c->t_lower ? b0 + len : 0;
  *nr = c->t_lower ? c->k - b0 - len : b0;
}

/* Where block q's panel starts in t_dev (reals): the panels before it. */
static size_t panel_at(const struct ctrsm *c, int64_t q)
{
  size_t at = 0;
  for (int64_t p = 0; p < q; p++) {
    int64_t b0, len, r0, nr;
    block_of(c, p, &b0, &len);
    rest_of(c, b0, len, &r0, &nr);
    at += (size_t)(2 * nr) * (size_t)(2 * len);
  }
  return at;
}

/* T(i, j) as (re, im). */
static void t_elem(const struct ctrsm *c, int64_t i, int64_t j, double *re, double *im)
{
  const struct hop_call *g = c->g;
  size_t at = c->t_trans ? hop_at(j, i, g->lda) : hop_at(i, j, g->lda);
  if (c->e == 8)
    *re = ((const float *)g->a)[2 * at], *im = ((const float *)g->a)[2 * at + 1];
  else
    *re = ((const double *)g->a)[2 * at], *im = ((const double *)g->a)[2 * at + 1];
  if (c->t_conj)
    *im = -*im;
}

static void put_real(unsigned char *base, size_t e_real, size_t at, double v)
{
  if (e_real == 4)
    ((float *)base)[at] = (float)v;
  else
    ((double *)base)[at] = v;
}

/* ---- host copies, by columns over the copy threads ------------------------ */

struct panel_job {
  const struct ctrsm *c;
  unsigned char *dst; /* the panel: 2 nr x 2 len reals, column-major */
  int64_t r0, nr, b0;
};

/* Columns [j0, j1) of T(rest, block), embedded. */
static void panel_columns(void *arg, int j0, int j1)
{
  const struct panel_job *p = arg;
  size_t er = p->c->e / 2, ld = (size_t)(2 * p->nr);
  for (int64_t j = j0; j < j1; j++)
    for (int64_t i = 0; i < p->nr; i++) {
      double re, im;
      t_elem(p->c, p->r0 + i, p->b0 + j, &re, &im);
      size_t col0 = (size_t)(2 * j) * ld, col1 = col0 + ld;
      put_real(p->dst, er, col0 + (size_t)(2 * i), re);
      put_real(p->dst, er, col0 + (size_t)(2 * i + 1), im);
      put_real(p->dst, er, col1 + (size_t)(2 * i), -im);
      put_real(p->dst, er, col1 + (size_t)(2 * i + 1), re);
    }
}

struct r_job {
  const struct ctrsm *c;
  bool to_b; /* R into the caller's B; else alpha B into R */
};

/* x = alpha y, complex, in the precision of e. */
static void scale_elem(unsigned char *x, const unsigned char *y, struct hop_scalar alpha, size_t e)
{
  if (e == 8) {
    const float *v = (const float *)y;
    float re = v[0], im = v[1];
    ((float *)x)[0] = (float)(alpha.re * re - alpha.im * im);
    ((float *)x)[1] = (float)(alpha.re * im + alpha.im * re);
  } else {
    const double *v = (const double *)y;
    double re = v[0], im = v[1];
    ((double *)x)[0] = alpha.re * re - alpha.im * im;
    ((double *)x)[1] = alpha.re * im + alpha.im * re;
  }
}

/* Columns [j0, j1) of R: R(:, j) = alpha B(:, j) (left) or alpha B(j, :)^T
 * (right); or back, B from R. */
static void r_columns(void *arg, int j0, int j1)
{
  const struct r_job *r = arg;
  const struct ctrsm *c = r->c;
  const struct hop_call *g = c->g;
  size_t e = c->e;
  unsigned char *b = g->c;
  bool one = g->alpha.re == 1.0 && g->alpha.im == 0.0;
  for (int64_t j = j0; j < j1; j++) {
    unsigned char *rc = c->r_host + (size_t)j * (size_t)c->k * e;
    if (!c->right) {
      unsigned char *bc = b + hop_at(0, j, g->ldc) * e;
      if (r->to_b)
        memcpy(bc, rc, (size_t)c->k * e);
      else if (one)
        memcpy(rc, bc, (size_t)c->k * e);
      else
        for (int64_t i = 0; i < c->k; i++)
          scale_elem(rc + (size_t)i * e, bc + (size_t)i * e, g->alpha, e);
      continue;
    }
    for (int64_t i = 0; i < c->k; i++) { /* R(i, j) is B(j, i) */
      unsigned char *be = b + hop_at(j, i, g->ldc) * e, *re = rc + (size_t)i * e;
      if (r->to_b)
        memcpy(be, re, e);
      else
        scale_elem(re, be, g->alpha, e);
    }
  }
}

/* ---- the device's steps ---------------------------------------------------- */

/* Rows [r0, r0 + rows) of R between the host's image and the device's, queued
 * on q after wait (may be NULL). */
static void move_rows(struct ctrsm *c, cl_command_queue q, bool up, int64_t r0, int64_t rows,
                      cl_event wait, cl_event *done)
{
  if (c->err != CL_SUCCESS || rows == 0)
    return;
  size_t origin[3] = {(size_t)r0 * c->e, 0, 0}, region[3] = {(size_t)rows * c->e, (size_t)c->nr, 1};
  size_t pitch = (size_t)c->k * c->e;
  enum hop_ocl_fault_op op = up ? HOP_OCL_FAULT_UPLOAD : HOP_OCL_FAULT_READ;
  cl_uint nwait = wait != NULL;
  if (hop_ocl_fault_hit(&c->st->fault, op))
    c->err = CL_OUT_OF_RESOURCES;
  else if (up)
    c->err = clEnqueueWriteBufferRect(q, c->r_dev, CL_FALSE, origin, origin, region, pitch, 0,
                                      pitch, 0, c->r_host, nwait, nwait ? &wait : NULL, done);
  else
    c->err = clEnqueueReadBufferRect(q, c->r_dev, CL_FALSE, origin, origin, region, pitch, 0,
                                     pitch, 0, c->r_host, nwait, nwait ? &wait : NULL, done);
}

/* R(rows [i0, i0 + ni)) -= T(those rows, block) X(block): a real GEMM on the
 * interleaved rows, after the panel's upload. */
static void update(struct ctrsm *c, size_t panel, int64_t prow0, int64_t pld, int64_t i0,
                   int64_t ni, int64_t b0, int64_t len, cl_event panel_up, cl_event *done)
{
  if (c->err != CL_SUCCESS || ni == 0)
    return;
  struct hop_ocl_launch l = {.kernel = c->kernel, .alpha = -1.0f, .beta = 1.0f, .alpha_d = -1.0,
                             .beta_d = 1.0, .m = (int)(2 * ni), .n = (int)c->nr, .k = (int)(2 * len),
                             .a = c->t_dev, .a_off = panel + (cl_ulong)(2 * prow0), .lda = (int)(2 * pld),
                             .b = c->r_dev, .b_off = (cl_ulong)(2 * b0), .ldb = (int)(2 * c->k),
                             .cin = c->r_dev, .cout = c->r_dev, .cin_off = (cl_ulong)(2 * i0),
                             .cout_off = (cl_ulong)(2 * i0), .ldcin = (int)(2 * c->k),
                             .ldcout = (int)(2 * c->k)};
  cl_event ev = NULL;
  c->gemms++;
  c->err = hop_ocl_family_launch(c->st, &l, panel_up != NULL, panel_up != NULL ? &panel_up : NULL,
                                 &ev);
  if (done != NULL)
    *done = ev;
  else if (ev != NULL)
    clReleaseEvent(ev);
}

/* T's diagonal block [b0, b0 + len) solved on the CPU against R's rows there. */
static void solve_block(const struct ctrsm *c, int64_t b0, int64_t len, unsigned char *diag)
{
  const struct hop_call *g = c->g;
  size_t e = c->e;
  for (int64_t j = 0; j < len; j++) /* the whole square: the solve reads its triangle */
    for (int64_t i = 0; i < len; i++) {
      double re, im;
      t_elem(c, b0 + i, b0 + j, &re, &im);
      unsigned char *d = diag + (size_t)(i + j * len) * e;
      put_real(d, e / 2, 0, re);
      put_real(d, e / 2, 1, im);
    }
  struct hop_call s = *g;
  s.right_side = false, s.upper = !c->t_lower, s.ta = HOP_TRANS_N;
  s.alpha = (struct hop_scalar){1.0, 0.0};
  s.m = len, s.n = c->nr, s.k = len;
  s.a = diag, s.lda = len;
  s.c = c->r_host + (size_t)b0 * e, s.ldc = c->k;
  hop_fallback_run(&s);
}

static void solve(struct ctrsm *c, unsigned char *diag)
{
  cl_event panel_up = NULL, down = NULL;
  cl_command_queue up_q = c->st->q[HOP_OCL_Q_UP], down_q = c->st->q[HOP_OCL_Q_DOWN];
  /* R (alpha applied) up but for the first block's rows, which the CPU
   * solves now and which go up solved. */
  int64_t f0, flen, o0, on;
  block_of(c, 0, &f0, &flen);
  rest_of(c, f0, flen, &o0, &on);
  move_rows(c, exec_q(c), true, o0, on, NULL, NULL);
  size_t panel = 0;
  for (int64_t q = 0; q < c->blocks && c->err == CL_SUCCESS; q++) {
    int64_t b0, len, r0, nr;
    block_of(c, q, &b0, &len);
    rest_of(c, b0, len, &r0, &nr);
    /* The panel T(rest, block) up, packed while the device is busy. */
    if (nr > 0) {
      struct panel_job p = {.c = c, .dst = c->t_host + panel * (c->e / 2), .r0 = r0, .nr = nr, .b0 = b0};
      size_t bytes = (size_t)(4 * nr * len) * (c->e / 2);
      hop_ocl_copy_columns(c->st, bytes, (int)len, panel_columns, &p);
      if (c->err == CL_SUCCESS && hop_ocl_fault_hit(&c->st->fault, HOP_OCL_FAULT_UPLOAD))
        c->err = CL_OUT_OF_RESOURCES;
      if (c->err == CL_SUCCESS)
        c->err = clEnqueueWriteBuffer(up_q, c->t_dev, CL_FALSE, panel * (c->e / 2), bytes, p.dst, 0,
                                      NULL, &panel_up);
    }
    /* The block's rows, as the updates before left them. */
    if (down != NULL) {
      if (c->err == CL_SUCCESS)
        c->err = hop_ocl_wait(c->st, down);
      hop_ocl_ev_put(&down, NULL);
    }
    if (c->err != CL_SUCCESS)
      break;
    solve_block(c, b0, len, diag);
    move_rows(c, exec_q(c), true, b0, len, NULL, NULL);
    if (nr > 0) {
      /* The next block's rows first, then down; the rest after. */
      int64_t n0, nlen;
      block_of(c, q + 1, &n0, &nlen);
      int64_t next0 = n0 - r0, rest0 = c->t_lower ? nlen : 0, restn = nr - nlen;
      cl_event next_done = NULL;
      update(c, panel, next0, nr, n0, nlen, b0, len, panel_up, &next_done);
      move_rows(c, down_q, false, n0, nlen, next_done, &down);
      hop_ocl_ev_put(&next_done, NULL);
      update(c, panel, rest0, nr, r0 + rest0, restn, b0, len, panel_up, NULL);
    }
    hop_ocl_ev_put(&panel_up, NULL);
    panel += (size_t)(4 * nr * len);
  }
  hop_ocl_ev_put(&down, NULL);
  hop_ocl_ev_put(&panel_up, NULL); /* a failure left the loop before releasing it */
  /* Nothing in flight from the pinned images once this returns. */
  clFinish(up_q);
  clFinish(exec_q(c));
  clFinish(down_q);
}

enum hop_status hop_ocl_complex_trsm(struct hop_ocl_state *st, const struct hop_call *g, int *steps)
{
  if (st->family->provide != NULL)
    return HOP_DECLINED; /* the image families pack their own operands */
  bool left = !g->right_side, trans = hop_transposed(g->ta);
  struct ctrsm c = {.st = st, .g = g, .e = hop_dtype_c_size(g->dtype), .k = g->k,
                    .nr = left ? g->n : g->m, .right = !left, .t_trans = left ? trans : !trans,
                    .t_conj = hop_conjugated(g->ta)};
  /* T = op(A) or op(A)^T is upper where A is upper and not transposed into T, or the reverse. */
  c.t_lower = g->upper == c.t_trans;
  c.nb = hop_ocl_complex_trsm_block(c.k, true);
  c.blocks = (c.k + c.nb - 1) / c.nb;
  enum hop_dtype real = hop_dtype_real(g->dtype);
  size_t r_bytes = (size_t)c.k * (size_t)c.nr * c.e, t_reals = panel_at(&c, c.blocks);
  size_t t_bytes = t_reals * (c.e / 2);
  if (2 * c.k > INT32_MAX || c.nr > INT32_MAX || r_bytes > st->cap || t_bytes > st->cap ||
      !hop_ocl_kernel_for(real, false, &c.kernel))
    return HOP_DECLINED;
  /* The program and parameters of the largest update's GEMM. */
  struct hop_call shape = *g;
  shape.op = HOP_OP_GEMM, shape.dtype = real, shape.m = 2 * c.k, shape.n = c.nr, shape.k = 2 * c.nb;
  enum hop_status rc = hop_ocl_tune_select(st, &shape);
  if (rc == HOP_OK && real == HOP_DTYPE_D && !hop_ocl_program_fp64(st))
    rc = HOP_DECLINED;
  if (rc != HOP_OK)
    return rc;
  struct hop_ocl_pool *p = &st->pool;
  cl_int err = hop_ocl_slot_ensure(st, &p->dev[0][0], t_bytes ? t_bytes : 1, CL_MEM_READ_ONLY, false);
  if (err == CL_SUCCESS)
    err = hop_ocl_slot_ensure(st, &p->dev[1][0], r_bytes, CL_MEM_READ_WRITE, false);
  if (err == CL_SUCCESS)
    err = hop_ocl_slot_ensure(st, &p->stage[2][0], r_bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, true);
  if (err == CL_SUCCESS)
    err = hop_ocl_slot_ensure(st, &p->stage[2][1], t_bytes ? t_bytes : 1,
                              CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, true);
  unsigned char *diag = err == CL_SUCCESS ? malloc((size_t)(c.nb * c.nb) * c.e) : NULL;
  if (diag == NULL) {
    st->failures++;
    return err != CL_SUCCESS ? hop_ocl_status(err) : HOP_ERR_NOMEM;
  }
  c.t_dev = p->dev[0][0].mem, c.r_dev = p->dev[1][0].mem;
  c.r_host = p->stage[2][0].host, c.t_host = p->stage[2][1].host;
  struct r_job in = {.c = &c, .to_b = false};
  hop_ocl_copy_columns(st, r_bytes, (int)c.nr, r_columns, &in);
  hop_ocl_family_call_begin(st);
  solve(&c, diag);
  hop_ocl_family_call_end(st, g);
  free(diag);
  if (c.err != CL_SUCCESS) {
    st->failures++;
    hop_log(2, "opencl: %s on the device failed (error %d); B untouched", g->symbol, (int)c.err);
    return hop_ocl_status(c.err);
  }
  st->failures = 0;
  struct r_job out = {.c = &c, .to_b = true};
  hop_ocl_copy_columns(st, r_bytes, (int)c.nr, r_columns, &out);
  steps[0] = c.gemms, steps[1] = (int)c.blocks;
  return HOP_OK;
}
