libhopcore_la_SOURCES += cblas/check.h cblas/check.c cblas/cblas_gemm.c cblas/cblas_gemmt.c
