/* A program that loads and unloads hopblas again and again, as a Python
 * extension or a plugin host does: each cycle dlopen()s the library, makes
 * a few checked sgemm calls through cblas_sgemm found by dlsym(), and
 * dlclose()s it.  Whatever the library held must come back at each
 * dlclose: resident memory, threads and file descriptors are measured
 * after a few warm-up cycles (third-party libraries load once and keep
 * their own state) and again at the end, and must not grow.
 *
 *   unload LIBRARY [--cycles N] [--warmup W] [--calls C] [--shape MxNxK]
 *                  [--max-growth-kib K] [--all-back] [--trace-first FILE]
 *
 * The engine is the environment's choice (HOPBLAS_BACKEND, ...), read
 * anew by each load.  --all-back: threads and mapped files at the end must
 * be those before the first load (an engine that loads nothing that stays).
 * --trace-first: HOPBLAS_TRACE=FILE for the first (warm-up) cycle only, to
 * show on which engine the calls ran.  Prints TAP.
 *
 *   unload LIBRARY --exit-rounds R [--shape MxNxK]
 *
 * The other end of a library's life: R processes each load the library,
 * make a first call, start two threads that call in a loop, and exit()
 * while they are inside it (after 0 to 20 ms); each must end with status
 * 0 within 60 s (the library's destructor runs at exit too). */
#include <dirent.h>
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"

typedef void sgemm_fn(int, int, int, int, int, int, float, const float *, int, const float *, int,
                      float, float *, int);

struct usage {
  long rss_kib, threads, fds, files; /* files: distinct files mapped (libraries) */
};

static long count_dir(const char *path)
{
  DIR *d = opendir(path);
  if (d == NULL)
    return -1;
  long n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static long mapped_files(void)
{
  FILE *f = fopen("/proc/self/maps", "r");
  if (f == NULL)
    return -1;
  char line[4600], last[4096] = "";
  long n = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    char *path = strchr(line, '/');
    if (path == NULL)
      continue;
    path[strcspn(path, "\n")] = '\0';
    /* A file's mappings are adjacent in the list. */
    if (strcmp(path, last) != 0)
      n++;
    snprintf(last, sizeof last, "%s", path);
  }
  fclose(f);
  return n;
}

static void measure(struct usage *u)
{
  malloc_trim(0); /* free memory the allocator still holds is not a leak */
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f == NULL || fscanf(f, "%ld %ld", &pages, &resident) != 2)
    resident = -1;
  if (f != NULL)
    fclose(f);
  u->rss_kib = resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
  u->threads = count_dir("/proc/self/task");
  u->fds = count_dir("/proc/self/fd") - 1; /* less opendir's own */
  u->files = mapped_files();
}

/* C = 0.5 A B^T - C (column-major, A m x k, B n x k), against a double reference. */
static bool call_checked(sgemm_fn *sgemm, int m, int n, int k, unsigned seed, char *why,
                         size_t len)
{
  size_t na = (size_t)m * k, nb = (size_t)n * k, nc = (size_t)m * n;
  float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *c = malloc(nc * sizeof *c);
  double *ref = malloc(nc * sizeof *ref), *mag = malloc(nc * sizeof *mag);
  bool ok = a && b && c && ref && mag;
  if (!ok)
    snprintf(why, len, "out of memory");
  for (size_t i = 0; ok && i < na + nb; i++) {
    seed = seed * 1103515245u + 12345u;
    float v = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
    if (i < na)
      a[i] = v;
    else
      b[i - na] = v;
  }
  for (size_t i = 0; ok && i < nc; i++)
    c[i] = (float)(i % 7) - 3.0f;
  for (int j = 0; ok && j < n; j++)
    for (int i = 0; i < m; i++) {
      double sum = 0.0, abs = 0.0, cij = c[i + (size_t)j * m];
      for (int p = 0; p < k; p++) {
        double x = (double)a[i + (size_t)p * m] * b[j + (size_t)p * n];
        sum += x, abs += x < 0 ? -x : x;
      }
      ref[i + (size_t)j * m] = 0.5 * sum - cij;
      mag[i + (size_t)j * m] = 0.5 * abs + (cij < 0 ? -cij : cij);
    }
  if (ok)
    sgemm(102, 111, 112, m, n, k, 0.5f, a, m, b, n, -1.0f, c, m); /* col-major, A, B^T */
  for (size_t i = 0; ok && i < nc; i++) {
    double err = c[i] - ref[i], bound = 2.0 * (k + 2) * 0x1p-23 * mag[i];
    if (!(err <= bound && -err <= bound)) {
      snprintf(why, len, "C[%zu] = %.9g, expected %.9g (bound %.3g)", i, c[i], ref[i], bound);
      ok = false;
    }
  }
  free(a), free(b), free(c), free(ref), free(mag);
  return ok;
}


