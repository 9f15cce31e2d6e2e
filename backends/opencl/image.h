/* The image families' own state and what they share (image.c): adreno and
 * mali read operands through image2d_t.  Only their files (image.c,
 * adreno.c, mali.c, tune_image.c) include this header; to the rest of the
 * engine st->fam is opaque. */
#ifndef HOP_OCL_IMAGE_H
#define HOP_OCL_IMAGE_H

#include "family.h"

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

/* st->fam of an image family: allocated by its setup, freed by its release. */
struct hop_ocl_img {
  struct hop_ocl_imgcfg cfg;
  struct hop_ocl_image img[2][2]; /* [A, B][slot] */
  size_t wg[HOP_OCL_KERNELS];     /* CL_KERNEL_WORK_GROUP_SIZE, 0 = not asked yet */
  char qcom[120];                 /* Qualcomm extensions used (adreno), for `hopblas info` */
  long packs[2];                  /* this call: blocks of A, B packed */
};

static inline struct hop_ocl_img *hop_ocl_img_of(const struct hop_ocl_state *st)
{
  return st->fam;
}

/* The family's defaults, then the knobs and the device's limits; allocates st->fam. */
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
void hop_ocl_image_call_begin(struct hop_ocl_state *st);
void hop_ocl_image_note(const struct hop_ocl_state *st, const struct hop_call *g,
                        const char *waits, char *buf, size_t len);
/* The images kept across calls, and st->fam. */
void hop_ocl_image_release(struct hop_ocl_state *st);

#endif
