/* Large host copies (staging buffers <-> the caller's memory) split by
 * columns over worker threads: one core cannot keep up with a discrete
 * GPU's link.  The workers are created on the first large copy, under the
 * engine lock (every copy runs under it), and live as long as the engine:
 * its release joins them when the library is unloaded.  A forked child
 * never uses them (the engine is off there).
 *
 * A staged call hands the workers one chunk after another, each a few
 * hundred microseconds of work; waking a sleeping thread costs tens of
 * microseconds, so between jobs the workers (and the caller, waiting for
 * them) spin for a short while before they sleep. */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ocl.h"

enum {
  COPY_MAX_THREADS = 64,
  COPY_DEFAULT_MAX = 16,     /* more than this rarely adds bandwidth */
  COPY_MIN_BYTES = 1 << 20,  /* below this, handing out shares costs more than it saves */
  COPY_MIN_PART = 128 << 10, /* each thread copies at least this much */
};

/* How long a thread spins for the next job (or for the job's end) before it sleeps. */
static const double SPIN_S = 200e-6;

struct copy_worker {
  struct hop_ocl_copy *cp;
  int part; /* which share of each job it copies (1..; the caller copies share 0) */
  pthread_t tid;
};

struct hop_ocl_copy {
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  int threads;                 /* workers started, plus the calling thread */
  atomic_bool quit;
  atomic_ulong round;          /* one per job: a worker runs each round once */
  hop_ocl_copy_fn *fn;         /* the job: columns [0, cols) in `parts` shares */
  void *arg;
  int cols, parts;
  atomic_int left;             /* workers not yet through this job (each checks in, share or
                                * none, so the job's fields stay put until every one read them) */
  struct copy_worker w[COPY_MAX_THREADS];
};

