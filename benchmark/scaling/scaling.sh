#!/bin/sh
# Past one device: ScaLAPACK over MPI with hopblas under every rank, and one
# call shared by several devices.
#
#   sh benchmark/scaling/scaling.sh pack BUILD [DIR]  here: libhopblas and the hopblas command of
#                                                    BUILD, pbench (mpicc), and the Debian
#                                                    packages of Open MPI, ScaLAPACK and OpenBLAS,
#                                                    into DIR (.device/scaling, about 20 MB)
#   sh benchmark/scaling/scaling.sh run [DIR]         on the NVIDIA machine, DIR carried (`run`'s
#                                                    carry), about 5 minutes: pdgemm and pdpotrf
#                                                    at N (16384) on 2 and 4 ranks sharing the
#                                                    GPU, each with OpenBLAS alone and with
#                                                    hopblas preloaded; $OUT/summary.txt
#   sh benchmark/scaling/scaling.sh pocl BUILD        here: one call on PoCL's two devices
#                                                    (POCL_DEVICES="pthread pthread") against one
#                                                    device, hopblas bench from host memory
#
# run: Open MPI is relocated into /tmp (OPAL_PREFIX), NVIDIA's OpenCL is
# registered for these processes only, OPENBLAS_NUM_THREADS is the cores per
# rank; hopblas's ranks leave their calls to automatic routing (the device
# for the large local GEMMs) and all use device 0 (HOPBLAS_DEVICE=local-rank
# on a one-GPU node).  The local calls' k is PBLAS's PILAENV, 32 in
# ScaLAPACK (pdgemm then makes only thin calls, which stay on the CPU: the
# first run on the H200 measured that); pbench sets it to NB (PBENCH_KB,
# SCALING_KB), 1024 by default (SCALING_NB).  SCALING_N, SCALING_RANKS,
# SCALING_REPS change the rest.  Only summary.txt and scaling.tgz (every
# run's output and trace) are left in $OUT.  A run quoted in the docs is
# kept in benchmark/results/<device>-<date>-scaling/.
set -u
cmd=${1:-}
case $cmd in
pack)
  build=${2:?usage: scaling.sh pack BUILD [DIR]}
  dir=${3:-.device/scaling}
  set -e
  mkdir -p "$dir/bin" "$dir/lib" "$dir/debs"
  cp "$build/.libs/libhopblas.so.0" "$dir/lib/"
  cp "$build/hopblas" "$dir/bin/"
  mpicc -O2 -rdynamic -o "$dir/bin/pbench" benchmark/scaling/pbench.c -lscalapack-openmpi -lm
  (cd "$dir/debs" && { [ -n "$(ls ./*.deb 2>/dev/null)" ] ||
    apt-get download openmpi-bin libopenmpi3 openmpi-common libscalapack-openmpi2.2 \
      libopenblas0-pthread libgfortran5 libquadmath0 ocl-icd-libopencl1 libevent-core-2.1-7 \
      libevent-pthreads-2.1-7 libhwloc15 libpmix2 libfabric1 libibverbs1 librdmacm1 libnl-3-200 \
      libnl-route-3-200 libpsm2-2 libpsm-infinipath1 libucx0 libnuma1 libmunge2 libxnvctrl0 \
      libpciaccess0 libltdl7; })
  du -sh "$dir"
  exit 0
  ;;
pocl)
  build=${2:?usage: scaling.sh pocl BUILD}
  out=${3:-/tmp/hopblas-scaling-pocl}
  mkdir -p "$out"
  export POCL_DEVICES="pthread pthread" HOPBLAS_CACHE_DIR=$out/cache OPENBLAS_NUM_THREADS=2
  b() { "$build/hopblas" bench --mode host --dtype s,d --sizes 512,1024,2048 --min-time 1 --reps 5 "$@"; }
  {
    echo "# $(date -u +%F) $(nproc) cores, $(uptime | sed 's/.*load/load/')"
    echo "## one device (HOPBLAS_DEVICE=0)"
    HOPBLAS_DEVICE=0 b --engines opencl,openblas
    echo "## two devices, every call shared (HOPBLAS_DEVICE=0,1 HOPBLAS_OPENCL_SPLIT_MIN_FLOPS=0)"
    HOPBLAS_DEVICE=0,1 HOPBLAS_OPENCL_SPLIT_MIN_FLOPS=0 b --engines opencl
    echo "## one device and a CPU share (HOPBLAS_OPENCL_SPLIT_CPU=1 HOPBLAS_OPENCL_SPLIT_MIN_FLOPS=0)"
    HOPBLAS_DEVICE=0 HOPBLAS_OPENCL_SPLIT_CPU=1 HOPBLAS_OPENCL_SPLIT_MIN_FLOPS=0 b --engines opencl
  } 2>&1 | tee "$out/summary.txt"
  exit 0
  ;;
