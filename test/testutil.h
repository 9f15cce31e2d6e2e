/* Shared pieces of the C test programs (contract, threads, overflow,
 * gemm-once): a seeded RNG, an fp16 codec written independently of the
 * library's, the tests' table of precisions, guarded matrix buffers, a call
 * through any public entry point, and the reference check of
 * doc/CONTRACT.md.
 *
 * Everything goes through the exported ABI only; the tests never include
 * core/hop.h, so they see the library exactly as a user program does. */
#ifndef HT_TESTUTIL_H
#define HT_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hopblas.h"

/* CBLAS enumeration values (no cblas.h needed). */
enum { HT_ROW = 101, HT_COL = 102 };
/* CT: conjugate transpose ('C'); CN: OpenBLAS's conjugate, no transpose ('R'). */
enum { HT_N = 111, HT_T = 112, HT_CT = 113, HT_CN = 114 };

/* The standard prototypes (cblas.h / blas.h), declared here with ints. */
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void sgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k,
           const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
           const float *beta, float *c, const int *ldc);
void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                 int lda, const double *b, int ldb, double beta, double *c, int ldc);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc);
void dgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k,
           const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
           const double *beta, double *c, const int *ldc);
/* Complex (c, z, and their 3m forms): scalars by pointer, as CBLAS has them. */
typedef void ht_cblas_xgemm(int order, int ta, int tb, int m, int n, int k, const void *alpha,
                            const void *a, int lda, const void *b, int ldb, const void *beta,
                            void *c, int ldc);
typedef void ht_fortran_xgemm(const char *ta, const char *tb, const int *m, const int *n,
                              const int *k, const void *alpha, const void *a, const int *lda,
                              const void *b, const int *ldb, const void *beta, void *c,
                              const int *ldc);
ht_cblas_xgemm cblas_cgemm, cblas_zgemm, cblas_cgemm3m, cblas_zgemm3m;
ht_fortran_xgemm cgemm_, cgemm, zgemm_, zgemm, cgemm3m_, zgemm3m_;

/* Which names a call goes through: the standard LP64 ones, OpenBLAS's ILP64
 * 64_ names (64-bit integers), or scipy-openblas's prefixed forms of either
 * (scipy_cblas_sgemm, scipy_sgemm_; scipy_cblas_sgemm64_, scipy_sgemm_64_).
 * All but the first are looked up by name at run time (testutil_names.c). */
enum ht_names { HT_NAMES_LP64, HT_NAMES_ILP64, HT_NAMES_SCIPY, HT_NAMES_SCIPY64, HT_NAMES_COUNT };
bool ht_names_parse(const char *word, enum ht_names *out); /* lp64, ilp64, scipy, scipy64 */

/* The tests' precisions; the first three keep their values (arrays indexed by them). */
enum ht_dtype { HT_S, HT_H, HT_SH, HT_D, HT_C, HT_Z, HT_DTYPE_COUNT };
enum ht_entry { HT_CBLAS, HT_FORTRAN };

/* One row per precision: what the tests need to allocate, fill, call and judge it. */
struct ht_dtype_info {
  const char *name;            /* as --dtypes spells it: "s", "d", "c", "z", "h", "sh" */
  const char *cblas, *fortran; /* entry points; fortran NULL when there is none */
  const char *cblas_3m, *fortran_3m; /* the 3m forms of complex, else NULL */
  size_t ab_size, c_size;      /* bytes per element of A and B, and of C */
  bool cplx;                   /* an element is (re, im) */
  double eps;                  /* the contract's eps: float's, or double's for d and z */
  double tiny; /* per operation near zero: 2^-150 for float; for double its smallest
                  subnormal, 2^-1074 (half of it is no double) */
};
extern const struct ht_dtype_info ht_dtypes[HT_DTYPE_COUNT];
bool ht_dtype_parse(const char *name, enum ht_dtype *dt);

