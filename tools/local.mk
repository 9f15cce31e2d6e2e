# The `hopblas` command carries its own copy of the engines.
bin_PROGRAMS += hopblas
hopblas_SOURCES = tools/hopblas.c tools/hopblas_cli.h tools/cli_info.c backends/registry.c
hopblas_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
hopblas_LDADD = libhopcore.la
