/* One call over several devices: HOPBLAS_DEVICE names a list (0,1) or
 * `all`, and, when HOPBLAS_OPENCL_SPLIT_CPU=1, the CPU takes a share too.
 * Each device has a whole state of its own (context, queues, family,
 * program, buffers, tuning: engine.c opens it as it opens the first), so a
 * part of a call is an ordinary call on that device.  A large call is cut
 * into column panels of C (hop_call_columns: GEMM, and the routines whose
 * columns are independent), or a GEMM taller than wide into row panels
 * (each device then moves its share of A, the operand that is the bulk of
 * LAPACK's panel updates, and all of the thin B), in proportion to each
 * one's predicted rate for the whole call; the first part runs on the
 * calling thread, each other on a thread of its own, all at once.
 *
 * A part that fails leaves its columns untouched (engine.c's contract: a
 * device that fails after writing finishes its own part on the CPU); it is
 * run again on a device whose part succeeded, else on the CPU, so C is
 * final when the call returns.  The trace's note names the split.
 *
 * With one device and no CPU share st->split is NULL and nothing here runs. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

enum { SPLIT_MAX = 16 }; /* devices of a split, the CPU included */
enum { CPU = -1 };       /* a part's `who` when the CPU computes it */

struct split_part {
  int who;            /* index into sp->dev, or CPU */
  bool rows;          /* cut by rows of C, else by columns */
  int64_t at, len;    /* C's first row or column, and how many */
  struct hop_call g;  /* the part as a call of its own */
  enum hop_status rc;
  int redone;         /* after a failure: the device that ran it again, or CPU */
};

struct hop_ocl_split;
struct split_worker {
  struct hop_ocl_split *sp;
  int slot; /* the part it runs in each round (the caller runs part 0) */
  pthread_t tid;
};

struct hop_ocl_split {
  struct hop_ocl_state *dev[SPLIT_MAX]; /* [0] is the engine's own state */
  int ndev;
  bool cpu;          /* HOPBLAS_OPENCL_SPLIT_CPU */
  double min_flops;  /* HOPBLAS_OPENCL_SPLIT_MIN_FLOPS; < 0: split when predicted faster */
  int64_t grain;     /* columns of a panel: the first device's tile width */
  pthread_mutex_t call; /* one shared call at a time: the workers and parts are one set */
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  unsigned long round;
  int pending; /* parts the workers have still to finish this round */
  bool quit;
  struct split_part part[SPLIT_MAX];
  int nparts;
  struct split_worker w[SPLIT_MAX];
  int nworkers;
  struct hop_ocl_split_learn learn; /* automatic: shared or alone, from the calls (split_learn.c) */
};

static _Thread_local char note[256];
static _Thread_local bool noted; /* this thread's last call was shared */

static void run_part(struct hop_ocl_split *sp, struct split_part *p)
{
  if (p->who == CPU) {
    hop_fallback_run(&p->g);
    p->rc = HOP_OK;
  } else {
    p->rc = hop_ocl_engine_call(sp->dev[p->who], &p->g);
  }
}

static void *worker_main(void *arg)
{
  struct split_worker *w = arg;
  struct hop_ocl_split *sp = w->sp;
  unsigned long seen = 0;
  pthread_mutex_lock(&sp->lock);
  for (;;) {
    while (sp->round == seen && !sp->quit)
      pthread_cond_wait(&sp->go, &sp->lock);
    if (sp->quit)
      break;
    seen = sp->round;
    if (w->slot < sp->nparts) {
      pthread_mutex_unlock(&sp->lock);
      run_part(sp, &sp->part[w->slot]);
      pthread_mutex_lock(&sp->lock);
      if (--sp->pending == 0)
        pthread_cond_signal(&sp->done);
    }
  }
  pthread_mutex_unlock(&sp->lock);
  return NULL;
}

/* ---- planning --------------------------------------------------------------- */

