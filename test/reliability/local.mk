# Reliability tests that are not an engine's own: a long stress run, secure
# mode, a full cache disk, zero sizes and NULL pointers, odd paths, fork()
# while an engine starts, unloading (dlclose) and exit() during calls.
HOP_RELIABILITY_TESTS = test/reliability/stress.test test/reliability/secure.test \
	test/reliability/cachefull.test test/reliability/zero_null.test test/reliability/paths.test \
	test/reliability/fork_start.test test/reliability/unload.test
TESTS += $(HOP_RELIABILITY_TESTS)
dist_check_SCRIPTS += $(HOP_RELIABILITY_TESTS)

check_PROGRAMS += test/reliability/maxrss
test_reliability_maxrss_SOURCES = test/reliability/maxrss.c
check_PROGRAMS += test/reliability/zero_null
test_reliability_zero_null_SOURCES = test/reliability/zero_null.c
test_reliability_zero_null_LDFLAGS = -no-install
test_reliability_zero_null_LDADD = libhopblas.la
# unload dlopen()s the library: it does not link it.
check_PROGRAMS += test/reliability/fork_start test/reliability/unload
test_reliability_fork_start_SOURCES = test/reliability/fork_start.c
test_reliability_fork_start_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_reliability_fork_start_LDFLAGS = -no-install
test_reliability_fork_start_LDADD = test/libhoptest.la libhopblas.la -lpthread -lm
test_reliability_unload_SOURCES = test/reliability/unload.c test/tap.h
test_reliability_unload_LDADD = -ldl -lpthread
