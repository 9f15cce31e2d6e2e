#!/bin/sh
# Build what benchmark/nvidia/device-run.sh carries to the GPU machine,
# which has no compiler: clprobe, linkrate and clblast_anchor into .device/bin, and
# the Debian packages they load there into .device/debs (.device/ is
# ignored by git; name both folders in the `carry` of the device call).
#   sh benchmark/nvidia/build.sh          (from the repository root)
set -eu
mkdir -p .device/bin .device/debs
gcc -std=c11 -O2 -Wall -Wextra -o .device/bin/clprobe benchmark/nvidia/clprobe.c -lOpenCL -lm
gcc -std=c11 -O2 -Wall -Wextra -o .device/bin/linkrate benchmark/nvidia/linkrate.c -lOpenCL
gcc -std=c11 -O2 -Wall -Wextra -o .device/bin/clblast_anchor benchmark/nvidia/clblast_anchor.c \
  -lclblast -lOpenCL
cd .device/debs
[ -n "$(ls ./*.deb 2>/dev/null)" ] || apt-get download ocl-icd-libopencl1 libclblast1
ls -l
