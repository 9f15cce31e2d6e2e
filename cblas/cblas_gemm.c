/* The C entry points.  Each checks its arguments, swaps a row-major call to
 * column-major, handles netlib's quick return, and hands the call to core/.
 * Compiled twice, for the LP64 and the ILP64 names (blas_int.h). */
#include <string.h>

#include "blas_int.h"
#include "check.h"
#include "fast_entry.h"
#include "hopblas.h"

#if HOP_FAST_ENTRY_ASM
/* The exported names of sgemm, dgemm, cgemm and zgemm are assembly front
 * doors (core/fast_entry.h, at the end of this file); these definitions are
 * where they send every call they do not hand to OpenBLAS (used: only
 * the assembly refers to them). */
#define GEMM_ENTRY(base) __attribute__((used, visibility("hidden"))) void hop_entry_cblas_##base
#define GEMM_ALIASES(base)
#else
#define GEMM_ENTRY(base) HOP_EXPORT void HOP_CBLAS_NAME(base)
#define GEMM_ALIASES(base) HOP_CBLAS_ALIASES(base)
#endif

/* Everything but the fast path: the checks, netlib's quick return, the
 * trace rows of both, and the call to core/. */
static void gemm_through_core(enum hop_dtype dt, const char *symbol, const char *xname, int order,
                              int transa, int transb, int64_t m, int64_t n, int64_t k,
                              struct hop_scalar alpha, const void *a, int64_t lda, const void *b,
                              int64_t ldb, struct hop_scalar beta, void *c, int64_t ldc)
{
  struct hop_call g = {0};
  int info = hop_cblas_gemm_args(dt, order, transa, transb, m, n, k, a, lda, b, ldb, c, ldc, &g);
  struct hop_trace_call call = {.symbol = symbol, .dtype = dt, .m = m, .n = n, .k = k,
                                .transa = hop_trace_cblas_trans(transa),
                                .transb = hop_trace_cblas_trans(transb)};
  g.symbol = symbol;
  g.alpha = alpha;
  g.beta = beta;
  g.three_m = strstr(symbol, "gemm3m") != NULL;
  hop_entry_finish(HOP_XERBLA, info >= 0, info, xname, &call, &g);
}

/* Kept out of line so that each entry point itself is a test and a tail call. */
__attribute__((noinline)) static void sgemm_through_core(int order, int transa, int transb,
                                                         hop_blas_int m, hop_blas_int n,
                                                         hop_blas_int k, float alpha, const float *a,
                                                         hop_blas_int lda, const float *b,
                                                         hop_blas_int ldb, float beta, float *c,
                                                         hop_blas_int ldc)
{
  gemm_through_core(HOP_DTYPE_S, HOP_CBLAS_SYMBOL(sgemm), "SGEMM ", order, transa, transb, m, n, k,
                    (struct hop_scalar){alpha, 0.0}, a, lda, b, ldb, (struct hop_scalar){beta, 0.0},
                    c, ldc);
}

__attribute__((noinline)) static void dgemm_through_core(int order, int transa, int transb,
                                                         hop_blas_int m, hop_blas_int n,
                                                         hop_blas_int k, double alpha,
                                                         const double *a, hop_blas_int lda,
                                                         const double *b, hop_blas_int ldb,
                                                         double beta, double *c, hop_blas_int ldc)
{
  gemm_through_core(HOP_DTYPE_D, HOP_CBLAS_SYMBOL(dgemm), "DGEMM ", order, transa, transb, m, n, k,
                    (struct hop_scalar){alpha, 0.0}, a, lda, b, ldb, (struct hop_scalar){beta, 0.0},
                    c, ldc);
}

/* Complex scalars come by pointer, as (re, im) of the matrices' type. */
__attribute__((noinline)) static void xgemm_through_core(enum hop_dtype dt, const char *symbol,
                                                         const char *xname, int order, int transa,
                                                         int transb, hop_blas_int m,
                                                         hop_blas_int n, hop_blas_int k,
                                                         const void *alpha, const void *a,
                                                         hop_blas_int lda, const void *b,
                                                         hop_blas_int ldb, const void *beta,
                                                         void *c, hop_blas_int ldc)
{
  gemm_through_core(dt, symbol, xname, order, transa, transb, m, n, k,
                    hop_dtype_load(dt, true, alpha, 0), a, lda, b, ldb,
                    hop_dtype_load(dt, true, beta, 0), c, ldc);
}

/* Tiny calls the CPU would get anyway: OpenBLAS checks and computes them
 * (hop_fast_path_takes), a fork() in another thread waiting for them
 * (hop_fast_entries).  alpha == 0 stays with us: OpenBLAS would read A and B
 * (NaN propagates). */
