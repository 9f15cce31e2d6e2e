/* The OpenCL engine's tuner (DESIGN §6): each kernel family's
 * parameter space, the search over it (tune.c), the one lookup chain that
 * gives a call its parameters (tune_select.c: user cache -> built-in table
 * by device, family, vendor -> the family's default), the built-in table
 * (tune_table.c) and the calibration of the cost model (tune_calib.c). */
#ifndef HOP_OCL_TUNE_H
#define HOP_OCL_TUNE_H

#include "family.h"
#include "tune_cache.h"

/* ---- parameter spaces ------------------------------------------------------
 * A family's tunables as named integers, "NAME=V,NAME=V" in the cache and
 * the table.  A family registers its space in tune_space.c's list. */
enum { HOP_TUNE_PARAMS = 12 };

struct hop_tune_point {
  int v[HOP_TUNE_PARAMS]; /* in the order of the space's names */
};

/* Resident operands of one square sgemm, the tuner's test problem. */
struct hop_tune_bench {
  int n;
  cl_mem a, b, c;      /* n x n floats each, column-major */
  const float *ha, *hb; /* their host copies */
  /* Image families: operands as the family packed them, [problem][A, B]
   * (problem 0: n x n x n, 1: the odd check), valid while key matches. */
  cl_mem op[2][2];
  int op_ld[2][2];
  uint64_t op_key[2];
  /* The check: the odd problem's C, the references and their error scales, C read back. */
  cl_mem odd_c;
  float *ref, *bound, *odd_ref, *odd_bound, *out;
};

struct hop_tune_space {
  const char *const *names; /* NULL-terminated, at most HOP_TUNE_PARAMS */
  const char *const *knobs; /* configuration keys that set them: when one is set, the user's choice stands */
  unsigned rebuild;         /* bit i: parameter i is compiled in (the others apply at launch) */
  /* The parameters the engine has now; then, for a build, the new ones. */
  void (*get)(const struct hop_ocl_state *st, struct hop_tune_point *p);
  void (*set)(struct hop_ocl_state *st, const struct hop_tune_point *p);
  /* Can this device run them (local memory, work-group limits)? */
  bool (*fits)(const struct hop_ocl_state *st, const struct hop_tune_point *p, char *why,
               size_t len);
  /* Candidates of one stage of the search, around best; 0 when the stage
   * is past the last.  kwg bounds the work-group (CL_KERNEL_WORK_GROUP_SIZE
   * of the default's build, within the device's limits). */
  size_t (*stage)(const struct hop_ocl_state *st, int stage, const struct hop_tune_point *best,
                  int n, size_t kwg, struct hop_tune_point *out, size_t max);
  /* One launch of C(m x n) = alpha op(A) op(B) + beta C on the bench's
   * buffers, with the program in st->prog; the event is the kernel's. */
  cl_int (*launch)(struct hop_ocl_state *st, struct hop_tune_bench *b,
                   const struct hop_ocl_launch *l, cl_event *done);
  /* Where the family's default parameters came from, for `hopblas info`. */
  void (*origin)(const struct hop_ocl_state *st, char *buf, size_t len);
};

extern const struct hop_tune_space hop_tune_space_generic, hop_tune_space_adreno,
  hop_tune_space_mali;

/* tune_bench.c: the test problem and the check against the reference. */
enum { HOP_TUNE_ODD_M = 67, HOP_TUNE_ODD_N = 45, HOP_TUNE_ODD_K = 33 };
bool hop_tune_bench_open(struct hop_ocl_state *st, int n, struct hop_tune_bench *b, char *why,
                         size_t len);
void hop_tune_bench_close(struct hop_tune_bench *b);
struct hop_ocl_launch hop_tune_bench_main(const struct hop_tune_bench *b);
/* Both problems through the space's launch, compared with the references:
 * NULL when right, else what was wrong.  make_wrong spoils one element
 * first (HOPBLAS_TUNE_FAULT), to show that the check refuses it. */
const char *hop_tune_bench_check(struct hop_ocl_state *st, const struct hop_tune_space *sp,
                                 struct hop_tune_bench *b, bool make_wrong);
/* Helpers of the spaces: add p to out[0, n) unless there (returns the new n);
 * the device's largest work-group per dimension. */
size_t hop_tune_push(struct hop_tune_point *out, size_t n, size_t max,
                     const struct hop_tune_point *p);
void hop_tune_item_limits(const struct hop_ocl_state *st, size_t lim[2]);

const struct hop_tune_space *hop_tune_space_of(const struct hop_ocl_family *f);
void hop_tune_point_format(const struct hop_tune_space *s, const struct hop_tune_point *p,
                           char *buf, size_t len);
/* "NAME=V,..." over base; false when a name is unknown or a value not a number in [0, 4096]. */
bool hop_tune_point_parse(const struct hop_tune_space *s, const char *text,
                          struct hop_tune_point *p);
bool hop_tune_point_equal(const struct hop_tune_point *a, const struct hop_tune_point *b);

