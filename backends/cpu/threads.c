/* OpenBLAS's workers beside a device engine's copy threads.  OpenBLAS's
 * idle workers spin for a while after each call (load.c); where they
 * cannot be told to spin less (the program loaded OpenBLAS first, or the
 * user asked for a long spin) and a device engine keeps cores busy with
 * threads of its own (hop_host_cores_reserve: the OpenCL engine's copy
 * threads), the CPU engine runs each call on the other cores only, so that
 * what spins after it never takes a core the copies need: Debian's dpotrf
 * at n = 16384 ran 7x faster on a 32-core host with 8 OpenBLAS threads
 * than with 32.  openblas_set_num_threads for the call; the program's
 * count is back once the last capped call in flight has ended. */
#include <pthread.h>

#include "cpu.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int in_flight, saved;
static bool told;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* A child forked while another thread held the lock must not inherit it
 * held; the parent's capped calls do not end there. */
static void child_after_fork(void)
{
  pthread_mutex_init(&lock, NULL);
  in_flight = 0;
}
static void register_fork_handler(void) { pthread_atfork(NULL, NULL, child_after_fork); }

/* openblas_set_num_threads starts or stops OpenBLAS's workers under its own lock. */
static void set_threads(const struct hop_cpu_state *st, int n)
{
  HOP_BLAS_CALL(st->set_threads(n));
}

int hop_cpu_threads_cap(const struct hop_cpu_state *st)
{
  int reserved = hop_host_cores_reserved();
  if (reserved == 0 || st->spin == HOP_CPU_SPIN_SHORT || st->set_threads == NULL ||
      st->get_threads == NULL)
    return 0;
  return st->cores - reserved > 1 ? st->cores - reserved : 1;
}

double hop_cpu_threads_share(const struct hop_cpu_state *st)
{
  int cap = hop_cpu_threads_cap(st);
  int threads = cap > 0 ? st->get_threads() : 0;
  return cap > 0 && threads > cap ? (double)cap / threads : 1.0;
}

void hop_cpu_threads_begin(const struct hop_cpu_state *st, bool *capped)
{
  *capped = false;
  int cap = hop_cpu_threads_cap(st);
  if (cap == 0)
    return;
  pthread_once(&fork_once, register_fork_handler);
  pthread_mutex_lock(&lock);
  int now = in_flight > 0 ? saved : st->get_threads();
  if (now > cap) {
    if (in_flight++ == 0) {
      saved = now;
      set_threads(st, cap);
    }
    *capped = true;
    if (!told) {
      told = true;
      hop_log(2, "cpu: OpenBLAS runs hopblas's calls on %d of its %d threads while a device "
                 "engine's copy threads use %d cores (its idle workers spin long: %s)",
              cap, now, hop_host_cores_reserved(), hop_cpu_spin_text(st->spin));
    }
  }
  pthread_mutex_unlock(&lock);
}

void hop_cpu_threads_end(const struct hop_cpu_state *st, bool capped)
{
  if (!capped)
    return;
  pthread_mutex_lock(&lock);
  if (--in_flight == 0)
    set_threads(st, saved);
  pthread_mutex_unlock(&lock);
}
