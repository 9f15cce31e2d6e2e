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
B="$dir/bin/hopblas bench" # a command, not a function: timeout runs it
steps=${AB_STEPS:-link resident rounds}
want() { case " $steps " in *" $1 "*) echo "## $1 at $(( $(date +%s) - t0 )) s"; return 0 ;; esac; return 1; }
want link && { timeout 60 $dir/bin/linkrate 256 5 >$P/link.txt 2>&1; cat $P/link.txt; }
want resident && { HOPBLAS_OPENCL_VARIANT=nvidia timeout 120 $B --sizes 8192 --engines opencl --mode resident \
  --dtype "${AB_DTYPES:-d,s}" --min-time 0.1 --reps 3 --csv $P/resident.csv >$P/resident.txt 2>&1
  grep -E '^opencl' $P/resident.txt; }
want rounds || exit 0
for r in $(seq 1 "${AB_ROUNDS:-4}"); do
  i=0
  for s in ${AB_SETTINGS:-- HOPBLAS_OPENCL_LEAD_DEPTH=0.75}; do
    i=$((i + 1))
    [ "$s" = - ] && s=AB_DEFAULTS=1
    env "$s" HOPBLAS_VERBOSE=3 timeout 150 $B --sizes 8192 --engines hopblas --mode host \
      --dtype "${AB_DTYPES:-d,s}" --min-time 0.3 --reps 3 >$P/h-$r-$i.txt 2>&1
    echo "$s" >>$P/h-$r-$i.txt
    grep -E '^hopblas  ' $P/h-$r-$i.txt | cut -c1-75 | sed "s|^|h-$r-$i $s |"
  done
done
echo "## end at $(( $(date +%s) - t0 )) s"