bool hop_ocl_split_by_rows(const struct hop_call *g)
{
  return g->op == HOP_OP_GEMM && g->planes == NULL && g->m > g->n;
}

static bool cut(const struct hop_call *g, bool rows, int64_t at, int64_t len, struct hop_call *out)
{
  if (!rows)
    return hop_call_columns(g, at, len, out);
  *out = hop_call_block(g, at, len, 0, g->n);
  return true;
}

/* The parts of g, into part[] (at most SPLIT_MAX), and the predicted time
 * of the shared call in *seconds; 0 when g is not to be shared: too small,
 * columns that are not independent, or no second taker. */
static int plan(const struct hop_ocl_split *sp, const struct hop_call *g, struct split_part *part,
                double *seconds)
{
  struct hop_call whole;
  *seconds = -1.0;
  bool rows = hop_ocl_split_by_rows(g);
  int64_t extent = rows ? g->m : g->n;
  if (extent < 2 * sp->grain || !cut(g, rows, 0, extent, &whole) ||
      (sp->min_flops >= 0.0 && hop_call_flops(g) < sp->min_flops))
    return 0;
  /* Rates (1 / predicted time of the whole call) of those that take it. */
  int who[SPLIT_MAX], n = 0;
  double rate[SPLIT_MAX], total = 0.0, best = INFINITY;
  for (int d = 0; d <= sp->ndev; d++) {
    if (d == sp->ndev && !sp->cpu)
      break;
    double t = d < sp->ndev ? hop_ocl_engine_predict(sp->dev[d], g) : hop_fallback_predict(g);
    if (!(t > 0.0))
      continue;
    who[n] = d < sp->ndev ? d : CPU;
    rate[n] = 1.0 / t;
    total += rate[n++];
    if (d < sp->ndev && t < best)
      best = t;
  }
  if (n < 2 || best == INFINITY)
    return 0;
  /* Whole panels in proportion to the rates; the rounding's remainder goes
   * to the fastest, and a share below one panel to no one. */
  int64_t panels = (extent + sp->grain - 1) / sp->grain, given = 0;
  int64_t got[SPLIT_MAX];
  int fastest = 0;
  for (int i = 0; i < n; i++) {
    got[i] = (int64_t)floor(rate[i] / total * (double)panels + 0.5);
    given += got[i];
    if (rate[i] > rate[fastest])
      fastest = i;
  }
  got[fastest] += panels - given;
  if (got[fastest] < 0)
    return 0;
  int parts = 0;
  double slowest = 0.0;
  int64_t at = 0;
  for (int i = 0; i < n && at < extent; i++) {
    int64_t len = got[i] * sp->grain < extent - at ? got[i] * sp->grain : extent - at;
    if (len <= 0)
      continue;
    struct split_part *p = &part[parts++];
    p->who = who[i], p->rows = rows, p->at = at, p->len = len, p->redone = 0;
    cut(g, rows, at, len, &p->g);
    at += len;
    double t = p->who == CPU ? hop_fallback_predict(&p->g) : hop_ocl_engine_predict(sp->dev[p->who], &p->g);
    slowest = t > slowest ? t : slowest;
  }
  if (parts < 2)
    return 0;
  *seconds = slowest;
  /* Automatic: shared only when the slowest part ends before the fastest device alone. */
  return sp->min_flops < 0.0 && slowest >= best ? 0 : parts;
}

double hop_ocl_split_predict(const struct hop_ocl_state *st, const struct hop_call *g,
                             double first)
{
  struct hop_ocl_split *sp = st->split;
  struct split_part part[SPLIT_MAX];
  double shared;
  return plan(sp, g, part, &shared) > 0 &&
             (sp->min_flops >= 0.0 || hop_ocl_split_learnt_shared(&sp->learn, g))
           ? shared
           : first;
}

/* Has the device run a call before (its program built, its first buffers
 * made)?  Only then does a call's time teach split_learn.c. */
