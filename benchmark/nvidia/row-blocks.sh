#!/bin/sh
# One call on a machine with two NVIDIA GPUs (kind nvidia-h200-x2), about
# 8 minutes: what cutting A into row blocks (HOPBLAS_OPENCL_ROW_BLOCKS) does
# to a call from host memory.
# - GPU 0 alone: the link's rate, each precision resident at 8192, and from
#   host memory at 8192 with each of ROWS_RB row blocks (1: A whole), with the
#   phases (HOPBLAS_VERBOSE=3): each precision's bound, max(kernel time
#   resident, host copy time, link time), as bound.sh measures it;
# - both GPUs: sgemm and dgemm at 8192 and 16384 from host memory on one GPU
#   and on both, and NVBLAS on both (NVBLAS_GPU_LIST ALL); the contract with
#   every call that can be shared forced onto both;
# - dgemm from host memory, 256 to 8192, hopblas on GPU 0 against NVBLAS on
#   GPU 0 (NVBLAS_GPU_LIST 0).
#   here:  sh benchmark/nvidia/h200.sh pack _build .device/h200 &&
#          sh benchmark/nvidia/build.sh && cp .device/bin/* .device/h200/bin/
#   there: sh benchmark/nvidia/row-blocks.sh   (carry .device/h200; results in $OUT/rows.tgz)
# ROWS_STEPS: the steps to run (default all: link resident host contract two nvblas hostd);
# ROWS_RB: the row blocks tried (default "1 2 3"; the two-GPU step tries all but 1).
set -u
steps=${ROWS_STEPS:-link resident host contract two nvblas hostd}
rbs=${ROWS_RB:-1 2 3}
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
P=/tmp/rows; mkdir -p $P
trap 'tar czf $OUT/rows.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
B="$dir/bin/hopblas bench"
step() { echo "## $1 at $(( $(date +%s) - t0 )) s"; }
sed 's/^NVBLAS_GPU_LIST ALL/NVBLAS_GPU_LIST 0/' $P/nvblas.conf >$P/nvblas0.conf
nvidia-smi -L >$P/gpus.txt 2>&1; cat $P/gpus.txt
export HOPBLAS_OPENCL_VARIANT=nvidia
if want link; then
  step link
  HOPBLAS_DEVICE=0 timeout 60 $dir/bin/linkrate 256 5 >$P/link.txt 2>&1; cat $P/link.txt
fi
if want resident; then
  step resident
  HOPBLAS_DEVICE=0 timeout 120 $B --sizes 8192 --engines opencl --mode resident --dtype s,d,c,z,h \
    --min-time 0.1 --reps 3 --csv $P/resident.csv >$P/resident.txt 2>&1
  grep -E '^opencl' $P/resident.txt
fi
for rb in $rbs; do
  want host || break
  step "host 8192, $rb row blocks"
  dts=s,d,c,z; [ $rb = 1 ] && dts=s,d,c,z,h # half operands are never cut
  HOPBLAS_DEVICE=0 HOPBLAS_OPENCL_ROW_BLOCKS=$rb HOPBLAS_VERBOSE=3 timeout 150 $B --sizes 8192 \
    --engines hopblas --mode host --dtype $dts --min-time 0.3 --reps 3 --csv $P/host-rb$rb.csv \
    >$P/host-rb$rb.txt 2>&1
  grep -E '^hopblas +host' $P/host-rb$rb.txt | cut -c1-200
  grep 'opencl phases' $P/host-rb$rb.txt | tail -n 1 | cut -c1-400
done
if want contract; then
step contract
shared_contract 80 2304
fi
for rb in $rbs; do
  want two && [ $rb != 1 ] || continue
  for dev in 0 all; do
    step "two GPUs: hopblas on $dev, $rb row blocks"
    HOPBLAS_DEVICE=$dev HOPBLAS_OPENCL_ROW_BLOCKS=$rb HOPBLAS_VERBOSE=2 timeout 150 $B --sizes 8192,16384 \
      --engines hopblas --mode host --dtype s,d --min-time 0.1 --reps 2 --csv $P/two-$dev-rb$rb.csv \
      >$P/two-$dev-rb$rb.txt 2>&1
    grep -E '^hopblas +host' $P/two-$dev-rb$rb.txt | cut -c1-200
  done
done
want nvblas && {
step "two GPUs: NVBLAS on both"
NVBLAS_LIB=$nvblas NVBLAS_CONFIG_FILE=$P/nvblas.conf timeout 150 $B --sizes 8192,16384 --engines nvblas \
  --mode host --dtype s,d --min-time 0.1 --reps 2 --csv $P/two-nvblas.csv >$P/two-nvblas.txt 2>&1
grep -E '^nvblas' $P/two-nvblas.txt
}
want hostd && {
step "dgemm: hopblas and NVBLAS on GPU 0"
HOPBLAS_DEVICE=0 NVBLAS_LIB=$nvblas NVBLAS_CONFIG_FILE=$P/nvblas0.conf timeout 150 $B \
  --sizes 256,512,1024,2048,4096,8192 --engines hopblas,nvblas --mode host --dtype d --min-time 0.1 \
  --reps 3 --csv $P/hostd.csv >$P/hostd.txt 2>&1
grep -E '^(hopblas|nvblas)' $P/hostd.txt
}
step end
