/* The OpenCL engine's internal interface: one runtime per process (the
 * engine state core/context.c holds), the device it computes on, the
 * program of the generic family, a pool of buffers reused across calls,
 * and the tile pipeline that moves host operands through them. */
#ifndef HOP_OCL_H
#define HOP_OCL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdatomic.h>

#include "hop.h"

/* The engine's configuration keys (keys.c, built with or without OpenCL). */
extern const struct hop_config_key hop_opencl_keys[];

/* ---- devices (runtime.c) ------------------------------------------------ */

struct hop_ocl_device {
  cl_platform_id platform;
  cl_device_id id;
  char platform_name[96];
  char name[128];
  char vendor[96];
  char driver[64];   /* CL_DRIVER_VERSION */
  char version[96];  /* CL_DEVICE_VERSION */
  cl_device_type type;
  bool unified;      /* CL_DEVICE_HOST_UNIFIED_MEMORY */
  bool usable;       /* available, with a compiler */
  cl_uint units, clock_mhz;
  cl_ulong global_mem, max_alloc, local_mem;
  size_t max_wg;
  cl_uint base_align; /* bytes a buffer's base address should have */
  bool flushes;       /* CL_DEVICE_SINGLE_FP_CONFIG lacks CL_FP_DENORM (or is not answered) */
};

enum hop_ocl_memory { HOP_OCL_ZERO_COPY, HOP_OCL_STAGED };

/* Queues of the device: uploads, kernels and downloads overlap. */
/* SHARE: a split's shared A (split_share.c), never queued behind a part's own uploads. */
enum { HOP_OCL_Q_UP, HOP_OCL_Q_EXEC, HOP_OCL_Q_DOWN, HOP_OCL_Q_SHARE, HOP_OCL_QUEUES };

/* ---- the generic family (generic.c) ------------------------------------- */

struct hop_ocl_params {
  int mwg, nwg, kwg, mdimc, ndimc, vwm, vwn, vwl, pada, padb;
};

/* DGEMM lives in a program of its own (built with -DHOP_FP64 where the
 * device has cl_khr_fp64); its kernel object sits beside the others, as
 * does DGEMM_BATCH's.  The _BATCH kernels run a whole batch of GEMMs in one
 * launch (batch.c), a problem per slice of the grid. */
enum hop_ocl_kernel { HOP_OCL_SGEMM, HOP_OCL_HGEMM, HOP_OCL_SHGEMM, HOP_OCL_DGEMM,
                      HOP_OCL_SGEMM_BATCH, HOP_OCL_DGEMM_BATCH, HOP_OCL_KERNELS };
/* The kernels of the double program. */
static inline bool hop_ocl_kernel_fp64(enum hop_ocl_kernel k)
{
  return k == HOP_OCL_DGEMM || k == HOP_OCL_DGEMM_BATCH;
}

/* One program of a family that owns several (family.h, units), and its
 * kernels: they launch like the generic family's, with these parameters. */
enum { HOP_OCL_UNITS = 12 }; /* the nvidia family has 9 */
struct hop_ocl_unit {
  cl_program program;
  cl_kernel kernel[HOP_OCL_KERNELS]; /* NULL: not in this program */
  struct hop_ocl_params params;      /* MWG x NWG tile, MDIMC x NDIMC work-group */
};

struct hop_ocl_program {
  bool tried;
  enum hop_status status;
  cl_program program;
  cl_kernel kernel[HOP_OCL_KERNELS];
  struct hop_ocl_params params; /* what it was built with */
  struct hop_ocl_unit unit[HOP_OCL_UNITS]; /* families of several programs, instead */
  int units;
  char origin[200];             /* how it came to be, for `hopblas info` */
  char fp64[160];               /* whether kernel[HOP_OCL_DGEMM] exists, and why not */
  bool fp64_tried;              /* the double program was asked for */
  struct hop_ocl_params fp64_params; /* what kernel[HOP_OCL_DGEMM] was built with */
};

