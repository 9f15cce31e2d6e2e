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
 * when op(X) is): at most 2 x 2 quadrants, each the caller's stored complex
 * matrix as a signed part (re or im) of s x or s conj(x), with s a complex
 * scale (alpha folded into A; 1 elsewhere).  Unlike complex_real.c's
 * planes, whose quadrants are blocks, a view's doubled axes interleave
 * them: row (column) 2i + q of the plane is row (column) i of quadrant q.
 * The real GEMM does not mind the order of its k, rows or columns, and
 * interleaved, a column of B' (or of [Ar -Ai; Ai Ar]) reads one column of
 * the caller's matrix in order, and a column of C' pairs with its
 * neighbour (or is itself) a column of C: each cache line of C is written
 * once, whole.
 * C' input is the plain parts of C and the real call's beta is the complex
 * beta's real part: each part of C then depends on the same part only, so
 * a tile of C' written into C never changes what another tile reads.  A
 * beta with an imaginary part has no such views (complex_real.c then
 * writes the planes). */
#include <stdlib.h>
#include <string.h>

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
    .op = HOP_OP_GEMM, .dtype = hop_dtype_real(g->dtype),
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

/* Plane element (r, c): its quadrant and the caller's element it reads. */
static inline int quad(int grid, int64_t x, int64_t *inner)
{
  *inner = grid == 2 ? x >> 1 : x;
  return grid == 2 ? (int)(x & 1) : 0;
}

/* One element of the plane, the general way (scale, conjugation, any quadrant). */
static double element(const struct hop_plane_view *v, int64_t r, int64_t c)
{
  int64_t ii, jj;
  int qi = quad(v->grid_r, r, &ii), qj = quad(v->grid_c, c, &jj);
  size_t at = hop_at(ii, jj, v->ld);
  double xr = load(v, at, 0), xi = (v->conj ? -1.0 : 1.0) * load(v, at, 1);
  double sr = v->scale.re, si = v->scale.im;
  return v->sign[qi][qj] * (v->part[qi][qj] == 0 ? sr * xr - si * xi : sr * xi + si * xr);
}

/* Elements [i0, i1) of the caller's column jj, quadrant column qj, into a
 * plane column of doubled rows (both quadrant rows, each element two
 * consecutive outputs) or of single rows (quadrant row 0). */
#define COPY_COLUMN(T)                                                                             \
  static void copy_column_##T(const struct hop_plane_view *v, int64_t i0, int64_t i1, int64_t jj,  \
                              int qj, T *out)                                                      \
  {                                                                                                \
    const T *x = (const T *)v->src + 2 * hop_at(i0, jj, v->ld);                                    \
    int p0 = v->part[0][qj], p1 = v->part[1][qj];                                                  \
    T s0 = (T)hop_plane_view_sign(v, 0, qj), s1 = (T)hop_plane_view_sign(v, 1, qj);                                  \
    if (v->grid_r == 2)                                                                            \
      for (int64_t i = 0; i < i1 - i0; i++) {                                                      \
        out[2 * i] = s0 * x[2 * i + p0];                                                           \
        out[2 * i + 1] = s1 * x[2 * i + p1];                                                       \
      }                                                                                            \
    else                                                                                           \
      for (int64_t i = 0; i < i1 - i0; i++)                                                        \
        out[i] = s0 * x[2 * i + p0];                                                               \
  }
COPY_COLUMN(float)
COPY_COLUMN(double)

void hop_plane_view_read(const struct hop_plane_view *v, int64_t row0, int64_t col0, int64_t rows,
                         int64_t cols, void *dst)
{
  size_t e = v->dbl ? 8 : 4;
  bool plain = v->scale.re == 1.0 && v->scale.im == 0.0;
  for (int64_t j = 0; j < cols; j++) {
    unsigned char *out = (unsigned char *)dst + (size_t)j * (size_t)rows * e;
    int64_t r = row0, end = row0 + rows;
    if (plain && v->grid_r == 2 && (r & 1)) { /* a leading odd row: alone */
      store(v->dbl, out, 0, element(v, r, col0 + j));
      r++;
    }
    int64_t whole = plain ? (v->grid_r == 2 ? (end - r) & ~(int64_t)1 : end - r) : 0;
    if (whole > 0) {
      int64_t jj, i0 = v->grid_r == 2 ? r >> 1 : r, n = v->grid_r == 2 ? whole / 2 : whole;
      int qj = quad(v->grid_c, col0 + j, &jj);
      void *o = out + (size_t)(r - row0) * e;
      if (v->dbl)
        copy_column_double(v, i0, i0 + n, jj, qj, o);
      else
        copy_column_float(v, i0, i0 + n, jj, qj, o);
      r += whole;
    }
    for (; r < end; r++)
      store(v->dbl, out, (size_t)(r - row0), element(v, r, col0 + j));
  }
}

/* A column of C' (and with `pair` the next one, C's other part) into a
 * column of C's parts, c pointing at the part the first one holds. */
#define WRITE_PARTS(T)                                                                             \
  static void write_parts_##T(T *c, const T *re, int64_t rows, bool pair)                         \
  {                                                                                                \
    const T *im = re + rows;                                                                       \
    for (int64_t i = 0; i < rows; i++)                                                             \
      if (pair)                                                                                    \
        c[2 * i] = re[i], c[2 * i + 1] = im[i];                                                    \
      else                                                                                         \
        c[2 * i] = re[i];                                                                          \
  }
WRITE_PARTS(float)
WRITE_PARTS(double)

void hop_plane_view_write(const struct hop_plane_view *v, const void *src, int64_t row0,
                          int64_t col0, int64_t rows, int64_t cols)
{
  size_t e = v->dbl ? 8 : 4;
  for (int64_t j = 0; j < cols; j++) {
    int64_t jj;
    int qj = quad(v->grid_c, col0 + j, &jj);
    const unsigned char *in = (const unsigned char *)src + (size_t)j * (size_t)rows * e;
    if (v->grid_r == 2) { /* rows interleaved: C' column is C's column, parts in place */
      unsigned char *o = (unsigned char *)v->src + (2 * hop_at(0, jj, v->ld) + (size_t)row0) * e;
      memcpy(o, in, (size_t)rows * e);
      continue;
    }
    bool pair = v->grid_c == 2 && qj == 0 && j + 1 < cols; /* both parts of C's column jj */
    unsigned char *o = (unsigned char *)v->src + 2 * hop_at(row0, jj, v->ld) * e;
    if (v->dbl)
      write_parts_double((double *)o + qj, (const double *)in, rows, pair);
    else
      write_parts_float((float *)o + qj, (const float *)in, rows, pair);
    j += pair;
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
