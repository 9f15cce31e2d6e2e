/* Internal interface shared by the API shims, core/ and the backends.
 *
 * A call reaches core/ as one column-major struct hop_call; the shims have
 * already checked the arguments and swapped row-major calls.  Backends see
 * only this struct and answer with a status (see doc/CONTRACT.md). */
#ifndef HOP_H
#define HOP_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HOP_EXPORT __attribute__((visibility("default")))

/* The precisions.  Code that depends on one switches over them without a
 * default (-Werror=switch), so the compiler names every place a new one
 * must be handled; their facts live in one table (core/dtype.c). */
enum hop_dtype {
  HOP_DTYPE_S,  /* float A, B, C, alpha, beta */
  HOP_DTYPE_D,  /* double */
  HOP_DTYPE_C,  /* complex float: (re, im) pairs of floats */
  HOP_DTYPE_Z,  /* complex double */
  HOP_DTYPE_H,  /* half A, B, C; alpha/beta given as half, carried exactly */
  HOP_DTYPE_SH, /* half A, B; float C, alpha, beta (OpenBLAS 0.3.31 shgemm) */
  HOP_DTYPE_COUNT
};
#define HOP_DTYPE_BIT(dt) (1u << (dt))

struct hop_dtype_info {
  const char *name;       /* "s", "d", "c", "z", "h", "sh": the trace's and bench's word */
  size_t ab_size, c_size; /* bytes per element of A and B, of C */
  bool is_complex;
  double flops_per_fma;   /* real operations per multiply-add: 2, or 8 for complex */
  double eps;             /* unit roundoff of the arithmetic a correct engine accumulates in */
  double out_eps;         /* and of the stored C when narrower (half C), else 0 */
  double tiny;            /* the accumulation type's smallest subnormal */
};
const struct hop_dtype_info *hop_dtype_info(enum hop_dtype dt);
size_t hop_dtype_ab_size(enum hop_dtype dt);
size_t hop_dtype_c_size(enum hop_dtype dt);
const char *hop_dtype_name(enum hop_dtype dt);
/* The real dtype a complex one's parts are (c: s, z: d); any other as it is. */
enum hop_dtype hop_dtype_real(enum hop_dtype dt);

/* Scalars and elements of any dtype as double parts (im = 0 for real ones):
 * wide enough for double complex, exact for every narrower type. */
struct hop_scalar {
  double re, im;
};
/* Element at of A or B (from_c false) or of C (from_c true). */
struct hop_scalar hop_dtype_load(enum hop_dtype dt, bool from_c, const void *p, size_t at);
/* Store into C, rounded to C's type. */
void hop_dtype_store(enum hop_dtype dt, void *c, size_t at, struct hop_scalar v);
static inline bool hop_scalar_is_zero(struct hop_scalar s) { return s.re == 0.0 && s.im == 0.0; }

/* The operations; each engine declares which it takes in which dtypes.
 * HEMM, HERK and HER2K are complex only (the entry points make no others).
 * GEMM_BATCH is many GEMMs in one call (struct hop_batch). */
enum hop_op {
  HOP_OP_GEMM,
  HOP_OP_SYMM,
  HOP_OP_HEMM,
  HOP_OP_SYRK,
  HOP_OP_HERK,
  HOP_OP_SYR2K,
  HOP_OP_HER2K,
  HOP_OP_TRMM,
  HOP_OP_TRSM,
  HOP_OP_GEMMT,
  HOP_OP_GEMM_BATCH,
  HOP_OP_COUNT
};
const char *hop_op_name(enum hop_op op); /* "gemm", "symm", ..., "gemm_batch" */

/* op(X), as bits: transposed, conjugated.  C is the conjugate transpose;
 * R conjugates without transposing (OpenBLAS's extension, 'R' and
 * CblasConjNoTrans).  The shims give real dtypes only N and T ('C' is 'T'
 * and 'R' is 'N' there, as in OpenBLAS), so for them `g->ta ? ... : ...`
 * reads "transposed"; code for complex dtypes asks hop_transposed() and
 * hop_conjugated(). */