/* Which elements of a launch's C are wanted: all, or those of gemmt's
 * triangle, element (r, c) when r - c <= diag (upper) or >= diag (lower). */
enum hop_ocl_part { HOP_OCL_ALL, HOP_OCL_UPPER, HOP_OCL_LOWER };

/* One launch of a generic kernel on device buffers (element offsets). */
struct hop_ocl_launch {
  enum hop_ocl_kernel kernel;
  enum hop_ocl_part part;
  int diag; /* the launch's C is the block at (i0, j0) of the call's: j0 - i0 */
  int m, n, k;
  float alpha, beta;
  double alpha_d, beta_d; /* the same, for HOP_OCL_DGEMM */
  bool ta, tb;
  cl_mem a, b, cin, cout;
  cl_ulong a_off, b_off, cin_off, cout_off;
  int lda, ldb, ldcin, ldcout;
};

/* ---- test knob: HOPBLAS_OPENCL_FAULT (fault.c) -------------------------- */

enum hop_ocl_fault_op {
  HOP_OCL_FAULT_BUILD,   /* program build */
  HOP_OCL_FAULT_ALLOC,   /* buffer creation */
  HOP_OCL_FAULT_ENQUEUE, /* kernel enqueue */
  HOP_OCL_FAULT_READ,    /* read-back of a C tile (of a part of one, staged) */
  HOP_OCL_FAULT_UPLOAD,  /* staged: upload of one chunk of an operand or C */
  HOP_OCL_FAULT_SHARE,   /* a split's shared A: one chunk packed by this device */
  HOP_OCL_FAULT_OPS
};

struct hop_ocl_fault {
  long at[HOP_OCL_FAULT_OPS];   /* fail the at-th operation; 0 = never */
  long seen[HOP_OCL_FAULT_OPS]; /* operations so far (under the state lock) */
};

/* ---- buffers kept across calls (transfer.c) ----------------------------- */

struct hop_ocl_slot {
  cl_mem mem;
  size_t size;
  void *host; /* staging buffers stay mapped: their pinned host image */
  bool read_only; /* kernels may not write it (CL_MEM_READ_ONLY) */
};

/* Slots in flight: of C, and of each operand (run.c uses 2 on the
 * zero-copy path and for image families, 3 staged, and up to
 * HOP_OCL_OP_SLOTS where a staged call keeps all of B's panels), and
 * pinned upload buffers of the staged path (HOP_OCL_RING unless
 * HOPBLAS_OPENCL_RING asks for up to HOP_OCL_RING_MAX; a split's shared
 * packing keeps HOP_OCL_RING). */
enum { HOP_OCL_SLOTS = 4, HOP_OCL_OP_SLOTS = 8, HOP_OCL_RING = 4, HOP_OCL_RING_MAX = 16 };

struct hop_ocl_pool {
  struct hop_ocl_slot dev[3][HOP_OCL_OP_SLOTS]; /* [A, B, C][slot] on the device (C: 4) */
  struct hop_ocl_slot stage[3][HOP_OCL_SLOTS]; /* pinned: C read-backs; image families' blocks */
  struct hop_ocl_slot ring[HOP_OCL_RING_MAX];  /* pinned: staged uploads, a chunk each */
  struct hop_ocl_slot batch[2];                /* a batch's problem descriptors: device, pinned */
  struct hop_ocl_slot shared;                  /* op(A) whole, shared by a split's parts (split_share.c) */
  struct hop_ocl_slot acc;                     /* C's sums over leading passes of k (run_lead.c) */
  struct hop_ocl_slot compact[2][HOP_OCL_OP_SLOTS]; /* a complex plane's blocks before spreading */
  struct hop_ocl_slot shared_ring[HOP_OCL_RING]; /* pinned: its one packing, on the first device */
  struct hop_ocl_copy *copy;                   /* threads for large host copies (copy.c) */
  bool copy_tried;
  size_t chunk;                                /* HOPBLAS_OPENCL_CHUNK, read on first use */
  int row_blocks;                              /* HOPBLAS_OPENCL_ROW_BLOCKS, read on first use */
  int ring_depth;                              /* HOPBLAS_OPENCL_RING, read on first use */
};

