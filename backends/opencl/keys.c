/* The OpenCL engine's configuration keys.  Built whether or not the engine
 * is: a config file written for a build with OpenCL stays valid without it
 * (backends/registry.c lists the keys of engines configured out). */
#include "hop.h"

const struct hop_config_key hop_opencl_keys[] = {
  {"HOPBLAS_DEVICE", "OpenCL device: index or name substring; a list (0,1) or all: several share large calls; local-rank[:LIST]: by the MPI local rank", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_SPLIT_CPU", "1: the CPU takes a share of the calls several devices share (0)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_SPLIT_SHARE", "1: the devices of a column split take one packing of A (0: each packs its own)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_SPLIT_MIN_FLOPS", "several devices: share every call of at least this many flops (unset: when predicted faster)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_VARIANT", "auto | generic | adreno | mali | nvidia: OpenCL kernel family", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_MEMORY", "auto | zero-copy | staged: host-memory strategy", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_PARAMS", "generic OpenCL tiles, e.g. MWG=64,NWG=64,KWG=16,MDIMC=16,NDIMC=16", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_MAX_ALLOC", "largest OpenCL buffer in bytes (0 = the device's limit)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_COPY_THREADS", "threads copying host memory <-> staging (0 = auto, 1 = none)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_COPY_CHUNKS", "pieces per copy thread a host copy is cut into, taken in turn (4)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_CHUNK", "staged: bytes per upload and C read-back part (0 = 8 MiB, 16 MiB for calls with 1 GiB of A and B); trsm's read-back shares", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_OPERAND_SLOTS", "staged: device slots for each of A's and B's blocks, 2 to 8 (3): B panels uploaded this far ahead; set, no leading passes", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_LEAD_MIN_INTENSITY", "staged: the least flops per byte of A and B of a call that takes leading passes (500)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_LEAD_PASSES", "staged, A in row blocks: passes over every tile that compute k to about k/2 first, so the link stays ahead of the device (2; 0 = tile order)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_ROW_BLOCKS", "staged: row blocks A is cut into when every panel would read all of it, so the first kernel starts sooner (2; 1 = whole)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_SLICE_MIN_FLOPS", "staged: a row block's first tile runs in 4 k slices, each started as its part of A is up, where a slice has this many flops (4e9)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_SPREAD", "staged: 1 (default) uploads a complex call's doubled plane as the caller's complex elements and spreads it on the device; 0: the host packs it", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_TIMELINE", "1: each staged or zero-copy call logs when its uploads, kernels and read-backs ran (profiling queues)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_FAULT", "test knob: build|alloc|enqueue|read|upload|share[:N][@D] fails the N-th such step (on device D)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_FTZ", "test knob: 1 treats the device as flushing subnormal floats to zero", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_L3_BLOCK", "rows (columns) of B per slab of trmm and trsm (128)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_TRSM_GROUP", "1: trsm's slabs solved by work-groups where the device allows; 0: a work-item per vector", HOP_KEY_VALUE},
  {"HOPBLAS_QUEUE_WINDOW", "wait for the device after every N commands (0 = never)", HOP_KEY_VALUE},
  {"HOPBLAS_QUEUE_SLICE_US", "with a queue window: longest predicted kernel launch (1000 us)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_TILE", "adreno/mali outputs per work-item: 4x8 | 4x4 | 8x4 | 8x8", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_LWS", "adreno/mali work-group XxY, powers of 2 (32x16 adreno, 16x8 mali)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_MALI_IMAGE", "a | b | both: the mali family's operand(s) read as images", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_FP16", "off | products | accumulate: half arithmetic (image families with cl_khr_fp16; nvidia: accumulate = fma.rn.f16x2)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_FP16_EMULATE", "test knob: 1 emulates half arithmetic without cl_khr_fp16", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_IMAGE_MAX", "test knob: largest image side in texels (0 = the device's)", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_NV_SGEMM", "fma | 3xtf32: the nvidia family's sgemm kernel", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_NV_EMULATE", "test knob: 1 runs the nvidia family with its PTX emulated", HOP_KEY_VALUE},
  {"HOPBLAS_OPENCL_NV_SPLITK", "auto | off | 2..64: the nvidia family's split-k slices", HOP_KEY_VALUE},
  /* The tuner searches the OpenCL families' parameters; HOPBLAS_TUNE itself is core's. */
  {"HOPBLAS_TUNE_BUDGET", "quick: seconds an unseen size bucket may spend tuning in a call (5)", HOP_KEY_VALUE},
  {"HOPBLAS_TUNE_FAULT", "test knob: wrong:N makes the tuner's N-th checked candidate wrong", HOP_KEY_VALUE},
  {NULL, NULL, HOP_KEY_VALUE},
};
