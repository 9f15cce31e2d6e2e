/* ?symm_ and ?hemm_ (and the names without the underscore): every argument
 * by reference, checked and run as the C entry points do. */
#include "check_l3.h"

static void symm(enum hop_op op, enum hop_dtype dt, const char *symbol, const char *side,
                 const char *uplo, const hop_blas_int *m, const hop_blas_int *n,
                 const void *alpha, const void *a, const hop_blas_int *lda, const void *b,
                 const hop_blas_int *ldb, const void *beta, void *c, const hop_blas_int *ldc)
{
  struct hop_l3_args x = {.op = op, .dtype = dt, .side = hop_fortran_side(*side),
                          .uplo = hop_fortran_uplo(*uplo), .m = *m, .n = *n,
                          .alpha = HOP_BY_REF(dt, alpha), .beta = HOP_BY_REF(dt, beta), .a = a,
                          .lda = *lda, .b = b, .ldb = *ldb, .c = c, .ldc = *ldc};
  struct hop_trace_call t = {symbol, dt, *m, *n, x.side == 1 ? *n : *m, '-', '-',
                             hop_trace_fortran_trans(*side), hop_trace_fortran_trans(*uplo), '\0'};
  hop_l3_run(HOP_XERBLA, &x, symbol, &t);
}

#define SYMM(name, op, dt)                                                                       \
  HOP_EXPORT void HOP_F77_NAME(name)(const char *side, const char *uplo, const hop_blas_int *m,   \
                                     const hop_blas_int *n, const void *alpha, const void *a,     \
                                     const hop_blas_int *lda, const void *b,                      \
                                     const hop_blas_int *ldb, const void *beta, void *c,          \
                                     const hop_blas_int *ldc)                                     \
  {                                                                                              \
    symm(op, dt, HOP_XSTR(HOP_F77_NAME(name)), side, uplo, m, n, alpha, a, lda, b, ldb, beta, c,  \
         ldc);                                                                                   \
  }                                                                                              \
  HOP_F77_ALIASES(name);                                                                       \
  HOP_F77_BARE(name)

SYMM(ssymm, HOP_OP_SYMM, HOP_DTYPE_S)
SYMM(dsymm, HOP_OP_SYMM, HOP_DTYPE_D)
SYMM(csymm, HOP_OP_SYMM, HOP_DTYPE_C)
SYMM(zsymm, HOP_OP_SYMM, HOP_DTYPE_Z)
SYMM(chemm, HOP_OP_HEMM, HOP_DTYPE_C)
SYMM(zhemm, HOP_OP_HEMM, HOP_DTYPE_Z)
