/* hgemm and shgemm on the CPU: blocks of op(A), op(B) (and C for hgemm)
 * are converted to float panels and multiplied by the float GEMM, so the
 * extra memory is three panels, never a copy of a whole operand.  Products
 * accumulate in fp32; hgemm rounds C to half once, at the end of a block. */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

enum { PANEL = 512 };

/* Convert the rows x cols block of op(X) at (r0, c0) into dst (ld = rows). */
static void panel_from_half(const uint16_t *x, int64_t ldx, bool trans, int64_t r0, int64_t c0,
                            int rows, int cols, float *dst)
{
  if (!trans) {
    for (int j = 0; j < cols; j++)
      hop_half_to_float_n(x + hop_at(r0, c0 + j, ldx), dst + (size_t)j * rows, (size_t)rows);
    return;
  }
  /* op(X) = X^T: row i of the block is a contiguous run of X's column r0 + i. */
  float run[PANEL];
  for (int i = 0; i < rows; i++) {
    hop_half_to_float_n(x + hop_at(c0, r0 + i, ldx), run, (size_t)cols);
    for (int j = 0; j < cols; j++)
      dst[i + (size_t)j * rows] = run[j];
  }
}

enum hop_status hop_cpu_half_gemm(const struct hop_cpu_state *st, const struct hop_call *g)
{
  const float alpha = (float)g->alpha.re, beta = (float)g->beta.re; /* h, sh: float scalars */
  float *ap = malloc(sizeof(float) * PANEL * PANEL);
  float *bp = malloc(sizeof(float) * PANEL * PANEL);
  float *cp = g->dtype == HOP_DTYPE_H ? malloc(sizeof(float) * PANEL * PANEL) : NULL;
  if (ap == NULL || bp == NULL || (g->dtype == HOP_DTYPE_H && cp == NULL)) {
    free(ap), free(bp), free(cp);
    return HOP_ERR_NOMEM;
  }
  for (int64_t j0 = 0; j0 < g->n; j0 += PANEL) {
    int nb = g->n - j0 < PANEL ? (int)(g->n - j0) : PANEL;
    for (int64_t i0 = 0; i0 < g->m; i0 += PANEL) {
      int mb = g->m - i0 < PANEL ? (int)(g->m - i0) : PANEL;
      float *cblk;
      int64_t ldcb;
      if (g->dtype == HOP_DTYPE_H) {
        cblk = cp, ldcb = mb;
        if (beta != 0.0f) /* beta == 0: C is write-only, not converted */
          for (int j = 0; j < nb; j++)
            hop_half_to_float_n((const uint16_t *)g->c + hop_at(i0, j0 + j, g->ldc),
                                cp + (size_t)j * mb, (size_t)mb);
      } else {
        cblk = (float *)g->c + hop_at(i0, j0, g->ldc), ldcb = g->ldc;
      }
      for (int64_t l0 = 0; l0 < g->k; l0 += PANEL) {
        int kb = g->k - l0 < PANEL ? (int)(g->k - l0) : PANEL;
        panel_from_half(g->a, g->lda, g->ta, i0, l0, mb, kb, ap);
        panel_from_half(g->b, g->ldb, g->tb, l0, j0, kb, nb, bp);
        hop_cpu_sgemm(st, false, false, mb, nb, kb, alpha, ap, mb, bp, kb,
                      l0 == 0 ? beta : 1.0f, cblk, ldcb);
      }
      if (g->dtype == HOP_DTYPE_H)
        for (int j = 0; j < nb; j++)
          hop_float_to_half_n(cp + (size_t)j * mb, (uint16_t *)g->c + hop_at(i0, j0 + j, g->ldc),
                              (size_t)mb);
    }
  }
  free(ap), free(bp), free(cp);
  return HOP_OK;
}

static float half_elem(const void *x, bool trans, int64_t i, int64_t l, int64_t ld)
{
  const uint16_t *h = x;
  return hop_half_to_float(trans ? h[hop_at(l, i, ld)] : h[hop_at(i, l, ld)]);
}

void hop_cpu_half_gemm_unbuffered(const struct hop_cpu_state *st, const struct hop_call *g)
{
  (void)st;
  const float alpha = (float)g->alpha.re, beta = (float)g->beta.re;
  for (int64_t j = 0; j < g->n; j++)
    for (int64_t i = 0; i < g->m; i++) {
      float s = 0.0f;
      for (int64_t l = 0; l < g->k; l++)
        s += half_elem(g->a, g->ta, i, l, g->lda) * half_elem(g->b, g->tb, l, j, g->ldb);
      size_t at = hop_at(i, j, g->ldc);
      if (g->dtype == HOP_DTYPE_H) {
        uint16_t *c = g->c;
        float c0 = beta == 0.0f ? 0.0f : beta * hop_half_to_float(c[at]);
        c[at] = hop_float_to_half(alpha * s + c0);
      } else {
        float *c = g->c;
        c[at] = alpha * s + (beta == 0.0f ? 0.0f : beta * c[at]);
      }
    }
}
