/* ?syrk_ and ?herk_ (herk's alpha and beta real), and the bare names. */
#include "check_l3.h"

static void syrk(enum hop_op op, enum hop_dtype dt, const char *symbol, const char *uplo,
                 const char *trans, const hop_blas_int *n, const hop_blas_int *k,
                 struct hop_scalar alpha, const void *a, const hop_blas_int *lda,
                 struct hop_scalar beta, void *c, const hop_blas_int *ldc)
{
  struct hop_l3_args x = {.op = op, .dtype = dt, .uplo = hop_fortran_uplo(*uplo),
                          .trans = hop_fortran_rk_trans(*trans, op, dt), .n = *n, .k = *k,
                          .alpha = alpha, .beta = beta, .a = a, .lda = *lda, .c = c, .ldc = *ldc};
  struct hop_trace_call t = {symbol, dt, *n, *n, *k, hop_trace_fortran_trans(*trans), '-', '\0',
                             hop_trace_fortran_trans(*uplo), '\0'};
  hop_l3_run(HOP_XERBLA, &x, symbol, &t);
}

#define SYRK(name, op, dt, SCALAR)                                                               \
  HOP_EXPORT void HOP_F77_NAME(name)(const char *uplo, const char *trans, const hop_blas_int *n,  \
                                     const hop_blas_int *k, const void *alpha, const void *a,     \
                                     const hop_blas_int *lda, const void *beta, void *c,          \
                                     const hop_blas_int *ldc)                                     \
  {                                                                                              \
    syrk(op, dt, HOP_XSTR(HOP_F77_NAME(name)), uplo, trans, n, k, SCALAR(dt, alpha), a, lda,      \
         SCALAR(dt, beta), c, ldc);                                                              \
  }                                                                                              \
  HOP_F77_ALIASES(name);                                                                       \
  HOP_F77_BARE(name)

SYRK(ssyrk, HOP_OP_SYRK, HOP_DTYPE_S, HOP_BY_REF)
SYRK(dsyrk, HOP_OP_SYRK, HOP_DTYPE_D, HOP_BY_REF)
SYRK(csyrk, HOP_OP_SYRK, HOP_DTYPE_C, HOP_BY_REF)
SYRK(zsyrk, HOP_OP_SYRK, HOP_DTYPE_Z, HOP_BY_REF)
SYRK(cherk, HOP_OP_HERK, HOP_DTYPE_C, HOP_BY_REAL_REF)
SYRK(zherk, HOP_OP_HERK, HOP_DTYPE_Z, HOP_BY_REAL_REF)
