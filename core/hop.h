/* Internal interface shared by the API shims, core/ and the backends.
 *
 * A GEMM reaches core/ as one column-major struct hop_call; the shims have
 * already checked the arguments and swapped row-major calls.  Backends see
 * only this struct and answer with a status (see doc/CONTRACT.md). */
#ifndef HOP_H
#define HOP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HOP_EXPORT __attribute__((visibility("default")))

enum hop_dtype {
  HOP_DTYPE_S,  /* float A, B, C, alpha, beta */
  HOP_DTYPE_H,  /* half A, B, C; alpha/beta given as half, carried as float */
  HOP_DTYPE_SH, /* half A, B; float C, alpha, beta (OpenBLAS 0.3.31 shgemm) */
};

/* One column-major GEMM: C = alpha * op(A) * op(B) + beta * C.
 * op(A) is m x k, op(B) is k x n.  Indexing must use size_t: lda * k may
 * exceed INT_MAX even when every argument fits in an int. */
struct hop_call {
  enum hop_dtype dtype;
  const char *symbol; /* entry point, for the trace: "cblas_sgemm", "sgemm_", ... */
  bool row_major;     /* the caller's layout (already swapped away), for the trace */
  bool ta, tb;        /* op(X) = X^T (ConjTrans is Trans for real types) */
  int m, n, k;
  float alpha, beta;
  const void *a;
  int lda;
  const void *b;
  int ldb;
  void *c;
  int ldc;
};

/* Element sizes in bytes of A/B and of C for a dtype. */
size_t hop_dtype_ab_size(enum hop_dtype dt);
size_t hop_dtype_c_size(enum hop_dtype dt);
const char *hop_dtype_name(enum hop_dtype dt);
double hop_call_flops(const struct hop_call *g);

/* Internal status codes; every one has a message in core/status.c. */
enum hop_status {
  HOP_OK = 0,
  HOP_DECLINED,      /* the engine does not take this call; the next one runs */
  HOP_UNAVAILABLE,   /* the engine could not start (no device, no driver) */
  HOP_ERR_NOMEM,     /* host allocation failed */
  HOP_ERR_DEVICE,    /* device call failed (enqueue, lost device, ...) */
  HOP_ERR_BUILD,     /* kernel or program build failed */
  HOP_ERR_DEVMEM,    /* device allocation failed */
  HOP_ERR_CONFIG,    /* bad configuration value */
  HOP_ERR_CACHE,     /* unreadable or hostile cache content */
  HOP_ERR_INTERNAL,  /* a bug: an invariant did not hold */
  HOP_STATUS_COUNT
};
const char *hop_status_message(enum hop_status st);

/* A CPU BLAS's own sgemm entry points (the fast path calls them directly). */
typedef void (*hop_cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                                   const float *, int, float, float *, int);
typedef void (*hop_f77_sgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                                 const float *, const float *, const int *, const float *,
                                 const int *, const float *, float *, const int *, size_t, size_t);

/* ---- engines ------------------------------------------------------------
 * An engine is a folder behind one const vtable, listed once in
 * backends/registry.c.  State an engine keeps lives behind the opaque
 * pointer its init() returns; core/ owns the slot and the once-only init. */
struct hop_backend {
  const char *name;    /* "cpu", "opencl", "videocore-emu", ... */
  bool is_device;      /* not the CPU: offloaded calls are verified, MIN_FLOPS applies */
  bool fork_safe;      /* may the child of a fork() keep using the state? */
  bool only_when_named; /* routed to only when HOPBLAS_BACKEND names it (test engines,
                         * emulators whose times would mislead the router) */
  /* Start the engine once.  On failure write one line in why and return a
   * status; the engine then stays off for the life of the process. */
  enum hop_status (*init)(void **state, char *why, size_t why_len);
  /* Predicted seconds for the call, negative when the engine cannot take it. */
  double (*predict)(void *state, const struct hop_call *g);
  /* Run the call.  Anything but HOP_OK must leave C untouched. */
  enum hop_status (*run)(void *state, const struct hop_call *g);
  /* Lines for `hopblas info` (devices, families, why). May be NULL. */
  void (*describe)(void *state, FILE *out);
  /* A short note on how this thread's last successful gemm() ran (e.g. the
   * kernel family), appended to the trace's why column. May be NULL. */
  const char *(*detail)(void *state);
  /* Does the device flush subnormal floats to zero?  NULL: never.  The
   * router then declines it calls with subnormal inputs, and its gemm()
   * recomputes results below hop_subnormal_limit() (core/subnormal.c). */
  bool (*flushes)(void *state);
  /* Give back everything init() made: device objects, threads (joined),
   * memory, libraries it loaded.  Called once, when the library itself is
   * unloaded (dlclose) and no call is in flight; never at exit (see
   * core/context.c).  NULL when the engine holds nothing. */
  void (*release)(void *state);
  /* The last engine only, which never declines: its BLAS's own entry points
   * for the tiny-call fast path (both NULL when it has none).  May be NULL. */
  void (*direct)(void *state, hop_cblas_sgemm_fn *cblas, hop_f77_sgemm_fn *f77);
  /* Tuning, calibration and resident timing for the tools and the
   * benchmark (core/engine_tools.h); NULL when the engine has none. */
  const struct hop_engine_tools *tools;
};

