/* The Fortran entry points: every argument by reference, gfortran's hidden
 * string lengths ignored.  Same checks and core/ path as the C entry points. */
#include <string.h>

#include "check.h"
#include "hopblas.h"

/* Everything but the fast path.  The scalars have C's type (half for hgemm). */
__attribute__((noinline)) static void gemm_through_core(enum hop_dtype dt, const char *symbol,
                                                        const char *xname, const char *transa,
                                                        const char *transb, const int *m,
                                                        const int *n, const int *k,
                                                        const void *alpha, const void *a,
                                                        const int *lda, const void *b,
                                                        const int *ldb, const void *beta, void *c,
                                                        const int *ldc)
{
  bool complex = hop_dtype_info(dt)->is_complex;
  int ta = hop_fortran_trans(*transa, complex), tb = hop_fortran_trans(*transb, complex);
  int info = hop_check_gemm(ta, tb, *m, *n, *k, *lda, *ldb, *ldc);
  struct hop_trace_call call = {.symbol = symbol, .dtype = dt, .m = *m, .n = *n, .k = *k,
                                .transa = hop_trace_fortran_trans(*transa),
                                .transb = hop_trace_fortran_trans(*transb)};
  if (info) {
    hop_xerbla(xname, info);
    hop_trace_rejected(&call, info);
    return;
  }
  struct hop_scalar al = hop_dtype_load(dt, true, alpha, 0), be = hop_dtype_load(dt, true, beta, 0);
  if (hop_quick_return(*m, *n, *k, al, be)) {
    hop_trace_quick(&call);
    return;
  }
  struct hop_call g = {.op = HOP_OP_GEMM, .dtype = dt, .symbol = symbol,
                       .ta = (enum hop_trans)ta, .tb = (enum hop_trans)tb,
                       .three_m = strstr(symbol, "gemm3m") != NULL, .m = *m, .n = *n, .k = *k,
                       .alpha = al, .beta = be, .a = a, .lda = *lda, .b = b, .ldb = *ldb, .c = c,
                       .ldc = *ldc};
  hop_call_run(&g);
}

/* Tiny calls the CPU would get anyway go straight to OpenBLAS (see
 * cblas_sgemm); alpha == 0 stays with us. */
/* len_transa/len_transb: gfortran's hidden string lengths, passed on as
 * they came so the fast path is a plain tail call (C callers omit them;
 * OpenBLAS does not read them). */
HOP_EXPORT void sgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const float *alpha, const float *a, const int *lda,
                       const float *b, const int *ldb, const float *beta, float *c, const int *ldc,
                       size_t len_transa, size_t len_transb)
{
  const struct hop_fast_path *fast = hop_fast_path();
  if (hop_float_nonzero(*alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_S, *m, *n, *k, *lda, *ldb, *ldc))
    fast->e.sgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, len_transa,
                  len_transb);
  else
    gemm_through_core(HOP_DTYPE_S, "sgemm_", "SGEMM ", transa, transb, m, n, k, alpha, a, lda, b,
                      ldb, beta, c, ldc);
}

HOP_EXPORT void dgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const double *alpha, const double *a, const int *lda,
                       const double *b, const int *ldb, const double *beta, double *c,
                       const int *ldc, size_t len_transa, size_t len_transb)
{
  const struct hop_fast_path *fast = hop_fast_path();
  if (hop_double_nonzero(*alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_D, *m, *n, *k, *lda, *ldb, *ldc))
    fast->e.dgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, len_transa,
                  len_transb);
  else
    gemm_through_core(HOP_DTYPE_D, "dgemm_", "DGEMM ", transa, transb, m, n, k, alpha, a, lda, b,
                      ldb, beta, c, ldc);
}

