#!/bin/sh
# Where the host time of LAPACK's device calls goes: Debian's dpotrf at
# n = 16384 and 8192 under the preload on GPU 0 with HOPBLAS_VERBOSE=3
# (every staged call's phases: pack, unpack, waiting on the device), at
# 16384 once more with OpenBLAS's threads limited to 8.  Found that idle
# OpenBLAS workers spinning after each CPU call slowed the packing tenfold
# (backends/cpu/load.c).  Carries what level3.sh carries:
#   there: sh benchmark/nvidia/probe-panels.sh   (carry .device/h200; $OUT/probe.tgz)
set -u
P=/tmp/probe; mkdir -p $P
trap 'tar czf $OUT/probe.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
LP=$lib/lapack:$LD_LIBRARY_PATH
nproc; grep -c processor /proc/cpuinfo; lscpu | grep -iE "numa|socket|model name" | head -5
run() { # NAME ENV... -- SIZE
  name=$1; shift
  env "$@" HOPBLAS_DEVICE=0 HOPBLAS_VERBOSE=3 HOPBLAS_TRACE=$P/$name.csv LD_PRELOAD=$dir/lib/libhopblas.so.0 \
    LD_LIBRARY_PATH=$LP timeout 100 $dir/bin/lapack-bench --reps 1 $SZ >$P/$name.log 2>&1
  grep -v '^hopblas' $P/$name.log
  grep 'opencl phases' $P/$name.log | awk 'NR % 12 == 6' | sed 's/.*phases: //' | cut -c1-330 | head -12
  gzip -f $P/$name.log
}
SZ=dpotrf:16384; run p16 X=1
SZ=dpotrf:16384; run p16t8 OPENBLAS_NUM_THREADS=8
SZ=dpotrf:8192; run p8 X=1
echo end $(date)
