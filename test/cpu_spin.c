/* OpenBLAS's idle workers after a call on the CPU engine: one dgemm_ that
 * the CPU engine runs (HOPBLAS_BACKEND=cpu), a 100 ms sleep, then how many
 * of the process's other threads are runnable (state R in
 * /proc/self/task: a worker still spinning; one that went to sleep waits
 * on a condition, state S) and whether OPENBLAS_THREAD_TIMEOUT is set in
 * the environment afterwards (hopblas sets it only for the load of its
 * private copy).  The state, not CPU time: a spinning thread that a busy
 * host deschedules burns little, but stays runnable.  test/cpu-spin.test
 * compares that with a long spin set by the user. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);

/* Threads of this process other than the caller in state R. */
static int runnable_others(void)
{
  DIR *d = opendir("/proc/self/task");
  if (d == NULL)
    return -1;
  long self = (long)syscall(SYS_gettid);
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    long tid = strtol(e->d_name, NULL, 10);
    if (tid <= 0 || tid == self)
      continue;
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
      continue;
    /* "tid (comm) S ...": the state follows the last ')'. */
    if (fgets(line, sizeof line, f) != NULL) {
      const char *p = strrchr(line, ')');
      if (p != NULL && p[1] == ' ' && p[2] == 'R')
        count++;
    }
    fclose(f);
  }
  closedir(d);
  return count;
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
  struct timespec nap = {0, 100000000};
  nanosleep(&nap, NULL);
  printf("%d %s\n", runnable_others(), getenv("OPENBLAS_THREAD_TIMEOUT") != NULL ? "set" : "unset");
  free(a), free(b), free(c);
  return 0;
}
