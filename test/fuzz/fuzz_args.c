/* libFuzzer target: GEMM argument validation.  Arbitrary orders,
 * transposes, sizes and leading dimensions reach cblas_sgemm, sgemm_,
 * cblas_hgemm and hgemm_ with operands allocated at exactly the size the
 * arguments need (none when they are invalid), so AddressSanitizer sees any
 * read or write the validation should have prevented.  Invalid calls must
 * report through xerbla_ and leave C untouched. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hopblas.h"

void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                 float *, int);
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

static int xerbla_calls;
void xerbla_(const char *name, const int *info, size_t len) { xerbla_calls++; }

struct reader {
  const uint8_t *p;
  size_t n;
};

static int take(struct reader *r, int lo, int hi) /* a value in [lo, hi] */
{
  unsigned v = 0;
  for (int i = 0; i < 2 && r->n > 0; i++, r->p++, r->n--)
    v = v << 8 | *r->p;
  return lo + (int)(v % (unsigned)(hi - lo + 1));
}

/* Elements an operand needs: count runs of len contiguous elements, ld apart. */
static size_t need(int len, int count, int ld)
{
  if (len <= 0 || count <= 0)
    return 1;
  return ld < len ? 0 : (size_t)ld * (size_t)(count - 1) + (size_t)len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct reader r = {data, size};
  static const int orders[] = {101, 102, 0, 103};
  static const int trans[] = {111, 112, 113, 114, 0};
  static const char ftrans[] = "NTCRnx";
  int order = orders[take(&r, 0, 3)], ta = trans[take(&r, 0, 4)], tb = trans[take(&r, 0, 4)];
  char fa = ftrans[take(&r, 0, 5)], fb = ftrans[take(&r, 0, 5)];
  int m = take(&r, -2, 24), n = take(&r, -2, 24), k = take(&r, -2, 24);
  int lda = take(&r, -1, 30), ldb = take(&r, -1, 30), ldc = take(&r, -1, 30);
  int entry = take(&r, 0, 3);
  bool row = order == 101, tra = ta == 112 || ta == 113, trb = tb == 112 || tb == 113;
  if (entry >= 2) /* the Fortran entries: column-major, character transposes */
    row = false, tra = fa == 'T' || fa == 'C', trb = fb == 'T' || fb == 'C';
  /* Storage of each operand: a run of `len` contiguous elements (the ld
   * dimension) repeated `count` times.  Column-major op(A) = m x k stores
   * A as (tra ? k : m) x (tra ? m : k); row-major swaps the two roles. */
  int a_len = tra ? k : m, a_cnt = tra ? m : k, b_len = trb ? n : k, b_cnt = trb ? k : n;
  int c_len = m, c_cnt = n;
  if (row) {
    int t = a_len; a_len = a_cnt; a_cnt = t;
    t = b_len; b_len = b_cnt; b_cnt = t;
    t = c_len; c_len = c_cnt; c_cnt = t;
  }
  size_t na = need(a_len, a_cnt, lda), nb = need(b_len, b_cnt, ldb), nc = need(c_len, c_cnt, ldc);
  size_t es = entry == 1 || entry == 3 ? 2 : 4;
  /* Invalid arguments: tiny operands, so any access past validation is caught. */
  na = na ? na : 1, nb = nb ? nb : 1, nc = nc ? nc : 1;
  void *a = calloc(na, es), *b = calloc(nb, es), *c = malloc(nc * es), *c0 = malloc(nc * es);
  memset(c, 0x3c, nc * es);
  memcpy(c0, c, nc * es);
  int before = xerbla_calls;
  switch (entry) {
  case 0: cblas_sgemm(order, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.5f, c, ldc); break;
  case 1: cblas_hgemm(order, ta, tb, m, n, k, 0x3c00, a, lda, b, ldb, 0x3800, c, ldc); break;
  case 2: {
    float one = 1.0f, half = 0.5f;
    sgemm_(&fa, &fb, &m, &n, &k, &one, a, &lda, b, &ldb, &half, c, &ldc, 1, 1);
    break;
  }
  default: {
    hopblas_half one = 0x3c00, half = 0x3800;
    hgemm_(&fa, &fb, &m, &n, &k, &one, a, &lda, b, &ldb, &half, c, &ldc);
  }
  }
  if (xerbla_calls != before && memcmp(c, c0, nc * es) != 0)
    abort(); /* an argument error must leave C untouched */
  free(a), free(b), free(c), free(c0);
  return 0;
}
