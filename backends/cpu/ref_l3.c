/* Built-in reference symm, hemm, syrk, herk, syr2k, her2k, trmm and trsm,
 * for when the loaded BLAS lacks them (or none loads): correct, not fast.
 * Sums are formed in double (complex: double complex), for every dtype.
 * Only what the routine owns is read or written: the stored triangle of A
 * (a unit diagonal never), the owned triangle of C, and C not at all when
 * beta == 0.  Nothing is allocated, so it cannot fail. */
#include <complex.h>

#include "cpu.h"

/* Real dtypes are summed in plain doubles: complex arithmetic on (x, 0)
 * would turn an infinite product into NaN through 0 * Inf. */
struct num {
  bool cx;
  double complex z; /* complex dtypes */
  double r;         /* real ones */
};

static struct num num_of(bool cx, struct hop_scalar s)
{
  return (struct num){cx, cx ? hop_cpu_complex(s.re, s.im) : 0.0, s.re};
}

static struct num zero(bool cx) { return (struct num){cx, 0.0, 0.0}; }
static struct num one(bool cx) { return (struct num){cx, 1.0, 1.0}; }

static struct num mul(struct num a, struct num b)
{
  return a.cx ? (struct num){true, a.z * b.z, 0.0} : (struct num){false, 0.0, a.r * b.r};
}

static struct num add(struct num a, struct num b)
{
  return a.cx ? (struct num){true, a.z + b.z, 0.0} : (struct num){false, 0.0, a.r + b.r};
}

static struct num sub(struct num a, struct num b)
{
  return a.cx ? (struct num){true, a.z - b.z, 0.0} : (struct num){false, 0.0, a.r - b.r};
}

static struct num quot(struct num a, struct num b)
{
  return a.cx ? (struct num){true, a.z / b.z, 0.0} : (struct num){false, 0.0, a.r / b.r};
}

static struct num conj_of(struct num a)
{
  if (a.cx)
    a.z = hop_cpu_complex(creal(a.z), -cimag(a.z));
  return a;
}

static struct num load(const struct hop_call *g, const void *x, size_t at)
{
  return num_of(hop_dtype_info(g->dtype)->is_complex, hop_dtype_load(g->dtype, false, x, at));
}

static void store(const struct hop_call *g, int64_t i, int64_t j, struct num v)
{
  struct hop_scalar s = v.cx ? (struct hop_scalar){creal(v.z), cimag(v.z)}
                             : (struct hop_scalar){v.r, 0.0};
  hop_dtype_store(g->dtype, g->c, hop_at(i, j, g->ldc), s);
}

/* alpha * sum + beta * C(i, j), C not read when beta == 0. */
static void finish(const struct hop_call *g, int64_t i, int64_t j, struct num sum)
{
  bool cx = sum.cx;
  struct num v = mul(num_of(cx, g->alpha), sum);
  if (!hop_scalar_is_zero(g->beta)) {
    struct num c = load(g, g->c, hop_at(i, j, g->ldc));
    if (hop_call_real_diagonal(g) && i == j)
      c.z = creal(c.z);
    v = add(v, mul(num_of(cx, g->beta), c));
  }
  if (hop_call_real_diagonal(g) && i == j)
    v.z = creal(v.z);
  store(g, i, j, v);
}

/* ---- symm, hemm --------------------------------------------------------- */

/* A(i, l) of the symmetric or Hermitian A, from its stored triangle. */
static struct num sym(const struct hop_call *g, int64_t i, int64_t l)
{
  bool stored = g->upper ? i <= l : i >= l;
  struct num v = load(g, g->a, stored ? hop_at(i, l, g->lda) : hop_at(l, i, g->lda));
  if (g->op == HOP_OP_HEMM) {
    if (i == l)
      v.z = creal(v.z); /* the diagonal's imaginary parts are not read */
    else if (!stored)
      v = conj_of(v);
  }
  return v;
}

static void ref_symm(const struct hop_call *g)
{
  bool cx = hop_dtype_info(g->dtype)->is_complex;
  for (int64_t j = 0; j < g->n; j++)
    for (int64_t i = 0; i < g->m; i++) {
      struct num s = zero(cx);
      for (int64_t l = 0; l < g->k; l++)
        s = add(s, g->right_side ? mul(load(g, g->b, hop_at(i, l, g->ldb)), sym(g, l, j))
                                 : mul(sym(g, i, l), load(g, g->b, hop_at(l, j, g->ldb))));
      finish(g, i, j, s);
    }
}

/* ---- syrk, herk, syr2k, her2k -------------------------------------------- */

/* op(X)(r, c) of A (x = 0) or B (x = 1), as in GEMM. */
static struct num op_elem(const struct hop_call *g, int x, int64_t r, int64_t c)
{
  enum hop_trans t = x == 0 ? g->ta : g->tb;
  size_t at = hop_transposed(t) ? hop_at(c, r, x == 0 ? g->lda : g->ldb)
                                : hop_at(r, c, x == 0 ? g->lda : g->ldb);
  struct num v = load(g, x == 0 ? g->a : g->b, at);
  return hop_conjugated(t) ? conj_of(v) : v;
}

/* (op(A) op(B))(i, j). */
static struct num product(const struct hop_call *g, int64_t i, int64_t j)
{
  struct num s = zero(hop_dtype_info(g->dtype)->is_complex);
  for (int64_t l = 0; l < g->k; l++)
    s = add(s, mul(op_elem(g, 0, i, l), op_elem(g, 1, l, j)));
  return s;
}

