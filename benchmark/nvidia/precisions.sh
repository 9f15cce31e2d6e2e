#!/bin/sh
# d, c and z on the NVIDIA machine in one device call (about 5 min): cuBLAS
# (PyTorch) dgemm/cgemm/zgemm, hopblas resident (the generic and the nvidia
# family), hopblas from host memory through the public entry points with
# automatic routing (what a preloaded program gets), NVBLAS and OpenBLAS.  Carries what h200.sh pack made:
#   run: sh benchmark/nvidia/precisions.sh   (carry .device/h200; results in $OUT/prec.tgz)
# Every step is bounded; whatever finished is archived on exit.
set -u
P=/tmp/p; mkdir -p $P
trap 'tar czf $OUT/prec.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
B="$dir/bin/hopblas bench --min-time 0.1 --reps 3" # a command, not a function: timeout runs it
# PREC_STEPS: the steps to run (default all), e.g. "cublas contract host-hopblas".
steps=${PREC_STEPS:-cublas contract resident-generic resident-nvidia host-hopblas nvblas openblas}
step() { echo "## $1 at $(( $(date +%s) - t0 )) s"; }
want() { case " $steps " in *" $1 "*) step "$1"; return 0 ;; esac; return 1; }
want cublas && { timeout 60 python3 benchmark/nvidia/torch_anchor.py --precisions 1024 2048 4096 8192 >$P/cublas.txt 2>&1; }
# The contract sweep on the device, the nvidia family (the double program, cgemm on the FMA
# kernels, the tensor cores): every call checked against the double reference.
want contract && { HOPBLAS_BACKEND=opencl HOPBLAS_OPENCL_VARIANT=nvidia HOPBLAS_TRACE=$P/contract.csv timeout 120 $dir/bin/contract --quick --max-dim 40 --large 1536 --dtypes s,d,c,z,h,sh > $P/contract.tap 2>&1; echo "contract: exit $?, $(grep -c '^ok' $P/contract.tap) ok, $(grep -c '^not ok' $P/contract.tap) not ok, $(awk -F, 'NR > 1 && $9 != "opencl" && $9 != "core"' $P/contract.csv | wc -l) rows off opencl"; }
want resident-generic && { HOPBLAS_OPENCL_VARIANT=generic timeout 100 $B --sizes 1024,4096,8192 --engines opencl --mode resident --dtype d,c,z --csv $P/res-generic.csv > $P/res-generic.txt 2>&1; grep -E '^opencl' $P/res-generic.txt; }
want resident-nvidia && { HOPBLAS_OPENCL_VARIANT=nvidia timeout 100 $B --sizes 1024,4096,8192 --engines opencl --mode resident --dtype s,d,c,z --csv $P/res-nvidia.csv > $P/res-nvidia.txt 2>&1; grep -E '^opencl' $P/res-nvidia.txt; }
# From host memory through the public entry points, routed as a preloaded program's calls are.
want host-hopblas && { timeout 120 $B --sizes 256,512,1024,2048,4096,8192 --engines hopblas --mode host --dtype d,c,z --csv $P/host-hopblas.csv > $P/host-hopblas.txt 2>&1; grep -E '^hopblas' $P/host-hopblas.txt; }
want nvblas && { NVBLAS_LIB=$nvblas NVBLAS_CONFIG_FILE=$P/nvblas.conf timeout 150 $B --sizes 256,512,1024,2048,4096,8192 --engines nvblas --mode host --dtype d,c,z --csv $P/host-nvblas.csv > $P/host-nvblas.txt 2>&1; grep -E '^nvblas' $P/host-nvblas.txt; }
want openblas && { timeout 60 $B --sizes 256,512,1024,2048 --engines openblas --mode host --dtype d,c,z --csv $P/host-openblas.csv > $P/host-openblas.txt 2>&1; grep -E '^openblas' $P/host-openblas.txt; }
step end
