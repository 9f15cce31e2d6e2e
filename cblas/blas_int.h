/* The integer type of the BLAS interface an entry-point file is built for.
 *
 * Every entry-point file is compiled twice: as it is, for the standard LP64
 * names (int, cblas_sgemm, sgemm_), and with HOP_ILP64 defined, for the
 * ILP64 names (int64_t): OpenBLAS's 64_ suffix (cblas_sgemm64_, sgemm_64_,
 * as OpenBLAS built with INTERFACE64=1 SYMBOLSUFFIX=64_ exports them, and
 * Julia's BLAS trampoline calls them).  Both builds also export
 * scipy-openblas's prefixed names as aliases: scipy_cblas_sgemm64_ and
 * scipy_sgemm_64_ (what pip's numpy calls), scipy_cblas_sgemm and
 * scipy_sgemm_ (what pip's scipy calls).
 *
 * An entry point is written once, with hop_blas_int for every integer
 * argument and these macros for its names:
 *
 *   HOP_EXPORT void HOP_CBLAS_NAME(sgemm)(int order, ..., hop_blas_int m, ...) { ... }
 *   HOP_CBLAS_ALIASES(sgemm);
 *   HOP_EXPORT void HOP_F77_NAME(sgemm)(..., const hop_blas_int *m, ...) { ... }
 *   HOP_F77_ALIASES(sgemm);
 *   HOP_F77_BARE(sgemm)
 *
 * and reports argument errors through HOP_XERBLA (hop_entry_finish takes it).
 *
 * A new entry-point file joins with one line in its folder's local.mk,
 *   HOP_ENTRY_SOURCES += cblas/cblas_symm.c
 * which compiles it into libhopcore (LP64) and libhopilp64 (-DHOP_ILP64);
 * its names go into libhopblas.map, both forms.  Symbols that must exist
 * once (globals, helpers) live outside those files. */
#ifndef HOP_BLAS_INT_H
#define HOP_BLAS_INT_H

#include <stdint.h>

/* A macro argument as a string, as it is (HOP_STR) or expanded first (HOP_XSTR). */
#define HOP_STR(x) #x
#define HOP_XSTR(x) HOP_STR(x)

#ifdef HOP_ILP64
#define HOPBLAS_ILP64 /* include/hopblas.h then declares the ILP64 names it defines */
typedef int64_t hop_blas_int;
#define HOP_CBLAS_NAME(base) cblas_##base##64_      /* cblas_sgemm64_ */
#define HOP_F77_NAME(base) base##_64_               /* sgemm_64_ */
#define HOP_SCIPY_CBLAS_NAME(base) scipy_cblas_##base##64_
#define HOP_SCIPY_F77_NAME(base) scipy_##base##_64_
/* No bare Fortran name (sgemm beside sgemm_): ILP64 libraries have none. */
#define HOP_F77_BARE(base)
/* Argument errors reach xerbla_64_, as OpenBLAS's ILP64 build reports them. */
#define HOP_XERBLA hop_xerbla_64
/* ILP64 calls skip the tiny-call fast path: it would hand OpenBLAS's LP64
 * entry points narrowed integers, and OpenBLAS would report argument
 * errors through xerbla_ instead of xerbla_64_.  hop_fast_path_off takes
 * no call, so the narrowing call in an entry point is never made. */
#define HOP_BLAS_FAST_PATH() (&hop_fast_path_off)
#else
typedef int hop_blas_int;
#define HOP_CBLAS_NAME(base) cblas_##base /* cblas_sgemm */
#define HOP_F77_NAME(base) base##_        /* sgemm_ */
#define HOP_SCIPY_CBLAS_NAME(base) scipy_cblas_##base
#define HOP_SCIPY_F77_NAME(base) scipy_##base##_
/* The bare Fortran name beside the underscored one: sgemm beside sgemm_. */
#define HOP_F77_BARE(base)                                                                         \
  extern __typeof__(HOP_F77_NAME(base)) base                                                       \
    __attribute__((alias(HOP_XSTR(HOP_F77_NAME(base))), visibility("default")));
#define HOP_XERBLA hop_xerbla
#define HOP_BLAS_FAST_PATH() hop_fast_path()
#endif

/* Another exported name, other, of the entry point name: the same function. */
#define HOP_ALIAS(other, name) HOP_EXPORT __typeof__(name) other __attribute__((alias(HOP_XSTR(name))))
/* The scipy-openblas names of an entry point. */
#define HOP_CBLAS_ALIASES(base) HOP_ALIAS(HOP_SCIPY_CBLAS_NAME(base), HOP_CBLAS_NAME(base))
#define HOP_F77_ALIASES(base) HOP_ALIAS(HOP_SCIPY_F77_NAME(base), HOP_F77_NAME(base))

/* The name as a string, for the trace: "cblas_sgemm64_". */
#define HOP_CBLAS_SYMBOL(base) HOP_XSTR(HOP_CBLAS_NAME(base))
#define HOP_F77_SYMBOL(base) HOP_XSTR(HOP_F77_NAME(base))

#endif
