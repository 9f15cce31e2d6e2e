#!/bin/sh
# LAPACK's routines as a program meets them: each size in a process of its
# own (the router starts from its untuned models every time, as in a user's
# program; level3.sh runs every size in one process, whose earlier calls
# had already moved the routing), each run twice in two processes, both
# lines kept.  Debian's reference LAPACK (lapack-bench) with hopblas
# preloaded on GPU 0, with the CPU taking a share of each shared call
# (HOPBLAS_OPENCL_SPLIT_CPU=1), on both GPUs, and NVBLAS on GPU 0 beside it;
# then GEMMs from host memory at n = 16384 on one GPU and on both, three
# times each.  Per run, the trace summed per routine and engine (calls,
# seconds), and LAPACK's time outside those calls.  The programs' binary
# cache is filled first (a 1024 GEMM of each dtype), as any second run of a
# user's program finds it.  Carries what level3.sh carries:
#   there: sh benchmark/nvidia/fresh.sh   (carry .device/h200; $OUT/fresh.tgz)
# FRESH_STEPS: warm hopblas splitcpu nvblas hopblas2 gemm (default all);
# FRESH_SIZES, FRESH_SIZES2 (both GPUs), FRESH_SPLIT_SIZES, FRESH_NVSIZES: the lapack-bench
# arguments of each step.
set -u
P=/tmp/fresh; mkdir -p $P
trap 'tar czf $OUT/fresh.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
LP=$lib/lapack:$LD_LIBRARY_PATH
steps=${FRESH_STEPS:-warm hopblas splitcpu nvblas hopblas2 gemm}
sizes=${FRESH_SIZES:-dtrsm:8192 dsyrk:8192 dpotrf:8192 dgetrf:8192 dpotrf:16384 dgetrf:16384}
sizes2=${FRESH_SIZES2:-dpotrf:16384 dgetrf:16384}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
sed 's/^NVBLAS_GPU_LIST .*/NVBLAS_GPU_LIST 0/' $P/nvblas.conf >$P/nvblas0.conf
# run NAME SIZE ENV...: $FRESH_REPEAT (2) processes of lapack-bench, each size alone; the first
# one's trace summed.
run() {
  name=$1 sz=$2; shift 2
  for i in $(seq ${FRESH_REPEAT:-2}); do
    env "$@" HOPBLAS_TRACE=$P/$name-$sz-$i.csv LD_PRELOAD=$dir/lib/libhopblas.so.0 LD_LIBRARY_PATH=$LP \
      timeout 150 $dir/bin/lapack-bench --reps 1 $sz >$P/$name-$sz-$i.log 2>&1
    line=$(grep -v '^hopblas' $P/$name-$sz-$i.log | tail -n 1)
    echo "$name $i $line"
    [ $i = 1 ] && [ -s $P/$name-$sz-$i.csv ] && python3 benchmark/nvidia/trace_sums.py $P/$name-$sz-$i.csv "$(echo "$line" | awk '{ print $3 }')"
    grep -h 'rate corrected' $P/$name-$sz-$i.log | head -n 1 | cut -c1-200
    gzip -f $P/$name-$sz-$i.csv $P/$name-$sz-$i.log 2>/dev/null
  done
}
if want warm; then
  HOPBLAS_DEVICE=all $dir/bin/hopblas info >$P/info.txt 2>&1
  grep -E '^  (link|device|devices|shared|cost model)' $P/info.txt
  HOPBLAS_DEVICE=all $dir/bin/hopblas bench --sizes 1024 --engines opencl --mode host \
    --dtype s,d,c,z --min-time 0 --reps 2 >$P/warm.txt 2>&1
  echo "programs built: $(grep -c "^opencl .* ok" $P/warm.txt) GEMMs on opencl"
fi
want hopblas && for sz in $sizes; do run hopblas $sz HOPBLAS_DEVICE=0; done
want splitcpu && for sz in ${FRESH_SPLIT_SIZES:-dgetrf:8192 dgetrf:16384}; do run splitcpu $sz HOPBLAS_DEVICE=0 HOPBLAS_OPENCL_SPLIT_CPU=1; done
if want nvblas; then
  for sz in ${FRESH_NVSIZES:-$sizes}; do
    NVBLAS_CONFIG_FILE=$P/nvblas0.conf LD_PRELOAD=$nvblas LD_LIBRARY_PATH=$LP timeout 150 \
      $dir/bin/lapack-bench --reps 1 $sz >$P/nvblas-$sz.txt 2>&1
    echo "nvblas $(grep -v cublasXt $P/nvblas-$sz.txt | tail -n 1); cublasXt errors: $(grep -c cublasXt $P/nvblas-$sz.txt)"
  done
fi
[ "$gpus" -ge 2 ] && want hopblas2 && for sz in $sizes2; do run hopblas2 $sz HOPBLAS_DEVICE=all; done
if want gemm; then
  for dev in 0 all 0 all 0 all; do
    HOPBLAS_DEVICE=$dev timeout 100 $dir/bin/hopblas bench --sizes 16384 --engines hopblas --mode host \
      --dtype s,d --min-time 0.1 --reps 2 >$P/gemm.txt 2>&1
    grep -E '^hopblas' $P/gemm.txt | cut -c1-140 | sed "s/^/dev=$dev /"
  done
fi
echo "## end at $(( $(date +%s) - t0 )) s"
