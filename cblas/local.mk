libhopcore_la_SOURCES += cblas/blas_int.h cblas/check.h cblas/check.c cblas/version.c
HOP_ENTRY_SOURCES += cblas/cblas_gemm.c cblas/cblas_gemmt.c cblas/cblas_gemm_batch.c
# The rest of Level 3: the checks they share, and their entry points.
libhopcore_la_SOURCES += cblas/check_l3.h cblas/check_l3.c
HOP_ENTRY_SOURCES += cblas/cblas_symm.c cblas/cblas_syrk.c cblas/cblas_syr2k.c cblas/cblas_trmm.c
