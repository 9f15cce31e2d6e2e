#!/bin/sh
# One device call: settings side by side at n = 8192 from host memory, each
# run a fresh process with its phases (HOPBLAS_VERBOSE=3), in AB_ROUNDS
# rounds (4) that take the settings in turn, beside the link (linkrate) and
# each of those precisions resident (the parts of each run's bound:
# python3 benchmark/nvidia/bound-ratios.py FOLDER).
# AB_SETTINGS: space-separated VAR=VALUE settings, `-` for the defaults
# (default "- HOPBLAS_OPENCL_LEAD_DEPTH=0.75"); AB_DTYPES (d,s); AB_STEPS
# (link resident rounds).  Run N of round R is h-R-N.txt.
#   here:  sh benchmark/nvidia/h200.sh pack _build .device/h200 && sh benchmark/nvidia/build.sh &&
#          cp .device/bin/* .device/h200/bin/ && cp .device/debs/*.deb .device/h200/debs/
#   there: sh benchmark/nvidia/ab-settings.sh   (carry .device/h200; results in $OUT/ab.tgz)
set -u
P=/tmp/ab; mkdir -p $P
trap 'tar czf $OUT/ab.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
steps=${AB_STEPS:-link resident rounds}
want link && link_rate
want resident && resident_8192 "${AB_DTYPES:-d,s}"
want rounds || exit 0
for r in $(seq 1 "${AB_ROUNDS:-4}"); do
  i=0
  for s in ${AB_SETTINGS:-- HOPBLAS_OPENCL_LEAD_DEPTH=0.75}; do
    i=$((i + 1))
    [ "$s" = - ] && s=AB_DEFAULTS=1
    echo "h-$r-$i: $s"
    host_8192 "h-$r-$i" "${AB_DTYPES:-d,s}" "$s"
    echo "$s" >>$P/h-$r-$i.txt
  done
done
echo "## end at $(( $(date +%s) - t0 )) s"
