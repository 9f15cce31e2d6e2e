#!/bin/sh
# Run one of Debian's LAPACK linear-equation testers (package liblapack-test:
# xlintsts, xlintstd, xlintstc, xlintstz) on the reference LAPACK, whose
# blocked factorizations call ?trsm, ?syrk, ?gemm, ... through the BLAS
# (OpenBLAS's own LAPACK would not: its factorizations call its kernels),
# twice: without hopblas, then with it preloaded under the caller's
# environment (HOPBLAS_BACKEND, ...).  It passes when the run with hopblas
# finishes and has no more failed tests than the one without, and (with
# --engine) the trace shows the routines of --expect on that engine.
#
#   run-lapack.sh [--precision s|d|c|z] [--input full|ci] [--engine NAME]
#                 [--expect "trsm syrk gemm"] [--lib PATH] [--keep DIR]
#
#   --input  full: Debian's ?test.in (every path; minutes on a CPU OpenCL
#            device); ci: test/lapack/ci.in's paths GE, PO, TR with M, N up to
#            40 and blocks of 16 (what CI runs: every Level-3 routine the
#            factorizations use, in seconds)
#   --engine the engine the --expect routines must have run on (every
#            non-trivial call of each; default trsm syrk gemm, herk for syrk in
#            c and z); without it only the counts are compared
#   --lib    the library to preload (default: libhopblas.so.0 of the build)
#   --keep   work in DIR and leave the outputs there
# Exit 0 on success, 1 on failure, 2 on bad usage; reasons on stdout.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$here/..}
top_builddir=$(cd "${top_builddir:-.}" && pwd) || exit 2
export top_srcdir top_builddir
. "$top_srcdir/test/lib.sh"

p=d input=ci engine="" expect="" keep="" lib=$HOP_LIB
while [ $# -gt 0 ]; do
  case $1 in
  --precision) p=$2; shift ;;
  --input) input=$2; shift ;;
  --engine) engine=$2; shift ;;
  --expect) expect=$2; shift ;;
  --keep) keep=$2; shift ;;
  --lib) lib=$2; shift ;;
  *) echo "run-lapack.sh: unknown option $1"; exit 2 ;;
  esac
  shift
done
case $p in s | d | c | z) ;; *) echo "run-lapack.sh: --precision s|d|c|z"; exit 2 ;; esac
# Cholesky's rank-k update: syrk in s and d, herk in c and z.
[ -n "$expect" ] || case $p in s | d) expect="trsm syrk gemm" ;; *) expect="trsm herk gemm" ;; esac
lapack=/usr/lib/x86_64-linux-gnu/lapack
prog=$lapack/xlintst$p
[ -x "$prog" ] || { echo "run-lapack.sh: $prog missing (apt-get install liblapack-test)"; exit 1; }
[ -f "$lapack/liblapack.so.3" ] || { echo "run-lapack.sh: no reference LAPACK in $lapack"; exit 1; }
work=${keep:-$HOP_TMP/lapack}
mkdir -p "$work" && work=$(cd "$work" && pwd) && cd "$work" || exit 1
rm -f trace.csv
P=$(echo "$p" | tr sdcz SDCZ)
case $input in
full) cp "$lapack/${p}test.in" input.txt ;;
ci) sed "s/^X/$P/; s/PRECISION/$P/" "$top_srcdir/test/lapack/ci.in" >input.txt ;;
*) echo "run-lapack.sh: --input full|ci"; exit 2 ;;
esac

# The failed tests a run reports (the sum of "N out of M tests failed"), or
# "crashed" when it did not reach its end.
failures() {
  grep -q 'End of tests' "$1" || { echo crashed; return; }
  awk '/tests? failed to pass the threshold/ { for (i = 1; i < NF; i++) if ($(i + 1) == "out") s += $i }
       /[Ff]ailed|FAILED/ && !/failed to pass the threshold/ { s++ }
       END { print s + 0 }' "$1"
}
say() { echo "run-lapack.sh: $*"; }

LD_LIBRARY_PATH=$lapack${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} env -u LD_PRELOAD "$prog" <input.txt \
  >without.txt 2>&1
LD_LIBRARY_PATH=$lapack${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} LD_PRELOAD=$lib \
  HOPBLAS_TRACE=$work/trace.csv "$prog" <input.txt >with.txt 2>&1
before=$(failures without.txt) after=$(failures with.txt)
fail=0
if [ "$after" = crashed ] || { [ "$before" != crashed ] && [ "$after" -gt "$before" ]; }; then
  say "failed tests: $after with hopblas, $before without"
  grep -n -i 'fail' with.txt | head -n 10
  fail=1
else
  say "failed tests: $after with hopblas, $before without ($(grep -c 'passed the threshold' with.txt) groups passed)"
fi
if [ -n "$engine" ]; then
  for r in $expect; do
    syms="^${p}${r}_\$"
    rows=$(hop_trace_rows trace.csv "$syms" "$engine")
    if [ "$rows" -gt 0 ] && hop_assert_engine trace.csv "$engine" "$syms"; then
      say "$rows ${P}$(echo "$r" | tr a-z A-Z) calls on $engine, every non-trivial one"
    else
      say "the ${P}$(echo "$r" | tr a-z A-Z) calls did not all run on $engine ($rows there)"
      fail=1
    fi
  done
fi
[ "$fail" -eq 0 ] || say "outputs are in $work (use --keep DIR to keep them)"
exit "$fail"
