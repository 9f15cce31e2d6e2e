libhopcore_la_SOURCES += lapack-shim/fortran_gemm.c lapack-shim/xerbla.c
