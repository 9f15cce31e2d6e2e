#!/bin/sh
# One device call (about 6 min): kernels of the leading passes and C's
# read-backs held for the next host copy and queued beside it
# (HOPBLAS_OPENCL_QUEUE_BESIDE=1, the default: backends/opencl/run_later.c)
# against queued at once (0).  The link (linkrate) and each precision
# resident at 8192 (the kernel part of a host call's bound); d and s at
# 8192 from host memory in QUEUE_ROUNDS rounds (3) alternating 1 and 0;
# every precision at 8192 with the defaults in ALL_ROUNDS rounds (4); each
# run a fresh process with its phases (HOPBLAS_VERBOSE=3: queueing, and how
# much of it was inside the copies); the contract on the device, staged in
# 64 KiB chunks with k slices and leading passes on however small a call,
# so that kernels and read-backs are held.  Ratios to each run's bound:
# python3 benchmark/nvidia/bound-ratios.py FOLDER.
# QUEUE_STEPS: the steps to run (default all: link resident rounds defaults contract).
#   here:  sh benchmark/nvidia/h200.sh pack _build .device/h200 && sh benchmark/nvidia/build.sh &&
#          cp .device/bin/* .device/h200/bin/ && cp .device/debs/*.deb .device/h200/debs/
#   there: sh benchmark/nvidia/queue.sh   (carry .device/h200; results in $OUT/queue.tgz)
set -u
P=/tmp/queue; mkdir -p $P
trap 'tar czf $OUT/queue.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
steps=${QUEUE_STEPS:-link resident rounds defaults contract}
want link && link_rate
want resident && resident_8192 s,d,c,z,h
if want rounds; then
  for r in $(seq 1 "${QUEUE_ROUNDS:-3}"); do
    for q in 1 0; do host_8192 "h-$r-$q" d,s HOPBLAS_OPENCL_QUEUE_BESIDE=$q; done
  done
fi
if want defaults; then
  defaults_8192 "${ALL_ROUNDS:-4}"
fi
want contract || exit 0
echo "contract: $(device_contract s,d,c,z,h HOPBLAS_OPENCL_MEMORY=staged HOPBLAS_OPENCL_CHUNK=65536 \
  HOPBLAS_OPENCL_SLICE_MIN_FLOPS=0 HOPBLAS_OPENCL_LEAD_MIN_INTENSITY=0)" \
  "$(grep -c 'opencl phases: staged' $P/contract.log) staged calls," \
  "$(grep -c 'k to [0-9]* first in' $P/contract.log) with leading passes," \
  "$(grep -c 'read-backs [0-9.]* ([0-9.]*[1-9][0-9.]* of it inside pack or unpack)' $P/contract.log) queued inside the copies"
gzip -f $P/contract.csv $P/contract.log
echo "## end at $(( $(date +%s) - t0 )) s"
