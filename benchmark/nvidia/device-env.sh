# Sourced by the one-call device scripts (precisions.sh, bound.sh, spread.sh) with P set
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
