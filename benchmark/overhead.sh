#!/bin/sh
# Interposition overhead for n <= 16: instructions per call counted by
# callgrind (repeatable, load-independent), OpenBLAS alone against hopblas
# preloaded, plus wall-clock ns per call.  Usage: overhead.sh BUILD_DIR
# OVERHEAD_THREADS=2: OpenBLAS starts a worker thread, so the process has
# threads and the fast path's calls pass hopblas's fork guard (core/fork_guard.c).
set -eu
build=${1:-_build}
lib=$(cd "$build" && pwd)/.libs/libhopblas.so.0
prog=$(mktemp -d)/overhead
gcc -O2 -o "$prog" "$(dirname "$0")/overhead.c" -lopenblas
# Tiny calls run on one thread anyway; one thread keeps counts repeatable.
export OPENBLAS_NUM_THREADS=${OVERHEAD_THREADS:-1}
calls=2000
count() { # instructions of the whole run; $1 is the library to preload, or ""
  preload=$1
  shift
  LD_PRELOAD=$preload valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
printf '| n | OpenBLAS instr/call | hopblas instr/call | overhead | OpenBLAS ns/call | hopblas ns/call |\n'
printf '|---|---|---|---|---|---|\n'
for n in 2 4 8 16; do
  base0=$(count "" "$prog" "$n" $calls)
  base=$(count "" "$prog" "$n" $((2 * calls)))
  hop0=$(count "$lib" "$prog" "$n" $calls)
  hop=$(count "$lib" "$prog" "$n" $((2 * calls)))
  # per call = (run with 2x calls - run with x calls) / (2 * calls): start-up costs cancel out,
  # and the loop makes both kinds of call
  ob=$(( (base - base0) / (2 * calls) ))
  hb=$(( (hop - hop0) / (2 * calls) ))
  tb=$("$prog" "$n" 200000 | sed 's/.*cblas_sgemm \([0-9.]*\).*/\1/')
  th=$(LD_PRELOAD="$lib" "$prog" "$n" 200000 | sed 's/.*cblas_sgemm \([0-9.]*\).*/\1/')
  awk -v n="$n" -v ob="$ob" -v hb="$hb" -v tb="$tb" -v th="$th" \
    'BEGIN { printf "| %d | %d | %d | %+.1f%% | %s | %s |\n", n, ob, hb, 100 * (hb - ob) / ob, tb, th }'
done
