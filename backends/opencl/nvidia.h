/* The nvidia family's parts: its kernel table (nvidia.c), the choice of
 * program and split-k by a cost model (nvidia_pick.c), and the gate, the
 * PTX probe and the family's settings (nvidia_probe.c). */
#ifndef HOP_OCL_NVIDIA_H
#define HOP_OCL_NVIDIA_H

#include "family.h"

enum { HOP_OCL_NV_SPLIT_MAX = 64 }; /* most slices of k (HOPBLAS_OPENCL_NV_SPLITK) */

/* st->fam of the nvidia family: its settings, fixed when it is chosen, and
 * its objects kept across calls.  Allocated by its setup, freed by its release. */
struct hop_ocl_nv {
  bool emulate;          /* HOPBLAS_OPENCL_NV_EMULATE: PTX stand-ins in OpenCL C (tests) */
  bool tf32;             /* HOPBLAS_OPENCL_NV_SGEMM=3xtf32 */
  bool f16x2;            /* HOPBLAS_OPENCL_FP16=accumulate: hgemm/shgemm in half arithmetic */
  bool fp64;             /* the device has cl_khr_fp64: the double program is built */
  bool dmma;             /* and FP64 tensor cores of sm_90 (mma m16n8k8 .f64), or their emulation */
  bool dmma_large;       /* and 227 KiB of local memory a work-group (sm_90, sm_100) */
  char gate_why[120];    /* the probe's result, or the emulation */
  unsigned used;         /* this call: bit u = st->prog.unit[u] launched */
  int split;             /* HOPBLAS_OPENCL_NV_SPLITK: 0 auto, -1 off, N slices */
  int split_used;        /* this call: most slices of one launch (1: none) */
  cl_kernel sum[2];      /* nv_sum_slices, nv_sum_slices_half; NULL: split-k off */
  bool sum_tried;
  cl_mem work;           /* split-k's partial products, kept across calls */
  size_t work_size;
};

static inline struct hop_ocl_nv *hop_ocl_nv_of(const struct hop_ocl_state *st) { return st->fam; }

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

/* nvidia.c: what st->prog.unit[] holds with these settings, in order; their number. */
int hop_ocl_nv_unit_list(const struct hop_ocl_nv *nv, const struct hop_ocl_nv_unit **out);
/* The same as programs to build: files (the PTX helpers or their
 * emulation in front) and options. */
int hop_ocl_nv_unit_specs(const struct hop_ocl_nv *nv, struct hop_ocl_unit_spec *out);
void hop_ocl_nv_call_begin(struct hop_ocl_state *st);
void hop_ocl_nv_note(const struct hop_ocl_state *st, const struct hop_call *g, const char *waits,
                     char *buf, size_t len);
/* nvidia_probe.c: the device is NVIDIA; the family may run (the probe, or
 * the emulation): allocates st->fam, false with why when it may not. */
bool hop_ocl_nv_match(const struct hop_ocl_device *d, char *why, size_t len);
bool hop_ocl_nv_setup(struct hop_ocl_state *st, char *why, size_t len);
/* nvidia_pick.c */
cl_int hop_ocl_nv_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l, int col0,
                          int cols, cl_uint nwait, const cl_event *wait, cl_event *done);
int hop_ocl_nv_col_grain(const struct hop_ocl_state *st);
void hop_ocl_nv_release(struct hop_ocl_state *st); /* the sums, the split-k workspace, st->fam */

#endif
