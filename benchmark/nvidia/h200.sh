#!/bin/sh
# The whole NVIDIA measurement in one device call, so that every figure
# comes from the same machine, driver and clocks: it builds nothing there,
# registers NVIDIA's OpenCL for its own processes, runs the contract sweep
# on the NVIDIA device for every kernel family and dtype, then `hopblas
# bench` beside OpenBLAS, tuned CLBlast, NVBLAS and cuBLAS (PyTorch).
#
#   sh benchmark/nvidia/h200.sh pack BUILD [DIR]   here: hopblas, test/contract and the
#                                                  library of an out-of-tree BUILD, the
#                                                  CLBlast anchor, the Debian packages
#                                                  they need, into DIR (.device/h200)
#   sh benchmark/nvidia/h200.sh run [DIR]          there, DIR carried; results in $OUT:
#                                                  info.txt, contract-*.tap, bench-*.csv,
#                                                  anchors (clblast.txt, cublas.txt), summary.txt
#
#   sh benchmark/nvidia/h200.sh phases [DIR]       there: where a host-memory sgemm's time goes
#                                                  (about 40 s): `hopblas bench` host mode at
#                                                  n = 1024..8192 with HOPBLAS_VERBOSE=3 (the
#                                                  default copy threads, and 16), at 2048 and
#                                                  4096 with 8 threads and with 16 MiB chunks;
#                                                  NVBLAS beside it; summary.txt in the archive
#
#   sh benchmark/nvidia/h200.sh shell [DIR] 'CMD'  there: CMD with the run's environment (NVIDIA
#                                                  registered, $bin, $OUT, $lib, B = hopblas bench),
#                                                  for a measurement the modes above do not make
#
# Then, here: sh benchmark/nvidia/h200.sh report OUTDIR  (the table and a gnuplot PNG).
# A run quoted in the docs is kept as data in benchmark/results/<device>-<date>/
# (benchmark/results/README.md).
# H200_SMOKE=1 runs the same steps with tiny sizes on whatever OpenCL is
# there (PoCL here), to try the script before spending device time.
set -u
cmd=${1:-}
case $cmd in
pack)
  build=${2:?usage: h200.sh pack BUILD [DIR]}
  dir=${3:-.device/h200}
  set -e
  mkdir -p "$dir/bin" "$dir/lib" "$dir/debs"
  cp "$build/.libs/libhopblas.so.0" "$dir/lib/"
  cp "$build/hopblas" "$dir/bin/" # carries its own engines (libhopcore linked in)
  # These find libhopblas.so.0 through LD_LIBRARY_PATH there.
  cp "$build/benchmark/batch-bench" "$build/benchmark/l3-complex-bench" "$build/test/contract-l3" "$build/test/gemmx/gemmx" "$dir/bin/"
  ${CC:-cc} -std=gnu11 -O2 -Iinclude -Itest -o "$dir/bin/contract" test/contract.c \
    test/contract_groups.c test/testutil.c test/testutil_num.c test/testutil_dtype.c \
    test/testutil_names.c -L"$dir/lib" -l:libhopblas.so.0 -lm \
    -Wl,-rpath,'$ORIGIN/../lib'
  ${CC:-cc} -std=c11 -O2 -o "$dir/bin/clblast_anchor" benchmark/nvidia/clblast_anchor.c -lclblast -lOpenCL
  (cd "$dir/debs" && { [ -n "$(ls ./*.deb 2>/dev/null)" ] ||
    apt-get download ocl-icd-libopencl1 libclblast1 libopenblas0-pthread libgfortran5 libquadmath0; })
  du -sh "$dir"
  exit 0
  ;;
run) ;;
families)
  # The kernel families side by side, resident and host, and `hopblas tune`
  # for the families the main run leaves untuned (adreno, mali): a second,
  # shorter call.   sh h200.sh families [DIR]   (same DIR, results in $OUT)
  ;;
phases) ;;
shell) ;;
report)
  out=${2:?usage: h200.sh report OUTDIR}
  exec python3 "$(dirname "$0")/h200-report.py" "$out"
  ;;