run) ;;
*)
  sed -n '2,30p' "$0"
  exit 2
  ;;
esac

dir=${2:-.device/scaling}
OUT=${OUT:-/tmp/scaling-out}
W=/tmp/scaling-work
mkdir -p "$OUT" "$W"
root=/tmp/scaling-root
mkdir -p "$root" /tmp/scaling-vendors
for f in "$dir"/debs/*.deb; do dpkg -x "$f" "$root"; done
lib=$root/usr/lib/x86_64-linux-gnu
export OPAL_PREFIX=$root/usr PATH=$root/usr/bin:$PATH
export LD_LIBRARY_PATH=$lib:$lib/openblas-pthread:$dir/lib
echo /usr/lib/libnvidia-opencl.so.1 >/tmp/scaling-vendors/nvidia.icd
export OCL_ICD_VENDORS=/tmp/scaling-vendors HOPBLAS_CPU_BLAS=$lib/openblas-pthread/libopenblas.so.0
export HOPBLAS_CACHE_DIR=$W/cache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
n=${SCALING_N:-16384}
cores=$(nproc)
S=$OUT/summary.txt
{
  echo "# $(date -u +%FT%TZ) $(hostname), $cores cores; n = $n"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
  "$dir/bin/hopblas" info 2>&1 | grep -E '^  (opencl|cpu) |family:|device in use'
} | tee "$S"
for ranks in ${SCALING_RANKS:-2 4}; do
  threads=$((cores / ranks))
  [ "$threads" -ge 1 ] || threads=1
  for routine in pdgemm pdpotrf; do
    for nb in ${SCALING_NB:-1024}; do
      for blas in openblas hopblas; do
        tag=$routine-$ranks-$nb-$blas
        set -- -x OPENBLAS_NUM_THREADS=$threads -x LD_LIBRARY_PATH -x OCL_ICD_VENDORS \
          -x HOPBLAS_CPU_BLAS -x HOPBLAS_CACHE_DIR -x PBENCH_KB="${SCALING_KB:-$nb}"
        warm=0
        if [ "$blas" = hopblas ]; then
          set -- "$@" -x LD_PRELOAD="$dir/lib/libhopblas.so.0" -x HOPBLAS_DEVICE=local-rank \
            -x HOPBLAS_TRACE="$W/trace-$tag-%r.csv"
          warm=1 # its programs are built (or loaded) on the first calls
        fi
        echo "## $tag: $ranks ranks x $threads threads, NB = k = ${SCALING_KB:-$nb}, $blas" | tee -a "$S"
        timeout "${SCALING_LIMIT:-240}" mpiexec.openmpi --oversubscribe --bind-to none -np "$ranks" "$@" \
          "$dir/bin/pbench" "$routine" "$n" "$nb" "${SCALING_REPS:-2}" "$warm" >"$W/$tag.txt" 2>&1
        grep -E ' (rep=|best)' "$W/$tag.txt" | tee -a "$S"
        [ "$blas" = hopblas ] && cat "$W"/trace-"$tag"-*.csv 2>/dev/null |
          awk -F, '$1 != "time" { n[$2 " " $9]++; s[$2 " " $9] += $11 }
            END { for (k in n) printf "  %s: %d calls, %.2f s\n", k, n[k], s[k] }' |
          sort | tee -a "$S"
      done
    done
  done
done
(cd "$W" && tar czf "$OUT/scaling.tgz" ./*.txt ./trace-*.csv 2>/dev/null)
