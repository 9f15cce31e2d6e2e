/* The rest of Level 3 in complex (c, z) on the OpenCL engine, cut into
 * complex GEMMs, which the engine runs as real GEMMs of the real embedding
 * (core/complex_real.c; the staged path reads its planes in place), and
 * small host steps:
 * - symm, hemm: the stored triangle expanded into a dense copy of A (hemm:
 *   the other triangle conjugated, the diagonal's imaginary parts 0), then
 *   one GEMM;
 * - gemmt, syrk, herk, syr2k, her2k: C's triangle in column slabs, each the
 *   GEMM of its rectangle off the diagonal (in place) and of its diagonal
 *   block (into a copy of the owned triangle, written back); syr2k and her2k
 *   as one product of twice the depth, the operands copied side by side
 *   (her2k's complex alpha folded into the copies);
 * - trmm, trsm: blocked, the diagonal blocks on the CPU (small triangles),
 *   the rest as GEMMs on the device.
 * Unlike s and d (level3_tri.c) nothing stays on the device between the
 * GEMMs: each uploads its operands.  A failed GEMM before anything was
 * written hands the whole call to the next engine; after that the CPU does
 * the remaining steps, which leave C (trmm, trsm: B) consistent between
 * them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "level3.h"

struct steps {
  void *st;
  hop_ocl_run_fn gemm; /* a complex GEMM on the device */
  const struct hop_call *g;
  size_t e;         /* bytes of an element */
  bool touched;     /* C (B) already holds something of this call */
  bool on_cpu;      /* a device step failed after that: the CPU does the rest */
  int device, host; /* steps run on the device, on the CPU */
};

/* A GEMM step on the device (the CPU once one failed after C was touched);
 * a host step (host true) on the CPU. */
static enum hop_status step(struct steps *s, const struct hop_call *m, bool host)
{
  if (!host && !s->on_cpu) {
    enum hop_status rc = s->gemm(s->st, m);
    if (rc == HOP_OK) {
      s->touched = true, s->device++;
      return HOP_OK;
    }
    if (!s->touched)
      return rc;
    hop_log(1, "opencl: a GEMM of %s's %s failed (%s); the CPU finishes the call",
            hop_dtype_info(s->g->dtype)->name, hop_op_name(s->g->op), hop_status_message(rc));
    s->on_cpu = true;
  }
  hop_fallback_run(m);
  s->touched = true, s->host++;
  return HOP_OK;
}

static const unsigned char *at(const void *x, int64_t ld, int64_t i, int64_t j, size_t e)
{
  return (const unsigned char *)x + hop_at(i, j, ld) * e;
}

/* The imaginary part of the element at p negated, or set to 0. */
static void conj_elem(unsigned char *p, size_t e)
{
  if (e == 8)
    ((float *)p)[1] = -((float *)p)[1];
  else
    ((double *)p)[1] = -((double *)p)[1];
}

static void zero_imag(unsigned char *p, size_t e)
{
  if (e == 8)
    ((float *)p)[1] = 0.0f;
  else
    ((double *)p)[1] = 0.0;
}

/* ---- symm, hemm ---------------------------------------------------------- */

/* A dense copy of A from its stored triangle (hemm: Hermitian). */
static void *expand(const struct hop_call *g, size_t e, bool herm)
{
  size_t k = (size_t)g->k;
  unsigned char *full = malloc(k * k * e);
  if (full == NULL)
    return NULL;
  for (size_t j = 0; j < k; j++)
    for (size_t i = 0; i < k; i++) {
      bool stored = g->upper ? i <= j : i >= j;
      unsigned char *d = full + (i + j * k) * e;
      memcpy(d,
             stored ? at(g->a, g->lda, (int64_t)i, (int64_t)j, e)
                    : at(g->a, g->lda, (int64_t)j, (int64_t)i, e),
             e);
      if (herm && i == j)
        zero_imag(d, e);
      else if (herm && !stored)
        conj_elem(d, e);
    }
  return full;
}

