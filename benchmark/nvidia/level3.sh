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
# LEVEL3_STEPS: the steps to run (default all); LEVEL3_SIZES: the lapack-bench arguments.
set -u
P=/tmp/level3; mkdir -p $P
trap 'tar czf $OUT/level3.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
steps=${LEVEL3_STEPS:-openblas hopblas nvblas}
sizes=${LEVEL3_SIZES:-dtrsm:8192 dsyrk:8192 dpotrf:8192 dgetrf:8192 dpotrf:16384 dgetrf:16384}
want() { case " $steps " in *" $1 "*) echo "## $1 at $(( $(date +%s) - t0 )) s"; return 0 ;; esac; return 1; }
# The reference LAPACK first, then OpenBLAS's libblas.so.3.
LP=$lib/lapack:$LD_LIBRARY_PATH
bench() { LD_LIBRARY_PATH=$LP timeout 280 $dir/bin/lapack-bench --reps 2 $sizes; }
want openblas && { bench >$P/openblas.txt 2>&1; cat $P/openblas.txt; }
want hopblas && { HOPBLAS_TRACE=$P/hopblas-trace.csv LD_PRELOAD=$dir/lib/libhopblas.so.0 bench \
  >$P/hopblas.txt 2>&1; cat $P/hopblas.txt;
  awk -F, 'NR > 1 { n[$2 " " $9]++ } END { for (k in n) print n[k], k }' $P/hopblas-trace.csv | sort -k2 >$P/hopblas-engines.txt
  gzip -f $P/hopblas-trace.csv; cat $P/hopblas-engines.txt; }
want nvblas && { NVBLAS_CONFIG_FILE=$P/nvblas.conf LD_PRELOAD=$nvblas bench >$P/nvblas.txt 2>&1; cat $P/nvblas.txt; }
echo "## end at $(( $(date +%s) - t0 )) s"