static bool warm(const struct hop_ocl_state *st)
{
  return __atomic_load_n(&st->model.calls_run, __ATOMIC_RELAXED) > 0;
}

static bool parts_warm(const struct hop_ocl_split *sp, int n)
{
  for (int i = 0; i < n; i++)
    if (sp->part[i].who != CPU && !warm(sp->dev[sp->part[i].who]))
      return false;
  return true;
}

/* The model would share g, and calls like it ran faster alone: on the
 * first device, with the choice in the trace's note. */
static enum hop_status run_alone(struct hop_ocl_split *sp, const struct hop_call *g,
                                 const char *why)
{
  struct hop_ocl_state *st = sp->dev[0];
  bool timed = warm(st);
  double t0 = hop_now();
  enum hop_status rc = hop_ocl_engine_call(st, g);
  if (rc != HOP_OK)
    return rc;
  if (timed)
    hop_ocl_split_learn(&sp->learn, g, false, hop_now() - t0);
  const char *own = hop_ocl_tune_detail(st);
  snprintf(note, sizeof note, "device %zu %s%s%s", st->dev, why, own != NULL ? " " : "",
           own != NULL ? own : "");
  noted = true;
  return HOP_OK;
}

/* ---- the call --------------------------------------------------------------- */

/* first: the first part's own note (its family, kernels, parameters), or "". */
static void write_note(const struct hop_ocl_split *sp, const struct split_part *part, int n,
                       const char *first, bool shared, const char *why)
{
  size_t at = 0;
  at += (size_t)snprintf(note, sizeof note, n > 0 && part[0].rows ? "split-rows=" : "split=");
  for (int i = 0; i < n && at < sizeof note; i++) {
    char who[24], redone[32] = "";
    if (part[i].who == CPU)
      snprintf(who, sizeof who, "cpu");
    else
      snprintf(who, sizeof who, "%zu", sp->dev[part[i].who]->dev);
    if (part[i].rc != HOP_OK && part[i].redone == CPU)
      snprintf(redone, sizeof redone, "(failed->cpu)");
    else if (part[i].rc != HOP_OK)
      snprintf(redone, sizeof redone, "(failed->%zu)", sp->dev[part[i].redone]->dev);
    at += (size_t)snprintf(note + at, sizeof note - at, "%s%s:%lld%s", i ? "," : "", who,
                           (long long)part[i].len, redone);
  }
  if (shared && at < sizeof note)
    at += (size_t)snprintf(note + at, sizeof note - at, " shared-A");
  if (*why != '\0' && at < sizeof note)
    at += (size_t)snprintf(note + at, sizeof note - at, " %s", why);
  if (*first != '\0' && at < sizeof note)
    snprintf(note + at, sizeof note - at, " %s", first);
  noted = true;
}

/* One packing of op(A) for the parts, when they are two devices' or more
 * cut by columns (the CPU's part reads A where it is); NULL otherwise. */
static struct hop_ocl_shared *share(struct hop_ocl_split *sp, const struct hop_call *g, int n)
{
  struct hop_ocl_state *dev[SPLIT_MAX];
  int nd = 0;
  for (int i = 0; i < n; i++) {
    if (sp->part[i].rows)
      return NULL;
    if (sp->part[i].who != CPU)
      dev[nd++] = sp->dev[sp->part[i].who];
  }
  if (nd < 2 || !hop_ocl_share_fits(dev, nd, g))
    return NULL;
  return hop_ocl_share_begin(dev, nd, g);
}

