/* Argument checks shared by the C and Fortran entry points. */
#ifndef HOP_CHECK_H
#define HOP_CHECK_H

#include "hop.h"

enum { HOP_CBLAS_ROW_MAJOR = 101, HOP_CBLAS_COL_MAJOR = 102 };
enum { HOP_CBLAS_NO_TRANS = 111, HOP_CBLAS_TRANS = 112, HOP_CBLAS_CONJ_TRANS = 113,
       HOP_CBLAS_CONJ_NO_TRANS = 114 };
enum { HOP_CBLAS_UPPER = 121, HOP_CBLAS_LOWER = 122 };

/* Check a column-major GEMM the way OpenBLAS's interface/gemm.c does
 * (ta/tb: an enum hop_trans, -1 invalid) and return the Fortran INFO of
 * the first bad argument (1, 2, 3, 4, 5, 8, 10, 13), or 0. */
int hop_check_gemm(int ta, int tb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                   int64_t ldc);

/* A CBLAS or Fortran transpose argument as an enum hop_trans, -1 invalid.
 * Real dtypes read ConjTrans/'C' as T and ConjNoTrans/'R' as N, as
 * OpenBLAS does. */
int hop_cblas_trans(int t, bool complex);
int hop_fortran_trans(char t, bool complex);

/* Build the column-major problem of a CBLAS call; returns the INFO to report
 * through xerbla (0 is a valid INFO: a bad order), or -1 when all is well. */
int hop_cblas_gemm_args(enum hop_dtype dt, int order, int transa, int transb, int64_t m, int64_t n,
                        int64_t k, const void *a, int64_t lda, const void *b, int64_t ldb, void *c,
                        int64_t ldc, struct hop_call *g);

/* gemmt (gemmtr), as OpenBLAS's interface/gemmt.c checks it: uplo 1,
 * transa 2, transb 3, n 4, k 5, lda 8, ldb 10, ldc 13, every ld at least 1,
 * the lowest-numbered bad argument reported.  The numbers are the caller's
 * positions in either order: row_major says how A and B are stored (a
 * transposed row-major A of n rows has n columns).  upper, ta, tb: -1
 * invalid. */
int hop_check_gemmt(bool row_major, int upper, int ta, int tb, int64_t n, int64_t k, int64_t lda,
                    int64_t ldb, int64_t ldc);
int hop_cblas_uplo(int uplo); /* 1 upper, 0 lower, -1 invalid */
int hop_fortran_uplo(char uplo);

/* The column-major gemmt of a CBLAS call (a row-major C's upper triangle is
 * the lower one of its column-major transpose); returns the INFO to report
 * (0: a bad order), or -1. */
int hop_cblas_gemmt_args(enum hop_dtype dt, int order, int uplo, int transa, int transb,
                         int64_t n, int64_t k, const void *a, int64_t lda, const void *b,
                         int64_t ldb, void *c, int64_t ldc, struct hop_call *g);

/* netlib quick return: nothing to do, C is not touched. */
static inline bool hop_quick_return(int64_t m, int64_t n, int64_t k, struct hop_scalar alpha,
                                    struct hop_scalar beta)
{
  return m == 0 || n == 0 ||
         ((hop_scalar_is_zero(alpha) || k == 0) && beta.re == 1.0 && beta.im == 0.0);
}

/* The end of an entry point once its arguments are checked: a bad one
 * (info, when bad) goes to xerbla and gets its trace row, netlib's quick
 * return (on call's m, n, k and g's scalars) gets its row, and anything
 * else runs through core/.  xerbla is the entry file's HOP_XERBLA
 * (blas_int.h): hop_xerbla, or hop_xerbla_64 in its ILP64 build. */
void hop_entry_finish(void (*xerbla)(const char *name, int info), bool bad, int info,
                      const char *xname, const struct hop_trace_call *call,
                      const struct hop_call *g);
/* Its trace row (when tracing) for an argument error. */
void hop_trace_rejected(const struct hop_trace_call *c, int info);

/* Trace letters of CBLAS enumerators ('?' when invalid; check_l3.c). */
char hop_trace_cblas_side(int side);
char hop_trace_cblas_uplo(int uplo);
char hop_trace_cblas_diag(int diag);

/* Report through the (interposable) xerbla_, or xerbla_64_ for the ILP64
 * entry points (HOP_XERBLA in blas_int.h). */
void hop_xerbla(const char *name, int info);
void hop_xerbla_64(const char *name, int info);

#endif
