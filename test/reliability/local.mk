# Reliability tests of issue 7 that are not an engine's own.
check_PROGRAMS += test/reliability/maxrss
test_reliability_maxrss_SOURCES = test/reliability/maxrss.c
TESTS += test/reliability/stress.test test/reliability/secure.test test/reliability/cachefull.test
dist_check_SCRIPTS += test/reliability/stress.test test/reliability/secure.test test/reliability/cachefull.test
