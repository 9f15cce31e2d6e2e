/* Argument checks with OpenBLAS's numbering and order (later checks win,
 * so the lowest-numbered bad argument is reported). */
#include "check.h"

#include <stdio.h>
#include <string.h>

int hop_check_gemm(int ta, int tb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                   int64_t ldc)
{
  int64_t nrowa = ta > 0 && (ta & HOP_TRANS_T) ? k : m, nrowb = tb > 0 && (tb & HOP_TRANS_T) ? n : k;
  int info = 0;
  if (ldc < m) info = 13;
  if (ldb < nrowb) info = 10;
  if (lda < nrowa) info = 8;
  if (k < 0) info = 5;
  if (n < 0) info = 4;
  if (m < 0) info = 3;
  if (tb < 0) info = 2;
  if (ta < 0) info = 1;
  return info;
}

int hop_cblas_trans(int t, bool complex)
{
  switch (t) {
  case HOP_CBLAS_NO_TRANS: return HOP_TRANS_N;
  case HOP_CBLAS_TRANS: return HOP_TRANS_T;
  case HOP_CBLAS_CONJ_TRANS: return complex ? HOP_TRANS_C : HOP_TRANS_T;
  case HOP_CBLAS_CONJ_NO_TRANS: return complex ? HOP_TRANS_R : HOP_TRANS_N;
  default: return -1;
  }
}

int hop_fortran_trans(char t, bool complex)
{
  switch (t) {
  case 'N': case 'n': return HOP_TRANS_N;
  case 'T': case 't': return HOP_TRANS_T;
  case 'C': case 'c': return complex ? HOP_TRANS_C : HOP_TRANS_T;
  case 'R': case 'r': return complex ? HOP_TRANS_R : HOP_TRANS_N;
  default: return -1;
  }
}

int hop_cblas_gemm_args(enum hop_dtype dt, int order, int transa, int transb, int64_t m, int64_t n,
                        int64_t k, const void *a, int64_t lda, const void *b, int64_t ldb, void *c,
                        int64_t ldc, struct hop_call *g)
{
  bool complex = hop_dtype_info(dt)->is_complex;
  int ta = hop_cblas_trans(transa, complex), tb = hop_cblas_trans(transb, complex);
  if (order == HOP_CBLAS_COL_MAJOR) {
    *g = (struct hop_call){.op = HOP_OP_GEMM, .dtype = dt, .ta = (enum hop_trans)ta,
                           .tb = (enum hop_trans)tb, .m = m, .n = n, .k = k, .a = a, .lda = lda,
                           .b = b, .ldb = ldb, .c = c, .ldc = ldc};
    int info = hop_check_gemm(ta, tb, m, n, k, lda, ldb, ldc);
    return info ? info : -1;
  }
  if (order == HOP_CBLAS_ROW_MAJOR) {
    /* C^T = op(B)^T op(A)^T: the same problem in column-major form, where
     * each operand keeps its own transpose and conjugation. */
    *g = (struct hop_call){.op = HOP_OP_GEMM, .dtype = dt, .row_major = true,
                           .ta = (enum hop_trans)tb, .tb = (enum hop_trans)ta, .m = n, .n = m,
                           .k = k, .a = b, .lda = ldb, .b = a, .ldb = lda, .c = c, .ldc = ldc};
    int info = hop_check_gemm(tb, ta, n, m, k, ldb, lda, ldc);
    return info ? info : -1;
  }
  return 0;
}

int hop_cblas_uplo(int uplo)
{
  return uplo == HOP_CBLAS_UPPER ? 1 : uplo == HOP_CBLAS_LOWER ? 0 : -1;
}

int hop_fortran_uplo(char uplo)
{
  return uplo == 'U' || uplo == 'u' ? 1 : uplo == 'L' || uplo == 'l' ? 0 : -1;
}

static int64_t at_least_1(int64_t x) { return x > 1 ? x : 1; }

int hop_check_gemmt(bool row_major, int upper, int ta, int tb, int64_t n, int64_t k, int64_t lda,
                    int64_t ldb, int64_t ldc)
{
  /* Stored rows (column-major) or columns (row-major) of A and B. */
  bool a_t = ta > 0 && (ta & HOP_TRANS_T), b_t = tb > 0 && (tb & HOP_TRANS_T);
  int64_t a_need = row_major ? (a_t ? n : k) : (a_t ? k : n);
  int64_t b_need = row_major ? (b_t ? k : n) : (b_t ? n : k);
  int info = 0;
  if (ldc < at_least_1(n)) info = 13;
  if (ldb < at_least_1(b_need)) info = 10;
  if (lda < at_least_1(a_need)) info = 8;
  if (k < 0) info = 5;
  if (n < 0) info = 4;
  if (tb < 0) info = 3;
  if (ta < 0) info = 2;
  if (upper < 0) info = 1;
  return info;
}

int hop_cblas_gemmt_args(enum hop_dtype dt, int order, int uplo, int transa, int transb,
                         int64_t n, int64_t k, const void *a, int64_t lda, const void *b,
                         int64_t ldb, void *c, int64_t ldc, struct hop_call *g)
{
  bool complex = hop_dtype_info(dt)->is_complex;
  int ta = hop_cblas_trans(transa, complex), tb = hop_cblas_trans(transb, complex);
  int upper = hop_cblas_uplo(uplo);
  bool row = order == HOP_CBLAS_ROW_MAJOR;
  if (!row && order != HOP_CBLAS_COL_MAJOR)
    return 0;
  int info = hop_check_gemmt(row, upper, ta, tb, n, k, lda, ldb, ldc);
  if (info != 0)
    return info;
  /* Row-major: C^T = op(B)^T op(A)^T, the triangle mirrored. */
  *g = (struct hop_call){.op = HOP_OP_GEMMT, .dtype = dt, .row_major = row,
                         .ta = (enum hop_trans)(row ? tb : ta), .tb = (enum hop_trans)(row ? ta : tb),
                         .upper = row ? upper == 0 : upper == 1, .m = n, .n = n, .k = k,
                         .a = row ? b : a, .lda = row ? ldb : lda, .b = row ? a : b,
                         .ldb = row ? lda : ldb, .c = c, .ldc = ldc};
  return -1;
}

/* ---- the end of an entry point: errors, quick returns, core/ ---------------- */

void hop_trace_rejected(const struct hop_trace_call *c, int info)
{
  if (!hop_trace_on())
    return;
  char why[96];
  snprintf(why, sizeof why, "argument error: INFO = %d reported through xerbla; C untouched", info);
  hop_trace_unrouted(c, "none", why);
}

static void trace_quick(const struct hop_trace_call *c)
{
  if (!hop_trace_on())
    return;
  const char *why = c->m == 0   ? "quick return: m == 0; C untouched"
                    : c->n == 0 ? "quick return: n == 0; C untouched"
                    : c->k == 0 ? "quick return: k == 0 and beta == 1; C untouched"
                                : "quick return: alpha == 0 and beta == 1; C untouched";
  hop_trace_unrouted(c, "core", why);
}

void hop_entry_finish(void (*xerbla)(const char *name, int info), bool bad, int info,
                      const char *xname, const struct hop_trace_call *call,
                      const struct hop_call *g)
{
  if (bad) {
    xerbla(xname, info);
    hop_trace_rejected(call, info);
  } else if (hop_quick_return(call->m, call->n, call->k, g->alpha, g->beta)) {
    trace_quick(call);
  } else {
    hop_call_run(g);
  }
}
