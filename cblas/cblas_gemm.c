/* The C entry points.  Each checks its arguments, swaps a row-major call to
 * column-major, handles netlib's quick return, and hands the call to core/. */
#include "config.h"

#include "check.h"
#include "hopblas.h"

HOP_EXPORT int RowMajorStrg = 0;    /* netlib CBLAS globals: the prebuilt testers */
HOP_EXPORT int CBLAS_CallFromC = 0; /* copy-relocate them, so they must exist     */

/* Everything but the fast path, kept out of line so that cblas_sgemm itself
 * is a test and a tail call. */
__attribute__((noinline)) static void sgemm_through_core(int order, int transa, int transb, int m,
                                                         int n, int k, float alpha, const float *a,
                                                         int lda, const float *b, int ldb,
                                                         float beta, float *c, int ldc)
{
  struct hop_call g;
  int info = hop_cblas_gemm_args(order, transa, transb, m, n, k, a, lda, b, ldb, c, ldc, &g);
  struct hop_trace_call call = {"cblas_sgemm", HOP_DTYPE_S, m, n, k, hop_trace_cblas_trans(transa),
                                hop_trace_cblas_trans(transb)};
  if (info >= 0) {
    hop_xerbla("SGEMM ", info);
    hop_trace_rejected(&call, info);
    return;
  }
  if (hop_quick_return(m, n, k, alpha, beta)) {
    hop_trace_quick(&call);
    return;
  }
  g.dtype = HOP_DTYPE_S;
  g.symbol = "cblas_sgemm";
  g.alpha = (struct hop_scalar){alpha, 0.0};
  g.beta = (struct hop_scalar){beta, 0.0};
  hop_call_run(&g);
}

HOP_EXPORT void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                            const float *a, int lda, const float *b, int ldb, float beta, float *c,
                            int ldc)
{
  /* Tiny calls the CPU would get anyway: OpenBLAS checks and computes them.
   * alpha == 0 stays with us: OpenBLAS would read A and B (NaN propagates). */
  const struct hop_fast_path *fast = hop_fast_path();
  if (hop_float_nonzero(alpha) &&
      (unsigned)(lda | ldb | ldc) < HOP_FAST_PATH_LD_LIMIT &&
      hop_fast_path_mnk(m, n, k) < fast->max_mnk)
    fast->cblas_sgemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    sgemm_through_core(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

HOP_EXPORT void cblas_hgemm(int order, int transa, int transb, int m, int n, int k,
                            hopblas_half alpha, const hopblas_half *a, int lda,
                            const hopblas_half *b, int ldb, hopblas_half beta, hopblas_half *c,
                            int ldc)
{
  struct hop_call g;
  int info = hop_cblas_gemm_args(order, transa, transb, m, n, k, a, lda, b, ldb, c, ldc, &g);
  struct hop_trace_call call = {"cblas_hgemm", HOP_DTYPE_H, m, n, k, hop_trace_cblas_trans(transa),
                                hop_trace_cblas_trans(transb)};
  if (info >= 0) {
    hop_xerbla("HGEMM ", info);
    hop_trace_rejected(&call, info);
    return;
  }
  float falpha = hop_half_to_float(alpha), fbeta = hop_half_to_float(beta);
  if (hop_quick_return(m, n, k, falpha, fbeta)) {
    hop_trace_quick(&call);
    return;
  }
  g.dtype = HOP_DTYPE_H;
  g.symbol = "cblas_hgemm";
  g.alpha = (struct hop_scalar){falpha, 0.0};
  g.beta = (struct hop_scalar){fbeta, 0.0};
  hop_call_run(&g);
}

HOP_EXPORT void cblas_shgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                             const hopblas_half *a, int lda, const hopblas_half *b, int ldb,
                             float beta, float *c, int ldc)
{
  struct hop_call g;
  int info = hop_cblas_gemm_args(order, transa, transb, m, n, k, a, lda, b, ldb, c, ldc, &g);
  struct hop_trace_call call = {"cblas_shgemm", HOP_DTYPE_SH, m, n, k, hop_trace_cblas_trans(transa),
                                hop_trace_cblas_trans(transb)};
  if (info >= 0) {
    hop_xerbla("SHGEMM", info);
    hop_trace_rejected(&call, info);
    return;
  }
  if (hop_quick_return(m, n, k, alpha, beta)) {
    hop_trace_quick(&call);
    return;
  }
  g.dtype = HOP_DTYPE_SH;
  g.symbol = "cblas_shgemm";
  g.alpha = (struct hop_scalar){alpha, 0.0};
  g.beta = (struct hop_scalar){beta, 0.0};
  hop_call_run(&g);
}

HOP_EXPORT const char *hopblas_version(void) { return "hopblas " PACKAGE_VERSION; }
