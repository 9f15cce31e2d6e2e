#!/bin/sh
# The reliability runs, after `make check`: ASan+UBSan and TSan
# builds running the tests that link the library directly, libFuzzer
# targets for a bounded time, valgrind memcheck on every engine.  Results:
# the sanitizer builds' .trs files (in $top/_build/asan and tsan) and TAP
# files in BUILD_DIR/reliability/.   Usage: reliability.sh BUILD_DIR
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/_build}" && pwd)
out=$build/reliability
mkdir -p "$out"
rc=0
for kind in asan tsan; do
  echo "== sanitizer build: $kind"
  sh "$top/tools/sanitize.sh" "$kind" | grep -v '^\[.*\] PASS' || true
  grep -q 'test-result: \(FAIL\|ERROR\)' "$top/_build/$kind"/test/*.trs "$top/_build/$kind"/test/*/*.trs 2>/dev/null && rc=1
done
echo "== libFuzzer targets"
# The cache parser's corpus starts from a valid file, written by the cache driver.
seed=$out/seed-cache
rm -rf "$seed" && mkdir -p "$seed" && chmod 700 "$seed"
HOPBLAS_CACHE_DIR=$seed "$build/test/tune/tune-cache" put "opencl;dev=Some GPU;driver=1.0" generic.n256 \
  "MWG=64,NWG=64 12.5 9.1 14 3.2" >/dev/null 2>&1 &&
  HOPBLAS_CACHE_DIR=$seed "$build/test/tune/tune-cache" put "cpu;model=x" cpu.rate "32:1.5,64:3,128:9" \
    >/dev/null 2>&1
HOPBLAS_FUZZ_CACHE_SEED=$seed/tune.txt HOPBLAS_FUZZ_BUILD=$top/_build/fuzz \
  sh "$top/tools/fuzz.sh" "${HOPBLAS_FUZZ_SECONDS:-30}" | tee "$out/fuzz.tap"
echo "== valgrind memcheck"
sh "$top/tools/valgrind.sh" "$build" | tee "$out/valgrind.tap"
grep -q '^not ok' "$out/fuzz.tap" "$out/valgrind.tap" && rc=1
exit $rc
