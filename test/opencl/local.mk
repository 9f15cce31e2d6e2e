# The OpenCL engine's tests (PoCL in CI): test/opencl/*.test print TAP.
# They run when the engine is built and are shipped either way.
HOP_OPENCL_TESTS = test/opencl/contract.test test/opencl/netlib.test test/opencl/oclgrind.test \
	test/opencl/fault.test test/opencl/runtime.test test/opencl/bench.test test/opencl/stub.test \
	test/opencl/pipeline.test test/opencl/families.test test/opencl/families-limits.test \
	test/opencl/nvidia.test test/opencl/nv-sources.test test/opencl/level3.test \
	test/opencl/lapack.test test/opencl/devices.test test/opencl/cpu-beside.test \
	test/opencl/learn.test
if HOP_OPENCL
TESTS += $(HOP_OPENCL_TESTS)
endif
dist_check_SCRIPTS += $(HOP_OPENCL_TESTS)
EXTRA_DIST += test/opencl/ocl-env.sh test/opencl/cpu_threads.c

if HOP_OPENCL
# ocl-cases is the scripts' program; fam-* are the kernel families' programs.
check_PROGRAMS += test/opencl/ocl-cases
test_opencl_ocl_cases_SOURCES = test/opencl/ocl-cases.c
test_opencl_ocl_cases_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_opencl_ocl_cases_LDFLAGS = -no-install
test_opencl_ocl_cases_LDADD = test/libhoptest.la libhopblas.la -lm
check_PROGRAMS += test/opencl/fam-shapes test/opencl/fam-error test/opencl/fam-build
test_opencl_fam_shapes_SOURCES = test/opencl/fam-shapes.c
test_opencl_fam_shapes_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_opencl_fam_shapes_LDFLAGS = -no-install
test_opencl_fam_shapes_LDADD = test/libhoptest.la libhopblas.la -lm
test_opencl_fam_error_SOURCES = test/opencl/fam-error.c
test_opencl_fam_error_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_opencl_fam_error_LDFLAGS = -no-install
test_opencl_fam_error_LDADD = test/libhoptest.la libhopblas.la -lm
test_opencl_fam_build_SOURCES = test/opencl/fam-build.c
test_opencl_fam_build_LDFLAGS = -no-install
test_opencl_fam_build_LDADD = -lOpenCL
# nv-sources links the library's internals (libhopcore): the nvidia family's programs.
check_PROGRAMS += test/opencl/nv-sources
test_opencl_nv_sources_SOURCES = test/opencl/nv-sources.c backends/registry.c
test_opencl_nv_sources_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/backends/opencl
test_opencl_nv_sources_LDFLAGS = -no-install
test_opencl_nv_sources_LDADD = libhopcore.la
# setup-arith: backends/opencl/model_learn.c's arithmetic on made-up timings (learn.test).
check_PROGRAMS += test/opencl/setup-arith
test_opencl_setup_arith_SOURCES = test/opencl/setup-arith.c backends/registry.c
test_opencl_setup_arith_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/backends/opencl
test_opencl_setup_arith_LDFLAGS = -no-install
test_opencl_setup_arith_LDADD = libhopcore.la -lm
# copy-bytes: backends/opencl/copy_stream.c's copy at each store width (pipeline.test).
check_PROGRAMS += test/opencl/copy-bytes
test_opencl_copy_bytes_SOURCES = test/opencl/copy-bytes.c backends/registry.c
test_opencl_copy_bytes_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/backends/opencl
test_opencl_copy_bytes_LDFLAGS = -no-install
test_opencl_copy_bytes_LDADD = libhopcore.la -lm
# A stub OpenCL driver (never installed) for valgrind and object counts: stub.test.
check_LTLIBRARIES += test/opencl/libhopstub.la
test_opencl_libhopstub_la_SOURCES = test/opencl/stub-icd.c test/opencl/stub-icd-gemm.c \
	test/opencl/stub-icd.h
test_opencl_libhopstub_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
test_opencl_libhopstub_la_LDFLAGS = -module -avoid-version -rpath $(abs_builddir)
test_opencl_libhopstub_la_LIBADD = -lm
endif
