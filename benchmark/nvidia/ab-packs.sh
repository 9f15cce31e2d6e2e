#!/bin/sh
# Two builds of hopblas side by side in one call, from host memory through
# the public entry points: the pack of this tree (.device/h200) and another
# (AB_OTHER, default .device/h200-old: `h200.sh pack` of the other build),
# alternating, AB_ROUNDS rounds, each a fresh process of `hopblas bench`
# with its own pack's library; the staged calls' phases (HOPBLAS_VERBOSE=3)
# of every run.  AB_SIZES, AB_DTYPES, AB_DEVICE (HOPBLAS_DEVICE).
#   there: sh benchmark/nvidia/ab-packs.sh   (carry .device/h200 and AB_OTHER; $OUT/ab.tgz)
set -u
P=/tmp/ab-packs; mkdir -p $P
trap 'tar czf $OUT/ab.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
other=${AB_OTHER:-.device/h200-old}
base=${LD_LIBRARY_PATH#"$dir/lib:"} # the carried packages' libraries
for r in $(seq 1 "${AB_ROUNDS:-3}"); do
  for side in a b; do # a: the other pack, b: this tree's (the same pack twice keeps both runs)
    if [ $side = a ]; then d=$other; else d=$dir; fi
    name=$side-$(basename "$d")-dev${AB_DEVICE:-0}-$r
    HOPBLAS_DEVICE=${AB_DEVICE:-0} HOPBLAS_VERBOSE=3 LD_LIBRARY_PATH=$d/lib:$base timeout 150 \
      "$d/bin/hopblas" bench --sizes "${AB_SIZES:-8192}" --engines hopblas --mode host \
      --dtype "${AB_DTYPES:-d}" --min-time 0.3 --reps 3 >$P/$name.txt 2>&1
    grep -E '^hopblas  ' $P/$name.txt | cut -c1-75 | sed "s|^|$name |"
    # the warm calls' host copies: pack and unpack ms, medians
    grep 'opencl phases' $P/$name.txt | tail -n +2 |
      sed -n 's/.*pack \([0-9.]*\) .*unpack \([0-9.]*\) .*total \([0-9.]*\)/\1 \2 \3/p' | sort -k2 -n |
      awk '{ p[NR] = $1; u[NR] = $2; t[NR] = $3 } END { m = int((NR + 1) / 2);
        if (NR) printf "  %d warm calls, median by unpack: pack %s, unpack %s, total %s ms\n", NR, p[m], u[m], t[m] }'
  done
done
