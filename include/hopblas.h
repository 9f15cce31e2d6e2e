/* hopblas: public extras beside the standard CBLAS/BLAS GEMM entry points.
 *
 * cblas_sgemm and sgemm_ have their usual prototypes (cblas.h, blas.h).
 * This header adds the half-precision GEMMs and the version query.  Layout
 * and transpose arguments take the CBLAS enumeration values
 * (CblasRowMajor = 101, CblasColMajor = 102, CblasNoTrans = 111,
 * CblasTrans = 112, CblasConjTrans = 113); they are declared int here so the
 * header can be included with or without a cblas.h. */
#ifndef HOPBLAS_H
#define HOPBLAS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* IEEE 754 binary16 bit pattern (the same ABI as MKL's MKL_F16).  Scalars are
 * passed as this integer type, never as _Float16, which travels in another
 * register class on x86-64. */
typedef uint16_t hopblas_half;

/* MKL's cblas_hgemm: half A, B, C and half alpha, beta (by value).
 * Products are accumulated in fp32 and C is rounded to half once. */
void cblas_hgemm(int layout, int transa, int transb, int m, int n, int k, hopblas_half alpha,
                 const hopblas_half *a, int lda, const hopblas_half *b, int ldb, hopblas_half beta,
                 hopblas_half *c, int ldc);

/* OpenBLAS 0.3.31's cblas_shgemm: half A and B, float alpha, beta and C. */
void cblas_shgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                  const hopblas_half *a, int lda, const hopblas_half *b, int ldb, float beta,
                  float *c, int ldc);

/* Fortran hgemm (MKL/ArmPL argument order, every argument by reference). */
void hgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const hopblas_half *alpha, const hopblas_half *a, const int *lda, const hopblas_half *b,
            const int *ldb, const hopblas_half *beta, hopblas_half *c, const int *ldc);

/* gemmt (OpenBLAS 0.3.22; gemmtr is LAPACK 3.12's name for it): C = alpha
 * op(A) op(B) + beta C on the triangle of the n x n matrix C that uplo names
 * (CblasUpper = 121, CblasLower = 122; 'U' or 'L'); the other triangle is
 * never written.  op(A) is n x k, op(B) k x n.  Complex scalars by pointer. */
