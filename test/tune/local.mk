# Tests of the tuner and its cache (issue 6): test/tune/*.test print TAP.
# tune-cache links the library's internals (libhopcore), like the hopblas command.
check_PROGRAMS += test/tune/tune-cache
test_tune_tune_cache_SOURCES = test/tune/tune-cache.c backends/registry.c
test_tune_tune_cache_CPPFLAGS = $(AM_CPPFLAGS)
test_tune_tune_cache_LDFLAGS = -no-install
test_tune_tune_cache_LDADD = libhopcore.la

TESTS += test/tune/cache.test test/tune/fuzz.test
dist_check_SCRIPTS += test/tune/cache.test test/tune/fuzz.test
if HOP_OPENCL
TESTS += test/tune/pocl.test test/tune/route.test
dist_check_SCRIPTS += test/tune/pocl.test test/tune/route.test
endif
EXTRA_DIST += test/tune/tune-env.sh
