/* The CPU engine's pieces: OpenBLAS (or the reference) for float, panels
 * converted from half for hgemm and shgemm. */
#ifndef HOP_CPU_H
#define HOP_CPU_H

#include <complex.h>

#include "hop.h"
#include "tune_cache.h"

/* OpenBLAS's Fortran sgemm_, with gfortran's hidden string lengths. */
typedef hop_f77_sgemm_fn hop_sgemm_fn;

/* Any BLAS routine as dlsym finds it, cast to its own type where it is called. */
typedef void (*hop_blas_fn)(void);

/* OpenBLAS's Fortran GEMMs with 64-bit integers (built with USE64BITINT),
 * every real and complex dtype: matrices and scalars by pointer. */
typedef void (*hop_f77_gemm64_fn)(const char *, const char *, const int64_t *, const int64_t *,
                                  const int64_t *, const void *, const void *, const int64_t *,
                                  const void *, const int64_t *, const void *, void *,
                                  const int64_t *, size_t, size_t);

/* The ILP64 BLAS (blas64.c): loaded on the first call with a size beyond
 * an int, by the one thread that moves state from unloaded to loading;
 * calls meanwhile, and for good when there is none, are cut into slices
 * for the LP64 BLAS.  Never waited for: a fork() child of a parent caught
 * loading finds "loading" for good and slices. */
struct hop_cpu_blas64 {
  _Atomic int state;
  void *handle;
  hop_f77_gemm64_fn gemm[HOP_DTYPE_COUNT]; /* s, d, c, z; NULL for the half dtypes */
  hop_blas_fn l3[HOP_OP_COUNT][HOP_DTYPE_COUNT]; /* its ssymm_ ... ztrsm_, 64-bit integers */
  char name[512];
};

/* Owned by the engine's context slot; written once, in init. */
/* How the loaded OpenBLAS's idle workers spin (load.c says why it matters). */
enum hop_cpu_spin {
  HOP_CPU_SPIN_UNKNOWN, /* not loaded, or the environment could not be set */
  HOP_CPU_SPIN_SHORT,   /* hopblas set a short spin for the load */
  HOP_CPU_SPIN_USER,    /* OPENBLAS_THREAD_TIMEOUT (or GOTO_) was the user's */
  HOP_CPU_SPIN_SHARED,  /* already in the process: the program's copy, as it set it */
};

struct hop_cpu_state {
  void *handle;
  hop_sgemm_fn sgemm; /* NULL: the built-in reference */
  hop_f77_dgemm_fn dgemm; /* each NULL: the built-in reference for that dtype */
  hop_f77_xgemm_fn cgemm, zgemm;
  hop_blas_fn l3[HOP_OP_COUNT][HOP_DTYPE_COUNT]; /* ssymm_ ... ztrsm_ (GEMM's above); NULL: reference */
  struct hop_direct_entries direct; /* OpenBLAS's, for the fast path; all NULL otherwise */
  bool takes_r; /* the BLAS knows OpenBLAS's 'R' (conjugate, no transpose): OpenBLAS only */
  char name[512];
  int cores;                    /* online when the engine started (threads.c's cap, the model) */
  enum hop_cpu_spin spin;
  int (*get_threads)(void);     /* openblas_get_num_threads; NULL for another BLAS */
  void (*set_threads)(int);     /* openblas_set_num_threads */
  double peak_gflops;
  struct hop_cpu_blas64 *blas64; /* changes after init: loaded on first use */
};

extern const struct hop_backend hop_backend_cpu;

/* ---- OpenBLAS's threads beside a device engine's (threads.c) ------------- */
/* The threads a call may use while a device engine reserves cores and the
 * BLAS's idle workers spin long; 0: no cap. */
int hop_cpu_threads_cap(const struct hop_cpu_state *st);
/* The share of its threads a call gets under that cap (1: all). */
double hop_cpu_threads_share(const struct hop_cpu_state *st);
void hop_cpu_threads_begin(const struct hop_cpu_state *st, bool *capped);
void hop_cpu_threads_end(const struct hop_cpu_state *st, bool capped);

/* ---- the untuned model corrected by the calls the engine ran (learn.c) ---- */
/* What the untuned guess for a call of this routine and dtype is multiplied by (1 until learnt). */
double hop_cpu_learned(const struct hop_call *g);
/* Whether a call with this untuned guess (seconds; < 0: tuned) is timed to learn from. */
bool hop_cpu_learns(const struct hop_call *g, double guessed_s);
void hop_cpu_learn(const struct hop_call *g, double guessed_s, double measured_s);

/* Which CPU BLAS the engine uses (path or "built-in reference"). */
const char *hop_cpu_blas_name(void);

/* ---- loading a BLAS privately (load.c) ---------------------------------- */
/* A path-valued key (HOPBLAS_CPU_BLAS, HOPBLAS_CPU_BLAS64), "" when unset. */
const char *hop_cpu_asked_path(const char *key);
const char *hop_cpu_spin_text(enum hop_cpu_spin spin);
/* dlopen RTLD_NOW | RTLD_LOCAL, refusing what is not a regular file; NULL
 * with why on failure; *spin (may be NULL) says how its workers spin. */
