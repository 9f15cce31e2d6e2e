/* The ILP64 interface of a preloaded hopblas, from a program linked against
 * Debian's libopenblas64 (OpenBLAS with 64-bit integers under the plain
 * names) and nothing else: hopblas's ILP64 names (cblas_sgemm64_,
 * sgemm_64_) and scipy-openblas's (scipy_cblas_sgemm64_, scipy_sgemm_64_)
 * are looked up at run time; libopenblas64's own sgemm_, cblas_sgemm, ...
 * (through its handle) are the reference.  Prints TAP.
 *
 *   ilp64 [--big cblas|fortran]
 *
 * - names: every ILP64 and scipy64 name of s, d, c, z resolves into hopblas;
 * - agree: each of them, on transposes, both orders, complex alpha and beta,
 *   padded leading dimensions, against libopenblas64, C's padding untouched;
 * - errors: every INFO through the program's own xerbla_64_, C untouched,
 *   including values that a 32-bit truncation would make valid;
 * - big ld: leading dimensions beyond 2^32 (sparse mappings: only the
 *   touched pages cost memory), exact results, for GEMM and for every other
 *   Level-3 routine against libopenblas64's;
 * - --big: one sgemm with k = 2^31 + 3 (reads 16 GB of mostly untouched
 *   address space: seconds), exact result. */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tap.h"

enum { ROW = 101, COL = 102, NT = 111, TR = 112, CT = 113 };

typedef void f77_fn(const char *, const char *, const int64_t *, const int64_t *, const int64_t *,
                    const void *, const void *, const int64_t *, const void *, const int64_t *,
                    const void *, void *, const int64_t *);
typedef void cblas_s_fn(int, int, int, int64_t, int64_t, int64_t, float, const void *, int64_t,
                        const void *, int64_t, float, void *, int64_t);
typedef void cblas_d_fn(int, int, int, int64_t, int64_t, int64_t, double, const void *, int64_t,
                        const void *, int64_t, double, void *, int64_t);
typedef void cblas_x_fn(int, int, int, int64_t, int64_t, int64_t, const void *, const void *,
                        int64_t, const void *, int64_t, const void *, void *, int64_t);

/* s, d, c, z: element size, parts, eps, the xerbla name. */
static const struct {
  char letter;
  size_t esize;
  int parts;
  double eps;
  const char *xname;
} dts[4] = {{'s', 4, 1, FLT_EPSILON, "SGEMM"},
            {'d', 8, 1, DBL_EPSILON, "DGEMM"},
            {'c', 8, 2, FLT_EPSILON, "CGEMM"},
            {'z', 16, 2, DBL_EPSILON, "ZGEMM"}};

static void *openblas64;

/* hopblas's name of dtype d: cblas or Fortran, with scipy-openblas's prefix or not. */
static void *hop_entry(int d, bool cblas, bool scipy, char *name, size_t len)
{
  snprintf(name, len, "%s%s%cgemm%s", scipy ? "scipy_" : "", cblas ? "cblas_" : "",
           dts[d].letter, cblas ? "64_" : "_64_");
  return dlsym(RTLD_DEFAULT, name);
}

static void *ref_entry(int d, bool cblas)
{
  char name[32];
  snprintf(name, sizeof name, "%s%cgemm%s", cblas ? "cblas_" : "", dts[d].letter,
           cblas ? "" : "_");
  return dlsym(openblas64, name);
}

static char letter(int t) { return t == NT ? 'N' : t == TR ? 'T' : t == CT ? 'C' : 'X'; }