*)
  echo "usage: h200.sh pack BUILD [DIR] | run [DIR] | families [DIR] | phases [DIR] | shell DIR CMD |" \
    "report OUTDIR" >&2
  exit 2
  ;;
esac

dir=${2:-.device/h200}
OUT=${OUT:-/tmp/h200-out}
mkdir -p "$OUT" /tmp/h200-root /tmp/h200-vendors
for f in "$dir"/debs/*.deb; do dpkg -x "$f" /tmp/h200-root; done
lib=/tmp/h200-root/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$dir/lib:$lib:$lib/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
smoke=${H200_SMOKE:-0}
if [ "$smoke" != 1 ]; then
  echo /usr/lib/libnvidia-opencl.so.1 >/tmp/h200-vendors/nvidia.icd
  export OCL_ICD_VENDORS=/tmp/h200-vendors # NVIDIA's OpenCL only, for these processes
fi
big="256,512,1024,1536,2048,4096,8192" mid="1024,4096" large=1536 dim=80 small="512,1024,1536"
hostsizes="64,128,256,384,512,1024,2048,4096,8192"
# Skinny shapes beside the square of equal flops (1624^3 ~ 8192 x 64 x 8192 = 256 x 256 x 65536).
shapes="8192x64x8192,64x8192x8192,256x256x65536,1624x1624x1624,2048x2048x2048"
if [ "$smoke" = 1 ]; then
  big="64,128" mid="64" large=100 dim=12 hostsizes="64,128" shapes="128x16x128,16x16x1024" small=64
fi
export HOPBLAS_CPU_BLAS=$lib/openblas-pthread/libopenblas.so.0
export HOPBLAS_CACHE_DIR=$OUT/cache # a cold cache: no tuned parameters but the built-in table
export CLBLAST_LIB=$lib/libclblast.so.1
S=$OUT/summary.txt
: >"$S"
say() { echo "$*" | tee -a "$S"; }
bin=$dir/bin

say "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
"$bin/hopblas" info >"$OUT/info.txt" 2>&1
grep -E '^  (opencl|cpu) |family|device in use' "$OUT/info.txt" | tee -a "$S"

if [ "$cmd" = families ]; then
  B() { timeout 150 "$bin/hopblas" bench --min-time 0.2 --reps 10 "$@"; }
  for fam in generic nvidia adreno mali; do
    HOPBLAS_OPENCL_VARIANT=$fam B --sizes $mid --engines opencl --mode both --dtype s \
      --csv "$OUT/fam-$fam.csv" >"$OUT/fam-$fam.txt" 2>&1
    say "families $fam: $(grep -c ',ok\|,1,0,' "$OUT/fam-$fam.csv") rows"
  done
  for fam in adreno mali; do
    HOPBLAS_OPENCL_VARIANT=$fam timeout 100 "$bin/hopblas" tune --family $fam --sizes 1024,4096 \
      --budget 80 >"$OUT/tune-$fam.txt" 2>&1
    say "tune $fam: exit $?"
  done
  cp "$OUT/cache/tune.txt" "$OUT/tune-cache.txt" 2>/dev/null
  tar czf /tmp/h200-results.tgz -C "$OUT" --exclude=cache . && rm -rf "${OUT:?}"/* &&
    mv /tmp/h200-results.tgz "$OUT/"
  exit 0
fi

if [ "$cmd" = shell ]; then
  B() { timeout 150 "$bin/hopblas" bench --min-time 0.2 --reps 10 "$@"; }
  eval "${3:?usage: h200.sh shell DIR CMD}" 2>&1 | tee "$OUT/shell.txt"
  tar czf /tmp/h200-results.tgz -C "$OUT" --exclude=cache . && rm -rf "${OUT:?}"/* &&
    mv /tmp/h200-results.tgz "$OUT/"
  exit 0
fi

if [ "$cmd" = phases ]; then
  # One "opencl phases:" line per call (backends/opencl/run.c): the host's
  # milliseconds packing into pinned memory, writing C back, waiting on the
  # device, and the rest; averaged per size over the calls after the first.
  sizes=1024,2048,4096,8192
  [ "$smoke" = 1 ] && sizes=64,1100 && export HOPBLAS_OPENCL_MEMORY=staged # PoCL: as a GPU would
  nvblas=$(ls /usr/local/cuda*/targets/x86_64-linux/lib/libnvblas.so* 2>/dev/null | head -n 1)
  printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\nNVBLAS_AUTOPIN_MEM_ENABLED\n' \
    "$lib/openblas-pthread/libblas.so.3" >"$OUT/nvblas.conf"
  for v in default threads=16 threads=8 chunk=16M; do
    [ "$v" = threads=8 ] && sizes=2048,4096 && [ "$smoke" = 1 ] && sizes=1100
    case $v in
    threads=*) export HOPBLAS_OPENCL_COPY_THREADS=${v#threads=} ;;
    chunk=16M) unset HOPBLAS_OPENCL_COPY_THREADS; export HOPBLAS_OPENCL_CHUNK=16777216 ;;
    esac
    engines=opencl # forced: every call through the staged path
    [ "$v" = default ] && engines=hopblas,nvblas # what a preloaded program gets, beside NVBLAS
    HOPBLAS_VERBOSE=3 NVBLAS_LIB=$nvblas NVBLAS_CONFIG_FILE=$OUT/nvblas.conf timeout 100 \
      "$bin/hopblas" bench --sizes $sizes --engines $engines --mode host --dtype s \
      --min-time 0.3 --reps 10 --csv "$OUT/phases-$v.csv" >"$OUT/phases-$v.txt" 2>&1
    say "phases $v: exit $?"
    grep -E '^(hopblas|opencl|nvblas) +host' "$OUT/phases-$v.txt" | tee -a "$S"
    awk -v v="$v" '/opencl phases: staged/ {
        split($0, w, " "); size = w[5]
        if (!seen[size]++) next # the first call: program build, first pinned buffers
        for (i = 1; i <= NF; i++) {
          if ($i == "pack") { pk[size] += $(i + 1); pb[size] += substr($(i + 2), 2) }
          if ($i == "unpack") { up[size] += $(i + 1); ub[size] += substr($(i + 2), 2) }
          if ($i == "wait") wt[size] += $(i + 1)
          if ($i == "other") ot[size] += $(i + 1)
          if ($i == "total") tt[size] += $(i + 1)
        }
        n[size]++; plan[size] = substr($0, index($0, "staged ") + 7)
        sub(/; host ms.*/, "", plan[size])
      }
      END {
        for (s in n)
          printf "%s %s: %d calls, mean host ms: pack %.3f (%.1f GB/s) unpack %.3f (%.1f GB/s) " \
            "wait %.3f other %.3f total %.3f; %s\n", v, s, n[s], pk[s] / n[s],
            1.048576 * pb[s] / (pk[s] + 1e-9), up[s] / n[s], 1.048576 * ub[s] / (up[s] + 1e-9),
            wt[s] / n[s], ot[s] / n[s], tt[s] / n[s], plan[s]
      }' "$OUT/phases-$v.txt" | sort -k2,2n | tee -a "$S"
  done
  tar czf /tmp/h200-results.tgz -C "$OUT" --exclude=cache . && rm -rf "${OUT:?}"/* &&
    mv /tmp/h200-results.tgz "$OUT/"
  exit 0
fi

# 1. Correctness on the device: the contract sweep for every family and dtype,
#    the trace proving each call ran on opencl in the family asked for.
# contract NAME ERE [contract options] -- VAR=VALUE...: one sweep with those settings; the
# summary line counts the trace's notes matching ERE (family, kernels or slices).
contract() {
  name=$1 what=$2 args=""
  shift 2
  while [ "$1" != "--" ]; do args="$args $1"; shift; done
  shift
  t=$OUT/contract-$name.csv
  # shellcheck disable=SC2086 # one word per option
  env HOPBLAS_BACKEND=opencl HOPBLAS_TRACE="$t" "$@" timeout 90 "$bin/contract" --quick \
    --max-dim $dim --large $large $args --label "[$name] " >"$OUT/contract-$name.tap" \
    2>"$OUT/contract-$name.err"
  rc=$?
  notok=$(grep '^not ok' "$OUT/contract-$name.tap" | sed 's/^not ok [0-9]* - //; s/ (.*//' |
    tr '\n' ';')
  other=$(awk -F, 'NR > 1 && $9 != "opencl" && $9 != "core"' "$t" | wc -l)
  say "contract $name: exit $rc, $(grep -c '^ok' "$OUT/contract-$name.tap") ok, not ok: ${notok:-none}," \
    "$other rows off opencl; $(grep -o "$what" "$t" | sort | uniq -c | tr '\n' ' ')"
}
for fam in generic adreno mali nvidia; do
  contract $fam 'family=[a-z]*' -- HOPBLAS_OPENCL_VARIANT=$fam
