/* An ordinary program linked only against OpenBLAS that makes bad GEMM
 * calls; xerbla.test runs it as is and with hopblas preloaded and compares
 * the messages byte for byte.  The bad calls come first (hopblas's own
 * checks), then valid calls, then the bad ones again (after the first
 * valid call, tiny sgemm calls may be checked by OpenBLAS on the fast path). */
#include <stdio.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *);
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);

static float a[64], b[64], c[64];

static void bad_calls(void)
{
  float one = 1.0f, zero = 0.0f;
  int m = 3, n = 4, k = 2, neg = -1, ld3 = 3, ld2 = 2, ld1 = 1;
  sgemm_("X", "N", &m, &n, &k, &one, a, &ld3, b, &ld2, &zero, c, &ld3);
  sgemm_("N", "?", &m, &n, &k, &one, a, &ld3, b, &ld2, &zero, c, &ld3);
  sgemm_("N", "N", &neg, &n, &k, &one, a, &ld3, b, &ld2, &zero, c, &ld3);
  sgemm_("N", "N", &m, &neg, &k, &one, a, &ld3, b, &ld2, &zero, c, &ld3);
  sgemm_("N", "N", &m, &n, &neg, &one, a, &ld3, b, &ld2, &zero, c, &ld3);
  sgemm_("N", "N", &m, &n, &k, &one, a, &ld2, b, &ld2, &zero, c, &ld3);
  sgemm_("N", "N", &m, &n, &k, &one, a, &ld3, b, &ld1, &zero, c, &ld3);
  sgemm_("N", "N", &m, &n, &k, &one, a, &ld3, b, &ld2, &zero, c, &ld2);
  fflush(stdout);
  for (int order = 101; order <= 102; order++) {
    int row = order == 101;
    cblas_sgemm(order, 0, 111, m, n, k, 1, a, row ? 2 : 3, b, row ? 4 : 2, 0, c, row ? 4 : 3);
    cblas_sgemm(order, 111, 7, m, n, k, 1, a, row ? 2 : 3, b, row ? 4 : 2, 0, c, row ? 4 : 3);
    cblas_sgemm(order, 111, 111, -1, n, k, 1, a, row ? 2 : 3, b, row ? 4 : 2, 0, c, row ? 4 : 3);
    cblas_sgemm(order, 111, 111, m, -1, k, 1, a, row ? 2 : 3, b, row ? 4 : 2, 0, c, row ? 4 : 3);
    cblas_sgemm(order, 111, 111, m, n, -1, 1, a, row ? 2 : 3, b, row ? 4 : 2, 0, c, row ? 4 : 3);
    cblas_sgemm(order, 111, 111, m, n, k, 1, a, 1, b, row ? 4 : 2, 0, c, row ? 4 : 3);
    cblas_sgemm(order, 111, 111, m, n, k, 1, a, row ? 2 : 3, b, 1, 0, c, row ? 4 : 3);
    cblas_sgemm(order, 111, 111, m, n, k, 1, a, row ? 2 : 3, b, row ? 4 : 2, 0, c, 1);
    fflush(stdout);
  }
  cblas_sgemm(100, 111, 111, m, n, k, 1, a, 3, b, 2, 0, c, 3);
  fflush(stdout);
}

int main(void)
{
  bad_calls();
  float one = 1.0f, zero = 0.0f;
  int m = 3, n = 4, k = 2;
  sgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
  cblas_sgemm(101, 111, 111, m, n, k, 1, a, k, b, n, 0, c, n);
  printf("-- after valid calls --\n");
  bad_calls();
  return 0;
}
