#!/bin/sh
# `hopblas tune` and the crossover sweep on the lent NVIDIA machine, which
# has no compiler, no OpenCL loader and no OpenBLAS (doc/TUNING.md).
#
#   sh benchmark/tune-device.sh pack BUILD [DIR]  here: the library, hopblas and
#                                                 tune-sweep of an out-of-tree BUILD,
#                                                 and the Debian packages they need,
#                                                 into DIR (default .device/tune)
#   sh benchmark/tune-device.sh run [DIR]         there, DIR carried: hopblas info,
#                                                 hopblas tune, hopblas info again, the
#                                                 tuned-against-default and crossover
#                                                 sweeps; into $OUT: info.txt, tune.txt,
#                                                 tune.err, gain.txt, crossover.txt, the raw
#                                                 crossover-times.txt and -route.csv, and
#                                                 tune-cache.txt (the tuning cache itself)
#
# TUNE_BUDGET (default 240 s), TUNE_SIZES (default 1024,2048,4096,8192) and
# CROSS_SIZES (default 64 ... 8192) change the run; ROUNDS the sweeps' rounds;
# TUNE_PLATFORM=pocl runs it all on the machine's PoCL (16 cores) instead.
# The CPU engine there is Debian's OpenBLAS (carried), the anchor the router
# must beat or match.
set -u
cmd=${1:-}
case $cmd in
pack)
  build=${2:?usage: tune-device.sh pack BUILD [DIR]}
  dir=${3:-.device/tune}
  set -e
  mkdir -p "$dir/bin" "$dir/lib" "$dir/debs"
  cp "$build/.libs/libhopblas.so.0" "$dir/lib/"
  # hopblas carries its own engines (libhopcore, linked statically): a plain copy runs.
  cp "$build/hopblas" "$dir/bin/"
  ${CC:-cc} -std=gnu11 -O2 -Wall -Iinclude -o "$dir/bin/tune-sweep" benchmark/tune_sweep.c \
    -L"$dir/lib" -l:libhopblas.so.0 -Wl,-rpath,'$ORIGIN/../lib'
  (cd "$dir/debs" && { [ -n "$(ls ./*.deb 2>/dev/null)" ] ||
    apt-get download ocl-icd-libopencl1 libopenblas0-pthread libgfortran5 libquadmath0; })
  ls -lR "$dir"
  exit 0
  ;;
run) ;;
*)
  echo "usage: tune-device.sh pack BUILD [DIR] | run [DIR]" >&2
  exit 2
  ;;
esac

dir=${2:-.device/tune}
out=${OUT:-/tmp/tune-out}
root=/tmp/tune-root
cache=/tmp/tune-cache # program binaries too: kept out of $OUT, which brings back few files
mkdir -p "$out" "$cache" "$root" /tmp/tune-vendors
chmod 700 "$cache"
for f in "$dir"/debs/*.deb; do dpkg -x "$f" "$root"; done
lib=$root/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH="$dir/lib:$lib:$lib/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ "${TUNE_PLATFORM:-nvidia}" = nvidia ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  # NVIDIA's OpenCL only, for this process (TUNE_PLATFORM=pocl keeps the machine's PoCL)
  echo /usr/lib/libnvidia-opencl.so.1 >/tmp/tune-vendors/nvidia.icd
  export OCL_ICD_VENDORS=/tmp/tune-vendors
fi
export HOPBLAS_CPU_BLAS=$lib/openblas-pthread/libopenblas.so.0 HOPBLAS_CACHE_DIR=$cache
bin=$dir/bin
{
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
  echo "== hopblas info, before"
  "$bin/hopblas" info 2>&1
} >"$out/info.txt"
timeout 900 "$bin/hopblas" tune --budget "${TUNE_BUDGET:-240}" --sizes "${TUNE_SIZES:-1024,2048,4096,8192}" \
  >"$out/tune.txt" 2>"$out/tune.err"
echo "hopblas tune: exit $?" >>"$out/tune.txt"
{
  echo "== hopblas info, after"
  "$bin/hopblas" info 2>&1
} >>"$out/info.txt"
OUT=/tmp/tune-gain TUNE_SWEEP=$bin/tune-sweep timeout 600 sh benchmark/tune-gain.sh \
  $(echo "${TUNE_SIZES:-1024,2048,4096,8192}" | tr , ' ') >"$out/gain.txt" 2>&1
OUT=/tmp/tune-crossover TUNE_SWEEP=$bin/tune-sweep timeout 900 sh benchmark/tune-crossover.sh \
  ${CROSS_SIZES:-64 128 256 384 512 768 1024 1536 2048 3072 4096 6144 8192} >"$out/crossover.txt" 2>&1
echo "tune-crossover: exit $?" >>"$out/crossover.txt"
cp "$cache/tune.txt" "$out/tune-cache.txt"
cp /tmp/tune-crossover/times.txt "$out/crossover-times.txt"
cp /tmp/tune-crossover/route.csv "$out/crossover-route.csv"
head -1 "$out/info.txt"
cat "$out/tune.txt" "$out/gain.txt" "$out/crossover.txt"