/* One call of fn, CBLAS or Fortran, scalars as (re, im) doubles. */
static void call(void *fn, int d, bool cblas, int order, int ta, int tb, int64_t m, int64_t n,
                 int64_t k, const double al[2], const void *a, int64_t lda, const void *b,
                 int64_t ldb, const double be[2], void *c, int64_t ldc)
{
  float fa[2] = {(float)al[0], (float)al[1]}, fb[2] = {(float)be[0], (float)be[1]};
  const void *pa = dts[d].esize / dts[d].parts == 4 ? (const void *)fa : al;
  const void *pb = dts[d].esize / dts[d].parts == 4 ? (const void *)fb : be;
  if (!cblas) {
    char ca = letter(ta), cb = letter(tb);
    ((f77_fn *)fn)(&ca, &cb, &m, &n, &k, pa, a, &lda, b, &ldb, pb, c, &ldc);
  } else if (d == 0)
    ((cblas_s_fn *)fn)(order, ta, tb, m, n, k, fa[0], a, lda, b, ldb, fb[0], c, ldc);
  else if (d == 1)
    ((cblas_d_fn *)fn)(order, ta, tb, m, n, k, al[0], a, lda, b, ldb, be[0], c, ldc);
  else
    ((cblas_x_fn *)fn)(order, ta, tb, m, n, k, pa, a, lda, b, ldb, pb, c, ldc);
}

static double part(int d, const void *x, size_t i)
{
  return dts[d].esize / dts[d].parts == 4 ? ((const float *)x)[i] : ((const double *)x)[i];
}

static void set_part(int d, void *x, size_t i, double v)
{
  if (dts[d].esize / dts[d].parts == 4)
    ((float *)x)[i] = (float)v;
  else
    ((double *)x)[i] = v;
}

/* ---- names --------------------------------------------------------------- */
static void check_names(void)
{
  Dl_info info;
  int found = 0, missing = 0;
  char name[48], miss[256] = "";
  for (int d = 0; d < 4; d++)
    for (int e = 0; e < 4; e++) {
      void *fn = hop_entry(d, e & 1, e & 2, name, sizeof name);
      if (fn != NULL && dladdr(fn, &info) && strstr(info.dli_fname, "hopblas") != NULL)
        found++;
      else if (missing++ < 4)
        snprintf(miss + strlen(miss), sizeof miss - strlen(miss), " %s", name);
    }
  tap(missing == 0, "the 16 ILP64 and scipy64 GEMM names of s, d, c, z are hopblas's (%d)%s%s",
      found, missing ? "; missing:" : "", miss);
}

/* ---- agree ------------------------------------------------------------------ */
static bool agree_one(int d, bool cblas, bool scipy, int order, int ta, int tb, char *why,
                      size_t len)
{
  enum { M = 37, N = 29, K = 41, PAD = 3 };
  int parts = dts[d].parts;
  bool row = order == ROW;
  /* A and B as given (before op), C; a column-major ld covers the rows,
   * a row-major one the columns. */
  int64_t arows = ta == NT ? M : K, acols = ta == NT ? K : M;
  int64_t brows = tb == NT ? K : N, bcols = tb == NT ? N : K;
  int64_t lda = (row ? acols : arows) + PAD, ldb = (row ? bcols : brows) + PAD;
  int64_t ldc = (row ? N : M) + PAD, run = row ? N : M; /* C's elements per ld run */
  size_t na = (size_t)(lda * (row ? arows : acols) * parts);
  size_t nb = (size_t)(ldb * (row ? brows : bcols) * parts);
  size_t nc = (size_t)(ldc * (row ? M : N) * parts);
  void *a = malloc(na * 8), *b = malloc(nb * 8), *c = malloc(nc * 8), *r = malloc(nc * 8);
  void *c0 = malloc(nc * 8);
  bool ok = a && b && c && r && c0;
  if (!ok) {
    snprintf(why, len, "out of memory");
    goto out;
  }
  unsigned s = 12345u + (unsigned)(d * 97 + order + ta * 3 + tb * 7);
  for (size_t i = 0; i < na; i++)
    set_part(d, a, i, (s = s * 1103515245u + 12345u, (double)(s >> 9) / (1u << 23) - 1.0));
  for (size_t i = 0; i < nb; i++)
    set_part(d, b, i, (s = s * 1103515245u + 12345u, (double)(s >> 9) / (1u << 23) - 1.0));
  for (size_t i = 0; i < nc; i++)
    set_part(d, c, i, (s = s * 1103515245u + 12345u, (double)(s >> 9) / (1u << 23) - 1.0));
  memcpy(r, c, nc * dts[d].esize / parts);
  memcpy(c0, c, nc * dts[d].esize / parts);
  double al[2] = {0.75, parts == 2 ? -0.5 : 0.0}, be[2] = {-1.25, parts == 2 ? 0.25 : 0.0};
  char name[48];
  void *fn = hop_entry(d, cblas, scipy, name, sizeof name), *ref = ref_entry(d, cblas);
  if (fn == NULL || ref == NULL) {
    snprintf(why, len, "%s or libopenblas64's %cgemm missing", name, dts[d].letter);
    ok = false;
    goto out;
  }
  call(fn, d, cblas, order, ta, tb, M, N, K, al, a, lda, b, ldb, be, c, ldc);
  call(ref, d, cblas, order, ta, tb, M, N, K, al, a, lda, b, ldb, be, r, ldc);
  /* |a|, |b|, |c0| <= 1 per part: each element's sum is below 2 K (|alpha| K + |beta|). */
  double bound = 8.0 * K * dts[d].eps * (2.0 * K * 1.0 + 2.0);
  for (size_t i = 0; i < nc && ok; i++) {
    size_t elem = i / (size_t)parts, in_col = elem % (size_t)ldc;
    double got = part(d, c, i), want = part(d, r, i);
    if ((int64_t)in_col >= run) { /* ld padding */
      if (got != part(d, c0, i)) {
        snprintf(why, len, "%s wrote C's padding at %zu", name, elem);
        ok = false;
      }
    } else if (!(fabs(got - want) <= bound)) {
      snprintf(why, len, "%s: C part %zu is %.9g, libopenblas64 %.9g (bound %.3g)", name, i, got,
               want, bound);
      ok = false;
    }
  }
out:
  free(a), free(b), free(c), free(r), free(c0);
  return ok;
}

