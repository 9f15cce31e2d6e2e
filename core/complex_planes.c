/* The real embedding of a complex GEMM read in place: plane views.
 *
 * core/complex_real.c writes the planes A', B' of the real embedding into
 * new host memory and forms alpha P + beta C from C' after the real GEMM.
 * For a large call that costs more host time than the device's whole GEMM:
 * gigabytes of new pages faulted in, written, and read again by the
 * engine's own packing.  An engine that copies operands block by block
 * anyway (the OpenCL engine's staged path) can read each block of a plane
 * straight from the caller's complex matrix and write each block of C'
 * straight into C's parts: the planes then never exist.
 *
 * A view is a plane matrix as it is stored for the real call (transposed
 * when op(X) is): a grid of at most 2 x 2 quadrants, each the size of the
 * caller's stored complex matrix, each a signed part (re or im) of s x or
 * s conj(x), with s a complex scale (alpha folded into A; 1 elsewhere).
 * C' input is the plain parts of C and the real call's beta is the complex
 * beta's real part: each part of C then depends on the same part only, so
 * a tile of C' written into C never changes what another tile reads.  A
 * beta with an imaginary part has no such views (complex_real.c then
 * writes the planes). */
#include <stdlib.h>

#include "hop.h"

/* The stored plane X' of the real call's A (x = 0), B (1) or C (2). */
static void view_init(struct hop_plane_view *v, const struct hop_call *g, int x, bool double_b)
{
  const void *src = x == 0 ? g->a : x == 1 ? g->b : g->c;
  int64_t ld = x == 0 ? g->lda : x == 1 ? g->ldb : g->ldc;
  enum hop_trans t = x == 0 ? g->ta : x == 1 ? g->tb : HOP_TRANS_N;
  bool trans = hop_transposed(t);
  /* op(X)'s rows and columns, and so the stored matrix's. */
  int64_t rows = x == 0 ? g->m : x == 1 ? g->k : g->m;
  int64_t cols = x == 0 ? g->k : x == 1 ? g->n : g->n;
  *v = (struct hop_plane_view){.src = src, .ld = ld, .dbl = g->dtype == HOP_DTYPE_Z,
                               .conj = hop_conjugated(t), .scale = {1.0, 0.0},
                               .qrows = trans ? cols : rows, .qcols = trans ? rows : cols};
  /* The quadrants of op(X)' (part, sign), as complex_real.c lays them out. */
  static const struct { int gr, gc; signed char part[2][2], sign[2][2]; } layout[3][2] = {
    /* A: [Ar -Ai; Ai Ar] (B' single)   [Ar Ai] (B' doubled) */
    {{2, 2, {{0, 1}, {1, 0}}, {{1, -1}, {1, 1}}}, {1, 2, {{0, 1}, {0, 0}}, {{1, 1}, {0, 0}}}},
    /* B: [Br; Bi]                       [Br Bi; -Bi Br] */
    {{2, 1, {{0, 0}, {1, 0}}, {{1, 0}, {1, 0}}}, {2, 2, {{0, 1}, {1, 0}}, {{1, 1}, {-1, 1}}}},
    /* C: [Pr; Pi]                       [Pr Pi] */
    {{2, 1, {{0, 0}, {1, 0}}, {{1, 0}, {1, 0}}}, {1, 2, {{0, 1}, {0, 0}}, {{1, 1}, {0, 0}}}},
  };
  const typeof(layout[0][0]) *l = &layout[x][double_b];
  v->grid_r = trans ? l->gc : l->gr;
  v->grid_c = trans ? l->gr : l->gc;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) { /* stored quadrant (i, j) is op quadrant (j, i) when transposed */
      v->part[i][j] = trans ? l->part[j][i] : l->part[i][j];
      v->sign[i][j] = trans ? l->sign[j][i] : l->sign[i][j];
    }
}

