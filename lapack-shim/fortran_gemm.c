/* The Fortran entry points: every argument by reference, gfortran's hidden
 * string lengths ignored.  Same checks and core/ path as the C entry points.
 * Compiled twice, for the LP64 and the ILP64 names (cblas/blas_int.h). */
#include <string.h>

#include "blas_int.h"
#include "check.h"
#include "fast_entry.h"
#include "hopblas.h"

#if HOP_FAST_ENTRY_ASM
/* The exported names of sgemm_, dgemm_, cgemm_ and zgemm_ (and their
 * aliases) are assembly front doors (core/fast_entry.h, at the end of this
 * file); these definitions are where they send every call they do not hand
 * to OpenBLAS (used: only the assembly refers to them). */
#define GEMM_ENTRY(base) __attribute__((used, visibility("hidden"))) void hop_entry_##base##_
#define GEMM_ALIASES(base)
#define GEMM_BARE(base)
#else
#define GEMM_ENTRY(base) HOP_EXPORT void HOP_F77_NAME(base)
#define GEMM_ALIASES(base) HOP_F77_ALIASES(base)
#define GEMM_BARE(base) HOP_F77_BARE(base)
#endif

/* Everything but the fast path.  The scalars have C's type (half for hgemm). */
__attribute__((noinline)) static void gemm_through_core(enum hop_dtype dt, const char *symbol,
                                                        const char *xname, const char *transa,
                                                        const char *transb,
                                                        const hop_blas_int *m,
                                                        const hop_blas_int *n,
                                                        const hop_blas_int *k,
                                                        const void *alpha, const void *a,
                                                        const hop_blas_int *lda, const void *b,
                                                        const hop_blas_int *ldb, const void *beta,
                                                        void *c, const hop_blas_int *ldc)
{
  bool complex = hop_dtype_info(dt)->is_complex;
  int ta = hop_fortran_trans(*transa, complex), tb = hop_fortran_trans(*transb, complex);
  int info = hop_check_gemm(ta, tb, *m, *n, *k, *lda, *ldb, *ldc);
  struct hop_trace_call call = {.symbol = symbol, .dtype = dt, .m = *m, .n = *n, .k = *k,
                                .transa = hop_trace_fortran_trans(*transa),
                                .transb = hop_trace_fortran_trans(*transb)};
  struct hop_call g = {.op = HOP_OP_GEMM, .dtype = dt, .symbol = symbol,
                       .ta = (enum hop_trans)ta, .tb = (enum hop_trans)tb,
                       .three_m = strstr(symbol, "gemm3m") != NULL, .m = *m, .n = *n, .k = *k,
                       .a = a, .lda = *lda, .b = b, .ldb = *ldb, .c = c, .ldc = *ldc};
  if (info == 0) /* the scalars are read only for a valid call */
    g.alpha = hop_dtype_load(dt, true, alpha, 0), g.beta = hop_dtype_load(dt, true, beta, 0);
  hop_entry_finish(HOP_XERBLA, info != 0, info, xname, &call, &g);
}

/* Tiny calls the CPU would get anyway go straight to OpenBLAS (see
 * cblas_sgemm); alpha == 0 stays with us. */
/* len_transa/len_transb: gfortran's hidden string lengths, passed on as
 * they came so the fast path is a plain tail call in a single-threaded
 * process (C callers omit them; OpenBLAS does not read them).  The fast
 * path's casts change nothing in the LP64 build; the ILP64 build never
 * takes it (HOP_BLAS_FAST_PATH). */
GEMM_ENTRY(sgemm)(const char *transa, const char *transb, const hop_blas_int *m,
                  const hop_blas_int *n, const hop_blas_int *k, const float *alpha, const float *a,
                  const hop_blas_int *lda, const float *b, const hop_blas_int *ldb,
                  const float *beta, float *c, const hop_blas_int *ldc, size_t len_transa,
                  size_t len_transb)
{
  const struct hop_fast_path *fast = HOP_BLAS_FAST_PATH();
  if (hop_float_nonzero(*alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_S, *m, *n, *k, *lda, *ldb, *ldc))
    hop_fast_entries(fast)->sgemm(transa, transb, (const int *)m, (const int *)n, (const int *)k,
                                  alpha, a, (const int *)lda, b, (const int *)ldb, beta, c,
                                  (const int *)ldc, len_transa, len_transb);
  else
    gemm_through_core(HOP_DTYPE_S, HOP_F77_SYMBOL(sgemm), "SGEMM ", transa, transb, m, n, k, alpha, a,
                      lda, b, ldb, beta, c, ldc);
}
GEMM_ALIASES(sgemm);
GEMM_BARE(sgemm)

GEMM_ENTRY(dgemm)(const char *transa, const char *transb, const hop_blas_int *m,
                  const hop_blas_int *n, const hop_blas_int *k, const double *alpha,
                  const double *a, const hop_blas_int *lda, const double *b,
                  const hop_blas_int *ldb, const double *beta, double *c, const hop_blas_int *ldc,
                  size_t len_transa, size_t len_transb)
{
  const struct hop_fast_path *fast = HOP_BLAS_FAST_PATH();
  if (hop_double_nonzero(*alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_D, *m, *n, *k, *lda, *ldb, *ldc))
    hop_fast_entries(fast)->dgemm(transa, transb, (const int *)m, (const int *)n, (const int *)k,
                                  alpha, a, (const int *)lda, b, (const int *)ldb, beta, c,
                                  (const int *)ldc, len_transa, len_transb);
  else
    gemm_through_core(HOP_DTYPE_D, HOP_F77_SYMBOL(dgemm), "DGEMM ", transa, transb, m, n, k, alpha, a,
                      lda, b, ldb, beta, c, ldc);
}
GEMM_ALIASES(dgemm);
GEMM_BARE(dgemm)

