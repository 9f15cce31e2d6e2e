#!/bin/sh
# One call on the lent NVIDIA machine: the PTX probe, the correctness sweep
# and the timings of every nv_* kernel variant, beside cuBLAS (PyTorch) and
# CLBlast measured in the same call.  Builds nothing there.
#
#   sh benchmark/nvidia/device-run.sh [BIN] [DEBS] [OUT]
#
# BIN holds clprobe and clblast_anchor built here by build.sh (default
# .device/bin), DEBS the Debian packages they need (.device/debs), OUT
# where the raw output goes ($OUT, else /tmp/nv-out).  The summary table is
# printed last.  Set NV_SIZES to change the timed sizes, NV_QUICK=1 to skip
# the variant search and time the defaults only, NV_SWEEP to a |-separated
# list of labels to sweep other variants (NV_BUILDLOG likewise for the
# register counts), NV_ANCHORS=0 to leave out cuBLAS and CLBlast.
set -u
BIN=${1:-.device/bin}
DEBS=${2:-.device/debs}
OUT=${3:-${OUT:-/tmp/nv-out}}
SIZES=${NV_SIZES:-1024 2048 4096 8192}
# the variant of each family that the engine uses (first in variants.txt)
NV_DEFAULTS=${NV_DEFAULTS:-$(grep -v "^#" "${NV_VARIANTS:-benchmark/nvidia/variants.txt}" |
  awk '{ f = $2 "/" $3 } !(f in seen) { seen[f] = 1; printf "%s%s", sep, $1; sep = "|" }')}
