/* The nvidia family's parts: its kernel table (nvidia.c), the choice of
 * program and split-k by a cost model (nvidia_pick.c), and the gate, the
 * PTX probe and the family's settings (nvidia_probe.c). */
#ifndef HOP_OCL_NVIDIA_H
#define HOP_OCL_NVIDIA_H

#include "family.h"

enum { HOP_OCL_NV_SPLIT_MAX = 64 }; /* most slices of k (HOPBLAS_OPENCL_NV_SPLITK) */

/* One program of the table: its file and defines, its kernels and launch
 * parameters, and what one work-group computes per second (the cost model). */
struct hop_ocl_nv_unit {
  const char *name, *file, *defines;
  bool ptx; /* inline PTX: the probe, or the emulation, must vouch for it */
  const char *kernel[HOP_OCL_KERNELS];
  struct hop_ocl_params params; /* MWG NWG KWG MDIMC NDIMC, the rest unused */
  double group_gflops;
  int per_cu;
  int pair; /* built for one transpose pair, 2 ta + tb; -1: all four */
};

/* nvidia.c: what st->prog.unit[] holds, in order; their number. */
int hop_ocl_nv_unit_list(const struct hop_ocl_state *st, const struct hop_ocl_nv_unit **out);
void hop_ocl_nv_call_begin(struct hop_ocl_state *st);
void hop_ocl_nv_note(const struct hop_ocl_state *st, const struct hop_call *g, const char *waits,
                     char *buf, size_t len);
/* nvidia_probe.c: the device is NVIDIA; the family may run (the probe, or
 * the emulation): fills st->fam->nv, false with why when it may not. */
bool hop_ocl_nv_match(const struct hop_ocl_device *d, char *why, size_t len);
bool hop_ocl_nv_setup(struct hop_ocl_state *st, char *why, size_t len);
/* nvidia_pick.c */
cl_int hop_ocl_nv_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l, int col0,
                          int cols, cl_uint nwait, const cl_event *wait, cl_event *done);
int hop_ocl_nv_col_grain(const struct hop_ocl_state *st);
void hop_ocl_nv_release(struct hop_ocl_fam *fm); /* the sums and the split-k workspace */

#endif