void *hop_cpu_dlopen(const char *path, char *why, size_t why_len, enum hop_cpu_spin *spin);
/* Does fn (a dlsym result) belong to hopblas itself? */
bool hop_cpu_is_self(void *fn);
/* "OpenBLAS <the file really loaded>". */
void hop_cpu_lib_name(void *h, const char *path, char *out, size_t len);

/* ---- the ILP64 BLAS (blas64.c) ------------------------------------------ */
/* Reset for init(): off for good when off is true (the built-in reference
 * asked for), else unloaded. */
struct hop_cpu_blas64 *hop_cpu_blas64_reset(bool off);
/* Run g, whose sizes need 64 bits, on the ILP64 BLAS (loading it on the
 * first call); false, C untouched, when there is none (yet). */
bool hop_cpu_blas64_gemm(struct hop_cpu_blas64 *b, const struct hop_call *g);
/* Its routine for a Level-3 call other than GEMM (loading it first), or NULL. */
hop_blas_fn hop_cpu_blas64_l3(struct hop_cpu_blas64 *b, const struct hop_call *g);
void hop_cpu_blas64_describe(const struct hop_cpu_blas64 *b, FILE *out);
void hop_cpu_blas64_release(struct hop_cpu_blas64 *b);

/* ---- the CPU's calibration (calibrate.c), in the tuning cache ---------- */
/* The CPU engine's measured curve of sgemm (dbl false) or dgemm calls
 * (calibrate.c); false when none is cached. */
bool hop_calib_cpu_curve(bool dbl, struct hop_curve *c);
/* The scope of the CPU's calibration: CPU model, cores, BLAS library, threads. */
void hop_calib_cpu_scope(char *buf, size_t len);
/* Measure the CPU engine at the sizes (0-terminated), within a budget of
 * seconds, in float (out) and then double (out_d); store the curves.
 * progress(i, count, arg) after each size of either. */
bool hop_calib_cpu_measure(const int *sizes, double budget_s, struct hop_curve *out,
                           struct hop_curve *out_d,
                           void (*progress)(int done, int count, void *arg), void *arg);

/* For the CPU engine: predicted seconds from the cached curve, negative
 * when there is none (or HOPBLAS_TUNE=off); read once per process. */
double hop_calib_cpu_seconds(const struct hop_call *g);
/* The float (or double) curve in use as text; false when there is none. */
bool hop_calib_cpu_describe(bool dbl, char *buf, size_t len);
/* Its calibration for `hopblas tune`, the vtable's tools. */
extern const struct hop_engine_tools hop_cpu_tools;


/* s, d, c or z through the loaded BLAS (else the reference), cut into
 * slices whose element offsets fit an int. */
void hop_cpu_gemm_sliced(const struct hop_cpu_state *st, const struct hop_call *g);
void hop_cpu_sgemm(const struct hop_cpu_state *st, bool ta, bool tb, int64_t m, int64_t n,
                   int64_t k, float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                   float beta, float *c, int64_t ldc);
void hop_ref_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                   int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc);
/* re + i im without arithmetic (re + im * I would turn an infinite im into
 * NaN + Inf i); CMPLX is missing where the compiler is not GCC (clang's
 * fuzz builds).  For the references' complex sums. */
static inline double complex hop_cpu_complex(double re, double im)
{
  union {
    double complex z;
    double part[2];
  } u = {.part = {re, im}};
  return u.z;
}

/* The reference for d, c and z (accumulating in double complex). */
void hop_ref_gemm_wide(const struct hop_call *g);

/* gemmt (s, d, c, z) as GEMMs on blocks of its triangle (gemmt.c). */
void hop_cpu_gemmt(const struct hop_cpu_state *st, const struct hop_call *g);

/* d and z: the CPU computes them at about half the float rate. */
static inline bool hop_cpu_double_rate(enum hop_dtype dt)
{
  return dt == HOP_DTYPE_D || dt == HOP_DTYPE_Z;
}

/* symm, hemm, syrk, herk, syr2k, her2k, trmm, trsm (blas_l3.c): the
 * loaded BLAS's routines found by name, else the reference (ref_l3.c). */
void hop_cpu_l3_load(hop_blas_fn l3[HOP_OP_COUNT][HOP_DTYPE_COUNT], void *handle);
void hop_cpu_l3(const struct hop_cpu_state *st, const struct hop_call *g);
/* Any operation, GEMM's too; for d, c, z GEMM it is hop_ref_gemm_wide. */
void hop_ref_l3(const struct hop_call *g);
/* A batch (s, d, c, z): each problem through hop_cpu_gemm_sliced (batch.c). */
void hop_cpu_gemm_batch(const struct hop_cpu_state *st, const struct hop_call *g);

/* hgemm and shgemm through float panels (bounded memory). */
enum hop_status hop_cpu_half_gemm(const struct hop_cpu_state *st, const struct hop_call *g);
/* The same without any allocation, element by element: the last resort. */
void hop_cpu_half_gemm_unbuffered(const struct hop_cpu_state *st, const struct hop_call *g);

#endif
