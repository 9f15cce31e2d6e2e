#!/bin/sh
# Run one of Debian's prebuilt netlib testers (package libblas-test) against
# hopblas and judge it.  Reusable by every engine: the caller's environment
# (HOPBLAS_BACKEND, HOPBLAS_MIN_FLOPS, ...) is passed through untouched.
#
#   run-netlib.sh [--tester fortran|cblas] [--precision s|d|c|z] [--mode preload|relink]
#                 [--sizes "0 1 2 3 7 16 31 33 64"] [--routines "gemm trsm"]
#                 [--engine NAME] [--no-trace]
#                 [--lib PATH] [--blas3 PATH] [--keep DIR]
#
#   --tester   fortran: xblat3s < sblat3.in (summary in sblat3.out);
#              cblas: xscblat3 < sin3, both layouts (summary on stdout)
#   --precision  s (default), d, c or z: xblat3d < dblat3.in, xzcblat3 < zin3, ...
#   --mode     preload: LD_PRELOAD=libhopblas.so.0 (or --lib);
#              relink: LD_LIBRARY_PATH= a directory whose libblas.so.3 is the
#              libblas.so.3-named build (or --blas3), which NEEDs libopenblas.so.0
#   --sizes    a smaller input: these values of N (each <= 64: the testers'
#              NMAX is 65) and the precision's GEMM only; for slow engines
#   --routines the routines the input runs, by name without the precision
#              ("gemm trsm syrk"), or all; default: all of them, or gemm with --sizes
#   --engine   the engine every non-trivial call of those routines must have run
#              on, asserted from HOPBLAS_TRACE, each routine with calls there
#              (default: $HOPBLAS_BACKEND unless auto, else cpu)
#   --no-trace run without HOPBLAS_TRACE (tiny calls then take the fast path
#              straight to OpenBLAS); no engine assertion
#   --keep     work in DIR and leave the outputs there (default: a temp dir)
#
# Every routine of the input must pass, error exits included: each expected
# PASSED line must be there, and no line may report a failure.  Exit 0 on
# success, 1 on failure, 2 on bad usage; the reasons are printed on stdout.
# Needs top_builddir (for the default library paths) unless --lib and --blas3 are given.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$here/..}
top_builddir=$(cd "${top_builddir:-.}" && pwd) || exit 2
export top_srcdir top_builddir
. "$top_srcdir/test/lib.sh"

tester=fortran precision=s mode=preload sizes="" only="" engine="" trace=1 keep=""
lib=$HOP_LIB blas3=$HOP_BLAS3
while [ $# -gt 0 ]; do
  case $1 in
  --tester) tester=$2; shift ;;
  --mode) mode=$2; shift ;;
  --precision) precision=$2; shift ;;
  --sizes) sizes=$2; shift ;;
  --routines) only=$2; shift ;;
  --engine) engine=$2; shift ;;
  --no-trace) trace=0 ;;
  --lib) lib=$2; shift ;;
  --blas3) blas3=$2; shift ;;
  --keep) keep=$2; shift ;;
  *) echo "run-netlib.sh: unknown option $1"; exit 2 ;;
  esac
  shift
done
p=$precision
case $p in
s | d) names="gemm symm trmm trsm syrk syr2k" ;;
c | z) names="gemm hemm symm trmm trsm herk syrk her2k syr2k" ;;
*) echo "run-netlib.sh: --precision s|d|c|z"; exit 2 ;;
esac
P=$(echo "$p" | tr sdcz SDCZ)
[ -z "$only" ] && [ -n "$sizes" ] && only=gemm
[ "$only" = all ] && only=""
for r in $only; do
  case " $names " in *" $r "*) ;; *) echo "run-netlib.sh: no routine $r for $p"; exit 2 ;; esac
done
[ -n "$only" ] && names=$only
case $tester in
fortran) prog=$HOP_NETLIB/xblat3$p input=$HOP_NETLIB/${p}blat3.in
  summary_file=${p}blat3.out
  routines=$(for r in $names; do printf '%s%s ' "$P" "$r"; done | tr a-z A-Z) ;;
cblas) prog=$HOP_NETLIB/x${p}cblat3 input=$HOP_NETLIB/${p}in3
  routines=$(for r in $names; do printf 'cblas_%s%s ' "$p" "$r"; done) ;;
*) echo "run-netlib.sh: --tester fortran|cblas"; exit 2 ;;
esac
[ -x "$prog" ] || { echo "run-netlib.sh: $prog missing (apt-get install libblas-test)"; exit 1; }
if [ -z "$engine" ]; then
  engine=${HOPBLAS_BACKEND:-auto}
  [ "$engine" = auto ] && engine=cpu