struct looper {
  sgemm_fn *sgemm;
  int m, n, k;
};

static void *call_forever(void *arg)
{
  const struct looper *l = arg;
  char why[200];
  for (unsigned seed = 1;; seed++)
    if (!call_checked(l->sgemm, l->m, l->n, l->k, seed, why, sizeof why))
      _exit(3);
  return NULL;
}

/* One process: load, a first call, two threads calling, exit() after delay_us. */
static void exit_during_calls(const char *lib, struct looper *l, long delay_us)
{
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  char why[200];
  if (h == NULL || (l->sgemm = (sgemm_fn *)dlsym(h, "cblas_sgemm")) == NULL ||
      !call_checked(l->sgemm, l->m, l->n, l->k, 1, why, sizeof why))
    _exit(4);
  pthread_t t;
  for (int i = 0; i < 2; i++)
    if (pthread_create(&t, NULL, call_forever, l) != 0)
      _exit(5);
  struct timespec ts = {0, delay_us * 1000};
  nanosleep(&ts, NULL);
  exit(0);
}

static int exit_rounds(const char *lib, int rounds, int m, int n, int k)
{
  int good = 0;
  char first_bad[160] = "";
  for (int r = 0; r < rounds; r++) {
    struct looper l = {.m = m, .n = n, .k = k};
    long delay_us = (long)r * 20000 / rounds;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
      exit_during_calls(lib, &l, delay_us);
    int status = 0, waited = 0;
    while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0 && waited < 60000) {
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
      waited++;
    }
    if (pid > 0 && waited >= 60000) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
    bool ok = pid > 0 && waited < 60000 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    good += ok;
    if (!ok && first_bad[0] == '\0')
      snprintf(first_bad, sizeof first_bad, ": after %ld us, %s %d", delay_us,
               waited >= 60000 ? "hung, killed by signal" : WIFSIGNALED(status) ? "signal" : "exit",
               WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  }
  tap(good == rounds, "%d processes exit() while two threads call: %d ended with status 0%s",
      rounds, good, first_bad);
  printf("1..%d\n", tap_n);
  return good == rounds ? 0 : 1;
}

