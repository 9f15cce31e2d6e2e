/* Argument errors of gemmt, reported through this program's xerbla_ (the
 * program is linked with -export-dynamic) exactly once, with OpenBLAS's
 * routine name and number, C untouched.  gemmt's numbers are the caller's
 * positions in both orders, as OpenBLAS's interface/gemmt.c reports them:
 * uplo 1, transa 2, transb 3, n 4, k 5, lda 8, ldb 10, ldc 13; a bad order
 * is 0 (CBLAS); every ld must be at least 1. */
#include <string.h>

#include "gemmx.h"

enum bad { B_ORDER, B_UPLO, B_TA, B_TB, B_N, B_K, B_LDA, B_LDB, B_LDC, B_N_AND_LDA, B_ZERO_LDS,
           B_LDA_ROW, B_NONE, B_COUNT };
static const char *const bad_name[B_COUNT] = {
  "order", "uplo", "transa", "transb", "n<0", "k<0", "lda", "ldb", "ldc", "n<0,lda",
  "n=0 with every ld 0", "lda=2 (enough in col-major only)", "nothing"};

/* Base call: n = 3, k = 2, op(A) = A^T (A is 2 x 3), op(B) = B (2 x 3):
 * column-major lda, ldb >= 2, row-major >= 3; ldc >= 3. */
static int expected(enum bad b, bool row)
{
  static const int info[B_COUNT] = {0, 1, 2, 3, 4, 5, 8, 10, 13, 4, 8, 8, -1};
  if (b == B_LDA_ROW)
    return row ? 8 : -1;
  return info[b];
}

static void gemmt_call(enum ht_dtype dt, bool tr, bool fortran, enum bad b, bool row, void *c)
{
  static const double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
  static const float onef[2] = {1.0f, 0.0f}, zerof[2] = {0.0f, 0.0f};
  static double a[64], bm[64];
  bool dbl = dt == HT_D || dt == HT_Z;
  const void *al = dbl ? (const void *)one : onef, *be = dbl ? (const void *)zero : zerof;
  int order = b == B_ORDER ? 999 : row ? HT_ROW : HT_COL;
  int uplo = b == B_UPLO ? 999 : GX_LOWER, ta = b == B_TA ? 999 : HT_T, tb = b == B_TB ? 999 : HT_N;
  int n = b == B_N || b == B_N_AND_LDA ? -1 : b == B_ZERO_LDS ? 0 : 3, k = b == B_K ? -1 : 2;
  int lda = b == B_LDA || b == B_N_AND_LDA ? 1 : b == B_ZERO_LDS ? 0 : b == B_LDA_ROW ? 2 : 5;
  int ldb = b == B_LDB ? 1 : b == B_ZERO_LDS ? 0 : 5, ldc = b == B_LDC ? 2 : b == B_ZERO_LDS ? 0 : 5;
  if (fortran) {
    char u = b == B_UPLO ? 'X' : 'L', cta = b == B_TA ? 'X' : 'T', ctb = b == B_TB ? 'X' : 'N';
    gx_f77_gemmt(dt, tr, false)(&u, &cta, &ctb, &n, &k, al, a, &lda, bm, &ldb, be, c, &ldc);
    return;
  }
  switch (dt) {
  case HT_S:
    (tr ? cblas_sgemmtr : cblas_sgemmt)(order, uplo, ta, tb, n, k, 1.0f, (float *)a, lda,
                                        (float *)bm, ldb, 0.0f, c, ldc);
    break;
  case HT_D:
    (tr ? cblas_dgemmtr : cblas_dgemmt)(order, uplo, ta, tb, n, k, 1.0, a, lda, bm, ldb, 0.0, c,
                                        ldc);
    break;
  case HT_C:
    (tr ? cblas_cgemmtr : cblas_cgemmt)(order, uplo, ta, tb, n, k, al, a, lda, bm, ldb, be, c,
                                        ldc);
    break;
  case HT_Z:
    (tr ? cblas_zgemmtr : cblas_zgemmt)(order, uplo, ta, tb, n, k, al, a, lda, bm, ldb, be, c,
                                        ldc);
    break;
  default: break;
  }
}

static void gemmt_errors(void)
{
  static const enum ht_dtype dts[] = {HT_S, HT_D, HT_C, HT_Z};
  for (int d = 0; d < 4; d++)
    for (int tr = 0; tr < 2; tr++)
      for (int fortran = 0; fortran < 2; fortran++)
        for (int row = 0; row < (fortran ? 1 : 2); row++) {
          enum ht_dtype dt = dts[d];
          char name[12], entry[24], why[200] = "";
          snprintf(name, sizeof name, "%c%s", "sdcz"[d], tr ? "GEMMTR" : "GEMMT ");
          name[0] = (char)(name[0] - 'a' + 'A');
          snprintf(entry, sizeof entry, "%s%cgemmt%s%s", fortran ? "" : "cblas_", "sdcz"[d],
                   tr ? "r" : "", fortran ? "_" : "");
          bool ok = true;
          for (int b = 0; b < B_COUNT && ok; b++) {
            if (fortran && (b == B_ORDER || b == B_LDA_ROW))
              continue;
            double c[64];
            for (int i = 0; i < 64; i++)
              c[i] = -9999.75;
            gx_xerbla_calls = 0;
            gemmt_call(dt, tr, fortran, (enum bad)b, row, c);
            int want = expected((enum bad)b, row);
            bool untouched = true;
            for (int i = 0; i < 64 && want >= 0; i++)
              untouched &= c[i] == -9999.75;
            if (want < 0 ? gx_xerbla_calls != 0
                         : gx_xerbla_calls != 1 || gx_xerbla_info != want ||
                             strcmp(gx_xerbla_name, name) != 0 || !untouched) {
              snprintf(why, sizeof why, "%s: %d reports, INFO %d, name \"%s\"; expected INFO %d "
                       "\"%s\"%s", bad_name[b], gx_xerbla_calls, gx_xerbla_info, gx_xerbla_name,
                       want, name, untouched ? "" : "; C was written");
              ok = false;
            }
          }
          gx_result(ok, "", "%s %s: every argument error numbered as OpenBLAS does, C untouched%s%s",
                    entry, fortran ? "" : row ? "row" : "col", ok ? "" : ": ", why);
        }
}

void gx_errors(void) { gemmt_errors(); }
