/* The pipeline of one call (run.c) and the operand strategies it drives:
 * how an A or B block gets onto the device, how C's tile comes in and goes
 * back, and what each leaves to release.  One strategy is chosen per call
 * (run_zero_copy.c, run_staged.c); the pipeline itself never asks which. */
#ifndef HOP_OCL_RUN_H
#define HOP_OCL_RUN_H

#include "family.h"

enum { HOP_OCL_PARTS = 8 }; /* most read-backs per C tile */

/* A block's upload as the caller's complex elements, to be spread into
 * the plane just before the first kernel that reads it (plane_spread.c). */
struct hop_ocl_spread_job {
  cl_event up;          /* that upload; NULL: nothing pending */
  cl_mem src, dst;      /* the slot's compact buffer, its plane block */
  int rows, cols;       /* complex elements */
  cl_ulong src_off, dst_off;
  int ld_src, ld_dst, code;
  bool dbl;
};

struct hop_ocl_op_slot { /* an A or B block on the device */
  bool valid;
  unsigned long used; /* when it was last provided: the oldest is replaced */
  int r0, c0;         /* its corner in op(X) */
  cl_mem wrap;        /* zero-copy: a buffer over the caller's memory, else NULL */
  cl_mem mem;
  cl_ulong off;
  int ld;
  cl_event ready;    /* upload (or unmap) done */
  cl_event last_use; /* the last kernel that reads it */
  struct hop_ocl_spread_job spread;
};

struct hop_ocl_c_slot {
  bool busy; /* a tile is in flight in it */
  bool held; /* its read-back is held for the next host copy (run_later.c) */
  size_t tile;
  int i0, j0, rows, cols;
  cl_mem wrap_in;                /* zero-copy: C's host region, read when beta != 0 */
  cl_event ready;                /* C input in place */
  int parts, part_cols;          /* read back in parts of part_cols columns (zero-copy: one) */
  cl_event done[HOP_OCL_PARTS];  /* each part's read-back (staged) or the map (zero-copy) complete */
  cl_event unmapped;             /* zero-copy: the map released, the kernel may write again */
  void *mapped;
};

/* The block of op(X) a slot is to hold, and where it lies in the caller's X. */
struct hop_ocl_src {
  int x, slot;                   /* X = A (0) or B (1); the slot's index */
  int r0, c0, rows, cols;        /* in op(X) */
  const unsigned char *base;     /* X */
  int ld;
  size_t e;                      /* element size */
  int sr, sc, srows, scols;      /* the same block in X as stored */
  size_t dense, full;            /* bytes packed; bytes of the largest block of the plan */
};

struct hop_ocl_call;

/* Queue work held for the next host copy (run_later.c): a kernel and the
 * read-back of its tile, a kernel alone (cs NULL), or a read-back alone
 * (kev set). */
enum { HOP_OCL_LATER_MAX = 32 };
struct hop_ocl_later_item {
  struct hop_ocl_c_slot *cs;
  struct hop_ocl_launch l;
  struct hop_ocl_op_slot *a, *b;
  int k0, kb;
  bool first;
  cl_event a_ready, b_ready, kev; /* held references */
};
struct hop_ocl_later {
  bool reads, kernels; /* what this call holds: read-backs; kernels too */
  bool running;
  int n;
  struct hop_ocl_later_item item[HOP_OCL_LATER_MAX];
};

struct hop_ocl_operands {
  const char *name;        /* in the phases log line */
  int op_slots, c_slots;   /* most slots of each operand, of C */
  cl_mem_flags c_flags;    /* added to a C slot's device buffer */
  bool c_pinned;           /* a C slot also has a pinned host image */
  /* Put block s into slot o (o->mem, o->off, o->ld, o->ready). */
  bool (*block)(struct hop_ocl_call *c, struct hop_ocl_op_slot *o, const struct hop_ocl_src *s);
  /* Or part by part: op(X)'s k in [k0, k0 + kb) of block s into slot o,
   * k0 == 0 first (*ev: that part's upload; o->mem, o->off, o->ld set);
   * NULL where blocks go whole (zero-copy, the image families). */
  bool (*block_part)(struct hop_ocl_call *c, struct hop_ocl_op_slot *o,
                     const struct hop_ocl_src *s, int k0, int kb, cl_event *ev);
  /* C's input for the tile when beta != 0 and k is whole; sets l->cin. */
  bool (*c_in)(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, struct hop_ocl_launch *l);
  int (*c_parts)(const struct hop_ocl_call *c, const struct hop_ocl_c_slot *cs);
  /* Queue the read-back of columns [j, j + n) after kev, into *done. */
  cl_int (*c_read)(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, int j, int n, cl_event kev,
                   cl_event *done);
  const unsigned char *(*c_host)(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs);
  /* The tile is written into C: give back what its read-back holds. */
  bool (*c_done)(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs);
  /* At the call's end (queues finished): what slot i still holds. */
  void (*c_drop)(struct hop_ocl_call *c, int i);
};

