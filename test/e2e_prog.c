/* An ordinary BLAS program: it knows nothing of hopblas and is compiled at
 * test time against OpenBLAS (or -lblas, or -lhopblas through the linker
 * script).  It prints a checksum of every result, so two runs can be
 * compared exactly; cblas_ddot is a symbol hopblas does not define. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *);
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int,
                 double, double *, int);
double cblas_ddot(int, const double *, int, const double *, int);

enum { MAXN = 256 };
static float a[MAXN * MAXN], b[MAXN * MAXN], c[MAXN * MAXN];
static double da[MAXN * MAXN], db[MAXN * MAXN], dc[MAXN * MAXN];

static uint64_t fnv(const void *p, size_t n)
{
  const unsigned char *s = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ s[i]) * 1099511628211ull;
  return h;
}

static void fill(unsigned seed)
{
  for (int i = 0; i < MAXN * MAXN; i++) {
    seed = seed * 1103515245u + 12345u;
    a[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
    b[i] = (float)((seed >> 3) % 1999) / 999.0f - 1.0f;
    c[i] = (float)(i % 7) - 3.0f;
    da[i] = a[i], db[i] = b[i], dc[i] = c[i];
  }
}

int main(void)
{
  static const int shapes[][3] = {{37, 53, 29}, {64, 64, 64}, {128, 96, 200}, {5, 3, 2}, {250, 7, 256}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
    fill((unsigned)s + 1);
    cblas_sgemm(101, 111, 111, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
    printf("cblas_sgemm row NN %dx%dx%d %016llx\n", m, n, k, (unsigned long long)fnv(c, sizeof c));
    cblas_sgemm(101, 112, 111, m, n, k, 0.5f, a, m, b, n, -1.0f, c, n);
    printf("cblas_sgemm row TN %dx%dx%d %016llx\n", m, n, k, (unsigned long long)fnv(c, sizeof c));
    cblas_sgemm(102, 111, 113, m, n, k, -1.5f, a, m, b, n, 0.25f, c, m);
    printf("cblas_sgemm col NC %dx%dx%d %016llx\n", m, n, k, (unsigned long long)fnv(c, sizeof c));
    float alpha = 0.75f, beta = 0.5f;
    int lda = k + 3, ldb = n + 1, ldc = m + 2;
    sgemm_("T", "T", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
    printf("sgemm_ TT %dx%dx%d %016llx\n", m, n, k, (unsigned long long)fnv(c, sizeof c));
    cblas_dgemm(102, 111, 111, m, n, k, 1.0, da, m, db, k, 0.0, dc, m);
    printf("cblas_dgemm NN %dx%dx%d %016llx\n", m, n, k, (unsigned long long)fnv(dc, sizeof dc));
    double dot = cblas_ddot(m * k, da, 1, da, 1);
    printf("cblas_ddot %d %016llx\n", m * k, (unsigned long long)fnv(&dot, sizeof dot));
  }
  return 0;
}
