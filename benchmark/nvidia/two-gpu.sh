#!/bin/sh
# One call on a machine with two NVIDIA GPUs (kind nvidia-h200-x2): the
# contract with every call shared by both devices, then from host memory
# through the public entry points sgemm and dgemm at n = 8192 and 16384 and
# LAPACK's dpotrf at 16384 (the reference LAPACK, lapack-bench) with hopblas
# on one GPU (HOPBLAS_DEVICE=0), on both (all), and NVBLAS on both
# (NVBLAS_GPU_LIST ALL).  Carries what level3.sh carries:
#   there: sh benchmark/nvidia/two-gpu.sh   (carry .device/h200; results in $OUT/two.tgz)
# TWO_STEPS: the steps to run (default "contract host nvblas dpotrf share"; level3.sh
# runs dpotrf on both GPUs too).  share: n = 16384 (TWO_SHARE_SIZES) on GPU 0, and on both with op(A)
# packed once (HOPBLAS_OPENCL_SPLIT_SHARE=1) and by each part (0), alternating, two
# rounds, the staged calls' phases of the first (HOPBLAS_VERBOSE=3).  lead: n = 16384
# (TWO_LEAD_SIZES) on GPU 0 and on both, with leading passes over k (the default two; on
# both, op(A) packed once slab by slab) and without (HOPBLAS_OPENCL_LEAD_PASSES=0),
# alternating, two rounds, the phases of the first; TWO_LEAD_SETTINGS: DEVICE:PASSES pairs.
# hostbw: the host's memory bandwidth, copies and reads by 1 to all cores (bin/hostbw), the
# ceiling of calls whose staging copies and DMA share it.  learn: sgemm and dgemm at 8192 and
# 16384 from host memory, TWO_LEARN_REPS timed calls each (14) after the checked one, each in
# a process of its own, on GPU 0 and on both with the
# automatic choice of shared or alone (backends/opencl/split_learn.c): each call's way (S
# shared, A alone, O one device) and ms from the trace, and the last call's note.
# TWO_CONTRACT_S: the contract step's bound in seconds (100).
set -u
P=/tmp/two; mkdir -p $P
trap 'tar czf $OUT/two.tgz -C $P . 2>/dev/null; exit' EXIT TERM INT
. benchmark/nvidia/device-env.sh
B="$dir/bin/hopblas bench"
LP=$lib/lapack:$LD_LIBRARY_PATH
steps=${TWO_STEPS:-contract host nvblas dpotrf share}
step() { echo "## $1 at $(( $(date +%s) - t0 )) s"; }
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
nvidia-smi -L >$P/gpus.txt 2>&1; cat $P/gpus.txt
HOPBLAS_DEVICE=all $dir/bin/hopblas info >$P/info.txt 2>&1; grep -iE "device|split" $P/info.txt | head -8
want contract && { step contract; shared_contract "${TWO_CONTRACT_S:-100}" 1536; }
# Each (dtype, size) in a process of its own: the choice is learnt per process, and the bench
# traces the checked and timed calls only up to its first route note.
want learn && for dev in 0 all; do
  step "learn $dev"
  for dt in s d; do for n in 8192 16384; do
    HOPBLAS_DEVICE=$dev HOPBLAS_TRACE=$P/learn-$dev-$dt-$n.csv timeout 100 $B --sizes $n --engines hopblas \
      --mode host --dtype $dt --min-time 1000 --reps "${TWO_LEARN_REPS:-14}" >$P/learn-$dev-$dt-$n.txt 2>&1
    grep -E '^hopblas' $P/learn-$dev-$dt-$n.txt | cut -c1-100
    awk -F'"' 'NR > 1 { split($1, l, ","); split($3, r, ","); k = l[3] " " l[4]
        w = $2 ~ /split=/ ? "S" : $2 ~ /alone/ ? "A" : "O"
        seq[k] = seq[k] sprintf(" %s%.1f", w, 1e3 * r[2]); last[k] = $2 }
      END { for (k in seq) print "  " k ":" seq[k] "\n    last: " substr(last[k], 1, 160) }' \
      $P/learn-$dev-$dt-$n.csv
  done; done
done
want hostbw && { step hostbw; timeout 120 $dir/bin/hostbw 2048 "$(nproc)" 3 | tee $P/hostbw.txt; }
want host && for dev in 0 all; do
  step "host $dev"
  HOPBLAS_DEVICE=$dev HOPBLAS_VERBOSE=2 timeout 150 $B --sizes 8192,16384 --engines hopblas --mode host \
    --dtype s,d --min-time 0.1 --reps 2 --csv $P/host-$dev.csv >$P/host-$dev.txt 2>&1
  grep -E '^hopblas' $P/host-$dev.txt | cut -c1-200
done
want nvblas && { step "host nvblas"
NVBLAS_LIB=$nvblas NVBLAS_CONFIG_FILE=$P/nvblas.conf timeout 150 $B --sizes 8192,16384 --engines nvblas \
  --mode host --dtype s,d --min-time 0.1 --reps 2 --csv $P/host-nvblas.csv >$P/host-nvblas.txt 2>&1
grep -E '^nvblas' $P/host-nvblas.txt; }
want dpotrf && for dev in 0 all; do
  step "dpotrf $dev"
  HOPBLAS_DEVICE=$dev LD_PRELOAD=$dir/lib/libhopblas.so.0 LD_LIBRARY_PATH=$LP timeout 60 \
    $dir/bin/lapack-bench --reps 1 dpotrf:16384 2>&1 | tee $P/dpotrf-$dev.txt
done
want dpotrf && { step "dpotrf nvblas"
NVBLAS_CONFIG_FILE=$P/nvblas.conf LD_PRELOAD=$nvblas LD_LIBRARY_PATH=$LP timeout 60 \
  $dir/bin/lapack-bench --reps 1 dpotrf:16384 2>&1 | grep -v cublasXt | tee $P/dpotrf-nvblas.txt; }
want lead && for r in 1 2; do
  for v in ${TWO_LEAD_SETTINGS:-0:2 all:2 0:0 all:0}; do
    set -- $(echo "$v" | tr : ' ')
    step "lead round $r, device $1, HOPBLAS_OPENCL_LEAD_PASSES=$2"
    HOPBLAS_DEVICE=$1 HOPBLAS_OPENCL_LEAD_PASSES=$2 HOPBLAS_VERBOSE=$((r == 1 ? 3 : 1)) timeout 100 $B \
      --sizes ${TWO_LEAD_SIZES:-16384} --engines hopblas --mode host --dtype s,d --min-time 0.1 --reps 2 \
      >$P/lead-$r-$1-$2.txt 2>&1
    grep -E '^hopblas' $P/lead-$r-$1-$2.txt | cut -c1-130
  done
done
want share && for r in 1 2; do
  for v in "0 1" "all 1" "all 0"; do
    set -- $v
    step "share round $r, device $1, HOPBLAS_OPENCL_SPLIT_SHARE=$2"
    HOPBLAS_DEVICE=$1 HOPBLAS_OPENCL_SPLIT_SHARE=$2 HOPBLAS_VERBOSE=$((r == 1 ? 3 : 1)) timeout 150 $B \
      --sizes ${TWO_SHARE_SIZES:-16384} --engines hopblas --mode host --dtype s,d --min-time 0.1 --reps 2 \
      >$P/share-$r-$1-$2.txt 2>&1
    grep -E '^hopblas' $P/share-$r-$1-$2.txt | cut -c1-130
    grep 'opencl phases' $P/share-$r-$1-$2.txt | sed 's/.*phases: //' | cut -c1-330 | tail -2
  done
done
step end
