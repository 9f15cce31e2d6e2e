/* ?trmm_ and ?trsm_, and the bare names.  'R' (conjugate, no transpose)
 * is taken as OpenBLAS takes it: ConjNoTrans for complex, N for real. */
#include "check_l3.h"

static void trmm(enum hop_op op, enum hop_dtype dt, const char *symbol, const char *side,
                 const char *uplo, const char *trans, const char *diag, const hop_blas_int *m,
                 const hop_blas_int *n, const void *alpha, const void *a, const hop_blas_int *lda,
                 void *b, const hop_blas_int *ldb)
{
  struct hop_l3_args x = {
    .op = op, .dtype = dt, .side = hop_fortran_side(*side), .uplo = hop_fortran_uplo(*uplo),
    .trans = hop_fortran_trans(*trans, hop_dtype_info(dt)->is_complex),
    .diag = hop_fortran_diag(*diag), .m = *m, .n = *n, .alpha = HOP_BY_REF(dt, alpha), .a = a,
    .lda = *lda, .b = b, .ldb = *ldb};
  struct hop_trace_call t = {symbol, dt, *m, *n, x.side == 1 ? *n : *m,
                             hop_trace_fortran_trans(*trans), '-', hop_trace_fortran_trans(*side),
                             hop_trace_fortran_trans(*uplo), hop_trace_fortran_trans(*diag)};
  hop_l3_run(HOP_XERBLA, &x, symbol, &t);
}

#define TRMM(name, op, dt)                                                                       \
  HOP_EXPORT void HOP_F77_NAME(name)(const char *side, const char *uplo, const char *trans,       \
                                     const char *diag, const hop_blas_int *m,                     \
                                     const hop_blas_int *n, const void *alpha, const void *a,     \
                                     const hop_blas_int *lda, void *b, const hop_blas_int *ldb)   \
  {                                                                                              \
    trmm(op, dt, HOP_XSTR(HOP_F77_NAME(name)), side, uplo, trans, diag, m, n, alpha, a, lda, b,   \
         ldb);                                                                                   \
  }                                                                                              \
  HOP_F77_ALIASES(name);                                                                       \
  HOP_F77_BARE(name)

TRMM(strmm, HOP_OP_TRMM, HOP_DTYPE_S)
TRMM(dtrmm, HOP_OP_TRMM, HOP_DTYPE_D)
TRMM(ctrmm, HOP_OP_TRMM, HOP_DTYPE_C)
TRMM(ztrmm, HOP_OP_TRMM, HOP_DTYPE_Z)
TRMM(strsm, HOP_OP_TRSM, HOP_DTYPE_S)
TRMM(dtrsm, HOP_OP_TRSM, HOP_DTYPE_D)
TRMM(ctrsm, HOP_OP_TRSM, HOP_DTYPE_C)
TRMM(ztrsm, HOP_OP_TRSM, HOP_DTYPE_Z)
