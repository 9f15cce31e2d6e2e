/* Kernel families of the OpenCL engine: generic (buffers, local memory),
 * adreno (both operands through image2d_t), mali (one image, one buffer,
 * fma) and nvidia (buffers; FMA tiles and tensor cores through inline
 * PTX).  One family is chosen per process (family.c); the program(s), the
 * operand packing and the launches go through it. */
#ifndef HOP_OCL_FAMILY_H
#define HOP_OCL_FAMILY_H

#include "ocl.h"

/* One program of a family that owns several: its files, built as one
 * source with its own options (and cached on their own), and which of its
 * kernels serves which dtype, launched with params (generic signature). */
struct hop_ocl_unit_spec {
  const char *name;                    /* in logs, the trace and `hopblas info` */
  const char *sources[4];              /* embedded kernels/ files, NULL-terminated */
  char options[160];
  const char *kernel[HOP_OCL_KERNELS]; /* entry points; NULL: none here */
  struct hop_ocl_params params;
  bool fp64; /* double kernels only: built on the first d or z call (hop_ocl_program_fp64) */
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
   * why; true, why may hold a note for variant_why.  NULL: always.  A family
   * with state allocates it here as st->fam, which only its own files read. */
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
  /* Its objects kept across calls and st->fam, after a failed setup too; NULL: none. */
  void (*release)(struct hop_ocl_state *st);
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
/* More of the call's trace note, after call_end wrote it. */
void hop_ocl_family_detail_add(const char *more);
/* Empty it: a call that may end without a launch (level3_complex.c). */
void hop_ocl_family_detail_clear(void);
const char *hop_ocl_family_detail(void *state);

/* generic.c: columns [col0, col0 + cols) of launch l, a narrower C and the
 * matching op(B), for the families that launch generic-style kernels. */
struct hop_ocl_launch hop_ocl_generic_slab(const struct hop_ocl_launch *l, int col0, int cols);
/* Rows [row0, row0 + rows) of launch l: a shorter C and the matching op(A). */
struct hop_ocl_launch hop_ocl_generic_rows(const struct hop_ocl_launch *l, int row0, int rows);

/* pack.c: op(X) blocks into the k-major texel layout. */
void hop_ocl_pack_kmajor(const struct hop_call *g, const struct hop_ocl_block *b, size_t width,
                         size_t height, void *dst, size_t pitch);

#endif
