/* Every INFO number of every GEMM entry point, in both orders, the way
 * OpenBLAS numbers them (reference/dropin-and-tests.md section 5): this
 * program defines its own xerbla_, exported with -export-dynamic, so the
 * library's report lands here; C must be left untouched and the report made
 * exactly once, with OpenBLAS's routine name ("CGEMM3M " for both 3m forms
 * of c).  Built with -DXERBLA_NO_HALF and linked against OpenBLAS alone
 * (xerbla.test does that), the same table is checked against OpenBLAS
 * itself for every entry point it has (all but the half ones), which keeps
 * the expectations honest.  Prints TAP. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static struct {
  int calls, info;
  char name[12];
  size_t len;
} seen;

/* Default visibility: the build's -fvisibility=hidden would keep it from
 * the dynamic symbol table even with -export-dynamic. */
__attribute__((visibility("default"))) void xerbla_(const char *name, const int *info, size_t len)
{
  seen.calls++;
  seen.info = *info;
  seen.len = len;
  size_t n = len < 8 ? len : 8;
  memset(seen.name, 0, sizeof seen.name);
  memcpy(seen.name, name, n);
}

/* Not ht_dtypes: this file also builds without testutil.c, against OpenBLAS.
 * A group is a dtype, an entry kind and the 3m form; the name is xerbla's. */
struct entry {
  enum ht_dtype dt;
  enum ht_entry e;
  bool three_m;
};

static const char *symbol(const struct entry *g)
{
  static const char *const cblas[HT_DTYPE_COUNT] = {"cblas_sgemm", "cblas_hgemm", "cblas_shgemm",
                                                    "cblas_dgemm", "cblas_cgemm", "cblas_zgemm"};
  static const char *const fortran[HT_DTYPE_COUNT] = {"sgemm_", "hgemm_", "", "dgemm_", "cgemm_",
                                                      "zgemm_"};
  if (g->three_m)
    return g->dt == HT_C ? (g->e == HT_CBLAS ? "cblas_cgemm3m" : "cgemm3m_")
                         : (g->e == HT_CBLAS ? "cblas_zgemm3m" : "zgemm3m_");
  return g->e == HT_CBLAS ? cblas[g->dt] : fortran[g->dt];
}

static const char *xerbla_name(const struct entry *g)
{
  static const char *const names[HT_DTYPE_COUNT] = {"SGEMM ", "HGEMM ", "SHGEMM", "DGEMM ",
                                                    "CGEMM ", "ZGEMM "};
  if (g->three_m)
    return g->dt == HT_C ? "CGEMM3M " : "ZGEMM3M ";
  return names[g->dt];
}