enum hop_trans { HOP_TRANS_N = 0, HOP_TRANS_T = 1, HOP_TRANS_R = 2, HOP_TRANS_C = 3 };
static inline bool hop_transposed(enum hop_trans t) { return (t & HOP_TRANS_T) != 0; }
static inline bool hop_conjugated(enum hop_trans t) { return (t & HOP_TRANS_R) != 0; }
/* 'N', 'T', 'R', 'C': the BLAS argument and the trace's column. */
char hop_trans_letter(enum hop_trans t);

struct hop_planes;
/* One column-major call of a Level-3 operation (row-major calls were
 * swapped by the shims).  Dimensions are 64-bit, as the ILP64 entry points
 * pass them (the LP64 ones widen theirs); an engine gets only calls whose
 * dimensions it holds (struct hop_backend's max_dim).  Indexing must use
 * size_t: lda * k may exceed INT_MAX even when every argument fits in an
 * int.  What the fields mean:
 *   GEMM    C = alpha op(A) op(B) + beta C; op(A) m x k, op(B) k x n.
 *   SYMM    C = alpha A B + beta C (left) or alpha B A + beta C (right_side),
 *   HEMM    A k x k symmetric (Hermitian: its diagonal's imaginary parts are
 *           not read) with only its upper (or lower) triangle read; B, C
 *           m x n; k = m (left) or n (right); ta = tb = N.
 *   SYRK    C = alpha op(A) op(B) + beta C with B = A: ta = N, tb = T (C for
 *   HERK    HERK) is A A^T (A A^H), A n x k; ta = T (C), tb = N is A^T A;
 *           m = n; only the upper (or lower) triangle of C is read or written.
 *           HERK: alpha and beta real, the diagonal's imaginary parts are not
 *           read and come out 0.
 *   SYR2K   C = alpha op(A) op(B) + alpha op(B) op(A) + beta C, transposes as
 *   HER2K   for SYRK (op(B) op(A) = (op(A) op(B))^T); HER2K's second term is
 *           conj(alpha) op(B) op(A) = (alpha op(A) op(B))^H and beta is real.
 *   TRMM    B = alpha op(A) B (left) or alpha B op(A) (right_side), A k x k
 *   TRSM    triangular (upper or lower stored; unit_diag: ones, never read),
 *           B m x n given as c/ldc (read and written; b is NULL), k = m or n,
 *           beta unused; TRSM solves op(A) X = alpha B (X op(A) = alpha B).
 *   GEMMT   GEMM on the upper (or lower) triangle of a square C (m == n):
 *           the other triangle is never written.
 *   GEMM_BATCH  many GEMMs (batch, below). */
struct hop_batch;
struct hop_call {
  enum hop_op op;
  enum hop_dtype dtype;
  const char *symbol; /* entry point, for the trace: "cblas_sgemm", "sgemm_", ... */
  bool row_major;     /* the caller's layout (already swapped away), for the trace */
  enum hop_trans ta, tb;
  bool right_side, upper, unit_diag; /* side, uplo, diag of the operations above */
  bool three_m; /* a ?gemm3m entry point: the 3M method's error bound is allowed */
  int64_t m, n, k;
  struct hop_scalar alpha, beta;
  const void *a;
  int64_t lda;
  const void *b;
  int64_t ldb;
  void *c;
  int64_t ldc;
  /* NULL: a, b and c are memory.  Else this real call is a complex call's
   * embedding read in place (core/complex_planes.c): a, b and c are NULL
   * and the operands are the views here.  Only an engine that asked for
   * views (hop_complex_by_real) is handed such a call. */
  const struct hop_planes *planes;
  /* HOP_OP_GEMM_BATCH: the problems (core/batch.c).  m, n, k and the lds
   * are then the largest of its groups', alpha and beta unused, a, b, c
   * NULL: an engine reaches the problems through hop_batch_member. */
  const struct hop_batch *batch;
};

/* ---- batched GEMM (core/batch.c) -----------------------------------------
 * A batch is groups of problems of one shape each (cblas_?gemm_batch's
 * groups; a strided batch is one group), column-major: the entry point has
 * swapped a row-major caller's A and B, m and n and transposes, as for GEMM. */
