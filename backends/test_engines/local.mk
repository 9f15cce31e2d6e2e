# The test-only library: the same core with two test engines registered,
# the wrong-on-purpose one (verify) and the narrow one (declarations).
check_LTLIBRARIES += libhopblas-check.la
libhopblas_check_la_SOURCES = backends/registry.c backends/test_engines/testwrong.c \
	backends/test_engines/narrow.c
libhopblas_check_la_CPPFLAGS = $(AM_CPPFLAGS) -DHOP_WITH_TEST_ENGINE
libhopblas_check_la_LIBADD = libhopcore.la
# -rpath makes libtool build a shared library that is never installed.
libhopblas_check_la_LDFLAGS = -rpath $(abs_builddir) -version-info $(HOPBLAS_LT_VERSION) $(HOP_EXPORTS)
