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

static bool scalar_subnormal(float f)
{
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return is_subnormal(bits);
}

/* Any subnormal in the rows x cols float matrix x (column-major, ld)? */
static bool matrix_subnormal(const void *x, int rows, int cols, int ld)
{
  const uint32_t *p = x;
  for (int j = 0; j < cols; j++) {
    const uint32_t *col = p + hop_at(0, j, ld);
    uint32_t any = 0;
    for (int i = 0; i < rows; i++) /* no early exit inside a column: it vectorises */
      any |= is_subnormal(col[i]);
    if (any)
      return true;
  }
  return false;
}

bool hop_subnormal_inputs(const struct hop_call *g)
{
  if (scalar_subnormal(g->alpha) || scalar_subnormal(g->beta))
    return true;
  if (g->dtype == HOP_DTYPE_S &&
      (matrix_subnormal(g->a, g->ta ? g->k : g->m, g->ta ? g->m : g->k, g->lda) ||
       matrix_subnormal(g->b, g->tb ? g->n : g->k, g->tb ? g->k : g->n, g->ldb)))
    return true;
  return g->dtype != HOP_DTYPE_H && g->beta != 0.0f && matrix_subnormal(g->c, g->m, g->n, g->ldc);
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
  if (g->dtype == HOP_DTYPE_H)
    return 0.0f;
  double k = g->k;
  double e = FLT_MIN * (2.0 * k * (fabs((double)g->alpha) + 1.0) + 4.0);
  double limit = e * (1.0 + 16.0 / (k * FLT_EPSILON));
  return limit < FLT_MAX ? (float)limit : FLT_MAX;
}

static double load_ab(enum hop_dtype dt, const void *x, size_t at)
{
  if (dt == HOP_DTYPE_S)
    return ((const float *)x)[at];
  return hop_half_to_float(((const uint16_t *)x)[at]);
}

/* Products of floats are exact in double and double has no subnormal
 * trouble here: the result is C's element correctly rounded, or nearly. */
float hop_subnormal_redo(const struct hop_call *g, int i, int j)
{
  double s = 0.0;
  for (int l = 0; l < g->k; l++) {
    double a = load_ab(g->dtype, g->a, g->ta ? hop_at(l, i, g->lda) : hop_at(i, l, g->lda));
    double b = load_ab(g->dtype, g->b, g->tb ? hop_at(j, l, g->ldb) : hop_at(l, j, g->ldb));
    s += a * b;
  }
  double v = (double)g->alpha * s;
  if (g->beta != 0.0f) {
    size_t at = hop_at(i, j, g->ldc);
    double c0 = g->dtype == HOP_DTYPE_H ? hop_half_to_float(((const uint16_t *)g->c)[at])
                                        : ((const float *)g->c)[at];
    v += (double)g->beta * c0;
  }
  return (float)v;
}
