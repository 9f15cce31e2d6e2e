/* Engines whose hardware flushes subnormal floats to zero (the VideoCore
 * QPUs; OpenCL devices without CL_FP_DENORM) still keep the contract:
 *
 * - The router declines such an engine for calls whose float inputs hold a
 *   subnormal (A and B of sgemm, C when beta != 0, alpha, beta): a flushed
 *   input can move a result by any amount (1e-40 times 1e30).
 * - With normal inputs, a flush changes a result only by what the flushed
 *   products, partial sums, alpha*sum, beta*C and final sum held: each
 *   less than FLT_MIN.  That matters only for results close to the
 *   subnormal range, so the engine recomputes the results below
 *   hop_subnormal_limit() in double (hop_subnormal_redo) before it writes
 *   them: C is still written once, and C's old value is still there.
 *
 * Half A and B (hgemm, shgemm) are never float subnormals, nor are their
 * products (at least 2^-48); hgemm's alpha, beta and C are halves too, so
 * every float it computes is 0 or at least 2^-95: it needs neither. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "hop.h"

static bool is_subnormal(uint32_t bits)
{
  return (bits & 0x7fffffffu) - 1u < 0x007fffffu; /* exponent 0, mantissa not 0 */
}

static bool float_subnormal(double x)
{
  float f = (float)x; /* exact: the scalars of float dtypes are floats */
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return is_subnormal(bits);
}

static bool scalar_subnormal(struct hop_scalar s) { return float_subnormal(s.re) || float_subnormal(s.im); }

/* Any subnormal in the rows x cols float matrix x (column-major, ld)? */
static bool matrix_subnormal(const void *x, int64_t rows, int64_t cols, int64_t ld)
{
  const uint32_t *p = x;
  for (int64_t j = 0; j < cols; j++) {
    const uint32_t *col = p + hop_at(0, j, ld);
    uint32_t any = 0;
    for (int64_t i = 0; i < rows; i++) /* no early exit inside a column: it vectorises */
      any |= is_subnormal(col[i]);
    if (any)
      return true;
  }
  return false;
}

/* Which of the call's matrices hold floats a device may flush, as parts
 * per element (2 for complex float, 0 for halves and doubles: half
 * subnormals are normal floats, and OpenCL requires double subnormals). */
static void float_parts(enum hop_dtype dt, int *ab, int *c)
{
  switch (dt) {
  case HOP_DTYPE_S: *ab = 1, *c = 1; return;
  case HOP_DTYPE_C: *ab = 2, *c = 2; return;
  case HOP_DTYPE_SH: *ab = 0, *c = 1; return;
  case HOP_DTYPE_H:
  case HOP_DTYPE_D:
  case HOP_DTYPE_Z:
  case HOP_DTYPE_COUNT: *ab = 0, *c = 0; return;
  }
}

bool hop_subnormal_inputs(const struct hop_call *g)
{
  int ab = 0, c = 0;
  float_parts(g->dtype, &ab, &c);
  if (ab + c == 0)
    return false;
  if (g->op == HOP_OP_GEMM_BATCH) { /* any problem's */
    for (size_t i = 0; i < g->batch->groups; i++)
      for (int64_t p = 0; p < g->batch->group[i].count; p++) {
        struct hop_call m = hop_batch_member(g, &g->batch->group[i], p);
        if (hop_subnormal_inputs(&m))
          return true;
      }
    return false;
  }
  if (scalar_subnormal(g->alpha) || scalar_subnormal(g->beta))
    return true;
  bool ta = hop_transposed(g->ta), tb = hop_transposed(g->tb); /* 'R' is not transposed */
  if (ab > 0 && (matrix_subnormal(g->a, ab * (ta ? g->k : g->m), ta ? g->m : g->k, ab * g->lda) ||
                 matrix_subnormal(g->b, ab * (tb ? g->n : g->k), tb ? g->k : g->n, ab * g->ldb)))
    return true;
  return c > 0 && !hop_scalar_is_zero(g->beta) && matrix_subnormal(g->c, c * g->m, g->n, c * g->ldc);
}

/* A flush moves a result by less than
 *   E = FLT_MIN (2 k (|alpha| + 1) + 4)
 * (k products and k partial sums, scaled by alpha; a device that sums k
 * in chunks adds at most 2 per chunk after alpha; alpha*sum, beta*C and
 * their sum).  A result v with |v| >= E (1 + 16 / (k eps)) is then off by
 * less than k eps |v| / 16 <= k eps S / 8, where S = |alpha| (|A||B|)_ij +
 * |beta C_ij| >= |v| / 2: an eighth of the contract's bound at c = 1. */
float hop_subnormal_limit(const struct hop_call *g)
{
  switch (g->dtype) {
  case HOP_DTYPE_S:
  case HOP_DTYPE_SH: break;
  case HOP_DTYPE_H:  /* half C: far above float's subnormals */
  case HOP_DTYPE_D:  /* doubles are not flushed */
  case HOP_DTYPE_Z:
  case HOP_DTYPE_C:  /* not yet taken by a flushing engine: its bound needs the complex terms */
  case HOP_DTYPE_COUNT: return 0.0f;
  }
  double k = g->k;
  double e = FLT_MIN * (2.0 * k * (fabs(g->alpha.re) + 1.0) + 4.0);
  double limit = e * (1.0 + 16.0 / (k * FLT_EPSILON));
  return limit < FLT_MAX ? (float)limit : FLT_MAX;
}

/* Only for the dtypes hop_subnormal_limit() gives a limit above 0 (real,
 * float C).  Products of floats are exact in double and double has no subnormal
 * trouble here: the result is C's element correctly rounded, or nearly. */
float hop_subnormal_redo(const struct hop_call *g, int64_t i, int64_t j)
{
  double s = 0.0;
  for (int64_t l = 0; l < g->k; l++) {
    double a = hop_dtype_load(g->dtype, false, g->a, g->ta ? hop_at(l, i, g->lda) : hop_at(i, l, g->lda)).re;
    double b = hop_dtype_load(g->dtype, false, g->b, g->tb ? hop_at(j, l, g->ldb) : hop_at(l, j, g->ldb)).re;
    s += a * b;
  }
  double v = g->alpha.re * s;
  if (!hop_scalar_is_zero(g->beta))
    v += g->beta.re * hop_dtype_load(g->dtype, true, g->c, hop_at(i, j, g->ldc)).re;
  return (float)v;
}
