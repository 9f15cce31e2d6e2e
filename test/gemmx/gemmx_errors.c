/* Argument errors of gemmt and of the batched GEMMs, reported through this
 * program's xerbla_ (xerbla_64_ for the ILP64 names; the program is linked
 * with -export-dynamic) exactly once, with OpenBLAS's routine name and
 * number, C untouched.  gemmt's numbers are the caller's
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

/* The report of the call just made: none (want < 0), or exactly one, of
 * INFO want and routine name, through xerbla_64_ for the ILP64 names, and
 * C untouched; false with why. */
static bool report_ok(int want, const char *name, bool ilp64, bool untouched, const char *what,
                      char *why, size_t len)
{
  if (want < 0 ? gx_xerbla_calls == 0
               : gx_xerbla_calls == 1 && gx_xerbla_info == want && gx_xerbla_64 == ilp64 &&
                   strcmp(gx_xerbla_name, name) == 0 && untouched)
    return true;
  snprintf(why, len, "%s: %d reports, INFO %d, name \"%s\"%s; expected INFO %d \"%s\"%s", what,
           gx_xerbla_calls, gx_xerbla_info, gx_xerbla_name, gx_xerbla_64 ? " (xerbla_64_)" : "",
           want, name, untouched ? "" : "; C was written");
  return false;
}

/* Base call: n = 3, k = 2, op(A) = A^T (A is 2 x 3), op(B) = B (2 x 3):
 * column-major lda, ldb >= 2, row-major >= 3; ldc >= 3. */
static int expected(enum bad b, bool row)
{
  static const int info[B_COUNT] = {0, 1, 2, 3, 4, 5, 8, 10, 13, 4, 8, 8, -1};
  if (b == B_LDA_ROW)
    return row ? 8 : -1;
  return info[b];
}

static void gemmt_call(enum ht_dtype dt, const struct gx_entry *e, enum bad b, bool row, void *c)
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
  gx_gemmt_call(dt, e, order, uplo, ta, tb, n, k, al, a, lda, bm, ldb, be, c, ldc);
}

static void gemmt_errors(bool ilp64)
{
  static const enum ht_dtype dts[] = {HT_S, HT_D, HT_C, HT_Z};
  for (int d = 0; d < 4; d++)
    for (int tr = 0; tr < 2; tr++)
      for (int fortran = 0; fortran < 2; fortran++)
        for (int row = 0; row < (fortran ? 1 : 2); row++) {
          enum ht_dtype dt = dts[d];
          struct gx_entry e = {fortran, tr, false, ilp64};
          char name[12], entry[32], why[240] = "";
          snprintf(name, sizeof name, "%c%s", "SDCZ"[d], tr ? "GEMMTR" : "GEMMT ");
          snprintf(entry, sizeof entry, "%s%cgemmt%s%s%s", fortran ? "" : "cblas_", "sdcz"[d],
                   tr ? "r" : "", ilp64 && !fortran ? "64" : "", fortran ? (ilp64 ? "_64_" : "_")
                                                                       : ilp64 ? "_" : "");
          bool ok = true;
          for (int b = 0; b < B_COUNT && ok; b++) {
            if (fortran && (b == B_ORDER || b == B_LDA_ROW))
              continue;
            double c[64];
            for (int i = 0; i < 64; i++)
              c[i] = -9999.75;
            gx_xerbla_calls = 0;
            gemmt_call(dt, &e, (enum bad)b, row, c);
            int want = expected((enum bad)b, row);
            bool untouched = true;
            for (int i = 0; i < 64 && want >= 0; i++)
              untouched &= c[i] == -9999.75;
            ok = report_ok(want, name, ilp64, untouched, bad_name[b], why, sizeof why);
          }
          gx_result(ok, "", "%s %s: every argument error numbered as OpenBLAS does, C untouched%s%s",
                    entry, fortran ? "" : row ? "row" : "col", ok ? "" : ": ", why);
        }
}

/* ---- batched GEMM ----------------------------------------------------------
 * Each group is checked as GEMM is, OpenBLAS's numbers (a row-major call in
 * the swapped problem's terms: transa 2, transb 1, m 4, n 3, lda 10, ldb 8);
 * the bad argument is in the second of two groups, and the first group's C
 * must stay untouched too: nothing is computed. */
