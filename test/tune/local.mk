# Tests of the tuner and its cache: test/tune/*.test print TAP.  pocl.test
# and route.test need the OpenCL engine; every test is shipped either way.
HOP_TUNE_TESTS = test/tune/cache.test
if HOP_OPENCL
HOP_TUNE_TESTS += test/tune/pocl.test test/tune/route.test test/tune/learn.test
endif
TESTS += $(HOP_TUNE_TESTS)
dist_check_SCRIPTS += $(HOP_TUNE_TESTS)
EXTRA_DIST += test/tune/tune-env.sh

# tune-cache links the library's internals (libhopcore), like the hopblas command.
check_PROGRAMS += test/tune/tune-cache
test_tune_tune_cache_SOURCES = test/tune/tune-cache.c backends/registry.c
test_tune_tune_cache_CPPFLAGS = $(AM_CPPFLAGS)
test_tune_tune_cache_LDFLAGS = -no-install
test_tune_tune_cache_LDADD = libhopcore.la

# learn-arith checks backends/cpu/learn.c's arithmetic on made-up timings.
check_PROGRAMS += test/tune/learn-arith
test_tune_learn_arith_SOURCES = test/tune/learn-arith.c backends/registry.c
test_tune_learn_arith_CPPFLAGS = $(AM_CPPFLAGS)
test_tune_learn_arith_LDFLAGS = -no-install
test_tune_learn_arith_LDADD = libhopcore.la
