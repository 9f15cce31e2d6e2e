/* ?syr2k_ and ?her2k_ (her2k's beta real), and the bare names. */
#include "check_l3.h"

static void syr2k(enum hop_op op, enum hop_dtype dt, const char *symbol, const char *uplo,
                  const char *trans, const hop_blas_int *n, const hop_blas_int *k,
                  const void *alpha, const void *a, const hop_blas_int *lda, const void *b,
                  const hop_blas_int *ldb, struct hop_scalar beta, void *c,
                  const hop_blas_int *ldc)
{
  struct hop_l3_args x = {.op = op, .dtype = dt, .uplo = hop_fortran_uplo(*uplo),
                          .trans = hop_fortran_rk_trans(*trans, op, dt), .n = *n, .k = *k,
                          .alpha = HOP_BY_REF(dt, alpha), .beta = beta, .a = a, .lda = *lda,
                          .b = b, .ldb = *ldb, .c = c, .ldc = *ldc};
  struct hop_trace_call t = {symbol, dt, *n, *n, *k, hop_trace_fortran_trans(*trans), '-', '\0',
                             hop_trace_fortran_trans(*uplo), '\0'};
  hop_l3_run(HOP_XERBLA, &x, symbol, &t);
}

#define SYR2K(name, op, dt, BETA)                                                                \
  HOP_EXPORT void HOP_F77_NAME(name)(const char *uplo, const char *trans, const hop_blas_int *n,  \
                                     const hop_blas_int *k, const void *alpha, const void *a,     \
                                     const hop_blas_int *lda, const void *b,                      \
                                     const hop_blas_int *ldb, const void *beta, void *c,          \
                                     const hop_blas_int *ldc)                                     \
  {                                                                                              \
    syr2k(op, dt, HOP_XSTR(HOP_F77_NAME(name)), uplo, trans, n, k, alpha, a, lda, b, ldb,         \
          BETA(dt, beta), c, ldc);                                                               \
  }                                                                                              \
  HOP_F77_ALIASES(name);                                                                       \
  HOP_F77_BARE(name)

SYR2K(ssyr2k, HOP_OP_SYR2K, HOP_DTYPE_S, HOP_BY_REF)
SYR2K(dsyr2k, HOP_OP_SYR2K, HOP_DTYPE_D, HOP_BY_REF)
SYR2K(csyr2k, HOP_OP_SYR2K, HOP_DTYPE_C, HOP_BY_REF)
SYR2K(zsyr2k, HOP_OP_SYR2K, HOP_DTYPE_Z, HOP_BY_REF)
SYR2K(cher2k, HOP_OP_HER2K, HOP_DTYPE_C, HOP_BY_REAL_REF)
SYR2K(zher2k, HOP_OP_HER2K, HOP_DTYPE_Z, HOP_BY_REAL_REF)
