/* The C entry points.  Each checks its arguments, swaps a row-major call to
 * column-major, handles netlib's quick return, and hands the call to core/. */
#include "config.h"

#include <string.h>

#include "check.h"
#include "hopblas.h"

HOP_EXPORT int RowMajorStrg = 0;    /* netlib CBLAS globals: the prebuilt testers */
HOP_EXPORT int CBLAS_CallFromC = 0; /* copy-relocate them, so they must exist     */

/* Everything but the fast path: the checks, netlib's quick return, the
 * trace rows of both, and the call to core/. */
static void gemm_through_core(enum hop_dtype dt, const char *symbol, const char *xname, int order,
                              int transa, int transb, int m, int n, int k, struct hop_scalar alpha,
                              const void *a, int lda, const void *b, int ldb,
                              struct hop_scalar beta, void *c, int ldc)
{
  struct hop_call g;
  int info = hop_cblas_gemm_args(dt, order, transa, transb, m, n, k, a, lda, b, ldb, c, ldc, &g);
  struct hop_trace_call call = {.symbol = symbol, .dtype = dt, .m = m, .n = n, .k = k,
                                .transa = hop_trace_cblas_trans(transa),
                                .transb = hop_trace_cblas_trans(transb)};
  if (info >= 0) {
    hop_xerbla(xname, info);
    hop_trace_rejected(&call, info);
    return;
  }
  if (hop_quick_return(m, n, k, alpha, beta)) {
    hop_trace_quick(&call);
    return;
  }
  g.symbol = symbol;
  g.alpha = alpha;
  g.beta = beta;
  g.three_m = strstr(symbol, "gemm3m") != NULL;
  hop_call_run(&g);
}

/* Kept out of line so that each entry point itself is a test and a tail call. */
__attribute__((noinline)) static void sgemm_through_core(int order, int transa, int transb, int m,
                                                         int n, int k, float alpha, const float *a,
                                                         int lda, const float *b, int ldb,
                                                         float beta, float *c, int ldc)
{
  gemm_through_core(HOP_DTYPE_S, "cblas_sgemm", "SGEMM ", order, transa, transb, m, n, k,
                    (struct hop_scalar){alpha, 0.0}, a, lda, b, ldb, (struct hop_scalar){beta, 0.0},
                    c, ldc);
}

__attribute__((noinline)) static void dgemm_through_core(int order, int transa, int transb, int m,
                                                         int n, int k, double alpha,
                                                         const double *a, int lda, const double *b,
                                                         int ldb, double beta, double *c, int ldc)
{
  gemm_through_core(HOP_DTYPE_D, "cblas_dgemm", "DGEMM ", order, transa, transb, m, n, k,
                    (struct hop_scalar){alpha, 0.0}, a, lda, b, ldb, (struct hop_scalar){beta, 0.0},
                    c, ldc);
}

/* Complex scalars come by pointer, as (re, im) of the matrices' type. */
__attribute__((noinline)) static void xgemm_through_core(enum hop_dtype dt, const char *symbol,
                                                         const char *xname, int order, int transa,
                                                         int transb, int m, int n, int k,
                                                         const void *alpha, const void *a, int lda,
                                                         const void *b, int ldb, const void *beta,
                                                         void *c, int ldc)
{
  gemm_through_core(dt, symbol, xname, order, transa, transb, m, n, k,
                    hop_dtype_load(dt, true, alpha, 0), a, lda, b, ldb,
                    hop_dtype_load(dt, true, beta, 0), c, ldc);
}

/* Tiny calls the CPU would get anyway: OpenBLAS checks and computes them
 * (hop_fast_path_takes).  alpha == 0 stays with us: OpenBLAS would read A
 * and B (NaN propagates). */