static enum hop_status symm(struct steps *s)
{
  const struct hop_call *g = s->g;
  void *full = expand(g, s->e, g->op == HOP_OP_HEMM);
  if (full == NULL)
    return HOP_ERR_NOMEM;
  struct hop_call m = *g;
  m.op = HOP_OP_GEMM, m.ta = m.tb = HOP_TRANS_N, m.right_side = m.upper = false;
  if (g->right_side) /* C = alpha B A + beta C */
    m.a = g->b, m.lda = g->ldb, m.b = full, m.ldb = g->k;
  else
    m.a = full, m.lda = g->k;
  enum hop_status rc = step(s, &m, false);
  free(full);
  return rc;
}

/* ---- gemmt, syrk, herk, syr2k, her2k: C's triangle in slabs ------------- */

/* op(A)(i, l) and op(B)(l, j) of t. */
static const void *opa(const struct hop_call *t, int64_t i, int64_t l, size_t e)
{
  return hop_transposed(t->ta) ? at(t->a, t->lda, l, i, e) : at(t->a, t->lda, i, l, e);
}

static const void *opb(const struct hop_call *t, int64_t l, int64_t j, size_t e)
{
  return hop_transposed(t->tb) ? at(t->b, t->ldb, j, l, e) : at(t->b, t->ldb, l, j, e);
}

/* Columns per slab: eight slabs from n = 2048, four below, so that the
 * diagonal blocks' extra work stays a small share. */
static int64_t slab_width(int64_t n)
{
  int64_t slabs = n >= 2048 ? 8 : 4;
  int64_t w = (n + slabs - 1) / slabs;
  return w < 1 ? 1 : w;
}

/* The owned triangle of the diagonal block at (j0, j0), nb wide, between C
 * and the dense copy d (ld nb): in (C read only when beta != 0; herk's and
 * her2k's diagonal imaginary parts never) or out (theirs written as 0). */
static void diag_block(const struct hop_call *t, bool herm, unsigned char *d, int64_t j0,
                       int64_t nb, size_t e, bool in)
{
  bool read_c = !hop_scalar_is_zero(t->beta);
  for (int64_t j = 0; j < nb; j++) {
    int64_t lo = t->upper ? 0 : j, hi = t->upper ? j + 1 : nb;
    unsigned char *c = (unsigned char *)t->c + hop_at(j0 + lo, j0 + j, t->ldc) * e;
    unsigned char *x = d + (size_t)(lo + j * nb) * e;
    unsigned char *x_diag = d + (size_t)(j + j * nb) * e;
    if (in) {
      if (read_c)
        memcpy(x, c, (size_t)(hi - lo) * e);
      if (herm)
        zero_imag(x_diag, e);
    } else {
      memcpy(c, x, (size_t)(hi - lo) * e);
      if (herm)
        zero_imag((unsigned char *)t->c + hop_at(j0 + j, j0 + j, t->ldc) * e, e);
    }
  }
}

static enum hop_status triangle(struct steps *s, const struct hop_call *t, bool herm)
{
  size_t e = s->e;
  int64_t n = t->n, w = slab_width(n);
  unsigned char *d = malloc((size_t)w * (size_t)w * e);
  if (d == NULL)
    return HOP_ERR_NOMEM;
  enum hop_status rc = HOP_OK;
  for (int64_t j0 = 0; j0 < n && rc == HOP_OK; j0 += w) {
    int64_t nb = n - j0 < w ? n - j0 : w;
    /* The rectangle beside the diagonal block: rows above it (upper) or below.
     */
    int64_t i0 = t->upper ? 0 : j0 + nb, rows = t->upper ? j0 : n - j0 - nb;
    struct hop_call m = *t;
    m.op = HOP_OP_GEMM, m.upper = false, m.n = nb, m.b = opb(t, 0, j0, e);
    if (rows > 0) {
      m.m = rows, m.a = opa(t, i0, 0, e), m.c = (unsigned char *)t->c + hop_at(i0, j0, t->ldc) * e;
      rc = step(s, &m, false);
      if (rc != HOP_OK)
        break;
    }
    /* The diagonal block, whole, into the copy; its owned triangle back. */
    memset(d, 0, (size_t)nb * (size_t)nb * e);
    diag_block(t, herm, d, j0, nb, e, true);
    m.m = nb, m.a = opa(t, j0, 0, e), m.c = d, m.ldc = nb;
    if (herm)
      m.beta.im = 0.0;
    rc = step(s, &m, false);
    if (rc == HOP_OK)
      diag_block(t, herm, d, j0, nb, e, false);
  }
  free(d);
  return rc;
}

