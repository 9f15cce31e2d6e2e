/* The one runtime context: configuration, the parsed config file and one
 * slot per engine.  Created under pthread_once on the first call, never in
 * a constructor (the library is preloaded into every child of a shell). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "config_file.h"
#include "hop.h"
#include "tune_cache.h"

/* STARTING: init() is running on some thread, which holds the lock. */
enum slot_state { SLOT_UNSTARTED, SLOT_STARTING, SLOT_READY, SLOT_OFF };

struct engine_slot {
  pthread_mutex_t lock; /* held while the engine starts */
  _Atomic int state;
  void *state_ptr;
  enum hop_status status;
  char why[256];
};

#define HOP_MAX_ENGINES 8

static struct hop_context {
  struct hop_config cfg;
  struct hop_config_file file;
  struct engine_slot slots[HOP_MAX_ENGINES];
} ctx;

static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;

/* In a forked child the parent's device objects (driver threads, queues)
 * are not usable: an engine that is not fork-safe is switched off there if
 * it had started, and also if it was starting when fork() ran: the child
 * then holds the driver's own state half-made (an ICD loader halfway
 * through its start hangs or crashes the next call into it).  While any
 * engine was starting, a library may have been halfway through dlopen(),
 * and the dynamic loader's lists are half-updated in the child: there no
 * engine that is not fork-safe may start either (its driver would be
 * loaded through them).  A fork-safe engine caught starting starts again.
 * Only the child's side is handled: a prepare handler that took the slot
 * locks would deadlock when an engine's start forks itself (a driver
 * running its compiler).  A fork() during the context's own creation needs
 * nothing here: glibc runs an interrupted pthread_once again in the child,
 * which so creates the context anew and registers this handler a second
 * time (it is idempotent). */
static void on_fork_child(void)
{
  size_t n = hop_backend_count < HOP_MAX_ENGINES ? hop_backend_count : HOP_MAX_ENGINES;
  const char *starting = NULL;
  for (size_t i = 0; i < n; i++)
    if (atomic_load(&ctx.slots[i].state) == SLOT_STARTING)
      starting = hop_backends[i]->name;
  for (size_t i = 0; i < n; i++) {
    struct engine_slot *s = &ctx.slots[i];
    const struct hop_backend *be = hop_backends[i];
    pthread_mutex_init(&s->lock, NULL);
    int st = atomic_load(&s->state);
    if (be->fork_safe) {
      if (st == SLOT_STARTING)
        atomic_store(&s->state, SLOT_UNSTARTED);
      continue;
    }
    if (st == SLOT_READY)
      snprintf(s->why, sizeof s->why, "forked child: the parent's %s state is not reused",
               be->name);
    else if (st == SLOT_STARTING)
      snprintf(s->why, sizeof s->why,
               "forked child: forked while the engine was starting (the %s driver's state is "
               "half-made here)", be->name);
    else if (st == SLOT_UNSTARTED && starting != NULL)
      snprintf(s->why, sizeof s->why,
               "forked child: forked while the %s engine was starting (a library may have been "
               "halfway through loading)", starting);
    else
      continue;
    s->state_ptr = NULL; /* deliberately not released: it belongs to the parent */
    s->status = HOP_UNAVAILABLE;
    atomic_store(&s->state, SLOT_OFF);
  }
}

/* True from the context's creation until exit() begins (see ctx_unload). */
static atomic_bool may_release;
static void on_exit_mark(void) { atomic_store(&may_release, false); }

static void ctx_create(void)
{
  hop_config_build(&ctx.cfg, &ctx.file);
  for (size_t i = 0; i < HOP_MAX_ENGINES; i++) {
    pthread_mutex_init(&ctx.slots[i].lock, NULL);
    atomic_store(&ctx.slots[i].state, SLOT_UNSTARTED);
  }
  if (hop_backend_count > HOP_MAX_ENGINES && ctx.cfg.verbose >= 1)
    fprintf(stderr, "hopblas: %zu engines registered, only %d used\n", hop_backend_count,
            HOP_MAX_ENGINES);
  pthread_atfork(NULL, NULL, on_fork_child);
  if (atexit(on_exit_mark) == 0)
    atomic_store(&may_release, true);
}

const struct hop_config *hop_config(void)
{
  pthread_once(&ctx_once, ctx_create);
  return &ctx.cfg;
}

const struct hop_config_file *hop_config_file(void)
{
  pthread_once(&ctx_once, ctx_create);
  return &ctx.file;
}

static void slot_view(size_t i, struct hop_engine_view *out)
{
  struct engine_slot *s = &ctx.slots[i];
  out->be = hop_backends[i];
  int st = atomic_load(&s->state);
  out->state = st == SLOT_READY ? s->state_ptr : NULL;
  out->status = st == SLOT_READY ? HOP_OK : st == SLOT_OFF ? s->status : HOP_UNAVAILABLE;
  out->why = st == SLOT_UNSTARTED ? "not started yet" : st == SLOT_STARTING ? "starting" : s->why;
}

void hop_engine_peek(size_t i, struct hop_engine_view *out)
{
  hop_config();
  slot_view(i, out);
}

