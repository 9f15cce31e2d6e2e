#!/bin/sh
# Why LAPACK's device calls on one GPU ran slower than on two (fresh.sh): Debian's dgetrf at 8192 in
# fresh processes on GPU 0 with the default copy threads (HOPBLAS_VERBOSE=3: the CPU engine's
# thread cap and each staged call's phases), with 8 copy threads, with OpenBLAS held to 16
# threads, and on both GPUs; a sample of the process's runnable threads by name mid-run.
#   there: sh benchmark/nvidia/probe-contention.sh   (carry .device/h200; $OUT/contention.tgz)
set -u
P=/tmp/contention; mkdir -p $P
trap 'tar czf $OUT/contention.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
LP=$lib/lapack:$LD_LIBRARY_PATH
# probe NAME SIZE ENV...: the run's line, the cap line, runnable threads by name from 2 s on
# (the newest matching process: lapack-bench, not the timeout above it), phases sampled.
probe() {
  name=$1 sz=$2; shift 2
  env "$@" HOPBLAS_VERBOSE=3 LD_PRELOAD=$dir/lib/libhopblas.so.0 LD_LIBRARY_PATH=$LP \
    timeout 100 $dir/bin/lapack-bench --reps 1 $sz >$P/$name.log 2>&1 &
  pid=$!
  sleep 2
  for i in 1 2 3; do
    ps -L -o stat=,comm= -p "$(pgrep -n -f "bin/lapack-bench --reps 1 $sz")" 2>/dev/null |
      awk '$1 ~ /^R/ { n[$2]++ } END { s = ""; for (k in n) s = s " " k ":" n[k]; print "  runnable:" s }'
    sleep 0.3
  done
  wait $pid
  echo "$name $(grep -v '^hopblas' $P/$name.log | tail -n 1)"
  grep -E 'cpu: OpenBLAS runs|copy between host|cpu: (loaded|OpenBLAS)|spin' $P/$name.log | sort -u | cut -c1-220 | head -5
  grep 'opencl phases' $P/$name.log | awk 'NR % 40 == 5' | sed 's/.*phases: //' | cut -c1-260 | head -4
  gzip -f $P/$name.log
}
probe g0 dgetrf:8192 HOPBLAS_DEVICE=0
probe g0b dgetrf:8192 HOPBLAS_DEVICE=0
probe c8 dgetrf:8192 HOPBLAS_DEVICE=0 HOPBLAS_OPENCL_COPY_THREADS=8
probe t16 dgetrf:8192 HOPBLAS_DEVICE=0 OPENBLAS_NUM_THREADS=16
probe all dgetrf:8192 HOPBLAS_DEVICE=all
probe c8p dpotrf:16384 HOPBLAS_DEVICE=0 HOPBLAS_OPENCL_COPY_THREADS=8
echo "## end at $(( $(date +%s) - t0 )) s"
