# gemmt and batched GEMM: test/gemmx is the scripts' program (gemmx.h).
check_PROGRAMS += test/gemmx/gemmx
test_gemmx_gemmx_SOURCES = test/gemmx/gemmx.c test/gemmx/gemmx.h test/gemmx/gemmx_gemmt.c \
	test/gemmx/gemmx_errors.c test/gemmx/gemmx_batch.c test/gemmx/gemmx_calls.c
test_gemmx_gemmx_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test -DHOPBLAS_ILP64
# Its own xerbla_ must be what the library calls: export it dynamically.
test_gemmx_gemmx_LDFLAGS = $(HOPTEST_LINK_FLAGS) -export-dynamic
test_gemmx_gemmx_LDADD = $(HOPTEST_LIBS)

HOP_GEMMX_TESTS = test/gemmx/gemmt.test test/gemmx/batch.test
HOP_GEMMX_OPENCL_TESTS = test/gemmx/gemmt-opencl.test test/gemmx/batch-opencl.test
TESTS += $(HOP_GEMMX_TESTS)
if HOP_OPENCL
TESTS += $(HOP_GEMMX_OPENCL_TESTS)
endif
dist_check_SCRIPTS += $(HOP_GEMMX_TESTS) $(HOP_GEMMX_OPENCL_TESTS)
