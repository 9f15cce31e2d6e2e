/* Fortran ?gemmt_ and ?gemmtr_ (OpenBLAS's argument list: UPLO, TRANSA,
 * TRANSB, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC, every argument by
 * reference, gfortran's hidden string lengths ignored), and the names
 * without the underscore.  Same checks and core/ path as cblas_?gemmt. */
#include "blas_int.h"
#include "check.h"
#include "hopblas.h"

static void gemmt_through_core(enum hop_dtype dt, const char *symbol, const char *xname,
                               const char *uplo, const char *transa, const char *transb,
                               const hop_blas_int *n, const hop_blas_int *k, const void *alpha,
                               const void *a, const hop_blas_int *lda, const void *b,
                               const hop_blas_int *ldb, const void *beta, void *c,
                               const hop_blas_int *ldc)
{
  bool complex = hop_dtype_info(dt)->is_complex;
  int ta = hop_fortran_trans(*transa, complex), tb = hop_fortran_trans(*transb, complex);
  int upper = hop_fortran_uplo(*uplo);
  int info = hop_check_gemmt(false, upper, ta, tb, *n, *k, *lda, *ldb, *ldc);
  struct hop_trace_call call = {.symbol = symbol, .dtype = dt, .m = *n, .n = *n, .k = *k,
                                .transa = hop_trace_fortran_trans(*transa),
                                .transb = hop_trace_fortran_trans(*transb),
                                .uplo = hop_trace_fortran_trans(*uplo)};
  struct hop_call g = {.op = HOP_OP_GEMMT, .dtype = dt, .symbol = symbol,
                       .ta = (enum hop_trans)ta, .tb = (enum hop_trans)tb, .upper = upper == 1,
                       .m = *n, .n = *n, .k = *k, .a = a, .lda = *lda, .b = b, .ldb = *ldb,
                       .c = c, .ldc = *ldc};
  if (info == 0) /* the scalars are read only for a valid call */
    g.alpha = hop_dtype_load(dt, true, alpha, 0), g.beta = hop_dtype_load(dt, true, beta, 0);
  hop_entry_finish(HOP_XERBLA, info != 0, info, xname, &call, &g);
}

#define HOP_GEMMT_F77(name, xname, dt, type)                                                     \
  HOP_EXPORT void HOP_F77_NAME(name)(const char *uplo, const char *transa, const char *transb,   \
                                     const hop_blas_int *n, const hop_blas_int *k,              \
                                     const type *alpha, const type *a, const hop_blas_int *lda, \
                                     const type *b, const hop_blas_int *ldb, const type *beta,  \
                                     type *c, const hop_blas_int *ldc)                          \
  {                                                                                              \
    gemmt_through_core(dt, HOP_XSTR(HOP_F77_NAME(name)), xname, uplo, transa, transb, n, k,     \
                       alpha, a, lda, b, ldb, beta, c, ldc);                                     \
  }

/* Complex elements and scalars by pointer, (re, im) pairs as the header declares them. */
HOP_GEMMT_F77(sgemmt, "SGEMMT ", HOP_DTYPE_S, float)
HOP_GEMMT_F77(dgemmt, "DGEMMT ", HOP_DTYPE_D, double)
HOP_GEMMT_F77(cgemmt, "CGEMMT ", HOP_DTYPE_C, void)
HOP_GEMMT_F77(zgemmt, "ZGEMMT ", HOP_DTYPE_Z, void)
HOP_GEMMT_F77(sgemmtr, "SGEMMTR", HOP_DTYPE_S, float)
HOP_GEMMT_F77(dgemmtr, "DGEMMTR", HOP_DTYPE_D, double)
HOP_GEMMT_F77(cgemmtr, "CGEMMTR", HOP_DTYPE_C, void)
HOP_GEMMT_F77(zgemmtr, "ZGEMMTR", HOP_DTYPE_Z, void)

/* scipy-openblas's names, and the names without the underscore (LP64 only). */
#define HOP_GEMMT_NAMES(name) HOP_F77_ALIASES(name); HOP_F77_BARE(name)
HOP_GEMMT_NAMES(sgemmt)
HOP_GEMMT_NAMES(dgemmt)
HOP_GEMMT_NAMES(cgemmt)
HOP_GEMMT_NAMES(zgemmt)
HOP_GEMMT_NAMES(sgemmtr)
HOP_GEMMT_NAMES(dgemmtr)
HOP_GEMMT_NAMES(cgemmtr)
HOP_GEMMT_NAMES(zgemmtr)
