#!/bin/sh
# One device call (about 5 min): staged calls from host memory with each
# upload sent to the queue while the copy threads pack the next chunk
# (HOPBLAS_OPENCL_ENQUEUE_BESIDE=1, the default: backends/opencl/transfer.c)
# against sent before the next is packed (0).  The link (linkrate) and each
# precision resident at 8192 (the kernel part of a host call's bound); s, d
# and h at 8192 from host memory in BESIDE_ROUNDS rounds (5) alternating 1
# and 0, then c and z in one round of each, every run a fresh process with
# its phases (HOPBLAS_VERBOSE=3: the time sending uploads, and queueing
# kernels and read-backs); d and h once more with the timeline; the
# contract on the device, staged in chunks of 4 KiB so that every call
# sends uploads beside the packing.  Ratios to each run's bound:
# python3 benchmark/nvidia/bound-ratios.py FOLDER.
# BESIDE_STEPS: the steps to run (default all: link resident rounds complex
# timeline contract).
#   here:  sh benchmark/nvidia/h200.sh pack _build .device/h200 && sh benchmark/nvidia/build.sh &&
#          cp .device/bin/* .device/h200/bin/ && cp .device/debs/*.deb .device/h200/debs/
#   there: sh benchmark/nvidia/beside.sh   (carry .device/h200; results in $OUT/beside.tgz)
set -u
P=/tmp/beside; mkdir -p $P
trap 'tar czf $OUT/beside.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
steps=${BESIDE_STEPS:-link resident rounds complex timeline contract}
want link && link_rate
want resident && resident_8192 s,d,c,z,h
if want rounds; then
  for r in $(seq 1 "${BESIDE_ROUNDS:-5}"); do
    for b in 1 0; do host_8192 "h-$r-$b" s,d,h HOPBLAS_OPENCL_ENQUEUE_BESIDE=$b; done
  done
fi
if want complex; then
  for b in 1 0; do host_8192 "h-c-$b" c,z HOPBLAS_OPENCL_ENQUEUE_BESIDE=$b; done
fi
if want timeline; then
  for b in 1 0; do host_8192 "timeline-$b" d,h HOPBLAS_OPENCL_ENQUEUE_BESIDE=$b HOPBLAS_OPENCL_TIMELINE=1
    grep "opencl timeline: 8192x8192x8192 [dh], ms" $P/timeline-$b.txt | tail -n 4 | cut -c1-220; done
fi
want contract || exit 0
echo "contract: $(device_contract s,d,c,z,h HOPBLAS_OPENCL_CHUNK=4096)" \
  "$(grep -c 'sending uploads [0-9.]* ([0-9.]*[1-9][0-9.]* of it inside pack)' $P/contract.log) staged calls that sent uploads beside the packing"
gzip -f $P/contract.csv $P/contract.log
echo "## end at $(( $(date +%s) - t0 )) s"
