/* gemmt on the CPU as GEMMs of the loaded BLAS on blocks that cover the
 * owned triangle and nothing else (OpenBLAS has gemmt only from 0.3.22,
 * and netlib's BLAS before LAPACK 3.12 not at all).
 *
 * A diagonal block of order nb is halved: its two diagonal halves by
 * recursion and the rectangle beside them (above the lower-right half for
 * upper, left of it for lower) as one GEMM, where nearly all the work is.
 * A diagonal block of at most LEAF columns goes column by column, each
 * column's owned rows one GEMM of n = 1.  Every call writes owned elements
 * only, with the BLAS's own alpha and beta, so beta == 0 never reads C. */
#include "cpu.h"

enum { LEAF = 32 };

/* The GEMM of rows [r0, r0 + rows) and columns [c0, c0 + cols) of C. */
static void block(const struct hop_cpu_state *st, const struct hop_call *g, int64_t r0,
                  int64_t rows, int64_t c0, int64_t cols)
{
  if (rows <= 0 || cols <= 0)
    return;
  struct hop_call s = hop_call_block(g, r0, rows, c0, cols);
  hop_cpu_gemm_sliced(st, &s);
}

/* The owned part of the diagonal block C[d, d + nb) x [d, d + nb). */
static void diagonal(const struct hop_cpu_state *st, const struct hop_call *g, int64_t d,
                     int64_t nb)
{
  if (nb <= LEAF) {
    for (int64_t j = d; j < d + nb; j++)
      if (g->upper)
        block(st, g, d, j + 1 - d, j, 1);
      else
        block(st, g, j, d + nb - j, j, 1);
    return;
  }
  int64_t h = nb / 2;
  diagonal(st, g, d, h);
  if (g->upper)
    block(st, g, d, h, d + h, nb - h);
  else
    block(st, g, d + h, nb - h, d, h);
  diagonal(st, g, d + h, nb - h);
}

void hop_cpu_gemmt(const struct hop_cpu_state *st, const struct hop_call *g)
{
  diagonal(st, g, 0, g->n);
}
