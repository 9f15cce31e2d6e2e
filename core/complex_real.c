/* Complex GEMM for engines that have only real kernels (the OpenCL
 * families, the QPUs): op(A) op(B) as one
 * real GEMM of the real embedding of complex numbers (the 4M method: four
 * real products per complex one, in a single launch sequence).  With the
 * smaller operand doubled,
 *   A' = [Ar Ai]  (m x 2k),  B' = [Br Bi; -Bi Br]  (2k x 2n),  C' = [Pr Pi]
 * or
 *   A' = [Ar -Ai; Ai Ar]  (2m x 2k),  B' = [Br; Bi]  (2k x n),  C' = [Pr; Pi],
 * where P = op(A) op(B) and Xr, Xi are the parts of op(X), transposed and
 * conjugated while the planes are written.  The real GEMM is the engine's
 * own whole path (tiles, transfers, subnormal fix-ups of a flushing device),
 * then C = alpha P + beta C on the host, in double: C is written
 * only after the real GEMM succeeded, and read only when beta != 0.
 * Each element gets the real sums of k products twice over: the contract's
 * bound with |x| = |re| + |im| covers it.  The ?gemm3m entry points run the
 * same way (the 3M method saves a quarter of the products but loosens the
 * bound; it is not used). */
#include <limits.h>
#include <stdlib.h>

#include "hop.h"

/* Part `part` (0 re, 1 im) of element at of a complex float or double matrix:
 * hop_dtype_load's work, inlined, since the planes' passes touch every
 * element of A, B and C on the host. */
static inline double part_of(const void *x, bool dbl, size_t at, int part)
{
  return dbl ? ((const double *)x)[2 * at + (size_t)part] : ((const float *)x)[2 * at + (size_t)part];
}

static inline void put(void *x, bool dbl, size_t at, double v)
{
  if (dbl)
    ((double *)x)[at] = v;
  else
    ((float *)x)[at] = (float)v;
}

/* op(X)(r, c) of the caller's A (x = 0) or B (x = 1): (re, im) with the conjugation applied. */
static inline void op_elem(const struct hop_call *g, int x, bool dbl, int64_t r, int64_t c, double *re,
                           double *im)
{
  enum hop_trans t = x == 0 ? g->ta : g->tb;
  const void *base = x == 0 ? g->a : g->b;
  int64_t ld = x == 0 ? g->lda : g->ldb;
  size_t at = hop_transposed(t) ? hop_at(c, r, ld) : hop_at(r, c, ld);
  *re = part_of(base, dbl, at, 0);
  double i = part_of(base, dbl, at, 1);
  *im = hop_conjugated(t) ? -i : i;
}

struct planes {
  bool double_b; /* B' is the doubled operand */
  int64_t m2, n2, k2; /* the real GEMM's shape */
  void *a, *b, *c;
};

/* A' from columns [l0, l1) of op(A). */
static void write_a(const struct hop_call *g, bool dbl, const struct planes *p, int64_t l0,
                    int64_t l1)
{
  int64_t m = g->m, k = g->k;
  for (int64_t l = l0; l < l1; l++)
    for (int64_t i = 0; i < m; i++) {
      double re, im;
      op_elem(g, 0, dbl, i, l, &re, &im);
      if (p->double_b) { /* [Ar Ai], m x 2k */
        put(p->a, dbl, hop_at(i, l, m), re);
        put(p->a, dbl, hop_at(i, k + l, m), im);
      } else { /* [Ar -Ai; Ai Ar], 2m x 2k */
        put(p->a, dbl, hop_at(i, l, 2 * m), re);
        put(p->a, dbl, hop_at(i, k + l, 2 * m), -im);
        put(p->a, dbl, hop_at(m + i, l, 2 * m), im);
        put(p->a, dbl, hop_at(m + i, k + l, 2 * m), re);
      }
    }
}

/* B' from columns [j0, j1) of op(B). */
static void write_b(const struct hop_call *g, bool dbl, const struct planes *p, int64_t j0,
                    int64_t j1)
{
  int64_t n = g->n, k = g->k;
  for (int64_t j = j0; j < j1; j++)
    for (int64_t l = 0; l < k; l++) {
      double re, im;
      op_elem(g, 1, dbl, l, j, &re, &im);
      if (p->double_b) { /* [Br Bi; -Bi Br], 2k x 2n */
        put(p->b, dbl, hop_at(l, j, 2 * k), re);
        put(p->b, dbl, hop_at(l, n + j, 2 * k), im);
        put(p->b, dbl, hop_at(k + l, j, 2 * k), -im);
        put(p->b, dbl, hop_at(k + l, n + j, 2 * k), re);
      } else { /* [Br; Bi], 2k x n */
        put(p->b, dbl, hop_at(l, j, 2 * k), re);
        put(p->b, dbl, hop_at(k + l, j, 2 * k), im);
      }
    }
}

