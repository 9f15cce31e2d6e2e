libhopcore_la_SOURCES += core/hop.h core/config.c core/config_file.h core/context.c \
	core/dtype.c core/call.c core/complex_real.c core/complex_planes.c core/gemm.c core/batch.c core/parallel.c core/route.c core/status.c core/log.c core/trace.c core/verify.c core/verify_terms.c core/half.c core/paths.c core/fast_path.c core/fast_entry.h \
	core/rank.c core/clock.c core/fork_guard.c
# Engines that flush subnormal floats: the input scan and the fix-up of small results.
libhopcore_la_SOURCES += core/subnormal.c
# The tuning cache (the CPU calibration lives with the CPU engine).
libhopcore_la_SOURCES += core/engine_tools.h core/tune_cache.h core/tune_cache.c core/tune_parse.c
