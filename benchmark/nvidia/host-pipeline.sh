#!/bin/sh
# One device call (about 6 min): where calls from host memory lose time, and
# which pipeline knobs win, each precision at n = 8192 beside its bound.
#   here:  sh benchmark/nvidia/h200.sh pack _build .device/h200 &&
#          sh benchmark/nvidia/build.sh && cp .device/bin/* .device/h200/bin/ &&
#          cp .device/debs/*.deb .device/h200/debs/
#   there: sh benchmark/nvidia/host-pipeline.sh   (carry .device/h200; results in $OUT/pipeline.tgz)
# Steps: the link and each kernel resident (the bound's parts), then the host
# calls with HOPBLAS_OPENCL_TIMELINE=1 under each setting of PIPELINE_SETTINGS
# (space-separated, each a comma-separated list of KEY=VALUE, "-" for the
# defaults), alternating twice, then Debian's LAPACK at 8192 (dsyrk, dpotrf,
# dgetrf) beside NVBLAS with the defaults.  Read the phase and timeline
# lines of host-*.txt: doc/PERFORMANCE.md says how the bound is formed.
# PIPELINE_DTYPES: the precisions of the host calls (default s,d,c,z,h);
# PIPELINE_LAPACK=0 leaves out the LAPACK step.
set -u
P=/tmp/pipeline; mkdir -p $P
trap 'tar czf $OUT/pipeline.tgz -C $P --exclude=cache . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
B="$dir/bin/hopblas bench"
settings=${PIPELINE_SETTINGS:-- HOPBLAS_OPENCL_OPERAND_SLOTS=4 HOPBLAS_OPENCL_SLICE_MIN_FLOPS=1000000000000000}
timeout 60 $dir/bin/linkrate 256 5 >$P/link.txt 2>&1; cat $P/link.txt
HOPBLAS_OPENCL_VARIANT=nvidia timeout 120 $B --sizes 8192 --engines opencl --mode resident \
  --dtype s,d,c,z,h --min-time 0.1 --reps 3 >$P/resident.txt 2>&1
grep -E '^opencl' $P/resident.txt | cut -c1-80
for round in 1 2; do
  i=0
  for s in $settings; do
    i=$((i + 1))
    echo "## round $round, setting $i: $s at $(( $(date +%s) - t0 )) s"
    # shellcheck disable=SC2046 # the setting's KEY=VALUE words
    env $( [ "$s" = - ] || echo "$s" | tr , ' ') HOPBLAS_OPENCL_TIMELINE=1 HOPBLAS_VERBOSE=3 \
      timeout 100 $B --sizes 8192 --engines hopblas --mode host --dtype "${PIPELINE_DTYPES:-s,d,c,z,h}" --min-time 0.3 \
      --reps 3 >$P/host-$i-$round.txt 2>&1
    grep -E '^hopblas   host' $P/host-$i-$round.txt | cut -c1-75
  done
done
[ "${PIPELINE_LAPACK:-1}" = 0 ] && exit 0
LP=$lib/lapack:$LD_LIBRARY_PATH
echo "## lapack at $(( $(date +%s) - t0 )) s"
HOPBLAS_DEVICE=0 LD_PRELOAD=$dir/lib/libhopblas.so.0 LD_LIBRARY_PATH=$LP timeout 100 \
  $dir/bin/lapack-bench --reps 2 dsyrk:8192 dpotrf:8192 dgetrf:8192 >$P/lapack-hopblas.txt 2>&1
NVBLAS_CONFIG_FILE=$P/nvblas.conf LD_PRELOAD=$nvblas LD_LIBRARY_PATH=$LP timeout 100 \
  $dir/bin/lapack-bench --reps 1 dsyrk:8192 dpotrf:8192 dgetrf:8192 >$P/lapack-nvblas.txt 2>&1
grep -E '^d' $P/lapack-hopblas.txt $P/lapack-nvblas.txt
echo "## end at $(( $(date +%s) - t0 )) s"
