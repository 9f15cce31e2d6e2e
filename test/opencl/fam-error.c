/* The error of the image families' half arithmetic (HOPBLAS_OPENCL_FP16),
 * measured: cblas_shgemm (half A and B, float C, so no final rounding to
 * half hides anything) on m x n x k with A and B uniform in [0, 1) (all
 * products positive: the error relative to |C| is the error relative to
 * sum |a b|, the worst case of the contract's bound), against a double
 * reference.  Prints, per k, the largest |C - C_ref| / sum_l |a_il b_lj|
 * in units of 2^-11 (the half unit roundoff), and checks it against the
 * bound of the expected arithmetic:
 *
 *   fam-error --expect float|products|accumulate [--ku N] [--k 64,256,...]
 *             [--m M] [--n N] [--report FILE]
 *
 *   float       2 (k + 2) 2^-23, the contract's bound (c = 2)
 *   products    the half sum of ku products, gamma_ku = ku u / (1 - ku u)
 *               with u = 2^-11, plus the contract's float bound; at the
 *               first k it must exceed the float bound (half arithmetic ran)
 *   accumulate  gamma_k in half where k u < 1; at every k it must exceed
 *               the products bound at the largest k, which proves the
 *               accumulators really are half (a float sum stays far below)
 * --report appends "expect k error" lines (for doc/FAMILIES.md).  Which
 * engine and family ran is the calling script's business (HOPBLAS_TRACE). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopblas.h"
#include "testutil.h"

#define U_HALF 0x1p-11

static int tap_n, tap_failed;

static void tap(bool ok, const char *fmt, double a, double b, int k)
{
  printf("%s %d - ", ok ? "ok" : "not ok", ++tap_n);
  printf(fmt, k, a, b);
  printf("\n");
  tap_failed += !ok;
}

/* Largest normalized error of one shgemm call, in units of 2^-11. */
static double measure(int m, int n, int k, struct ht_rng *r)
{
  uint16_t *a = malloc((size_t)m * k * 2), *b = malloc((size_t)k * n * 2);
  double *ad = malloc((size_t)m * k * sizeof *ad), *bd = malloc((size_t)k * n * sizeof *bd);
  float *c = malloc((size_t)m * n * sizeof *c);
  if (a == NULL || b == NULL || ad == NULL || bd == NULL || c == NULL) {
    free(a), free(b), free(ad), free(bd), free(c);
    return INFINITY;
  }
  for (size_t i = 0; i < (size_t)m * k; i++)
    ad[i] = ht_round_half(ht_rng_uniform(r, 0.0, 1.0)), a[i] = ht_half_bits(ad[i]);
  for (size_t i = 0; i < (size_t)k * n; i++)
    bd[i] = ht_round_half(ht_rng_uniform(r, 0.0, 1.0)), b[i] = ht_half_bits(bd[i]);
  /* Column-major, no transposes: A is m x k (ld m), B is k x n (ld k). */
  cblas_shgemm(102, 111, 111, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m);
  double worst = 0.0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double s = 0.0;
      for (int l = 0; l < k; l++)
        s += ad[i + (size_t)l * m] * bd[l + (size_t)j * k];
      double e = fabs((double)c[i + (size_t)j * m] - s) / s;
      worst = e > worst || isnan(e) ? e : worst;
    }
  free(a), free(b), free(ad), free(bd), free(c);
  return worst / U_HALF;
}

int main(int argc, char **argv)
{
  const char *expect = NULL, *ks = "64,256,1024,4096", *report = NULL;
  int m = 16, n = 16, ku = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--expect") == 0)
      expect = argv[i + 1];
    else if (strcmp(argv[i], "--k") == 0)
      ks = argv[i + 1];
    else if (strcmp(argv[i], "--ku") == 0)
      ku = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--m") == 0)
      m = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--n") == 0)
      n = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--report") == 0)
      report = argv[i + 1];
  }
  if (expect == NULL || (strcmp(expect, "float") != 0 && strcmp(expect, "products") != 0 &&
                         strcmp(expect, "accumulate") != 0) ||
      m < 1 || n < 1 || ku < 1) {
    fprintf(stderr, "usage: fam-error --expect float|products|accumulate [--ku N] [--k LIST] "
                    "[--m M] [--n N] [--report FILE]\n");
    return 2;
  }
  FILE *rep = report != NULL ? fopen(report, "a") : NULL;
  struct ht_rng r = {20261121};
  int kmax = 0;
  char list[256];
  snprintf(list, sizeof list, "%s", ks);
  for (char *t = strtok(list, ","); t != NULL; t = strtok(NULL, ","))
    kmax = atoi(t) > kmax ? atoi(t) : kmax;
  double products_at_kmax = ku * U_HALF / (1 - ku * U_HALF) / U_HALF +
                            2.0 * (kmax + 2) * FLT_EPSILON / U_HALF;
  snprintf(list, sizeof list, "%s", ks);
  bool first = true;
  for (char *t = strtok(list, ","); t != NULL; t = strtok(NULL, ","), first = false) {
    int k = atoi(t);
    if (k < 1)
      continue;
    double err = measure(m, n, k, &r);
    double fl = 2.0 * (k + 2) * FLT_EPSILON / U_HALF;
    if (rep != NULL)
      fprintf(rep, "%s %d %.4f\n", expect, k, err);
    if (strcmp(expect, "float") == 0) {
      tap(err <= fl, "k = %d: float arithmetic, error %.4g u <= %.4g u (the contract)", err, fl, k);
    } else if (strcmp(expect, "products") == 0) {
      double bound = ku * U_HALF / (1 - ku * U_HALF) / U_HALF + fl;
      tap(err <= bound, "k = %d: half products, error %.4g u <= %.4g u", err, bound, k);
      if (first) /* larger k average the half roundings below the (linear) float bound */
        tap(err > fl, "k = %d: half products, error %.4g u is above the float bound %.4g u", err,
            fl, k);
    } else {
      double bound = k * U_HALF < 1 ? k * U_HALF / (1 - k * U_HALF) / U_HALF : INFINITY;
      tap(err <= bound, "k = %d: half accumulation, error %.4g u <= %.4g u", err, bound, k);
      if (k >= 1024)
        tap(err > products_at_kmax,
            "k = %d: half accumulation, error %.4g u exceeds the products bound %.4g u", err,
            products_at_kmax, k);
    }
  }
  if (rep != NULL)
    fclose(rep);
  printf("1..%d\n", tap_n);
  return tap_failed != 0;
}
