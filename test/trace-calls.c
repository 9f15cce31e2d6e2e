/* Calls for the trace tests (test/trace.test), each mode a known number of
 * rows.  Results are checked against the double reference; stdout says
 * what was done, stderr is left to the library.
 *
 *   trace-calls kinds           every kind of row: routed calls through each
 *                               entry point, quick returns, argument errors
 *   trace-calls l3              Level-3 calls beside GEMM in both orders, a quick
 *                               return and an argument error: their rows carry
 *                               side, uplo and diag as the caller passed them
 *   trace-calls many N          N routed calls, then return from main
 *   trace-calls exec N          N calls, then fork; the child execs
 *                               "trace-calls many N" in its place
 *   trace-calls fork-storm R    two threads make calls without pause (a
 *                               checked one, then a burst of BURST plain
 *                               ones) while the main thread forks R times;
 *                               each child makes one call and exits; a child
 *                               that does not finish within 5 s is killed
 *                               and counted as hung (three hung end the
 *                               storm).  Traced or not (the fast path).
 * Exit: 0 all right, 1 otherwise. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

/* The xerbla_ the library reports through: counted, silent. */
static atomic_int xerbla_calls;
__attribute__((visibility("default"))) void xerbla_(const char *name, const int *info, size_t len)
{
  (void)name, (void)info, (void)len;
  atomic_fetch_add(&xerbla_calls, 1);
}

/* One routed call, checked; false when wrong. */
static bool checked_call(enum ht_entry entry, enum ht_dtype dt, int n, unsigned seed)
{
  struct ht_call c = {.dtype = dt, .entry = entry, .order = HT_COL, .ta = HT_N, .tb = HT_T,
                      .m = n, .n = n + 1, .k = n + 2, .alpha = 0.5, .beta = -1.0};
  static const int pad[3] = {0, 1, 0}, off[3] = {0, 0, 0};
  struct ht_rng rng = {seed};
  if (!ht_call_alloc(&c, pad, off))
    return false;
  ht_call_fill(&c, &rng);
  ht_call_run(&c);
  struct ht_bad bad;
  char why[256];
  bool ok = ht_call_bad(&c, 2.0, &bad, why, sizeof why);
  ht_call_free(&c);
  return ok;
}

