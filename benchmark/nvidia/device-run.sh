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
# list of labels to sweep other variants.
set -u
BIN=${1:-.device/bin}
DEBS=${2:-.device/debs}
OUT=${3:-${OUT:-/tmp/nv-out}}
SIZES=${NV_SIZES:-1024 2048 4096 8192}
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
  timeout 120 "$BIN/clprobe" -l "$label" -f "$K/$file" -K "$kernel" -t "$dt" -L "$local" \
    -W "$tile" -D "$defs" "$@" >>"$TABLE" 2>>"$LOG" ||
    echo "$label $* FAILED rc=$?" >>"$TABLE"
}

# The variants: label file kernel dtype local tile defs
VARIANTS=$(
  cat <<'EOF'
fma-128x128        nv_sgemm_fma.cl    sgemm_nv_fma     s  256 128,128 -
fma-128x128-k8     nv_sgemm_fma.cl    sgemm_nv_fma     s  256 128,128 -DKWG=8
fma-128x128-w4x8   nv_sgemm_fma.cl    sgemm_nv_fma     s  256 128,128 -DWLM=4
fma-128x128-w16x2  nv_sgemm_fma.cl    sgemm_nv_fma     s  256 128,128 -DWLM=16
fma-128x128-r128   nv_sgemm_fma.cl    sgemm_nv_fma     s  256 128,128 -cl-nv-maxrregcount=128
fma-128x64         nv_sgemm_fma.cl    sgemm_nv_fma     s  128 128,64  -DNWG=64,-DNDIMC=8
fma-256x128-k8     nv_sgemm_fma.cl    sgemm_nv_fma     s  256 256,128 -DMWG=256,-DKWG=8
generic-128x64     gemm_generic.cl    sgemm_generic_tiled s 32,8 128,64 -DMWG=128,-DNWG=64,-DKWG=32,-DMDIMC=32,-DNDIMC=8,-DVWM=4,-DVWN=4
mma-128x128        nv_hgemm_mma.cl    hgemm_nv_mma     h  256 128,128 -
mma-128x128-noldsm nv_hgemm_mma.cl    hgemm_nv_mma     h  256 128,128 -DNV_LDSM=0
mma-128x128-w2x2   nv_hgemm_mma.cl    hgemm_nv_mma     h  128 128,128 -DWARPN=2
mma-128x256-k16    nv_hgemm_mma.cl    hgemm_nv_mma     h  256 128,256 -DNWG=256,-DKWG=16
mma-256x128-k16    nv_hgemm_mma.cl    hgemm_nv_mma     h  256 256,128 -DMWG=256,-DKWG=16,-DWARPM=4,-DWARPN=2
shmma-128x128      nv_hgemm_mma.cl    shgemm_nv_mma    sh 256 128,128 -
shmma-128x256-k16  nv_hgemm_mma.cl    shgemm_nv_mma    sh 256 128,256 -DNWG=256,-DKWG=16
3xtf32-128x128     nv_sgemm_3xtf32.cl sgemm_nv_3xtf32  s  256 128,128 -
3xtf32-128x128-w2x2 nv_sgemm_3xtf32.cl sgemm_nv_3xtf32 s  128 128,128 -DWARPN=2
3xtf32-128x64-w2x2 nv_sgemm_3xtf32.cl sgemm_nv_3xtf32  s  128 128,64  -DNWG=64,-DWARPN=2
EOF
)
[ "${NV_QUICK:-0}" = 1 ] && VARIANTS=$(echo "$VARIANTS" | grep -E '^(fma-128x128|mma-128x128|shmma-128x128|3xtf32-128x128) ')

run_variants() { # $1: a shell function taking label file kernel dtype local tile defs
  echo "$VARIANTS" | while read -r label file kernel dt local tile defs; do
    [ "$defs" = - ] && defs= || defs=$(echo "$defs" | tr , ' ')
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

build_log() { # register and spill counts of the default of each family
  probe "$1" "$2" "$3" "$4" "$5" "$6" "$7 -cl-nv-verbose" -m 256 -n 256 -k 256 -r 1 -v
}

echo "# $(cat "$OUT/gpu.txt")" >>"$TABLE"
timeout 30 "$BIN/clprobe" -probe -f "$K/nv_probe.cl" -K nv_ptx_probe >>"$TABLE" 2>>"$LOG" ||
  echo "nv_ptx_probe FAILED rc=$?" >>"$TABLE"
timeout 180 python3 benchmark/nvidia/torch_anchor.py $SIZES >>"$TABLE" 2>>"$LOG" ||
  echo "torch_anchor FAILED rc=$?" >>"$TABLE"
for mode in default tuned; do
  timeout 120 "$BIN/clblast_anchor" $mode $SIZES >>"$TABLE" 2>>"$LOG" ||
    echo "clblast_anchor $mode FAILED rc=$?" >>"$TABLE"
done
echo "# timings" >>"$TABLE"
run_variants timed
echo "# correctness sweep" >>"$TABLE"
VARIANTS=$(echo "$VARIANTS" | grep -E "^(${NV_SWEEP:-fma-128x128|fma-128x64|fma-256x128-k8|mma-128x128|mma-128x128-noldsm|mma-128x256-k16|shmma-128x128|3xtf32-128x128|3xtf32-128x64-w2x2}) ")
run_variants sweep
VARIANTS=$(echo "$VARIANTS" | grep -E "^(fma-128x128|mma-128x128|3xtf32-128x128) ")
run_variants build_log
grep -E "^== |registers|spill" "$LOG" | grep -B1 -E "registers|spill" >"$OUT/registers.txt"

# The summary: timings as label dtype n best median verdict, the sweep as
# passed/run per variant.
awk '/^# timings/ { part = 1; next } /^# correctness/ { part = 2; next }
  /^#|FAILED|probe|clblast|cublas/ { print; next }
  part == 1 { printf "%-20s %-2s %5d %8.2f %8.2f %s %s\n", $1, $2, $4, $8, $10, $14, $15 }
  part == 2 { runs[$1]++; if ($14 == "ok") ok[$1]++ }
  END { for (v in runs) printf "sweep %-20s %d/%d ok\n", v, ok[v], runs[v] }' "$TABLE" |
  tee "$OUT/summary.txt"