static void check_agree(void)
{
  static const int trans[3] = {NT, TR, CT};
  for (int d = 0; d < 4; d++)
    for (int e = 0; e < 4; e++) {
      bool cblas = e & 1, scipy = e & 2;
      int calls = 0;
      bool ok = true;
      char why[256] = "", name[48];
      hop_entry(d, cblas, scipy, name, sizeof name);
      for (int order = ROW; order <= COL && ok; order++) {
        if (!cblas && order == ROW)
          continue;
        for (int x = 0; x < 9 && ok; x++, calls++)
          ok = agree_one(d, cblas, scipy, order, trans[x / 3], trans[x % 3], why, sizeof why);
      }
      tap(ok, "%s agrees with libopenblas64 (%d calls: orders, N/T/C, complex scalars, padded "
              "lds)%s%s", name, calls, ok ? "" : ": ", why);
    }
}

/* ---- errors ------------------------------------------------------------------- */
static struct {
  int calls;
  int64_t info;
  char name[8];
} seen;

__attribute__((visibility("default"))) void xerbla_64_(const char *name, const int64_t *info,
                                                       size_t len)
{
  seen.calls++;
  seen.info = *info;
  memset(seen.name, 0, sizeof seen.name);
  memcpy(seen.name, name, len < 7 ? len : 7);
}

struct bad {
  const char *what;
  int order, ta, tb; /* ta, tb: 0 means an invalid letter or value */
  int64_t m, n, k, lda, ldb, ldc;
  int64_t info_cblas, info_f77; /* -1: not for that entry */
};

