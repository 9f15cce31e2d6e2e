# Sourced by test/tune/*.test after test/lib.sh: a clean environment, the
# cache driver, and a fresh private cache directory per case (tune_fresh).
hop_clean_env
TUNE_CACHE=$top_builddir/test/tune/tune-cache
HOPBLAS=$top_builddir/hopblas

# tune_fresh DIR: an empty private cache directory, made HOPBLAS_CACHE_DIR.
tune_fresh() {
  rm -rf "$1" && mkdir -p "$1" && chmod 700 "$1"
  HOPBLAS_CACHE_DIR=$1
  export HOPBLAS_CACHE_DIR
}

# tune_lines FILE: how many lines the library logged (stderr captured in FILE).
tune_lines() { grep -c '^hopblas:' "$1"; }

# The first TAP line of the OpenCL tests: fails, saying why, without a device (CI has PoCL).
tune_device_check() {
  "$HOPBLAS" info >"$HOP_TMP/info.txt" 2>&1
  grep -q '^  opencl  *on ' "$HOP_TMP/info.txt"
  hop_result $? "an OpenCL device is there: $(sed -n 's/^  opencl  *on  *//p' "$HOP_TMP/info.txt")" \
    "$HOP_TMP/info.txt"
}