int main(int argc, char **argv)
{
  int cycles = 100, warmup = 5, calls = 3, m = 64, n = 64, k = 64, exits = 0;
  long max_growth_kib = 4096;
  bool all_back = false, usage = argc < 2;
  const char *trace_first = NULL;
  for (int i = 2; i < argc && !usage; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--all-back") == 0)
      all_back = true;
    else if (v != NULL && strcmp(a, "--cycles") == 0)
      cycles = atoi(v), i++;
    else if (v != NULL && strcmp(a, "--warmup") == 0)
      warmup = atoi(v), i++;
    else if (v != NULL && strcmp(a, "--calls") == 0)
      calls = atoi(v), i++;
    else if (v != NULL && strcmp(a, "--shape") == 0)
      usage = sscanf(v, "%dx%dx%d", &m, &n, &k) != 3, i++;
    else if (v != NULL && strcmp(a, "--max-growth-kib") == 0)
      max_growth_kib = atol(v), i++;
    else if (v != NULL && strcmp(a, "--trace-first") == 0)
      trace_first = v, i++;
    else if (v != NULL && strcmp(a, "--exit-rounds") == 0)
      exits = atoi(v), i++;
    else
      usage = true;
  }
  if (usage || warmup < 1 || cycles <= warmup || calls < 1 || m < 1 || n < 1 || k < 1) {
    fprintf(stderr, "usage: unload LIBRARY [--cycles N] [--warmup W] [--calls C] [--shape MxNxK] "
                    "[--max-growth-kib K] [--all-back] [--trace-first FILE] | --exit-rounds R\n");
    return 2;
  }
  const char *lib = argv[1];
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (exits > 0)
    return exit_rounds(lib, exits, m, n, k);
  struct usage start, base = {0}, end;
  measure(&start);
  int right = 0, wrong = 0, stuck = 0;
  char why[200] = "";
  for (int cycle = 1; cycle <= cycles; cycle++) {
    if (trace_first != NULL && cycle <= 2)
      cycle == 1 ? setenv("HOPBLAS_TRACE", trace_first, 1) : unsetenv("HOPBLAS_TRACE");
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
      snprintf(why, sizeof why, "cycle %d: dlopen: %s", cycle, dlerror());
      wrong++;
      break;
    }
    sgemm_fn *sgemm = (sgemm_fn *)dlsym(h, "cblas_sgemm");
    for (int c = 0; sgemm != NULL && c < calls; c++) {
      bool ok = call_checked(sgemm, m + c, n + c, k, (unsigned)(cycle * 31 + c), why, sizeof why);
      right += ok, wrong += !ok;
    }
    if (sgemm == NULL)
      wrong++, snprintf(why, sizeof why, "no cblas_sgemm in %s", lib);
    dlclose(h);
    /* Still there after dlclose: something pins it, and nothing was unloaded. */
    void *again = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    if (again != NULL) {
      stuck++;
      dlclose(again);
    }
    if (cycle == warmup)
      measure(&base);
  }
  measure(&end);
  tap(wrong == 0 && right == cycles * calls, "%d cycles of dlopen, %d calls, dlclose: %d right, "
      "%d wrong%s%s", cycles, calls, right, wrong, wrong ? ": " : "", wrong ? why : "");
  tap(stuck == 0, "the library is unmapped after each dlclose (still there after %d of %d)", stuck,
      cycles);
  /* What hopblas loads for itself (OpenBLAS) goes with it; an ICD loader
   * never unloads its drivers, which keep their threads: --all-back only
   * where no such driver is involved. */
  tap(end.threads == base.threads && (!all_back || end.threads == start.threads),
      "threads: %ld before the first load, %ld after %d cycles, %ld after %d", start.threads,
      base.threads, warmup, end.threads, cycles);
  tap(end.files == base.files && (!all_back || end.files == start.files),
      "files mapped: %ld before the first load, %ld after %d cycles, %ld after %d", start.files,
      base.files, warmup, end.files, cycles);
  tap(end.fds == base.fds,
      "file descriptors: %ld before the first load, %ld after %d cycles, %ld after %d", start.fds,
      base.fds, warmup, end.fds, cycles);
  long growth = end.rss_kib - base.rss_kib;
  tap(start.rss_kib > 0 && growth <= max_growth_kib,
      "resident memory: %ld KiB before the first load, %ld after %d cycles, %ld after %d: "
      "%+ld KiB over %d cycles (at most %ld)", start.rss_kib, base.rss_kib, warmup, end.rss_kib,
      cycles, growth, cycles - warmup, max_growth_kib);
  printf("1..%d\n", tap_n);
  return tap_failed ? 1 : 0;
}