struct hop_batch_group {
  enum hop_trans ta, tb;
  int64_t m, n, k, lda, ldb, ldc;
  struct hop_scalar alpha, beta;
  int64_t count;
  /* Problem p's operands: a[p], b[p], c[p] (pointer arrays), or where a is
   * NULL a0, b0, c0 advanced by p times the strides (in elements). */
  const void *const *a, *const *b;
  void *const *c;
  const void *a0, *b0;
  void *c0;
  int64_t stride_a, stride_b, stride_c;
};
struct hop_batch {
  size_t groups;
  const struct hop_batch_group *group;
};
/* Problem p of group gr of batch call g, as a GEMM call. */
struct hop_call hop_batch_member(const struct hop_call *g, const struct hop_batch_group *gr,
                                 int64_t p);
/* The batch call of groups b (its m, n, k and lds the largest of theirs). */
struct hop_call hop_batch_call(enum hop_dtype dt, const char *symbol, bool row_major,
                               const struct hop_batch *b);
/* Problems in all groups. */
int64_t hop_batch_count(const struct hop_batch *b);
/* The largest of m, n, k, lda, ldb and ldc: what an engine must hold. */
int64_t hop_call_max_dim(const struct hop_call *g);

/* core/call.c: what an operation does, for every layer that must know. */
double hop_call_flops(const struct hop_call *g); /* real operations */
/* The rows [*lo, *hi) of column j of C that the call writes: all m for
 * GEMM, the owned triangle's part for GEMMT and SYRK..HER2K.  Every loop
 * over C that writes it (core's beta*C, verify's replacement, an engine's
 * write-back) goes through this, so that the other triangle is never
 * touched. */
void hop_call_rows(const struct hop_call *g, int64_t j, int64_t *lo, int64_t *hi);
/* The GEMM of rows [i0, i0 + rows) and columns [j0, j0 + cols) of g's C:
 * g's scalars and transposes on views of A, B and C. */
struct hop_call hop_call_block(const struct hop_call *g, int64_t i0, int64_t rows, int64_t j0,
                               int64_t cols);
/* Columns [j0, j0 + cols) of C as a call of the same operation, in *out,
 * where C's columns are computed independently of one another: GEMM, and
 * SYMM, HEMM, TRMM and TRSM with A on the left (B's columns, the right-hand
 * sides).  False for the triangles (GEMMT, SYRK, ...), A on the right and
 * a complex embedding's views.  How one call is shared among devices. */
bool hop_call_columns(const struct hop_call *g, int64_t j0, int64_t cols, struct hop_call *out);
/* Is C's diagonal Hermitian (imaginary parts not read, written as 0)? */
bool hop_call_real_diagonal(const struct hop_call *g);
/* Is C read?  beta != 0, or always for TRMM and TRSM (C is their B). */
bool hop_call_reads_c(const struct hop_call *g);
/* Nothing to multiply (alpha == 0, or k == 0): core/ finishes the call
 * without reading A or B: C = beta C on what the call owns (TRMM, TRSM:
 * B = 0), and C not read when beta == 0.  A batch is never trivial as a
 * whole: core/gemm.c finishes its trivial groups, a problem at a time. */
bool hop_call_trivial(const struct hop_call *g);
void hop_call_scale_c(const struct hop_call *g);
/* 'L'/'R', 'U'/'L', 'U'/'N' of the call, '-' where the operation has none. */
void hop_call_letters(const struct hop_call *g, char *side, char *uplo, char *diag);

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

/* A CPU BLAS's own GEMM entry points (the fast path calls them directly;
 * the Fortran ones carry gfortran's hidden string lengths).  Complex
 * scalars and matrices go by pointer, so c and z share their types. */
typedef void (*hop_cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                                   const float *, int, float, float *, int);
typedef void (*hop_f77_sgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                                 const float *, const float *, const int *, const float *,
                                 const int *, const float *, float *, const int *, size_t, size_t);
typedef void (*hop_cblas_dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                                   const double *, int, double, double *, int);
typedef void (*hop_f77_dgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                                 const double *, const double *, const int *, const double *,
                                 const int *, const double *, double *, const int *, size_t, size_t);