/* The registry, in preference order; the CPU engine is always last. */
extern const struct hop_backend *const hop_backends[];
extern const size_t hop_backend_count;

/* ---- configuration (core/config.c) ------------------------------------ */
enum hop_verify_mode { HOP_VERIFY_OFF, HOP_VERIFY_LOG, HOP_VERIFY_FALLBACK };

struct hop_config {
  int verbose;                 /* HOPBLAS_VERBOSE 0..3 */
  char backend[32];            /* HOPBLAS_BACKEND: "auto" or an engine name */
  double min_flops;            /* HOPBLAS_MIN_FLOPS; < 0 when unset (auto) */
  double device_floor_flops;   /* auto routing: below this, engines are not asked */
  enum hop_verify_mode verify; /* HOPBLAS_VERIFY */
  char trace_path[4096];       /* HOPBLAS_TRACE, "" when off */
  char cpu_blas[4096];         /* HOPBLAS_CPU_BLAS, "" for the defaults */
  char config_file[4096];      /* HOPBLAS_CONFIG_FILE, "" when none */
};

/* Look a key up: environment first, then HOPBLAS_CONFIG_FILE, else NULL.
 * Path-valued keys go through secure_getenv.  Engines read their own keys
 * (HOPBLAS_DEVICE, HOPBLAS_OPENCL_VARIANT, ...) through this. */
const char *hop_config_get(const char *key);
bool hop_config_is_path_key(const char *key);
/* Parse a key's value as a bounded integer; out of range: log, return dflt. */
long hop_config_int(const char *key, long lo, long hi, long dflt);
double hop_config_double(const char *key, double lo, double hi, double dflt);
/* Every known key, with a one-line description (doc/ENVIRONMENT.md lists them too). */
struct hop_config_key {
  const char *name;
  const char *help;
};
extern const struct hop_config_key hop_config_keys[];

/* The cache directory (core/paths.c); false when none can be named. */
bool hop_cache_dir(char *out, size_t len);
/* What both caches (tuning, program binaries) use on their directories and files. */
struct stat;
void hop_mkdir_private(char *path);
bool hop_stat_private(const struct stat *sb);
#define HOP_HASH_SEED 14695981039346656037ull
uint64_t hop_hash_fnv1a(const void *data, size_t len, uint64_t h);
/* SIGPIPE and SIGXFSZ held back around hopblas's writes and device calls
 * (core/paths.c): never a signal that kills the host. */
struct hop_sighold {
  sigset_t old;
};
void hop_sighold_begin(struct hop_sighold *h);
void hop_sighold_end(struct hop_sighold *h);
enum hop_write_result { HOP_WRITE_OK, HOP_WRITE_AGAIN, HOP_WRITE_FAILED };
enum hop_write_result hop_write_nosignal(int fd, const void *buf, size_t len, size_t *done);
bool hop_write_all(int fd, const void *buf, size_t len);
int hop_open_regular(const char *path, int flags, unsigned mode);

/* ---- runtime context (core/context.c) ---------------------------------- */
const struct hop_config *hop_config(void); /* creates the context on first use */

/* An engine, started on first use; NULL if it is off (why says why). */
struct hop_engine_view {
  const struct hop_backend *be;
  void *state;
  enum hop_status status;
  const char *why;
};
void hop_engine_get(size_t index, struct hop_engine_view *out);
/* Same without starting it (for `hopblas info` and cheap routing). */
void hop_engine_peek(size_t index, struct hop_engine_view *out);
size_t hop_engine_index(const char *name); /* hop_backend_count if unknown */

/* ---- logging ------------------------------------------------------------ */
/* Level 1 = problems (a fallback, a bad value), 2 = decisions, 3 = detail. */
void hop_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the call path (core/gemm.c, core/route.c) ------------------------- */
void hop_call_run(const struct hop_call *g);

struct hop_route_result {
  bool explain;                     /* fill why (only when tracing: formatting costs) */
  const struct hop_backend *engine; /* who produced C (NULL: core/ itself) */
  char why[160];
  const char *verify;               /* verify verdict for the trace, "" when off */
};
/* Route and run; always completes the call (the CPU engine cannot decline). */
void hop_route_run(const struct hop_call *g, struct hop_route_result *res);

/* ---- per-thread re-entrancy guard (core/context.c) ---------------------
 * A real BLAS that calls back into our exported names (netlib CBLAS calls
 * sgemm_ through the PLT) must land on the CPU engine, not re-route. */
int hop_reentry_depth(void);
void hop_reentry_enter(void);
void hop_reentry_leave(void);

/* ---- trace (core/trace.c), verify (core/verify.c) ---------------------- */
/* One row per call: routed calls (hop_trace_row, from core/gemm.c), and
 * the calls the shims finish themselves, quick returns and argument errors
 * (hop_trace_unrouted, with the arguments as the caller passed them). */
