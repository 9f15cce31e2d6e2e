# The VideoCore IV engine: QPU assembler, sgemm program generator, host
# side, emulator and mailbox launchers, the hopblas-qpu-emu tool.
HOP_VC_INC = -I$(top_srcdir)/backends/videocore -I$(top_srcdir)/backends/videocore/emu

# The keys are known in every build, so that one config file serves them all.
libhopcore_la_SOURCES += backends/videocore/keys.c

if HOP_VIDEOCORE
libhopcore_la_SOURCES += backends/videocore/qpu_asm.h backends/videocore/qpu_encode.c \
	backends/videocore/qpu_asm.c backends/videocore/qpu_disasm.c \
	backends/videocore/emu/qpu_emu.h backends/videocore/emu/emu_internal.h \
	backends/videocore/emu/emu_core.c backends/videocore/emu/emu_alu.c \
	backends/videocore/emu/emu_step.c backends/videocore/emu/emu_ctl.c \
	backends/videocore/emu/emu_io.c \
	backends/videocore/vc.h backends/videocore/sgemm_gen.c backends/videocore/sgemm_cupdate.c \
	backends/videocore/vc_pack.c backends/videocore/launch_emu.c backends/videocore/mailbox.h \
	backends/videocore/mailbox.c backends/videocore/vc_engine.c
libhopcore_la_CPPFLAGS += $(HOP_VC_INC)

bin_PROGRAMS += hopblas-qpu-emu
dist_man1_MANS += doc/man/hopblas-qpu-emu.1
hopblas_qpu_emu_SOURCES = backends/videocore/emu/qpu_emu_main.c
hopblas_qpu_emu_CPPFLAGS = $(AM_CPPFLAGS) $(HOP_VC_INC)
hopblas_qpu_emu_LDADD = libhopcore.la

# The unit tests (test/videocore/local.mk) and the benchmark build with these.
HOP_VC_TEST_CPPFLAGS = $(AM_CPPFLAGS) $(HOP_VC_INC) -I$(top_srcdir)/test/videocore
endif

# The benchmark: our program and py-videocore's kernel on the emulator.
if HOP_VIDEOCORE
noinst_PROGRAMS += benchmark/vc-bench
benchmark_vc_bench_SOURCES = benchmark/vc-bench.c test/videocore/vc_golden_layout.h
benchmark_vc_bench_CPPFLAGS = $(HOP_VC_TEST_CPPFLAGS) -DHOP_SHARED_DIR='"$(HOP_SHARED_DIR)"'
benchmark_vc_bench_LDADD = libhopcore.la -lm
endif
