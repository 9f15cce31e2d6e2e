/* The configuration keys of the two VideoCore engines (videocore and
 * videocore-emu share them).  Built whether or not the engines are: a config
 * file written for a build with them stays valid without them
 * (backends/registry.c lists the keys of engines configured out). */
#include "hop.h"

const struct hop_config_key hop_videocore_keys[] = {
  {"HOPBLAS_VC_CLOCK_MHZ", "VideoCore clock used for projected emulator times", HOP_KEY_VALUE},
  {"HOPBLAS_VC_QPUS", "VideoCore: QPUs (threads) per call, 1..12", HOP_KEY_VALUE},
  {"HOPBLAS_VC_UNROLL", "VideoCore: k steps per loop iteration of the QPU program, 2..8", HOP_KEY_VALUE},
  {"HOPBLAS_VC_MAX_MB", "VideoCore: most GPU memory one call may allocate, in MiB", HOP_KEY_VALUE},
  {"HOPBLAS_VC_EMU_MAX_MB", "videocore-emu: most emulator memory one call may use, in MiB", HOP_KEY_VALUE},
  {"HOPBLAS_VC_EMU_MAX_GFLOP", "videocore-emu: calls with more work (2mnk / 1e9) are declined", HOP_KEY_VALUE},
  {NULL, NULL, HOP_KEY_VALUE},
};
