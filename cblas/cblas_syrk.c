/* cblas_?syrk and cblas_?herk: C = alpha A A^T + beta C (A^T A with Trans;
 * herk: A^H, real alpha and beta), only C's upper or lower triangle
 * read and written. */
#include "check_l3.h"

static void syrk(enum hop_op op, enum hop_dtype dt, const char *symbol, int order, int uplo,
                 int trans, hop_blas_int n, hop_blas_int k, struct hop_scalar alpha, const void *a,
                 hop_blas_int lda, struct hop_scalar beta, void *c, hop_blas_int ldc)
{
  struct hop_l3_args x = {.op = op, .dtype = dt, .n = n, .k = k, .alpha = alpha, .beta = beta,
                          .a = a, .lda = lda, .c = c, .ldc = ldc};
  struct hop_trace_call t = {symbol, dt, n, n, k, hop_trace_cblas_trans(trans), '-', '\0',
                             hop_trace_cblas_uplo(uplo), '\0'};
  hop_cblas_l3_run(HOP_XERBLA, &x, order, 0, uplo, trans, 0, symbol, &t);
}

/* alpha and beta by value where they are real (?syrk of s, d; ?herk), else by pointer. */
#define SYRK(name, op, dt, scalar, elem, SCALAR)                                                 \
  HOP_EXPORT void HOP_CBLAS_NAME(name)(int order, int uplo, int trans, hop_blas_int n,            \
                                       hop_blas_int k, scalar alpha, const elem *a,               \
                                       hop_blas_int lda, scalar beta, elem *c, hop_blas_int ldc)  \
  {                                                                                              \
    syrk(op, dt, HOP_XSTR(HOP_CBLAS_NAME(name)), order, uplo, trans, n, k, SCALAR(dt, alpha), a, \
         lda, SCALAR(dt, beta), c, ldc);                                                         \
  }                                                                                            \
  HOP_CBLAS_ALIASES(name);

SYRK(ssyrk, HOP_OP_SYRK, HOP_DTYPE_S, float, float, HOP_BY_VALUE)
SYRK(dsyrk, HOP_OP_SYRK, HOP_DTYPE_D, double, double, HOP_BY_VALUE)
SYRK(csyrk, HOP_OP_SYRK, HOP_DTYPE_C, const void *, void, HOP_BY_POINTER)
SYRK(zsyrk, HOP_OP_SYRK, HOP_DTYPE_Z, const void *, void, HOP_BY_POINTER)
SYRK(cherk, HOP_OP_HERK, HOP_DTYPE_C, float, void, HOP_BY_VALUE)
SYRK(zherk, HOP_OP_HERK, HOP_DTYPE_Z, double, void, HOP_BY_VALUE)
