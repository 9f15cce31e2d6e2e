# The OpenCL engine: backends/opencl/*.c, kernels/*.cl embedded at build time.
HOP_CL_KERNELS = kernels/gemm_generic.cl kernels/gemm_image.cl kernels/gemm_adreno.cl \
	kernels/gemm_mali.cl kernels/nv_sgemm_fma.cl kernels/nv_hgemm_mma.cl \
	kernels/nv_sgemm_3xtf32.cl kernels/nv_probe.cl kernels/nv_ptx.cl kernels/nv_mma_emu.cl \
	kernels/nv_split.cl kernels/nv_hgemm_f16x2.cl kernels/nv_dgemm_mma.cl \
	kernels/trsm_slab.cl kernels/plane_spread.cl
EXTRA_DIST += $(HOP_CL_KERNELS) tools/embed-cl.sh
CLEANFILES += kernels/kernels_embedded.c kernels/embed.stamp

# The keys are known in every build, so that one config file serves them all.
libhopcore_la_SOURCES += backends/opencl/keys.c

if HOP_OPENCL
libhopcore_la_SOURCES += backends/opencl/ocl.h backends/opencl/sources.h \
	backends/opencl/engine.c backends/opencl/model_learn.c backends/opencl/split.c backends/opencl/split_learn.c backends/opencl/split_share.c backends/opencl/level3.h backends/opencl/level3.c \
	backends/opencl/level3_tri.c backends/opencl/level3_complex.c backends/opencl/level3_ctrsm.c backends/opencl/runtime.c backends/opencl/generic.c \
	backends/opencl/program.c backends/opencl/cache.c backends/opencl/plan.c \
	backends/opencl/transfer.c backends/opencl/run.h backends/opencl/run.c backends/opencl/batch.c \
	backends/opencl/run_zero_copy.c backends/opencl/run_staged.c backends/opencl/run_lead.c backends/opencl/run_later.c backends/opencl/plane_spread.c backends/opencl/fault.c \
	backends/opencl/family.h backends/opencl/family.c backends/opencl/image.h \
	backends/opencl/image.c backends/opencl/pack.c backends/opencl/adreno.c backends/opencl/mali.c \
	backends/opencl/nvidia.h backends/opencl/nvidia.c backends/opencl/nvidia_pick.c \
	backends/opencl/nvidia_probe.c backends/opencl/copy.c \
	backends/opencl/copy_stream.c backends/opencl/timeline.c
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

# The engine's tests and their programs are in test/opencl/local.mk.

# The tuner: parameter spaces, search, lookup chain, built-in table, calibration.
if HOP_OPENCL
libhopcore_la_SOURCES += backends/opencl/tune.h backends/opencl/tune.c \
	backends/opencl/tune_space.c backends/opencl/tune_select.c backends/opencl/tune_table.c \
	backends/opencl/tune_calib.c backends/opencl/tune_image.c backends/opencl/tune_bench.c
# What `hopblas tune` and `hopblas bench` ask of the engine (core/engine_tools.h).
libhopcore_la_SOURCES += backends/opencl/tools_tune.c backends/opencl/tools_resident.c
endif