fi

work=${keep:-$HOP_TMP/netlib}
mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd) || exit 1
cd "$work" || exit 1 # the testers write their output files into the current directory
rm -f ./*blat3.out ./*BLAT3.SNAP trace.csv

# The input: Debian's, or the same with other N values, the routines asked for alone.
count=0
for n in $sizes; do
  case $n in *[!0-9]* | "") echo "run-netlib.sh: bad size '$n'"; exit 2 ;; esac
  [ "$n" -le 64 ] || { echo "run-netlib.sh: size $n > 64 (the testers' NMAX is 65)"; exit 2; }
  count=$((count + 1))
done
awk -v count="$count" -v sizes="$sizes" -v keep=" $routines " '
  count > 0 && /NUMBER OF VALUES OF N/ { printf "%-17s NUMBER OF VALUES OF N\n", count; next }
  count > 0 && /VALUES OF N/ { printf "%s    VALUES OF N\n", sizes; next }
  /PUT F FOR NO TEST/ && index(keep, " " $1 " ") == 0 { sub(/ T /, " F ") }
  { print }' "$input" >input.txt

# The way in.
if [ "$trace" = 1 ]; then
  set -- env HOPBLAS_TRACE="$work/trace.csv"
else
  set -- env -u HOPBLAS_TRACE
fi
case $mode in
preload) set -- "$@" LD_PRELOAD="$lib" ;;
relink)
  mkdir -p relink && ln -sf "$blas3" relink/libblas.so.3
  set -- "$@" LD_LIBRARY_PATH="$work/relink${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
*) echo "run-netlib.sh: --mode preload|relink"; exit 2 ;;
esac
# A cross build's tester runs under the emulator, env passing it the settings.
# shellcheck disable=SC2086 # the emulator and its options, one word each
hop_is_target "$prog" && set -- "$@" $HOP_EXEC
"$@" "$prog" <input.txt >stdout.txt 2>stderr.txt
rc=$?
summary=stdout.txt outputs=stdout.txt
[ "$tester" = fortran ] && summary=$summary_file outputs="$summary_file stdout.txt"

fail=0
say() { echo "run-netlib.sh: $*"; }
[ "$rc" -eq 0 ] || { say "$(basename "$prog") exited with status $rc"; fail=1; }
[ -s "$summary" ] || { say "no summary output ($summary)"; fail=1; }
# Any failure the testers can report: FAILED, FATAL ERROR, ***** marks,
# NOT DETECTED, XERBLA called wrongly, SUSPECT results.
if grep -n -e FAIL -e 'NOT DETECTED' -e 'FATAL' -e '\*\*\*\*\*' -e SUSPECT -e 'INSTEAD OF' \
  $outputs >problems.txt 2>/dev/null; then
  say "the tester reports failures:"
  head -n 20 problems.txt
  fail=1
fi
for r in $routines; do
  if [ "$tester" = fortran ]; then
    need="PASSED THE TESTS OF ERROR-EXITS|PASSED THE COMPUTATIONAL TESTS"
  else
    need="PASSED THE TESTS OF ERROR-EXITS|PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS|PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS"
  fi
  old_ifs=$IFS
  IFS='|'
  for what in $need; do
    grep -q "^ *$r *$what" "$summary" || { say "missing: $r $what"; fail=1; }
  done
  IFS=$old_ifs
done

if [ "$trace" = 1 ]; then
  # Every routine of the input reached hopblas (none went to OpenBLAS
  # untraced) and every non-trivial call ran on the engine, or on the CPU
  # where the engine does not take the routine (hop_engine_routines).
  takes=" $(hop_engine_routines "$engine" "$p") "
  for r in $names; do
    on=$engine
    case $takes in *" $r "*) ;; *) on=cpu ;; esac
    syms="^(${p}${r}_|cblas_${p}${r})\$"
    rows=$(hop_trace_rows trace.csv "$syms")
    if [ "$(hop_trace_rows trace.csv "$syms" "$on")" -gt 0 ] && hop_assert_engine trace.csv "$on" "$syms"; then
      say "$rows ${P}$(echo "$r" | tr a-z A-Z) calls traced; every non-trivial one ran on $on"
    else
      say "the ${P}$(echo "$r" | tr a-z A-Z) calls did not all run on $on"
      fail=1
    fi
  done
fi
if [ "$fail" -ne 0 ]; then
  say "stderr of the tester:"
  tail -n 10 stderr.txt
  say "outputs are in $work (use --keep DIR to keep them)"
  exit 1
fi
say "$(basename "$prog") ($mode${sizes:+, N = $sizes}${only:+, $only}): every routine passed, error exits included"
exit 0
