#!/bin/sh
# Host copies cut into one piece per copy thread against four
# (HOPBLAS_OPENCL_COPY_CHUNKS 1 and 4), alternating in one call: GEMMs from
# host memory at n = 16384 on both GPUs, Debian's dgetrf at 8192 in fresh
# processes on GPU 0; then LAPACK's routines warm (lapack-bench --reps 2:
# the best of two in one process) under hopblas and under NVBLAS, GPU 0.
#   there: sh benchmark/nvidia/copy-chunks.sh   (carry .device/h200; $OUT/ab.tgz)
set -u
P=/tmp/ab; mkdir -p $P
trap 'tar czf $OUT/ab.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
sed "s/^NVBLAS_GPU_LIST .*/NVBLAS_GPU_LIST 0/" $P/nvblas.conf >$P/nvblas0.conf
LP=$lib/lapack:$LD_LIBRARY_PATH
HOPBLAS_DEVICE=0 $dir/bin/hopblas bench --sizes 2048 --engines opencl --mode host --dtype s,d --min-time 0 --reps 2 >$P/warm.txt 2>&1
echo "## gemm at $(( $(date +%s) - t0 )) s"
for v in 1 4 1 4; do
  for dev in all; do
    HOPBLAS_OPENCL_COPY_CHUNKS=$v HOPBLAS_DEVICE=$dev timeout 100 $dir/bin/hopblas bench --sizes 16384 --engines hopblas --mode host \
      --dtype s,d --min-time 0.1 --reps 2 >$P/gemm.txt 2>&1
    grep -E '^hopblas' $P/gemm.txt | cut -c1-80 | sed "s/^/chunks=$v dev=$dev /"
  done
done
echo "## dgetrf at $(( $(date +%s) - t0 )) s"
for v in 1 4 1 4; do
  HOPBLAS_OPENCL_COPY_CHUNKS=$v HOPBLAS_DEVICE=0 LD_PRELOAD=$dir/lib/libhopblas.so.0 LD_LIBRARY_PATH=$LP \
    timeout 100 $dir/bin/lapack-bench --reps 1 dgetrf:8192 2>&1 | grep -v '^hopblas' | sed "s/^/chunks=$v fresh /"
done
echo "## warm, best of 2 in one process, at $(( $(date +%s) - t0 )) s"
W="dtrsm:8192 dsyrk:8192 dpotrf:8192 dgetrf:8192"
HOPBLAS_DEVICE=0 LD_PRELOAD=$dir/lib/libhopblas.so.0 LD_LIBRARY_PATH=$LP timeout 150 $dir/bin/lapack-bench --reps 2 $W 2>&1 | grep -v '^hopblas' | sed "s/^/hopblas warm /"
NVBLAS_CONFIG_FILE=$P/nvblas0.conf LD_PRELOAD=$nvblas LD_LIBRARY_PATH=$LP timeout 150 $dir/bin/lapack-bench --reps 2 $W 2>&1 | grep -v cublasXt | sed "s/^/nvblas warm /"
echo "## end at $(( $(date +%s) - t0 )) s"
