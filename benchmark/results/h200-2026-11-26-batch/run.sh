#!/bin/sh
# On the NVIDIA machine, carried as .device/batch: gemmt and batched GEMM
# checked on the GPU (test/gemmx, the nvidia and the generic family), then
# benchmark/batch.sh's four ways for 10,000 sgemm of 64 x 64 x 64.
set -u
d=.device/batch
mkdir -p /tmp/b-root /tmp/b-vendors "$OUT"
for f in $d/debs/*.deb; do dpkg -x "$f" /tmp/b-root; done
lib=/tmp/b-root/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$lib:$lib/openblas-pthread
echo /usr/lib/libnvidia-opencl.so.1 >/tmp/b-vendors/nvidia.icd
export OCL_ICD_VENDORS=/tmp/b-vendors HOPBLAS_CPU_BLAS=$lib/openblas-pthread/libopenblas.so.0
export HOPBLAS_CACHE_DIR=/tmp/b-cache; mkdir -p $HOPBLAS_CACHE_DIR; chmod 700 $HOPBLAS_CACHE_DIR
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$d/bin/hopblas info > $OUT/info.txt 2>&1
grep -iE "opencl|family|device" $OUT/info.txt | head -6
for fam in nvidia generic; do
  HOPBLAS_BACKEND=opencl HOPBLAS_OPENCL_VARIANT=$fam HOPBLAS_TRACE=$OUT/t-$fam.csv timeout 200 $d/bin/gemmx batch --dtypes s,d > $OUT/batch-$fam.tap 2>&1
  echo "$fam batch: $(grep -c '^ok' $OUT/batch-$fam.tap) ok, $(grep -c '^not ok' $OUT/batch-$fam.tap) not ok; rows off opencl: $(awk -F, 'NR > 1 && $9 != "opencl" && $9 != "core"' $OUT/t-$fam.csv | wc -l); launches=1 rows: $(grep -c 'launches=1' $OUT/t-$fam.csv)"
  HOPBLAS_BACKEND=opencl HOPBLAS_OPENCL_VARIANT=$fam HOPBLAS_TRACE=$OUT/g-$fam.csv timeout 200 $d/bin/gemmx gemmt --dtypes s,d --quick --max-dim 300 > $OUT/gemmt-$fam.tap 2>&1
  echo "$fam gemmt: $(grep -c '^ok' $OUT/gemmt-$fam.tap) ok, $(grep -c '^not ok' $OUT/gemmt-$fam.tap) not ok; rows off opencl: $(awk -F, 'NR > 1 && $9 != "opencl" && $9 != "core"' $OUT/g-$fam.csv | wc -l)"
  grep -h -A1 '^not ok' $OUT/batch-$fam.tap $OUT/gemmt-$fam.tap | head -6
done
for run in auto:nvidia cpu:nvidia opencl:nvidia opencl:generic; do
  engine=${run%%:*} fam=${run#*:}
  echo "## batch: HOPBLAS_BACKEND=$engine HOPBLAS_OPENCL_VARIANT=$fam"
  HOPBLAS_BACKEND=$engine HOPBLAS_OPENCL_VARIANT=$fam HOPBLAS_TRACE=$OUT/b-$engine-$fam.csv timeout 200 $d/bin/batch-bench 10000 64 5 $lib/openblas-pthread/libopenblas.so.0
  awk -F, '$2 == "cblas_sgemm_batch" { row = $9 ": " $10 } END { print "last batch ran on " row }' $OUT/b-$engine-$fam.csv
done
