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

/* "hopblas X.Y.Z" */
const char *hopblas_version(void);

#ifdef __cplusplus
}
#endif

#endif
