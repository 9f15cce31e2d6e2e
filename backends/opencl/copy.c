/* Large host copies (staging buffers <-> the caller's memory) split by
 * columns over worker threads: one core cannot keep up with a discrete
 * GPU's link.  The workers are created on the first large copy, under the
 * engine lock (every copy runs under it), and live as long as the engine:
 * its release joins them when the library is unloaded.  A forked child
 * never uses them (the engine is off there).
 *
 * A staged call hands the workers one job after another, each a few
 * hundred microseconds of work; waking a sleeping thread costs tens of
 * microseconds, so between jobs the workers (and the caller, waiting for
 * them) spin for a short while before they sleep.
 *
 * A job is cut into more chunks than there are threads, and each thread
 * (the caller too) takes the next chunk until none is left: a thread the
 * scheduler holds off (the program's OpenBLAS workers spinning after a
 * call, the driver's threads) delays one chunk, while the others take the
 * rest.  With one fixed share per thread, one such thread held up the
 * whole copy: on a 32-core H200 host Debian's dgetrf packed at 4 GB/s in
 * some processes and 48 GB/s in others. */
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "ocl.h"

enum {
  COPY_MAX_THREADS = 64,
  COPY_DEFAULT_MAX = 16,       /* more than this rarely adds bandwidth */
  COPY_MIN_BYTES = 1 << 20,    /* below this, handing out chunks costs more than it saves */
  COPY_MIN_CHUNK = 64 << 10,   /* each chunk at least this much */
  COPY_CHUNKS_PER_THREAD = 4, /* HOPBLAS_OPENCL_COPY_CHUNKS's default */
};

/* How long a thread spins for the next job (or for the job's end) before it sleeps. */
static const double SPIN_S = 200e-6;

/* The low half of `next` while the caller writes a job: no chunk can be taken. */
#define CLOSED UINT32_MAX

struct copy_worker {
  struct hop_ocl_copy *cp;
  pthread_t tid;
};

/* `next` holds the job's round (high 32 bits) and its next chunk (low 32
 * bits).  The caller closes the new round, writes the job, then opens it
 * at chunk 0; a thread takes chunk i by moving `next` from (round, i) to
 * (round, i + 1), so a take succeeds only while the fields it read before
 * are that round's (a later job closes `next` before it writes them). */
struct hop_ocl_copy {
  pthread_mutex_t lock;
  pthread_cond_t go, finished;
  int threads; /* workers started, plus the calling thread */
  int chunks_per_thread;
  atomic_bool quit;
  _Atomic uint64_t next;
  _Atomic(hop_ocl_copy_fn *) fn; /* the job: columns [0, cols) in `chunks` chunks */
  _Atomic(void *) arg;
  atomic_int cols, chunks;
  atomic_int done; /* chunks copied this round */
  struct copy_worker w[COPY_MAX_THREADS];
};

