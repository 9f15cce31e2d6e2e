#!/bin/sh
# Fixed costs per call that a call-heavy program meets, for one or more
# hopblas builds side by side (say, before and after a change):
#  1. LAPACK's single-precision test programs (xlintsts < stest.in, Debian's
#     liblapack-test: about 1.5 M sgemm_ calls, most tiny) with OpenBLAS
#     alone, with hopblas preloaded, and with hopblas preloaded and tracing;
#     CPU seconds (user + sys: steadier than the wall clock on a shared
#     machine) and wall seconds, the median of RUNS runs.
#  2. A tiny call (4x4x4) forced onto the OpenCL engine: microseconds per
#     call on the real driver (PoCL here) and on the stub driver of the
#     tests, whose commands run in place (test/opencl/stub-icd.c): what is
#     left there is hopblas's own host code.
# Usage: call-cost.sh BUILD_DIR LIB [LIB...]   (BUILD_DIR holds the stub driver)
set -eu
build=$(cd "$1" && pwd)
shift
runs=${RUNS:-3}
lapack=/usr/lib/x86_64-linux-gnu/lapack
[ -x "$lapack/xlintsts" ] || { echo "xlintsts missing: apt-get install liblapack-test" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1

# median of the runs' "cpu wall" pairs, by cpu
median() { sort -n | awk '{ c[NR] = $1; w[NR] = $2 } END { m = int((NR + 1) / 2); printf "%.2f %.2f", c[m], w[m] }'; }

# time_xlintsts LIB TRACE: prints "cpu wall" medians; LIB "" is OpenBLAS alone
time_xlintsts() {
  for r in $(seq "$runs"); do
    rm -f "$tmp/trace.csv"
    (cd "$tmp" && env ${1:+LD_PRELOAD=$1} ${2:+HOPBLAS_TRACE=$tmp/trace.csv} \
      /usr/bin/time -f '%U %S %e' -o "$tmp/t" "$lapack/xlintsts" <"$lapack/stest.in" >/dev/null 2>&1)
    awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$tmp/t"
  done | median
}

echo "xlintsts < stest.in, median of $runs (CPU s = user + sys; wall s)"
echo "| library | untraced CPU s | untraced wall s | traced CPU s | traced wall s | trace rows |"
echo "|---|---|---|---|---|---|"
set -- "" "$@"
for lib in "$@"; do
  if [ -z "$lib" ]; then
    echo "| OpenBLAS alone | $(time_xlintsts "" "" | tr ' ' '|' | sed 's/|/ | /') | - | - | - |"
    continue
  fi
  plain=$(time_xlintsts "$lib" "")
  traced=$(time_xlintsts "$lib" yes)
  rows=$(($(wc -l <"$tmp/trace.csv") - 1))
  echo "| $lib | ${plain% *} | ${plain#* } | ${traced% *} | ${traced#* } | $rows |"
done
shift

cc -O2 -o "$tmp/tiny" "$(dirname "$0")/overhead.c" -lopenblas
mkdir -p "$tmp/vendors"
echo "$build/test/opencl/.libs/libhopstub.so" >"$tmp/vendors/stub.icd"
echo
echo "A 4x4x4 sgemm_ forced onto the OpenCL engine (HOPBLAS_BACKEND=opencl HOPBLAS_MIN_FLOPS=0):"
echo "us per call over 20000 calls, benchmark/overhead.c's second loop (the engine already started)"
echo "| library | driver | memory | us per call |"
echo "|---|---|---|---|"
for lib in "$@"; do
  for driver in pocl stub; do
    for memory in auto zero-copy staged; do
      vendors=
      [ "$driver" = stub ] && vendors=$tmp/vendors
      us=$(env ${vendors:+OCL_ICD_VENDORS=$vendors} HOPBLAS_BACKEND=opencl HOPBLAS_MIN_FLOPS=0 \
        HOPBLAS_OPENCL_MEMORY=$memory LD_PRELOAD="$lib" "$tmp/tiny" 4 20000 2>/dev/null |
        sed -n 's/.* sgemm_ \([0-9.]*\) ns.*/\1/p' | awk '{ printf "%.1f", $1 / 1000 }')
      echo "| $lib | $driver | $memory | ${us:-failed} |"
    done
  done
done
