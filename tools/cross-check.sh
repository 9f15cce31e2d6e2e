#!/bin/sh
# Cross-build hopblas for ARM (armhf: a 32-bit Raspberry Pi OS userland;
# arm64) with Debian's cross compilers and run the tests that mean something
# there under qemu-user, with the target's own OpenBLAS, OpenCL ICD loader and
# netlib testers (multiarch packages, tools/deps-cross.sh):
#
#   sh tools/cross-check.sh [armhf] [arm64]      (default: both)
#
# Each target builds in _build/cross/TARGET (configure --host=TRIPLET) and
# runs `make check TESTS=...` there with HOP_TARGET_EXEC naming qemu, which
# test/lib.sh's hop_exec puts in front of every program built for the target.
# The automake .trs files under _build/cross are what tools/check.sh counts;
# each target's configure, build and time budget are one more .trs there
# (cross.trs), so a build that breaks is a failure, never a missing count.
#
# HOPBLAS_SKIP_CROSS=1 skips it all (exit 0, nothing counted).
# HOPBLAS_CROSS_BUDGET=SECONDS (default 1200): the whole run's wall-clock
# budget; a target still running then is stopped and counted as failed.
# Measured: about 8 minutes on 2 idle cores for both targets, configure and
# builds included, after tools/deps-cross.sh; tools/check.sh runs the
# reliability runs beside it, hence the margin.
#
# OpenCL: PoCL under qemu would compile every kernel with LLVM in emulation
# (minutes per program), so the OpenCL engine runs against the stub driver
# of test/opencl/stub.test instead: its host code, pipeline and fault paths
# on the target, without a device.
set -u
[ "${HOPBLAS_SKIP_CROSS:-0}" = 1 ] && { echo "cross-check: skipped (HOPBLAS_SKIP_CROSS=1)"; exit 0; }
top=$(cd "$(dirname "$0")/.." && pwd)
budget=${HOPBLAS_CROSS_BUDGET:-1200}
targets=${*:-armhf arm64}

# What runs on the target.  The contract, netlib and videocore tests are
# the issue's list; abi checks the exports of the ARM build; threads the
# CPU engine under concurrency; stub the OpenCL host code.
tests="test/abi.test test/contract-cpu.test test/netlib.test test/threads.test
  test/videocore/asm.test test/videocore/emu.test test/videocore/golden.test
  test/videocore/contract.test test/videocore/netlib.test test/videocore/mbox.test
  test/opencl/stub.test"

sh "$top/tools/deps-cross.sh" || { echo "cross-check: tools/deps-cross.sh failed"; exit 1; }
cd "$top" || exit 1
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1

start=$(date +%s)
rc=0
for target in $targets; do
  case $target in
  armhf) triplet=arm-linux-gnueabihf qemu=qemu-arm-static ;;
  arm64) triplet=aarch64-linux-gnu qemu=qemu-aarch64-static ;;
  *) echo "cross-check: unknown target $target (armhf, arm64)"; exit 2 ;;
  esac
  dir=$top/_build/cross/$target
  mkdir -p "$dir"
  rm -f "$dir/cross.trs"
  find "$dir" -name '*.trs' -delete
  # One .trs line per step, in automake's format.
  step() { echo ":test-result: $1 $target: $2" >>"$dir/cross.trs"; echo "cross-check: $1: $target: $2"; }

  left=$((budget - ($(date +%s) - start)))
  if [ "$left" -le 30 ]; then
    step FAIL "not run: the budget of ${budget}s was spent before it started"
    rc=1
    continue
  fi
  t0=$(date +%s)
  (cd "$dir" && { [ -f Makefile ] || "$top/configure" -q --host="$triplet"; }) >"$dir/configure.out" 2>&1
  if [ $? -ne 0 ]; then
    step FAIL "configure --host=$triplet (see $dir/configure.out)"
    tail -n 20 "$dir/configure.out"
    rc=1
    continue
  fi
  make -C "$dir" -j"$(nproc)" all >"$dir/build.out" 2>&1 &&
    make -C "$dir" -j"$(nproc)" check TESTS= >>"$dir/build.out" 2>&1
  if [ $? -ne 0 ]; then
    step FAIL "build with $triplet-gcc (see $dir/build.out)"
    grep -E 'error|Error' "$dir/build.out" | head -n 20
    rc=1
    continue
  fi
  step PASS "configure --host=$triplet and build the library, the CLI and the tests"
  # shellcheck disable=SC2086 # the list, one word per test
  HOP_TARGET_EXEC="$qemu -L /" CC=$triplet-gcc \
    timeout "$left" make -C "$dir" -j"$(nproc)" check TESTS="$(echo $tests)" >"$dir/check.out" 2>&1
  code=$?
  secs=$(($(date +%s) - t0))
  if [ "$code" -eq 124 ]; then
    step FAIL "the tests under $qemu ran past the budget (${budget}s for every target)"
    rc=1
  fi
  grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP):' "$dir/check.out" | grep -v '^PASS' | head -n 40
  pass=$(cat "$dir"/test/*.trs "$dir"/test/*/*.trs 2>/dev/null | grep -c '^:test-result: PASS')
  fail=$(cat "$dir"/test/*.trs "$dir"/test/*/*.trs 2>/dev/null | grep -c '^:test-result: \(FAIL\|ERROR\|XPASS\)')
  echo "cross-check: $target: $pass passed, $fail failed under $qemu in ${secs}s (build included)"
  [ "$code" -eq 0 ] && [ "$fail" -eq 0 ] || rc=1
done
exit $rc