/* alpha op(A) op(B) + alpha' op(B) op(A) as [op(A) op(B)] [op(B); op(A)]:
 * syr2k's alpha stays the product's; her2k's second term, conj(alpha), is
 * folded into the copy of the second operand when alpha is not real. */
static enum hop_status rank2k(struct steps *s)
{
  const struct hop_call *g = s->g;
  bool herm = g->op == HOP_OP_HER2K, fold = herm && g->alpha.im != 0.0;
  struct hop_scalar one = {1.0, 0.0}, al = g->alpha, conj_al = {g->alpha.re, -g->alpha.im};
  bool t = hop_transposed(g->ta);
  /* N: [A | B] [conj(alpha) B | alpha A]^H;  C: [A; B]^H [alpha B; conj(alpha)
   * A]. */
  struct hop_scalar sy1 = !fold ? one : t ? al : conj_al, sy2 = !fold ? one : t ? conj_al : al;
  void *x = hop_ocl_side_by_side(g, g->a, g->lda, one, g->b, g->ldb, one);
  void *y = x != NULL ? hop_ocl_side_by_side(g, g->b, g->ldb, sy1, g->a, g->lda, sy2) : NULL;
  enum hop_status rc = HOP_ERR_NOMEM;
  if (y != NULL) {
    struct hop_call m = *g;
    m.k = 2 * g->k, m.a = x, m.b = y, m.lda = m.ldb = t ? 2 * g->k : g->n;
    if (fold)
      m.alpha = one;
    rc = triangle(s, &m, herm);
  }
  free(x), free(y);
  return rc;
}

/* ---- trmm, trsm: blocked, diagonal blocks on the CPU -------------------- */

/* Rows (left) or columns (right) per block: eight blocks from k = 2048, four
 * below (the diagonal blocks' share of the work runs on the CPU). */
static int64_t tri_block(int64_t k) { return slab_width(k); }

/* The diagonal block [b0, b0 + len) of g as a call of its own on B's rows
 * (left) or columns (right). */
static struct hop_call diag_call(const struct hop_call *g, int64_t b0, int64_t len,
                                 struct hop_scalar alpha, size_t e)
{
  struct hop_call c = *g;
  c.alpha = alpha, c.k = len;
  c.a = at(g->a, g->lda, b0, b0, e);
  if (g->right_side)
    c.n = len, c.c = (unsigned char *)g->c + hop_at(0, b0, g->ldc) * e;
  else
    c.m = len, c.c = (unsigned char *)g->c + hop_at(b0, 0, g->ldc) * e;
  return c;
}

/* op(A)(i, l). */
static const void *op_a(const struct hop_call *g, int64_t i, int64_t l, size_t e)
{
  return hop_transposed(g->ta) ? at(g->a, g->lda, l, i, e) : at(g->a, g->lda, i, l, e);
}

/* The update of B's rows [r0, r0 + nr) (left; right: columns) by the
 * product of op(A)'s block there with B's [l0, l0 + nl):
 * B(r) = beta B(r) + alpha op(A)(r, l) B(l), or B(r) = ... B(l) op(A)(l, r). */
static struct hop_call update_call(const struct hop_call *g, int64_t r0, int64_t nr, int64_t l0,
                                   int64_t nl, struct hop_scalar alpha, struct hop_scalar beta,
                                   size_t e)
{
  struct hop_call m = *g;
  m.op = HOP_OP_GEMM, m.alpha = alpha, m.beta = beta, m.k = nl;
  m.right_side = m.upper = m.unit_diag = false;
  unsigned char *b = g->c;
  if (g->right_side) {
    m.n = nr, m.ta = HOP_TRANS_N, m.tb = g->ta;
    m.a = b + hop_at(0, l0, g->ldc) * e, m.lda = g->ldc;
    m.b = op_a(g, l0, r0, e), m.ldb = g->lda;
    m.c = b + hop_at(0, r0, g->ldc) * e;
  } else {
    m.m = nr, m.tb = HOP_TRANS_N;
    m.a = op_a(g, r0, l0, e);
    m.b = b + hop_at(l0, 0, g->ldc) * e, m.ldb = g->ldc;
    m.c = b + hop_at(r0, 0, g->ldc) * e;
  }
  return m;
}

