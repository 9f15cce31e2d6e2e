#!/bin/sh
# Build hopblas with a sanitizer in its own folder and run the tests whose
# programs link the library directly (a preload into an uninstrumented
# program would need the sanitizer's runtime preloaded first).
# Usage: sanitize.sh asan|tsan [TEST...]    (results: the .trs files of that build)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:?usage: sanitize.sh asan|tsan [TEST...]}
shift
case $kind in
  asan) flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined" ;;
  tsan) flags="-fsanitize=thread" ;;
  *) echo "sanitize.sh: unknown sanitizer '$kind'" >&2; exit 2 ;;
esac
# TSan slows the 100000-call contract sweep too much: it gets the tests
# where threads meet (threads, stress, fork in config) and verify.
case $kind in
  asan) dflt="test/contract-cpu.test test/threads.test test/overflow.test test/verify.test test/config.test" ;;
  tsan) dflt="test/threads.test test/verify.test test/config.test" ;;
esac
tests=${*:-$dflt}
# Engines' tests join when their engine is built (PoCL: the OpenCL contract, in both memory modes).
extra="test/reliability/stress.test"
[ "$kind" = asan ] && extra="$extra test/opencl/contract.test test/videocore/emu.test test/videocore/golden.test"
for t in $extra; do
  case " $tests " in *" $t "*) ;; *) [ -f "$top/$t" ] && [ $# -eq 0 ] && tests="$tests $t" ;; esac
done
build=$top/_build/$kind
mkdir -p "$build"
cd "$build" || exit 1
if [ ! -f Makefile ]; then
  # shellcheck disable=SC2086
  "$top/configure" -q ${HOPBLAS_CONFIGURE_FLAGS:-} CFLAGS="-O1 -g -fno-omit-frame-pointer $flags" LDFLAGS="$flags" \
    >configure.log 2>&1 || { echo "sanitize.sh: configure failed (see $build/configure.log)"; exit 1; }
fi
# Leaks inside the OpenCL implementation (PoCL, LLVM) are not ours.
supp=$build/lsan.supp
printf 'leak:libpocl\nleak:libOpenCL\nleak:libLLVM\nleak:libclang\nleak:libhwloc\nleak:libopenblas\n' >"$supp"
# OpenBLAS and PoCL synchronise their worker threads in code TSan does not
# see: their memset/memcpy interceptor hits are not races of ours.  Our own
# threads still meet in our code, which TSan instruments.
tsupp=$build/tsan.supp
# (OpenBLAS runs single-threaded under TSan, see below; called_from_lib on it
# is fatal when a test maps it twice.)
printf '%s\n' called_from_lib:libpocl.so.2 called_from_lib:libpocl-devices-pthread.so \
  race:libopenblas.so.0 race:libpocl mutex:libpocl >"$tsupp"
HOP_TEST_SANITIZER=$kind \
ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=23" \
LSAN_OPTIONS="suppressions=$supp:print_suppressions=0" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
OPENBLAS_NUM_THREADS=$([ "$kind" = tsan ] && echo 1 || echo "${OPENBLAS_NUM_THREADS:-}") \
TSAN_OPTIONS="halt_on_error=1:exitcode=66:report_signal_unsafe=0:suppressions=$tsupp" \
  make -j2 check TESTS="$tests" >check.log 2>&1
rc=$?
grep -h '^\(PASS\|FAIL\|ERROR\|XPASS\):' check.log | sed "s/^/[$kind] /"
exit $rc
