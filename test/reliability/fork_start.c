/* fork() while another thread is starting an engine.  Each round is a fresh
 * process (forked from this one, which never calls hopblas): a thread makes
 * the first call, which starts the engine the environment selects
 * (HOPBLAS_BACKEND=opencl HOPBLAS_MIN_FLOPS=0 for the OpenCL engine), while
 * the main thread forks after a delay.  The child makes a call of its own,
 * checks it and _exit()s; a child that has not finished within the timeout
 * is killed and counted as hung.  The delays are spread over the time a
 * first call takes (measured first, in a process of its own), so that the
 * forks land before, during and after the engine's start.
 *
 *   fork_start [--rounds N] [--timeout-ms T] [--stop-after F] [--label TEXT]
 *
 * Prints TAP: the measured first call, then one line for all rounds with
 * the count of each outcome.  --stop-after F ends the rounds after F failed
 * ones (0: never), so that a broken build fails quickly. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

enum outcome { RIGHT, WRONG, CRASHED, HUNG, STARTER_WRONG, ROUND_LOST, OUTCOMES };
static const char *const outcome_name[OUTCOMES] = {
  "right", "wrong result", "crashed", "hung", "starting thread wrong", "round process lost",
};

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
  struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* One checked sgemm of the given shape: true when right. */
static bool one_call(int m, int n, int k, uint64_t seed)
{
  struct ht_call c = {.dtype = HT_S, .entry = HT_CBLAS, .order = HT_COL, .ta = HT_N, .tb = HT_T,
                      .m = m, .n = n, .k = k, .alpha = 0.5, .beta = -1.0};
  static const int pad[3] = {1, 2, 3}, off[3] = {1, 0, 3};
  struct ht_rng rng = {seed};
  if (!ht_call_alloc(&c, pad, off))
    return false;
  ht_call_fill(&c, &rng);
  ht_call_run(&c);
  char why[512];
  bool ok = ht_call_check(&c, 2.0, why, sizeof why);
  if (!ok)
    fprintf(stderr, "fork_start: %s\n", why);
  ht_call_free(&c);
  return ok;
}

/* Wait for pid up to timeout seconds; kill it past that.  Its outcome. */
static enum outcome reap(pid_t pid, double timeout, int *status)
{
  double until = now() + timeout;
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid)
      return WIFEXITED(*status) ? RIGHT : CRASHED;
    if (r < 0 && errno != EINTR)
      return CRASHED;
    if (now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, status, 0);
      return HUNG;
    }
    sleep_s(1e-3);
  }
}

static void *starter(void *arg)
{
  *(bool *)arg = one_call(33, 31, 29, 7);
  return NULL;
}

/* The round process: the first call on a thread, a fork after `delay`. */
static int round_main(double delay, double timeout)
{
  bool starter_ok = false;
  pthread_t t;
  if (pthread_create(&t, NULL, starter, &starter_ok) != 0)
    return ROUND_LOST;
  sleep_s(delay);
  pid_t pid = fork();
  if (pid == 0)
    _exit(one_call(24, 20, 17, 11) ? 0 : 3);
  int status = 0;
  enum outcome o = pid < 0 ? ROUND_LOST : reap(pid, timeout, &status);
  if (o == RIGHT && WEXITSTATUS(status) != 0)
    o = WRONG;
  if (o == CRASHED)
    fprintf(stderr, "fork_start: the child died of signal %d (fork after %.1f ms)\n",
            WIFSIGNALED(status) ? WTERMSIG(status) : 0, 1e3 * delay);
  if (o == HUNG)
    fprintf(stderr, "fork_start: the child hung (fork after %.1f ms)\n", 1e3 * delay);
  pthread_join(t, NULL);
  if (o == RIGHT && !starter_ok)
    o = STARTER_WRONG;
  return o;
}

int main(int argc, char **argv)
{
  int rounds = 200, stop_after = 0;
  double timeout = 10.0;
  const char *label = "";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--rounds") == 0)
      rounds = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--timeout-ms") == 0)
      timeout = atof(argv[i + 1]) / 1e3;
    else if (strcmp(argv[i], "--stop-after") == 0)
      stop_after = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--label") == 0)
      label = argv[i + 1];
    else
      argc = 0;
  }
  if (argc == 0 || argc % 2 == 0 || rounds < 1 || timeout <= 0.0) {
    fprintf(stderr,
            "usage: fork_start [--rounds N] [--timeout-ms T] [--stop-after F] [--label TEXT]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IONBF, 0);

  /* How long a first call takes here, in a process of its own; twice, the
   * first time filling the program-binary cache that the rounds find. */
  double first = 0.0;
  bool ok = true;
  enum outcome o;
  int status = 0;
  pid_t pid;
  for (int probe = 0; probe < 2 && ok; probe++) {
    double t0 = now();
    pid = fork();
    if (pid == 0)
      _exit(one_call(33, 31, 29, 7) ? 0 : 3);
    o = pid < 0 ? ROUND_LOST : reap(pid, timeout, &status);
    first = now() - t0;
    ok = o == RIGHT && WEXITSTATUS(status) == 0;
  }
  printf("%s 1 - %sa first call alone: %s in %.0f ms\n", ok ? "ok" : "not ok", label,
         ok ? "right" : "failed", 1e3 * first);
  if (!ok) {
    printf("not ok 2 - %srounds not run\n1..2\n", label);
    return 1;
  }

  int count[OUTCOMES] = {0}, done = 0, failed = 0;
  for (int r = 0; r < rounds && (stop_after == 0 || failed < stop_after); r++) {
    /* Delays spread evenly (golden-ratio steps) over 1.2 times the first call. */
    double frac = (double)r * 0.6180339887498949;
    double delay = (frac - (double)(long)frac) * 1.2 * first;
    fflush(stderr);
    pid = fork();
    if (pid == 0)
      _exit(round_main(delay, timeout));
    o = pid < 0 ? ROUND_LOST : reap(pid, 2.0 * timeout + 2.0 * first, &status);
    if (o == RIGHT)
      o = WEXITSTATUS(status) < OUTCOMES ? (enum outcome)WEXITSTATUS(status) : ROUND_LOST;
    else
      o = ROUND_LOST;
    count[o]++;
    done++;
    failed += o != RIGHT;
  }
  char summary[400] = "";
  for (int i = 0; i < OUTCOMES; i++)
    if (count[i] > 0)
      snprintf(summary + strlen(summary), sizeof summary - strlen(summary), "%s%s %d",
               summary[0] ? ", " : "", outcome_name[i], count[i]);
  printf("%s 2 - %s%d rounds of a fork during the first call: every child right (%s)\n",
         failed == 0 && done == rounds ? "ok" : "not ok", label, done, summary);
  printf("1..2\n");
  return failed == 0 && done == rounds ? 0 : 1;
}
