# The VideoCore IV engine: QPU assembler, sgemm program generator, host
# side, emulator and mailbox launchers, the hopblas-qpu-emu tool and tests.
HOP_VC_INC = -I$(top_srcdir)/backends/videocore -I$(top_srcdir)/backends/videocore/emu

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
hopblas_qpu_emu_SOURCES = backends/videocore/emu/qpu_emu_main.c
hopblas_qpu_emu_CPPFLAGS = $(AM_CPPFLAGS) $(HOP_VC_INC)
hopblas_qpu_emu_LDADD = libhopcore.la

# Unit tests link the engine's internals straight from libhopcore.
HOP_VC_TEST_CPPFLAGS = $(AM_CPPFLAGS) $(HOP_VC_INC) -I$(top_srcdir)/test/videocore
check_PROGRAMS += test/videocore/vc-asm-test test/videocore/vc-emu-alu-test \
	test/videocore/vc-emu-io-test test/videocore/vc-emu-fuzz test/videocore/vc-golden \
	test/videocore/vc-mbox-test
test_videocore_vc_asm_test_SOURCES = test/videocore/vc-asm-test.c test/videocore/vc_tap.h
test_videocore_vc_asm_test_CPPFLAGS = $(HOP_VC_TEST_CPPFLAGS)
test_videocore_vc_asm_test_LDADD = libhopcore.la
test_videocore_vc_emu_alu_test_SOURCES = test/videocore/vc-emu-alu-test.c test/videocore/vc_emu_util.h
test_videocore_vc_emu_alu_test_CPPFLAGS = $(HOP_VC_TEST_CPPFLAGS)
test_videocore_vc_emu_alu_test_LDADD = libhopcore.la
test_videocore_vc_emu_io_test_SOURCES = test/videocore/vc-emu-io-test.c test/videocore/vc_emu_util.h
test_videocore_vc_emu_io_test_CPPFLAGS = $(HOP_VC_TEST_CPPFLAGS)
test_videocore_vc_emu_io_test_LDADD = libhopcore.la

test_videocore_vc_emu_fuzz_SOURCES = test/videocore/vc-emu-fuzz.c test/videocore/vc_emu_util.h
test_videocore_vc_emu_fuzz_CPPFLAGS = $(HOP_VC_TEST_CPPFLAGS)
test_videocore_vc_emu_fuzz_LDADD = libhopcore.la
test_videocore_vc_golden_SOURCES = test/videocore/vc-golden.c test/videocore/vc_golden_layout.h
test_videocore_vc_golden_CPPFLAGS = $(HOP_VC_TEST_CPPFLAGS)
test_videocore_vc_golden_LDADD = libhopcore.la -lm
test_videocore_vc_mbox_test_SOURCES = test/videocore/vc-mbox-test.c test/videocore/vc_fake_fw.h \
	backends/registry.c
test_videocore_vc_mbox_test_CPPFLAGS = $(HOP_VC_TEST_CPPFLAGS)
test_videocore_vc_mbox_test_LDADD = libhopcore.la -lm

HOP_VC_TESTS = test/videocore/asm.test test/videocore/emu.test test/videocore/golden.test \
	test/videocore/contract.test test/videocore/netlib.test test/videocore/mbox.test
TESTS += $(HOP_VC_TESTS)
dist_check_SCRIPTS += $(HOP_VC_TESTS)
endif

# The benchmark: our program and py-videocore's kernel on the emulator.
if HOP_VIDEOCORE
noinst_PROGRAMS += benchmark/vc-bench
benchmark_vc_bench_SOURCES = benchmark/vc-bench.c test/videocore/vc_golden_layout.h
benchmark_vc_bench_CPPFLAGS = $(HOP_VC_TEST_CPPFLAGS)
benchmark_vc_bench_LDADD = libhopcore.la -lm
endif
