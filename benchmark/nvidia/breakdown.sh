#!/bin/sh
# Where LAPACK's time goes under the preload, one GPU and two: Debian's
# dgetrf and dpotrf (lapack-bench), each size in a process of its own with
# the trace on, summed per routine and engine (calls, seconds); with the
# default copy threads and with HOPBLAS_OPENCL_COPY_THREADS=$BD_COPY (half
# of it per device on both GPUs), and GEMMs from host memory at n = 16384 on
# one GPU and both with each.  The first run's staged calls' phases
# (HOPBLAS_VERBOSE=3), sampled.  Carries what level3.sh carries:
#   there: sh benchmark/nvidia/breakdown.sh   (carry .device/h200; $OUT/breakdown.tgz)
# BD_STEPS: g0 g0copy all allcopy gemm (default all of them).
set -u
P=/tmp/breakdown; mkdir -p $P
trap 'tar czf $OUT/breakdown.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
LP=$lib/lapack:$LD_LIBRARY_PATH
steps=${BD_STEPS:-g0 g0copy all allcopy gemm}
copy=${BD_COPY:-32}
nproc
# lapack NAME DEVICE ENV... -- SIZES...: each size's line, then its trace's sums.
lapack() {
  name=$1 dev=$2; shift 2
  envs=""; while [ "$1" != -- ]; do envs="$envs $1"; shift; done; shift
  for sz in "$@"; do
    env $envs HOPBLAS_DEVICE=$dev HOPBLAS_TRACE=$P/$name-$sz.csv LD_PRELOAD=$dir/lib/libhopblas.so.0 \
      LD_LIBRARY_PATH=$LP timeout 120 $dir/bin/lapack-bench --reps 1 $sz >$P/$name-$sz.log 2>&1
    grep -v '^hopblas' $P/$name-$sz.log | sed "s/^/$name /"
    python3 benchmark/nvidia/trace_sums.py $P/$name-$sz.csv
    gzip -f $P/$name-$sz.csv
    grep 'opencl phases' $P/$name-$sz.log | awk 'NR % 16 == 8' | sed 's/.*phases: //' | cut -c1-300 | head -10
    gzip -f $P/$name-$sz.log
  done
}
want g0 && lapack g0 0 HOPBLAS_VERBOSE=3 -- dgetrf:8192 dgetrf:16384 dpotrf:16384
want g0copy && lapack g0copy 0 HOPBLAS_OPENCL_COPY_THREADS=$copy -- dgetrf:8192 dgetrf:16384
want all && lapack all all X=1 -- dpotrf:16384 dgetrf:16384
want allcopy && lapack allcopy all HOPBLAS_OPENCL_COPY_THREADS=$((copy / 2)) -- dpotrf:16384 dgetrf:16384
if want gemm; then
  for v in "0 X=1" "all X=1" "all HOPBLAS_OPENCL_COPY_THREADS=$((copy / 2))" "0 HOPBLAS_OPENCL_COPY_THREADS=$copy"; do
    set -- $v
    env $2 HOPBLAS_DEVICE=$1 timeout 100 $dir/bin/hopblas bench --sizes 16384 --engines hopblas --mode host \
      --dtype s,d --min-time 0.1 --reps 2 >$P/gemm.txt 2>&1
    grep -E '^hopblas' $P/gemm.txt | cut -c1-140 | sed "s/^/dev=$1 $2 /"
  done
fi
echo "## end at $(( $(date +%s) - t0 )) s"
