/* Host work shared out over threads started for the call: the planes of a
 * complex call on real kernels (complex_real.c), the small problems of a
 * batch on the CPU (backends/cpu/batch.c).  A thread that cannot be
 * started leaves its share to the caller's thread: never an error. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "hop.h"

enum { MAX_THREADS = 16 };

static _Atomic int reserved_cores;

void hop_host_cores_reserve(int cores) { reserved_cores += cores; }

int hop_host_cores_reserved(void) { return reserved_cores; }

struct share {
  hop_share_fn *fn;
  void *arg;
  int64_t lo, hi;
};

static void *run_share(void *p)
{
  const struct share *s = p;
  s->fn(s->arg, s->lo, s->hi);
  return NULL;
}

int hop_parallel_threads(double work, double per_thread, int64_t items)
{
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  double want = work / per_thread;
  int t = want < 1.0 ? 1 : want > MAX_THREADS ? MAX_THREADS : (int)want;
  t = cores > 0 && t > cores ? (int)cores : t;
  return t > items ? (items > 0 ? (int)items : 1) : t;
}

void hop_parallel(int threads, int64_t items, hop_share_fn *fn, void *arg)
{
  int t = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
  struct share sh[MAX_THREADS];
  pthread_t tid[MAX_THREADS];
  bool started[MAX_THREADS] = {false};
  for (int i = 0; i < t; i++) {
    sh[i] = (struct share){fn, arg, items * i / t, items * (i + 1) / t};
    if (i > 0)
      started[i] = pthread_create(&tid[i], NULL, run_share, &sh[i]) == 0;
  }
  run_share(&sh[0]);
  for (int i = 1; i < t; i++) {
    if (started[i])
      pthread_join(tid[i], NULL);
    else
      run_share(&sh[i]);
  }
}