HOP_EXPORT void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                            const float *a, int lda, const float *b, int ldb, float beta, float *c,
                            int ldc)
{
  const struct hop_fast_path *fast = hop_fast_path();
  if (hop_float_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_S, m, n, k, lda, ldb, ldc))
    fast->e.cblas_sgemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    sgemm_through_core(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

HOP_EXPORT void cblas_dgemm(int order, int transa, int transb, int m, int n, int k, double alpha,
                            const double *a, int lda, const double *b, int ldb, double beta,
                            double *c, int ldc)
{
  const struct hop_fast_path *fast = hop_fast_path();
  if (hop_double_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_D, m, n, k, lda, ldb, ldc))
    fast->e.cblas_dgemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    dgemm_through_core(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

HOP_EXPORT void cblas_cgemm(int order, int transa, int transb, int m, int n, int k,
                            const void *alpha, const void *a, int lda, const void *b, int ldb,
                            const void *beta, void *c, int ldc)
{
  const struct hop_fast_path *fast = hop_fast_path();
  if (hop_cfloat_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_C, m, n, k, lda, ldb, ldc))
    fast->e.cblas_cgemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    xgemm_through_core(HOP_DTYPE_C, "cblas_cgemm", "CGEMM ", order, transa, transb, m, n, k,
                       alpha, a, lda, b, ldb, beta, c, ldc);
}

HOP_EXPORT void cblas_zgemm(int order, int transa, int transb, int m, int n, int k,
                            const void *alpha, const void *a, int lda, const void *b, int ldb,
                            const void *beta, void *c, int ldc)
{
  const struct hop_fast_path *fast = hop_fast_path();
  if (hop_cdouble_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_Z, m, n, k, lda, ldb, ldc))
    fast->e.cblas_zgemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    xgemm_through_core(HOP_DTYPE_Z, "cblas_zgemm", "ZGEMM ", order, transa, transb, m, n, k,
                       alpha, a, lda, b, ldb, beta, c, ldc);
}

/* The 3m forms (OpenBLAS, MKL): the same product, which an engine may form
 * with three real GEMMs instead of four (struct hop_call's three_m). */
HOP_EXPORT void cblas_cgemm3m(int order, int transa, int transb, int m, int n, int k,
                              const void *alpha, const void *a, int lda, const void *b, int ldb,
                              const void *beta, void *c, int ldc)
{
  xgemm_through_core(HOP_DTYPE_C, "cblas_cgemm3m", "CGEMM3M ", order, transa, transb, m, n, k,
                     alpha, a, lda, b, ldb, beta, c, ldc);
}

HOP_EXPORT void cblas_zgemm3m(int order, int transa, int transb, int m, int n, int k,
                              const void *alpha, const void *a, int lda, const void *b, int ldb,
                              const void *beta, void *c, int ldc)
{
  xgemm_through_core(HOP_DTYPE_Z, "cblas_zgemm3m", "ZGEMM3M ", order, transa, transb, m, n, k,
                     alpha, a, lda, b, ldb, beta, c, ldc);
}

HOP_EXPORT void cblas_hgemm(int order, int transa, int transb, int m, int n, int k,
                            hopblas_half alpha, const hopblas_half *a, int lda,
                            const hopblas_half *b, int ldb, hopblas_half beta, hopblas_half *c,
                            int ldc)
{
  gemm_through_core(HOP_DTYPE_H, "cblas_hgemm", "HGEMM ", order, transa, transb, m, n, k,
                    (struct hop_scalar){hop_half_to_float(alpha), 0.0}, a, lda, b, ldb,
                    (struct hop_scalar){hop_half_to_float(beta), 0.0}, c, ldc);
}

HOP_EXPORT void cblas_shgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                             const hopblas_half *a, int lda, const hopblas_half *b, int ldb,
                             float beta, float *c, int ldc)
{
  gemm_through_core(HOP_DTYPE_SH, "cblas_shgemm", "SHGEMM", order, transa, transb, m, n, k,
                    (struct hop_scalar){alpha, 0.0}, a, lda, b, ldb, (struct hop_scalar){beta, 0.0},
                    c, ldc);
}

HOP_EXPORT const char *hopblas_version(void) { return "hopblas " PACKAGE_VERSION; }
