#!/bin/sh
# The main job: an unmodified program (Debian's numpy) with hopblas
# preloaded, first with automatic routing, then with the OpenCL engine
# forced; each time the results are compared with OpenBLAS's and the trace
# shows where every call went and why.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${HOPBLAS_BUILD:-$top/_build}
lib=$build/.libs/libhopblas.so.0
py=/usr/bin/python3 # Debian's numpy: it links libblas.so.3, so preloading works
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== hopblas info (what the library finds on this machine)"
"$build/hopblas" info
echo
echo "== 1. numpy float32 matmuls with OpenBLAS alone"
$py "$top/tools/demo_matmul.py" "$out/openblas.npz"
echo "   done"
echo
echo "== 2. the same program with hopblas preloaded, automatic routing"
echo "   LD_PRELOAD=$lib HOPBLAS_TRACE=auto.csv $py demo_matmul.py"
LD_PRELOAD=$lib HOPBLAS_TRACE=$out/auto.csv $py "$top/tools/demo_matmul.py" "$out/auto.npz"
$py "$top/tools/demo_report.py" "$out/openblas.npz" "$out/auto.npz" "$out/auto.csv"
echo
if "$build/hopblas" info | grep -q '^  opencl *on'; then
  echo "== 3. the same program with the OpenCL engine forced (HOPBLAS_BACKEND=opencl)"
  LD_PRELOAD=$lib HOPBLAS_BACKEND=opencl HOPBLAS_TRACE=$out/opencl.csv \
    $py "$top/tools/demo_matmul.py" "$out/opencl.npz"
  $py "$top/tools/demo_report.py" "$out/openblas.npz" "$out/opencl.npz" "$out/opencl.csv"
else
  echo "== 3. OpenCL engine is off on this machine (see hopblas info above); skipped"
fi
echo
echo "All results match OpenBLAS within the GEMM error bound."