done
# The opt-in error-compensated 3xTF32 sgemm, at the same tolerance.
contract 3xtf32 'kernels=[a-z0-9x-]*' --dtypes s -- HOPBLAS_OPENCL_VARIANT=nvidia \
  HOPBLAS_OPENCL_NV_SGEMM=3xtf32
# Split-k with the real PTX: every launch in 3 slices where its k allows.
contract split-fma 'split-k=[0-9]*' --dtypes s,h,sh -- HOPBLAS_OPENCL_VARIANT=nvidia \
  HOPBLAS_OPENCL_NV_SPLITK=3
contract split-3xtf32 'split-k=[0-9]*' --dtypes s -- HOPBLAS_OPENCL_VARIANT=nvidia \
  HOPBLAS_OPENCL_NV_SGEMM=3xtf32 HOPBLAS_OPENCL_NV_SPLITK=3
# Half arithmetic (HOPBLAS_OPENCL_FP16=accumulate, fma.rn.f16x2): the contract's semantics at a
# tolerance of (k + 2) half units; its fp16-edge group (products below half's normal range) fails.
contract f16x2 'kernels=[a-z0-9x-]*' --dtypes h,sh --tol 16384 -- HOPBLAS_OPENCL_VARIANT=nvidia \
  HOPBLAS_OPENCL_FP16=accumulate