typedef void (*hop_cblas_xgemm_fn)(int, int, int, int, int, int, const void *, const void *, int,
                                   const void *, int, const void *, void *, int);
typedef void (*hop_f77_xgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                                 const void *, const void *, const int *, const void *, const int *,
                                 const void *, void *, const int *, size_t, size_t);
struct hop_direct_entries {
  hop_cblas_sgemm_fn cblas_sgemm;
  hop_f77_sgemm_fn sgemm;
  hop_cblas_dgemm_fn cblas_dgemm;
  hop_f77_dgemm_fn dgemm;
  hop_cblas_xgemm_fn cblas_cgemm, cblas_zgemm;
  hop_f77_xgemm_fn cgemm, zgemm;
};

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
  /* What it takes: takes[op] has HOP_DTYPE_BIT(dt) set for each dtype of
   * that operation.  The router never hands it anything else. */
  uint32_t takes[HOP_OP_COUNT];
  /* The largest m, n, k and leading dimension it holds (INT_MAX for an
   * engine whose kernels and launches take int sizes): the router hands it
   * no call with a larger one (hop_call_max_dim), so engines never check. */
  int64_t max_dim;
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
   * for the tiny-call fast path (NULL where it has none).  May be NULL. */
  void (*direct)(void *state, struct hop_direct_entries *out);
  /* The configuration keys this engine reads, ended by a NULL name, so that
   * a config file may hold them and `hopblas info --env` lists them.  May be
   * NULL; engines of one folder may share one list. */
  const struct hop_config_key *keys;
  /* Tuning, calibration and resident timing for the tools and the
   * benchmark (core/engine_tools.h); NULL when the engine has none. */
  const struct hop_engine_tools *tools;
};

/* The registry, in preference order; the CPU engine is always last. */
extern const struct hop_backend *const hop_backends[];
extern const size_t hop_backend_count;
/* Engines configured out of this build, ended by a NULL name.  Their names
 * stay values of HOPBLAS_BACKEND (the call then runs on the CPU) and their
 * keys stay known, so that one config file serves every build. */
struct hop_backend_absent {
  const char *name;
  const struct hop_config_key *keys;
};
extern const struct hop_backend_absent hop_backends_absent[];

static inline bool hop_backend_takes(const struct hop_backend *be, const struct hop_call *g)
{
  return (be->takes[g->op] & HOP_DTYPE_BIT(g->dtype)) != 0;
}
/* Does it hold the call's dimensions? */
static inline bool hop_backend_holds(const struct hop_backend *be, const struct hop_call *g)
{
  return hop_call_max_dim(g) <= be->max_dim;
}

/* ---- configuration (core/config.c) ------------------------------------ */
enum hop_verify_mode { HOP_VERIFY_OFF, HOP_VERIFY_LOG, HOP_VERIFY_FALLBACK };

struct hop_config {
  int verbose;                 /* HOPBLAS_VERBOSE 0..3 */
  char backend[32];            /* HOPBLAS_BACKEND: "auto" or an engine name */
  double min_flops;            /* HOPBLAS_MIN_FLOPS; < 0 when unset (auto) */
  double device_floor_flops;   /* auto routing: below this, engines are not asked */
  enum hop_verify_mode verify; /* HOPBLAS_VERIFY */
  char trace_path[4096];       /* HOPBLAS_TRACE, "" when off */
  char config_file[4096];      /* HOPBLAS_CONFIG_FILE, "" when none */
};

/* Look a key up: environment first, then HOPBLAS_CONFIG_FILE, else NULL.
 * Path-valued keys go through secure_getenv.  Engines read their own keys
 * (those their vtable's keys list) through this. */
const char *hop_config_get(const char *key);
bool hop_config_is_path_key(const char *key);
/* Parse a key's value as a bounded integer; out of range: log, return dflt.
 * long long: some bounds pass 2^31, and long has 32 bits on armhf. */
