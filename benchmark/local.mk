# benchmark/tune-crossover.sh's timing program (issue 6): public entry points only.
noinst_PROGRAMS += benchmark/tune-sweep
benchmark_tune_sweep_SOURCES = benchmark/tune_sweep.c
benchmark_tune_sweep_LDFLAGS = -no-install
benchmark_tune_sweep_LDADD = libhopblas.la
EXTRA_DIST += benchmark/tune-crossover.sh benchmark/tune-gain.sh benchmark/tune-device.sh benchmark/call-cost.sh
EXTRA_DIST += benchmark/nvidia/h200.sh benchmark/nvidia/h200-report.py
