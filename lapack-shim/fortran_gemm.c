/* The Fortran entry points: every argument by reference, gfortran's hidden
 * string lengths ignored.  Same checks and core/ path as the C entry points. */
#include "check.h"
#include "hopblas.h"

__attribute__((noinline)) static void sgemm_through_core(const char *transa, const char *transb,
                                                         const int *m, const int *n, const int *k,
                                                         const float *alpha, const float *a,
                                                         const int *lda, const float *b,
                                                         const int *ldb, const float *beta,
                                                         float *c, const int *ldc)
{
  int ta = hop_fortran_trans(*transa), tb = hop_fortran_trans(*transb);
  int info = hop_check_gemm(ta, tb, *m, *n, *k, *lda, *ldb, *ldc);
  struct hop_trace_call call = {"sgemm_", HOP_DTYPE_S, *m, *n, *k, hop_trace_fortran_trans(*transa),
                                hop_trace_fortran_trans(*transb)};
  if (info) {
    hop_xerbla("SGEMM ", info);
    hop_trace_rejected(&call, info);
    return;
  }
  if (hop_quick_return(*m, *n, *k, *alpha, *beta)) {
    hop_trace_quick(&call);
    return;
  }
  struct hop_call g = {.op = HOP_OP_GEMM, .dtype = HOP_DTYPE_S, .symbol = "sgemm_", .ta = ta == 1 ? HOP_TRANS_T : HOP_TRANS_N,
                       .tb = tb == 1 ? HOP_TRANS_T : HOP_TRANS_N,
                       .m = *m, .n = *n, .k = *k, .alpha = {*alpha, 0.0}, .beta = {*beta, 0.0},
                       .a = a, .lda = *lda, .b = b, .ldb = *ldb, .c = c, .ldc = *ldc};
  hop_call_run(&g);
}

/* len_transa/len_transb: gfortran's hidden string lengths, passed on as
 * they came so the fast path is a plain tail call (C callers omit them;
 * OpenBLAS does not read them). */
HOP_EXPORT void sgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const float *alpha, const float *a, const int *lda,
                       const float *b, const int *ldb, const float *beta, float *c, const int *ldc,
                       size_t len_transa, size_t len_transb)
{
  /* Tiny calls the CPU would get anyway: see cblas_sgemm. */
  const struct hop_fast_path *fast = hop_fast_path();
  if (hop_float_nonzero(*alpha) &&
      (unsigned)(*lda | *ldb | *ldc) < HOP_FAST_PATH_LD_LIMIT &&
      hop_fast_path_mnk(*m, *n, *k) < fast->max_mnk)
    fast->sgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, len_transa, len_transb);
  else
    sgemm_through_core(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* Some Fortran compilers and programs call the name without the underscore. */
HOP_EXPORT void sgemm(const char *transa, const char *transb, const int *m, const int *n,
                      const int *k, const float *alpha, const float *a, const int *lda,
                      const float *b, const int *ldb, const float *beta, float *c, const int *ldc,
                      size_t len_transa, size_t len_transb) __attribute__((alias("sgemm_")));

HOP_EXPORT void hgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const hopblas_half *alpha, const hopblas_half *a,
                       const int *lda, const hopblas_half *b, const int *ldb,
                       const hopblas_half *beta, hopblas_half *c, const int *ldc)
{
  int ta = hop_fortran_trans(*transa), tb = hop_fortran_trans(*transb);
  int info = hop_check_gemm(ta, tb, *m, *n, *k, *lda, *ldb, *ldc);
  struct hop_trace_call call = {"hgemm_", HOP_DTYPE_H, *m, *n, *k, hop_trace_fortran_trans(*transa),
                                hop_trace_fortran_trans(*transb)};
  if (info) {
    hop_xerbla("HGEMM ", info);
    hop_trace_rejected(&call, info);
    return;
  }
  float falpha = hop_half_to_float(*alpha), fbeta = hop_half_to_float(*beta);
  if (hop_quick_return(*m, *n, *k, falpha, fbeta)) {
    hop_trace_quick(&call);
    return;
  }
  struct hop_call g = {.op = HOP_OP_GEMM, .dtype = HOP_DTYPE_H, .symbol = "hgemm_", .ta = ta == 1 ? HOP_TRANS_T : HOP_TRANS_N,
                       .tb = tb == 1 ? HOP_TRANS_T : HOP_TRANS_N,
                       .m = *m, .n = *n, .k = *k, .alpha = {falpha, 0.0}, .beta = {fbeta, 0.0},
                       .a = a, .lda = *lda, .b = b, .ldb = *ldb, .c = c, .ldc = *ldc};
  hop_call_run(&g);
}
