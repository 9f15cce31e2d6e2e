# Reliability tests of issue 7 that are not an engine's own.
check_PROGRAMS += test/reliability/maxrss
test_reliability_maxrss_SOURCES = test/reliability/maxrss.c
check_PROGRAMS += test/reliability/zero_null
test_reliability_zero_null_SOURCES = test/reliability/zero_null.c
test_reliability_zero_null_LDFLAGS = -no-install
test_reliability_zero_null_LDADD = libhopblas.la
TESTS += test/reliability/stress.test test/reliability/secure.test test/reliability/cachefull.test test/reliability/zero_null.test test/reliability/paths.test
dist_check_SCRIPTS += test/reliability/stress.test test/reliability/secure.test test/reliability/cachefull.test test/reliability/zero_null.test test/reliability/paths.test
# fork() while an engine starts; unloaded and loaded again (dlclose), and
# exit() during calls.  unload dlopen()s the library: it does not link it.
check_PROGRAMS += test/reliability/fork_start test/reliability/unload
test_reliability_fork_start_SOURCES = test/reliability/fork_start.c
test_reliability_fork_start_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_reliability_fork_start_LDFLAGS = -no-install
test_reliability_fork_start_LDADD = test/libhoptest.la libhopblas.la -lpthread -lm
test_reliability_unload_SOURCES = test/reliability/unload.c
test_reliability_unload_LDADD = -ldl -lpthread
TESTS += test/reliability/fork_start.test test/reliability/unload.test
dist_check_SCRIPTS += test/reliability/fork_start.test test/reliability/unload.test
