#!/bin/sh
# Build what benchmark/nvidia/device-run.sh carries to the GPU machine,
# the Debian packages they load there into .device/debs (.device/ is
# ignored by git; name both folders in the `carry` of the device call).
#   sh benchmark/nvidia/build.sh          (from the repository root)
set -eu
mkdir -p .device/bin .device/debs
gcc -std=c11 -O2 -Wall -Wextra -o .device/bin/clprobe benchmark/nvidia/clprobe.c -lOpenCL -lm
gcc -std=c11 -O2 -Wall -Wextra -o .device/bin/ptxpatch benchmark/nvidia/ptxpatch.c -lOpenCL
gcc -std=gnu11 -O2 -Wall -Wextra -o .device/bin/linkrate benchmark/nvidia/linkrate.c -lOpenCL -lpthread
gcc -std=gnu11 -O2 -Wall -Wextra -o .device/bin/hostbw benchmark/nvidia/hostbw.c backends/opencl/copy_stream.c \
  -Ibackends/opencl -Iinclude -Icore -I_build -I. -lpthread
gcc -std=c11 -O2 -Wall -Wextra -o .device/bin/clblast_anchor benchmark/nvidia/clblast_anchor.c \
  -lclblast -lOpenCL
gcc -std=gnu11 -O2 -Wall -Wextra -o .device/bin/lapack-bench benchmark/lapack_bench.c -llapack \
  -lblas -lm
cd .device/debs
[ -n "$(ls ./ocl-icd-libopencl1_*.deb 2>/dev/null)" ] || apt-get download ocl-icd-libopencl1 libclblast1
# Debian's reference LAPACK, whose routines call the BLAS through the PLT (lapack-bench)
[ -n "$(ls ./liblapack3_*.deb 2>/dev/null)" ] || apt-get download liblapack3
ls -l
