# benchmark/tune-crossover.sh's timing program: public entry points only, so
# it times what a program calling the library gets.
noinst_PROGRAMS += benchmark/tune-sweep
benchmark_tune_sweep_SOURCES = benchmark/tune_sweep.c
benchmark_tune_sweep_LDFLAGS = -no-install
benchmark_tune_sweep_LDADD = libhopblas.la
# benchmark/batch.sh's program: a batch of sgemm four ways (OpenBLAS's loop
# and batch, hopblas's loop and batch), public entry points only.
noinst_PROGRAMS += benchmark/batch-bench
benchmark_batch_bench_SOURCES = benchmark/batch_bench.c
benchmark_batch_bench_LDFLAGS = -no-install
benchmark_batch_bench_LDADD = libhopblas.la -lm
# The complex Level-3 routines through the public entry points (level3.sh's step zl3).
noinst_PROGRAMS += benchmark/l3-complex-bench
benchmark_l3_complex_bench_SOURCES = benchmark/l3_complex_bench.c
benchmark_l3_complex_bench_LDFLAGS = -no-install
benchmark_l3_complex_bench_LDADD = libhopblas.la -lm
EXTRA_DIST += benchmark/batch.sh benchmark/scaling/scaling.sh benchmark/scaling/pbench.c
EXTRA_DIST += benchmark/tune-crossover.sh benchmark/tune-gain.sh benchmark/tune-device.sh benchmark/call-cost.sh
EXTRA_DIST += benchmark/nvidia/h200.sh benchmark/nvidia/h200-report.py benchmark/nvidia/precisions.sh \
	benchmark/nvidia/bound.sh benchmark/nvidia/host-pipeline.sh benchmark/nvidia/level3.sh benchmark/nvidia/two-gpu.sh benchmark/nvidia/device-env.sh \
	benchmark/nvidia/linkrate.c benchmark/lapack_bench.c \
	benchmark/nvidia/f64probe.c benchmark/nvidia/torch_anchor.py benchmark/nvidia/spread.sh \
	benchmark/nvidia/bound-ratios.py
