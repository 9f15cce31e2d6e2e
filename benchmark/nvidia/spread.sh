#!/bin/sh
# One device call (about 5 min): complex GEMMs from host memory with their
# doubled plane spread on the device (HOPBLAS_OPENCL_SPREAD=1, the default:
# backends/opencl/plane_spread.c) against packed whole on the host (0).
# The link (linkrate) and each precision resident at 8192 (the kernel part
# of a host call's bound); c and z at 8192 from host memory in SPREAD_ROUNDS
# rounds (4) alternating 1 and 0, each a fresh process with its phases
# (HOPBLAS_VERBOSE=3); every precision at 8192 from host memory with the
# defaults in three rounds (the bound table of doc/PERFORMANCE.md); the
# contract for c and z on the device, staged, with k slices and leading
# passes on however small a call, so that blocks are spread part by part.
# SPREAD_STEPS: the steps to run (default all: link resident rounds defaults
# contract); SPREAD_ROUNDS (4) and ALL_ROUNDS (3): rounds of those steps.
#   here:  sh benchmark/nvidia/h200.sh pack _build .device/h200 && sh benchmark/nvidia/build.sh &&
#          cp .device/bin/* .device/h200/bin/ && cp .device/debs/*.deb .device/h200/debs/
#   there: sh benchmark/nvidia/spread.sh   (carry .device/h200; results in $OUT/spread.tgz)
set -u
P=/tmp/spread; mkdir -p $P
trap 'tar czf $OUT/spread.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
steps=${SPREAD_STEPS:-link resident rounds defaults contract}
want link && link_rate
want resident && resident_8192 s,d,c,z,h
if want rounds; then
  for r in $(seq 1 "${SPREAD_ROUNDS:-4}"); do
    for s in 1 0; do host_8192 "h-$r-$s" c,z HOPBLAS_OPENCL_SPREAD=$s; done
  done
fi
if want defaults; then
  defaults_8192 "${ALL_ROUNDS:-3}"
fi
want contract || exit 0
echo "contract: $(device_contract c,z HOPBLAS_OPENCL_SLICE_MIN_FLOPS=0 HOPBLAS_OPENCL_LEAD_MIN_INTENSITY=0)" \
  "$(grep -c 'spread into planes' $P/contract.log) staged calls that spread"
gzip -f $P/contract.csv $P/contract.log
echo "## end at $(( $(date +%s) - t0 )) s"
