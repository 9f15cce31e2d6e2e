/* cblas_?symm and cblas_?hemm: C = alpha A B + beta C (left) or
 * alpha B A + beta C (right), A symmetric or Hermitian, one triangle read. */
#include "check_l3.h"

static void symm(enum hop_op op, enum hop_dtype dt, const char *symbol, int order, int side,
                 int uplo, hop_blas_int m, hop_blas_int n, struct hop_scalar alpha, const void *a,
                 hop_blas_int lda, const void *b, hop_blas_int ldb, struct hop_scalar beta,
                 void *c, hop_blas_int ldc)
{
  struct hop_l3_args x = {.op = op, .dtype = dt, .m = m, .n = n, .alpha = alpha, .beta = beta,
                          .a = a, .lda = lda, .b = b, .ldb = ldb, .c = c, .ldc = ldc};
  struct hop_trace_call t = {symbol, dt, m, n, side == 142 ? n : m, '-', '-',
                             hop_trace_cblas_side(side), hop_trace_cblas_uplo(uplo), '\0'};
  hop_cblas_l3_run(HOP_XERBLA, &x, order, side, uplo, 0, 0, symbol, &t);
}

/* Real scalars by value, complex ones by pointer. */
#define REAL_SYMM(name, dt, real)                                                                \
  HOP_EXPORT void HOP_CBLAS_NAME(name)(int order, int side, int uplo, hop_blas_int m,             \
                                       hop_blas_int n, real alpha, const real *a,                 \
                                       hop_blas_int lda, const real *b, hop_blas_int ldb,         \
                                       real beta, real *c, hop_blas_int ldc)                      \
  {                                                                                              \
    symm(HOP_OP_SYMM, dt, HOP_XSTR(HOP_CBLAS_NAME(name)), order, side, uplo, m, n,               \
         HOP_BY_VALUE(dt, alpha), a, lda, b, ldb, HOP_BY_VALUE(dt, beta), c,     \
         ldc);                                                                                   \
  }                                                                                            \
  HOP_CBLAS_ALIASES(name);
#define COMPLEX_SYMM(name, op, dt)                                                               \
  HOP_EXPORT void HOP_CBLAS_NAME(name)(int order, int side, int uplo, hop_blas_int m,             \
                                       hop_blas_int n, const void *alpha, const void *a,          \
                                       hop_blas_int lda, const void *b, hop_blas_int ldb,         \
                                       const void *beta, void *c, hop_blas_int ldc)               \
  {                                                                                              \
    symm(op, dt, HOP_XSTR(HOP_CBLAS_NAME(name)), order, side, uplo, m, n,                         \
         HOP_BY_POINTER(dt, alpha), a, lda, b, ldb, HOP_BY_POINTER(dt, beta),  \
         c, ldc);                                                                                \
  }                                                                                            \
  HOP_CBLAS_ALIASES(name);

REAL_SYMM(ssymm, HOP_DTYPE_S, float)
REAL_SYMM(dsymm, HOP_DTYPE_D, double)
COMPLEX_SYMM(csymm, HOP_OP_SYMM, HOP_DTYPE_C)
COMPLEX_SYMM(zsymm, HOP_OP_SYMM, HOP_DTYPE_Z)
COMPLEX_SYMM(chemm, HOP_OP_HEMM, HOP_DTYPE_C)
COMPLEX_SYMM(zhemm, HOP_OP_HEMM, HOP_DTYPE_Z)