static int kinds(void)
{
  float a[64] = {0}, b[64] = {0}, c[64] = {0};
  uint16_t h[64] = {0};
  int bad = 0, two = 2, zero = 0, one = 1;
  float fone = 1.0f, fzero = 0.0f;
  /* 4 routed calls */
  bad += !checked_call(HT_CBLAS, HT_S, 5, 1);
  bad += !checked_call(HT_FORTRAN, HT_S, 6, 2);
  bad += !checked_call(HT_CBLAS, HT_H, 7, 3);
  bad += !checked_call(HT_CBLAS, HT_SH, 8, 4);
  /* 4 quick returns: m == 0, n == 0, alpha == 0 with beta == 1, k == 0 with beta == 1 */
  cblas_sgemm(102, 111, 111, 0, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
  sgemm_("N", "N", &two, &zero, &two, &fone, a, &two, b, &two, &fzero, c, &two);
  cblas_hgemm(102, 111, 111, 2, 2, 2, 0, h, 2, h, 2, 0x3c00, h, 2);
  sgemm_("N", "N", &two, &two, &zero, &fone, a, &two, b, &two, &fone, c, &two);
  /* 4 argument errors: lda (8), transa (1), order (0 in OpenBLAS's numbering), ldc (13) */
  cblas_sgemm(102, 111, 111, 2, 2, 2, 1.0f, a, 1, b, 2, 0.0f, c, 2);
  sgemm_("X", "N", &two, &two, &two, &fone, a, &two, b, &two, &fzero, c, &two);
  cblas_shgemm(99, 111, 111, 2, 2, 2, 1.0f, h, 2, h, 2, 0.0f, c, 2);
  hgemm_("N", "N", &two, &two, &two, h, h, &two, h, &two, h, h, &one);
  printf("kinds: wrong=%d xerbla=%d\n", bad, atomic_load(&xerbla_calls));
  return bad == 0 && atomic_load(&xerbla_calls) == 4 ? 0 : 1;
}

/* The prototypes as cblas.h and blas.h have them (the tests declare their own). */
void cblas_strsm(int, int, int, int, int, int, int, float, const float *, int, float *, int);
void strsm_(const char *, const char *, const char *, const char *, const int *, const int *,
            const float *, const float *, const int *, float *, const int *);
void cblas_dsyrk(int, int, int, int, int, double, const double *, int, double, double *, int);
void cblas_zher2k(int, int, int, int, int, const void *, const void *, int, const void *, int,
                  double, void *, int);
void csymm_(const char *, const char *, const int *, const int *, const void *, const void *,
            const int *, const void *, const int *, const void *, void *, const int *);
void cblas_dtrmm(int, int, int, int, int, int, int, double, const double *, int, double *, int);
void dsymm_(const char *, const char *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *);

static int l3(void)
{
  /* Values are not checked here (test/contract-l3 does that); the rows are. */
  float fa[64], fb[64];
  double da[64], db[64], z[128];
  for (int i = 0; i < 64; i++)
    fa[i] = 2.0f, fb[i] = 1.0f, da[i] = 0.25, db[i] = 1.0, z[2 * i] = 0.5, z[2 * i + 1] = 0.25;
  int two = 2, three = 3;
  float fone = 1.0f;
  double zone[2] = {1.0, 0.0}, dzero = 0.0;
  /* 5 routed calls, then a quick return (m == 0) and an argument error (side, INFO 1) */
  cblas_strsm(101, 141, 121, 112, 132, 3, 2, 1.0f, fa, 3, fb, 2);   /* row, L U T unit */
  strsm_("R", "L", "N", "N", &two, &three, &fone, fa, &three, fb, &two); /* R L N non-unit */
  cblas_dsyrk(101, 122, 111, 4, 2, 1.0, da, 2, 0.0, db, 4);          /* row, lower, N */
  cblas_zher2k(102, 121, 113, 3, 2, zone, z, 2, z, 2, 1.0, z + 20, 3); /* col, upper, C */
  csymm_("R", "U", &two, &three, zone, z, &three, z, &two, zone, z + 40, &two);
  cblas_dtrmm(102, 141, 122, 111, 131, 0, 2, 1.0, da, 1, db, 1);
  dsymm_("X", "U", &two, &two, &db[0], da, &two, db, &two, &dzero, db + 8, &two);
  printf("l3: xerbla=%d\n", atomic_load(&xerbla_calls));
  return atomic_load(&xerbla_calls) == 1 ? 0 : 1;
}

static int many(int n)
{
  int bad = 0;
  for (int i = 0; i < n; i++)
    bad += !checked_call(i % 2 ? HT_FORTRAN : HT_CBLAS, HT_S, 3 + i % 5, (unsigned)i + 1);
  printf("many %d: pid %ld, wrong=%d\n", n, (long)getpid(), bad);
  return bad ? 1 : 0;
}

/* Waits for pid at most seconds; kills it when it hangs.  0 right, 1 not. */
static int wait_bounded(pid_t pid, double seconds, int *hung)
{
  int status = 0;
  for (double waited = 0; waited < seconds; waited += 0.001) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
      return 0;
    if (r == pid) {
      printf("# child %ld: %s %d\n", (long)pid, WIFEXITED(status) ? "exit" : "signal",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
      return 1;
    }
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  (*hung)++;
  return 1;
}

static int exec_child(const char *self, int n)
{
  int bad = many(n) ? 1 : 0, hung = 0;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    char count[16];
    snprintf(count, sizeof count, "%d", n);
    execl(self, self, "many", count, (char *)NULL);
    _exit(127);
  }
  bad += pid < 0 || wait_bounded(pid, 60.0, &hung);
  printf("exec: parent %ld, wrong or failed=%d\n", (long)getpid(), bad);
  return bad ? 1 : 0;
}

static atomic_bool storm_stop;
static atomic_int storm_bad, storm_calls;
enum { BURST = 32 };

static void *storm_thread(void *arg)
{
  unsigned seed = (unsigned)(size_t)arg;
  /* The bursts keep the threads inside the CPU BLAS most of the time: a
   * fork then often finds one there (and OpenBLAS's locks held). */
  float a[16] = {1.0f}, b[16] = {1.0f}, c[16] = {0.0f};
  while (!atomic_load(&storm_stop)) {
    atomic_fetch_add(&storm_bad, !checked_call(HT_CBLAS, HT_S, 2 + seed % 3, seed));
    for (int i = 0; i < BURST; i++)
      cblas_sgemm(102, 111, 112, 4, 4, 4, 1.0f, a, 4, b, 4, 0.5f, c, 4);
    atomic_fetch_add(&storm_calls, 1 + BURST);
    seed += 2;
  }
  return NULL;
}

static int fork_storm(int rounds)
{
  /* Engines started first: forks during an engine's start are another
   * test's (test/reliability/fork_start.test); this one is about the
   * trace's lock and the CPU BLAS's (core/fork_guard.c). */
  int bad = !checked_call(HT_CBLAS, HT_S, 3, 7);
  pthread_t th[2];
  fflush(stdout);
  for (size_t i = 0; i < 2; i++)
    pthread_create(&th[i], NULL, storm_thread, (void *)(i + 1));
  int failed = 0, hung = 0;
  for (int r = 0; r < rounds; r++) {
    fflush(stdout);
    nanosleep(&(struct timespec){0, 100000 + 37000 * (r % 7)}, NULL);
    pid_t pid = fork();
    if (pid == 0)
      exit(checked_call(HT_FORTRAN, HT_S, 4, 99) ? 0 : 1); /* exit: the child's trace is written */
    failed += pid < 0 || wait_bounded(pid, 5.0, &hung);
    if (hung >= 3) /* enough to know: do not wait out every round */
      break;
  }
  atomic_store(&storm_stop, true);
  for (size_t i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  printf("fork-storm: %d rounds, %d children failed (%d hung), %d thread calls, %d wrong\n", rounds,
         failed, hung, atomic_load(&storm_calls), atomic_load(&storm_bad));
  return failed == 0 && bad == 0 && atomic_load(&storm_bad) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  int n = argc > 2 ? atoi(argv[2]) : 0;
  if (strcmp(mode, "kinds") == 0)
    return kinds();
  if (strcmp(mode, "l3") == 0)
    return l3();
  if (strcmp(mode, "many") == 0 && n > 0)
    return many(n);
  if (strcmp(mode, "exec") == 0 && n > 0)
    return exec_child(argv[0], n);
  if (strcmp(mode, "fork-storm") == 0 && n > 0)
    return fork_storm(n);
  fprintf(stderr, "trace-calls: bad arguments (see the comment at the top of test/trace-calls.c)\n");
  return 1;
}
