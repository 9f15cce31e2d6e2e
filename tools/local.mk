# The `hopblas` command carries its own copy of the engines.
bin_PROGRAMS += hopblas
hopblas_SOURCES = tools/hopblas.c tools/hopblas_cli.h tools/cli_info.c backends/registry.c
hopblas_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
hopblas_LDADD = libhopcore.la

EXTRA_DIST += tools/deps.sh tools/build.sh tools/check.sh tools/quickstart.sh tools/demo.sh \
	tools/demo_matmul.py tools/demo_report.py tools/fuzz.sh test/fuzz/fuzz_config.c \
	test/fuzz/fuzz_args.c benchmark/overhead.c benchmark/overhead.sh