static void share(int cols, int parts, int part, int *j0, int *j1)
{
  *j0 = (int)((long long)cols * part / parts);
  *j1 = (int)((long long)cols * (part + 1) / parts);
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

/* Spin until done(cp, arg) or SPIN_S has passed; true when done. */
static bool spin(bool (*done)(struct hop_ocl_copy *, unsigned long), struct hop_ocl_copy *cp,
                 unsigned long arg)
{
  double until = 0.0;
  for (unsigned i = 1;; i++) {
    if (done(cp, arg))
      return true;
    relax();
    if (i % 256 == 0) {
      double t = now();
      if (until == 0.0)
        until = t + SPIN_S;
      else if (t > until)
        return false;
    }
  }
}

static bool new_round(struct hop_ocl_copy *cp, unsigned long seen)
{
  return atomic_load(&cp->round) != seen || atomic_load(&cp->quit);
}

static bool all_done(struct hop_ocl_copy *cp, unsigned long unused)
{
  (void)unused;
  return atomic_load(&cp->left) == 0;
}

static void *copy_worker_main(void *arg)
{
  struct copy_worker *w = arg;
  struct hop_ocl_copy *cp = w->cp;
  unsigned long seen = 0;
  for (;;) {
    if (!spin(new_round, cp, seen)) {
      pthread_mutex_lock(&cp->lock);
      while (!new_round(cp, seen))
        pthread_cond_wait(&cp->go, &cp->lock);
      pthread_mutex_unlock(&cp->lock);
    }
    if (atomic_load(&cp->quit))
      break;
    seen = atomic_load(&cp->round);
    if (w->part < cp->parts) {
      int j0, j1;
      share(cp->cols, cp->parts, w->part, &j0, &j1);
      cp->fn(cp->arg, j0, j1);
    }
    if (atomic_fetch_sub(&cp->left, 1) == 1) { /* the last one: wake a sleeping caller */
      pthread_mutex_lock(&cp->lock);
      pthread_cond_signal(&cp->done);
      pthread_mutex_unlock(&cp->lock);
    }
  }
  return NULL;
}

/* Devices whose calls are shared (split.c): their pools divide the cores. */
static _Atomic int sharing = 1;

void hop_ocl_copy_devices(int devices) { sharing = devices > 1 ? devices : 1; }

/* The workers, created on first use; NULL: copy on the calling thread. */
static struct hop_ocl_copy *copy_pool(struct hop_ocl_state *st)
{
  if (st->pool.copy != NULL || st->pool.copy_tried)
    return st->pool.copy;
  st->pool.copy_tried = true;
  /* Half the cores: on the H200's 16-core host, 16 copy threads reached
   * 57 GB/s in some calls and 9 GB/s in others (a descheduled share holds
   * up the whole copy while the driver's and the program's own threads
   * want a core); 8 copied a steady 32 GB/s, every call (doc/PERFORMANCE.md).
   * Devices that share calls share that half. */
  long cores = sysconf(_SC_NPROCESSORS_ONLN) / 2 / sharing;
  long dflt = cores < 1 ? 1 : cores < COPY_DEFAULT_MAX ? cores : COPY_DEFAULT_MAX;
  long want = hop_config_int("HOPBLAS_OPENCL_COPY_THREADS", 0, COPY_MAX_THREADS, 0);
  if (want == 0)
    want = dflt;
  if (want < 2)
    return NULL;
  struct hop_ocl_copy *cp = calloc(1, sizeof *cp);
  if (cp == NULL)
    return NULL;
  pthread_mutex_init(&cp->lock, NULL);
  pthread_cond_init(&cp->go, NULL);
  pthread_cond_init(&cp->done, NULL);
  /* The workers take none of the host program's signals. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int started = 0;
  for (int i = 1; i < want; i++) {
    cp->w[started] = (struct copy_worker){.cp = cp, .part = i};
    if (pthread_create(&cp->w[started].tid, NULL, copy_worker_main, &cp->w[started]) != 0)
      break;
    started++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  cp->threads = started + 1;
  hop_host_cores_reserve(cp->threads);
  hop_log(3, "opencl: %d threads copy between host memory and staging buffers", cp->threads);
  if (started == 0) {
    pthread_cond_destroy(&cp->done);
    pthread_cond_destroy(&cp->go);
    pthread_mutex_destroy(&cp->lock);
    free(cp);
    return NULL;
  }
  return st->pool.copy = cp;
}

void hop_ocl_copy_release(struct hop_ocl_state *st)
{
  struct hop_ocl_copy *cp = st->pool.copy;
  st->pool.copy = NULL;
  st->pool.copy_tried = false;
  if (cp == NULL)
    return;
  pthread_mutex_lock(&cp->lock);
  atomic_store(&cp->quit, true);
  pthread_cond_broadcast(&cp->go);
  pthread_mutex_unlock(&cp->lock);
  for (int i = 0; i < cp->threads - 1; i++)
    pthread_join(cp->w[i].tid, NULL);
  pthread_cond_destroy(&cp->done);
  pthread_cond_destroy(&cp->go);
  pthread_mutex_destroy(&cp->lock);
  free(cp);
}

int hop_ocl_copy_threads(struct hop_ocl_state *st)
{
  struct hop_ocl_copy *cp = copy_pool(st);
  return cp == NULL ? 1 : cp->threads;
}

void hop_ocl_copy_columns(struct hop_ocl_state *st, size_t bytes, int cols, hop_ocl_copy_fn *fn,
                          void *arg)
{
  struct hop_ocl_copy *cp = bytes >= COPY_MIN_BYTES && cols > 1 ? copy_pool(st) : NULL;
  size_t by_size = bytes / COPY_MIN_PART;
  int parts = cp == NULL ? 1 : cp->threads;
  parts = (size_t)parts > by_size ? (int)by_size : parts;
  parts = parts > cols ? cols : parts;
  if (parts < 2) {
    fn(arg, 0, cols);
    return;
  }
  /* The job is published before the round moves on (sequentially consistent
   * atomics); a worker asleep on the condition is woken under the lock. */
  cp->fn = fn, cp->arg = arg, cp->cols = cols, cp->parts = parts;
  atomic_store(&cp->left, cp->threads - 1);
  pthread_mutex_lock(&cp->lock);
  atomic_fetch_add(&cp->round, 1);
  pthread_cond_broadcast(&cp->go);
  pthread_mutex_unlock(&cp->lock);
  int j0, j1;
  share(cols, parts, 0, &j0, &j1);
  fn(arg, j0, j1);
  if (spin(all_done, cp, 0))
    return;
  pthread_mutex_lock(&cp->lock);
  while (atomic_load(&cp->left) > 0)
    pthread_cond_wait(&cp->done, &cp->lock);
  pthread_mutex_unlock(&cp->lock);
}
