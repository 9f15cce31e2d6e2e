libhopcore_la_SOURCES += lapack-shim/xerbla.c
HOP_ENTRY_SOURCES += lapack-shim/fortran_gemm.c lapack-shim/fortran_gemmt.c
HOP_ENTRY_SOURCES += lapack-shim/fortran_symm.c lapack-shim/fortran_syrk.c \
	lapack-shim/fortran_syr2k.c lapack-shim/fortran_trmm.c