extern const struct hop_ocl_operands hop_ocl_zero_copy, hop_ocl_zero_copy_images, hop_ocl_staged,
  hop_ocl_staged_images;

struct hop_ocl_call {
  struct hop_ocl_state *st;
  const struct hop_call *g;
  const struct hop_ocl_operands *ops;
  struct hop_ocl_plan p;
  int nx, nc;                                  /* operand slots (each of A and B), C slots */
  struct hop_ocl_op_slot op[2][HOP_OCL_OP_SLOTS]; /* [A, B][slot] */
  unsigned long clock;
  struct hop_ocl_c_slot cs[HOP_OCL_SLOTS];
  int *done_cols; /* per tile: its first done_cols columns are final in C */
  size_t ntiles, nfinal;
  bool touched;             /* some column of C holds final values */
  size_t redone;            /* results recomputed on the CPU (a flushing device) */
  struct hop_ocl_stager sg; /* staged uploads; every path's host time by phase */
  struct {                  /* leading passes over k (run_lead.c) */
    int passes;             /* 0: none */
    int64_t k;              /* k they reach; each tile then runs the rest */
    bool rest_up[2][HOP_OCL_OP_SLOTS]; /* that block's rest of k is uploaded */
  } lead;
  struct hop_ocl_later later; /* queue work held for the next host copy (run_later.c) */
  cl_int err;
  const char *what; /* the step that failed */
};

/* Record the first failure; false, for `return hop_ocl_call_fail(...)`. */
bool hop_ocl_call_fail(struct hop_ocl_call *c, cl_int err, const char *what);
/* Replace the event held in *slot (taking ownership of ev). */
void hop_ocl_ev_put(cl_event *slot, cl_event ev);
void hop_ocl_call_flush(struct hop_ocl_call *c);
/* hop_ocl_pack, counted as the host's packing time. */
void hop_ocl_call_pack(struct hop_ocl_call *c, const void *x, int ld, size_t e, int r0, int c0,
                       int rows, int cols, void *dst);
/* The rows x cols block of op(X) at (r0, c0) for slot o, as it lies in X. */
struct hop_ocl_src hop_ocl_call_source(const struct hop_ocl_call *c, const struct hop_ocl_op_slot *o,
                                       int x, int r0, int c0, int rows, int cols);
/* Launch the kernel for tile cs (l: its C) over k in [k0, k0 + kb) of
 * blocks a and b after those events; `first` applies beta, else adds. */
bool hop_ocl_call_launch_part(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs,
                              struct hop_ocl_launch *l, struct hop_ocl_op_slot *a,
                              struct hop_ocl_op_slot *b, int k0, int kb, bool first,
                              cl_event a_ready, cl_event b_ready, cl_event *kev);
/* The launch over C's rows x cols block at (i0, j0): the call's kernel,
 * part, scalars and transposes, C read from and written to cmem at off
 * with leading dimension ld. */
struct hop_ocl_launch hop_ocl_call_launch(const struct hop_ocl_call *c, int i0, int j0, int rows,
                                          int cols, cl_mem cmem, cl_ulong off, int ld);
/* Tile t's row block i and panel j (the order the call takes its tiles in). */
void hop_ocl_call_tile(const struct hop_ocl_call *c, size_t t, int *i, int *j);
/* Which elements of its tiles a call wants (gemmt: a triangle). */
enum hop_ocl_part hop_ocl_call_part(const struct hop_call *g);
/* HOPBLAS_OPENCL_SLICE_MIN_FLOPS: the least work worth a launch of its own. */
double hop_ocl_slice_min_flops(void);

