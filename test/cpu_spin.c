/* OpenBLAS's idle workers after a call on the CPU engine: one dgemm_ that
 * the CPU engine runs (HOPBLAS_BACKEND=cpu), then a sleep, and the CPU time
 * the process burnt during the sleep, in seconds, on stdout; and whether
 * OPENBLAS_THREAD_TIMEOUT is set in the environment afterwards (hopblas sets
 * it only for the load of its private copy).  test/cpu-spin.test compares
 * that with what a long spin, set by the user, burns. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);

static double cpu_seconds(void)
{
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         1e-6 * (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

int main(void)
{
  int n = 400;
  double one = 1.0, zero = 0.0;
  double *a = calloc((size_t)n * n, sizeof *a), *b = calloc((size_t)n * n, sizeof *b),
         *c = calloc((size_t)n * n, sizeof *c);
  if (a == NULL || b == NULL || c == NULL)
    return 2;
  dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
  double before = cpu_seconds();
  struct timespec nap = {0, 300000000};
  nanosleep(&nap, NULL);
  printf("%.3f %s\n", cpu_seconds() - before,
         getenv("OPENBLAS_THREAD_TIMEOUT") != NULL ? "set" : "unset");
  free(a), free(b), free(c);
  return 0;
}