enum bbad { X_ORDER, X_TA, X_TB, X_M, X_N, X_K, X_LDA, X_LDB, X_LDC, X_NONE, X_COUNT };
static const char *const bbad_name[X_COUNT] = {"order", "transa", "transb", "m<0", "n<0",
                                               "k<0", "lda", "ldb", "ldc", "nothing"};

static int batch_expected(enum bbad b, bool row)
{
  static const int col[X_COUNT] = {0, 1, 2, 3, 4, 5, 8, 10, 13, -1};
  static const int swapped[X_COUNT] = {0, 2, 1, 4, 3, 5, 10, 8, 13, -1};
  return row ? swapped[b] : col[b];
}

/* Group shape: m = 3, n = 4, k = 2, NN, every ld 5 (enough in both orders). */
static void batch_call(enum ht_dtype dt, bool ilp64, bool strided, enum bbad b, bool row,
                       double *c0, double *c1)
{
  static const double one[4] = {1.0, 0.0, 1.0, 0.0}, zero[4] = {0.0, 0.0, 0.0, 0.0};
  static const float onef[4] = {1, 0, 1, 0}, zerof[4] = {0, 0, 0, 0};
  static double a[64], bm[64];
  bool dbl = dt == HT_D || dt == HT_Z;
  const void *al = dbl ? (const void *)one : onef, *be = dbl ? (const void *)zero : zerof;
  int order = b == X_ORDER ? 999 : row ? HT_ROW : HT_COL;
  int ta[2] = {HT_N, b == X_TA ? 999 : HT_N}, tb[2] = {HT_N, b == X_TB ? 999 : HT_N};
  int64_t m[2] = {3, b == X_M ? -1 : 3}, n[2] = {4, b == X_N ? -1 : 4};
  int64_t k[2] = {2, b == X_K ? -1 : 2}, lda[2] = {5, b == X_LDA ? 1 : 5};
  int64_t ldb[2] = {5, b == X_LDB ? 1 : 5}, ldc[2] = {5, b == X_LDC ? 2 : 5}, size[2] = {1, 1};
  const void *pa[2] = {a, a}, *pb[2] = {bm, bm};
  void *pc[2] = {c0, c1};
  if (strided) /* one group: the bad argument in it */
    gx_strided_call(dt, ilp64, order, ta[1], tb[1], m[1], n[1], k[1], al, a, lda[1], 0, bm, ldb[1],
                    0, be, c1, ldc[1], 0, 1);
  else
    gx_batch_call(dt, ilp64, order, ta, tb, m, n, k, al, pa, lda, pb, ldb, be, pc, ldc, 2, size);
}

static void batch_errors(bool ilp64)
{
  static const enum ht_dtype dts[] = {HT_S, HT_D, HT_C, HT_Z};
  for (int d = 0; d < 4; d++)
    for (int strided = 0; strided < 2; strided++)
      for (int row = 0; row < 2; row++) {
        char name[24], why[240] = "";
        snprintf(name, sizeof name, "%cGEMM_BATCH%s", "SDCZ"[d], strided ? "_STRIDED " : " ");
        bool ok = true;
        for (int b = 0; b < X_COUNT && ok; b++) {
          double c0[64], c1[64];
          for (int i = 0; i < 64; i++)
            c0[i] = c1[i] = -9999.75;
          gx_xerbla_calls = 0;
          batch_call(dts[d], ilp64, strided, (enum bbad)b, row, c0, c1);
          int want = batch_expected((enum bbad)b, row);
          bool untouched = true;
          for (int i = 0; i < 64 && want >= 0; i++)
            untouched &= c0[i] == -9999.75 && c1[i] == -9999.75;
          ok = report_ok(want, name, ilp64, untouched, bbad_name[b], why, sizeof why);
        }
        gx_result(ok, "", "cblas_%cgemm_batch%s%s %s: every argument error numbered as OpenBLAS "
                  "does, no problem computed%s%s", "sdcz"[d], strided ? "_strided" : "",
                  ilp64 ? "64_" : "", row ? "row" : "col", ok ? "" : ": ", why);
      }
}

void gx_errors(bool ilp64)
{
  gemmt_errors(ilp64);
  batch_errors(ilp64);
}
