# Sourced by the one-call device scripts (precisions.sh, bound.sh, spread.sh, ...) with P set
# to their results folder: unpacks the carried .deb files, registers
# NVIDIA's OpenCL for this process only, points hopblas at the carried
# OpenBLAS and a private cache, and writes NVBLAS's configuration.
dir=.device/h200
mkdir -p /tmp/h200-root /tmp/h200-vendors
for f in "$dir"/debs/*.deb; do dpkg -x "$f" /tmp/h200-root; done
lib=/tmp/h200-root/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$dir/lib:$lib:$lib/openblas-pthread
echo /usr/lib/libnvidia-opencl.so.1 >/tmp/h200-vendors/nvidia.icd
export OCL_ICD_VENDORS=/tmp/h200-vendors HOPBLAS_CPU_BLAS=$lib/openblas-pthread/libopenblas.so.0 HOPBLAS_CACHE_DIR=$P/cache
nvblas=$(ls /usr/local/cuda*/targets/x86_64-linux/lib/libnvblas.so* 2>/dev/null | head -n 1)
printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\nNVBLAS_AUTOPIN_MEM_ENABLED\n' "$lib/openblas-pthread/libblas.so.3" >$P/nvblas.conf
t0=$(date +%s)
# want STEP: is STEP among the script's $steps?  If so, say when it starts.
want() { case " $steps " in *" $1 "*) echo "## $1 at $(( $(date +%s) - t0 )) s"; return 0 ;; esac; return 1; }
# The contract on every device with every call that can be shared forced
# onto them: shared_contract SECONDS LARGE; its TAP and zipped trace in $P,
# a line of counts on stdout.
shared_contract() {
  HOPBLAS_DEVICE=all HOPBLAS_BACKEND=opencl HOPBLAS_OPENCL_SPLIT_MIN_FLOPS=0 HOPBLAS_TRACE=$P/contract.csv \
    timeout "$1" $dir/bin/contract --quick --max-dim 40 --large "$2" --dtypes s,d,c,z >$P/contract.tap 2>&1
  echo "contract: $(grep -c '^ok' $P/contract.tap) ok, $(grep -c '^not ok' $P/contract.tap) not ok;" \
    "trace rows on opencl $(awk -F, 'NR > 1 && $9 == "opencl"' $P/contract.csv | wc -l)," \
    "shared $(grep -c 'split' $P/contract.csv), on cpu $(awk -F, 'NR > 1 && $9 == "cpu"' $P/contract.csv | wc -l)"
  gzip -f $P/contract.csv
}
# device_contract DTYPES [VAR=VALUE ...]: the contract on the NVIDIA device
# with those settings (TAP in $P/contract.tap, phases in contract.log, trace
# in contract.csv; up to 1536, cut at 120 s); prints the start of its summary:
# exit status, ok and not ok, trace rows off opencl.
device_contract() {
  dtypes=$1; shift
  env "$@" HOPBLAS_BACKEND=opencl HOPBLAS_OPENCL_VARIANT=nvidia HOPBLAS_VERBOSE=3 \
    HOPBLAS_TRACE=$P/contract.csv timeout 120 $dir/bin/contract --quick --max-dim 40 --large 1536 \
    --dtypes "$dtypes" >$P/contract.tap 2>$P/contract.log
  echo "exit $?, $(grep -c '^ok' $P/contract.tap) ok, $(grep -c '^not ok' $P/contract.tap) not ok," \
    "$(awk -F, 'NR > 1 && $9 != "opencl" && $9 != "core"' $P/contract.csv | wc -l) rows off opencl,"
}
# The parts of a call's bound at n = 8192 (bound-ratios.py reads them from $P):
# link_rate, the link (link.txt); resident_8192 DTYPES, each precision's kernel
# resident (resident.txt, resident.csv).
link_rate() { timeout 60 $dir/bin/linkrate 256 5 >$P/link.txt 2>&1; cat $P/link.txt; }
resident_8192() {
  HOPBLAS_OPENCL_VARIANT=nvidia timeout 120 $dir/bin/hopblas bench --sizes 8192 --engines opencl \
    --mode resident --dtype "$1" --min-time 0.1 --reps 3 --csv $P/resident.csv >$P/resident.txt 2>&1
  grep -E '^opencl' $P/resident.txt
}
# host_8192 NAME DTYPES [VAR=VALUE ...]: one fresh process at 8192 from host
# memory ($P/NAME.txt, with HOPBLAS_VERBOSE=3's phases), its times, and each
# warm call's host copies (less the uploads sent and the queueing done
# inside them), wait, sending, queueing, other and total (ms).
host_8192() {
  name=$1 dtypes=$2; shift 2
  env "$@" HOPBLAS_VERBOSE=3 timeout 150 $dir/bin/hopblas bench --sizes 8192 --engines hopblas \
    --mode host --dtype "$dtypes" --min-time 0.3 --reps 3 >$P/$name.txt 2>&1
  grep -E '^hopblas  ' $P/$name.txt | cut -c1-75 | sed "s|^|$name |"
  grep 'opencl phases' $P/$name.txt |
    sed -n 's/.*phases: staged[^0-9]*\([0-9x]*\) .*pack \([0-9.]*\) .*unpack \([0-9.]*\) .*wait \([0-9.]*\), sending uploads \([0-9.]*\) (\([0-9.]*\) of it inside pack), queueing kernels and read-backs \([0-9.]*\) (\([0-9.]*\) of it inside pack or unpack), other \([0-9.]*\), total .*/\1 \2 \3 \4 \5 \6 \7 \8 \9/p' |
    awk -v n="$name" 'seen[$1]++ { printf "  %s %s copies %.1f wait %.1f sends %.2f (%.2f inside) queueing %.2f (%.2f inside) other %.2f\n", n, $1, $2 + $3 - $6 - $8, $4, $5, $6, $7, $8, $9 }'
}
# defaults_8192 ROUNDS: every precision at 8192 from host memory with the
# defaults, a fresh process per round (all-ROUND.txt, as bound-ratios.py reads).
defaults_8192() { for r in $(seq 1 "$1"); do host_8192 "all-$r" s,d,c,z,h; done; }