bool hop_planes_make(const struct hop_call *g, bool double_b, struct hop_planes *p,
                     struct hop_call *real)
{
  if (g->beta.im != 0.0)
    return false;
  view_init(&p->a, g, 0, double_b);
  view_init(&p->b, g, 1, double_b);
  view_init(&p->c, g, 2, double_b);
  bool real_alpha = g->alpha.im == 0.0;
  if (!real_alpha)
    p->a.scale = g->alpha; /* alpha op(A): the real call's alpha is 1 */
  int64_t m2 = double_b ? g->m : 2 * g->m, n2 = double_b ? 2 * g->n : g->n, k2 = 2 * g->k;
  *real = (struct hop_call){
    .op = HOP_OP_GEMM, .dtype = g->dtype == HOP_DTYPE_Z ? HOP_DTYPE_D : HOP_DTYPE_S,
    .symbol = g->symbol, .row_major = g->row_major, .ta = hop_transposed(g->ta) ? HOP_TRANS_T : HOP_TRANS_N,
    .tb = hop_transposed(g->tb) ? HOP_TRANS_T : HOP_TRANS_N, .m = m2, .n = n2, .k = k2,
    .alpha = {real_alpha ? g->alpha.re : 1.0, 0.0}, .beta = {g->beta.re, 0.0},
    .lda = p->a.qrows * p->a.grid_r, .ldb = p->b.qrows * p->b.grid_r, .ldc = m2, .planes = p};
  return true;
}

static inline double load(const struct hop_plane_view *v, size_t at, int part)
{
  return v->dbl ? ((const double *)v->src)[2 * at + (size_t)part]
                : ((const float *)v->src)[2 * at + (size_t)part];
}

static inline void store(bool dbl, void *out, size_t at, double val)
{
  if (dbl)
    ((double *)out)[at] = val;
  else
    ((float *)out)[at] = (float)val;
}

/* A signed part of n consecutive elements, copied: the common case, kept
 * to a plain strided loop in each type so that it streams. */
static inline __attribute__((always_inline)) void copy_part(bool dbl, const void *src, size_t at,
                                                            int part, double s, void *out,
                                                            int64_t n)
{
  if (dbl) {
    const double *x = (const double *)src + 2 * at + part;
    double *o = out;
    for (int64_t i = 0; i < n; i++)
      o[i] = s * x[2 * i];
  } else {
    const float *x = (const float *)src + 2 * at + part;
    float *o = out, sf = (float)s;
    for (int64_t i = 0; i < n; i++)
      o[i] = sf * x[2 * i];
  }
}

/* Rows [r0, r0 + n) of stored column j, all in quadrant row qi, into out. */
static void read_run(const struct hop_plane_view *v, int qi, int64_t r0, int64_t j, int64_t n,
                     void *out)
{
  int qj = (int)(j / v->qcols);
  int part = v->part[qi][qj];
  double sign = v->sign[qi][qj];
  size_t at = hop_at(r0 - qi * v->qrows, j - qj * v->qcols, v->ld);
  double sr = v->scale.re, si = v->scale.im, cj = v->conj ? -1.0 : 1.0;
  if (si == 0.0 && sr == 1.0) {
    double s = part == 1 ? sign * cj : sign;
    if (v->dbl)
      copy_part(true, v->src, at, part, s, out, n);
    else
      copy_part(false, v->src, at, part, s, out, n);
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    double xr = load(v, at + (size_t)i, 0), xi = cj * load(v, at + (size_t)i, 1);
    store(v->dbl, out, (size_t)i, sign * (part == 0 ? sr * xr - si * xi : sr * xi + si * xr));
  }
}

void hop_plane_view_read(const struct hop_plane_view *v, int64_t row0, int64_t col0, int64_t rows,
                         int64_t cols, void *dst)
{
  size_t e = v->dbl ? 8 : 4;
  for (int64_t j = 0; j < cols; j++) {
    unsigned char *out = (unsigned char *)dst + (size_t)j * (size_t)rows * e;
    for (int64_t i = 0; i < rows;) {
      int qi = (int)((row0 + i) / v->qrows);
      int64_t end = (qi + 1) * v->qrows - row0, n = (end < rows ? end : rows) - i;
      read_run(v, qi, row0 + i, col0 + j, n, out + (size_t)i * e);
      i += n;
    }
  }
}

