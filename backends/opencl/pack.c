/* Host packing of an op(X) block into the image families' k-major layout
 * (kernels/gemm_image.cl): row y holds k index y, and along the row the
 * operand's output dimension (rows of C for A, columns of C for B), 4
 * elements to a texel.  Transposes, leading dimensions and view offsets are
 * absorbed here, and the padding up to whole micro-tiles and whole k steps
 * is written as zeros, so the kernels never test a bound.  Storage is
 * copied as it is (float, or half bits into CL_HALF_FLOAT texels). */
#include <string.h>

#include "family.h"

enum { BLOCK = 32 }; /* transposed copies go block by block, for the caches */

static void copy_element(unsigned char *dst, const unsigned char *src, size_t es)
{
  if (es == 4)
    memcpy(dst, src, 4);
  else
    memcpy(dst, src, 2);
}

/* dst: height rows of `width` elements, `pitch` bytes apart. */
void hop_ocl_pack_kmajor(const struct hop_call *g, const struct hop_ocl_block *b, size_t width,
                         size_t height, void *dst, size_t pitch)
{
  size_t es = hop_dtype_ab_size(g->dtype);
  bool is_a = b->x == 0;
  const unsigned char *src = is_a ? g->a : g->b;
  int ld = is_a ? g->lda : g->ldb;
  /* op(X) element (output index e, k index y) of the block. */
  int vec = is_a ? b->rows : b->cols, kext = is_a ? b->cols : b->rows;
  int v0 = is_a ? b->r0 : b->c0, k0 = is_a ? b->c0 : b->r0;
  /* A not transposed and B transposed store the output index contiguously. */
  bool contiguous = is_a ? !g->ta : g->tb;
  unsigned char *out = dst;
  for (size_t y = 0; y < height; y++) {
    unsigned char *row = out + y * pitch;
    size_t filled = y < (size_t)kext ? (size_t)vec : 0;
    if (filled > 0 && contiguous)
      memcpy(row, src + hop_at(v0, k0 + (int)y, ld) * es, filled * es);
    memset(row + filled * es, 0, (width - filled) * es);
  }
  if (contiguous)
    return;
  /* Element (e, y) sits at (k0 + y, v0 + e) of the stored matrix: a transpose. */
  for (int e0 = 0; e0 < vec; e0 += BLOCK)
    for (int y0 = 0; y0 < kext; y0 += BLOCK) {
      int e1 = e0 + BLOCK < vec ? e0 + BLOCK : vec, y1 = y0 + BLOCK < kext ? y0 + BLOCK : kext;
      for (int e = e0; e < e1; e++) {
        const unsigned char *col = src + hop_at(k0, v0 + e, ld) * es;
        for (int y = y0; y < y1; y++)
          copy_element(out + (size_t)y * pitch + (size_t)e * es, col + (size_t)y * es, es);
      }
    }
}
