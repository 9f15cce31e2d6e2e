libhopcore_la_SOURCES += lapack-shim/fortran_gemm.c lapack-shim/fortran_gemmt.c lapack-shim/xerbla.c
