#!/bin/sh
# One device call (about 6 min): the dgemm kernel's variants (clprobe), the
# cuBLAS anchors, the link's rate (linkrate), and each precision at n = 8192
# resident and from host memory with HOPBLAS_VERBOSE=3's phases, the parts
# of a host-memory call's bound: max(kernel time resident, host copy time,
# link time) (doc/PERFORMANCE.md); then dgemm from host memory beside NVBLAS, and
# OpenBLAS up to 2048.
#   here:  sh benchmark/nvidia/h200.sh pack _build .device/h200 &&
#          sh benchmark/nvidia/build.sh && cp .device/bin/clprobe .device/bin/linkrate .device/h200/bin/
#   there: sh benchmark/nvidia/bound.sh   (carry .device/h200; results in $OUT/bound.tgz)
# BOUND_STEPS: the steps to run (default all but regs, sweep and contract), e.g.
# "variants cublas"; BOUND_VARIANTS: the dmma variants (|-separated labels) timed at 4096
# and 8192 and their registers counted (default all); BOUND_TRANS and BOUND_SWEEP: those
# timed in TN, NT, TT at 8192 and swept for correctness (default: the engine's).
set -u
P=/tmp/bound; mkdir -p $P
trap 'tar czf $OUT/bound.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
B="$dir/bin/hopblas bench" # a command, not a function: timeout runs it
steps=${BOUND_STEPS:-variants trans cublas link resident host hostd}
# clp LABEL FILE KERNEL DTYPE LOCAL TILE DEFS CLPROBE-OPTIONS...: one clprobe run of a variant
# (DEFS comma-separated, a first entry - for the file's own defaults).
clp() {
  defs=$(echo "$7" | sed 's/^-\(,\|$\)//' | tr , ' ')
  l=$1 f=$2 kn=$3 dt=$4 ls=$5 tl=$6; shift 7
  timeout 60 $dir/bin/clprobe -l "$l" -f kernels/nv_ptx.cl -f kernels/nv_split.cl -f "kernels/$f" -K "$kn" \
    -t "$dt" -L "$ls" -W "$tl" -D "$defs" "$@" 2>&1
}
probe() { # label file kernel dtype local tile defs n trans
  clp "$1" "$2" "$3" "$4" "$5" "$6" "$7" -m "$8" -n "$8" -k "$8" -T "$9" -r 10 -c sample | cut -c1-150
}
dmma() { grep '^dmma' benchmark/nvidia/variants.txt | grep -E "^($1) "; } # the variants whose labels match
if want variants; then
  dmma "${BOUND_VARIANTS:-dmma[^ ]*}" | while read -r label file kernel dt local tile defs; do
    for n in 4096 8192; do probe "$label" "$file" "$kernel" "$dt" "$local" "$tile" "$defs" $n NN; done
  done >>$P/variants.txt
  cat $P/variants.txt
fi
if want trans; then
  dmma "${BOUND_TRANS:-dmma-128x128-k8x4s3L-spread}" | while read -r label file kernel dt local tile defs; do
    for tr in TN NT TT; do probe "$label" "$file" "$kernel" "$dt" "$local" "$tile" "$defs" 8192 $tr; done
  done >>$P/variants.txt
  cat $P/variants.txt
fi
if want regs; then # ptxas's register and spill counts of each dmma variant
  dmma "${BOUND_VARIANTS:-dmma[^ ]*}" | while read -r label file kernel dt local tile defs; do
    echo "== $label"
    clp "$label" "$file" "$kernel" "$dt" "$local" "$tile" "$defs,-cl-nv-verbose" -m 256 -n 256 -k 256 -r 1 -v |
      grep -iE 'registers|spill|bytes stack' | head -n 4
  done >$P/regs.txt
  cat $P/regs.txt
fi
if want sweep; then # every transpose pair on edge shapes, odd ld and offsets, beta 0 with NaN in C
  dmma "${BOUND_SWEEP:-dmma-128x128-k8x4s3L-spread}" | while read -r label file kernel dt local tile defs; do
    for tr in NN TN NT TT; do
      for shape in "-m 130 -n 136 -k 40 -p 3 -o 5 -b 0.5" "-m 257 -n 129 -k 300" "-m 300 -n 260 -k 264" "-m 1 -n 1 -k 1"; do
        # shellcheck disable=SC2086 # the shape's options, one word each
        clp "$label" "$file" "$kernel" "$dt" "$local" "$tile" "$defs" $shape -T $tr -r 1 -c full | cut -c1-150
      done
    done
  done >$P/sweep.txt
  cat $P/sweep.txt
fi
want contract && shared_contract 100 1536
want cublas && { timeout 60 python3 benchmark/nvidia/torch_anchor.py 8192 >$P/cublas.txt 2>&1;
  timeout 60 python3 benchmark/nvidia/torch_anchor.py --precisions 4096 8192 >>$P/cublas.txt 2>&1; cat $P/cublas.txt; }
want link && { timeout 60 $dir/bin/linkrate 256 5 >$P/link.txt 2>&1; cat $P/link.txt; }
want resident && { HOPBLAS_OPENCL_VARIANT=nvidia timeout 120 $B --sizes 4096,8192 --engines opencl --mode resident \
  --dtype s,d,c,z,h --min-time 0.1 --reps 3 --csv $P/resident.csv >$P/resident.txt 2>&1; grep -E '^opencl' $P/resident.txt; }
want host && { HOPBLAS_VERBOSE=3 timeout 150 $B --sizes 8192 --engines hopblas --mode host --dtype s,d,c,z,h \
  --min-time 0.3 --reps 3 --csv $P/host.csv >$P/host.txt 2>&1; grep -E '^hopblas|opencl phases' $P/host.txt | cut -c1-400; }
want hostd && { NVBLAS_LIB=$nvblas NVBLAS_CONFIG_FILE=$P/nvblas.conf timeout 150 $B --sizes 256,512,1024,2048,4096,8192 \
  --engines hopblas,nvblas --mode host --dtype d --min-time 0.1 --reps 3 --csv $P/hostd.csv >$P/hostd.txt 2>&1; grep -E '^(hopblas|nvblas)' $P/hostd.txt
  # OpenBLAS where it is the other anchor (the larger sizes would take minutes)
  timeout 100 $B --sizes 256,512,1024,2048 --engines openblas --mode host --dtype d --min-time 0.1 --reps 3 \
    --csv $P/hostd-openblas.csv >$P/hostd-openblas.txt 2>&1; grep -E '^openblas' $P/hostd-openblas.txt; }
echo "## end at $(( $(date +%s) - t0 )) s"