HOP_EXPORT void cgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const void *alpha, const void *a, const int *lda,
                       const void *b, const int *ldb, const void *beta, void *c, const int *ldc,
                       size_t len_transa, size_t len_transb)
{
  const struct hop_fast_path *fast = hop_fast_path();
  if (hop_cfloat_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_C, *m, *n, *k, *lda, *ldb, *ldc))
    fast->e.cgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, len_transa,
                  len_transb);
  else
    gemm_through_core(HOP_DTYPE_C, "cgemm_", "CGEMM ", transa, transb, m, n, k, alpha, a, lda, b,
                      ldb, beta, c, ldc);
}

HOP_EXPORT void zgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const void *alpha, const void *a, const int *lda,
                       const void *b, const int *ldb, const void *beta, void *c, const int *ldc,
                       size_t len_transa, size_t len_transb)
{
  const struct hop_fast_path *fast = hop_fast_path();
  if (hop_cdouble_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_Z, *m, *n, *k, *lda, *ldb, *ldc))
    fast->e.zgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, len_transa,
                  len_transb);
  else
    gemm_through_core(HOP_DTYPE_Z, "zgemm_", "ZGEMM ", transa, transb, m, n, k, alpha, a, lda, b,
                      ldb, beta, c, ldc);
}

/* The 3m forms (OpenBLAS, MKL): see cblas_cgemm3m. */
HOP_EXPORT void cgemm3m_(const char *transa, const char *transb, const int *m, const int *n,
                         const int *k, const void *alpha, const void *a, const int *lda,
                         const void *b, const int *ldb, const void *beta, void *c, const int *ldc)
{
  gemm_through_core(HOP_DTYPE_C, "cgemm3m_", "CGEMM3M ", transa, transb, m, n, k, alpha, a, lda,
                    b, ldb, beta, c, ldc);
}

HOP_EXPORT void zgemm3m_(const char *transa, const char *transb, const int *m, const int *n,
                         const int *k, const void *alpha, const void *a, const int *lda,
                         const void *b, const int *ldb, const void *beta, void *c, const int *ldc)
{
  gemm_through_core(HOP_DTYPE_Z, "zgemm3m_", "ZGEMM3M ", transa, transb, m, n, k, alpha, a, lda,
                    b, ldb, beta, c, ldc);
}

/* Some Fortran compilers and programs call the names without the underscore. */
HOP_EXPORT void sgemm(const char *transa, const char *transb, const int *m, const int *n,
                      const int *k, const float *alpha, const float *a, const int *lda,
                      const float *b, const int *ldb, const float *beta, float *c, const int *ldc,
                      size_t len_transa, size_t len_transb) __attribute__((alias("sgemm_")));
HOP_EXPORT void dgemm(const char *transa, const char *transb, const int *m, const int *n,
                      const int *k, const double *alpha, const double *a, const int *lda,
                      const double *b, const int *ldb, const double *beta, double *c,
                      const int *ldc, size_t len_transa, size_t len_transb)
  __attribute__((alias("dgemm_")));
HOP_EXPORT void cgemm(const char *transa, const char *transb, const int *m, const int *n,
                      const int *k, const void *alpha, const void *a, const int *lda,
                      const void *b, const int *ldb, const void *beta, void *c, const int *ldc,
                      size_t len_transa, size_t len_transb) __attribute__((alias("cgemm_")));
HOP_EXPORT void zgemm(const char *transa, const char *transb, const int *m, const int *n,
                      const int *k, const void *alpha, const void *a, const int *lda,
                      const void *b, const int *ldb, const void *beta, void *c, const int *ldc,
                      size_t len_transa, size_t len_transb) __attribute__((alias("zgemm_")));

HOP_EXPORT void hgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const hopblas_half *alpha, const hopblas_half *a,
                       const int *lda, const hopblas_half *b, const int *ldb,
                       const hopblas_half *beta, hopblas_half *c, const int *ldc)
{
  gemm_through_core(HOP_DTYPE_H, "hgemm_", "HGEMM ", transa, transb, m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc);
}
