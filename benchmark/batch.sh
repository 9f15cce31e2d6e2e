#!/bin/sh
# Batched sgemm: a batch of COUNT problems of N x N x N (10,000 of 64 by
# default) through OpenBLAS in a loop, OpenBLAS's own batch where it has
# one, hopblas in a loop and hopblas's cblas_sgemm_batch, with hopblas's
# batch on each engine: routed automatically, forced onto the CPU engine,
# forced onto the OpenCL engine.  The trace row of each forced batch says
# where it ran and in how many launches.  On PoCL this shows the mechanism;
# the figures that matter are a GPU's.
#   sh benchmark/batch.sh [BUILD_DIR [COUNT [N [REPS]]]]
set -eu
build=$(cd "${1:-_build}" && pwd)
count=${2:-10000} n=${3:-64} reps=${4:-5}
prog=$build/benchmark/batch-bench
[ -x "$prog" ] || { echo "batch.sh: build $prog first (make -C $build)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for engine in auto cpu opencl; do
  echo "## hopblas's batch: HOPBLAS_BACKEND=$engine"
  echo
  HOPBLAS_BACKEND=$engine HOPBLAS_TRACE=$tmp/$engine.csv "$prog" "$count" "$n" "$reps" ||
    echo "(batch-bench exited with status $?)"
  echo
  # The last batch row: engine and why (launches, or why not the device).
  awk -F, '$2 == "cblas_sgemm_batch" { row = $9 ": " $10 } END { print "last batch ran on " row }' \
    "$tmp/$engine.csv"
  echo
done