long long hop_config_int(const char *key, long long lo, long long hi, long long dflt);
double hop_config_double(const char *key, double lo, double hi, double dflt);
/* A known key, with a one-line description (doc/ENVIRONMENT.md lists them too). */
enum hop_config_kind {
  HOP_KEY_VALUE,  /* a number or a word */
  HOP_KEY_PATH,   /* read through secure_getenv: set-uid programs ignore it */
  HOP_KEY_ENGINE, /* "auto" or an engine's name; the help starts with the registry's names */
};
struct hop_config_key {
  const char *name;
  const char *help;
  enum hop_config_kind kind;
};
/* Every known key: core's, then each registered engine's, then those of the
 * engines configured out, each list once.  Start from a zeroed iterator;
 * NULL at the end. */
struct hop_config_key_iter {
  size_t list, key;
};
const struct hop_config_key *hop_config_key_next(struct hop_config_key_iter *it);
/* The key's help line; for HOP_KEY_ENGINE with the engines' names in front. */
void hop_config_key_help(const struct hop_config_key *k, char *out, size_t len);

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

/* The MPI rank (local: among the ranks of this node) that the launcher put
 * in the environment (core/rank.c: Open MPI, MPICH, PMIx, Slurm, PALS);
 * false outside an MPI job.  from, when not NULL, names the variable. */
bool hop_mpi_rank(bool local, long *rank, const char **from);

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
  int64_t m, n, k;
  char transa, transb;
  char side, uplo, diag; /* '\0' (shown as '-') where the operation has none */
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
/* The magnitudes of the terms of each result (core/verify_terms.c): m x n
 * (ld m) in bt, the real dtype the bound is formed in; x is trmm's B as it
 * was or trsm's solution (ld ldx); *kk the number of terms. */
void *hop_verify_terms(const struct hop_call *g, enum hop_dtype bt, const void *x, int64_t ldx,
                       int64_t *kk);
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
float hop_subnormal_redo(const struct hop_call *g, int64_t i, int64_t j);

/* ---- the fallback: the registry's last engine (core/context.c) ----------
 * It never declines and never fails: core/ sends it re-entrant calls and
 * verify's references, and an engine may finish a part of a call with it. */
void hop_fallback_run(const struct hop_call *g);
/* Its predicted seconds for g (negative when it has no model): an engine
 * that gives the CPU a share of a call weighs the share by it. */
double hop_fallback_predict(const struct hop_call *g);
/* The elements of that block of g's C that g writes (hop_call_rows), on
 * the fallback: what an engine that failed part way leaves to the CPU. */
void hop_fallback_block(const struct hop_call *g, int64_t i0, int64_t rows, int64_t j0,
                        int64_t cols);

/* ---- the tiny-call fast path (core/fast_path.c) ------------------------
 * Calls that routing would send to the CPU anyway go straight to OpenBLAS's
 * own entry point, with OpenBLAS doing the argument checks (it reports the
 * same INFO through the same xerbla_): the interposition then costs a
 * handful of instructions instead of a trip through core/. */
struct hop_fast_path {
  /* m*n*k below this (and alpha != 0) goes straight to OpenBLAS; by dtype,
   * 0 where OpenBLAS's entry points for it were not found. */
  uint64_t max_mnk[HOP_DTYPE_COUNT];
  struct hop_direct_entries e;
  struct hop_direct_entries guarded; /* e's, each between hop_blas_enter and hop_blas_leave */
};
/* hop_fast_path_off (every max_mnk 0: no call qualifies, so the entry points
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
static inline bool hop_double_nonzero(double f)
{
  uint64_t bits;
  __builtin_memcpy(&bits, &f, sizeof bits);
  return (bits << 1) != 0;
}
static inline uint64_t hop_fast_path_mnk(int64_t m, int64_t n, int64_t k)
{
  return (uint64_t)m * (uint64_t)k * (uint64_t)n;
}
/* Does a call of dtype dt (alpha already found non-zero) go the fast way? */
static inline bool hop_fast_path_takes(const struct hop_fast_path *fast, enum hop_dtype dt,
                                       int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                                       int64_t ldc)
{
  return (uint64_t)(lda | ldb | ldc) < HOP_FAST_PATH_LD_LIMIT &&
         hop_fast_path_mnk(m, n, k) < fast->max_mnk[dt];
}
/* ---- fork() while threads run in the CPU BLAS (core/fork_guard.c) -------
 * Every call into a loaded BLAS, the fast path's included, sits between
 * hop_blas_enter and hop_blas_leave: a fork() waits until no thread is
 * inside (OpenBLAS leaves a child its locks as the parent's threads held
 * them).  The count is striped by the caller's stack, so that threads
 * making tiny calls do not share one cache line.  A process that has never
 * started a thread cannot fork while a call runs: HOP_BLAS_GUARDED() lets
 * its calls skip the count (glibc's __libc_single_threaded). */