mkdir -p "$OUT" /tmp/nv-root /tmp/nv-vendors
for f in "$DEBS"/*.deb; do dpkg -x "$f" /tmp/nv-root; done
export LD_LIBRARY_PATH=/tmp/nv-root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -e /usr/lib/libnvidia-opencl.so.1 ]; then # NVIDIA's OpenCL only, for this process
  echo /usr/lib/libnvidia-opencl.so.1 >/tmp/nv-vendors/nvidia.icd
  export OCL_ICD_VENDORS=/tmp/nv-vendors
fi
TABLE=$OUT/table.txt
LOG=$OUT/log.txt
: >"$TABLE"
: >"$LOG"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader \
  >"$OUT/gpu.txt" 2>&1
K=kernels

# probe LABEL FILE KERNEL DTYPE LOCAL TILE DEFS [clprobe options...]
probe() {
  label=$1 file=$2 kernel=$3 dt=$4 local=$5 tile=$6 defs=$7
  shift 7
  echo "== $label $*" >>"$LOG"
  # nv_ptx.cl (the PTX helpers) before the PTX kernels, as the library builds them;
  # nv_split.cl next: the kernels call its nv_split_k (one slice when launched in 2-D)
  ptx=
  case $file in *mma* | *tf32* | *f16x2*) ptx="-f $K/nv_ptx.cl" ;; esac
  # shellcheck disable=SC2086 # one word per argument
  timeout 120 "$BIN/clprobe" -l "$label" $ptx -f "$K/nv_split.cl" -f "$K/$file" -K "$kernel" -t "$dt" \
    -L "$local" \
    -W "$tile" -D "$defs" "$@" >>"$TABLE" 2>>"$LOG" ||
    echo "$label $* FAILED rc=$?" >>"$TABLE"
}

# The variants (label file kernel dtype local tile defs, defs comma-separated
# or -): benchmark/nvidia/variants.txt, or the file named by NV_VARIANTS.
VARIANTS=$(grep -v '^#' "${NV_VARIANTS:-benchmark/nvidia/variants.txt}")
[ "${NV_QUICK:-0}" = 1 ] && VARIANTS=$(echo "$VARIANTS" | grep -E "^(${NV_DEFAULTS}) ")

run_variants() { # $1: a shell function taking label file kernel dtype local tile defs
  echo "$VARIANTS" | while read -r label file kernel dt local tile defs; do
    if [ "$defs" = - ]; then defs=; else defs=$(echo "$defs" | tr , ' '); fi
    "$1" "$label" "$file" "$kernel" "$dt" "$local" "$tile" "$defs"
  done
}

timed() {
  for n in $SIZES; do
    probe "$@" -m "$n" -n "$n" -k "$n" -r 10
  done
}

# Every transpose pair on an unaligned edge-tile shape (ld and offset odd,
# beta != 0) and on a tile-aligned one with beta == 0 (C is write-only).
sweep() {
  probe "$@" -m 1 -n 1 -k 1 -r 1
  for tr in NN TN NT TT; do
    probe "$@" -T $tr -m 130 -n 136 -k 40 -p 3 -o 5 -b 0.5 -r 1
    probe "$@" -T $tr -m 257 -n 129 -k 300 -r 1
  done
}

build_log() { # register and spill counts (ptxas's lines in log.txt)
  probe "$1" "$2" "$3" "$4" "$5" "$6" "$7 -cl-nv-verbose" -m 256 -n 256 -k 256 -r 1 -v
}

echo "# $(cat "$OUT/gpu.txt")" >>"$TABLE"
timeout 30 "$BIN/clprobe" -probe -f "$K/nv_probe.cl" -K nv_ptx_probe >>"$TABLE" 2>>"$LOG" ||
  echo "nv_ptx_probe FAILED rc=$?" >>"$TABLE"
if [ "${NV_ANCHORS:-1}" = 1 ]; then
  timeout 180 python3 benchmark/nvidia/torch_anchor.py $SIZES >>"$TABLE" 2>>"$LOG" ||
    echo "torch_anchor FAILED rc=$?" >>"$TABLE"
  for mode in default tuned; do
    timeout 120 "$BIN/clblast_anchor" $mode $SIZES >>"$TABLE" 2>>"$LOG" ||
      echo "clblast_anchor $mode FAILED rc=$?" >>"$TABLE"
  done
fi
echo "# timings" >>"$TABLE"
run_variants timed
echo "# correctness sweep" >>"$TABLE"
ALL=$VARIANTS
VARIANTS=$(echo "$ALL" | grep -E "^(${NV_SWEEP:-$NV_DEFAULTS}) ")
run_variants sweep
echo "# build logs" >>"$TABLE"
VARIANTS=$(echo "$ALL" | grep -E "^(${NV_BUILDLOG:-$NV_DEFAULTS}) ")
run_variants build_log
# The PTX of the defaults and, where the CUDA toolkit's ptxas and cuobjdump
# are on the machine, their SASS, in one archive.
VARIANTS=$(echo "$ALL" | grep -E "^(${NV_DEFAULTS}) ")
mkdir -p /tmp/nv-ptx
dump() {
  probe "$1" "$2" "$3" "$4" "$5" "$6" "$7" -m 256 -n 256 -k 256 -r 1 -S "/tmp/nv-ptx/$1.bin"
  tr -d '\000' <"/tmp/nv-ptx/$1.bin" >"/tmp/nv-ptx/$1.ptx" && rm -f "/tmp/nv-ptx/$1.bin"
  ptxas=$(ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -n 1)
  [ -n "$ptxas" ] && [ -s "/tmp/nv-ptx/$1.ptx" ] || return 0
  "$ptxas" -arch=sm_90 -v -o "/tmp/$1.cubin" "/tmp/nv-ptx/$1.ptx" >"/tmp/nv-ptx/$1.ptxas" 2>&1 &&
    "$(dirname "$ptxas")/cuobjdump" -sass "/tmp/$1.cubin" >"/tmp/nv-ptx/$1.sass" 2>&1
}
run_variants dump
tar -C /tmp -czf "$OUT/ptx-sass.tar.gz" nv-ptx

# The summary: timings as label dtype n best median verdict, the sweep as
# passed/run per variant.
awk '/^# timings/ { part = 1; next } /^# correctness/ { part = 2; next }
  /^# build logs/ { part = 3; next }
  part == 2 && /FAILED/ { runs[$1]++ }
  /^#|FAILED|probe|clblast|cublas/ { print; next }
  part == 1 { printf "%-20s %-2s %5d %8.2f %8.2f %s %s\n", $1, $2, $4, $8, $10, $14, $15 }
  part == 2 { runs[$1]++; if ($14 == "ok") ok[$1]++ }
  END { for (v in runs) printf "sweep %-20s %d/%d ok\n", v, ok[v], runs[v] }' "$TABLE" |
  tee "$OUT/summary.txt"