void hop_engine_get(size_t i, struct hop_engine_view *out)
{
  hop_config();
  struct engine_slot *s = &ctx.slots[i];
  if (i >= HOP_MAX_ENGINES) {
    memset(out, 0, sizeof *out);
    out->be = hop_backends[i];
    out->status = HOP_UNAVAILABLE;
    out->why = "too many engines registered";
    return;
  }
  int seen = atomic_load(&s->state);
  if (seen == SLOT_UNSTARTED || seen == SLOT_STARTING) {
    /* The last engine (the CPU) is up before any device engine starts: a
     * driver's start loads libraries (an ICD loader opening its drivers),
     * and the child of a fork() in the middle of that must not load
     * OpenBLAS through a dynamic loader whose lists are half-updated. */
    if (hop_backends[i]->is_device) {
      struct hop_engine_view last;
      hop_engine_get(hop_backend_count - 1, &last);
    }
    pthread_mutex_lock(&s->lock);
    if (atomic_load(&s->state) == SLOT_UNSTARTED) {
      /* Marked before init() has any effect, so that a fork() whose child
       * holds a part of that effect also holds the mark. */
      atomic_store(&s->state, SLOT_STARTING);
      atomic_thread_fence(memory_order_seq_cst);
      const struct hop_backend *be = hop_backends[i];
      void *state = NULL;
      s->why[0] = '\0';
      struct hop_sighold hold; /* a driver's start may write files (kernel caches) */
      hop_sighold_begin(&hold);
      enum hop_status st = be->init ? be->init(&state, s->why, sizeof s->why) : HOP_OK;
      hop_sighold_end(&hold);
      s->status = st;
      if (st == HOP_OK) {
        s->state_ptr = state;
        if (s->why[0] == '\0')
          snprintf(s->why, sizeof s->why, "ready");
        atomic_store(&s->state, SLOT_READY);
      } else {
        if (s->why[0] == '\0')
          snprintf(s->why, sizeof s->why, "%s", hop_status_message(st));
        /* Only worth a line when the user asked for this engine. */
        bool asked = strcmp(ctx.cfg.backend, be->name) == 0;
        hop_log(asked ? 1 : 2, "engine %s is off: %s", be->name, s->why);
        atomic_store(&s->state, SLOT_OFF);
      }
    }
    pthread_mutex_unlock(&s->lock);
  }
  slot_view(i, out);
}

void hop_fallback_run(const struct hop_call *g)
{
  struct hop_engine_view v;
  hop_engine_get(hop_backend_count - 1, &v);
  if (!hop_backend_takes(v.be, g)) { /* a bug: every shim's dtype must reach the fallback */
    hop_log(1, "internal error: the fallback engine %s does not take %s%s; C left as it was",
            v.be->name, hop_dtype_name(g->dtype), hop_op_name(g->op));
    return;
  }
  v.be->run(v.state, g);
}

double hop_fallback_predict(const struct hop_call *g)
{
  struct hop_engine_view v;
  hop_engine_get(hop_backend_count - 1, &v);
  if (!hop_backend_takes(v.be, g) || v.be->predict == NULL)
    return -1.0;
  return v.be->predict(v.state, g);
}

size_t hop_engine_index(const char *name)
{
  for (size_t i = 0; i < hop_backend_count; i++)
    if (strcmp(hop_backends[i]->name, name) == 0)
      return i;
  return hop_backend_count;
}

/* ---- unloading -------------------------------------------------------------
 * The library's one destructor (STYLE.md rules out constructors: a preloaded
 * library must cost nothing until it is used; a destructor costs nothing
 * before).  A program that unloads hopblas with dlclose() (a Python
 * extension, a plugin host) must get back what the engines hold, and no
 * thread of ours may outlive the code it runs: each engine's release().
 *
 * The same destructor runs at exit(), where that must not be done: other
 * threads may still be inside hopblas, and libraries loaded after it (an
 * ICD loader's drivers and their compilers) may have run their own
 * destructors already, so a call into OpenCL could crash.  Nothing is
 * unmapped at exit: a thread of ours, parked or busy, stays on code that is
 * still there, and the process's end returns the rest.  glibc runs exit()'s atexit handlers
 * before any library's destructor (_dl_fini is the last handler), whereas
 * dlclose() runs a library's destructors before __cxa_finalize() calls the
 * atexit handlers that library registered: on_exit_mark(), registered when
 * the context is created, tells the two apart.  If it could not be
 * registered, every unload counts as an exit: a leak, never a crash. */
__attribute__((destructor)) static void ctx_unload(void)
{
  if (!atomic_load(&may_release))
    return;
  for (size_t i = 0; i < hop_backend_count && i < HOP_MAX_ENGINES; i++) {
    struct engine_slot *s = &ctx.slots[i];
    if (atomic_load(&s->state) == SLOT_READY && hop_backends[i]->release != NULL)
      hop_backends[i]->release(s->state_ptr);
    atomic_store(&s->state, SLOT_OFF);
  }
  hop_tune_cache_release();
  hop_trace_release(); /* rows written, the file closed */
}

/* ---- re-entrancy guard ---------------------------------------------------- */

static __thread int reentry_depth;

int hop_reentry_depth(void) { return reentry_depth; }
void hop_reentry_enter(void) { reentry_depth++; }
void hop_reentry_leave(void) { reentry_depth--; }
