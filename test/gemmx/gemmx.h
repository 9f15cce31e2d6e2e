/* test/gemmx: gemmt and batched GEMM through the public entry points,
 * against a double-precision reference, in s, d, c and z.  The engine is
 * whatever the environment selects; the .test scripts prove from the trace
 * which one ran.  Prints TAP.
 *
 *   gemmx gemmt|batch [--dtypes s,d,c,z] [--max-dim N] [--quick] [--seed S] [--label TEXT]
 *                     [--names lp64|ilp64]
 *   gemmx errors [ilp64]  the argument errors of both, through this program's own xerbla_
 *                     (xerbla_64_ for the ILP64 names)
 *   gemmx big N [LABEL]  one batch of N sgemm of 64 x 64 x 64, every result checked
 */
#ifndef GX_GEMMX_H
#define GX_GEMMX_H

#include <stdint.h>
#include <stdio.h>

#include "testutil.h"

/* CBLAS uplo values (no cblas.h needed). */
enum { GX_UPPER = 121, GX_LOWER = 122 };

struct gx_opts {
  bool dtypes[HT_DTYPE_COUNT]; /* s, d, c, z only */
  int max_dim;
  bool quick;
  unsigned long long seed;
  const char *label;
  bool ilp64; /* --names ilp64: the 64_ entry points, every integer 64-bit */
};

/* ---- TAP (gemmx.c) ------------------------------------------------------ */
void gx_result(bool ok, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int gx_done(void); /* prints the plan; the exit status */

/* ---- operands (gemmx.c) ---------------------------------------------------
 * A matrix of the call's dtype in a guarded buffer (testutil's ht_mat):
 * filled with values uniform in [-1, 1] (both parts of a complex one), or
 * with NaN (poison: what must not be read); guards hold the sentinel. */
bool gx_alloc(struct ht_mat *x, enum ht_dtype dt, int rows, int cols, int ld, bool row_major,
              int offset);
void gx_fill(struct ht_mat *x, struct ht_rng *r, bool poison);

/* Scalars in both parts, as the entry points take them: the value for real
 * dtypes, (re, im) for complex ones (float or double by dtype). */
struct gx_scalar {
  double re, im;
};
const void *gx_scalar_ptr(enum ht_dtype dt, struct gx_scalar s, void *buf16);

/* The reference of element (i, j) of alpha op(A) op(B) + beta C0 (in the
 * caller's own indices; trans: an HT_* value), and the contract's bound for
 * it (tol as in ht_bound_dt).  ok says whether got is within it. */
struct gx_product {
  const struct ht_mat *a, *b, *c0; /* c0: C's snapshot (c0 == c, base = saved) */
  int ta, tb, k;
  struct gx_scalar alpha, beta;
};
bool gx_element_ok(enum ht_dtype dt, const struct gx_product *p, int i, int j, double tol,
                   char *why, size_t len);

/* Every byte of x other than the elements keep(i, j) says were written is
 * as it was saved; false with the first such cell in why. */
bool gx_only_written(const struct ht_mat *x, bool (*keep)(const void *arg, int i, int j),
                     const void *arg, char *why, size_t len);

/* ---- one call through any entry point (gemmx_calls.c) ---------------------
 * CBLAS values for order, uplo and transposes (Fortran calls get their
 * letters, 'X' for a bad one); scalars by pointer as gx_scalar_ptr stores
 * them; the LP64 names narrow the integers to int. */
struct gx_entry {
  bool fortran, tr, bare, ilp64; /* ?gemmt_ or cblas_; gemmtr; ?gemmt; the 64_ names */
};
void gx_gemmt_call(enum ht_dtype dt, const struct gx_entry *e, int order, int uplo, int ta, int tb,
                   int64_t n, int64_t k, const void *alpha, const void *a, int64_t lda,
                   const void *b, int64_t ldb, const void *beta, void *c, int64_t ldc);
void gx_batch_call(enum ht_dtype dt, bool ilp64, int order, const int *ta, const int *tb,
                   const int64_t *m, const int64_t *n, const int64_t *k, const void *alpha,
                   const void **a, const int64_t *lda, const void **b, const int64_t *ldb,
                   const void *beta, void **c, const int64_t *ldc, int64_t groups,
                   const int64_t *size);
void gx_strided_call(enum ht_dtype dt, bool ilp64, int order, int ta, int tb, int64_t m,
                     int64_t n, int64_t k, const void *alpha, const void *a, int64_t lda,
                     int64_t sa, const void *b, int64_t ldb, int64_t sb, const void *beta,
                     void *c, int64_t ldc, int64_t sc, int64_t count);

/* ---- the parts (gemmx_gemmt.c, gemmx_batch.c, gemmx_errors.c) ------------ */
void gx_gemmt_cases(const struct gx_opts *o);
void gx_batch_cases(const struct gx_opts *o);
void gx_batch_big(int count, const char *label);
void gx_errors(bool ilp64);

extern int gx_xerbla_calls, gx_xerbla_info;
extern bool gx_xerbla_64; /* the last report came through xerbla_64_ */
extern char gx_xerbla_name[32];

#endif