GEMM_ENTRY(sgemm)(int order, int transa, int transb, hop_blas_int m, hop_blas_int n, hop_blas_int k,
                  float alpha, const float *a, hop_blas_int lda, const float *b, hop_blas_int ldb,
                  float beta, float *c, hop_blas_int ldc)
{
  const struct hop_fast_path *fast = HOP_BLAS_FAST_PATH();
  if (hop_float_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_S, m, n, k, lda, ldb, ldc))
    hop_fast_entries(fast)->cblas_sgemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
                                        c, ldc);
  else
    sgemm_through_core(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
GEMM_ALIASES(sgemm);

GEMM_ENTRY(dgemm)(int order, int transa, int transb, hop_blas_int m, hop_blas_int n, hop_blas_int k,
                  double alpha, const double *a, hop_blas_int lda, const double *b,
                  hop_blas_int ldb, double beta, double *c, hop_blas_int ldc)
{
  const struct hop_fast_path *fast = HOP_BLAS_FAST_PATH();
  if (hop_double_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_D, m, n, k, lda, ldb, ldc))
    hop_fast_entries(fast)->cblas_dgemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
                                        c, ldc);
  else
    dgemm_through_core(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
GEMM_ALIASES(dgemm);

GEMM_ENTRY(cgemm)(int order, int transa, int transb, hop_blas_int m, hop_blas_int n, hop_blas_int k,
                  const void *alpha, const void *a, hop_blas_int lda, const void *b,
                  hop_blas_int ldb, const void *beta, void *c, hop_blas_int ldc)
{
  const struct hop_fast_path *fast = HOP_BLAS_FAST_PATH();
  if (hop_cfloat_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_C, m, n, k, lda, ldb, ldc))
    hop_fast_entries(fast)->cblas_cgemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
                                        c, ldc);
  else
    xgemm_through_core(HOP_DTYPE_C, HOP_CBLAS_SYMBOL(cgemm), "CGEMM ", order, transa, transb, m,
                       n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
GEMM_ALIASES(cgemm);

GEMM_ENTRY(zgemm)(int order, int transa, int transb, hop_blas_int m, hop_blas_int n, hop_blas_int k,
                  const void *alpha, const void *a, hop_blas_int lda, const void *b,
                  hop_blas_int ldb, const void *beta, void *c, hop_blas_int ldc)
{
  const struct hop_fast_path *fast = HOP_BLAS_FAST_PATH();
  if (hop_cdouble_nonzero(alpha) &&
      hop_fast_path_takes(fast, HOP_DTYPE_Z, m, n, k, lda, ldb, ldc))
    hop_fast_entries(fast)->cblas_zgemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
                                        c, ldc);
  else
    xgemm_through_core(HOP_DTYPE_Z, HOP_CBLAS_SYMBOL(zgemm), "ZGEMM ", order, transa, transb, m,
                       n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
GEMM_ALIASES(zgemm);

/* The 3m forms (OpenBLAS, MKL): the same product, which an engine may form
 * with three real GEMMs instead of four (struct hop_call's three_m). */
HOP_EXPORT void HOP_CBLAS_NAME(cgemm3m)(int order, int transa, int transb, hop_blas_int m,
                                        hop_blas_int n, hop_blas_int k, const void *alpha,
                                        const void *a, hop_blas_int lda, const void *b,
                                        hop_blas_int ldb, const void *beta, void *c,
                                        hop_blas_int ldc)
{
  xgemm_through_core(HOP_DTYPE_C, HOP_CBLAS_SYMBOL(cgemm3m), "CGEMM3M ", order, transa, transb, m,
                     n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
HOP_CBLAS_ALIASES(cgemm3m);

HOP_EXPORT void HOP_CBLAS_NAME(zgemm3m)(int order, int transa, int transb, hop_blas_int m,
                                        hop_blas_int n, hop_blas_int k, const void *alpha,
                                        const void *a, hop_blas_int lda, const void *b,
                                        hop_blas_int ldb, const void *beta, void *c,
                                        hop_blas_int ldc)
{
  xgemm_through_core(HOP_DTYPE_Z, HOP_CBLAS_SYMBOL(zgemm3m), "ZGEMM3M ", order, transa, transb, m,
                     n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
HOP_CBLAS_ALIASES(zgemm3m);

HOP_EXPORT void HOP_CBLAS_NAME(hgemm)(int order, int transa, int transb, hop_blas_int m,
                                      hop_blas_int n, hop_blas_int k, hopblas_half alpha,
                                      const hopblas_half *a, hop_blas_int lda,
                                      const hopblas_half *b, hop_blas_int ldb, hopblas_half beta,
                                      hopblas_half *c, hop_blas_int ldc)
{
  gemm_through_core(HOP_DTYPE_H, HOP_CBLAS_SYMBOL(hgemm), "HGEMM ", order, transa, transb, m, n, k,
                    (struct hop_scalar){hop_half_to_float(alpha), 0.0}, a, lda, b, ldb,
                    (struct hop_scalar){hop_half_to_float(beta), 0.0}, c, ldc);
}
HOP_CBLAS_ALIASES(hgemm);

HOP_EXPORT void HOP_CBLAS_NAME(shgemm)(int order, int transa, int transb, hop_blas_int m,
                                       hop_blas_int n, hop_blas_int k, float alpha,
                                       const hopblas_half *a, hop_blas_int lda,
                                       const hopblas_half *b, hop_blas_int ldb, float beta,
                                       float *c, hop_blas_int ldc)
{
  gemm_through_core(HOP_DTYPE_SH, HOP_CBLAS_SYMBOL(shgemm), "SHGEMM", order, transa, transb, m, n,
                    k, (struct hop_scalar){alpha, 0.0}, a, lda, b, ldb,
                    (struct hop_scalar){beta, 0.0}, c, ldc);
}
HOP_CBLAS_ALIASES(shgemm);

#if HOP_FAST_ENTRY_ASM
HOP_FRONT_DOOR_CBLAS(s, HOP_FE_CBLAS_REAL(HOP_FE_ALPHA_S_REG, HOP_FE_MAX_S), HOP_FE_CBLAS_SGEMM);
HOP_FRONT_DOOR_CBLAS(d, HOP_FE_CBLAS_REAL(HOP_FE_ALPHA_D_REG, HOP_FE_MAX_D), HOP_FE_CBLAS_DGEMM);
HOP_FRONT_DOOR_CBLAS(c, HOP_FE_CBLAS_COMPLEX(HOP_FE_ALPHA_C_AT, HOP_FE_MAX_C), HOP_FE_CBLAS_CGEMM);
HOP_FRONT_DOOR_CBLAS(z, HOP_FE_CBLAS_COMPLEX(HOP_FE_ALPHA_Z_AT, HOP_FE_MAX_Z), HOP_FE_CBLAS_ZGEMM);
#endif
