/* cblas_?syr2k and cblas_?her2k: C = alpha A B^T + alpha B A^T + beta C
 * (her2k: alpha A B^H + conj(alpha) B A^H, real beta), only C's upper or
 * lower triangle read and written. */
#include "check_l3.h"

static void syr2k(enum hop_op op, enum hop_dtype dt, const char *symbol, int order, int uplo,
                  int trans, hop_blas_int n, hop_blas_int k, struct hop_scalar alpha,
                  const void *a, hop_blas_int lda, const void *b, hop_blas_int ldb,
                  struct hop_scalar beta, void *c, hop_blas_int ldc)
{
  struct hop_l3_args x = {.op = op, .dtype = dt, .n = n, .k = k, .alpha = alpha, .beta = beta,
                          .a = a, .lda = lda, .b = b, .ldb = ldb, .c = c, .ldc = ldc};
  struct hop_trace_call t = {symbol, dt, n, n, k, hop_trace_cblas_trans(trans), '-', '\0',
                             hop_trace_cblas_uplo(uplo), '\0'};
  hop_cblas_l3_run(HOP_XERBLA, &x, order, 0, uplo, trans, 0, symbol, &t);
}

#define SYR2K(name, op, dt, alpha_t, beta_t, elem, ALPHA, BETA)                                  \
  HOP_EXPORT void HOP_CBLAS_NAME(name)(int order, int uplo, int trans, hop_blas_int n,            \
                                       hop_blas_int k, alpha_t alpha, const elem *a,              \
                                       hop_blas_int lda, const elem *b, hop_blas_int ldb,         \
                                       beta_t beta, elem *c, hop_blas_int ldc)                    \
  {                                                                                              \
    syr2k(op, dt, HOP_XSTR(HOP_CBLAS_NAME(name)), order, uplo, trans, n, k, ALPHA(dt, alpha), a, \
          lda, b, ldb, BETA(dt, beta), c, ldc);                                                  \
  }                                                                                            \
  HOP_CBLAS_ALIASES(name);

SYR2K(ssyr2k, HOP_OP_SYR2K, HOP_DTYPE_S, float, float, float, HOP_BY_VALUE, HOP_BY_VALUE)
SYR2K(dsyr2k, HOP_OP_SYR2K, HOP_DTYPE_D, double, double, double, HOP_BY_VALUE, HOP_BY_VALUE)
SYR2K(csyr2k, HOP_OP_SYR2K, HOP_DTYPE_C, const void *, const void *, void, HOP_BY_POINTER, HOP_BY_POINTER)
SYR2K(zsyr2k, HOP_OP_SYR2K, HOP_DTYPE_Z, const void *, const void *, void, HOP_BY_POINTER, HOP_BY_POINTER)
SYR2K(cher2k, HOP_OP_HER2K, HOP_DTYPE_C, const void *, float, void, HOP_BY_POINTER, HOP_BY_VALUE)
SYR2K(zher2k, HOP_OP_HER2K, HOP_DTYPE_Z, const void *, double, void, HOP_BY_POINTER, HOP_BY_VALUE)