/* Which way the blocks are taken: trsm forward when op(A) is lower on the
 * left (upper on the right), trmm the other way (each block's update reads
 * blocks not yet changed). */
static bool forward(const struct hop_call *g)
{
  bool op_upper = g->upper != hop_transposed(g->ta);
  bool solve_forward = g->right_side ? op_upper : !op_upper;
  return g->op == HOP_OP_TRSM ? solve_forward : !solve_forward;
}

static enum hop_status triangular(struct steps *s)
{
  const struct hop_call *g = s->g;
  size_t e = s->e;
  int64_t k = g->k, nb = tri_block(k), blocks = (k + nb - 1) / nb;
  bool fwd = forward(g), trsm = g->op == HOP_OP_TRSM;
  struct hop_scalar one = {1.0, 0.0}, minus_one = {-1.0, 0.0};
  for (int64_t q = 0; q < blocks; q++) {
    int64_t b0 = (fwd ? q : blocks - 1 - q) * nb, len = k - b0 < nb ? k - b0 : nb;
    /* The blocks the update reads (trmm) or writes (trsm): those after
     * this one in the direction taken (trsm), or before it (trmm). */
    int64_t after0 = fwd ? b0 + len : 0, after = fwd ? k - b0 - len : b0;
    if (trsm) {
      /* alpha is applied once: by the first solve, and by the first
       * update to every block it reaches (all the others). */
      struct hop_call d = diag_call(g, b0, len, q == 0 ? g->alpha : one, e);
      enum hop_status rc = step(s, &d, true);
      if (rc == HOP_OK && after > 0) {
        struct hop_call m =
            update_call(g, after0, after, b0, len, minus_one, q == 0 ? g->alpha : one, e);
        rc = step(s, &m, false);
      }
      if (rc != HOP_OK)
        return rc;
    } else {
      struct hop_call d = diag_call(g, b0, len, g->alpha, e);
      enum hop_status rc = step(s, &d, true);
      /* trmm: this block gains alpha op(A)(this, others) B(others), the
       * others not changed yet: those before it (backward), after it (forward).
       */
      int64_t o0 = fwd ? b0 + len : 0, no = fwd ? k - b0 - len : b0;
      if (rc == HOP_OK && no > 0) {
        struct hop_call m = update_call(g, b0, len, o0, no, g->alpha, one, e);
        rc = step(s, &m, false);
      }
      if (rc != HOP_OK)
        return rc;
    }
  }
  return HOP_OK;
}

static enum hop_status run(struct steps *s)
{
  const struct hop_call *g = s->g;
  switch (g->op) {
  case HOP_OP_SYMM:
  case HOP_OP_HEMM:
    return symm(s);
  case HOP_OP_GEMMT:
  case HOP_OP_SYRK:
    return triangle(s, g, false);
  case HOP_OP_HERK:
    return triangle(s, g, true);
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K:
    return rank2k(s);
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: {
    /* Their first step writes B on the host: only where the GEMMs can follow
     * (a family without double kernels declines z here, B untouched). */
    struct hop_call shape = *g;
    shape.op = HOP_OP_GEMM, shape.k = tri_block(g->k);
    return hop_ocl_engine_predict(s->st, &shape) < 0.0 ? HOP_DECLINED : triangular(s);
  }
  case HOP_OP_GEMM:
  case HOP_OP_GEMM_BATCH:
  case HOP_OP_COUNT:
    break;
  }
  return HOP_DECLINED;
}

enum hop_status hop_ocl_level3_complex(struct hop_ocl_state *st, const struct hop_call *g,
                                       hop_ocl_run_fn gemm)
{
  struct steps s = {.st = st, .gemm = gemm, .g = g, .e = hop_dtype_c_size(g->dtype)};
  hop_ocl_family_detail_clear(); /* the last device GEMM's note, if any, and the
                                    steps */
  enum hop_status rc = run(&s);
  char steps[64];
  snprintf(steps, sizeof steps, "%ssteps=%d on the device, %d on the host",
           hop_ocl_family_detail(NULL)[0] != '\0' ? " " : "", s.device, s.host);
  hop_ocl_family_detail_add(steps);
  return rc;
}
