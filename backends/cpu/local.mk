libhopcore_la_SOURCES += backends/cpu/cpu.h backends/cpu/cpu.c backends/cpu/load.c backends/cpu/blas64.c \
	backends/cpu/ref_gemm.c backends/cpu/ref_gemm_wide.c backends/cpu/half_gemm.c \
	backends/cpu/calibrate.c backends/cpu/gemmt.c backends/cpu/blas_l3.c backends/cpu/ref_l3.c \
	backends/cpu/batch.c backends/cpu/threads.c backends/cpu/learn.c