/* Queue tile cs's read-back after its last kernel kev (in the parts the
 * strategy asks for); cs->busy while parts are queued; false after a failure. */
bool hop_ocl_call_read_tile(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, cl_event kev);

/* run_later.c (HOPBLAS_OPENCL_QUEUE_BESIDE): at the call's start, which
 * work it may hold; the stager then runs it beside its copies. */
void hop_ocl_later_start(struct hop_ocl_call *c);
/* Launch the kernel (as hop_ocl_call_launch_part; l is copied), then, cs
 * not NULL, queue cs's read-back: now, or held for the next host copy. */
bool hop_ocl_later_launch(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs,
                          const struct hop_ocl_launch *l, struct hop_ocl_op_slot *a,
                          struct hop_ocl_op_slot *b, int k0, int kb, bool first, cl_event a_ready,
                          cl_event b_ready);
/* Tile cs's read-back after kev (taken over): now, or held. */
bool hop_ocl_later_read(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, cl_event kev);
/* Queue everything held, in order. */
void hop_ocl_later_run(struct hop_ocl_call *c);
/* Forget what is still held (the call ends). */
void hop_ocl_later_end(struct hop_ocl_call *c);

/* run_lead.c: how many leading passes over k the call takes (0: none);
 * panels_fit: every block and a C-sized buffer fit the device. */
int hop_ocl_lead_passes(const struct hop_ocl_call *c, bool panels_fit);
/* The k at which each slab of the leading passes (and the rest) ends,
 * into end (at most `most`, the last k); how many. */
int hop_ocl_lead_slabs(int64_t k, int64_t *end, int most);
/* Queue the leading passes; false after a failure (c->err). */
bool hop_ocl_lead_run(struct hop_ocl_call *c);
/* The later tiles' rests of k uploaded ahead of them, after tile t's
 * kernel and read-back are queued. */
bool hop_ocl_lead_ahead(struct hop_ocl_call *c, size_t t);
/* Tile cs's rest of k, adding the passes' sums, into its C slot, and its
 * read-back (hop_ocl_later_launch). */
bool hop_ocl_lead_rest(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, struct hop_ocl_launch *l);

/* plane_spread.c.  Can the rows x cols block at (r0, c0) of the stored
 * plane v (NULL: not a complex call) go up as the caller's complex
 * elements, to (dr0, dc0) of a device block of leading dimension ld? */
bool hop_ocl_spread_fits(struct hop_ocl_call *c, const struct hop_plane_view *v, int r0, int c0,
                         int rows, int cols, int dr0, int dc0, int ld);
/* Would a block of v be spread (the device's slot then kernels may write)? */
bool hop_ocl_spread_wanted(struct hop_ocl_call *c, const struct hop_plane_view *v);
/* Upload it so for slot o (block s) into dst, the spread left pending; *ev:
 * the upload.  The slot is settled first (hop_ocl_spread_settle). */
bool hop_ocl_spread_up(struct hop_ocl_call *c, struct hop_ocl_op_slot *o,
                       const struct hop_ocl_src *s, const struct hop_plane_view *v, int r0, int c0,
                       int rows, int cols, cl_mem dst, int dr0, int dc0, int ld, cl_event *ev);
/* Queue slot o's pending spread on the kernels' queue: *ev its event, NULL when none was pending. */
bool hop_ocl_spread_run(struct hop_ocl_call *c, struct hop_ocl_op_slot *o, cl_event *ev);
/* Before slot o takes another upload: its pending spread queued, and
 * counted as the slot's last use. */
bool hop_ocl_spread_settle(struct hop_ocl_call *c, struct hop_ocl_op_slot *o);
/* Forget a pending spread (the call ends). */
void hop_ocl_spread_drop(struct hop_ocl_op_slot *o);

/* The image families pack their blocks themselves (family->provide). */
bool hop_ocl_call_family_block(struct hop_ocl_call *c, struct hop_ocl_op_slot *o,
                               const struct hop_ocl_src *s, bool staged);

#endif