enum hop_status hop_ocl_split_call(struct hop_ocl_state *st, const struct hop_call *g)
{
  struct hop_ocl_split *sp = st->split;
  noted = false;
  pthread_mutex_lock(&sp->call);
  double seconds;
  int n = plan(sp, g, sp->part, &seconds);
  if (n == 0) {
    pthread_mutex_unlock(&sp->call);
    return hop_ocl_engine_call(st, g);
  }
  char why[120] = "";
  if (sp->min_flops < 0.0 && !hop_ocl_split_choose(&sp->learn, g, why, sizeof why)) {
    enum hop_status rc = run_alone(sp, g, why);
    pthread_mutex_unlock(&sp->call);
    return rc;
  }
  bool timed = parts_warm(sp, n);
  double t0 = hop_now();
  struct hop_ocl_shared *shared = share(sp, g, n);
  pthread_mutex_lock(&sp->lock);
  sp->nparts = n;
  sp->pending = n - 1;
  sp->round++;
  pthread_cond_broadcast(&sp->go);
  pthread_mutex_unlock(&sp->lock);
  run_part(sp, &sp->part[0]);
  /* Read now: running a failed part again on this thread rewrites it. */
  char first[120] = "";
  const char *own = sp->part[0].who != CPU && sp->part[0].rc == HOP_OK
                      ? hop_ocl_tune_detail(sp->dev[sp->part[0].who]) : NULL;
  if (own != NULL)
    snprintf(first, sizeof first, "%s", own);
  pthread_mutex_lock(&sp->lock);
  while (sp->pending > 0)
    pthread_cond_wait(&sp->done, &sp->lock);
  pthread_mutex_unlock(&sp->lock);
  /* A failed part's columns are untouched: a device that did its own part
   * takes it, else the CPU; such a call's time teaches nothing. */
  for (int i = 0; i < n; i++) {
    struct split_part *p = &sp->part[i];
    if (p->rc == HOP_OK)
      continue;
    timed = false;
    p->redone = CPU;
    for (int j = 0; j < n && p->redone == CPU; j++)
      if (j != i && sp->part[j].rc == HOP_OK && sp->part[j].who != CPU &&
          hop_ocl_engine_call(sp->dev[sp->part[j].who], &p->g) == HOP_OK)
        p->redone = sp->part[j].who;
    if (p->redone == CPU)
      hop_fallback_run(&p->g);
    hop_log(1, "opencl: the part of device %zu (%lld %s) failed (%s); %s finished it",
            sp->dev[p->who]->dev, (long long)p->len, p->rows ? "rows" : "columns",
            hop_status_message(p->rc),
            p->redone == CPU ? "the CPU" : "another device");
  }
  hop_ocl_share_end(shared);
  if (sp->min_flops < 0.0 && timed)
    hop_ocl_split_learn(&sp->learn, g, true, hop_now() - t0);
  write_note(sp, sp->part, n, first, shared != NULL, why);
  pthread_mutex_unlock(&sp->call);
  return HOP_OK;
}

const char *hop_ocl_split_detail(void) { return noted ? note : NULL; }

/* ---- opening, closing, describing ------------------------------------------ */

