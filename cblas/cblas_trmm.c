/* cblas_?trmm and cblas_?trsm: B = alpha op(A) B or alpha B op(A), and the
 * solve of op(A) X = alpha B or X op(A) = alpha B into B; A triangular, one
 * triangle read, a unit diagonal never read. */
#include "check_l3.h"

static void trmm(enum hop_op op, enum hop_dtype dt, const char *symbol, int order, int side,
                 int uplo, int trans, int diag, hop_blas_int m, hop_blas_int n,
                 struct hop_scalar alpha, const void *a, hop_blas_int lda, void *b,
                 hop_blas_int ldb)
{
  struct hop_l3_args x = {.op = op, .dtype = dt, .m = m, .n = n, .alpha = alpha, .a = a,
                          .lda = lda, .b = b, .ldb = ldb};
  struct hop_trace_call t = {symbol, dt, m, n, side == 142 ? n : m, hop_trace_cblas_trans(trans),
                             '-', hop_trace_cblas_side(side), hop_trace_cblas_uplo(uplo),
                             hop_trace_cblas_diag(diag)};
  hop_cblas_l3_run(HOP_XERBLA, &x, order, side, uplo, trans, diag, symbol, &t);
}

#define TRMM(name, op, dt, scalar, elem, ALPHA)                                                  \
  HOP_EXPORT void HOP_CBLAS_NAME(name)(int order, int side, int uplo, int trans, int diag,        \
                                       hop_blas_int m, hop_blas_int n, scalar alpha,              \
                                       const elem *a, hop_blas_int lda, elem *b,                  \
                                       hop_blas_int ldb)                                          \
  {                                                                                              \
    trmm(op, dt, HOP_XSTR(HOP_CBLAS_NAME(name)), order, side, uplo, trans, diag, m, n,           \
         ALPHA(dt, alpha), a, lda, b, ldb);                                                      \
  }                                                                                            \
  HOP_CBLAS_ALIASES(name);

TRMM(strmm, HOP_OP_TRMM, HOP_DTYPE_S, float, float, HOP_BY_VALUE)
TRMM(dtrmm, HOP_OP_TRMM, HOP_DTYPE_D, double, double, HOP_BY_VALUE)
TRMM(ctrmm, HOP_OP_TRMM, HOP_DTYPE_C, const void *, void, HOP_BY_POINTER)
TRMM(ztrmm, HOP_OP_TRMM, HOP_DTYPE_Z, const void *, void, HOP_BY_POINTER)
TRMM(strsm, HOP_OP_TRSM, HOP_DTYPE_S, float, float, HOP_BY_VALUE)
TRMM(dtrsm, HOP_OP_TRSM, HOP_DTYPE_D, double, double, HOP_BY_VALUE)
TRMM(ctrsm, HOP_OP_TRSM, HOP_DTYPE_C, const void *, void, HOP_BY_POINTER)
TRMM(ztrsm, HOP_OP_TRSM, HOP_DTYPE_Z, const void *, void, HOP_BY_POINTER)
