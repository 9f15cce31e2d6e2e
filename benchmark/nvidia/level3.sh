#!/bin/sh
# One device call for the Level-3 routines beyond GEMM: LAPACK's dpotrf and
# dgetrf (Debian's reference LAPACK, whose calls to dgemm_, dtrsm_ and
# dsyrk_ a preloaded BLAS gets) at n = 8192 and 16384, and dtrsm and dsyrk
# at 8192, under OpenBLAS alone, hopblas preloaded and NVBLAS preloaded, all
# with OpenBLAS as the BLAS beneath (lapack-bench, benchmark/lapack_bench.c).
#   here:  sh benchmark/nvidia/h200.sh pack _build .device/h200 &&
#          sh benchmark/nvidia/build.sh && cp .device/bin/* .device/h200/bin/ &&
#          cp .device/debs/*.deb .device/h200/debs/
#   there: sh benchmark/nvidia/level3.sh   (carry .device/h200; results in $OUT/level3.tgz)
# LEVEL3_STEPS: the steps to run (default all but splitcpu: openblas hopblas nvblas
# hopblas2 nvblas2 batch zl3 zbatch); LEVEL3_SIZES: the lapack-bench arguments;
# LEVEL3_SIZES2: those of the two-GPU steps (hopblas2: HOPBLAS_DEVICE=all;
# nvblas2: NVBLAS_GPU_LIST ALL), which run only where `nvidia-smi -L` lists
# two GPUs or more.  The one-GPU steps use GPU 0 (HOPBLAS_DEVICE=0,
# NVBLAS_GPU_LIST 0).  batch: benchmark/batch.sh's ways for 10,000 sgemm of
# 64 x 64 x 64 on GPU 0 (OpenBLAS's loop, hopblas's loop and its batch routed,
# on the CPU engine and on the GPU), the trace's last batch row saying where it ran.
# zl3: the complex Level-3 routines (l3-complex-bench: zgemm, zhemm, zherk,
# zher2k, ztrmm, ztrsm) on the CPU engine (LEVEL3_ZCPU sizes) and routed
# (LEVEL3_ZSIZES) on GPU 0 (LEVEL3_ZWAYS: cpu auto), the trace's engines per routine, then the
# Level-3 contract in c and z forced onto GPU 0.  zbatch: test/gemmx's
# batch cases in c and z forced onto GPU 0 with verify mode (each problem
# as its real embedding in one launch).
set -u
P=/tmp/level3; mkdir -p $P
trap 'tar czf $OUT/level3.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
steps=${LEVEL3_STEPS:-openblas hopblas nvblas hopblas2 nvblas2 batch zl3 zbatch}
sizes=${LEVEL3_SIZES:-dtrsm:8192 dsyrk:8192 dpotrf:8192 dgetrf:8192 dpotrf:16384 dgetrf:16384}
sizes2=${LEVEL3_SIZES2:-dpotrf:16384 dgetrf:16384}
nvsizes2=${LEVEL3_NVSIZES2:-dpotrf:16384} # NVBLAS's dgetrf is wrong (cublasXt error 11)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
sed 's/^NVBLAS_GPU_LIST .*/NVBLAS_GPU_LIST 0/' $P/nvblas.conf >$P/nvblas0.conf
# The reference LAPACK first, then OpenBLAS's libblas.so.3.
LP=$lib/lapack:$LD_LIBRARY_PATH
# hopblas and NVBLAS the best of 2 in one process (both warm: a first call in a process pays
# the library's start-up, about half a second for either); OpenBLAS once. Every size after the
# first runs in a process that ran the sizes before it: fresh.sh runs each in a process of its own.
bench() { r=$1; shift; LD_LIBRARY_PATH=$LP timeout 280 $dir/bin/lapack-bench --reps "$r" "$@"; }
# hopblas_step NAME DEVICE SIZES...: its output, trace and engine counts per routine.
hopblas_step() {
  name=$1 dev=$2; shift 2
  HOPBLAS_DEVICE=$dev $dir/bin/hopblas info >$P/$name-info.txt 2>&1
  grep -E '^  (link|device|devices|shared|cost model)' $P/$name-info.txt
  HOPBLAS_DEVICE=$dev HOPBLAS_TRACE=$P/$name-trace.csv \
    LD_PRELOAD=$dir/lib/libhopblas.so.0 bench 2 "$@" >$P/$name.txt 2>&1
  cat $P/$name.txt
  awk -F, 'NR > 1 { n[$2 " " $9]++ } END { for (k in n) print n[k], k }' $P/$name-trace.csv | sort -k2 >$P/$name-engines.txt
  gzip -f $P/$name-trace.csv; cat $P/$name-engines.txt
}
nvblas_step() { # NAME CONFIG SIZES...
  name=$1 conf=$2; shift 2
  NVBLAS_CONFIG_FILE=$conf LD_PRELOAD=$nvblas bench 2 "$@" >$P/$name.txt 2>&1
  grep -v cublasXt $P/$name.txt; echo "cublasXt errors: $(grep -c cublasXt $P/$name.txt)"
}
want openblas && { bench 1 $sizes >$P/openblas.txt 2>&1; cat $P/openblas.txt; }
want hopblas && hopblas_step hopblas 0 $sizes
# GPU 0 with the CPU computing a share of each large call in place (HOPBLAS_OPENCL_SPLIT_CPU=1).
want splitcpu && (export HOPBLAS_OPENCL_SPLIT_CPU=1; hopblas_step splitcpu 0 $sizes)
want nvblas && nvblas_step nvblas $P/nvblas0.conf $sizes
[ "$gpus" -ge 2 ] && want hopblas2 && hopblas_step hopblas2 all $sizes2
[ "$gpus" -ge 2 ] && want nvblas2 && nvblas_step nvblas2 $P/nvblas.conf $nvsizes2
want batch && for engine in auto cpu opencl; do
  HOPBLAS_DEVICE=0 HOPBLAS_BACKEND=$engine HOPBLAS_TRACE=$P/batch-$engine.csv timeout 120 \
    $dir/bin/batch-bench 10000 64 5 "$HOPBLAS_CPU_BLAS" >$P/batch-$engine.txt 2>&1
  echo "HOPBLAS_BACKEND=$engine:"; cat $P/batch-$engine.txt
  awk -F, '$2 == "cblas_sgemm_batch" { row = $9 ": " $10 } END { print "last batch ran on " row }' \
    $P/batch-$engine.csv