/* timeline.c: HOPBLAS_OPENCL_TIMELINE's record of a call's device commands. */
enum hop_ocl_tl_kind { HOP_OCL_TL_UP, HOP_OCL_TL_KERNEL, HOP_OCL_TL_DOWN, HOP_OCL_TL_SPREAD };
struct hop_ocl_tl_event {
  cl_event ev;
  enum hop_ocl_tl_kind kind;
  double host; /* hop_now() just after it was enqueued */
};
struct hop_ocl_timeline {
  struct hop_ocl_tl_event *e;
  size_t n, cap;
};
/* Is HOPBLAS_OPENCL_TIMELINE set (the queues then keep profiling times)? */
bool hop_ocl_timeline_wanted(void);
/* Keep ev (retained) as a command of that kind; nothing when tl is NULL. */
void hop_ocl_timeline_add(struct hop_ocl_timeline *tl, cl_event ev, enum hop_ocl_tl_kind kind);
/* After the queues finished: log the call's timeline (host0: its start,
 * hop_now()'s clock) and release what was kept. */
void hop_ocl_timeline_report(struct hop_ocl_timeline *tl, const struct hop_call *g, double host0,
                             double seconds);

/* One staged call's uploads through the ring, and its host time by phase. */
struct hop_ocl_stager {
  struct hop_ocl_timeline *tl;    /* HOPBLAS_OPENCL_TIMELINE: the call's record, else NULL */
  size_t chunk;                   /* bytes per upload (HOPBLAS_OPENCL_CHUNK) */
  int next;                       /* the ring buffer to fill next */
  cl_event sent[HOP_OCL_RING_MAX]; /* each ring buffer's last upload */
  long uploads;
  long spreads;                   /* complex blocks spread into planes on the device */
  double pack_s, unpack_s, wait_s; /* copying into / out of pinned memory, waiting on events */
  double enqueue_s;                /* sending the uploads to the queue */
  double pack_beside_s;            /* of pack_s: sending uploads while the copy threads pack */
  double queue_s;                  /* queueing the kernels and C's read-backs */
  double queue_beside_s;           /* of queue_s: while the copy threads packed or wrote C */
  double pack_bytes, unpack_bytes;
  /* Queue work (kernels, read-backs) held back to run beside the next host
   * copy, or before the host next waits (HOPBLAS_OPENCL_QUEUE_BESIDE); NULL: none. */
  void (*later)(void *);
  void *later_arg;
};

/* ---- cost model (engine.c) ---------------------------------------------- */

struct hop_ocl_model {
  double setup_s;      /* fixed cost of a call: the default for the kind of device */
  _Atomic double setup_learnt; /* corrected by the calls run (model_learn.c); 0: none yet */
  int calls_run;               /* the calls this device ran, under its lock */
  double link_bytes_s; /* host <-> device bandwidth (staged path only) */
  bool link_measured;  /* link_bytes_s measured when the engine opened, not a default */
  double peak_flops;   /* kernel rate the generic family reaches at large sizes */
  double half_size;    /* cbrt(m n k) at which it reaches half of that */
  double fp64_ratio;   /* double's share of that rate (0: no double) */
};

/* The launches of every family, counted by family.c: the queue window
 * (HOPBLAS_QUEUE_WINDOW) and the trace's note. */
struct hop_ocl_window {
  long count;           /* launches since the window's last wait */
  double slice_s;       /* with a window, longest predicted launch (HOPBLAS_QUEUE_SLICE_US) */
  long launches, waits; /* this call: kernel launches, window waits */
};

