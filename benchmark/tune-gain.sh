#!/bin/sh
# Tuned against default parameters, as a program sees them: square
# cblas_sgemm from host memory on the OpenCL engine (HOPBLAS_BACKEND=opencl)
# with HOPBLAS_TUNE=off (built-in table and defaults) and with the tuning
# cache (HOPBLAS_TUNE=cached), the two taking turns for ROUNDS rounds, best
# time kept.  `hopblas tune` the sizes first; the trace of one call per size
# shows which parameters each mode used.
#
#   sh benchmark/tune-gain.sh [SIZES...]     (default 256 512 1024 2048)
#
# TUNE_SWEEP (default ./benchmark/tune-sweep), ROUNDS (3), OUT (raw files).
set -u
sweep=${TUNE_SWEEP:-./benchmark/tune-sweep}
rounds=${ROUNDS:-3}
sizes=${*:-256 512 1024 2048}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tune-gain.XXXXXX")}
mkdir -p "$out"
[ -x "$sweep" ] || {
  echo "tune-gain: $sweep is not there (make benchmark/tune-sweep, or set TUNE_SWEEP)" >&2
  exit 2
}
: >"$out/times.txt"
r=1
while [ "$r" -le "$rounds" ]; do
  for mode in off cached; do
    env -u HOPBLAS_TRACE HOPBLAS_BACKEND=opencl HOPBLAS_TUNE=$mode "$sweep" $sizes |
      sed "s/^/$mode /" >>"$out/times.txt"
  done
  r=$((r + 1))
done
for mode in off cached; do
  rm -f "$out/$mode.csv"
  : >"$out/$mode.csv"
  HOPBLAS_BACKEND=opencl HOPBLAS_TUNE=$mode HOPBLAS_TRACE="$out/$mode.csv" "$sweep" --once $sizes \
    >/dev/null
done
awk -v sizes="$sizes" '
  FILENAME ~ /off.csv$/ { if (FNR > 1) { sub(/.*params=/, "", $10); sub(/".*/, "", $10); p["off", $4] = $10 }; next }
  FILENAME ~ /cached.csv$/ { if (FNR > 1) { sub(/.*params=/, "", $10); sub(/".*/, "", $10); p["cached", $4] = $10 }; next }
  { if (!($1 SUBSEP $2 in t) || $3 < t[$1, $2]) t[$1, $2] = $3 }
  END {
    printf "%6s %12s %12s %7s  %-10s %-12s\n", "n", "default ms", "tuned ms", "gain", "default", "tuned"
    count = split(sizes, n, " ")
    for (i = 1; i <= count; i++) {
      s = n[i]
      if (!(("off", s) in t) || !(("cached", s) in t)) {
        printf "%6d  a sweep failed at this size\n", s
        continue
      }
      d = t["off", s]; c = t["cached", s]
      printf "%6d %12.3f %12.3f %6.2fx  %-10s %-12s\n", s, 1e3 * d, 1e3 * c, (c > 0 ? d / c : 0),
             p["off", s], p["cached", s]
    }
  }' FS=' ' "$out/times.txt" FS=',' "$out/off.csv" "$out/cached.csv"
echo "raw times: $out/times.txt"
