#!/bin/sh
# Build the libFuzzer targets (clang, AddressSanitizer + UBSan) against the
# library's core and run each for a bounded time.  Usage: fuzz.sh [SECONDS]
# Prints TAP, one line per target; HOPBLAS_FUZZ_TARGETS="fuzz_cache ..." runs some.
# HOPBLAS_FUZZ_CACHE_SEED=FILE: a valid tuning cache file (tools/reliability.sh
# writes one), which starts fuzz_cache's corpus.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-20}
out=${HOPBLAS_FUZZ_BUILD:-$top/_build/fuzz}
mkdir -p "$out"
cd "$out" || exit 1
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -g -O1"
if [ ! -f Makefile ]; then
  "$top/configure" -q CC=clang CFLAGS="$san -fsanitize=fuzzer-no-link" \
    --disable-opencl --disable-videocore >/dev/null 2>&1 || { echo "1..1"; echo "not ok 1 - configure for fuzzing"; exit 1; }
fi
make -j2 libhopcore.la backends/registry.lo >build.log 2>&1 || { echo "1..1"; echo "not ok 1 - build"; exit 1; }
targets=${HOPBLAS_FUZZ_TARGETS:-fuzz_config fuzz_args fuzz_cache}
echo "1..$(echo $targets | wc -w)"
i=0
for t in $targets; do
  i=$((i + 1))
  if ! clang $san -fsanitize=fuzzer -I"$top/include" -I"$top/core" -I. \
      -o "$t" "$top/test/fuzz/$t.c" backends/.libs/registry.o .libs/libhopcore.a -ldl -lm -lpthread \
      >"$t.build.log" 2>&1; then
    echo "not ok $i - $t builds"; cat "$t.build.log" | sed 's/^/# /'; continue
  fi
  mkdir -p "corpus-$t"
  if [ "$t" = fuzz_cache ] && [ -n "${HOPBLAS_FUZZ_CACHE_SEED:-}" ] &&
    ! cp "$HOPBLAS_FUZZ_CACHE_SEED" "corpus-$t/seed-valid" 2>/dev/null; then
    echo "not ok $i - $t: no seed file $HOPBLAS_FUZZ_CACHE_SEED"; continue
  fi
  if HOPBLAS_VERBOSE=0 "./$t" -max_total_time="$secs" -print_final_stats=1 "corpus-$t" >"$t.log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$t.log")
    echo "ok $i - $t: $runs executions in ${secs}s, no crash"
  else
    echo "not ok $i - $t"; tail -n 30 "$t.log" | sed 's/^/# /'
  fi
done