void hop_plane_view_write(const struct hop_plane_view *v, const void *src, int64_t row0,
                          int64_t col0, int64_t rows, int64_t cols)
{
  size_t e = v->dbl ? 8 : 4;
  for (int64_t j = 0; j < cols; j++) {
    int64_t c = col0 + j;
    int qj = (int)(c / v->qcols);
    const unsigned char *in = (const unsigned char *)src + (size_t)j * (size_t)rows * e;
    for (int64_t i = 0; i < rows;) {
      int qi = (int)((row0 + i) / v->qrows);
      int64_t end = (qi + 1) * v->qrows - row0, n = (end < rows ? end : rows) - i;
      size_t at = 2 * hop_at(row0 + i - qi * v->qrows, c - qj * v->qcols, v->ld) +
                  (size_t)v->part[qi][qj];
      if (v->dbl) {
        const double *x = (const double *)in + i;
        double *o = (double *)v->src + at;
        for (int64_t l = 0; l < n; l++)
          o[2 * l] = x[l];
      } else {
        const float *x = (const float *)in + i;
        float *o = (float *)v->src + at;
        for (int64_t l = 0; l < n; l++)
          o[2 * l] = x[l];
      }
      i += n;
    }
  }
}

/* The rows x cols tile of C' at (i0, j0) of a view call, on the CPU, in
 * panels: the rows of A' and the columns of B' each panel needs, written
 * out, and their real GEMM.  For an engine that must finish a call it could
 * not complete; false (C' left as it is from there on) only when a panel's
 * blocks, a few MiB, cannot be allocated. */
bool hop_planes_fallback(const struct hop_call *real, int64_t i0, int64_t j0, int64_t rows,
                         int64_t cols)
{
  enum { PANEL = 256 };
  const struct hop_planes *p = real->planes;
  size_t e = p->a.dbl ? 8 : 4;
  int64_t k = real->k;
  bool ta = hop_transposed(real->ta), tb = hop_transposed(real->tb);
  void *a = malloc((size_t)PANEL * (size_t)k * e), *b = malloc((size_t)k * PANEL * e);
  void *c = malloc((size_t)PANEL * PANEL * e);
  bool ok = a != NULL && b != NULL && c != NULL;
  for (int64_t i = 0; ok && i < rows; i += PANEL) {
    int64_t m = rows - i < PANEL ? rows - i : PANEL;
    int64_t ar = ta ? k : m, ac = ta ? m : k;
    hop_plane_view_read(&p->a, ta ? 0 : i0 + i, ta ? i0 + i : 0, ar, ac, a);
    for (int64_t j = 0; j < cols; j += PANEL) {
      int64_t n = cols - j < PANEL ? cols - j : PANEL;
      int64_t br = tb ? n : k, bc = tb ? k : n;
      hop_plane_view_read(&p->b, tb ? j0 + j : 0, tb ? 0 : j0 + j, br, bc, b);
      if (real->beta.re != 0.0)
        hop_plane_view_read(&p->c, i0 + i, j0 + j, m, n, c);
      struct hop_call sub = {.op = HOP_OP_GEMM, .dtype = real->dtype, .symbol = real->symbol,
                             .ta = real->ta, .tb = real->tb, .m = m, .n = n, .k = k,
                             .alpha = real->alpha, .beta = real->beta, .a = a, .lda = ar,
                             .b = b, .ldb = br, .c = c, .ldc = m};
      hop_fallback_run(&sub);
      hop_plane_view_write(&p->c, c, i0 + i, j0 + j, m, n);
    }
  }
  free(a), free(b), free(c);
  return ok;
}