enum { HOP_BLAS_STRIPES = 16 };
struct hop_blas_stripe {
  _Alignas(64) atomic_int inside;
};
extern struct hop_blas_stripe hop_blas_stripes[HOP_BLAS_STRIPES];
extern atomic_bool hop_blas_forking;
void hop_blas_wait_fork(atomic_int *stripe);
/* Once after each BLAS is loaded: its own fork handlers must run after ours. */
void hop_blas_fork_guard_install(void);
static inline atomic_int *hop_blas_enter(void)
{
  /* Thread stacks lie megabytes apart. */
  uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
  atomic_int *stripe = &hop_blas_stripes[(sp >> 23) % HOP_BLAS_STRIPES].inside;
  atomic_fetch_add(stripe, 1);
  if (__builtin_expect(atomic_load(&hop_blas_forking), 0))
    hop_blas_wait_fork(stripe);
  return stripe;
}
static inline void hop_blas_leave(atomic_int *stripe)
{
  atomic_fetch_sub_explicit(stripe, 1, memory_order_release);
}
#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define HOP_BLAS_SINGLE_THREADED_FLAG 1 /* glibc's __libc_single_threaded is there */
#define HOP_BLAS_GUARDED() (!__libc_single_threaded)
#endif
#endif
#ifndef HOP_BLAS_GUARDED
#define HOP_BLAS_GUARDED() true
#endif
/* stmt, a call into the BLAS, guarded as above. */
#define HOP_BLAS_CALL(stmt)                                                                        \
  do {                                                                                             \
    if (HOP_BLAS_GUARDED()) {                                                                      \
      atomic_int *hop_stripe_ = hop_blas_enter();                                                  \
      stmt;                                                                                        \
      hop_blas_leave(hop_stripe_);                                                                 \
    } else {                                                                                       \
      stmt;                                                                                        \
    }                                                                                              \
  } while (0)

/* The entry points a fast call goes to: OpenBLAS's own in a process that
 * has never started a thread, else hopblas's that guard them against
 * fork() (the test costs a single-threaded call five instructions). */
static inline const struct hop_direct_entries *hop_fast_entries(const struct hop_fast_path *fast)
{
  return HOP_BLAS_GUARDED() ? &fast->guarded : &fast->e;
}

/* A complex alpha (re, im by pointer) is non-zero when either part is. */
static inline bool hop_cfloat_nonzero(const void *alpha)
{
  const float *a = alpha;
  return hop_float_nonzero(a[0]) || hop_float_nonzero(a[1]);
}
static inline bool hop_cdouble_nonzero(const void *alpha)
{
  const double *a = alpha;
  return hop_double_nonzero(a[0]) || hop_double_nonzero(a[1]);
}

/* ---- complex calls on real kernels (core/complex_real.c) --------------
 * For an engine with real GEMMs only: c (z) as one real s (d) GEMM of the
 * real embedding through real_run(ctx, real), then C = alpha P + beta C.
 * With `views`, real_run is first handed the embedding as plane views
 * (real->planes): it either runs it or declines before touching anything,
 * and the planes are then written out.  C is untouched unless real_run
 * returned HOP_OK (or finished the call on the CPU); its status is returned. */
enum hop_status hop_complex_by_real(const struct hop_call *g,
                                    enum hop_status (*real_run)(void *ctx,
                                                                const struct hop_call *real),
                                    void *ctx, bool views);
