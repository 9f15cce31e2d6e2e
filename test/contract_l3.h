/* The Level-3 contract sweep beside GEMM's (symm, hemm, syrk, herk, syr2k,
 * her2k, trmm, trsm): one call (contract_l3_call.c) and the driver with
 * its groups (contract_l3.c). */
#ifndef HT_CONTRACT_L3_H
#define HT_CONTRACT_L3_H

#include "testutil.h"

enum lt_routine { LT_SYMM, LT_HEMM, LT_SYRK, LT_HERK, LT_SYR2K, LT_HER2K, LT_TRMM, LT_TRSM,
                  LT_ROUTINES };

extern const char *const lt_routine_names[LT_ROUTINES];
bool lt_hermitian(enum lt_routine r);  /* hemm, herk, her2k: complex dtypes only */
bool lt_rank_k(enum lt_routine r);     /* syrk .. her2k: C n x n, one triangle */
bool lt_triangular(enum lt_routine r); /* trmm, trsm */

/* Which names the calls go through: the standard ones, OpenBLAS's ILP64
 * (64-bit integers: cblas_ssymm64_, ssymm_64_), scipy-openblas's forms of
 * those (scipy_cblas_ssymm64_, scipy_ssymm_64_) or of the LP64 ones. */
enum lt_names { LT_STD, LT_ILP64, LT_SCIPY64, LT_SCIPY };

/* One call, in the caller's terms. */
struct lt_call {
  enum ht_dtype dt;
  enum lt_routine r;
  enum ht_entry entry;
  bool row_major;                /* CBLAS only */
  char side, uplo, trans, diag;  /* 'L'/'R', 'U'/'L', 'N'/'T'/'C'/'R', 'U'/'N' */
  bool lower_case, bare;         /* Fortran: 'l' for 'L'; ssymm instead of ssymm_ */
  enum lt_names names;
  int m, n, k;                   /* C (B of trmm, trsm) is m x n; syrk..: m == n */
  double alpha[2], beta[2];
  struct ht_mat a, b, c;         /* trmm, trsm: their B is c; b unused */
};

/* The order of A (symm, trmm: m or n by side). */
int lt_order_a(const struct lt_call *c);
/* Allocate A, B, C with ld paddings pad[] and view offsets off[]: A's and
 * B's guards and padding hold NaN, C's a sentinel. */
bool lt_alloc(struct lt_call *c, const int pad[3], const int off[3]);
void lt_free(struct lt_call *c);
/* Values: what the routine reads random (trsm: a well-conditioned
 * triangle), what it must not read NaN (A's other triangle, a unit
 * diagonal, hemm's and C's Hermitian diagonal imaginary parts, A and B when
 * alpha == 0, C when beta == 0), C's other triangle a sentinel. */
void lt_fill(struct lt_call *c, struct ht_rng *r);
/* Snapshot, then the call through its entry point (found by name). */
bool lt_run(struct lt_call *c, char *why, size_t len);
/* Against a long double reference (trsm by its residual), every cell the
 * routine must not write unchanged; tol is the c of c (k + 2) eps. */
bool lt_check(const struct lt_call *c, double tol, char *why, size_t len);
void lt_describe(const struct lt_call *c, char *out, size_t len);
/* An erroneous call: xerbla_ (xerbla_64_ for the ILP64 names) reports the
 * routine and want_info once, and nothing is written. */
bool lt_run_error(struct lt_call *c, int want_info, char *why, size_t len);

#endif
