/* Kernel families of the OpenCL engine: generic (buffers, local memory),
 * adreno (both operands through image2d_t), mali (one image, one buffer,
 * fma) and nvidia (buffers; FMA tiles and tensor cores through inline
 * PTX).  One family is chosen per process (family.c); the program(s), the
 * operand packing and the launches go through it. */
#ifndef HOP_OCL_FAMILY_H
#define HOP_OCL_FAMILY_H

#include "ocl.h"

/* Half arithmetic where the device has cl_khr_fp16 (HOPBLAS_OPENCL_FP16). */
enum hop_ocl_fp16 {
  HOP_OCL_FP16_OFF,        /* half storage, float math: the contract's accuracy */
  HOP_OCL_FP16_PRODUCTS,   /* each k step's products summed in half, then in float */
  HOP_OCL_FP16_ACCUMULATE, /* accumulators in half too (the seeds' kernels) */
};

/* What an image family's kernels are built with and launched with. */
struct hop_ocl_imgcfg {
  int tm, tn;               /* micro-tile of a work-item: rows x columns of C (4 or 8) */
  int ku;                   /* k per loop iteration: operand heights are padded to it */
  int lx, ly;               /* work-group (shrunk to what a kernel can run) */
  bool image[2];            /* A, B through image2d_t; else a k-major buffer */
  enum hop_ocl_fp16 fp16;   /* asked by the knob */
  bool half_math;           /* fp16 != OFF and the device can (or emulation) */
  bool emulate;             /* HOPBLAS_OPENCL_FP16_EMULATE: half math done in float */
  size_t max_w, max_h;      /* largest image in texels (device, or the test knob) */
  char tile_why[80], image_why[80], fp16_why[120], limit_why[80];
};

/* An image kept across calls, like the pool's buffers. */
struct hop_ocl_image {
  cl_mem mem;
  size_t w, h;          /* texels */
  cl_channel_type type; /* CL_FLOAT or CL_HALF_FLOAT */
};

/* The nvidia family's settings (nvidia.c), fixed when it is chosen. */
struct hop_ocl_nv {
  bool emulate;          /* HOPBLAS_OPENCL_NV_EMULATE: PTX stand-ins in OpenCL C (tests) */
  bool tf32;             /* HOPBLAS_OPENCL_NV_SGEMM=3xtf32 */
  bool f16x2;            /* HOPBLAS_OPENCL_FP16=accumulate: hgemm/shgemm in half arithmetic */
  char gate_why[120];    /* the probe's result, or the emulation */
  unsigned used;         /* this call: bit u = st->prog.unit[u] launched */
  int split;             /* HOPBLAS_OPENCL_NV_SPLITK: 0 auto, -1 off, N slices */
  int split_used;        /* this call: most slices of one launch (1: none) */
  cl_kernel sum[2];      /* nv_sum_slices, nv_sum_slices_half; NULL: split-k off */
  bool sum_tried;
  cl_mem work;           /* split-k's partial products, kept across calls */
  size_t work_size;
};

/* One program of a family that owns several: its files, built as one
 * source with its own options (and cached on their own), and which of its
 * kernels serves which dtype, launched with params (generic signature). */
struct hop_ocl_unit_spec {
  const char *name;                    /* in logs, the trace and `hopblas info` */
  const char *sources[4];              /* embedded kernels/ files, NULL-terminated */
  char options[160];
  const char *kernel[HOP_OCL_KERNELS]; /* entry points; NULL: none here */
  struct hop_ocl_params params;
};

/* Per-process state of the chosen family (st->fam). */
struct hop_ocl_fam {
  struct hop_ocl_nv nv;           /* the nvidia family only */
  struct hop_ocl_imgcfg cfg;      /* image families only */
  struct hop_ocl_image img[2][2]; /* [A, B][slot], image families only */
  size_t wg[HOP_OCL_KERNELS];     /* CL_KERNEL_WORK_GROUP_SIZE, 0 = not asked yet */
  char qcom[120];                 /* Qualcomm extensions used, for `hopblas info` */
  long window_count;              /* launches since the queue window's last wait */
  double slice_s;                 /* with a window, longest predicted launch (HOPBLAS_QUEUE_SLICE_US) */
  long packs[2], launches, waits; /* this call: blocks packed, kernel launches, window waits */
};

/* One block of op(X) for a kernel: rows x cols at (r0, c0), X = A (0) or B (1). */
struct hop_ocl_block {
  int x, slot, r0, c0, rows, cols;
  bool staged;
  cl_event last_use; /* the last kernel that read this slot, or NULL */
  cl_event uploaded; /* the slot's previous upload, or NULL */
};

struct hop_tune_space;

/* A kernel family: how it is chosen, set up, tuned, launched and noted in
 * the trace.  family.c holds the table and the chooser. */
