#!/bin/sh
# valgrind memcheck on short end-to-end runs of the contract sweep, one per
# engine this build has: no invalid read or write, no use of uninitialised
# memory and nothing definitely lost in hopblas's own code.  Errors inside
# the OpenCL implementation (PoCL, LLVM) and OpenBLAS are not ours and are
# suppressed by object.  Usage: valgrind.sh BUILD_DIR   (prints TAP)
set -u
build=$(cd "${1:-_build}" && pwd)
out=$build/valgrind
mkdir -p "$out"
supp=$out/foreign.supp
: >"$supp"
for obj in '*libpocl*' '*libOpenCL*' '*libLLVM*' '*libclang*' '*libopenblas*' '*libhwloc*' '*ld-linux*'; do
  for kind in Memcheck:Leak Memcheck:Cond Memcheck:Value4 Memcheck:Value8 Memcheck:Addr1 Memcheck:Addr2 Memcheck:Addr4 Memcheck:Addr8 Memcheck:Addr16 Memcheck:Addr32; do
    printf '{\n  foreign-%s\n  %s\n  ...\n  obj:%s\n  ...\n}\n' "$kind" "$kind" "$obj" >>"$supp"
  done
done
engines="cpu"
"$build/hopblas" info | grep -q '^  opencl *on' && engines="$engines opencl"
"$build/hopblas" info | grep -q '^  videocore-emu *on' && engines="$engines videocore-emu"
n=0
for e in $engines; do
  n=$((n + 1))
  log=$out/$e.log
  # Under valgrind PoCL and the emulator run ~50x slower: fewer, smaller calls there.
  opts="--quick --max-dim 9 --dtypes s,h,sh"
  [ "$e" != cpu ] && opts="--quick --max-dim 4 --dtypes s,sh --entry cblas"
  rm -f "$out/$e.csv"
  HOPBLAS_BACKEND=$e HOPBLAS_TRACE=$out/$e.csv OPENBLAS_NUM_THREADS=1 \
    valgrind --tool=memcheck --error-exitcode=42 --leak-check=full --errors-for-leak-kinds=definite \
      --show-leak-kinds=definite --suppressions="$supp" --log-file="$log" \
      "$build/test/contract" $opts >"$out/$e.tap" 2>&1
  rc=$?
  ran=$(awk -F, 'NR > 1 && $9 == "'"$e"'"' "$out/$e.csv" 2>/dev/null | wc -l)
  errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -n 1)
  if [ "$rc" -eq 0 ] && [ "$ran" -gt 0 ] && ! grep -q '^not ok' "$out/$e.tap"; then
    echo "ok $n - valgrind memcheck, $e engine: $ran calls, ${errors:-0} errors, nothing definitely lost"
  else
    echo "not ok $n - valgrind memcheck, $e engine (exit $rc, $ran calls on $e, ${errors:-?} errors)"
    grep -A12 -E 'Invalid|uninitialised|definitely lost' "$log" | head -n 40 | sed 's/^/# /'
  fi
done
echo "1..$n"