/* The same embedding's first form for a caller that runs the real GEMM
 * itself (an engine's batch): A' = [Ar Ai] (m x 2k) into a and
 * B' = [Br Bi; -Bi Br] (2k x 2n) into b, dense, in g's real dtype, op() and
 * conjugation applied; then C = alpha P + beta C from the product
 * P = A' B' = [Pr Pi] (m x 2n, dense).  On the calling thread. */
void hop_complex_embed(const struct hop_call *g, void *a, void *b);
void hop_complex_combine(const struct hop_call *g, const void *p);

/* A plane of the real embedding as the real call stores it, read from the
 * caller's complex matrix (core/complex_planes.c): grid_r x grid_c
 * quadrants, quadrant (i, j) being sign[i][j] * part[i][j] (0 re, 1 im) of
 * scale * x (conj: of scale * conj(x)), x the caller's qrows x qcols matrix;
 * a doubled axis interleaves its quadrants (row 2i + q: row i of quadrant q). */
struct hop_plane_view {
  const void *src; /* complex float or double, column-major */
  int64_t ld;
  bool dbl, conj;
  struct hop_scalar scale;
  int64_t qrows, qcols;
  int grid_r, grid_c;
  signed char part[2][2], sign[2][2];
};
struct hop_planes {
  struct hop_plane_view a, b, c; /* c: read for beta != 0, written with the results */
};
/* The views of g's embedding (B' doubled or A') and the real call over
 * them; false when g has none (a beta with an imaginary part). */
bool hop_planes_make(const struct hop_call *g, bool double_b, struct hop_planes *p,
                     struct hop_call *real);
/* The rows x cols block at (row0, col0) of the stored plane, densely (ld = rows), in the real type. */
void hop_plane_view_read(const struct hop_plane_view *v, int64_t row0, int64_t col0, int64_t rows,
                         int64_t cols, void *dst);
/* A dense rows x cols block of C' into the parts of C it stands for. */
void hop_plane_view_write(const struct hop_plane_view *v, const void *src, int64_t row0,
                          int64_t col0, int64_t rows, int64_t cols);
/* The sign of the part quadrant (qi, qj) copies when the scale is 1, the
 * conjugation folded in (the host's packing and the device's spreading). */
static inline int hop_plane_view_sign(const struct hop_plane_view *v, int qi, int qj)
{
  return v->part[qi][qj] == 1 && v->conj ? -v->sign[qi][qj] : v->sign[qi][qj];
}
/* Finish the rows x cols tile of C' at (i0, j0) of a view call on the CPU. */
bool hop_planes_fallback(const struct hop_call *real, int64_t i0, int64_t j0, int64_t rows,
                         int64_t cols);

/* ---- host work over threads (core/parallel.c) ---------------------------
 * fn(arg, lo, hi) over [0, items) in `threads` consecutive shares, each on a
 * thread started for it but the first, which the caller's thread runs (as
 * it does a share whose thread could not start).  hop_parallel_threads: how
 * many threads `work` units are worth at `per_thread` each (at most the
 * cores, 16 and items). */
typedef void hop_share_fn(void *arg, int64_t lo, int64_t hi);
void hop_parallel(int threads, int64_t items, hop_share_fn *fn, void *arg);
/* Host cores the device engines keep busy with threads of their own (the
 * OpenCL engine's copy threads, a pool per device: the reservations add
 * up); the CPU engine leaves them to them while it runs a BLAS whose idle
 * workers spin (backends/cpu/threads.c). */
void hop_host_cores_reserve(int cores);
int hop_host_cores_reserved(void);
int hop_parallel_threads(double work, double per_thread, int64_t items);
/* Monotonic seconds (core/clock.c). */
double hop_now(void);

/* ---- half precision (core/half.c) -------------------------------------- */
float hop_half_to_float(uint16_t h);
uint16_t hop_float_to_half(float f); /* round to nearest even, overflow to inf */
void hop_half_to_float_n(const uint16_t *src, float *dst, size_t n);
void hop_float_to_half_n(const float *src, uint16_t *dst, size_t n);

/* Column-major element address helpers (size_t arithmetic, never int). */
static inline size_t hop_at(int64_t row, int64_t col, int64_t ld) {
  return (size_t)row + (size_t)col * (size_t)ld;
}

#endif