/* trsm's slab solver (kernels/trsm_slab.cl, level3_tri.c): one program per
 * precision, built on the first trsm that needs it, for slabs of nb. */
struct hop_ocl_trsm {
  int nb[2];            /* [float, double]: NBMAX it was built with, 0 = not built */
  bool failed[2];       /* the build failed: trsm declines in that precision */
  cl_program prog[2];
  cl_kernel kernel[2];  /* trsm_slab_wg where the device takes its work-group, else trsm_slab */
  size_t group[2];      /* trsm_slab_wg's work-group size; 0: kernel is trsm_slab */
};

/* The kernel that spreads a complex call's blocks into its doubled plane
 * (kernels/plane_spread.cl, plane_spread.c): [float, double], built on first use. */
struct hop_ocl_spread {
  bool failed[2]; /* the build failed: the host packs those planes */
  cl_program prog[2];
  cl_kernel kernel[2];
};

/* ---- the engine state: the one OpenCL runtime of the process ------------ */

struct hop_ocl_state {
  pthread_mutex_t lock; /* one call at a time on the queues and kernels */
  struct hop_ocl_device *devs;
  size_t ndev, dev;     /* every device found; the one in use */
  size_t *also, nalso;  /* HOPBLAS_DEVICE's other devices (a list, all): split.c's */
  char dev_why[160];
  cl_context ctx;
  cl_command_queue q[HOP_OCL_QUEUES];
  enum hop_ocl_memory memory;
  bool memory_chosen_by_user; /* HOPBLAS_OPENCL_MEMORY named one: every call takes it */
  char memory_why[160];
  char variant_why[160];
  const struct hop_ocl_family *family; /* generic, adreno, mali or nvidia (family.h) */
  void *fam;                           /* the chosen family's own state: its files alone read it */
  struct hop_ocl_window window;        /* the call's launches, the queue window (family.c) */
  struct hop_ocl_params params;
  char params_why[160];
  struct hop_ocl_program prog;
  struct hop_ocl_pool pool;
  size_t cap;           /* largest buffer (or wrapped host region) a call plans for */
  struct hop_ocl_model model;
  struct hop_ocl_tune *tune; /* parameters per size bucket, calibration (tune.h) */
  struct hop_ocl_fault fault;
  struct hop_ocl_trsm trsm;
  struct hop_ocl_spread spread;
  long queue_window;    /* HOPBLAS_QUEUE_WINDOW */
  bool flushes;         /* subnormal floats flushed: the device, or HOPBLAS_OPENCL_FTZ=1 */
  int failures;         /* consecutive failed calls */
  bool off;             /* switched off after repeated device failures */
  _Atomic bool declines; /* off, or no program: predict() says so without the lock */
  /* Several devices, or a CPU share, for large calls (split.c); NULL for
   * one device alone, which then pays nothing for it. */
  struct hop_ocl_split *split;
  /* While a split call's parts run: the op(A) they share (split_share.c), else NULL. */
  struct hop_ocl_shared *shared;
};

/* split_share.c: one packing of op(A) for every device of a column split. */
enum { HOP_OCL_SHARE_MAX = 16 };
struct hop_ocl_shared;
struct hop_ocl_op_slot;
bool hop_ocl_share_fits(struct hop_ocl_state *const *dev, int n, const struct hop_call *g);
struct hop_ocl_shared *hop_ocl_share_begin(struct hop_ocl_state *const *dev, int n,
                                           const struct hop_call *g);
bool hop_ocl_share_block(struct hop_ocl_state *st, struct hop_ocl_op_slot *o, int r0, int c0,
                         int rows, int cols);
/* Slot o as a view of op(A)'s rows [r0, r0 + rows) from k = 0, and in
 * *ready an event for when k in [k0, k0 + kb) of them is on the device
 * (leading passes, run_lead.c); false when it is not there. */
