/* Every INFO number of every GEMM entry point, in both orders, the way
 * OpenBLAS numbers them (reference/dropin-and-tests.md section 5): this
 * program defines its own xerbla_, exported with -export-dynamic, so the
 * library's report lands here; C must be left untouched and the report made
 * exactly once.  Built with -DXERBLA_SGEMM_ONLY and linked against OpenBLAS
 * alone (xerbla.test does that), the same table is checked against OpenBLAS
 * itself, which keeps the expectations honest.  Prints TAP. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static struct {
  int calls, info;
  char name[8];
  size_t len;
} seen;

/* Default visibility: the build's -fvisibility=hidden would keep it from
 * the dynamic symbol table even with -export-dynamic. */
__attribute__((visibility("default"))) void xerbla_(const char *name, const int *info, size_t len)
{
  seen.calls++;
  seen.info = *info;
  seen.len = len;
  size_t n = len < 6 ? len : 6;
  memset(seen.name, 0, sizeof seen.name);
  memcpy(seen.name, name, n);
}

/* Not ht_symbol: this file also builds without testutil.c, against OpenBLAS. */
static const char *symbol(enum ht_dtype dt, enum ht_entry e)
{
  if (dt == HT_S)
    return e == HT_CBLAS ? "cblas_sgemm" : "sgemm_";
  if (dt == HT_H)
    return e == HT_CBLAS ? "cblas_hgemm" : "hgemm_";
  return "cblas_shgemm";
}

enum bad { B_ORDER, B_TA, B_TB, B_M, B_N, B_K, B_LDA, B_LDB, B_LDC, B_M_AND_K, B_LDA_AND_LDC,
           B_M_AND_N, B_NONE, B_ZERO_LD, B_COUNT };
static const char *const bad_name[B_COUNT] = {"order", "transa", "transb", "m<0", "n<0", "k<0",
                                              "lda", "ldb", "ldc", "m<0,k<0", "lda,ldc", "m<0,n<0",
                                              "nothing", "all dims and lds 0"};

/* Expected INFO: OpenBLAS checks the column-major form of the call (a
 * row-major call has A/B, m/n and the transposes swapped) and reports the
 * lowest-numbered bad argument; a bad order is 0.  -1: no report (like
 * OpenBLAS, an ld of 0 is accepted when its dimension is 0). */
static int expected_info(enum bad b, bool row)
{
  static const int col[B_COUNT] = {0, 1, 2, 3, 4, 5, 8, 10, 13, 3, 8, 3, -1, -1};
  static const int rowm[B_COUNT] = {0, 2, 1, 4, 3, 5, 10, 8, 13, 4, 10, 3, -1, -1};
  return row ? rowm[b] : col[b];
}