/* The call itself, with alpha = 1 and beta = 0 in the entry point's type. */
static void invoke(const struct entry *g, int order, int ta, int tb, char ca, char cb, int m, int n,
                   int k, const void *a, int lda, const void *b, int ldb, void *c, int ldc)
{
  static const float f1[2] = {1.0f, 0.0f}, f0[2] = {0.0f, 0.0f};
  static const double d1[2] = {1.0, 0.0}, d0[2] = {0.0, 0.0};
  const void *one = g->dt == HT_D || g->dt == HT_Z ? (const void *)d1 : f1;
  const void *zero = g->dt == HT_D || g->dt == HT_Z ? (const void *)d0 : f0;
  if (g->e == HT_FORTRAN) {
    switch (g->dt) {
    case HT_S: sgemm_(&ca, &cb, &m, &n, &k, f1, a, &lda, b, &ldb, f0, c, &ldc); break;
    case HT_D: dgemm_(&ca, &cb, &m, &n, &k, d1, a, &lda, b, &ldb, d0, c, &ldc); break;
    case HT_C:
      (g->three_m ? cgemm3m_ : cgemm_)(&ca, &cb, &m, &n, &k, one, a, &lda, b, &ldb, zero, c, &ldc);
      break;
    case HT_Z:
      (g->three_m ? zgemm3m_ : zgemm_)(&ca, &cb, &m, &n, &k, one, a, &lda, b, &ldb, zero, c, &ldc);
      break;
#ifndef XERBLA_NO_HALF
    case HT_H:
      hgemm_(&ca, &cb, &m, &n, &k, &(hopblas_half){0x3c00}, a, &lda, b, &ldb, &(hopblas_half){0},
             c, &ldc);
      break;
#endif
    default: break;
    }
    return;
  }
  switch (g->dt) {
  case HT_S: cblas_sgemm(order, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc); break;
  case HT_D: cblas_dgemm(order, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc); break;
  case HT_C:
    (g->three_m ? cblas_cgemm3m : cblas_cgemm)(order, ta, tb, m, n, k, one, a, lda, b, ldb, zero,
                                               c, ldc);
    break;
  case HT_Z:
    (g->three_m ? cblas_zgemm3m : cblas_zgemm)(order, ta, tb, m, n, k, one, a, lda, b, ldb, zero,
                                               c, ldc);
    break;
#ifndef XERBLA_NO_HALF
  case HT_H: cblas_hgemm(order, ta, tb, m, n, k, 0x3c00, a, lda, b, ldb, 0, c, ldc); break;
  case HT_SH: cblas_shgemm(order, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc); break;
#endif
  default: break;
  }
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
static bool check_one(const struct entry *g, bool row, enum bad b, int ta, int tb, char *why,
                      size_t len)
{
  enum { M = 3, N = 4, K = 5, BIG = 8, BYTES = BIG * BIG * 16 };
  /* A and B: 1.0 in half, float and double parts alike is not needed, any
   * finite bytes do; C: a pattern that must survive every bad call. */
  static unsigned char a[BYTES], b2[BYTES], c[BYTES], c0[BYTES];
  memset(a, 0, sizeof a), memset(b2, 0, sizeof b2), memset(c, 0xa5, sizeof c);
  memcpy(c0, c, sizeof c);
  bool nta = ta == HT_N || ta == HT_CN, ntb = tb == HT_N || tb == HT_CN;
  int order = row ? HT_ROW : HT_COL, m = M, n = N, k = K;
  int nrowa = nta ? M : K, ncola = nta ? K : M;
  int nrowb = ntb ? K : N, ncolb = ntb ? N : K;
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
  static const char tch[] = "NtCr", tch2[] = "nTcR";
  char ca = b == B_TA ? 'X' : tch[ta - HT_N], cb = b == B_TB ? '/' : tch2[tb - HT_N];
  invoke(g, order, tra, trb, ca, cb, m, n, k, a, lda, b2, ldb, c, ldc);
  const char *want_name = xerbla_name(g);
  int want = expected_info(b, row && g->e == HT_CBLAS);
  if (want < 0 && seen.calls != 0) {
    snprintf(why, len, "xerbla_ called with '%s' INFO %d for a valid call", seen.name, seen.info);
    return false;
  }
  if (want >= 0 && (seen.calls != 1 || seen.info != want || strcmp(seen.name, want_name) != 0)) {
    snprintf(why, len, "xerbla_ called %d times, last with '%s' INFO %d; expected '%s' INFO %d",
             seen.calls, seen.name, seen.info, want_name, want);
    return false;
  }
  /* OpenBLAS passes sizeof "SGEMM " (7), hopblas's own checks strlen (6);
   * tiny calls may be checked by OpenBLAS itself (the fast path). */
  size_t name_len = strlen(want_name);
  if (want >= 0 && seen.len != name_len && seen.len != name_len + 1) {
    snprintf(why, len, "xerbla_ got name length %zu", seen.len);
    return false;
  }
  if (want >= 0 && memcmp(c, c0, sizeof c) != 0) {
    snprintf(why, len, "C was written");
    return false;
  }
  return true;
}

int main(int argc, char **argv)
{
  const char *label = argc > 1 ? argv[1] : ""; /* prefix of every description */
  static const struct {
    struct entry g;
    bool row;
  } groups[] = {
    {{HT_S, HT_CBLAS, false}, false}, {{HT_S, HT_CBLAS, false}, true}, {{HT_S, HT_FORTRAN, false}, false},
    {{HT_D, HT_CBLAS, false}, false}, {{HT_D, HT_CBLAS, false}, true}, {{HT_D, HT_FORTRAN, false}, false},
    {{HT_C, HT_CBLAS, false}, false}, {{HT_C, HT_CBLAS, false}, true}, {{HT_C, HT_FORTRAN, false}, false},
    {{HT_Z, HT_CBLAS, false}, false}, {{HT_Z, HT_CBLAS, false}, true}, {{HT_Z, HT_FORTRAN, false}, false},
    {{HT_C, HT_CBLAS, true}, false},  {{HT_C, HT_CBLAS, true}, true},  {{HT_C, HT_FORTRAN, true}, false},
    {{HT_Z, HT_CBLAS, true}, false},  {{HT_Z, HT_CBLAS, true}, true},  {{HT_Z, HT_FORTRAN, true}, false},
#ifndef XERBLA_NO_HALF
    {{HT_H, HT_CBLAS, false}, false}, {{HT_H, HT_CBLAS, false}, true}, {{HT_H, HT_FORTRAN, false}, false},
    {{HT_SH, HT_CBLAS, false}, false}, {{HT_SH, HT_CBLAS, false}, true},
#endif
  };
  /* ConjNoTrans ('R') too: complex conjugates, real reads it as N, as OpenBLAS does. */
  static const int tr[6][2] = {{HT_N, HT_N},  {HT_T, HT_N},  {HT_N, HT_CT},
                               {HT_CT, HT_T}, {HT_CN, HT_N}, {HT_T, HT_CN}};
  int ng = (int)(sizeof groups / sizeof groups[0]), failed = 0;
  printf("1..%d\n", ng);
  for (int gi = 0; gi < ng; gi++) {
    const struct entry *g = &groups[gi].g;
    bool row = groups[gi].row;
    int cases = 0, bad = 0;
    for (int b = 0; b < B_COUNT; b++) {
      if (g->e == HT_FORTRAN && b == B_ORDER)
        continue;
      for (int t = 0; t < 6; t++) {
        char why[256];
        cases++;
        if (!check_one(g, row, b, tr[t][0], tr[t][1], why, sizeof why)) {
          if (bad++ < 5)
            printf("# %s %s, bad %s, trans %d/%d: %s\n", symbol(g),
                   row ? "row-major" : "col-major", bad_name[b], tr[t][0], tr[t][1], why);
        }
      }
    }
    printf("%s %d - %s%s%s: every bad argument reported with its INFO, C untouched (%d cases)\n",
           bad ? "not ok" : "ok", gi + 1, label, symbol(g),
           g->e == HT_FORTRAN ? "" : row ? " row-major" : " col-major", cases);
    failed += bad != 0;
  }
  return failed ? 1 : 0;
}