bool hop_ocl_share_slab(struct hop_ocl_state *st, struct hop_ocl_op_slot *o, int r0, int rows,
                        int k0, int kb, cl_event *ready);
void hop_ocl_share_end(struct hop_ocl_shared *sh);

/* runtime.c */
enum hop_status hop_ocl_runtime_open(struct hop_ocl_state *st, char *why, size_t len);
/* The same on device dev of first's list (another device of a split). */
enum hop_status hop_ocl_runtime_open_on(struct hop_ocl_state *st, const struct hop_ocl_state *first,
                                        size_t dev, char *why, size_t len);
void hop_ocl_runtime_close(struct hop_ocl_state *st);
void hop_ocl_runtime_describe(const struct hop_ocl_state *st, FILE *out);
const struct hop_ocl_device *hop_ocl_device(const struct hop_ocl_state *st);

/* engine.c: one device's state, opened, asked, run and closed, for the
 * engine's vtable and for split.c's other devices. */
enum hop_status hop_ocl_engine_open(struct hop_ocl_state *st, const struct hop_ocl_state *first,
                                    size_t dev, char *why, size_t len);
void hop_ocl_engine_close(struct hop_ocl_state *st);
double hop_ocl_engine_predict(const struct hop_ocl_state *st, const struct hop_call *g);
/* model_learn.c: the fixed cost the untuned model takes (the default, or
 * more as the calls run showed); whether a call teaches it; learn from one
 * (under the device's lock); one step of the estimate (setup, the default,
 * the rest of the call's prediction, its measured time, whether the first). */
double hop_ocl_model_setup(const struct hop_ocl_state *st);
bool hop_ocl_model_learns(const struct hop_ocl_state *st, const struct hop_call *g);
void hop_ocl_model_learn(struct hop_ocl_state *st, const struct hop_call *g, double measured_s);
double hop_ocl_model_setup_step(double setup, double fallback, double rest, double measured,
                                bool first);
/* The call on this device alone, under its lock; anything but HOP_OK leaves C untouched. */
enum hop_status hop_ocl_engine_call(struct hop_ocl_state *st, const struct hop_call *g);
void hop_ocl_engine_describe(struct hop_ocl_state *st, FILE *out);

/* split.c: large calls shared among several devices (HOPBLAS_DEVICE=0,1,
 * all) and, when asked, the CPU, each taking whole column panels of C in
 * proportion to its predicted rate.  Nothing when there is one device and
 * no CPU share (st->split stays NULL). */
void hop_ocl_split_open(struct hop_ocl_state *st);
void hop_ocl_split_release(struct hop_ocl_state *st);
/* The shared call's predicted time, given the first device's alone. */
double hop_ocl_split_predict(const struct hop_ocl_state *st, const struct hop_call *g,
                             double first);
enum hop_status hop_ocl_split_call(struct hop_ocl_state *st, const struct hop_call *g);
/* Is g shared by rows of C (a real GEMM taller than wide), else by columns? */
bool hop_ocl_split_by_rows(const struct hop_call *g);
/* The trace's note of this thread's last call when it was shared, else NULL. */
const char *hop_ocl_split_detail(void);
bool hop_ocl_split_flushes(const struct hop_ocl_state *st);
void hop_ocl_split_describe(struct hop_ocl_state *st, FILE *out);

/* split_learn.c: whether calls the model would share ran faster shared or
 * alone on the first device, by routine, dtype, shape (shared by rows or
 * by columns) and octave of flops (from 2^26, the smaller ones
 * together, to 2^49 and above). */
enum { HOP_OCL_SPLIT_OCTAVES = 24, HOP_OCL_SPLIT_FIRST_OCTAVE = 26 };
struct hop_ocl_split_class {
  _Atomic double rate[2];    /* flops/s alone [0] and shared [1]; 0: not measured */
  atomic_uint samples[2];    /* warm calls timed each way, the dropped first included */
  atomic_uint calls;
};
struct hop_ocl_split_learn {
  struct hop_ocl_split_class cls[HOP_OP_COUNT][HOP_DTYPE_COUNT][2][HOP_OCL_SPLIT_OCTAVES];
};
/* Should g, which the model would share, be shared (counts the call; why:
 * the trace's words for the choice)? */