/* ---- the search (tune.c) ---------------------------------------------------- */
struct hop_tune_opts {
  int n;                /* the test problem: n x n x n sgemm */
  double budget_s;      /* stop starting candidates after this; the default is always measured */
  long wrong_at;        /* test knob HOPBLAS_TUNE_FAULT=wrong:N: candidate N computes wrongly */
  void (*progress)(int tried, double spent, double budget, void *arg);
  void *arg;
};

struct hop_tune_result {
  struct hop_tune_point best, dflt;
  double best_gflops, dflt_gflops; /* kernel rates (profiling events, resident operands) */
  int tried, rejected;             /* candidates measured (the default included), refused */
  int stages_done, stages;
  double spent_s, budget_s;
  bool budget_hit;                 /* stopped because the budget was spent */
  char why[160];                   /* on failure */
};

/* Under the engine's lock.  Leaves the engine's program as it was. */
bool hop_ocl_tune_run(struct hop_ocl_state *st, const struct hop_tune_opts *o,
                      struct hop_tune_result *r);
/* The parameters tuning is measured against: the lookup chain without the
 * user cache (built-in table, else the family's default; HOPBLAS_OPENCL_PARAMS
 * when the user set it).  False when the family has no space. */
bool hop_ocl_tune_default(const struct hop_ocl_state *st, struct hop_tune_point *p, char *note,
                          size_t len);
/* Store r for the size bucket of n (and flush the cache file). */
void hop_ocl_tune_store(struct hop_ocl_state *st, int n, const struct hop_tune_result *r);

/* ---- the lookup chain (tune_select.c) -------------------------------------- */
enum { HOP_TUNE_BUCKETS = 10, HOP_TUNE_BUCKET_MIN = 5 }; /* n = 32 ... 16384 */
int hop_tune_bucket(double size);            /* index of cbrt(m n k)'s power of two */
int hop_tune_bucket_size(int bucket);        /* its n */
void hop_ocl_tune_scope(const struct hop_ocl_state *st, char *buf, size_t len);
/* Once, at engine start: the family's default and the tuning state. */
void hop_ocl_tune_attach(struct hop_ocl_state *st);
/* The tuning state and the programs it keeps built, when the engine is released. */
void hop_ocl_tune_release(struct hop_ocl_state *st);
/* Before a call, under the lock: the parameters for g's bucket and their program. */
enum hop_status hop_ocl_tune_select(struct hop_ocl_state *st, const struct hop_call *g);
const char *hop_ocl_tune_detail(void *state);
void hop_ocl_tune_describe(struct hop_ocl_state *st, FILE *out);
/* Forget what the lookup chain resolved, after new results were stored. */
void hop_ocl_tune_forget(struct hop_ocl_state *st);

/* ---- the built-in table (tune_table.c) ------------------------------------- */
/* The table's parameters for this device and family, over *p; the note says which entry. */
bool hop_tune_table_lookup(const struct hop_ocl_state *st, const struct hop_tune_space *s,
                           struct hop_tune_point *p, char *note, size_t len);

/* ---- calibration of the cost model (tune_calib.c) -------------------------- */
struct hop_ocl_calib {
  bool have;
  double setup_s, link_bytes_s;
  struct hop_curve rate;   /* effective GFLOPS of whole calls, by size */
  bool have_d;             /* the double kernel's curve too (a record of its own) */
  struct hop_curve rate_d; /* the same for dgemm calls */
};
void hop_ocl_calib_load(struct hop_ocl_state *st, struct hop_ocl_calib *c);
bool hop_ocl_calib_measure(struct hop_ocl_state *st, const int *sizes, double budget_s,
                           struct hop_ocl_calib *out,
                           void (*progress)(int done, int count, void *arg), void *arg);
/* Pinned host <-> device bandwidth, bytes per second (negative: not measured). */
double hop_ocl_link_bandwidth(struct hop_ocl_state *st, size_t max_bytes);
/* The engine's calibration (tune_select.c keeps it), NULL without tuning state. */
struct hop_ocl_calib *hop_ocl_tune_calib(const struct hop_ocl_state *st);
/* Predicted seconds of g from the calibration; negative when there is none. */
double hop_ocl_calib_seconds(const struct hop_ocl_state *st, const struct hop_call *g);
void hop_ocl_calib_describe(const struct hop_ocl_state *st, const struct hop_ocl_calib *c,
                            FILE *out);

/* ---- for the tools and the benchmark (core/engine_tools.h) ----------------- */
/* tools_tune.c: the vtable's tools entries; tools_resident.c: resident timing. */
extern const struct hop_engine_tools hop_ocl_tools;
struct hop_resident;
bool hop_ocl_resident_ready(void *state, char *why, size_t len);
struct hop_resident *hop_ocl_resident_open(void *state, const struct hop_call *g, char *note,
                                           size_t len);
bool hop_ocl_resident_call(struct hop_resident *r, const char **failed);
bool hop_ocl_resident_read(struct hop_resident *r, void *c);
void hop_ocl_resident_note(struct hop_resident *r, char *note, size_t len);
void hop_ocl_resident_close(struct hop_resident *r);
bool hop_ocl_handles(void *state, void **context, void **queue, void **device);

#endif
