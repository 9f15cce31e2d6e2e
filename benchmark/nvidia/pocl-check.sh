#!/bin/sh
# Every variant of benchmark/nvidia/variants.txt on PoCL (CPU OpenCL) before
# any device time is spent: each transpose pair on small edge shapes, with
# the PTX instructions of the tensor-core kernels replaced by
# kernels/nv_mma_emu.cl.  One clprobe line per case; exits non-zero
# if any case is wrong, or if kernels/nv_probe.cl builds here.
#   sh benchmark/nvidia/pocl-check.sh [CLPROBE] [VARIANTS]   (repository root)
# Built with -cl-opt-disable: PoCL 3.1's optimiser computes kernels whose
# barriers sit in a main loop selected by a run-time branch (the transpose
# pair) wrongly, and differently from run to run, when work-groups run on
# several threads; one thread, -O0 or a build for one pair (NV_TA/NV_TB)
# give the right result, and oclgrind finds no race.  It also keeps the
# emulated kernels' build time to seconds.
set -u
P=${1:-.device/bin/clprobe}
VARIANTS=${2:-benchmark/nvidia/variants.txt}
fail=0
grep -v '^#' "$VARIANTS" | {
  while read -r label file kernel dt local tile defs; do
    case $label in *-probe-*) continue ;; esac # diagnostics: wrong results by design
    if [ "$defs" = - ]; then defs=; else defs=$(echo "$defs" | tr , ' '); fi
    emu=
    case $file in *mma* | *tf32* | *f16x2*) emu="-f kernels/nv_mma_emu.cl" ;; esac
    for shape in "1 1 1 NN 0 0 0" "130 136 40 NN 3 5 0.5" "130 136 40 TT 3 1 0.5" \
      "150 260 100 TN 0 0 0" "150 260 100 NT 0 0 1"; do
      set -- $shape
      line=$($P $emu -f kernels/nv_split.cl -f "kernels/$file" -K "$kernel" -t "$dt" -L "$local" -W "$tile" \
        -D "$defs -cl-opt-disable" -l "$label" -m $1 -n $2 -k $3 -T $4 -p $5 -o $6 -b $7 \
        -r 1) || fail=1
      echo "$line" | cut -c1-112
    done
  done
  if $P -probe -f kernels/nv_probe.cl -K nv_ptx_probe >/dev/null 2>&1; then
    echo "nv_ptx_probe built on a device without PTX"
    fail=1
  else
    echo "nv_ptx_probe: fails to build here, as it must"
  fi
  exit $fail
}