bool hop_ocl_split_choose(struct hop_ocl_split_learn *l, const struct hop_call *g, char *why,
                          size_t len);
/* The same without counting: routing's prediction. */
bool hop_ocl_split_learnt_shared(struct hop_ocl_split_learn *l, const struct hop_call *g);
/* A warm call of g took seconds, shared or alone. */
void hop_ocl_split_learn(struct hop_ocl_split_learn *l, const struct hop_call *g, bool shared,
                         double seconds);

/* generic.c */
void hop_ocl_generic_params(const struct hop_ocl_device *d, struct hop_ocl_params *p, char *why,
                            size_t len);
bool hop_ocl_generic_params_fit(const struct hop_ocl_device *d, const struct hop_ocl_params *p,
                                char *why, size_t len);
void hop_ocl_generic_options(const struct hop_ocl_params *p, char *buf, size_t len);
const char *hop_ocl_generic_kernel_name(enum hop_ocl_kernel k);
cl_int hop_ocl_generic_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l,
                               cl_uint nwait, const cl_event *wait, cl_event *done);
/* The same launch of kernel kn, built with parameters p (same arguments);
 * slices > 1 adds a third dimension of that many work-groups (nvidia split-k). */
cl_int hop_ocl_generic_enqueue_with(struct hop_ocl_state *st, cl_kernel kn,
                                    const struct hop_ocl_params *p, const struct hop_ocl_launch *l,
                                    cl_uint slices, cl_uint nwait, const cl_event *wait,
                                    cl_event *done);

/* program.c: build once (cache or source); HOP_DECLINED after a failed build. */
enum hop_status hop_ocl_program_ready(struct hop_ocl_state *st);
void hop_ocl_program_release(struct hop_ocl_program *p);
/* The double kernel, built on the first call that needs it; false when there is none. */
bool hop_ocl_program_fp64(struct hop_ocl_state *st);
/* Does the program (or one of a family's several) hold kernel k? */
bool hop_ocl_program_has(const struct hop_ocl_program *pr, enum hop_ocl_kernel k);
/* plane_spread.c: its kernels released (the engine closes). */
void hop_ocl_spread_release(struct hop_ocl_state *st);
/* One program from the binary cache (keyed by label, source and options),
 * else from source, then stored; NULL with why on failure. */
cl_program hop_ocl_program_build(struct hop_ocl_state *st, const char *label, const char *src,
                                 const char *options, char *why, size_t len);
/* An auxiliary program (trsm's slab solver, the plane spreading kernel)
 * from its kernels/ files, as hop_ocl_program_build; a build that
 * HOPBLAS_OPENCL_FAULT counts. */
cl_program hop_ocl_program_aux(struct hop_ocl_state *st, const char *label,
                               const char *const *files, const char *options, char *why,
                               size_t len);

/* cache.c: on-disk program binaries, validated before use. */
bool hop_ocl_cache_load(const char *key, unsigned char **bin, size_t *len);
bool hop_ocl_cache_store(const char *key, const unsigned char *bin, size_t len);

/* fault.c */
/* The items of spec for device dev: those without @D, and those with @dev. */
void hop_ocl_fault_parse(struct hop_ocl_fault *f, const char *spec, size_t dev);
bool hop_ocl_fault_hit(struct hop_ocl_fault *f, enum hop_ocl_fault_op op);

/* copy.c: fn over columns [0, cols) of a copy of `bytes`, in shares on the
 * worker threads when it is large; returns when every share is done. */
typedef void hop_ocl_copy_fn(void *arg, int j0, int j1);
void hop_ocl_copy_columns(struct hop_ocl_state *st, size_t bytes, int cols, hop_ocl_copy_fn *fn,
                          void *arg);