static void share(int cols, int parts, int part, int *j0, int *j1)
{
  *j0 = (int)((long long)cols * part / parts);
  *j1 = (int)((long long)cols * (part + 1) / parts);
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
static bool spin(bool (*done)(struct hop_ocl_copy *, uint32_t), struct hop_ocl_copy *cp,
                 uint32_t arg)
{
  double until = 0.0;
  for (unsigned i = 1;; i++) {
    if (done(cp, arg))
      return true;
    relax();
    if (i % 256 == 0) {
      double t = hop_now();
      if (until == 0.0)
        until = t + SPIN_S;
      else if (t > until)
        return false;
    }
  }
}

static uint32_t round_of(uint64_t next) { return (uint32_t)(next >> 32); }

/* A round other than `seen` is open (or the pool is closing). */
static bool job_open(struct hop_ocl_copy *cp, uint32_t seen)
{
  uint64_t v = atomic_load(&cp->next);
  return atomic_load(&cp->quit) || (round_of(v) != seen && (uint32_t)v != CLOSED);
}

static bool all_done(struct hop_ocl_copy *cp, uint32_t chunks)
{
  return atomic_load(&cp->done) == (int)chunks;
}

/* Chunks of round r, one after another, until none is left. */
static void take_chunks(struct hop_ocl_copy *cp, uint32_t r)
{
  hop_ocl_copy_fn *fn = atomic_load(&cp->fn);
  void *arg = atomic_load(&cp->arg);
  int cols = atomic_load(&cp->cols), chunks = atomic_load(&cp->chunks);
  uint64_t v = atomic_load(&cp->next);
  for (;;) {
    if (round_of(v) != r || (uint32_t)v >= (uint32_t)chunks) /* another round, or all taken */
      return;
    if (!atomic_compare_exchange_weak(&cp->next, &v, v + 1))
      continue; /* v is what `next` holds now */
    int j0, j1;
    share(cols, chunks, (int)(uint32_t)v, &j0, &j1);
    fn(arg, j0, j1);
    if (atomic_fetch_add(&cp->done, 1) + 1 == chunks) { /* the last one: wake a sleeping caller */
      pthread_mutex_lock(&cp->lock);
      pthread_cond_signal(&cp->finished);
      pthread_mutex_unlock(&cp->lock);
    }
    v = atomic_load(&cp->next);
  }
}

static void *copy_worker_main(void *arg)
{
  struct copy_worker *w = arg;
  struct hop_ocl_copy *cp = w->cp;
  uint32_t seen = 0;
  for (;;) {
    if (!spin(job_open, cp, seen)) {
      pthread_mutex_lock(&cp->lock);
      while (!job_open(cp, seen))
        pthread_cond_wait(&cp->go, &cp->lock);
      pthread_mutex_unlock(&cp->lock);
    }
    if (atomic_load(&cp->quit))
      break;
    uint64_t v = atomic_load(&cp->next);
    if ((uint32_t)v == CLOSED)
      continue; /* the next job is being written: wait for it to open */
    seen = round_of(v);
    take_chunks(cp, seen);
  }
  return NULL;
}

/* Devices whose calls are shared (split.c): their pools divide the cores. */
static _Atomic int sharing = 1;

void hop_ocl_copy_devices(int devices) { sharing = devices > 1 ? devices : 1; }

int hop_ocl_copy_threads_wanted(const struct hop_ocl_state *st)
{
  /* A discrete device: every core.  Its calls are bound by these copies,
   * and since a copy is cut into pieces that the threads take in turn, a
   * descheduled thread no longer holds the others up: on the H200's 16-core
   * host 16 threads ran dgemm 8192 from host memory in 40 ms against 67 to
   * 75 with 8, Debian's dgetrf 16384 in 8.0 s against 10.5
   * (doc/PERFORMANCE.md).  Unified memory copies only small calls: half
   * the cores.  Devices that share calls share the cores. */
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  long cores = (hop_ocl_device(st)->unified ? online / 2 : online) / sharing;
  long dflt = cores < 1 ? 1 : cores < COPY_DEFAULT_MAX ? cores : COPY_DEFAULT_MAX;
  long want = hop_config_int("HOPBLAS_OPENCL_COPY_THREADS", 0, COPY_MAX_THREADS, 0);
  return (int)(want == 0 ? dflt : want);
}

/* The workers, created on first use; NULL: copy on the calling thread. */
static struct hop_ocl_copy *copy_pool(struct hop_ocl_state *st)
{
  if (st->pool.copy != NULL || st->pool.copy_tried)
    return st->pool.copy;
  st->pool.copy_tried = true;
  int want = hop_ocl_copy_threads_wanted(st);
  if (want < 2)
    return NULL;
  struct hop_ocl_copy *cp = calloc(1, sizeof *cp);
  if (cp == NULL)
    return NULL;
  pthread_mutex_init(&cp->lock, NULL);
  pthread_cond_init(&cp->go, NULL);
  pthread_cond_init(&cp->finished, NULL);
  cp->chunks_per_thread = (int)hop_config_int("HOPBLAS_OPENCL_COPY_CHUNKS", 1, 16, COPY_CHUNKS_PER_THREAD);
  atomic_store(&cp->next, (uint64_t)CLOSED); /* round 0, which no worker takes */
  /* The workers take none of the host program's signals. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int started = 0;
  for (int i = 1; i < want; i++) {
    cp->w[started] = (struct copy_worker){.cp = cp};
    if (pthread_create(&cp->w[started].tid, NULL, copy_worker_main, &cp->w[started]) != 0)
      break;
    started++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  cp->threads = started + 1;
  if (started == 0) {
    pthread_cond_destroy(&cp->finished);
    pthread_cond_destroy(&cp->go);
    pthread_mutex_destroy(&cp->lock);
    free(cp);
    return NULL;
  }
  hop_host_cores_reserve(cp->threads);
  hop_log(3, "opencl: %d threads copy between host memory and staging buffers", cp->threads);
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
  pthread_cond_destroy(&cp->finished);
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
  hop_ocl_copy_columns_beside(st, bytes, cols, fn, arg, NULL, NULL);
}

void hop_ocl_copy_columns_beside(struct hop_ocl_state *st, size_t bytes, int cols,
                                 hop_ocl_copy_fn *fn, void *arg, void (*beside)(void *),
                                 void *beside_arg)
{
  struct hop_ocl_copy *cp = bytes >= COPY_MIN_BYTES && cols > 1 ? copy_pool(st) : NULL;
  size_t by_size = bytes / COPY_MIN_CHUNK;
  int chunks = cp == NULL ? 1 : cp->threads * cp->chunks_per_thread;
  chunks = (size_t)chunks > by_size ? (int)by_size : chunks;
  chunks = chunks > cols ? cols : chunks;
  if (chunks < 2) {
    if (beside != NULL)
      beside(beside_arg);
    fn(arg, 0, cols);
    return;
  }
  /* Close the next round, write the job, open it (sequentially consistent
   * atomics); a worker asleep on the condition is woken under the lock. */
  uint32_t r = round_of(atomic_load(&cp->next)) + 1;
  atomic_store(&cp->next, (uint64_t)r << 32 | CLOSED);
  atomic_store(&cp->fn, fn);
  atomic_store(&cp->arg, arg);
  atomic_store(&cp->cols, cols);
  atomic_store(&cp->chunks, chunks);
  atomic_store(&cp->done, 0);
  atomic_store(&cp->next, (uint64_t)r << 32);
  pthread_mutex_lock(&cp->lock);
  pthread_cond_broadcast(&cp->go);
  pthread_mutex_unlock(&cp->lock);
  if (beside != NULL)
    beside(beside_arg);
  take_chunks(cp, r);
  if (spin(all_done, cp, (uint32_t)chunks))
    return;
  pthread_mutex_lock(&cp->lock);
  while (!all_done(cp, (uint32_t)chunks))
    pthread_cond_wait(&cp->finished, &cp->lock);
  pthread_mutex_unlock(&cp->lock);
}
