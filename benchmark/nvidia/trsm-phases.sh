#!/bin/sh
# Where a dtrsm's and a dgetrf's time goes on one GPU (HOPBLAS_DEVICE=0):
# lapack-bench's dtrsm (left, lower, 8192 x 8192) best of 2 with
# HOPBLAS_VERBOSE=3, whose `opencl trsm phases` line times B's upload, A's
# panels, the slab solves, the updates and the read-back (separated by waits:
# the total is a little longer than without them), for slabs of 64, 128 and
# 256 rows; then dgetrf 8192 with its trace summed per routine and engine and
# a sampled update's phases.  Carries what level3.sh carries:
#   there: sh benchmark/nvidia/trsm-phases.sh   (carry .device/h200; $OUT/trsm-phases.tgz)
# TP_SIZE: the order (8192); TP_BLOCKS: the slab sizes (64 128 256).
set -u
P=/tmp/trsm-phases; mkdir -p $P
trap 'tar czf $OUT/trsm-phases.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
LP=$lib/lapack:$LD_LIBRARY_PATH
n=${TP_SIZE:-8192}
run() { # NAME ENV... -- ARGS...
  name=$1; shift
  envs=""; while [ "$1" != -- ]; do envs="$envs $1"; shift; done; shift
  env $envs HOPBLAS_DEVICE=0 HOPBLAS_VERBOSE=3 HOPBLAS_TRACE=$P/$name.csv LD_PRELOAD=$dir/lib/libhopblas.so.0 \
    LD_LIBRARY_PATH=$LP timeout 200 $dir/bin/lapack-bench "$@" >$P/$name.log 2>&1
}
for nb in ${TP_BLOCKS:-64 128 256}; do
  run trsm-nb$nb HOPBLAS_OPENCL_L3_BLOCK=$nb -- --reps 2 dtrsm:$n
  grep -v '^hopblas' $P/trsm-nb$nb.log | sed "s/^/nb=$nb /"
  grep 'trsm phases' $P/trsm-nb$nb.log | sed 's/.*phases: //'
done
run getrf X=1 -- --reps 1 dgetrf:$n
grep -v '^hopblas' $P/getrf.log
python3 benchmark/nvidia/trace_sums.py $P/getrf.csv "$(awk '/^dgetrf/ { print $3 }' $P/getrf.log)"
grep 'opencl phases' $P/getrf.log | awk 'NR % 16 == 4' | sed 's/.*phases: //' | cut -c1-400 | head -8
gzip -f $P/*.csv $P/*.log
echo "## end at $(( $(date +%s) - t0 )) s"