# 2. Speed, all in this call.  Resident: operands on the device (kernel rate).
B() { timeout 150 "$bin/hopblas" bench --min-time 0.2 --reps 10 "$@"; }
for fam in generic nvidia; do
  HOPBLAS_OPENCL_VARIANT=$fam B --sizes $big --engines opencl --mode resident --dtype s,h \
    --csv "$OUT/bench-resident-$fam.csv" >"$OUT/bench-resident-$fam.txt" 2>&1
  say "bench resident $fam: $(grep -c . "$OUT/bench-resident-$fam.csv") rows"
done
HOPBLAS_OPENCL_VARIANT=nvidia HOPBLAS_OPENCL_FP16=accumulate B --sizes $big --engines opencl \
  --mode resident --dtype h,sh --csv "$OUT/bench-resident-f16x2.csv" \
  >"$OUT/bench-resident-f16x2.txt" 2>&1
HOPBLAS_OPENCL_VARIANT=nvidia HOPBLAS_OPENCL_NV_SGEMM=3xtf32 B --sizes $mid,8192 --engines opencl \
  --mode resident --dtype s --csv "$OUT/bench-resident-3xtf32.csv" >"$OUT/bench-resident-3xtf32.txt" 2>&1
for fam in adreno mali; do # the mobile families, side by side with the others
  HOPBLAS_OPENCL_VARIANT=$fam B --sizes $mid --engines opencl --mode both --dtype s \
    --csv "$OUT/bench-$fam.csv" >"$OUT/bench-$fam.txt" 2>&1
done
HOPBLAS_OPENCL_VARIANT=generic B --sizes $mid --engines opencl --mode host --dtype s \
  --csv "$OUT/bench-host-generic.csv" >"$OUT/bench-host-generic.txt" 2>&1
{ timeout 60 "$bin/clblast_anchor" tuned 512 1024 2048 4096 8192
  timeout 60 "$bin/clblast_anchor" default 1024 4096 8192; } >"$OUT/clblast.txt" 2>&1