static void check_errors(void)
{
  const int64_t two32 = (int64_t)1 << 32;
  /* Col-major unless said: A m x k, B k x n, C m x n (3, 4, 5). */
  static struct bad bads[] = {
    {"bad order", 99, NT, NT, 3, 4, 5, 3, 5, 3, 0, -1},
    {"bad transa", COL, 0, NT, 3, 4, 5, 3, 5, 3, 1, 1},
    {"bad transb", COL, NT, 0, 3, 4, 5, 3, 5, 3, 2, 2},
    {"m < 0", COL, NT, NT, -1, 4, 5, 3, 5, 3, 3, 3},
    {"n < 0", COL, NT, NT, 3, -2, 5, 3, 5, 3, 4, 4},
    {"k < 0", COL, NT, NT, 3, 4, -1, 3, 5, 3, 5, 5},
    {"lda < m", COL, NT, NT, 3, 4, 5, 2, 5, 3, 8, 8},
    {"ldb < k", COL, NT, NT, 3, 4, 5, 3, 4, 3, 10, 10},
    {"ldc < m", COL, NT, NT, 3, 4, 5, 3, 5, 2, 13, 13},
    {"row-major m < 0", ROW, NT, NT, -1, 4, 5, 5, 4, 4, 4, -1},
    {"row-major lda < k", ROW, NT, NT, 3, 4, 5, 4, 4, 4, 10, -1},
    /* Valid if the sizes were cut to 32 bits: m = 3, n = 2. */
    {"m = 2^32 + 3 (lda 3 < m)", COL, NT, NT, 0, 4, 5, 3, 5, 3, 8, 8},
    {"n = 2 - 2^32 (< 0)", COL, NT, NT, 3, 0, 5, 3, 5, 3, 4, 4},
  };
  bads[11].m = two32 + 3;
  bads[12].n = 2 - two32;
  for (int d = 0; d < 4; d++)
    for (int e = 0; e < 4; e++) {
      bool cblas = e & 1, scipy = e & 2;
      char name[48], why[256] = "";
      void *fn = hop_entry(d, cblas, scipy, name, sizeof name);
      int cases = 0;
      bool ok = fn != NULL;
      static double a[64], b[64], c[64], c0[64];
      for (size_t i = 0; ok && i < sizeof bads / sizeof bads[0]; i++) {
        const struct bad *x = &bads[i];
        int64_t want = cblas ? x->info_cblas : x->info_f77;
        if (want < 0)
          continue;
        for (int j = 0; j < 64; j++)
          c[j] = c0[j] = 1.0 + j;
        seen.calls = 0;
        double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
        int ta = x->ta ? x->ta : cblas ? 0 : 999, tb = x->tb ? x->tb : cblas ? 1000 : 999;
        call(fn, d, cblas, x->order, ta, tb, x->m, x->n, x->k, one, a, x->lda, b, x->ldb, zero, c,
             x->ldc);
        cases++;
        if (seen.calls != 1 || seen.info != want || strncmp(seen.name, dts[d].xname, 5) != 0 ||
            memcmp(c, c0, sizeof c) != 0) {
          snprintf(why, sizeof why, "%s: %d reports, INFO %lld (want %lld), name '%s', C %s",
                   x->what, seen.calls, (long long)seen.info, (long long)want, seen.name,
                   memcmp(c, c0, sizeof c) ? "written" : "untouched");
          ok = false;
        }
      }
      tap(ok, "%s: every bad argument reported once through xerbla_64_ with its INFO, C "
              "untouched (%d cases)%s%s", name, cases, ok ? "" : "; ", why);
    }
}

/* ---- big leading dimensions, big k ---------------------------------------------- */
static void *sparse(size_t bytes)
{
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  madvise(p, bytes, MADV_HUGEPAGE); /* reads of untouched pages map the huge zero page */
  return p;
}

/* C (2 x 3) = A (2 x 2, lda = 2^31 + 5) B (2 x 3, ldb 2) with ldc = 2^32 + 1. */
static void check_big_ld(void)
{
  const int64_t lda = ((int64_t)1 << 31) + 5, ldc = ((int64_t)1 << 32) + 1, ldb = 2;
  for (int d = 0; d < 4; d++)
    for (int cb = 0; cb < 2; cb++) {
      int parts = dts[d].parts;
      size_t es = dts[d].esize;
      size_t abytes = (size_t)(lda + 2) * es, cbytes = (size_t)(2 * ldc + 2) * es;
      unsigned char *a = sparse(abytes), *c = sparse(cbytes);
      double b[12 * 2];
      char name[48];
      void *fn = hop_entry(d, cb, false, name, sizeof name);
      bool ok = a != NULL && c != NULL && fn != NULL;
      if (ok) {
        unsigned char bb[12 * 16];
        for (int j = 0; j < 2; j++)
          for (int i = 0; i < 2; i++)
            for (int p = 0; p < parts; p++)
              set_part(d, a, ((size_t)j * (size_t)lda + (size_t)i) * parts + p, 1 + i + 2 * j + p);
        for (int i = 0; i < 6 * parts; i++)
          set_part(d, bb, (size_t)i, b[i] = (i % 5) - 2.0);
        for (int j = 0; j < 3; j++)
          for (int i = 0; i < 2 * parts; i++)
            set_part(d, c, (size_t)j * (size_t)ldc * parts + i, 1000.0); /* beta 0: overwritten */
        double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
        call(fn, d, cb, COL, NT, NT, 2, 3, 2, one, a, lda, bb, ldb, zero, c, ldc);
        for (int j = 0; j < 3 && ok; j++)
          for (int i = 0; i < 2 && ok; i++) {
            double re = 0, im = 0;
            for (int l = 0; l < 2; l++) {
              double ar = 1 + i + 2 * l, ai = parts == 2 ? ar + 1 : 0;
              double br = b[(l + 2 * j) * parts], bi = parts == 2 ? b[(l + 2 * j) * parts + 1] : 0;
              re += ar * br - ai * bi, im += ar * bi + ai * br;
            }
            size_t at = ((size_t)j * (size_t)ldc + (size_t)i) * parts;
            ok = part(d, c, at) == re && (parts == 1 || part(d, c, at + 1) == im);
          }
      }
      tap(ok, "%s: lda = 2^31 + 5, ldc = 2^32 + 1: exact", name);
      if (a != NULL)
        munmap(a, abytes);
      if (c != NULL)
        munmap(c, cbytes);
    }
}

