# Sourced by test/opencl/*.test after test/lib.sh: a clean environment with
# the OpenCL engine's program-binary cache shared by these tests (the first
# one to build the program stores it; the cache's own test uses a fresh
# directory), and ocl_device_check, the first TAP line of every such test:
# it fails, saying why, when no OpenCL device is there (CI must have PoCL).
hop_clean_env
HOPBLAS_CACHE_DIR=$top_builddir/test/opencl/cache
export HOPBLAS_CACHE_DIR
mkdir -p "$HOPBLAS_CACHE_DIR" && chmod 700 "$HOPBLAS_CACHE_DIR"

ocl_device_check() {
  "$top_builddir/hopblas" info >"$HOP_TMP/info.txt" 2>&1
  grep -q '^  opencl  *on ' "$HOP_TMP/info.txt"
  hop_result $? "an OpenCL device is there: $(sed -n 's/^  opencl  *on  *//p' "$HOP_TMP/info.txt")" \
    "$HOP_TMP/info.txt"
}

# The hopblas lines a run printed on stderr.
ocl_log_lines() { grep -c '^hopblas:' "$1"; }
