# The `hopblas` command carries its own copy of the engines.
bin_PROGRAMS += hopblas
dist_man1_MANS += doc/man/hopblas.1
hopblas_SOURCES = tools/hopblas.c tools/hopblas_cli.h tools/cli_info.c backends/registry.c \
	tools/cli_tune.c
hopblas_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
# `hopblas bench` (benchmark/bench*.c): engines x modes x dtypes x sizes, CSV and a plot.
hopblas_SOURCES += benchmark/bench.h benchmark/bench.c benchmark/bench_data.c \
	benchmark/bench_host.c benchmark/bench_plot.c
hopblas_CPPFLAGS += -DHOP_CLI_BENCH -I$(top_srcdir)/benchmark
if HOP_OPENCL
hopblas_SOURCES += benchmark/bench_ocl.c
endif
hopblas_LDADD = libhopcore.la

EXTRA_DIST += tools/deps.sh tools/build.sh tools/check.sh tools/quickstart.sh tools/demo.sh \
	tools/demo_matmul.py tools/demo_report.py tools/fuzz.sh tools/sanitize.sh tools/valgrind.sh \
	tools/reliability.sh test/fuzz/fuzz_config.c \
	test/fuzz/fuzz_args.c test/fuzz/fuzz_cache.c benchmark/overhead.c benchmark/overhead.sh