/* C = alpha P + beta C from C', columns [j0, j1) (beta == 0: C is not read). */
static void combine(const struct hop_call *g, bool dbl, const struct planes *p, int64_t j0,
                    int64_t j1)
{
  bool beta_zero = hop_scalar_is_zero(g->beta);
  double ar = g->alpha.re, ai = g->alpha.im, br = g->beta.re, bi = g->beta.im;
  for (int64_t j = j0; j < j1; j++)
    for (int64_t i = 0; i < g->m; i++) {
      size_t re_at = p->double_b ? hop_at(i, j, g->m) : hop_at(i, j, 2 * g->m);
      size_t im_at = p->double_b ? hop_at(i, g->n + j, g->m) : hop_at(g->m + i, j, 2 * g->m);
      double pr = dbl ? ((const double *)p->c)[re_at] : ((const float *)p->c)[re_at];
      double pi = dbl ? ((const double *)p->c)[im_at] : ((const float *)p->c)[im_at];
      double vr = ar * pr - ai * pi, vi = ar * pi + ai * pr;
      size_t at = hop_at(i, j, g->ldc);
      if (!beta_zero) {
        double cr = part_of(g->c, dbl, at, 0), ci = part_of(g->c, dbl, at, 1);
        vr += br * cr - bi * ci;
        vi += br * ci + bi * cr;
      }
      put(g->c, dbl, 2 * at, vr);
      put(g->c, dbl, 2 * at + 1, vi);
    }
}

/* The host's passes over the planes, on the cores: a large call's planes
 * take as long to write as the device takes to multiply them.  Columns are
 * shared out (core/parallel.c). */
enum pass { PASS_A, PASS_B, PASS_COMBINE };
struct pass_args {
  const struct hop_call *g;
  const struct planes *p;
  bool dbl;
  enum pass pass;
};

static void run_columns(void *arg, int64_t j0, int64_t j1)
{
  const struct pass_args *s = arg;
  switch (s->pass) {
  case PASS_A: write_a(s->g, s->dbl, s->p, j0, j1); break;
  case PASS_B: write_b(s->g, s->dbl, s->p, j0, j1); break;
  case PASS_COMBINE: combine(s->g, s->dbl, s->p, j0, j1); break;
  }
}

enum { ELEMENTS_PER_THREAD = 1 << 18 };

static void in_parallel(const struct hop_call *g, bool dbl, const struct planes *p, enum pass pass,
                        int64_t cols, size_t per_col)
{
  struct pass_args args = {g, p, dbl, pass};
  int t = hop_parallel_threads((double)cols * (double)per_col, ELEMENTS_PER_THREAD, cols);
  hop_parallel(t, cols, run_columns, &args);
}

void hop_complex_embed(const struct hop_call *g, void *a, void *b)
{
  struct planes p = {.double_b = true, .a = a, .b = b};
  bool dbl = g->dtype == HOP_DTYPE_Z;
  write_a(g, dbl, &p, 0, g->k);
  write_b(g, dbl, &p, 0, g->n);
}

void hop_complex_combine(const struct hop_call *g, const void *product)
{
  struct planes p = {.double_b = true, .c = (void *)product};
  combine(g, g->dtype == HOP_DTYPE_Z, &p, 0, g->n);
}

enum hop_status hop_complex_by_real(const struct hop_call *g,
                                    enum hop_status (*real_run)(void *ctx,
                                                                const struct hop_call *real),
                                    void *ctx, bool views)
{
  bool dbl = g->dtype == HOP_DTYPE_Z;
  struct planes p = {.double_b = (double)g->k * g->n <= (double)g->m * g->k};
  p.m2 = p.double_b ? g->m : 2 * g->m;
  p.n2 = p.double_b ? 2 * g->n : g->n;
  p.k2 = 2 * g->k;
  /* The engines that come here hold int dimensions (max_dim INT_MAX). */
  if (2 * g->m > INT_MAX || 2 * g->n > INT_MAX || p.k2 > INT_MAX)
    return HOP_DECLINED; /* the doubled shape would not fit the real call's ints */
  struct hop_planes pv;
  struct hop_call in_place;
  if (views && hop_planes_make(g, p.double_b, &pv, &in_place)) {
    enum hop_status rc = real_run(ctx, &in_place);
    if (rc != HOP_DECLINED)
      return rc;
  }
  size_t e = dbl ? 8 : 4;
  p.a = malloc((size_t)p.m2 * (size_t)p.k2 * e);
  p.b = malloc((size_t)p.k2 * (size_t)p.n2 * e);
  p.c = malloc((size_t)p.m2 * (size_t)p.n2 * e);
  enum hop_status rc = HOP_ERR_NOMEM;
  if (p.a != NULL && p.b != NULL && p.c != NULL) {
    in_parallel(g, dbl, &p, PASS_A, g->k, (size_t)g->m);
    in_parallel(g, dbl, &p, PASS_B, g->n, (size_t)g->k);
    struct hop_call real = {.op = HOP_OP_GEMM, .dtype = dbl ? HOP_DTYPE_D : HOP_DTYPE_S,
                            .symbol = g->symbol, .row_major = g->row_major, .m = p.m2, .n = p.n2,
                            .k = p.k2, .alpha = {1.0, 0.0}, .beta = {0.0, 0.0}, .a = p.a,
                            .lda = p.m2, .b = p.b, .ldb = p.k2, .c = p.c, .ldc = p.m2};
    rc = real_run(ctx, &real);
    if (rc == HOP_OK)
      in_parallel(g, dbl, &p, PASS_COMBINE, g->n, (size_t)g->m);
  }
  free(p.a), free(p.b), free(p.c);
  return rc;
}
