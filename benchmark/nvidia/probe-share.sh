#!/bin/sh
# Whether two GPUs can take one packing of a shared operand, and what the
# CPU's share does to GEMMs from host memory: linkrate --contexts's upload rates (pinned
# memory of another context, one context of both GPUs); sgemm and dgemm at
# n = 16384 from host memory on GPU 0 and on both with each staged call's
# phases (HOPBLAS_VERBOSE=3: the bytes each device packed); and GEMMs from
# host memory at 2048 to 8192 on GPU 0 with and without
# HOPBLAS_OPENCL_SPLIT_CPU=1, alternating.  Carries what level3.sh carries:
#   here:  sh benchmark/nvidia/build.sh && cp .device/bin/* .device/h200/bin/
#   there: sh benchmark/nvidia/probe-share.sh   (carry .device/h200; $OUT/probe-share.tgz)
set -u
P=/tmp/probe-share; mkdir -p $P
trap 'tar czf $OUT/probe-share.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
$dir/bin/linkrate --contexts 256 5 2>&1 | tee $P/contexts.txt
bench() { # DEVICE SIZES ENV...
  d=$1 s=$2; shift 2
  env "$@" HOPBLAS_DEVICE=$d timeout 150 $dir/bin/hopblas bench --sizes "$s" --engines hopblas \
    --mode host --dtype s,d --min-time 0.1 --reps 2 2>&1
}
for d in 0 all; do
  bench $d 16384 HOPBLAS_VERBOSE=3 >$P/gemm-$d.txt
  grep -E '^hopblas' $P/gemm-$d.txt | cut -c1-120 | sed "s/^/dev=$d /"
  grep 'opencl phases' $P/gemm-$d.txt | sed 's/.*phases: //' | cut -c1-330 | awk 'NR % 2 == 0'
done
for r in 1 2; do
  for v in 0 1; do
    bench 0 "2048,4096,8192" HOPBLAS_OPENCL_SPLIT_CPU=$v | grep -E '^hopblas' | cut -c1-110 |
      sed "s/^/split_cpu=$v /"
  done
done
echo "## end at $(( $(date +%s) - t0 )) s"
