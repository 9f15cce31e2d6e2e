# The VideoCore IV engine's tests, on its emulator (and a fake mailbox):
# they run when the engine is built and are shipped either way.
HOP_VC_TESTS = test/videocore/asm.test test/videocore/emu.test test/videocore/golden.test \
	test/videocore/contract.test test/videocore/netlib.test test/videocore/mbox.test
if HOP_VIDEOCORE
TESTS += $(HOP_VC_TESTS)
endif
dist_check_SCRIPTS += $(HOP_VC_TESTS)

if HOP_VIDEOCORE
# Unit tests link the engine's internals straight from libhopcore.
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
endif