/* The same, with beside(beside_arg) run on the calling thread while the
 * workers start on the copy (then it takes its share): the caller's own
 * work that touches none of the copy's bytes, hidden behind it. */
void hop_ocl_copy_columns_beside(struct hop_ocl_state *st, size_t bytes, int cols,
                                 hop_ocl_copy_fn *fn, void *arg, void (*beside)(void *),
                                 void *beside_arg);
int hop_ocl_copy_threads(struct hop_ocl_state *st);
/* The threads that copy (the caller included) once a call needs them:
 * HOPBLAS_OPENCL_COPY_THREADS, else every core for a discrete device and
 * half of them for unified memory, shared by the devices that share calls. */
int hop_ocl_copy_threads_wanted(const struct hop_ocl_state *st);
/* How many devices share calls (split.c): each pool takes its share of the cores. */
void hop_ocl_copy_devices(int devices);
/* copy_stream.c: memcpy for copies nothing reads again soon (streaming
 * stores on x86, 32 bytes wide where the CPU has AVX2), visible to other
 * threads on return. */
void hop_ocl_copy_bytes(void *dst, const void *src, size_t n);
/* The same with stores `width` (16 or 32) bytes wide, for the tests;
 * returns the width it used: 0 (memcpy) for short copies, other widths and
 * CPUs without streaming stores; 16 for 32 where the CPU or build has no AVX2. */
int hop_ocl_copy_bytes_wide(void *dst, const void *src, size_t n, int width);
void hop_ocl_copy_release(struct hop_ocl_state *st);

/* transfer.c: pool buffers and host <-> block copies. */
cl_int hop_ocl_slot_ensure(struct hop_ocl_state *st, struct hop_ocl_slot *s, size_t size,
                           cl_mem_flags flags, bool mapped);
void hop_ocl_pool_release(struct hop_ocl_state *st);
cl_mem hop_ocl_wrap(struct hop_ocl_state *st, const void *first, size_t bytes, size_t esize,
                    cl_ulong *off, cl_int *err);
void hop_ocl_pack(struct hop_ocl_state *st, const void *x, int ld, size_t esize, int row0,
                  int col0, int rows, int cols, void *dst);
void hop_ocl_pack_view(struct hop_ocl_state *st, const struct hop_plane_view *v, int row0,
                       int col0, int rows, int cols, void *dst);
/* C' of a view call (g->planes) goes into C's parts.  sg (or NULL): its
 * later work runs on the calling thread while the copy threads write C. */
size_t hop_ocl_unpack_c(struct hop_ocl_state *st, struct hop_ocl_stager *sg,
                        const struct hop_call *g, bool accumulated, const void *src, int i0, int j0,
                        int rows, int cols);
enum hop_status hop_ocl_status(cl_int err);
cl_int hop_ocl_wait(struct hop_ocl_state *st, cl_event ev);
cl_int hop_ocl_stage_upload(struct hop_ocl_state *st, struct hop_ocl_stager *sg, const void *x,
                            const struct hop_plane_view *view, int ld, size_t esize, int row0,
                            int col0, int rows, int cols, cl_mem dev, cl_event after,
                            cl_event *done);
/* The same block into (dev_r0, dev_c0) of a column-major dev of leading
 * dimension dev_ld, after `after` (NULL: at once). */
cl_int hop_ocl_stage_upload_into(struct hop_ocl_state *st, struct hop_ocl_stager *sg,
                                 const void *x, const struct hop_plane_view *view, int ld,
                                 size_t esize, int row0, int col0, int rows, int cols, cl_mem dev,
                                 int dev_ld, int dev_r0, int dev_c0, cl_event after,
                                 cl_event *done);