const char *ht_symbol(enum ht_dtype dt, enum ht_entry e); /* "cblas_sgemm", "hgemm_", ... */

/* ---- random numbers (splitmix64: reproducible from one seed) ---------- */
struct ht_rng {
  uint64_t s;
};
uint64_t ht_rng_next(struct ht_rng *r);
double ht_rng_uniform(struct ht_rng *r, double lo, double hi);
int ht_rng_int(struct ht_rng *r, int n); /* 0 .. n-1 */

/* ---- IEEE binary16 ------------------------------------------------------ */
double ht_half_to_double(uint16_t h);
double ht_round_half(double x);   /* nearest even half value; +-inf past 65520 */
uint16_t ht_half_bits(double v);  /* encode a value ht_round_half returned (NaN: 0x7e00) */

/* ---- a matrix operand inside a guarded buffer ---------------------------
 * The buffer holds `guard` sentinel cells, `offset` more (an odd view start),
 * the matrix (ld*(outer-1)+inner cells, the legal minimum, ld padding
 * included), then `guard` cells.  Everything but the matrix keeps the fill
 * value, so any stray write shows.  A fenced buffer has no trailing cells:
 * the matrix ends where a PROT_NONE page begins, so a read past its last
 * element (an engine's over-fetch) is a SIGSEGV instead of a silent success. */
struct ht_mat {
  int rows, cols, ld;
  bool row_major;
  size_t esize; /* bytes per element: 2 (half), 4 (float), 8 (double or complex float), 16 */
  bool cplx;    /* an element is two parts of esize / 2 bytes, (re, im) */
  size_t cells; /* whole buffer, in elements */
  unsigned char *buf, *saved;
  void *p; /* what is passed to BLAS */
  void *map;       /* fenced: the mapping, else NULL */
  size_t map_len;
};

enum { HT_GUARD = 17 };

/* fill: the bit pattern of every part of every cell before the matrix
 * values are set, as a half (2-byte parts) or a float (4 bytes; 8-byte parts
 * get the double of that float: the same sentinel or NaN). */
bool ht_mat_alloc(struct ht_mat *x, int rows, int cols, int ld, bool row_major, size_t esize,
                  bool cplx, int offset, uint32_t fill, bool fence);
void ht_mat_free(struct ht_mat *x);
size_t ht_mat_index(const struct ht_mat *x, int i, int j);
/* part 0 is the value (the real part of a complex element), part 1 its imaginary part */
double ht_mat_get_part(const struct ht_mat *x, const unsigned char *base, int i, int j, int part);
double ht_mat_get(const struct ht_mat *x, const unsigned char *base, int i, int j);
void ht_mat_set_part(struct ht_mat *x, int i, int j, int part, double v);
void ht_mat_set(struct ht_mat *x, int i, int j, double v); /* half: v must be a half value; im 0 */
void ht_mat_set_bits(struct ht_mat *x, int i, int j, uint32_t bits); /* every part, as fill */
void ht_mat_save(struct ht_mat *x);                             /* snapshot for the checks */
bool ht_mat_unchanged(const struct ht_mat *x, size_t *where);   /* bytewise vs the snapshot */

/* Sentinels: finite, unusual, distinct from anything the tests compute. */
#define HT_SENTINEL_F 0xc61c3f00u /* -9999.75f */
#define HT_SENTINEL_H 0xf0e1u     /* -8968.0 in half */
#define HT_NAN_F 0x7fc00001u
#define HT_NAN_H 0x7e01u

