#!/bin/sh
# README Quick start, second command (and what CI runs): install what is
# missing, build, run the whole test suite, end with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/tools/build.sh" || { echo "0 passed, 1 failed"; exit 1; }
cd "$top/_build"
# Results of an earlier run must not count (the sanitizer builds themselves are kept).
rm -rf reliability
find . -name "*.trs" -delete
# The tests that must run alone (Makefile.am's HOP_SERIAL_TESTS) after the others.
make -j"$(nproc)" check TESTS="$(make -s print-tests-parallel)" >make-check.out 2>&1
rc=$?
serial=$(make -s print-tests-serial)
[ -z "$serial" ] || make check TESTS="$serial" >>make-check.out 2>&1 || rc=1
# The reliability runs (sanitizer builds, fuzzing, valgrind: one core most of
# the time) beside the armhf and arm64 cross builds and their tests under
# qemu-user in _build/cross (HOPBLAS_SKIP_CROSS=1 skips them), which leave a
# core idle while their longest test finishes.
rel=""
if [ "${HOPBLAS_SKIP_RELIABILITY:-0}" != 1 ]; then
  make check-reliability >make-check-reliability.out 2>&1 &
  rel=$!
fi
sh "$top/tools/cross-check.sh" >make-check-cross.out 2>&1 || rc=1
[ -z "$rel" ] || wait "$rel" || rc=1
# Every TAP result: the automake .trs files (main build, sanitizer builds
# and cross builds, all under _build) and the TAP files of the fuzz and
# valgrind runs.
trs=$(find . -name '*.trs')
passed=$(cat $trs /dev/null | grep -c '^:test-result: \(PASS\|XFAIL\)')
failed=$(cat $trs /dev/null | grep -c '^:test-result: \(FAIL\|XPASS\|ERROR\)')
passed=$((passed + $(cat reliability/*.tap 2>/dev/null | grep -c '^ok')))
failed=$((failed + $(cat reliability/*.tap 2>/dev/null | grep -c '^not ok')))
grep -h '^\(FAIL\|ERROR\|XPASS\):' make-check.out || true
grep -h '^\[.*\] \(FAIL\|ERROR\)\|^not ok' make-check-reliability.out 2>/dev/null || true
grep -h '^cross-check: \(FAIL:\|.*passed\)\|^\(FAIL\|ERROR\):' make-check-cross.out 2>/dev/null || true
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  tail -n 40 make-check.out # the build of the tests itself failed
  failed=1
fi
echo "$passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
