#!/bin/sh
# The router against a size sweep of both engines (DESIGN §4): at
# every size, square cblas_sgemm from host memory with the CPU alone
# (HOPBLAS_BACKEND=cpu), OpenCL alone (HOPBLAS_BACKEND=opencl) and auto
# routing, each in processes of its own, the three modes taking turns for
# ROUNDS rounds (best time kept); then one traced auto call per size says
# which engine the router chose.  The table ends with the verdict: auto
# within 10% of the faster engine at every size, or where it is not.
#
#   sh benchmark/tune-crossover.sh [SIZES...]
#
# TUNE_SWEEP: the timing program (default ./benchmark/tune-sweep of the
# build in the current directory); ROUNDS (default 3); OUT (a directory
# for the raw files, default a temporary one).  The routing is whatever the
# tuning cache of the environment says: run `hopblas tune` first.
set -u
sweep=${TUNE_SWEEP:-./benchmark/tune-sweep}
rounds=${ROUNDS:-3}
sizes=${*:-32 48 64 96 128 192 256 384 512 768 1024 1536 2048}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tune-crossover.XXXXXX")}
mkdir -p "$out"
[ -x "$sweep" ] || {
  echo "tune-crossover: $sweep is not there (make benchmark/tune-sweep, or set TUNE_SWEEP)" >&2
  exit 2
}

run_mode() { # MODE ROUND: the sweep's lines, prefixed by the mode
  case $1 in
  auto) env -u HOPBLAS_BACKEND -u HOPBLAS_TRACE "$sweep" $sizes ;;
  *) env -u HOPBLAS_TRACE HOPBLAS_BACKEND="$1" "$sweep" $sizes ;;
  esac | sed "s/^/$1 /" >>"$out/times.txt" || echo "tune-crossover: the $1 sweep failed" >&2
}

: >"$out/times.txt"
r=1
while [ "$r" -le "$rounds" ]; do
  for mode in cpu opencl auto; do
    run_mode "$mode" "$r"
  done
  r=$((r + 1))
done
rm -f "$out/route.csv"
env -u HOPBLAS_BACKEND HOPBLAS_TRACE="$out/route.csv" "$sweep" --once $sizes >/dev/null

awk -v sizes="$sizes" '
  FILENAME ~ /route.csv$/ { if (FNR > 1) engine[$4] = $9; next }
  { if (!($1 SUBSEP $2 in t) || $3 < t[$1, $2]) t[$1, $2] = $3 }
  END {
    printf "%6s %11s %11s %11s  %-8s %-8s %9s\n", "n", "cpu ms", "opencl ms", "auto ms", "auto ran", "faster", "auto/best"
    count = split(sizes, n, " ")
    bad = 0
    for (i = 1; i <= count; i++) {
      s = n[i]
      if (!(("cpu", s) in t) || !(("opencl", s) in t) || !(("auto", s) in t)) {
        printf "%6d  a sweep failed at this size: cpu %s, opencl %s, auto %s\n", s,
               ("cpu", s) in t ? "ok" : "failed", ("opencl", s) in t ? "ok" : "failed",
               ("auto", s) in t ? "ok" : "failed"
        bad++
        continue
      }
      c = t["cpu", s]; o = t["opencl", s]; a = t["auto", s]
      best = c < o ? c : o
      ratio = best > 0 ? a / best : 0
      ok = ratio <= 1.10
      bad += !ok
      printf "%6d %11.4f %11.4f %11.4f  %-8s %-8s %8.2fx%s\n", s, 1e3 * c, 1e3 * o, 1e3 * a,
             engine[s] == "" ? "?" : engine[s], c < o ? "cpu" : "opencl", ratio, ok ? "" : "  > 10%"
    }
    if (bad == 0)
      printf "auto routing is within 10%% of the faster engine at all %d sizes\n", count
    else
      printf "auto routing is not shown within 10%% of the faster engine at %d of %d sizes\n", bad, count
    exit bad > 0
  }' FS=' ' "$out/times.txt" FS=',' "$out/route.csv"
rc=$?
echo "raw times: $out/times.txt, routing trace: $out/route.csv"
exit $rc