/* ---- one GEMM call -------------------------------------------------------- */
struct ht_call {
  enum ht_dtype dtype;
  enum ht_entry entry;
  int order, ta, tb; /* CBLAS values; Fortran entries need HT_COL */
  int m, n, k;
  double alpha, beta; /* exact values (halves for HT_H); the real parts of complex ones */
  double alpha_im, beta_im; /* complex: the imaginary parts */
  bool lower_case;    /* Fortran: pass 'n'/'t'/'c'/'r' */
  bool no_underscore; /* Fortran S, D, C, Z: call `sgemm`, not `sgemm_` */
  bool three_m;       /* complex: the 3m entry point (cblas_cgemm3m, zgemm3m_, ...) */
  enum ht_names names; /* no_underscore applies to HT_NAMES_LP64 only */
  struct ht_mat a, b, c;
};

/* Allocate A, B and C for the call's shape with the given ld paddings and
 * view offsets; A and B guards and padding hold NaN (an engine that reads
 * them into a result is caught) and end at a fence; C's hold the sentinel. */
bool ht_call_alloc(struct ht_call *c, const int pad[3], const int offset[3]);
void ht_call_free(struct ht_call *c);
/* Fill A, B (uniform in [-1, 1] in each part, halves rounded) and C
 * (uniform, or NaN and -Inf when beta == 0); poison A and B with NaN when
 * alpha == 0 (both parts of a complex alpha). */
void ht_call_fill(struct ht_call *c, struct ht_rng *r);
void ht_call_run(struct ht_call *c); /* snapshot A, B, C, then invoke */
void ht_call_invoke(const struct ht_call *c); /* just the call: no shared writes */
/* The call through its names other than LP64 (ht_call_invoke sends it here). */
void ht_call_invoke_named(const struct ht_call *c);

/* One element (one part of a complex one) of C against its reference: NaN
 * must stay NaN, Inf the same Inf; else within bound or, for half C,
 * between the halves of ref - bound and ref + bound (one rounding of a
 * float result). */
bool ht_element_ok(enum ht_dtype dt, double got, double ref, double bound);
/* The contract's bound for one element of a float-accumulated dtype: tol (k + 2) (eps
 * (|alpha| abs_ab + |beta_c0|) + (|alpha| + 1) 2^-150), abs_ab = (|A||B|)_ij,
 * beta_c0 = beta C0_ij.  ht_bound_dt: the same with the dtype's eps and subnormal;
 * for complex each part is held to it, with |x| = |re| + |im| throughout. */
double ht_bound(double tol, int k, double alpha, double abs_ab, double beta_c0);
double ht_bound_dt(enum ht_dtype dt, double tol, int k, double alpha, double abs_ab,
                   double beta_c0);

/* Compare C with the double reference and every other cell with the
 * snapshot; tol is the c of c*k*eps.  On failure write a one-line reason
 * (indices, got, expected, bound) into why and return false. */
bool ht_call_check(const struct ht_call *c, double tol, char *why, size_t why_len);
/* The same, counting every bad element (gemm-once reports the pattern). */
struct ht_bad {
  int count;                   /* elements out of tolerance */
  int max_row;                 /* largest row index among them */
  double delta_min, delta_max; /* got - expected over them */
  bool outside;                /* a cell outside the block was written */
  bool inputs_written;         /* A or B changed */
};
bool ht_call_bad(const struct ht_call *c, double tol, struct ht_bad *st, char *why, size_t why_len);
/* "cblas_sgemm row NT m=3 n=2 k=1 alpha=.. beta=.. ld=.. off=.." */
/* The entry point this call uses (a buffer of the calling thread's for
 * names other than LP64, valid until its next call). */
const char *ht_call_symbol(const struct ht_call *c);
void ht_call_describe(const struct ht_call *c, char *out, size_t len);

/* Is OpenBLAS in the address space? (Which CPU BLAS the CPU engine chose.) */
bool ht_openblas_mapped(void);

/* A crash (SIGSEGV from a fence, SIGBUS, SIGFPE) prints "Bail out!" with
 * the call last noted, so the failing call is named even then. */
void ht_crash_guard(void);
void ht_crash_note(const struct ht_call *c);
void ht_crash_note_text(const char *what); /* any call, described */

#endif
