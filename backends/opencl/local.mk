# The OpenCL engine: backends/opencl/*.c, kernels/*.cl embedded at build time.
HOP_CL_KERNELS = kernels/gemm_generic.cl kernels/gemm_image.cl kernels/gemm_adreno.cl \
	kernels/gemm_mali.cl kernels/nv_sgemm_fma.cl kernels/nv_hgemm_mma.cl \
	kernels/nv_sgemm_3xtf32.cl kernels/nv_probe.cl kernels/nv_mma_emu.cl kernels/nv_split.cl \
	kernels/nv_hgemm_f16x2.cl
EXTRA_DIST += $(HOP_CL_KERNELS) tools/embed-cl.sh
CLEANFILES += kernels/kernels_embedded.c kernels/embed.stamp

if HOP_OPENCL
libhopcore_la_SOURCES += backends/opencl/ocl.h backends/opencl/sources.h \
	backends/opencl/engine.c backends/opencl/runtime.c backends/opencl/generic.c \
	backends/opencl/program.c backends/opencl/cache.c backends/opencl/plan.c \
	backends/opencl/transfer.c backends/opencl/run.h backends/opencl/run.c \
	backends/opencl/run_zero_copy.c backends/opencl/run_staged.c backends/opencl/fault.c \
	backends/opencl/family.h backends/opencl/family.c backends/opencl/image.c \
	backends/opencl/pack.c backends/opencl/adreno.c backends/opencl/mali.c \
	backends/opencl/nvidia.h backends/opencl/nvidia.c backends/opencl/nvidia_pick.c \
	backends/opencl/nvidia_probe.c backends/opencl/copy.c
nodist_libhopcore_la_SOURCES = kernels/kernels_embedded.c
libhopcore_la_CPPFLAGS += -I$(top_srcdir)/backends/opencl
libhopcore_la_LIBADD += -lOpenCL
BUILT_SOURCES += kernels/kernels_embedded.c
endif

# The generated C is rewritten only when its content changes (stamp rule),
# so editing a comment elsewhere does not rebuild the library.
kernels/kernels_embedded.c: kernels/embed.stamp
	@test -f $@ || { rm -f kernels/embed.stamp; $(MAKE) $(AM_MAKEFLAGS) kernels/embed.stamp; }
# The prerequisites are found in the source tree through VPATH.
kernels/embed.stamp: $(HOP_CL_KERNELS) tools/embed-cl.sh
	$(AM_V_GEN)$(MKDIR_P) kernels && \
	$(SHELL) $(srcdir)/tools/embed-cl.sh $(srcdir) $(HOP_CL_KERNELS) >kernels/kernels_embedded.c.tmp && \
	if cmp -s kernels/kernels_embedded.c.tmp kernels/kernels_embedded.c; then \
	  rm -f kernels/kernels_embedded.c.tmp; \
	else mv kernels/kernels_embedded.c.tmp kernels/kernels_embedded.c; fi && \
	touch $@

# Tests (PoCL in CI): test/opencl/*.test print TAP; ocl-cases is their program.
if HOP_OPENCL
check_PROGRAMS += test/opencl/ocl-cases
test_opencl_ocl_cases_SOURCES = test/opencl/ocl-cases.c
test_opencl_ocl_cases_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_opencl_ocl_cases_LDFLAGS = -no-install
test_opencl_ocl_cases_LDADD = test/libhoptest.la libhopblas.la -lm
TESTS += test/opencl/contract.test test/opencl/netlib.test test/opencl/oclgrind.test \
	test/opencl/fault.test test/opencl/runtime.test test/opencl/bench.test test/opencl/stub.test \
	test/opencl/pipeline.test
# A stub OpenCL driver (never installed) for valgrind and object counts: stub.test.
check_LTLIBRARIES += test/opencl/libhopstub.la
test_opencl_libhopstub_la_SOURCES = test/opencl/stub-icd.c test/opencl/stub-icd-gemm.c \
	test/opencl/stub-icd.h
test_opencl_libhopstub_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
test_opencl_libhopstub_la_LDFLAGS = -module -avoid-version -rpath $(abs_builddir)
test_opencl_libhopstub_la_LIBADD = -lm
endif
dist_check_SCRIPTS += test/opencl/contract.test test/opencl/netlib.test test/opencl/oclgrind.test \
	test/opencl/fault.test test/opencl/runtime.test test/opencl/bench.test test/opencl/stub.test \
	test/opencl/pipeline.test
EXTRA_DIST += test/opencl/ocl-env.sh

# The kernel families' tests (test/opencl/families*.test, nvidia.test) and their programs.
if HOP_OPENCL
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
TESTS += test/opencl/families.test test/opencl/families-limits.test test/opencl/nvidia.test
endif
dist_check_SCRIPTS += test/opencl/families.test test/opencl/families-limits.test \
	test/opencl/nvidia.test

# The tuner: parameter spaces, search, lookup chain, built-in table, calibration (issue 6).
if HOP_OPENCL
libhopcore_la_SOURCES += backends/opencl/tune.h backends/opencl/tune.c \
	backends/opencl/tune_space.c backends/opencl/tune_select.c backends/opencl/tune_table.c \
	backends/opencl/tune_calib.c backends/opencl/tune_image.c backends/opencl/tune_bench.c
endif