timeout 120 python3 benchmark/nvidia/torch_anchor.py 1024 2048 4096 8192 >"$OUT/cublas.txt" 2>&1

# Host memory, through the public API (what a preloaded program sees), against
# OpenBLAS and NVBLAS; hopblas with automatic routing (nvidia family where the probe passes).
nvblas=$(ls /usr/local/cuda*/targets/x86_64-linux/lib/libnvblas.so* 2>/dev/null | head -n 1)
printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\nNVBLAS_AUTOPIN_MEM_ENABLED\n' \
  "$lib/openblas-pthread/libblas.so.3" >"$OUT/nvblas.conf"
NVBLAS_LIB=$nvblas NVBLAS_CONFIG_FILE=$OUT/nvblas.conf \
  B --sizes $hostsizes --engines hopblas,openblas,nvblas \
  --mode host --dtype s --min-time 0.3 --reps 10 --csv "$OUT/bench-host.csv" >"$OUT/bench-host.txt" 2>&1
say "bench host: $(grep -c . "$OUT/bench-host.csv") rows"
# The small sizes again, 50 calls each, twice with the engines in either order, as the median
# and as the fastest call: there a call takes tens of microseconds on 16 OpenBLAS threads and
# one run's median moves by a third.
for stat in median best; do
  for order in openblas,hopblas hopblas,openblas; do
    B --sizes 64,96,128,192,256 --engines $order --mode host --dtype s --reps 50 --min-time 0.5 \
      --stat $stat --csv "$OUT/bench-host-small-$stat-${order%%,*}-first.csv" \
      >>"$OUT/bench-host-small.txt" 2>&1
  done
done
# The device path forced at the small sizes, to see where the router's crossover should sit.
HOPBLAS_BACKEND=opencl B --sizes 64,128,256,384,512,1024 --engines hopblas --mode host --dtype s \
  --min-time 0.3 --csv "$OUT/bench-host-forced.csv" >"$OUT/bench-host-forced.txt" 2>&1
# n = 16384: OpenBLAS needs ~20 s a call there; hopblas and NVBLAS only.
[ "$smoke" = 1 ] || NVBLAS_LIB=$nvblas NVBLAS_CONFIG_FILE=$OUT/nvblas.conf \
  B --sizes 16384 --engines hopblas,nvblas --mode host --dtype s --min-time 0.3 --reps 2 \
  --csv "$OUT/bench-host-16384.csv" >"$OUT/bench-host-16384.txt" 2>&1
# Skinny shapes and transposes at equal flops (8192 x 64 x 8192 and 256 x 256 x 65536),
# and what split-k brings there and at the small squares (HOPBLAS_OPENCL_NV_SPLITK=off).
HOPBLAS_OPENCL_VARIANT=nvidia B --sizes $shapes \
  --trans NN,NT,TN,TT --engines opencl --mode resident --dtype s \
  --csv "$OUT/bench-shapes.csv" >"$OUT/bench-shapes.txt" 2>&1
HOPBLAS_OPENCL_VARIANT=nvidia HOPBLAS_OPENCL_NV_SPLITK=off B --sizes $shapes --engines opencl \
  --mode resident --dtype s --csv "$OUT/bench-shapes-nosplit.csv" >"$OUT/bench-shapes-nosplit.txt" 2>&1
HOPBLAS_OPENCL_VARIANT=nvidia HOPBLAS_OPENCL_NV_SPLITK=off B --sizes $small --engines opencl \
  --mode resident --dtype s,h --csv "$OUT/bench-resident-nosplit.csv" \
  >"$OUT/bench-resident-nosplit.txt" 2>&1
say "done"
# One archive: the device call brings back only a few files.
tar czf /tmp/h200-results.tgz -C "$OUT" --exclude=cache . && rm -rf "${OUT:?}"/* &&
  mv /tmp/h200-results.tgz "$OUT/"
