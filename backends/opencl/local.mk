# The OpenCL engine: backends/opencl/*.c, kernels/*.cl embedded at build time.
HOP_CL_KERNELS = kernels/gemm_generic.cl
EXTRA_DIST += $(HOP_CL_KERNELS) tools/embed-cl.sh
CLEANFILES += kernels/kernels_embedded.c kernels/embed.stamp

if HOP_OPENCL
libhopcore_la_SOURCES += backends/opencl/ocl.h backends/opencl/sources.h \
	backends/opencl/engine.c backends/opencl/runtime.c backends/opencl/generic.c \
	backends/opencl/program.c backends/opencl/cache.c backends/opencl/plan.c \
	backends/opencl/transfer.c backends/opencl/run.c backends/opencl/fault.c
nodist_libhopcore_la_SOURCES = kernels/kernels_embedded.c
libhopcore_la_CPPFLAGS += -I$(top_srcdir)/backends/opencl
libhopcore_la_LIBADD += -lOpenCL
BUILT_SOURCES += kernels/kernels_embedded.c
endif

# The generated C is rewritten only when its content changes (stamp rule),
# so editing a comment elsewhere does not rebuild the library.
kernels/kernels_embedded.c: kernels/embed.stamp
	@test -f $@ || { rm -f kernels/embed.stamp; $(MAKE) $(AM_MAKEFLAGS) kernels/embed.stamp; }
kernels/embed.stamp: $(srcdir)/kernels/gemm_generic.cl $(srcdir)/tools/embed-cl.sh
	$(AM_V_GEN)$(MKDIR_P) kernels && \
	$(SHELL) $(srcdir)/tools/embed-cl.sh $(srcdir) $(HOP_CL_KERNELS) >kernels/kernels_embedded.c.tmp && \
	if cmp -s kernels/kernels_embedded.c.tmp kernels/kernels_embedded.c; then \
	  rm -f kernels/kernels_embedded.c.tmp; \
	else mv kernels/kernels_embedded.c.tmp kernels/kernels_embedded.c; fi && \
	touch $@