void cblas_sgemmt(int layout, int uplo, int transa, int transb, int n, int k, float alpha,
                  const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void cblas_dgemmt(int layout, int uplo, int transa, int transb, int n, int k, double alpha,
                  const double *a, int lda, const double *b, int ldb, double beta, double *c,
                  int ldc);
void cblas_cgemmt(int layout, int uplo, int transa, int transb, int n, int k, const void *alpha,
                  const void *a, int lda, const void *b, int ldb, const void *beta, void *c,
                  int ldc);
void cblas_zgemmt(int layout, int uplo, int transa, int transb, int n, int k, const void *alpha,
                  const void *a, int lda, const void *b, int ldb, const void *beta, void *c,
                  int ldc);
void cblas_sgemmtr(int layout, int uplo, int transa, int transb, int n, int k, float alpha,
                   const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void cblas_dgemmtr(int layout, int uplo, int transa, int transb, int n, int k, double alpha,
                   const double *a, int lda, const double *b, int ldb, double beta, double *c,
                   int ldc);
void cblas_cgemmtr(int layout, int uplo, int transa, int transb, int n, int k, const void *alpha,
                   const void *a, int lda, const void *b, int ldb, const void *beta, void *c,
                   int ldc);
void cblas_zgemmtr(int layout, int uplo, int transa, int transb, int n, int k, const void *alpha,
                   const void *a, int lda, const void *b, int ldb, const void *beta, void *c,
                   int ldc);
/* Fortran: every argument by reference (sgemmt_, sgemmt, sgemmtr_, sgemmtr, and d, c, z). */
void sgemmt_(const char *uplo, const char *transa, const char *transb, const int *n, const int *k,
             const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
             const float *beta, float *c, const int *ldc);
void dgemmt_(const char *uplo, const char *transa, const char *transb, const int *n, const int *k,
             const double *alpha, const double *a, const int *lda, const double *b,
             const int *ldb, const double *beta, double *c, const int *ldc);
void cgemmt_(const char *uplo, const char *transa, const char *transb, const int *n, const int *k,
             const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,
             const void *beta, void *c, const int *ldc);
void zgemmt_(const char *uplo, const char *transa, const char *transb, const int *n, const int *k,
             const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,
             const void *beta, void *c, const int *ldc);
void sgemmtr_(const char *uplo, const char *transa, const char *transb, const int *n, const int *k,
              const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
              const float *beta, float *c, const int *ldc);
void dgemmtr_(const char *uplo, const char *transa, const char *transb, const int *n, const int *k,
              const double *alpha, const double *a, const int *lda, const double *b,
              const int *ldb, const double *beta, double *c, const int *ldc);
void cgemmtr_(const char *uplo, const char *transa, const char *transb, const int *n, const int *k,
              const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,
              const void *beta, void *c, const int *ldc);
void zgemmtr_(const char *uplo, const char *transa, const char *transb, const int *n, const int *k,
              const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,
              const void *beta, void *c, const int *ldc);

/* Batched GEMM, MKL's and OpenBLAS 0.3.27's group API: group i holds group_size[i]
 * problems of one shape (m[i], n[i], k[i]), transposes, scalars (alpha[i], beta[i];
 * complex ones as (re, im) pairs) and leading dimensions; their operands are the next
 * group_size[i] entries of a, b and c. */
void cblas_sgemm_batch(int layout, const int *transa, const int *transb, const int *m,
                       const int *n, const int *k, const float *alpha, const float **a,
                       const int *lda, const float **b, const int *ldb, const float *beta,
                       float **c, const int *ldc, int group_count, const int *group_size);
void cblas_dgemm_batch(int layout, const int *transa, const int *transb, const int *m,
                       const int *n, const int *k, const double *alpha, const double **a,
                       const int *lda, const double **b, const int *ldb, const double *beta,
                       double **c, const int *ldc, int group_count, const int *group_size);
void cblas_cgemm_batch(int layout, const int *transa, const int *transb, const int *m,
                       const int *n, const int *k, const void *alpha, const void **a,
                       const int *lda, const void **b, const int *ldb, const void *beta,
                       void **c, const int *ldc, int group_count, const int *group_size);
void cblas_zgemm_batch(int layout, const int *transa, const int *transb, const int *m,
                       const int *n, const int *k, const void *alpha, const void **a,
                       const int *lda, const void **b, const int *ldb, const void *beta,
                       void **c, const int *ldc, int group_count, const int *group_size);
/* count problems of one shape, problem p's operands at a + p stride_a, ... (elements). */
void cblas_sgemm_batch_strided(int layout, int transa, int transb, int m, int n, int k,
                               float alpha, const float *a, int lda, int stride_a, const float *b,
                               int ldb, int stride_b, float beta, float *c, int ldc, int stride_c,
                               int count);
void cblas_dgemm_batch_strided(int layout, int transa, int transb, int m, int n, int k,
                               double alpha, const double *a, int lda, int stride_a,
                               const double *b, int ldb, int stride_b, double beta, double *c,
                               int ldc, int stride_c, int count);
void cblas_cgemm_batch_strided(int layout, int transa, int transb, int m, int n, int k,
                               const void *alpha, const void *a, int lda, int stride_a,
                               const void *b, int ldb, int stride_b, const void *beta, void *c,
                               int ldc, int stride_c, int count);
void cblas_zgemm_batch_strided(int layout, int transa, int transb, int m, int n, int k,
                               const void *alpha, const void *a, int lda, int stride_a,
                               const void *b, int ldb, int stride_b, const void *beta, void *c,
                               int ldc, int stride_c, int count);

/* "hopblas X.Y.Z" */
const char *hopblas_version(void);

/* The ILP64 interface: every integer argument 64-bit, OpenBLAS's 64_ names
 * (what OpenBLAS built with INTERFACE64=1 SYMBOLSUFFIX=64_ exports).  The
 * library also answers to scipy-openblas's prefixed forms of every name
 * here and above (scipy_cblas_sgemm64_, scipy_sgemm_64_, scipy_cblas_sgemm,
 * scipy_sgemm_), for pip's numpy and scipy.  Declared only when
 * HOPBLAS_ILP64 is defined, so that this header never clashes with a
 * cblas.h that declares the same names. */
#ifdef HOPBLAS_ILP64
typedef int64_t hopblas_int64;

void cblas_sgemm64_(int layout, int transa, int transb, hopblas_int64 m, hopblas_int64 n,
                    hopblas_int64 k, float alpha, const float *a, hopblas_int64 lda,
                    const float *b, hopblas_int64 ldb, float beta, float *c, hopblas_int64 ldc);
void cblas_dgemm64_(int layout, int transa, int transb, hopblas_int64 m, hopblas_int64 n,
                    hopblas_int64 k, double alpha, const double *a, hopblas_int64 lda,
                    const double *b, hopblas_int64 ldb, double beta, double *c,
                    hopblas_int64 ldc);
/* Complex scalars and matrices by pointer, (re, im) pairs. */
void cblas_cgemm64_(int layout, int transa, int transb, hopblas_int64 m, hopblas_int64 n,
                    hopblas_int64 k, const void *alpha, const void *a, hopblas_int64 lda,
                    const void *b, hopblas_int64 ldb, const void *beta, void *c,
                    hopblas_int64 ldc);
void cblas_zgemm64_(int layout, int transa, int transb, hopblas_int64 m, hopblas_int64 n,
                    hopblas_int64 k, const void *alpha, const void *a, hopblas_int64 lda,
                    const void *b, hopblas_int64 ldb, const void *beta, void *c,
                    hopblas_int64 ldc);
void cblas_cgemm3m64_(int layout, int transa, int transb, hopblas_int64 m, hopblas_int64 n,
                      hopblas_int64 k, const void *alpha, const void *a, hopblas_int64 lda,
                      const void *b, hopblas_int64 ldb, const void *beta, void *c,
                      hopblas_int64 ldc);
void cblas_zgemm3m64_(int layout, int transa, int transb, hopblas_int64 m, hopblas_int64 n,
                      hopblas_int64 k, const void *alpha, const void *a, hopblas_int64 lda,
                      const void *b, hopblas_int64 ldb, const void *beta, void *c,
                      hopblas_int64 ldc);
void cblas_hgemm64_(int layout, int transa, int transb, hopblas_int64 m, hopblas_int64 n,
                    hopblas_int64 k, hopblas_half alpha, const hopblas_half *a, hopblas_int64 lda,
                    const hopblas_half *b, hopblas_int64 ldb, hopblas_half beta,
                    hopblas_half *c, hopblas_int64 ldc);
void cblas_shgemm64_(int layout, int transa, int transb, hopblas_int64 m, hopblas_int64 n,
                     hopblas_int64 k, float alpha, const hopblas_half *a, hopblas_int64 lda,
                     const hopblas_half *b, hopblas_int64 ldb, float beta, float *c,
                     hopblas_int64 ldc);

/* gemmt and gemmtr, and the batched GEMMs, with 64-bit integers (as above). */
void cblas_sgemmt64_(int layout, int uplo, int transa, int transb, hopblas_int64 n,
                     hopblas_int64 k, float alpha, const float *a, hopblas_int64 lda,
                     const float *b, hopblas_int64 ldb, float beta, float *c, hopblas_int64 ldc);
void cblas_dgemmt64_(int layout, int uplo, int transa, int transb, hopblas_int64 n,
                     hopblas_int64 k, double alpha, const double *a, hopblas_int64 lda,
                     const double *b, hopblas_int64 ldb, double beta, double *c,
                     hopblas_int64 ldc);
void cblas_cgemmt64_(int layout, int uplo, int transa, int transb, hopblas_int64 n,
                     hopblas_int64 k, const void *alpha, const void *a, hopblas_int64 lda,
                     const void *b, hopblas_int64 ldb, const void *beta, void *c,
                     hopblas_int64 ldc);
void cblas_zgemmt64_(int layout, int uplo, int transa, int transb, hopblas_int64 n,
                     hopblas_int64 k, const void *alpha, const void *a, hopblas_int64 lda,
                     const void *b, hopblas_int64 ldb, const void *beta, void *c,
                     hopblas_int64 ldc);
void cblas_sgemmtr64_(int layout, int uplo, int transa, int transb, hopblas_int64 n,
                      hopblas_int64 k, float alpha, const float *a, hopblas_int64 lda,
                      const float *b, hopblas_int64 ldb, float beta, float *c, hopblas_int64 ldc);
void cblas_dgemmtr64_(int layout, int uplo, int transa, int transb, hopblas_int64 n,
                      hopblas_int64 k, double alpha, const double *a, hopblas_int64 lda,
                      const double *b, hopblas_int64 ldb, double beta, double *c,
                      hopblas_int64 ldc);
void cblas_cgemmtr64_(int layout, int uplo, int transa, int transb, hopblas_int64 n,
                      hopblas_int64 k, const void *alpha, const void *a, hopblas_int64 lda,
                      const void *b, hopblas_int64 ldb, const void *beta, void *c,
                      hopblas_int64 ldc);
void cblas_zgemmtr64_(int layout, int uplo, int transa, int transb, hopblas_int64 n,
                      hopblas_int64 k, const void *alpha, const void *a, hopblas_int64 lda,
                      const void *b, hopblas_int64 ldb, const void *beta, void *c,
                      hopblas_int64 ldc);
/* sgemmt_64_ ... zgemmtr_64_: as sgemmt_ with hopblas_int64 integers. */
void sgemmt_64_(const char *uplo, const char *transa, const char *transb, const hopblas_int64 *n,
                const hopblas_int64 *k, const float *alpha, const float *a,
                const hopblas_int64 *lda, const float *b, const hopblas_int64 *ldb,
                const float *beta, float *c, const hopblas_int64 *ldc);
void dgemmt_64_(const char *uplo, const char *transa, const char *transb, const hopblas_int64 *n,
                const hopblas_int64 *k, const double *alpha, const double *a,
                const hopblas_int64 *lda, const double *b, const hopblas_int64 *ldb,
                const double *beta, double *c, const hopblas_int64 *ldc);
void cgemmt_64_(const char *uplo, const char *transa, const char *transb, const hopblas_int64 *n,
                const hopblas_int64 *k, const void *alpha, const void *a,
                const hopblas_int64 *lda, const void *b, const hopblas_int64 *ldb,
                const void *beta, void *c, const hopblas_int64 *ldc);
void zgemmt_64_(const char *uplo, const char *transa, const char *transb, const hopblas_int64 *n,
                const hopblas_int64 *k, const void *alpha, const void *a,
                const hopblas_int64 *lda, const void *b, const hopblas_int64 *ldb,
                const void *beta, void *c, const hopblas_int64 *ldc);
void sgemmtr_64_(const char *uplo, const char *transa, const char *transb,
                 const hopblas_int64 *n, const hopblas_int64 *k, const float *alpha,
                 const float *a, const hopblas_int64 *lda, const float *b,
                 const hopblas_int64 *ldb, const float *beta, float *c, const hopblas_int64 *ldc);
void dgemmtr_64_(const char *uplo, const char *transa, const char *transb,
                 const hopblas_int64 *n, const hopblas_int64 *k, const double *alpha,
                 const double *a, const hopblas_int64 *lda, const double *b,
                 const hopblas_int64 *ldb, const double *beta, double *c,
                 const hopblas_int64 *ldc);
void cgemmtr_64_(const char *uplo, const char *transa, const char *transb,
                 const hopblas_int64 *n, const hopblas_int64 *k, const void *alpha,
                 const void *a, const hopblas_int64 *lda, const void *b,
                 const hopblas_int64 *ldb, const void *beta, void *c, const hopblas_int64 *ldc);
void zgemmtr_64_(const char *uplo, const char *transa, const char *transb,
                 const hopblas_int64 *n, const hopblas_int64 *k, const void *alpha,
                 const void *a, const hopblas_int64 *lda, const void *b,
                 const hopblas_int64 *ldb, const void *beta, void *c, const hopblas_int64 *ldc);
void cblas_sgemm_batch64_(int layout, const int *transa, const int *transb,
                          const hopblas_int64 *m, const hopblas_int64 *n, const hopblas_int64 *k,
                          const float *alpha, const float **a, const hopblas_int64 *lda,
                          const float **b, const hopblas_int64 *ldb, const float *beta,
                          float **c, const hopblas_int64 *ldc, hopblas_int64 group_count,
                          const hopblas_int64 *group_size);
void cblas_dgemm_batch64_(int layout, const int *transa, const int *transb,
                          const hopblas_int64 *m, const hopblas_int64 *n, const hopblas_int64 *k,
                          const double *alpha, const double **a, const hopblas_int64 *lda,
                          const double **b, const hopblas_int64 *ldb, const double *beta,
                          double **c, const hopblas_int64 *ldc, hopblas_int64 group_count,
                          const hopblas_int64 *group_size);
void cblas_cgemm_batch64_(int layout, const int *transa, const int *transb,
                          const hopblas_int64 *m, const hopblas_int64 *n, const hopblas_int64 *k,
                          const void *alpha, const void **a, const hopblas_int64 *lda,
                          const void **b, const hopblas_int64 *ldb, const void *beta, void **c,
                          const hopblas_int64 *ldc, hopblas_int64 group_count,
                          const hopblas_int64 *group_size);
void cblas_zgemm_batch64_(int layout, const int *transa, const int *transb,
                          const hopblas_int64 *m, const hopblas_int64 *n, const hopblas_int64 *k,
                          const void *alpha, const void **a, const hopblas_int64 *lda,
                          const void **b, const hopblas_int64 *ldb, const void *beta, void **c,
                          const hopblas_int64 *ldc, hopblas_int64 group_count,
                          const hopblas_int64 *group_size);
void cblas_sgemm_batch_strided64_(int layout, int transa, int transb, hopblas_int64 m,
                                  hopblas_int64 n, hopblas_int64 k, float alpha, const float *a,
                                  hopblas_int64 lda, hopblas_int64 stride_a, const float *b,
                                  hopblas_int64 ldb, hopblas_int64 stride_b, float beta, float *c,
                                  hopblas_int64 ldc, hopblas_int64 stride_c, hopblas_int64 count);
void cblas_dgemm_batch_strided64_(int layout, int transa, int transb, hopblas_int64 m,
                                  hopblas_int64 n, hopblas_int64 k, double alpha,
                                  const double *a, hopblas_int64 lda, hopblas_int64 stride_a,
                                  const double *b, hopblas_int64 ldb, hopblas_int64 stride_b,
                                  double beta, double *c, hopblas_int64 ldc,
                                  hopblas_int64 stride_c, hopblas_int64 count);
void cblas_cgemm_batch_strided64_(int layout, int transa, int transb, hopblas_int64 m,
                                  hopblas_int64 n, hopblas_int64 k, const void *alpha,
                                  const void *a, hopblas_int64 lda, hopblas_int64 stride_a,
                                  const void *b, hopblas_int64 ldb, hopblas_int64 stride_b,
                                  const void *beta, void *c, hopblas_int64 ldc,
                                  hopblas_int64 stride_c, hopblas_int64 count);
void cblas_zgemm_batch_strided64_(int layout, int transa, int transb, hopblas_int64 m,
                                  hopblas_int64 n, hopblas_int64 k, const void *alpha,
                                  const void *a, hopblas_int64 lda, hopblas_int64 stride_a,
                                  const void *b, hopblas_int64 ldb, hopblas_int64 stride_b,
                                  const void *beta, void *c, hopblas_int64 ldc,
                                  hopblas_int64 stride_c, hopblas_int64 count);

/* Fortran hgemm with 64-bit integers. */
void hgemm_64_(const char *transa, const char *transb, const hopblas_int64 *m,
               const hopblas_int64 *n, const hopblas_int64 *k, const hopblas_half *alpha,
               const hopblas_half *a, const hopblas_int64 *lda, const hopblas_half *b,
               const hopblas_int64 *ldb, const hopblas_half *beta, hopblas_half *c,
               const hopblas_int64 *ldc);
#endif

#ifdef __cplusplus
}
#endif

#endif
