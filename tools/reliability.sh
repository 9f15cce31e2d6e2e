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
HOPBLAS_FUZZ_BUILD=$top/_build/fuzz sh "$top/tools/fuzz.sh" "${HOPBLAS_FUZZ_SECONDS:-30}" | tee "$out/fuzz.tap"
echo "== valgrind memcheck"
sh "$top/tools/valgrind.sh" "$build" | tee "$out/valgrind.tap"
grep -q '^not ok' "$out/fuzz.tap" "$out/valgrind.tap" && rc=1
exit $rc
