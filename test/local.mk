# The test suite.  Every test is an executable #!/bin/sh script printing TAP;
# the C programs below are what the scripts run.  test/lib.sh documents the
# shell helpers other engines reuse.  Each test folder lists its tests once,
# in its own local.mk.
check_LTLIBRARIES += test/libhoptest.la
test_libhoptest_la_SOURCES = test/testutil.c test/testutil_num.c test/testutil_dtype.c test/testutil_names.c \
	test/testutil.h

# Test programs link the real library (or the check library) the way a
# user program does; -no-install: a plain binary with an rpath, no wrapper.
HOPTEST_LINK_FLAGS = -no-install
HOPTEST_LIBS = test/libhoptest.la libhopblas.la -lm

check_PROGRAMS += test/contract test/threads test/overflow test/gemm-once test/gemm-once-check \
	test/xerbla test/trace-calls test/denormal test/contract-l3 test/cpu-spin
test_contract_l3_SOURCES = test/contract_l3.c test/contract_l3.h test/contract_l3_call.c \
	test/contract_l3_calls.inc
test_contract_l3_LDFLAGS = $(HOPTEST_LINK_FLAGS) -export-dynamic
test_contract_l3_LDADD = $(HOPTEST_LIBS) -ldl
test_contract_SOURCES = test/contract.c test/contract.h test/contract_groups.c
test_contract_LDFLAGS = $(HOPTEST_LINK_FLAGS)
test_contract_LDADD = $(HOPTEST_LIBS)
test_threads_SOURCES = test/threads.c
test_threads_LDFLAGS = $(HOPTEST_LINK_FLAGS)
test_threads_LDADD = $(HOPTEST_LIBS) -lpthread
test_overflow_SOURCES = test/overflow.c
test_overflow_LDFLAGS = $(HOPTEST_LINK_FLAGS)
test_overflow_LDADD = $(HOPTEST_LIBS)
test_gemm_once_SOURCES = test/gemm-once.c
test_gemm_once_LDFLAGS = $(HOPTEST_LINK_FLAGS)
test_gemm_once_LDADD = $(HOPTEST_LIBS)
# The same program on the check library (with the wrong-on-purpose engine).
test_gemm_once_check_SOURCES = test/gemm-once.c
test_gemm_once_check_LDFLAGS = $(HOPTEST_LINK_FLAGS)
test_gemm_once_check_LDADD = test/libhoptest.la libhopblas-check.la -lm
test_denormal_SOURCES = test/denormal.c
test_denormal_LDFLAGS = $(HOPTEST_LINK_FLAGS)
test_denormal_LDADD = $(HOPTEST_LIBS)
# Its own xerbla_ must be what the library calls: export it dynamically.
test_xerbla_SOURCES = test/xerbla.c
test_xerbla_LDFLAGS = $(HOPTEST_LINK_FLAGS) -export-dynamic
test_xerbla_LDADD = $(HOPTEST_LIBS)
test_cpu_spin_SOURCES = test/cpu_spin.c
test_cpu_spin_LDFLAGS = $(HOPTEST_LINK_FLAGS)
test_cpu_spin_LDADD = $(HOPTEST_LIBS)
test_trace_calls_SOURCES = test/trace-calls.c
test_trace_calls_LDFLAGS = $(HOPTEST_LINK_FLAGS) -export-dynamic
test_trace_calls_LDADD = $(HOPTEST_LIBS) -lpthread

# This folder's tests, listed once: `make check` runs them, `make dist` ships them.
HOP_TESTS = test/abi.test test/contract-cpu.test test/netlib.test test/e2e.test test/threads.test \
	test/xerbla.test test/overflow.test test/verify.test test/config.test test/docs.test \
	test/trace.test test/denormal.test test/cli.test test/install.test test/declared.test \
	test/contract-l3.test test/ilp64.test test/pip_numpy.test test/package.test test/cpu-spin.test
TESTS += $(HOP_TESTS)
dist_check_SCRIPTS += $(HOP_TESTS) test/run-netlib.sh test/run-lapack.sh
EXTRA_DIST += test/lib.sh test/lapack/ci.in test/e2e_prog.c test/e2e_numpy.py test/e2e_octave.m test/xerbla_msg.c \
	test/indirect_lib.c test/indirect_prog.c
# test/ilp64.test compiles test/ilp64.c against libopenblas64 itself.
EXTRA_DIST += test/ilp64.c test/tap.h test/pip_numpy.py
