/* Built-in reference sgemm, for when no OpenBLAS can be loaded: correct
 * and cache-blocked, not fast.  op(A) blocks are packed column-major so
 * the inner loop is a unit-stride axpy for every transpose. */
#include <stdlib.h>

#include "cpu.h"

enum { MB = 128, KB = 128 };

static float elem(const float *x, bool trans, int64_t i, int64_t l, int64_t ld)
{
  return trans ? x[hop_at(l, i, ld)] : x[hop_at(i, l, ld)];
}

/* Used when even the small pack buffer cannot be allocated. */
static void ref_sgemm_unpacked(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                               const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
                               int64_t ldc)
{
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      float s = 0.0f;
      for (int64_t l = 0; l < k; l++)
        s += elem(a, ta, i, l, lda) * elem(b, tb, l, j, ldb);
      c[hop_at(i, j, ldc)] += alpha * s;
    }
}

void hop_ref_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                   int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc)
{
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      float *cij = &c[hop_at(i, j, ldc)];
      *cij = beta == 0.0f ? 0.0f : beta * *cij; /* beta == 0: C is write-only */
    }
  if (alpha == 0.0f || k == 0)
    return;
  float *pack = malloc(sizeof(float) * (MB * KB + MB));
  if (pack == NULL) {
    ref_sgemm_unpacked(ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc);
    return;
  }
  for (int64_t l0 = 0; l0 < k; l0 += KB) {
    int kb = k - l0 < KB ? (int)(k - l0) : KB;
    for (int64_t i0 = 0; i0 < m; i0 += MB) {
      int mb = m - i0 < MB ? (int)(m - i0) : MB;
      for (int l = 0; l < kb; l++)
        for (int i = 0; i < mb; i++)
          pack[i + l * MB] = elem(a, ta, i0 + i, l0 + l, lda);
      /* alpha scales the block's sums, not B: alpha * b may underflow
       * into the subnormals (alpha = 2^-140) where the sum would not. */
      float *sum = pack + MB * KB;
      for (int64_t j = 0; j < n; j++) {
        for (int i = 0; i < mb; i++)
          sum[i] = 0.0f;
        for (int l = 0; l < kb; l++) {
          float s = elem(b, tb, l0 + l, j, ldb);
          const float *al = &pack[l * MB];
          for (int i = 0; i < mb; i++)
            sum[i] += s * al[i];
        }
        float *cj = &c[hop_at(i0, j, ldc)];
        for (int i = 0; i < mb; i++)
          cj[i] += alpha * sum[i];
      }
    }
  }
  free(pack);
}