struct hop_ocl_family {
  const char *name;
  /* Is the device this family's?  why says so (the table's last matches all). */
  bool (*match)(const struct hop_ocl_device *d, char *why, size_t len);
  /* May the family run here (its knobs read, its probe passed)?  False with
   * why; true, why may hold a note for variant_why.  NULL: always. */
  bool (*setup)(struct hop_ocl_state *st, char *why, size_t len);
  const struct hop_tune_space *tuning; /* NULL: fixed tiles, nothing to tune */
  const char *const *sources; /* embedded kernels/ files, built as one program */
  /* Families of several programs (nvidia): the programs to build instead,
   * into st->prog.unit[]; their number.  NULL: one program of sources. */
  int (*units)(const struct hop_ocl_state *st, struct hop_ocl_unit_spec *out);
  void (*options)(const struct hop_ocl_state *st, const struct hop_ocl_params *p, char *buf,
                  size_t len);
  const char *(*kernel_name)(enum hop_ocl_kernel k);
  size_t (*group_items)(const struct hop_ocl_program *pr); /* a kernel must run this many */
  /* Columns [col0, col0 + cols) of launch l; a multiple of col_grain wide except at the end. */
  cl_int (*enqueue)(struct hop_ocl_state *st, const struct hop_ocl_launch *l, int col0, int cols,
                    cl_uint nwait, const cl_event *wait, cl_event *done);
  int (*col_grain)(const struct hop_ocl_state *st);
  /* Image families: pack a block into an image or k-major buffer; *ld is the
   * buffer's pitch in elements.  NULL: the call's operand strategy
   * (run_zero_copy.c, run_staged.c) wraps, maps or uploads buffers itself. */
  cl_int (*provide)(struct hop_ocl_state *st, const struct hop_call *g,
                    const struct hop_ocl_block *b, cl_mem *mem, int *ld, cl_event *ready);
  /* Largest block the family takes (plan limits), NULL for none. */
  void (*limits)(const struct hop_ocl_state *st, const struct hop_call *g, struct hop_ocl_plan *p);
  void (*describe)(const struct hop_ocl_state *st, FILE *out); /* NULL: engine.c's tiles line */
  void (*call_begin)(struct hop_ocl_state *st); /* its per-call counts reset; NULL: none */
  /* The trace's note for the call just run; waits is the queue window's part. */
  void (*note)(const struct hop_ocl_state *st, const struct hop_call *g, const char *waits,
               char *buf, size_t len);
  void (*release)(struct hop_ocl_fam *fm); /* its objects kept across calls; NULL: none */
};

extern const struct hop_ocl_family hop_ocl_family_generic, hop_ocl_family_adreno,
  hop_ocl_family_mali, hop_ocl_family_nvidia;

/* family.c */
void hop_ocl_family_choose(struct hop_ocl_state *st);
/* The family's objects kept across calls (images, the split-k workspace and sums), and st->fam. */
void hop_ocl_family_release(struct hop_ocl_state *st);
bool hop_ocl_has_extension(const struct hop_ocl_device *d, const char *name);
char *hop_ocl_family_source(const struct hop_ocl_family *f, char *why, size_t len);
/* Embedded files (NULL-terminated names), in order, as one malloc'd string. */
char *hop_ocl_source_join(const char *const *names, char *why, size_t len);
cl_int hop_ocl_family_launch(struct hop_ocl_state *st, const struct hop_ocl_launch *l,
                             cl_uint nwait, const cl_event *wait, cl_event *done);
void hop_ocl_family_call_begin(struct hop_ocl_state *st);
void hop_ocl_family_call_end(struct hop_ocl_state *st, const struct hop_call *g);
const char *hop_ocl_family_detail(void *state);

/* generic.c: columns [col0, col0 + cols) of launch l, a narrower C and the
 * matching op(B), for the families that launch generic-style kernels. */
struct hop_ocl_launch hop_ocl_generic_slab(const struct hop_ocl_launch *l, int col0, int cols);

/* image.c: what the two image families share. */
/* The family's defaults, then the knobs and the device's limits. */
bool hop_ocl_image_setup(struct hop_ocl_state *st,
                         void (*defaults)(struct hop_ocl_state *st, struct hop_ocl_imgcfg *c),
                         char *why, size_t len);
void hop_ocl_image_options(const struct hop_ocl_state *st, const struct hop_ocl_params *p,
                           char *buf, size_t len);
size_t hop_ocl_image_group_items(const struct hop_ocl_program *pr);
cl_int hop_ocl_image_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l, int col0,
                             int cols, cl_uint nwait, const cl_event *wait, cl_event *done);
int hop_ocl_image_col_grain(const struct hop_ocl_state *st);
cl_int hop_ocl_image_provide(struct hop_ocl_state *st, const struct hop_call *g,
                             const struct hop_ocl_block *b, cl_mem *mem, int *ld,
                             cl_event *ready);
void hop_ocl_image_limits(const struct hop_ocl_state *st, const struct hop_call *g,
                          struct hop_ocl_plan *p);
void hop_ocl_image_describe(const struct hop_ocl_state *st, FILE *out);
void hop_ocl_image_note(const struct hop_ocl_state *st, const struct hop_call *g,
                        const char *waits, char *buf, size_t len);
void hop_ocl_image_release(struct hop_ocl_fam *fm);


/* pack.c: op(X) blocks into the k-major texel layout. */
void hop_ocl_pack_kmajor(const struct hop_call *g, const struct hop_ocl_block *b, size_t width,
                         size_t height, void *dst, size_t pitch);

#endif
