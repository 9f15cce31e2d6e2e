#!/bin/sh
# The three OpenCL kernel families (generic, adreno, mali) on a real GPU:
# the lent NVIDIA machine, which has no compiler and no OpenCL loader.
#
#   sh benchmark/families.sh pack BUILD [DIR]   here: binaries of an out-of-tree
#                                               BUILD and the ICD loader into DIR
#                                               (default .device/fam, ignored by git)
#   sh benchmark/families.sh run [DIR] [OUT]    there (DIR carried): for each
#                                               family, `hopblas info`, the contract
#                                               sweep, shapes beyond the image size
#                                               limit, the float-math error, and
#                                               host-mode timings side by side
#
# NVIDIA's OpenCL has no cl_khr_fp16: hgemm runs on CL_HALF_FLOAT images read
# with read_imagef (half storage, float math).  The timings are host mode:
# every call packs and transfers its operands (benchmark/families.c).
set -u
cmd=${1:-}
case $cmd in
pack)
  build=${2:?usage: families.sh pack BUILD [DIR]}
  dir=${3:-.device/fam}
  set -e
  mkdir -p "$dir/bin" "$dir/lib" "$dir/debs"
  cp "$build/.libs/libhopblas.so.0" "$dir/lib/"
  cp "$build/hopblas" "$build/test/contract" "$build/test/opencl/fam-shapes" \
    "$build/test/opencl/fam-error" "$dir/bin/"
  gcc -std=c11 -O2 -Wall -Wextra -Iinclude -o "$dir/bin/families-bench" benchmark/families.c \
    -L"$dir/lib" -l:libhopblas.so.0
  (cd "$dir/debs" && { [ -n "$(ls ./*.deb 2>/dev/null)" ] || apt-get download ocl-icd-libopencl1; })
  ls -lR "$dir"
  exit 0
  ;;
run) ;;
*)
  echo "usage: families.sh pack BUILD [DIR] | run [DIR] [OUT]" >&2
  exit 2
  ;;
esac

dir=${2:-.device/fam}
out=${3:-${OUT:-/tmp/fam-out}}
mkdir -p "$out" /tmp/fam-root /tmp/fam-vendors
for f in "$dir"/debs/*.deb; do dpkg -x "$f" /tmp/fam-root; done
export LD_LIBRARY_PATH="$dir/lib:/tmp/fam-root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo /usr/lib/libnvidia-opencl.so.1 >/tmp/fam-vendors/nvidia.icd
export OCL_ICD_VENDORS=/tmp/fam-vendors # NVIDIA's OpenCL only
# No OpenBLAS there: the CPU engine (fallbacks only) is the built-in reference.
export HOPBLAS_CPU_BLAS=builtin HOPBLAS_BACKEND=opencl HOPBLAS_MIN_FLOPS=0
export HOPBLAS_CACHE_DIR=/tmp/fam-cache
bin=$dir/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
say "gpu: $(cat "$out/gpu.txt")"

for fam in generic adreno mali; do
  export HOPBLAS_OPENCL_VARIANT=$fam
  "$bin/hopblas" info >"$out/info-$fam.txt" 2>&1
  say "== $fam: $(grep 'family:' "$out/info-$fam.txt")"
  grep -E "images:|operands:|kernels:|half:" "$out/info-$fam.txt" | tee -a "$summary"
  t=/tmp/fam-$fam.csv
  rm -f "$t"
  HOPBLAS_TRACE=$t timeout 300 "$bin/contract" --quick --max-dim 48 >"$out/contract-$fam.txt" 2>&1
  say "contract: exit $? $(grep -c '^ok' "$out/contract-$fam.txt") ok $(grep -c '^not ok' "$out/contract-$fam.txt") not ok;" \
    "$(awk -F, '$9 == "opencl"' "$t" | grep -c "family=$fam ") opencl rows in family $fam," \
    "$(awk -F, 'NR > 1 && $9 != "opencl" && $9 != "core"' "$t" | wc -l) rows elsewhere"
  if [ $fam != generic ]; then
    rm -f "$t"
    HOPBLAS_TRACE=$t HOPBLAS_OPENCL_MALI_IMAGE=both timeout 300 "$bin/fam-shapes" --dtypes s,h \
      131100x3x5:NN 3x131100x5:NT 5x3x32800:TN >"$out/shapes-$fam.txt" 2>&1
    say "beyond 32768 texels: exit $? $(grep -c '^ok' "$out/shapes-$fam.txt") ok;" \
      "$(grep -o 'A=image[*][0-9]* B=image[*][0-9]*' "$t" | sort | uniq -c | tr '\n' ' ')"
    "$bin/fam-error" --expect float --k 64,1024,4096 >"$out/error-$fam.txt" 2>&1
    say "float-math error: exit $? $(grep -c '^ok' "$out/error-$fam.txt") ok"
  fi
  say "host-mode timings (dtype n seconds GFLOPS):"
  timeout 400 "$bin/families-bench" --sizes 1024,2048,4096,8192 --dtypes s,h --reps 3 2>&1 |
    tee -a "$summary"
done