bool hop_trace_on(void);
void hop_trace_row(const struct hop_call *g, const char *engine, const char *why, double seconds,
                   const char *verify);
struct hop_trace_call {
  const char *symbol;
  enum hop_dtype dtype;
  int m, n, k;
  char transa, transb;
};
void hop_trace_unrouted(const struct hop_trace_call *c, const char *engine, const char *why);
char hop_trace_cblas_trans(int t);
char hop_trace_fortran_trans(char t);
/* Write buffered rows now; release also closes the file (library unload). */
void hop_trace_flush(void);
void hop_trace_release(void);

/* Snapshot of C taken before an offloaded call, for verify mode. */
struct hop_verify_snapshot {
  void *c; /* m x n copy of C (ld = m), NULL when beta == 0 or verify is off */
  bool active;
};
bool hop_verify_begin(const struct hop_call *g, struct hop_verify_snapshot *snap);
/* Compare C with an OpenBLAS recomputation; maybe replace.  Returns the
 * verdict for the trace: "ok", "bad", "replaced" or "skipped". */
const char *hop_verify_end(const struct hop_call *g, struct hop_verify_snapshot *snap);

/* ---- engines that flush subnormals (core/subnormal.c) ------------------ */
/* Does a float input (A, B, C when beta != 0, alpha, beta) hold a subnormal? */
bool hop_subnormal_inputs(const struct hop_call *g);
/* Results below this magnitude may have been moved by a flush beyond the
 * contract's bound: recompute them with hop_subnormal_redo before C(i, j)
 * is written (it reads C's old value when beta != 0). */
float hop_subnormal_limit(const struct hop_call *g);
float hop_subnormal_redo(const struct hop_call *g, int i, int j);

/* ---- the fallback: the registry's last engine (core/context.c) ----------
 * It never declines and never fails: core/ sends it re-entrant calls and
 * verify's references, and an engine may finish a part of a call with it. */
void hop_fallback_run(const struct hop_call *g);

/* ---- the tiny-call fast path (core/fast_path.c) ------------------------
 * Calls that routing would send to the CPU anyway go straight to OpenBLAS's
 * own entry point, with OpenBLAS doing the argument checks (it reports the
 * same INFO through the same xerbla_): the interposition then costs a
 * handful of instructions instead of a trip through core/. */
struct hop_fast_path {
  uint64_t max_mnk; /* m*n*k below this (and alpha != 0) goes straight to OpenBLAS */
  hop_cblas_sgemm_fn cblas_sgemm;
  hop_f77_sgemm_fn sgemm;
};
/* hop_fast_path_off (max_mnk 0: no call qualifies, so the entry points
 * need no NULL test) until the first call through core/ has set it up, or
 * for good when off (tracing, a forced device engine, no OpenBLAS).  Read
 * inline: the entry points must reach OpenBLAS without saving their
 * arguments around a call. */
extern const struct hop_fast_path hop_fast_path_off;
extern const struct hop_fast_path *hop_fast_path_ready; /* __atomic_* access only */
static inline const struct hop_fast_path *hop_fast_path(void)
{
  return __atomic_load_n(&hop_fast_path_ready, __ATOMIC_ACQUIRE);
}
void hop_fast_path_prepare(void);
/* The fast path takes calls whose leading dimensions are all below 2^11
 * and whose m*n*k is below max_mnk <= 2^20.  Then every element offset fits
 * in an int, which OpenBLAS kernels may index with (core/ cuts larger calls
 * into slices whose offsets fit): m and k are below some ld, n below 2^20.
 * With valid arguments m*k < 2^22 and the product fits in 64 bits;
 * invalid ones wrap (unsigned, no undefined behaviour) and OpenBLAS or
 * core/ reports them.  A few instructions: the interposition stays cheap. */
#define HOP_FAST_PATH_MAX_MNK 1048576.0
#define HOP_FAST_PATH_LD_LIMIT 2048u
/* alpha != 0 (NaN counts as non-zero, -0 as zero) in three instructions. */
static inline bool hop_float_nonzero(float f)
{
  uint32_t bits;
  __builtin_memcpy(&bits, &f, sizeof bits);
  return (bits << 1) != 0;
}
static inline uint64_t hop_fast_path_mnk(int m, int n, int k)
{
  return (uint64_t)(int64_t)m * (uint64_t)(int64_t)k * (uint64_t)(int64_t)n;
}

/* ---- half precision (core/half.c) -------------------------------------- */
float hop_half_to_float(uint16_t h);
uint16_t hop_float_to_half(float f); /* round to nearest even, overflow to inf */
void hop_half_to_float_n(const uint16_t *src, float *dst, size_t n);
void hop_float_to_half_n(const float *src, uint16_t *dst, size_t n);

/* Column-major element address helpers (size_t arithmetic, never int). */
static inline size_t hop_at(int row, int col, int ld) {
  return (size_t)row + (size_t)col * (size_t)ld;
}

#endif
