#!/bin/sh
# The nv_* kernels on PoCL (CPU OpenCL), before any device time is spent:
# every transpose pair on edge shapes, for each family, with the PTX
# instructions replaced by benchmark/nvidia/nv_mma_emu.cl.  Prints one
# clprobe line per case and exits non-zero if any case is wrong.
#   sh benchmark/nvidia/pocl-check.sh [CLPROBE]   (from the repository root)
# PoCL 3.1 computes the emulated 3xTF32 kernel wrongly, and differently from
# run to run, when its optimiser is on and work-groups run on several
# threads (right with -cl-opt-disable or one thread; oclgrind finds no race),
# so that family is built with -cl-opt-disable here.
set -u
P=${1:-.device/bin/clprobe}
EMU=benchmark/nvidia/nv_mma_emu.cl
fail=0
check() { # files kernel dtype local tile defs
  files=$1 kernel=$2 dt=$3 local=$4 tile=$5 defs=$6
  for shape in "1 1 1 NN 0 0 0" "130 136 40 NN 3 5 0.5" "130 136 40 TN 3 5 0.5" \
    "130 136 40 NT 3 5 0.5" "130 136 40 TT 3 5 0.5" "257 129 70 NN 0 0 0" "257 129 70 TT 0 0 1"; do
    set -- $shape
    f=
    for x in $files; do f="$f -f $x"; done
    line=$($P $f -K "$kernel" -t "$dt" -L "$local" -W "$tile" -D "$defs" -m $1 -n $2 -k $3 -T $4 \
      -p $5 -o $6 -b $7 -r 1) || fail=1
    echo "$line" | cut -c1-112
  done
}
check kernels/nv_sgemm_fma.cl sgemm_nv_fma s 256 128,128 ""
check kernels/nv_sgemm_fma.cl sgemm_nv_fma s 128 128,64 "-DNWG=64 -DNDIMC=8"
check kernels/nv_sgemm_fma.cl sgemm_nv_fma s 256 256,128 "-DMWG=256 -DKWG=8"
check "$EMU kernels/nv_hgemm_mma.cl" hgemm_nv_mma h 256 128,128 ""
check "$EMU kernels/nv_hgemm_mma.cl" hgemm_nv_mma h 256 128,128 "-DNV_LDSM=0"
check "$EMU kernels/nv_hgemm_mma.cl" shgemm_nv_mma sh 256 128,256 "-DNWG=256 -DKWG=16"
check "$EMU kernels/nv_hgemm_mma.cl" hgemm_nv_mma h 256 256,128 "-DMWG=256 -DKWG=16 -DWARPM=4 -DWARPN=2"
check "$EMU kernels/nv_hgemm_mma.cl" hgemm_nv_mma h 128 128,128 "-DWARPN=2"
check "$EMU kernels/nv_sgemm_3xtf32.cl" sgemm_nv_3xtf32 s 256 128,128 "-cl-opt-disable"
check "$EMU kernels/nv_sgemm_3xtf32.cl" sgemm_nv_3xtf32 s 128 128,64 "-DNWG=64 -DWARPN=2 -cl-opt-disable"
if $P -probe -f kernels/nv_probe.cl -K nv_ptx_probe >/dev/null 2>&1; then
  echo "nv_ptx_probe built on a device without PTX"
  fail=1
else
  echo "nv_ptx_probe: fails to build here, as it must"
fi
exit $fail
