/* Argument checks of the Level-3 routines other than GEMM, as OpenBLAS's
 * interface/symm.c, syrk.c, syr2k.c and trsm.c make them (later checks win,
 * so the lowest-numbered bad argument is reported, as netlib reports it),
 * and the path every such entry point shares. */
#include "check_l3.h"

#include <ctype.h>
#include <string.h>

enum { CBLAS_NON_UNIT = 131, CBLAS_UNIT = 132, CBLAS_LEFT = 141, CBLAS_RIGHT = 142 };

void hop_l3_xname(enum hop_op op, enum hop_dtype dt, char out[8])
{
  snprintf(out, 8, "%c%-5s", toupper((unsigned char)hop_dtype_name(dt)[0]), hop_op_name(op));
  for (char *p = out; *p != '\0'; p++)
    *p = (char)toupper((unsigned char)*p);
}

static bool hermitian(enum hop_op op) { return op == HOP_OP_HERK || op == HOP_OP_HER2K; }

int hop_fortran_side(char c)
{
  c = (char)toupper((unsigned char)c);
  return c == 'L' ? 0 : c == 'R' ? 1 : -1;
}

int hop_fortran_diag(char c)
{
  c = (char)toupper((unsigned char)c);
  return c == 'U' ? 0 : c == 'N' ? 1 : -1;
}

int hop_fortran_rk_trans(char c, enum hop_op op, enum hop_dtype dt)
{
  c = (char)toupper((unsigned char)c);
  if (c == 'N')
    return HOP_TRANS_N;
  if (!hop_dtype_info(dt)->is_complex)
    return c == 'T' || c == 'C' ? HOP_TRANS_T : -1;
  if (hermitian(op))
    return c == 'C' ? HOP_TRANS_C : -1;
  return c == 'T' ? HOP_TRANS_T : -1;
}

/* The rank-k transposes of CBLAS; row-major calls take the other one. */
static int cblas_rk_trans(int t, enum hop_op op, enum hop_dtype dt, bool row_major)
{
  bool complex = hop_dtype_info(dt)->is_complex, herm = hermitian(op);
  enum hop_trans other = !complex ? HOP_TRANS_T : herm ? HOP_TRANS_C : HOP_TRANS_T;
  int r = -1;
  if (t == HOP_CBLAS_NO_TRANS || (!complex && t == HOP_CBLAS_CONJ_NO_TRANS))
    r = HOP_TRANS_N;
  else if ((t == HOP_CBLAS_TRANS && !herm) || (t == HOP_CBLAS_CONJ_TRANS && (!complex || herm)))
    r = (int)other;
  if (r < 0 || !row_major)
    return r;
  return r == HOP_TRANS_N ? (int)other : HOP_TRANS_N;
}

int hop_cblas_l3_read(struct hop_l3_args *x, int order, int side, int uplo, int trans, int diag)
{
  bool row = order == HOP_CBLAS_ROW_MAJOR;
  if (!row && order != HOP_CBLAS_COL_MAJOR)
    return 0;
  x->row_major = row;
  /* Row-major: the column-major twin has the other side and triangle. */
  x->side = side == CBLAS_LEFT ? row : side == CBLAS_RIGHT ? !row : -1;
  x->uplo = hop_cblas_uplo(uplo);
  if (row && x->uplo >= 0)
    x->uplo = !x->uplo;
  x->diag = diag == CBLAS_UNIT ? 0 : diag == CBLAS_NON_UNIT ? 1 : -1;
  switch (x->op) {
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K:
    x->trans = cblas_rk_trans(trans, x->op, x->dtype, row);
    if (row && x->op == HOP_OP_HER2K)
      x->alpha.im = -x->alpha.im; /* C^T = conj(C): the twin's alpha is conj(alpha) */
    return -1;
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: x->trans = hop_cblas_trans(trans, hop_dtype_info(x->dtype)->is_complex);
    /* fall through */
  case HOP_OP_SYMM:
  case HOP_OP_HEMM:
    if (row) {
      int64_t m = x->m;
      x->m = x->n, x->n = m;
    }
    return -1;
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT: /* cblas/check.c */
  case HOP_OP_GEMM_BATCH: /* cblas/cblas_gemm_batch.c */
  case HOP_OP_COUNT: break;
  }
  return -1;
}

static int64_t at_least_1(int64_t v) { return v > 1 ? v : 1; }

int hop_l3_check(const struct hop_l3_args *x)
{
  int info = 0;
  switch (x->op) {
  case HOP_OP_SYMM:
  case HOP_OP_HEMM: {
    int64_t nrowa = x->side == 0 ? x->m : x->n;
    if (x->ldc < at_least_1(x->m)) info = 12;
    if (x->ldb < at_least_1(x->m)) info = 9;
    if (x->lda < at_least_1(nrowa)) info = 7;
    if (x->n < 0) info = 4;
    if (x->m < 0) info = 3;
    if (x->uplo < 0) info = 2;
    if (x->side < 0) info = 1;
    return info;
  }
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K: {
    bool two = x->op == HOP_OP_SYR2K || x->op == HOP_OP_HER2K;
    int64_t nrowa = x->trans == HOP_TRANS_N ? x->n : x->k;
    if (x->ldc < at_least_1(x->n)) info = two ? 12 : 10;
    if (two && x->ldb < at_least_1(nrowa)) info = 9;
    if (x->lda < at_least_1(nrowa)) info = 7;
    if (x->k < 0) info = 4;
    if (x->n < 0) info = 3;
    if (x->trans < 0) info = 2;
    if (x->uplo < 0) info = 1;
    return info;
  }
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: {
    int64_t nrowa = x->side == 0 ? x->m : x->n;
    if (x->ldb < at_least_1(x->m)) info = 11;
    if (x->lda < at_least_1(nrowa)) info = 9;
    if (x->n < 0) info = 6;
    if (x->m < 0) info = 5;
    if (x->diag < 0) info = 4;
    if (x->trans < 0) info = 3;
    if (x->uplo < 0) info = 2;
    if (x->side < 0) info = 1;
    return info;
  }
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT: /* cblas/check.c */
  case HOP_OP_GEMM_BATCH: /* cblas/cblas_gemm_batch.c */
  case HOP_OP_COUNT: break;
  }
  return info;
}

