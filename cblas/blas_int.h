/* The integer type of the BLAS interface an entry-point file is built for.
 *
 * Every entry-point file is compiled twice (see cblas/local.mk): as it is,
 * for the standard LP64 names (int, cblas_sgemm, sgemm_), and with
 * HOP_ILP64 defined, for the ILP64 names (int64_t): OpenBLAS's 64_ suffix
 * (cblas_sgemm64_, sgemm_64_, as Debian's libopenblas64 exports them) and
 * scipy-openblas's prefixed aliases (scipy_cblas_sgemm64_, scipy_sgemm_64_,
 * what pip's numpy and scipy call).  An entry point is written once, with
 * hop_blas_int for every integer argument and these macros for its names. */
#ifndef HOP_BLAS_INT_H
#define HOP_BLAS_INT_H

#include <stdint.h>

#ifdef HOP_ILP64
typedef int64_t hop_blas_int;
#define HOP_CBLAS_NAME(base) cblas_##base##64_      /* cblas_sgemm64_ */
#define HOP_F77_NAME(base) base##_64_               /* sgemm_64_ */
#define HOP_SCIPY_CBLAS_NAME(base) scipy_cblas_##base##64_
#define HOP_SCIPY_F77_NAME(base) scipy_##base##_64_
#else
typedef int hop_blas_int;
#define HOP_CBLAS_NAME(base) cblas_##base /* cblas_sgemm */
#define HOP_F77_NAME(base) base##_        /* sgemm_ */
#endif

#endif
