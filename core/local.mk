libhopcore_la_SOURCES += core/hop.h core/config.c core/config_file.h core/context.c \
	core/gemm.c core/route.c core/status.c core/log.c core/trace.c core/verify.c core/half.c core/paths.c core/fast_path.c