static bool is_one(struct hop_scalar s) { return s.re == 1.0 && s.im == 0.0; }

const char *hop_l3_quick(const struct hop_l3_args *x)
{
  bool nothing_to_add = hop_scalar_is_zero(x->alpha) && is_one(x->beta);
  switch (x->op) {
  case HOP_OP_SYMM:
  case HOP_OP_HEMM:
    return x->m == 0   ? "quick return: m == 0; C untouched"
           : x->n == 0 ? "quick return: n == 0; C untouched"
           : nothing_to_add ? "quick return: alpha == 0 and beta == 1; C untouched"
                            : NULL;
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K:
    return x->n == 0 ? "quick return: n == 0; C untouched"
           : x->k == 0 && is_one(x->beta) ? "quick return: k == 0 and beta == 1; C untouched"
           : nothing_to_add ? "quick return: alpha == 0 and beta == 1; C untouched"
                            : NULL;
  case HOP_OP_TRMM:
  case HOP_OP_TRSM:
    return x->m == 0   ? "quick return: m == 0; B untouched"
           : x->n == 0 ? "quick return: n == 0; B untouched"
                       : NULL;
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT: /* cblas/check.c */
  case HOP_OP_GEMM_BATCH: /* cblas/cblas_gemm_batch.c */
  case HOP_OP_COUNT: break;
  }
  return NULL;
}

void hop_l3_call(const struct hop_l3_args *x, const char *symbol, struct hop_call *g)
{
  *g = (struct hop_call){.op = x->op, .dtype = x->dtype, .symbol = symbol,
                         .row_major = x->row_major, .ta = HOP_TRANS_N, .tb = HOP_TRANS_N,
                         .right_side = x->side == 1, .upper = x->uplo == 1,
                         .unit_diag = x->diag == 0, .m = x->m, .n = x->n,
                         .alpha = x->alpha, .beta = x->beta, .a = x->a, .lda = x->lda,
                         .b = x->b, .ldb = x->ldb, .c = x->c, .ldc = x->ldc};
  switch (x->op) {
  case HOP_OP_SYMM:
  case HOP_OP_HEMM: g->k = g->right_side ? g->n : g->m; return;
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
    g->b = x->a, g->ldb = x->lda; /* op(A) op(A)^T (^H): B is A */
    /* fall through */
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K: {
    enum hop_trans t = hermitian(x->op) ? HOP_TRANS_C : HOP_TRANS_T;
    g->m = x->n, g->k = x->k;
    g->ta = (enum hop_trans)x->trans;
    g->tb = x->trans == HOP_TRANS_N ? t : HOP_TRANS_N;
    return;
  }
  case HOP_OP_TRMM:
  case HOP_OP_TRSM:
    g->k = g->right_side ? g->n : g->m;
    g->ta = (enum hop_trans)x->trans;
    g->c = (void *)x->b, g->ldc = x->ldb; /* B is read and written */
    g->b = NULL, g->ldb = 0;
    g->beta = (struct hop_scalar){0.0, 0.0};
    return;
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT: /* cblas/check.c */
  case HOP_OP_GEMM_BATCH: /* cblas/cblas_gemm_batch.c */
  case HOP_OP_COUNT: return;
  }
}

void hop_l3_run(void (*xerbla)(const char *name, int info), const struct hop_l3_args *x,
                const char *symbol, struct hop_trace_call *t)
{
  int info = hop_l3_check(x);
  if (info != 0) {
    char xname[8];
    hop_l3_xname(x->op, x->dtype, xname);
    xerbla(xname, info);
    hop_trace_rejected(t, info);
    return;
  }
  const char *quick = hop_l3_quick(x);
  if (quick != NULL) {
    if (hop_trace_on())
      hop_trace_unrouted(t, "core", quick);
    return;
  }
  struct hop_call g;
  hop_l3_call(x, symbol, &g);
  hop_call_run(&g);
}

void hop_cblas_l3_run(void (*xerbla)(const char *name, int info), struct hop_l3_args *x,
                      int order, int side, int uplo, int trans, int diag, const char *symbol,
                      struct hop_trace_call *t)
{
  if (hop_cblas_l3_read(x, order, side, uplo, trans, diag) == 0) {
    char xname[8];
    hop_l3_xname(x->op, x->dtype, xname);
    xerbla(xname, 0);
    hop_trace_rejected(t, 0);
    return;
  }
  hop_l3_run(xerbla, x, symbol, t);
}

struct hop_scalar hop_l3_real_scalar(enum hop_dtype dt, const void *p)
{
  return hop_dtype_load(hop_dtype_real(dt), true, p, 0);
}

char hop_trace_cblas_side(int side)
{
  return side == CBLAS_LEFT ? 'L' : side == CBLAS_RIGHT ? 'R' : '?';
}

char hop_trace_cblas_uplo(int uplo)
{
  return uplo == HOP_CBLAS_UPPER ? 'U' : uplo == HOP_CBLAS_LOWER ? 'L' : '?';
}

char hop_trace_cblas_diag(int diag)
{
  return diag == CBLAS_UNIT ? 'U' : diag == CBLAS_NON_UNIT ? 'N' : '?';
}