static void ref_rank_k(const struct hop_call *g)
{
  bool cx = hop_dtype_info(g->dtype)->is_complex;
  bool two = g->op == HOP_OP_SYR2K || g->op == HOP_OP_HER2K;
  struct num alpha = num_of(cx, g->alpha);
  for (int64_t j = 0; j < g->n; j++) {
    int64_t lo, hi;
    hop_call_rows(g, j, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
      struct num s = product(g, i, j);
      if (two) {
        /* syr2k: + alpha P^T; her2k: + conj(alpha) P^H, i.e. conj(alpha P(j, i)). */
        struct num t = mul(alpha, product(g, j, i));
        s = mul(alpha, s);
        s = add(s, g->op == HOP_OP_HER2K ? conj_of(t) : t);
        struct hop_call unit = *g;
        unit.alpha = (struct hop_scalar){1.0, 0.0};
        finish(&unit, i, j, s);
      } else {
        finish(g, i, j, s);
      }
    }
  }
}

/* ---- trmm, trsm ------------------------------------------------------------ */

/* op(A)(i, l) of the triangular A: 0 outside its triangle, 1 on a unit diagonal. */
static struct num tri(const struct hop_call *g, int64_t i, int64_t l)
{
  bool cx = hop_dtype_info(g->dtype)->is_complex;
  int64_t r = hop_transposed(g->ta) ? l : i, c = hop_transposed(g->ta) ? i : l;
  if (r == c && g->unit_diag)
    return one(cx);
  if (g->upper ? r > c : r < c)
    return zero(cx);
  struct num v = load(g, g->a, hop_at(r, c, g->lda));
  return hop_conjugated(g->ta) ? conj_of(v) : v;
}

/* Is op(A) upper triangular? */
static bool op_upper(const struct hop_call *g) { return g->upper != hop_transposed(g->ta); }

static struct num b_at(const struct hop_call *g, int64_t i, int64_t j)
{
  return load(g, g->c, hop_at(i, j, g->ldc));
}

/* In place: each element is computed from those not yet overwritten. */
static void ref_trmm(const struct hop_call *g)
{
  bool cx = hop_dtype_info(g->dtype)->is_complex, up = op_upper(g);
  struct num alpha = num_of(cx, g->alpha);
  int64_t m = g->m, n = g->n;
  if (!g->right_side) { /* B(i, j) = alpha sum_l op(A)(i, l) B(l, j) */
    for (int64_t j = 0; j < n; j++)
      for (int64_t s = 0; s < m; s++) {
        int64_t i = up ? s : m - 1 - s; /* upper: rows below i are still B's */
        struct num v = zero(cx);
        for (int64_t l = up ? i : 0; l < (up ? m : i + 1); l++)
          v = add(v, mul(tri(g, i, l), b_at(g, l, j)));
        store(g, i, j, mul(alpha, v));
      }
    return;
  }
  for (int64_t s = 0; s < n; s++) { /* B(i, j) = alpha sum_l B(i, l) op(A)(l, j) */
    int64_t j = up ? n - 1 - s : s; /* upper: columns left of j are still B's */
    for (int64_t i = 0; i < m; i++) {
      struct num v = zero(cx);
      for (int64_t l = up ? 0 : j; l < (up ? j + 1 : n); l++)
        v = add(v, mul(b_at(g, i, l), tri(g, l, j)));
      store(g, i, j, mul(alpha, v));
    }
  }
}

/* Substitution in the order that finds each unknown from those found. */
static void ref_trsm(const struct hop_call *g)
{
  bool cx = hop_dtype_info(g->dtype)->is_complex, up = op_upper(g);
  struct num alpha = num_of(cx, g->alpha);
  int64_t m = g->m, n = g->n;
  if (!g->right_side) { /* op(A) X = alpha B, column by column */
    for (int64_t j = 0; j < n; j++)
      for (int64_t s = 0; s < m; s++) {
        int64_t i = up ? m - 1 - s : s;
        struct num v = mul(alpha, b_at(g, i, j));
        for (int64_t l = up ? i + 1 : 0; l < (up ? m : i); l++)
          v = sub(v, mul(tri(g, i, l), b_at(g, l, j)));
        store(g, i, j, g->unit_diag ? v : quot(v, tri(g, i, i)));
      }
    return;
  }
  for (int64_t s = 0; s < n; s++) { /* X op(A) = alpha B, column by column of X */
    int64_t j = up ? s : n - 1 - s;
    for (int64_t i = 0; i < m; i++) {
      struct num v = mul(alpha, b_at(g, i, j));
      for (int64_t l = up ? 0 : j + 1; l < (up ? j : n); l++)
        v = sub(v, mul(b_at(g, i, l), tri(g, l, j)));
      store(g, i, j, g->unit_diag ? v : quot(v, tri(g, j, j)));
    }
  }
}

void hop_ref_l3(const struct hop_call *g)
{
  switch (g->op) {
  case HOP_OP_SYMM:
  case HOP_OP_HEMM: ref_symm(g); return;
  case HOP_OP_GEMMT: /* GEMM on the triangle: syrk's loop with op(B) as given */
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K: ref_rank_k(g); return;
  case HOP_OP_TRMM: ref_trmm(g); return;
  case HOP_OP_TRSM: ref_trsm(g); return;
  case HOP_OP_GEMM: hop_ref_gemm_wide(g); return;
  case HOP_OP_GEMM_BATCH: /* batch.c: its problems one by one */
  case HOP_OP_COUNT: return;
  }
}