/* The same block into the same (row0, col0) of a column-major dev of leading dimension dev_ld. */
cl_int hop_ocl_stage_upload_at(struct hop_ocl_state *st, struct hop_ocl_stager *sg, const void *x,
                               int ld, size_t esize, int row0, int col0, int rows, int cols,
                               cl_mem dev, int dev_ld, cl_event *done);
void hop_ocl_stager_end(struct hop_ocl_stager *sg);
/* The staged uploads' pinned buffers in turn (HOPBLAS_OPENCL_RING, else HOP_OCL_RING). */
int hop_ocl_ring_depth(const struct hop_ocl_state *st);
/* Run sg->later (when set): the queue work held for the next host copy. */
void hop_ocl_stager_later(struct hop_ocl_stager *sg);
/* Wait for ev (hop_ocl_wait), counted in sg->wait_s; where the host is to
 * block, sg's later work is queued first. */
cl_int hop_ocl_stager_wait(struct hop_ocl_state *st, struct hop_ocl_stager *sg, cl_event ev);

/* plan.c: how a call is cut into tiles that fit the device's buffers. */
struct hop_ocl_plan {
  int max_tm, max_tn, max_tk; /* in: the family's largest block (image size), 0 = any */
  int row_blocks;       /* in: staged, A whole: cut it into this many row blocks (0, 1: not) */
  int tm, tn, tk;       /* tile of C and k chunk */
  int tiles_m, tiles_n, chunks;
  bool by_columns;      /* A in row blocks, all held on the device: tiles in groups of panels */
  int group;            /* by_columns: panels per group, each group row block by row block */
  bool ksplit;          /* k in several chunks: the device accumulates in float */
  bool beta_host;       /* the device computes alpha op(A) op(B); the host adds beta C */
  enum hop_ocl_kernel kernel;
  size_t c_esize;       /* bytes of a C element on the device */
};
/* The kernel that computes dtype dt; a cut k (ksplit) accumulates in float
 * chunks, so half C runs the shgemm kernel then.  False: no kernel for dt. */
bool hop_ocl_kernel_for(enum hop_dtype dt, bool ksplit, enum hop_ocl_kernel *out);
/* Bytes of an element of a cut k's partial sums: double for d, else float. */
size_t hop_ocl_acc_size(enum hop_dtype dt);
/* Does the host add beta C while writing C (plan.c), rather than the
 * device reading C?  Then C never goes up to the device. */
bool hop_ocl_beta_on_host(const struct hop_call *g, enum hop_ocl_memory mem, bool ksplit);
bool hop_ocl_plan_make(const struct hop_call *g, enum hop_ocl_memory mem, size_t cap,
                       struct hop_ocl_plan *p);

/* run.c: A's row blocks in a staged call (HOPBLAS_OPENCL_ROW_BLOCKS). */
int hop_ocl_row_blocks(struct hop_ocl_state *st);
/* run.c: bytes per upload and per read-back part (HOPBLAS_OPENCL_CHUNK, else 8 MiB;
 * a large call may take more, hop_ocl_call_chunk). */
size_t hop_ocl_chunk_bytes(struct hop_ocl_state *st);
/* The same without keeping it (hopblas info). */
size_t hop_ocl_chunk_planned(const struct hop_ocl_state *st);
/* A staged call's bytes per upload: `planned`, or 16 MiB for a call with
 * ab_bytes of A and B of 1 GiB or more where the chunk is not configured. */
size_t hop_ocl_call_chunk(size_t planned, bool configured, double ab_bytes, size_t cap);
/* run.c: the whole call; C is final, or untouched (error status returned). */
enum hop_status hop_ocl_run(struct hop_ocl_state *st, const struct hop_call *g);

/* batch.c: a batch of GEMMs in one launch of the family's batched kernel
 * (declined where it has none); C final, or untouched with an error status. */
enum hop_status hop_ocl_batch_run(struct hop_ocl_state *st, const struct hop_call *g);
double hop_ocl_batch_predict(const struct hop_ocl_state *st, const struct hop_call *g);


#endif
