/* cblas_?gemmt and cblas_?gemmtr (OpenBLAS 0.3.22 and 0.3.29; LAPACK 3.12
 * names the routine gemmtr): GEMM on one triangle of a square C,
 *   C = alpha op(A) op(B) + beta C   for the elements of the triangle uplo
 * names; the other triangle is never written.  The two names differ only in
 * the routine name xerbla reports ("SGEMMT " or "SGEMMTR"). */
#include "blas_int.h"
#include "check.h"
#include "hopblas.h"

static void gemmt_through_core(enum hop_dtype dt, const char *symbol, const char *xname,
                               int order, int uplo, int transa, int transb, hop_blas_int n,
                               hop_blas_int k, struct hop_scalar alpha, const void *a,
                               hop_blas_int lda, const void *b, hop_blas_int ldb,
                               struct hop_scalar beta, void *c, hop_blas_int ldc)
{
  struct hop_call g = {0};
  int info = hop_cblas_gemmt_args(dt, order, uplo, transa, transb, n, k, a, lda, b, ldb, c, ldc,
                                  &g);
  struct hop_trace_call call = {.symbol = symbol, .dtype = dt, .m = n, .n = n, .k = k,
                                .transa = hop_trace_cblas_trans(transa),
                                .transb = hop_trace_cblas_trans(transb),
                                .uplo = hop_trace_cblas_uplo(uplo)};
  g.symbol = symbol;
  g.alpha = alpha;
  g.beta = beta;
  hop_entry_finish(HOP_XERBLA, info >= 0, info, xname, &call, &g);
}

/* Real scalars by value; complex ones by pointer, (re, im) of C's type. */
#define HOP_GEMMT_REAL(name, xname, dt, type)                                                    \
  HOP_EXPORT void HOP_CBLAS_NAME(name)(int order, int uplo, int transa, int transb,              \
                                       hop_blas_int n, hop_blas_int k, type alpha, const type *a, \
                                       hop_blas_int lda, const type *b, hop_blas_int ldb,        \
                                       type beta, type *c, hop_blas_int ldc)                     \
  {                                                                                              \
    gemmt_through_core(dt, HOP_XSTR(HOP_CBLAS_NAME(name)), xname, order, uplo, transa, transb, n, \
                       k, (struct hop_scalar){alpha, 0.0}, a, lda, b, ldb,                       \
                       (struct hop_scalar){beta, 0.0}, c, ldc);                                  \
  }
#define HOP_GEMMT_COMPLEX(name, xname, dt)                                                       \
  HOP_EXPORT void HOP_CBLAS_NAME(name)(int order, int uplo, int transa, int transb,              \
                                       hop_blas_int n, hop_blas_int k, const void *alpha,         \
                                       const void *a, hop_blas_int lda, const void *b,           \
                                       hop_blas_int ldb, const void *beta, void *c,              \
                                       hop_blas_int ldc)                                         \
  {                                                                                              \
    gemmt_through_core(dt, HOP_XSTR(HOP_CBLAS_NAME(name)), xname, order, uplo, transa, transb, n, \
                       k, hop_dtype_load(dt, true, alpha, 0), a, lda, b, ldb,                    \
                       hop_dtype_load(dt, true, beta, 0), c, ldc);                               \
  }

HOP_GEMMT_REAL(sgemmt, "SGEMMT ", HOP_DTYPE_S, float)
HOP_GEMMT_REAL(dgemmt, "DGEMMT ", HOP_DTYPE_D, double)
HOP_GEMMT_COMPLEX(cgemmt, "CGEMMT ", HOP_DTYPE_C)
HOP_GEMMT_COMPLEX(zgemmt, "ZGEMMT ", HOP_DTYPE_Z)
HOP_GEMMT_REAL(sgemmtr, "SGEMMTR", HOP_DTYPE_S, float)
HOP_GEMMT_REAL(dgemmtr, "DGEMMTR", HOP_DTYPE_D, double)
HOP_GEMMT_COMPLEX(cgemmtr, "CGEMMTR", HOP_DTYPE_C)
HOP_GEMMT_COMPLEX(zgemmtr, "ZGEMMTR", HOP_DTYPE_Z)

/* scipy-openblas's names. */
HOP_CBLAS_ALIASES(sgemmt);
HOP_CBLAS_ALIASES(dgemmt);
HOP_CBLAS_ALIASES(cgemmt);
HOP_CBLAS_ALIASES(zgemmt);
HOP_CBLAS_ALIASES(sgemmtr);
HOP_CBLAS_ALIASES(dgemmtr);
HOP_CBLAS_ALIASES(cgemmtr);
HOP_CBLAS_ALIASES(zgemmtr);
