# Reliability tests of issue 7 that are not an engine's own.
check_PROGRAMS += test/reliability/maxrss
test_reliability_maxrss_SOURCES = test/reliability/maxrss.c
check_PROGRAMS += test/reliability/zero_null
test_reliability_zero_null_SOURCES = test/reliability/zero_null.c
test_reliability_zero_null_LDFLAGS = -no-install
test_reliability_zero_null_LDADD = libhopblas.la
TESTS += test/reliability/stress.test test/reliability/secure.test test/reliability/cachefull.test test/reliability/zero_null.test test/reliability/paths.test
dist_check_SCRIPTS += test/reliability/stress.test test/reliability/secure.test test/reliability/cachefull.test test/reliability/zero_null.test test/reliability/paths.test