/* The other Level-3 routines with leading dimensions beyond 2^31 and 2^32,
 * through hopblas's ?xxxx_64_ against libopenblas64's own: small
 * integers, so both agree to the last bits but for rounding order. */
typedef void f_symm(const char *, const char *, const int64_t *, const int64_t *, const void *,
                    const void *, const int64_t *, const void *, const int64_t *, const void *,
                    void *, const int64_t *);
typedef void f_syrk(const char *, const char *, const int64_t *, const int64_t *, const void *,
                    const void *, const int64_t *, const void *, void *, const int64_t *);
typedef void f_syr2k(const char *, const char *, const int64_t *, const int64_t *, const void *,
                     const void *, const int64_t *, const void *, const int64_t *, const void *,
                     void *, const int64_t *);
typedef void f_trmm(const char *, const char *, const char *, const char *, const int64_t *,
                    const int64_t *, const void *, const void *, const int64_t *, void *,
                    const int64_t *);

static const char *const l3_names[] = {"symm", "syrk", "syr2k", "trmm", "trsm",
                                       "hemm", "herk", "her2k"};

static void l3_call(int r, void *fn, const void *al, const void *a, int64_t lda, const void *b,
                    int64_t ldb, const void *be, void *c, int64_t ldc)
{
  const int64_t m = 2, n = 3, k = 2;
  switch (r) {
  case 0:
  case 5: ((f_symm *)fn)("L", "U", &m, &n, al, a, &lda, b, &ldb, be, c, &ldc); break;
  case 1:
  case 6: ((f_syrk *)fn)("L", "N", &n, &k, al, a, &lda, be, c, &ldc); break;
  case 2:
  case 7: ((f_syr2k *)fn)("U", "N", &n, &k, al, a, &lda, b, &ldb, be, c, &ldc); break;
  default: ((f_trmm *)fn)("L", "U", "N", "N", &m, &n, al, a, &lda, c, &ldc); break;
  }
}