void hop_ocl_split_open(struct hop_ocl_state *st)
{
  bool cpu = hop_config_int("HOPBLAS_OPENCL_SPLIT_CPU", 0, 1, 0) == 1;
  if (st->nalso == 0 && !cpu)
    return;
  struct hop_ocl_split *sp = calloc(1, sizeof *sp);
  if (sp == NULL) {
    hop_log(1, "opencl: out of memory; calls are not shared among devices");
    return;
  }
  sp->dev[sp->ndev++] = st;
  for (size_t i = 0; i < st->nalso && sp->ndev < SPLIT_MAX - 1; i++) {
    struct hop_ocl_state *o = calloc(1, sizeof *o);
    char why[200];
    enum hop_status rc = o == NULL ? HOP_ERR_NOMEM : hop_ocl_engine_open(o, st, st->also[i], why,
                                                                          sizeof why);
    if (rc != HOP_OK) {
      hop_log(1, "opencl: device %zu cannot share calls (%s); it is left out", st->also[i],
              o == NULL ? "out of memory" : why);
      free(o);
      continue;
    }
    sp->dev[sp->ndev++] = o;
  }
  sp->cpu = cpu;
  hop_ocl_copy_devices(sp->ndev);
  const char *mf = hop_config_get("HOPBLAS_OPENCL_SPLIT_MIN_FLOPS");
  sp->min_flops = mf != NULL && *mf != '\0'
                    ? hop_config_double("HOPBLAS_OPENCL_SPLIT_MIN_FLOPS", 0.0, 1e30, -1.0)
                    : -1.0;
  sp->grain = st->params.nwg > 0 ? st->params.nwg : 32;
  pthread_mutex_init(&sp->call, NULL);
  pthread_mutex_init(&sp->lock, NULL);
  pthread_cond_init(&sp->go, NULL);
  pthread_cond_init(&sp->done, NULL);
  /* A thread for each part but the first; they take none of the program's signals. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int want = sp->ndev - 1 + (sp->cpu ? 1 : 0);
  for (int i = 0; i < want; i++) {
    sp->w[sp->nworkers] = (struct split_worker){.sp = sp, .slot = i + 1};
    if (pthread_create(&sp->w[sp->nworkers].tid, NULL, worker_main, &sp->w[sp->nworkers]) != 0)
      break;
    sp->nworkers++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (sp->nworkers < want) {
    hop_log(1, "opencl: no thread for every device; calls are not shared among devices");
    st->split = sp;
    hop_ocl_split_release(st);
    return;
  }
  st->split = sp;
  hop_log(2, "opencl: large calls shared among %d devices%s", sp->ndev,
          sp->cpu ? " and the CPU" : "");
}

void hop_ocl_split_release(struct hop_ocl_state *st)
{
  struct hop_ocl_split *sp = st->split;
  if (sp == NULL)
    return;
  st->split = NULL;
  pthread_mutex_lock(&sp->lock);
  sp->quit = true;
  pthread_cond_broadcast(&sp->go);
  pthread_mutex_unlock(&sp->lock);
  for (int i = 0; i < sp->nworkers; i++)
    pthread_join(sp->w[i].tid, NULL);
  for (int d = 1; d < sp->ndev; d++) {
    hop_ocl_engine_close(sp->dev[d]);
    free(sp->dev[d]);
  }
  pthread_cond_destroy(&sp->done);
  pthread_cond_destroy(&sp->go);
  pthread_mutex_destroy(&sp->lock);
  pthread_mutex_destroy(&sp->call);
  free(sp);
}

bool hop_ocl_split_flushes(const struct hop_ocl_state *st)
{
  bool any = false;
  for (int d = 1; d < st->split->ndev; d++)
    any = any || st->split->dev[d]->flushes;
  return any;
}

void hop_ocl_split_describe(struct hop_ocl_state *st, FILE *out)
{
  struct hop_ocl_split *sp = st->split;
  fprintf(out, "  shared calls: over devices");
  for (int d = 0; d < sp->ndev; d++)
    fprintf(out, "%s %zu", d ? "," : "", sp->dev[d]->dev);
  fprintf(out, "%s, whole panels of %lld columns of C (of rows for a GEMM taller than wide), ",
          sp->cpu ? " and the CPU" : "", (long long)sp->grain);
  if (sp->min_flops < 0.0)
    fprintf(out, "when predicted faster than one device and, for calls like it (routine, dtype, "
                 "shape, size), measured faster shared than alone\n");
  else
    fprintf(out, "every call of at least %.3g flops (HOPBLAS_OPENCL_SPLIT_MIN_FLOPS)\n",
            sp->min_flops);
  for (int d = 1; d < sp->ndev; d++) {
    fprintf(out, "  device %zu:\n", sp->dev[d]->dev);
    pthread_mutex_lock(&sp->dev[d]->lock);
    hop_ocl_engine_describe(sp->dev[d], out);
    pthread_mutex_unlock(&sp->dev[d]->lock);
  }
}
