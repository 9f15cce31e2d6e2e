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
 *   add their second product, the operands swapped, as a second GEMM;
 * - trmm: the triangle made dense (zeros, a unit diagonal's ones), one GEMM
 *   into a copy of B, then B;
 * - trsm: on a buffer family with its operands resident on the device
 *   (level3_ctrsm.c); elsewhere blocked here, the diagonal blocks solved on
 *   the CPU (a sixteenth of the products), the updates as GEMMs on the
 *   device.
 * Unlike trsm there, nothing stays on the device between these GEMMs: each
 * uploads its operands.  A failed GEMM before anything was
 * written hands the whole call to the next engine; after that the CPU does
 * the remaining steps, which leave C (trsm: B) consistent between them. */
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

/* One element from src to dst (e is 8 or 16: moves, not a call). */
static void copy_elem(unsigned char *dst, const unsigned char *src, size_t e)
{
  if (e == 8)
    memcpy(dst, src, 8);
  else
    memcpy(dst, src, 16);
}

enum { EXPAND_BLOCK = 64 }; /* the mirrored triangle is read a block at a time, in cache */

struct expansion {
  const struct hop_call *g;
  size_t e;
  bool herm;
  unsigned char *full;
};

/* Columns [j0, j1) of the dense copy (the copy threads share the columns). */
static void expand_columns(void *arg, int j0, int j1)
{
  const struct expansion *x = arg;
  const struct hop_call *g = x->g;
  size_t k = (size_t)g->k, e = x->e, end = (size_t)j1;
  bool herm = x->herm;
  unsigned char *full = x->full;
  for (size_t jb = (size_t)j0; jb < end; jb += EXPAND_BLOCK)
    for (size_t ib = 0; ib < k; ib += EXPAND_BLOCK)
      for (size_t j = jb; j < jb + EXPAND_BLOCK && j < end; j++)
        for (size_t i = ib; i < ib + EXPAND_BLOCK && i < k; i++) {
          bool stored = g->upper ? i <= j : i >= j;
          unsigned char *d = full + (i + j * k) * e;
          copy_elem(d, stored ? at(g->a, g->lda, (int64_t)i, (int64_t)j, e)
                              : at(g->a, g->lda, (int64_t)j, (int64_t)i, e), e);
          if (herm && i == j)
            zero_imag(d, e);
          else if (herm && !stored)
            conj_elem(d, e);
        }
}

/* A dense copy of A from its stored triangle (hemm: Hermitian). */
static void *expand(struct steps *s, const struct hop_call *g, bool herm)
{
  size_t k = (size_t)g->k;
  struct expansion x = {.g = g, .e = s->e, .herm = herm, .full = malloc(k * k * s->e)};
  if (x.full != NULL)
    hop_ocl_copy_columns(s->st, k * k * s->e, (int)k, expand_columns, &x);
  return x.full;
}

static enum hop_status symm(struct steps *s)
{
  const struct hop_call *g = s->g;
  void *full = expand(s, g, g->op == HOP_OP_HEMM);
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

/* t's products on C's block at rows [i0, i0 + rows), columns [j0, j0 + nb),
 * into c (ld ldc): alpha op(A) op(B) + beta c, and for syr2k and her2k then
 * the second term, (op(A) op(B))^T (^H: with conj(alpha)), added to it. */
static enum hop_status products(struct steps *s, const struct hop_call *t, bool herm, int64_t i0,
                                int64_t rows, int64_t j0, int64_t nb, void *c, int64_t ldc)
{
  size_t e = s->e;
  struct hop_call m = *t;
  m.op = HOP_OP_GEMM, m.upper = false, m.m = rows, m.n = nb, m.c = c, m.ldc = ldc;
  m.a = opa(t, i0, 0, e), m.b = opb(t, 0, j0, e);
  if (herm)
    m.beta.im = 0.0;
  enum hop_status rc = step(s, &m, false);
  if (rc != HOP_OK || (t->op != HOP_OP_SYR2K && t->op != HOP_OP_HER2K))
    return rc;
  struct hop_call u = *t; /* op(B) op(A): the operands swapped, the transposes kept */
  u.a = t->b, u.lda = t->ldb, u.b = t->a, u.ldb = t->lda;
  m.a = opa(&u, i0, 0, e), m.lda = u.lda, m.b = opb(&u, 0, j0, e), m.ldb = u.ldb;
  m.beta = (struct hop_scalar){1.0, 0.0};
  if (t->op == HOP_OP_HER2K)
    m.alpha.im = -m.alpha.im;
  return step(s, &m, false); /* after the first wrote C: on the CPU should it fail */
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
    /* The rectangle beside the diagonal block: rows above it (upper) or below. */
    int64_t i0 = t->upper ? 0 : j0 + nb, rows = t->upper ? j0 : n - j0 - nb;
    if (rows > 0)
      rc = products(s, t, herm, i0, rows, j0, nb,
                    (unsigned char *)t->c + hop_at(i0, j0, t->ldc) * e, t->ldc);
    if (rc != HOP_OK)
      break;
    /* The diagonal block, whole, into the copy; its owned triangle back. */
    memset(d, 0, (size_t)nb * (size_t)nb * e);
    diag_block(t, herm, d, j0, nb, e, true);
    rc = products(s, t, herm, j0, nb, j0, nb, d, nb);
    if (rc == HOP_OK)
      diag_block(t, herm, d, j0, nb, e, false);
  }
  free(d);
  return rc;
}

/* ---- trmm: one GEMM of the triangle made dense ---------------------------- */

/* Columns [j0, j1) of trmm's dense triangle (x->full): zeros outside it,
 * ones on a unit diagonal. */
static void triangle_columns(void *arg, int j0, int j1)
{
  const struct expansion *x = arg;
  const struct hop_call *g = x->g;
  size_t k = (size_t)g->k, e = x->e;
  unsigned char *t = x->full;
  for (size_t j = (size_t)j0; j < (size_t)j1; j++) {
    size_t lo = g->upper ? 0 : j, hi = g->upper ? j + 1 : k;
    memset(t + j * k * e, 0, lo * e);
    memcpy(t + (lo + j * k) * e, at(g->a, g->lda, (int64_t)lo, (int64_t)j, e), (hi - lo) * e);
    memset(t + (hi + j * k) * e, 0, (k - hi) * e);
    if (g->unit_diag) {
      unsigned char *d = t + (j + j * k) * e;
      memset(d, 0, e);
      if (e == 8)
        ((float *)d)[0] = 1.0f;
      else
        ((double *)d)[0] = 1.0;
    }
  }
}

static void *dense_triangle(struct steps *s, const struct hop_call *g)
{
  size_t k = (size_t)g->k;
  struct expansion x = {.g = g, .e = s->e, .full = malloc(k * k * s->e)};
  if (x.full != NULL)
    hop_ocl_copy_columns(s->st, k * k * s->e, (int)k, triangle_columns, &x);
  return x.full;
}

struct columns_out {
  const struct hop_call *g;
  size_t e;
  const unsigned char *from; /* ld m */
};

/* Columns [j0, j1) of out into B. */
static void out_columns(void *arg, int j0, int j1)
{
  const struct columns_out *o = arg;
  const struct hop_call *g = o->g;
  for (int64_t j = j0; j < j1; j++)
    memcpy((unsigned char *)g->c + hop_at(0, j, g->ldc) * o->e, o->from + (size_t)j * (size_t)g->m * o->e,
           (size_t)g->m * o->e);
}

/* B = alpha op(T) B (or alpha B op(T)) into a copy, then into B: the GEMM
 * does twice trmm's products (the zeros too), all on the device, and B is
 * written only once the product is whole. */
static enum hop_status trmm(struct steps *s)
{
  const struct hop_call *g = s->g;
  size_t e = s->e, mn = (size_t)g->m * (size_t)g->n;
  unsigned char *t = dense_triangle(s, g), *out = t != NULL ? malloc(mn * e) : NULL;
  enum hop_status rc = HOP_ERR_NOMEM;
  if (out != NULL) {
    struct hop_call m = *g;
    m.op = HOP_OP_GEMM, m.right_side = m.upper = m.unit_diag = false;
    m.beta = (struct hop_scalar){0.0, 0.0}, m.c = out, m.ldc = g->m;
    if (g->right_side)
      m.a = g->c, m.lda = g->ldc, m.ta = HOP_TRANS_N, m.b = t, m.ldb = g->k, m.tb = g->ta;
    else
      m.a = t, m.lda = g->k, m.b = g->c, m.ldb = g->ldc, m.tb = HOP_TRANS_N;
    rc = step(s, &m, false);
    struct columns_out o = {.g = g, .e = e, .from = out};
    if (rc == HOP_OK)
      hop_ocl_copy_columns(s->st, mn * e, (int)g->n, out_columns, &o);
  }
  free(t), free(out);
  return rc;
}

/* ---- trsm: blocked, diagonal blocks solved on the CPU -------------------- */

/* Rows (left) or columns (right) per block: at least sixteen blocks, so
 * that the CPU's share (the diagonal blocks' substitution) is at most a
 * sixteenth of the products; where the operands stay on the device, blocks
 * of at most trmm's and trsm's slab (128 rows), a smaller share still: the
 * host's substitution ran 1.0 of ztrsm 8192's 1.25 s on the H200 in 512-row
 * blocks.  Else sixteen, each GEMM uploading B's rest. */
int64_t hop_ocl_complex_trsm_block(int64_t k, bool resident)
{
  int64_t nb = (k + 15) / 16, most = hop_ocl_l3_block();
  nb = resident && nb > most ? most : nb;
  return nb < 1 ? 1 : nb;
}

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
 * product of op(A)'s block there with the solved B's [l0, l0 + nl):
 * B(r) = beta B(r) - op(A)(r, l) B(l), or B(r) = beta B(r) - B(l) op(A)(l, r). */
static struct hop_call update_call(const struct hop_call *g, int64_t r0, int64_t nr, int64_t l0,
                                   int64_t nl, struct hop_scalar beta, size_t e)
{
  struct hop_call m = *g;
  m.op = HOP_OP_GEMM, m.alpha = (struct hop_scalar){-1.0, 0.0}, m.beta = beta, m.k = nl;
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

/* Forward (first block first) when op(A) is lower on the left, upper on
 * the right: each solved block updates the ones after it. */
static enum hop_status trsm(struct steps *s)
{
  const struct hop_call *g = s->g;
  size_t e = s->e;
  int64_t k = g->k, nb = hop_ocl_complex_trsm_block(k, false), blocks = (k + nb - 1) / nb;
  bool op_upper = g->upper != hop_transposed(g->ta);
  bool fwd = g->right_side ? op_upper : !op_upper;
  struct hop_scalar one = {1.0, 0.0};
  for (int64_t q = 0; q < blocks; q++) {
    int64_t b0 = (fwd ? q : blocks - 1 - q) * nb, len = k - b0 < nb ? k - b0 : nb;
    int64_t after0 = fwd ? b0 + len : 0, after = fwd ? k - b0 - len : b0;
    /* alpha is applied once: by the first solve, and by the first update
     * to every block it reaches (all the others). */
    struct hop_scalar scale = q == 0 ? g->alpha : one;
    struct hop_call d = diag_call(g, b0, len, scale, e);
    enum hop_status rc = step(s, &d, true);
    if (rc == HOP_OK && after > 0) {
      struct hop_call m = update_call(g, after0, after, b0, len, scale, e);
      rc = step(s, &m, false);
    }
    if (rc != HOP_OK)
      return rc;
  }
  return HOP_OK;
}

static enum hop_status run(struct steps *s)
{
  const struct hop_call *g = s->g;
  switch (g->op) {
  case HOP_OP_SYMM:
  case HOP_OP_HEMM: return symm(s);
  case HOP_OP_GEMMT:
  case HOP_OP_SYRK:
  case HOP_OP_SYR2K: return triangle(s, g, false);
  case HOP_OP_HERK:
  case HOP_OP_HER2K: return triangle(s, g, true);
  case HOP_OP_TRMM: return trmm(s);
  case HOP_OP_TRSM: {
    /* Its first step writes B on the host: only where the GEMMs can follow
     * (a family without double kernels declines z here, B untouched). */
    struct hop_call shape = *g;
    shape.op = HOP_OP_GEMM, shape.k = hop_ocl_complex_trsm_block(g->k, false);
    if (hop_ocl_engine_predict(s->st, &shape) < 0.0)
      return HOP_DECLINED;
    int steps[2] = {0, 0};
    enum hop_status rc = hop_ocl_complex_trsm((struct hop_ocl_state *)s->st, g, steps);
    s->device += steps[0], s->host += steps[1];
    if (rc == HOP_OK)
      hop_ocl_family_detail_add(" resident");
    return rc == HOP_DECLINED ? trsm(s) : rc;
  }
  case HOP_OP_GEMM:
  case HOP_OP_GEMM_BATCH:
  case HOP_OP_COUNT: break;
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
