/* Sizes whose products overflow int: leading dimensions of 2^30 + 1, so
 * that ld * (columns - 1) passes 2^31 elements while every argument fits in
 * an int, and one call with m * n * k > INT_MAX.  Operands live in
 * mmap(MAP_NORESERVE) regions: only the pages holding elements are touched,
 * so a 12 GB matrix costs a few pages.  The engine is whatever the
 * environment selects.  Prints TAP.
 *
 *   overflow [--no-big-mnk] */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "testutil.h"

#define HUGE_LD ((1 << 30) + 1)

/* A matrix that may be mostly untouched address space. */
struct sparse {
  int rows, cols, ld;
  bool row_major;
  size_t esize, bytes;
  unsigned char *p;
};

static size_t at(const struct sparse *x, int i, int j)
{
  return x->row_major ? (size_t)i * x->ld + j : (size_t)j * x->ld + i;
}

static bool sparse_map(struct sparse *x)
{
  int inner = x->row_major ? x->cols : x->rows, outer = x->row_major ? x->rows : x->cols;
  x->bytes = ((size_t)x->ld * (outer - 1) + inner) * x->esize;
  void *p = mmap(NULL, x->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  x->p = p == MAP_FAILED ? NULL : p;
  return x->p != NULL;
}

static double get(const struct sparse *x, int i, int j)
{
  if (x->esize == 4) {
    float f;
    memcpy(&f, x->p + 4 * at(x, i, j), 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, x->p + 2 * at(x, i, j), 2);
  return ht_half_to_double(h);
}

static void set(struct sparse *x, int i, int j, double v)
{
  if (x->esize == 4)
    memcpy(x->p + 4 * at(x, i, j), &(float){(float)v}, 4);
  else
    memcpy(x->p + 2 * at(x, i, j), &(uint16_t){ht_half_bits(v)}, 2);
}

struct ocase {
  const char *what;
  enum ht_dtype dt;
  enum ht_entry entry;
  int order, ta, tb, m, n, k, lda, ldb, ldc; /* ld 0: the minimum */
  int samples;                               /* 0: check every element of C */
};

static int min_ld(bool row, int rows, int cols)
{
  int v = row ? cols : rows;
  return v > 1 ? v : 1;
}

static bool run(const struct ocase *oc, struct ht_rng *r, char *why, size_t len)
{
  bool row = oc->order == HT_ROW;
  size_t ab = oc->dt == HT_S ? 4 : 2, ce = oc->dt == HT_H ? 2 : 4;
  int ar = oc->ta == HT_N ? oc->m : oc->k, ac = oc->ta == HT_N ? oc->k : oc->m;
  int br = oc->tb == HT_N ? oc->k : oc->n, bc = oc->tb == HT_N ? oc->n : oc->k;
  struct sparse a = {ar, ac, oc->lda ? oc->lda : min_ld(row, ar, ac), row, ab, 0, NULL};
  struct sparse b = {br, bc, oc->ldb ? oc->ldb : min_ld(row, br, bc), row, ab, 0, NULL};
  struct sparse c = {oc->m, oc->n, oc->ldc ? oc->ldc : min_ld(row, oc->m, oc->n), row, ce, 0, NULL};
  bool ok = sparse_map(&a) && sparse_map(&b) && sparse_map(&c);
  if (!ok)
    snprintf(why, len, "mmap(MAP_NORESERVE) failed");
  for (int i = 0; ok && i < ar; i++)
    for (int j = 0; j < ac; j++)
      set(&a, i, j, ht_round_half(ht_rng_uniform(r, -1, 1))); /* halves: exact in every dtype */
  for (int i = 0; ok && i < br; i++)
    for (int j = 0; j < bc; j++)
      set(&b, i, j, ht_round_half(ht_rng_uniform(r, -1, 1)));
  if (ok) {
    /* beta == 0: C is write-only; poison it so a read shows. */
    for (int i = 0; i < oc->m; i++)
      for (int j = 0; j < oc->n; j++)
        set(&c, i, j, NAN);
    struct ht_call call = {.dtype = oc->dt, .entry = oc->entry, .order = oc->order, .ta = oc->ta,
                           .tb = oc->tb, .m = oc->m, .n = oc->n, .k = oc->k, .alpha = 1.0, .beta = 0.0};
    call.a = (struct ht_mat){.rows = ar, .cols = ac, .ld = a.ld, .row_major = row, .esize = ab, .p = a.p};
    call.b = (struct ht_mat){.rows = br, .cols = bc, .ld = b.ld, .row_major = row, .esize = ab, .p = b.p};
    call.c = (struct ht_mat){.rows = oc->m, .cols = oc->n, .ld = c.ld, .row_major = row, .esize = ce, .p = c.p};
    ht_call_invoke(&call);
  }
  int total = oc->m * oc->n, checks = oc->samples ? oc->samples : total;
  for (int s = 0; ok && s < checks; s++) {
    int e = oc->samples ? ht_rng_int(r, total) : s, i = e % oc->m, j = e / oc->m;
    double sum = 0.0, sa = 0.0;
    for (int l = 0; l < oc->k; l++) {
      double p = (oc->ta == HT_N ? get(&a, i, l) : get(&a, l, i)) *
                 (oc->tb == HT_N ? get(&b, l, j) : get(&b, j, l));
      sum += p, sa += fabs(p);
    }
    double got = get(&c, i, j);
    if (!ht_element_ok(oc->dt, got, sum, 2.0 * (oc->k + 2) * FLT_EPSILON * sa)) {
      snprintf(why, len, "C(%d,%d) = %.9g, expected %.9g", i, j, got, sum);
      ok = false;
    }
  }
  /* The first padding cell after each row or column of C must still be 0. */
  int outer = row ? oc->m : oc->n, inner = row ? oc->n : oc->m;
  for (int o = 0; ok && c.ld > inner && o < outer - 1; o++) {
    size_t cell = (size_t)o * c.ld + inner;
    for (size_t byte = 0; byte < ce; byte++)
      if (c.p[cell * ce + byte] != 0) {
        snprintf(why, len, "C padding cell %zu was written", cell);
        ok = false;
      }
  }
  if (a.p) munmap(a.p, a.bytes);
  if (b.p) munmap(b.p, b.bytes);
  if (c.p) munmap(c.p, c.bytes);
  return ok;
}

int main(int argc, char **argv)
{
  bool big = !(argc > 1 && strcmp(argv[1], "--no-big-mnk") == 0);
  const int L = HUGE_LD;
  const struct ocase cases[] = {
    {"lda = 2^30+1, k = 3 (A spans 3*2^30 elements)", HT_S, HT_CBLAS, HT_COL, HT_N, HT_N, 2, 2, 3, L, 0, 0, 0},
    {"lda = 2^30+1, A transposed", HT_S, HT_CBLAS, HT_COL, HT_T, HT_N, 3, 2, 2, L, 0, 0, 0},
    {"ldb = 2^30+1, n = 3", HT_S, HT_CBLAS, HT_COL, HT_N, HT_N, 2, 3, 2, 0, L, 0, 0},
    {"ldc = 2^30+1, n = 3", HT_S, HT_CBLAS, HT_COL, HT_N, HT_T, 2, 3, 2, 0, 0, L, 0},
    {"ldc = 2^30+1, n = 3, NN", HT_S, HT_CBLAS, HT_COL, HT_N, HT_N, 2, 3, 2, 0, 0, L, 0},
    {"ldc = 2^30+1, n = 3, TN", HT_S, HT_CBLAS, HT_COL, HT_T, HT_N, 2, 3, 2, 0, 0, L, 0},
    {"ldc = 2^30+1, n = 3, TT", HT_S, HT_FORTRAN, HT_COL, HT_T, HT_T, 2, 3, 2, 0, 0, L, 0},
    {"lda = ldb = ldc = INT_MAX, TT", HT_S, HT_CBLAS, HT_COL, HT_T, HT_T, 2, 3, 3, INT_MAX, INT_MAX, INT_MAX, 0},
    {"row-major ldb = ldc = INT_MAX, NT", HT_S, HT_CBLAS, HT_ROW, HT_N, HT_T, 3, 2, 3, 0, INT_MAX, INT_MAX, 0},
    {"row-major lda = ldc = 2^30+1, m = 3", HT_S, HT_CBLAS, HT_ROW, HT_N, HT_N, 3, 2, 2, L, 0, L, 0},
    {"sgemm_ lda = ldb = ldc = 2^30+1", HT_S, HT_FORTRAN, HT_COL, HT_N, HT_N, 2, 3, 3, L, L, L, 0},
    {"hgemm lda = ldc = 2^30+1", HT_H, HT_CBLAS, HT_COL, HT_N, HT_N, 2, 3, 3, L, 0, L, 0},
    {"hgemm_ ldb = 2^30+1, B transposed", HT_H, HT_FORTRAN, HT_COL, HT_N, HT_T, 3, 2, 3, 0, L, 0, 0},
    {"shgemm row-major lda = ldb = 2^30+1", HT_SH, HT_CBLAS, HT_ROW, HT_T, HT_N, 3, 3, 3, L, L, 0, 0},
    {"m*n*k = 1300^3 > INT_MAX (64 sampled elements)", HT_S, HT_CBLAS, HT_COL, HT_N, HT_N, 1300, 1300, 1300, 0, 0, 0, 64},
    {"shgemm m*n*k = 1300^3 > INT_MAX (64 sampled elements)", HT_SH, HT_CBLAS, HT_ROW, HT_T, HT_N, 1300, 1300, 1300, 0, 0, 0, 64},
  };
  int n = (int)(sizeof cases / sizeof cases[0]) - (big ? 0 : 2), failed = 0;
  struct ht_rng rng = {777};
  printf("1..%d\n", n);
  for (int i = 0; i < n; i++) {
    char why[256] = "";
    bool ok = run(&cases[i], &rng, why, sizeof why);
    printf("%s %d - %s: %s\n", ok ? "ok" : "not ok", i + 1, ht_symbol(cases[i].dt, cases[i].entry),
           cases[i].what);
    if (!ok)
      printf("# %s\n", why), failed++;
    fflush(stdout);
  }
  return failed ? 1 : 0;
}
