/* NULL pointers where BLAS allows them: operands of an empty dimension
 * (m, n or k = 0) and A and B when alpha == 0 are never read, so NULL must
 * not crash; C gets exactly beta * C (or is untouched on a quick return).
 * Every public entry point, both orders.  Prints TAP. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hopblas.h"

void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                 float *, int);
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *);

static int tests, failures;

static void ok(int pass, const char *what)
{
  tests++;
  failures += !pass;
  printf("%s %d - %s\n", pass ? "ok" : "not ok", tests, what);
}

/* C is 3x3 (ld 3) filled with 2.0; after the call every cell must be `want`. */
static int all_equal(const float *c, float want)
{
  for (int i = 0; i < 9; i++)
    if (c[i] != want)
      return 0;
  return 1;
}

static int half_all_equal(const hopblas_half *c, hopblas_half want)
{
  for (int i = 0; i < 9; i++)
    if (c[i] != want)
      return 0;
  return 1;
}

int main(void)
{
  float c[9];
  hopblas_half h[9];
  const hopblas_half two = 0x4000, one = 0x3c00, half = 0x3800, zero = 0;
  char what[160];
  for (int order = 101; order <= 102; order++) {
    const char *o = order == 101 ? "row-major" : "col-major";
    /* k == 0: C = beta C, A and B NULL. */
    for (int i = 0; i < 9; i++) c[i] = 2.0f;
    cblas_sgemm(order, 111, 111, 3, 3, 0, 1.0f, NULL, 3, NULL, 3, 0.5f, c, 3);
    snprintf(what, sizeof what, "cblas_sgemm %s k = 0, A = B = NULL: C = beta C", o);
    ok(all_equal(c, 1.0f), what);
    /* alpha == 0: A and B NULL, beta == 0 writes zeros. */
    for (int i = 0; i < 9; i++) c[i] = 2.0f;
    cblas_sgemm(order, 112, 112, 3, 3, 5, 0.0f, NULL, 5, NULL, 5, 0.0f, c, 3); /* lds legal in both orders */
    snprintf(what, sizeof what, "cblas_sgemm %s alpha = 0, A = B = NULL: C = 0", o);
    ok(all_equal(c, 0.0f), what);
    /* m == 0 and n == 0: quick return, every pointer NULL. */
    cblas_sgemm(order, 111, 111, 0, 3, 4, 1.0f, NULL, 4, NULL, 4, 0.5f, NULL, 4);
    cblas_sgemm(order, 111, 111, 3, 0, 4, 1.0f, NULL, 4, NULL, 4, 0.5f, NULL, 4);
    snprintf(what, sizeof what, "cblas_sgemm %s m = 0 and n = 0 with every pointer NULL", o);
    ok(1, what); /* reaching here without a crash is the check */
    /* hgemm: k == 0 and alpha == 0. */
    for (int i = 0; i < 9; i++) h[i] = two;
    cblas_hgemm(order, 111, 111, 3, 3, 0, one, NULL, 3, NULL, 3, half, h, 3);
    snprintf(what, sizeof what, "cblas_hgemm %s k = 0, A = B = NULL: C = beta C", o);
    ok(half_all_equal(h, one), what);
    for (int i = 0; i < 9; i++) h[i] = two;
    cblas_hgemm(order, 111, 111, 3, 3, 7, zero, NULL, 7, NULL, 7, zero, h, 3);
    snprintf(what, sizeof what, "cblas_hgemm %s alpha = 0, A = B = NULL: C = 0", o);
    ok(half_all_equal(h, 0), what);
    /* shgemm: alpha == 0, beta == 1: quick return, nothing touched. */
    for (int i = 0; i < 9; i++) c[i] = 2.0f;
    cblas_shgemm(order, 111, 111, 3, 3, 7, 0.0f, NULL, 7, NULL, 7, 1.0f, c, 3);
    snprintf(what, sizeof what, "cblas_shgemm %s alpha = 0, beta = 1, A = B = NULL: C untouched", o);
    ok(all_equal(c, 2.0f), what);
  }
  /* Fortran entries. */
  int m = 3, n = 3, k = 0, k5 = 5, ld = 3;
  float alpha = 1.0f, beta = 0.5f, zerof = 0.0f;
  for (int i = 0; i < 9; i++) c[i] = 2.0f;
  sgemm_("N", "N", &m, &n, &k, &alpha, NULL, &ld, NULL, &ld, &beta, c, &ld);
  ok(all_equal(c, 1.0f), "sgemm_ k = 0, A = B = NULL: C = beta C");
  for (int i = 0; i < 9; i++) c[i] = 2.0f;
  sgemm_("T", "N", &m, &n, &k5, &zerof, NULL, &k5, NULL, &k5, &beta, c, &ld);
  ok(all_equal(c, 1.0f), "sgemm_ alpha = 0, A = B = NULL: C = beta C");
  for (int i = 0; i < 9; i++) h[i] = two;
  hgemm_("N", "T", &m, &n, &k5, &zero, NULL, &ld, NULL, &ld, &half, h, &ld);
  ok(half_all_equal(h, one), "hgemm_ alpha = 0, A = B = NULL: C = beta C");
  printf("1..%d\n", tests);
  return failures != 0;
}