static void check_big_l3(void)
{
  const int64_t lda = ((int64_t)1 << 31) + 5, ldb = ((int64_t)1 << 31) + 7;
  const int64_t ldc = ((int64_t)1 << 32) + 1;
  for (int d = 0; d < 4; d++)
    for (int r = 0; r < (dts[d].parts == 2 ? 8 : 5); r++) {
      int parts = dts[d].parts;
      size_t es = dts[d].esize;
      /* Every operand has at most 3 columns of at most 3 rows. */
      size_t abytes = (size_t)(2 * lda + 3) * es, bbytes = (size_t)(2 * ldb + 3) * es;
      size_t cbytes = (size_t)(2 * ldc + 3) * es;
      unsigned char *a = sparse(abytes), *b = sparse(bbytes), *c = sparse(cbytes);
      unsigned char *c_ref = sparse(cbytes);
      char name[32], ref_name[32];
      snprintf(name, sizeof name, "%c%s_64_", dts[d].letter, l3_names[r]);
      snprintf(ref_name, sizeof ref_name, "%c%s_", dts[d].letter, l3_names[r]);
      void *fn = dlsym(RTLD_DEFAULT, name), *ref = dlsym(openblas64, ref_name);
      bool ok = a != NULL && b != NULL && c != NULL && c_ref != NULL && fn != NULL && ref != NULL;
      double worst = 0;
      if (ok) {
        for (int j = 0; j < 3; j++)
          for (int i = 0; i < 3; i++)
            for (int p = 0; p < parts; p++) {
              size_t ai = ((size_t)j * (size_t)lda + (size_t)i) * parts + p;
              size_t bi = ((size_t)j * (size_t)ldb + (size_t)i) * parts + p;
              size_t ci = ((size_t)j * (size_t)ldc + (size_t)i) * parts + p;
              /* a diagonal of 2 (real), for the triangular solve */
              set_part(d, a, ai, i == j ? (p == 0 ? 2.0 : 0.0) : (i + 2 * j + p) % 5 - 2.0);
              set_part(d, b, bi, (2 * i + j + 3 * p) % 7 - 3.0);
              set_part(d, c, ci, (i + j + p) % 3 - 1.0);
              set_part(d, c_ref, ci, (i + j + p) % 3 - 1.0);
            }
        double al[2] = {1.5, 0.5}, be[2] = {0.5, -0.25};
        float fal[2] = {1.5f, 0.5f}, fbe[2] = {0.5f, -0.25f};
        bool single = es / (size_t)parts == 4;
        const void *pa = single ? (const void *)fal : al, *pb = single ? (const void *)fbe : be;
        l3_call(r, fn, pa, a, lda, b, ldb, pb, c, ldc);
        l3_call(r, ref, pa, a, lda, b, ldb, pb, c_ref, ldc);
        for (int j = 0; j < 3; j++)
          for (int i = 0; i < 3 * parts; i++) {
            size_t ci = (size_t)j * (size_t)ldc * parts + (size_t)i;
            double e = fabs(part(d, c, ci) - part(d, c_ref, ci));
            worst = e > worst ? e : worst;
          }
        ok = worst <= 64 * dts[d].eps;
      }
      tap(ok, "%s: lda = 2^31 + 5, ldb = 2^31 + 7, ldc = 2^32 + 1: as libopenblas64 (%g)", name,
          worst);
      unsigned char *maps[4] = {a, b, c, c_ref};
      size_t sizes[4] = {abytes, bbytes, cbytes, cbytes};
      for (int i = 0; i < 4; i++)
        if (maps[i] != NULL)
          munmap(maps[i], sizes[i]);
    }
}

/* 1 x 1 = (1 x k) (k x 1), k = 2^31 + 3: three non-zero products, 44. */
static void check_big_k(bool cblas)
{
  const int64_t k = ((int64_t)1 << 31) + 3;
  size_t bytes = (size_t)k * 4;
  float *a = sparse(bytes), *b = sparse(bytes), c = 100.0f;
  char name[48];
  void *fn = hop_entry(0, cblas, false, name, sizeof name);
  bool ok = a != NULL && b != NULL && fn != NULL;
  if (ok) {
    a[0] = 1, b[0] = 2, a[k - 1] = 3, b[k - 1] = 4, a[(int64_t)1 << 31] = 5, b[(int64_t)1 << 31] = 6;
    double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
    call(fn, 0, cblas, COL, TR, NT, 1, 1, k, one, a, k, b, k, zero, &c, 1);
    ok = c == 44.0f;
  }
  tap(ok, "%s: k = 2^31 + 3: %g (44)", name, (double)c);
}

int main(int argc, char **argv)
{
  openblas64 = dlopen("libopenblas64.so.0", RTLD_NOW | RTLD_NOLOAD);
  if (openblas64 == NULL) {
    printf("Bail out! not linked against libopenblas64.so.0\n");
    return 1;
  }
  if (argc == 3 && strcmp(argv[1], "--big") == 0) {
    check_big_k(strcmp(argv[2], "cblas") == 0);
  } else {
    check_names();
    check_agree();
    check_errors();
    check_big_ld();
    check_big_l3();
  }
  printf("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}