/* One bad call; ta/tb choose which dimension lda/ldb must cover. */
static bool check_one(enum ht_dtype dt, enum ht_entry e, bool row, enum bad b, int ta, int tb,
                      char *why, size_t len)
{
  enum { M = 3, N = 4, K = 5, BIG = 8 };
  float fa[BIG * BIG], fb[BIG * BIG], fc[BIG * BIG], fc0[BIG * BIG];
  uint16_t ha[BIG * BIG], hb[BIG * BIG], hc[BIG * BIG], hc0[BIG * BIG];
  for (int i = 0; i < BIG * BIG; i++) {
    fa[i] = fb[i] = 1.0f, fc[i] = fc0[i] = -9999.75f;
    ha[i] = hb[i] = 0x3c00, hc[i] = hc0[i] = 0xf0e1;
  }
  int order = row ? HT_ROW : HT_COL, m = M, n = N, k = K;
  int nrowa = ta == HT_N ? M : K, ncola = ta == HT_N ? K : M;
  int nrowb = tb == HT_N ? K : N, ncolb = tb == HT_N ? N : K;
  int lda = row ? ncola : nrowa, ldb = row ? ncolb : nrowb, ldc = row ? N : M;
  int tra = ta, trb = tb;
  if (b == B_ORDER) order = 99;
  if (b == B_TA) tra = 0;
  if (b == B_TB) trb = 1000;
  if (b == B_M || b == B_M_AND_K || b == B_M_AND_N) m = -1;
  if (b == B_N || b == B_M_AND_N) n = -2;
  if (b == B_K || b == B_M_AND_K) k = -1;
  if (b == B_LDA || b == B_LDA_AND_LDC) lda--;
  if (b == B_LDB) ldb--;
  if (b == B_LDC || b == B_LDA_AND_LDC) ldc--;
  if (b == B_ZERO_LD) m = n = k = lda = ldb = ldc = 0;
  memset(&seen, 0, sizeof seen);
  const char *want_name = dt == HT_S ? "SGEMM " : dt == HT_H ? "HGEMM " : "SHGEMM";
  if (e == HT_FORTRAN) {
    char ca = b == B_TA ? 'X' : ta == HT_N ? 'N' : ta == HT_T ? 't' : 'C';
    char cb = b == B_TB ? '/' : tb == HT_N ? 'n' : tb == HT_T ? 'T' : 'c';
    float al = 1.0f, be = 0.0f;
    hopblas_half hal = 0x3c00, hbe = 0;
    if (dt == HT_S)
      sgemm_(&ca, &cb, &m, &n, &k, &al, fa, &lda, fb, &ldb, &be, fc, &ldc);
#ifndef XERBLA_SGEMM_ONLY
    else
      hgemm_(&ca, &cb, &m, &n, &k, &hal, ha, &lda, hb, &ldb, &hbe, hc, &ldc);
#endif
    (void)hal, (void)hbe;
  } else if (dt == HT_S) {
    cblas_sgemm(order, tra, trb, m, n, k, 1.0f, fa, lda, fb, ldb, 0.0f, fc, ldc);
#ifndef XERBLA_SGEMM_ONLY
  } else if (dt == HT_H) {
    cblas_hgemm(order, tra, trb, m, n, k, 0x3c00, ha, lda, hb, ldb, 0, hc, ldc);
  } else {
    cblas_shgemm(order, tra, trb, m, n, k, 1.0f, ha, lda, hb, ldb, 0.0f, fc, ldc);
#endif
  }
  int want = expected_info(b, row && e == HT_CBLAS);
  if (want < 0 && seen.calls != 0) {
    snprintf(why, len, "xerbla_ called with '%s' INFO %d for a valid call", seen.name, seen.info);
    return false;
  }
  if (want >= 0 && (seen.calls != 1 || seen.info != want || strcmp(seen.name, want_name) != 0)) {
    snprintf(why, len, "xerbla_ called %d times, last with '%s' INFO %d; expected '%s' INFO %d",
             seen.calls, seen.name, seen.info, want_name, want);
    return false;
  }
  /* OpenBLAS passes 7 (sizeof "SGEMM "), hopblas's own checks 6; tiny
   * sgemm calls may be checked by OpenBLAS itself (the fast path). */
  if (want >= 0 && seen.len != 6 && seen.len != 7) {
    snprintf(why, len, "xerbla_ got name length %zu", seen.len);
    return false;
  }
  if (want >= 0 && (memcmp(fc, fc0, sizeof fc) != 0 || memcmp(hc, hc0, sizeof hc) != 0)) {
    snprintf(why, len, "C was written");
    return false;
  }
  return true;
}

int main(int argc, char **argv)
{
  const char *label = argc > 1 ? argv[1] : ""; /* prefix of every description */
  static const struct {
    enum ht_dtype dt;
    enum ht_entry e;
    bool row;
  } groups[] = {
    {HT_S, HT_CBLAS, false}, {HT_S, HT_CBLAS, true}, {HT_S, HT_FORTRAN, false},
#ifndef XERBLA_SGEMM_ONLY
    {HT_H, HT_CBLAS, false}, {HT_H, HT_CBLAS, true}, {HT_H, HT_FORTRAN, false},
    {HT_SH, HT_CBLAS, false}, {HT_SH, HT_CBLAS, true},
#endif
  };
  static const int tr[4][2] = {{HT_N, HT_N}, {HT_T, HT_N}, {HT_N, HT_CT}, {HT_CT, HT_T}};
  int ng = (int)(sizeof groups / sizeof groups[0]), failed = 0;
  printf("1..%d\n", ng);
  for (int g = 0; g < ng; g++) {
    int cases = 0, bad = 0;
    for (int b = 0; b < B_COUNT; b++) {
      if (groups[g].e == HT_FORTRAN && b == B_ORDER)
        continue;
      for (int t = 0; t < 4; t++) {
        char why[256];
        cases++;
        if (!check_one(groups[g].dt, groups[g].e, groups[g].row, b, tr[t][0], tr[t][1], why,
                       sizeof why)) {
          if (bad++ < 5)
            printf("# %s %s, bad %s, trans %d/%d: %s\n", symbol(groups[g].dt, groups[g].e),
                   groups[g].row ? "row-major" : "col-major", bad_name[b], tr[t][0], tr[t][1], why);
        }
      }
    }
    printf("%s %d - %s%s%s: every bad argument reported with its INFO, C untouched (%d cases)\n",
           bad ? "not ok" : "ok", g + 1, label, symbol(groups[g].dt, groups[g].e),
           groups[g].e == HT_FORTRAN ? "" : groups[g].row ? " row-major" : " col-major", cases);
    failed += bad != 0;
  }
  return failed ? 1 : 0;
}