done
want zl3 && for b in ${LEVEL3_ZWAYS:-cpu auto}; do
  sz=${LEVEL3_ZSIZES:-2048 4096 8192}
  [ $b = cpu ] && sz=${LEVEL3_ZCPU:-2048 4096}
  env $([ $b = cpu ] && echo HOPBLAS_BACKEND=cpu) HOPBLAS_DEVICE=0 HOPBLAS_TRACE=$P/zl3-$b.csv \
    timeout 240 $dir/bin/l3-complex-bench --reps 2 $sz >$P/zl3-$b.txt 2>&1
  echo "$b:"; cat $P/zl3-$b.txt
  awk -F, 'NR > 1 { n[$2 " " $4 " " $9]++ } END { for (k in n) print n[k], k }' $P/zl3-$b.csv | sort -k2 | tr '\n' ';'; echo
done
want zl3 && { HOPBLAS_BACKEND=opencl HOPBLAS_DEVICE=0 HOPBLAS_TRACE=$P/zcontract.csv timeout 150 \
  $dir/bin/contract-l3 --dtypes c,z --quick --max-dim 40 --large 300 >$P/zcontract.tap 2>&1
  echo "contract-l3 c, z on GPU 0: $(grep -c '^ok' $P/zcontract.tap) ok, $(grep -c '^not ok' $P/zcontract.tap) not ok;" \
    "rows on opencl $(awk -F, 'NR > 1 && $9 == "opencl"' $P/zcontract.csv | wc -l), with device steps $(grep -c 'steps=[1-9]' $P/zcontract.csv)"
  gzip -f $P/zcontract.csv; }
want zbatch && { HOPBLAS_BACKEND=opencl HOPBLAS_DEVICE=0 HOPBLAS_VERIFY=1 HOPBLAS_TRACE=$P/zbatch.csv \
  timeout 120 $dir/bin/gemmx batch --dtypes c,z >$P/zbatch.tap 2>&1
  echo "gemmx batch c, z on GPU 0: $(grep -c '^ok' $P/zbatch.tap) ok, $(grep -c '^not ok' $P/zbatch.tap) not ok;" \
    "batch rows on opencl $(awk -F, '$2 ~ /gemm_batch/ && $9 == "opencl"' $P/zbatch.csv | wc -l)," \
    "verify not ok $(awk -F, '$2 ~ /gemm_batch/ && $9 == "opencl" && $(NF - 5) != "ok"' $P/zbatch.csv | wc -l)"; }
echo "## end at $(( $(date +%s) - t0 )) s"
