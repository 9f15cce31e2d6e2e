#!/bin/sh
# README Quick start, second command (and what CI runs): install what is
# missing, build, run the whole test suite, end with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/tools/build.sh" || { echo "0 passed, 1 failed"; exit 1; }
cd "$top/_build"
make -j"$(nproc)" check >make-check.out 2>&1
rc=$?
# Every TAP result of every test script, from the automake .trs files.
passed=$(cat $(find . -name '*.trs') 2>/dev/null | grep -c '^:test-result: \(PASS\|XFAIL\)')
failed=$(cat $(find . -name '*.trs') 2>/dev/null | grep -c '^:test-result: \(FAIL\|XPASS\|ERROR\)')
grep -h '^\(FAIL\|ERROR\|XPASS\):' make-check.out || true
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  tail -n 40 make-check.out # the build of the tests itself failed
  failed=1
fi
echo "$passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