GEMM_ENTRY(cgemm)(const char *transa, const char *transb, const hop_blas_int *m,
                  const hop_blas_int *n, const hop_blas_int *k, const void *alpha, const void *a,
                  const hop_blas_int *lda, const void *b, const hop_blas_int *ldb, const void *beta,
                  void *c, const hop_blas_int *ldc, size_t len_transa, size_t len_transb)
{
  const struct hop_fast_path *fast = HOP_BLAS_FAST_PATH();
  if (hop_cfloat_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_C, *m, *n, *k, *lda, *ldb, *ldc))
    hop_fast_entries(fast)->cgemm(transa, transb, (const int *)m, (const int *)n, (const int *)k,
                                  alpha, a, (const int *)lda, b, (const int *)ldb, beta, c,
                                  (const int *)ldc, len_transa, len_transb);
  else
    gemm_through_core(HOP_DTYPE_C, HOP_F77_SYMBOL(cgemm), "CGEMM ", transa, transb, m, n, k, alpha, a,
                      lda, b, ldb, beta, c, ldc);
}
GEMM_ALIASES(cgemm);
GEMM_BARE(cgemm)

GEMM_ENTRY(zgemm)(const char *transa, const char *transb, const hop_blas_int *m,
                  const hop_blas_int *n, const hop_blas_int *k, const void *alpha, const void *a,
                  const hop_blas_int *lda, const void *b, const hop_blas_int *ldb, const void *beta,
                  void *c, const hop_blas_int *ldc, size_t len_transa, size_t len_transb)
{
  const struct hop_fast_path *fast = HOP_BLAS_FAST_PATH();
  if (hop_cdouble_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_Z, *m, *n, *k, *lda, *ldb, *ldc))
    hop_fast_entries(fast)->zgemm(transa, transb, (const int *)m, (const int *)n, (const int *)k,
                                  alpha, a, (const int *)lda, b, (const int *)ldb, beta, c,
                                  (const int *)ldc, len_transa, len_transb);
  else
    gemm_through_core(HOP_DTYPE_Z, HOP_F77_SYMBOL(zgemm), "ZGEMM ", transa, transb, m, n, k, alpha, a,
                      lda, b, ldb, beta, c, ldc);
}
GEMM_ALIASES(zgemm);
GEMM_BARE(zgemm)

/* The 3m forms (OpenBLAS, MKL): see cblas_cgemm3m. */
HOP_EXPORT void HOP_F77_NAME(cgemm3m)(const char *transa, const char *transb, const hop_blas_int *m,
                                      const hop_blas_int *n, const hop_blas_int *k,
                                      const void *alpha, const void *a, const hop_blas_int *lda,
                                      const void *b, const hop_blas_int *ldb, const void *beta,
                                      void *c, const hop_blas_int *ldc)
{
  gemm_through_core(HOP_DTYPE_C, HOP_F77_SYMBOL(cgemm3m), "CGEMM3M ", transa, transb, m, n, k,
                    alpha, a, lda, b, ldb, beta, c, ldc);
}
HOP_F77_ALIASES(cgemm3m);

HOP_EXPORT void HOP_F77_NAME(zgemm3m)(const char *transa, const char *transb, const hop_blas_int *m,
                                      const hop_blas_int *n, const hop_blas_int *k,
                                      const void *alpha, const void *a, const hop_blas_int *lda,
                                      const void *b, const hop_blas_int *ldb, const void *beta,
                                      void *c, const hop_blas_int *ldc)
{
  gemm_through_core(HOP_DTYPE_Z, HOP_F77_SYMBOL(zgemm3m), "ZGEMM3M ", transa, transb, m, n, k,
                    alpha, a, lda, b, ldb, beta, c, ldc);
}
HOP_F77_ALIASES(zgemm3m);

HOP_EXPORT void HOP_F77_NAME(hgemm)(const char *transa, const char *transb, const hop_blas_int *m,
                                    const hop_blas_int *n, const hop_blas_int *k,
                                    const hopblas_half *alpha, const hopblas_half *a,
                                    const hop_blas_int *lda, const hopblas_half *b,
                                    const hop_blas_int *ldb, const hopblas_half *beta,
                                    hopblas_half *c, const hop_blas_int *ldc)
{
  gemm_through_core(HOP_DTYPE_H, HOP_F77_SYMBOL(hgemm), "HGEMM ", transa, transb, m, n, k, alpha,
                    a, lda, b, ldb, beta, c, ldc);
}
HOP_F77_ALIASES(hgemm);

#if HOP_FAST_ENTRY_ASM
HOP_FRONT_DOOR_F77(s, HOP_FE_ALPHA_S_AT("%r9"), HOP_FE_MAX_S, HOP_FE_SGEMM);
HOP_FRONT_DOOR_F77(d, HOP_FE_ALPHA_D_AT("%r9"), HOP_FE_MAX_D, HOP_FE_DGEMM);
HOP_FRONT_DOOR_F77(c, HOP_FE_ALPHA_C_AT("%r9"), HOP_FE_MAX_C, HOP_FE_CGEMM);
HOP_FRONT_DOOR_F77(z, HOP_FE_ALPHA_Z_AT("%r9"), HOP_FE_MAX_Z, HOP_FE_ZGEMM);
#endif
