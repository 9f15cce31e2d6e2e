/* The one lookup chain (DESIGN §6, STYLE rule 5).  A call's size bucket
 * (the power of two nearest cbrt(m n k)) gets its parameters from
 *   1. the user cache: tuned for this bucket, on this exact device, driver,
 *      library version and kernel source (the scope of the record);
 *      with HOPBLAS_TUNE=quick an unseen bucket is tuned here, once;
 *   2. the user cache: tuned for the nearest bucket (MNN reuses the nearest
 *      shape the same way);
 *   3. the built-in table: device -> family -> vendor (tune_table.c);
 *   4. the family's default (generic.c, or the image family's setup).
 * HOPBLAS_TUNE=off skips 1 and 2; a parameter knob the user set
 * (HOPBLAS_OPENCL_PARAMS, ...) skips the chain altogether.  Each bucket is
 * resolved once per process; the programs of the last few parameter sets
 * stay built, so calls that alternate between buckets do not rebuild. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "tune.h"

enum { STASH = 4, QUICK_MIN_N = 128, QUICK_MAX_N = 1024 };

struct choice {
  bool resolved, quick_tried;
  struct hop_tune_point p;
  char origin[120]; /* for `hopblas info` and params_why */
  char tag[24];     /* for the trace's why column */
};

struct stash {
  bool used;
  unsigned long last;
  struct hop_tune_point p;
  struct hop_ocl_program prog;
};

struct hop_ocl_tune {
  const struct hop_tune_space *space; /* NULL: the family is not tunable */
  bool user;                          /* a parameter knob is set: the user's choice stands */
  struct hop_tune_point dflt;         /* the family's default, as the engine started */
  char dflt_why[160];
  struct choice b[HOP_TUNE_BUCKETS];
  struct stash stash[STASH];
  unsigned long clock;
  char scope[HOP_TUNE_SCOPE_MAX];
  struct hop_ocl_calib cal;
};

int hop_tune_bucket(double size)
{
  int b = size > 1.0 ? (int)lround(log2(size)) - HOP_TUNE_BUCKET_MIN : 0;
  return b < 0 ? 0 : b >= HOP_TUNE_BUCKETS ? HOP_TUNE_BUCKETS - 1 : b;
}

int hop_tune_bucket_size(int bucket) { return 1 << (bucket + HOP_TUNE_BUCKET_MIN); }

/* Everything a tuned record depends on: device, driver, library, kernel source. */
void hop_ocl_tune_scope(const struct hop_ocl_state *st, char *buf, size_t len)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  char why[80];
  char *src = hop_ocl_family_source(st->family, why, sizeof why);
  uint64_t h = src ? hop_hash_fnv1a(src, strlen(src), HOP_HASH_SEED) : 0;
  free(src);
  snprintf(buf, len, "opencl;dev=%.90s;vendor=%.40s;version=%.50s;driver=%.40s;lib=%s;src=%s:%016" PRIx64,
           d->name, d->vendor, d->version, d->driver, PACKAGE_VERSION, st->family->name, h);
}

void hop_ocl_tune_attach(struct hop_ocl_state *st)
{
  struct hop_ocl_tune *t = calloc(1, sizeof *t);
  st->tune = t;
  if (t == NULL || st->family == NULL)
    return;
  t->space = hop_tune_space_of(st->family);
  if (t->space != NULL) {
    t->space->get(st, &t->dflt);
    t->space->origin(st, t->dflt_why, sizeof t->dflt_why);
    for (int i = 0; t->space->knobs[i] != NULL; i++) {
      const char *v = hop_config_get(t->space->knobs[i]);
      t->user = t->user || (v != NULL && *v != '\0');
    }
  }
  hop_ocl_tune_scope(st, t->scope, sizeof t->scope);
  hop_ocl_calib_load(st, &t->cal);
}

void hop_ocl_tune_release(struct hop_ocl_state *st)
{
  struct hop_ocl_tune *t = st->tune;
  st->tune = NULL;
  if (t == NULL)
    return;
  for (int i = 0; i < STASH; i++)
    if (t->stash[i].used)
      hop_ocl_program_release(&t->stash[i].prog);
  free(t);
}

struct hop_ocl_calib *hop_ocl_tune_calib(const struct hop_ocl_state *st)
{
  return st->tune != NULL ? &st->tune->cal : NULL;
}

bool hop_ocl_tune_default(const struct hop_ocl_state *st, struct hop_tune_point *p, char *note,
                          size_t len)
{
  const struct hop_ocl_tune *t = st->tune;
  if (t == NULL || t->space == NULL)
    return false;
  *p = t->dflt;
  if (t->user || !hop_tune_table_lookup(st, t->space, p, note, len))
    snprintf(note, len, "%s", t->dflt_why);
  return true;
}

/* ---- records: NAME = FAMILY.nSIZE, VALUE = "PARAMS GFLOPS DEFAULT_GFLOPS TRIED SECONDS" */

static void record_name(const struct hop_ocl_state *st, int bucket, char *buf, size_t len)
{
  snprintf(buf, len, "%s.n%d", st->family->name, hop_tune_bucket_size(bucket));
}

/* The user cache's parameters for a bucket, checked like any input. */
static bool cached(struct hop_ocl_state *st, int bucket, struct hop_tune_point *p)
{
  struct hop_ocl_tune *t = st->tune;
  char name[64], value[HOP_TUNE_VALUE_MAX], params[HOP_TUNE_VALUE_MAX], why[120];
  record_name(st, bucket, name, sizeof name);
  if (!hop_tune_get(t->scope, name, value, sizeof value))
    return false;
  *p = t->dflt;
  if (sscanf(value, "%511s", params) != 1 || !hop_tune_point_parse(t->space, params, p) ||
      !t->space->fits(st, p, why, sizeof why)) {
    hop_log(2, "tuning cache: %s = \"%.80s\" is not usable here; ignored", name, value);
    return false;
  }
  return true;
}

void hop_ocl_tune_store(struct hop_ocl_state *st, int n, const struct hop_tune_result *r)
{
  struct hop_ocl_tune *t = st->tune;
  if (t == NULL || t->space == NULL)
    return;
  char name[64], params[300], value[HOP_TUNE_VALUE_MAX];
  record_name(st, hop_tune_bucket(n), name, sizeof name);
  hop_tune_point_format(t->space, &r->best, params, sizeof params);
  snprintf(value, sizeof value, "%s %.4g %.4g %d %.3g", params, r->best_gflops, r->dflt_gflops,
           r->tried, r->spent_s);
  hop_tune_put(t->scope, name, value);
  hop_tune_flush();
  hop_ocl_tune_forget(st);
}

void hop_ocl_tune_forget(struct hop_ocl_state *st)
{
  struct hop_ocl_tune *t = st->tune;
  if (t == NULL)
    return;
  for (int b = 0; b < HOP_TUNE_BUCKETS; b++)
    t->b[b].resolved = false;
}

/* HOPBLAS_TUNE=quick: tune this bucket now, within HOPBLAS_TUNE_BUDGET. */
static void quick(struct hop_ocl_state *st, int bucket)
{
  int n = hop_tune_bucket_size(bucket);
  n = n < QUICK_MIN_N ? QUICK_MIN_N : n > QUICK_MAX_N ? QUICK_MAX_N : n;
  struct hop_tune_opts o = {.n = n, .budget_s = hop_config_double("HOPBLAS_TUNE_BUDGET", 0, 3600, 5)};
  const char *fault = hop_config_get("HOPBLAS_TUNE_FAULT");
  if (fault != NULL && strncmp(fault, "wrong:", 6) == 0)
    o.wrong_at = strtol(fault + 6, NULL, 10);
  struct hop_tune_result r;
  if (!hop_ocl_tune_run(st, &o, &r)) {
    hop_log(1, "tune (quick): n=%d: %s; the bucket keeps its default", n, r.why);
    return;
  }
  char best[200];
  hop_tune_point_format(st->tune->space, &r.best, best, sizeof best);
  hop_log(2, "tune (quick): bucket n%d at n=%d: %d candidates (%d refused) in %.2f s, budget "
             "%.2f s%s; best %s %.2f GFLOPS (default %.2f)",
          hop_tune_bucket_size(bucket), n, r.tried, r.rejected, r.spent_s, r.budget_s,
          r.budget_hit ? " reached" : " not needed", best, r.best_gflops, r.dflt_gflops);
  /* Stored under the call's bucket, even when measured at a smaller n. */
  hop_ocl_tune_store(st, hop_tune_bucket_size(bucket), &r);
}

static void resolve(struct hop_ocl_state *st, int bucket)
{
  struct hop_ocl_tune *t = st->tune;
  struct choice *c = &t->b[bucket];
  enum hop_tune_mode mode = hop_tune_mode();
  int size = hop_tune_bucket_size(bucket);
  c->resolved = true;
  if (mode == HOP_TUNE_QUICK && !c->quick_tried && !cached(st, bucket, &c->p)) {
    c->quick_tried = true;
    quick(st, bucket);
  }
  if (mode != HOP_TUNE_OFF && cached(st, bucket, &c->p)) {
    snprintf(c->origin, sizeof c->origin, "tuned for n=%d (user cache)", size);
    snprintf(c->tag, sizeof c->tag, "cache:n%d", size);
    return;
  }
  for (int d = 1; mode != HOP_TUNE_OFF && d < HOP_TUNE_BUCKETS; d++)
    for (int s = -1; s <= 1; s += 2) {
      int nb = bucket + s * d;
      if (nb >= 0 && nb < HOP_TUNE_BUCKETS && cached(st, nb, &c->p)) {
        snprintf(c->origin, sizeof c->origin, "tuned for n=%d, the nearest tuned size (user cache)",
                 hop_tune_bucket_size(nb));
        snprintf(c->tag, sizeof c->tag, "cache~n%d", hop_tune_bucket_size(nb));
        return;
      }
    }
  hop_ocl_tune_default(st, &c->p, c->origin, sizeof c->origin);
  snprintf(c->tag, sizeof c->tag, "%s", strstr(c->origin, "built-in table") ? "builtin" : "default");
}

/* ---- the program of a parameter set -------------------------------------- */

static void stash_put(struct hop_ocl_tune *t, const struct hop_tune_point *p,
                      struct hop_ocl_program *prog)
{
  struct stash *slot = &t->stash[0];
  for (int i = 0; i < STASH; i++) {
    if (!t->stash[i].used) {
      slot = &t->stash[i];
      break;
    }
    if (t->stash[i].last < slot->last)
      slot = &t->stash[i];
  }
  if (slot->used)
    hop_ocl_program_release(&slot->prog);
  *slot = (struct stash){.used = true, .last = ++t->clock, .p = *p, .prog = *prog};
}

static bool stash_take(struct hop_ocl_tune *t, const struct hop_tune_point *p,
                       struct hop_ocl_program *prog)
{
  for (int i = 0; i < STASH; i++)
    if (t->stash[i].used && hop_tune_point_equal(&t->stash[i].p, p)) {
      *prog = t->stash[i].prog;
      t->stash[i].used = false;
      return true;
    }
  return false;
}

/* Make c's parameters the engine's, with their program built. */
static enum hop_status use(struct hop_ocl_state *st, struct choice *c)
{
  struct hop_ocl_tune *t = st->tune;
  struct hop_tune_point cur;
  t->space->get(st, &cur);
  if (st->prog.tried && hop_tune_point_equal(&cur, &c->p))
    return hop_ocl_program_ready(st);
  if (st->prog.tried && st->prog.status == HOP_OK)
    stash_put(t, &cur, &st->prog);
  st->prog = (struct hop_ocl_program){0};
  stash_take(t, &c->p, &st->prog);
  t->space->set(st, &c->p);
  snprintf(st->params_why, sizeof st->params_why, "%s", c->origin);
  enum hop_status rc = hop_ocl_program_ready(st);
  if (rc != HOP_OK && !hop_tune_point_equal(&c->p, &t->dflt)) {
    char text[200];
    hop_tune_point_format(t->space, &c->p, text, sizeof text);
    hop_log(1, "opencl: %s (%s) cannot be used here: %s; using the default", text, c->origin,
            st->prog.origin);
    hop_ocl_program_release(&st->prog);
    st->prog = (struct hop_ocl_program){0};
    c->p = t->dflt;
    snprintf(c->origin, sizeof c->origin, "%.70s (the tuned parameters did not build)", t->dflt_why);
    snprintf(c->tag, sizeof c->tag, "default");
    return use(st, c);
  }
  /* program.c may have fallen back to smaller tiles: remember what was built. */
  t->space->get(st, &c->p);
  return rc;
}

static _Thread_local char trace_note[160];
static _Thread_local const char *trace_tag;

enum hop_status hop_ocl_tune_select(struct hop_ocl_state *st, const struct hop_call *g)
{
  struct hop_ocl_tune *t = st->tune;
  trace_tag = NULL;
  if (t == NULL || t->space == NULL || t->user) {
    trace_tag = t != NULL && t->user ? "user" : NULL;
    return hop_ocl_program_ready(st);
  }
  int b = hop_tune_bucket(cbrt((double)g->m * g->n * g->k));
  if (!t->b[b].resolved)
    resolve(st, b);
  trace_tag = t->b[b].tag;
  return use(st, &t->b[b]);
}

const char *hop_ocl_tune_detail(void *state)
{
  const char *family = hop_ocl_family_detail(state);
  if (trace_tag == NULL)
    return family;
  snprintf(trace_note, sizeof trace_note, "%s%sparams=%s", family ? family : "",
           family && *family ? " " : "", trace_tag);
  return trace_note;
}

/* ---- `hopblas info` -------------------------------------------------------- */

struct report {
  FILE *out;
  int rows;
};

static void print_record(const char *name, const char *value, void *arg)
{
  struct report *r = arg;
  char params[HOP_TUNE_VALUE_MAX];
  double gf = 0, dflt = 0;
  if (sscanf(value, "%511s %lf %lf", params, &gf, &dflt) != 3)
    return;
  if (r->rows == 0)
    fprintf(r->out, "  tuned sizes (user cache):\n");
  fprintf(r->out, "    %-14s %s (%.1f GFLOPS; default %.1f)\n", strchr(name, '.') + 1, params, gf,
          dflt);
  r->rows++;
}

void hop_ocl_tune_describe(struct hop_ocl_state *st, FILE *out)
{
  struct hop_ocl_tune *t = st->tune;
  char path[4200], state[200], prefix[40], text[200];
  hop_tune_describe(path, sizeof path, state, sizeof state);
  fprintf(out, "  tuning: HOPBLAS_TUNE=%s; cache %s (%s)\n", hop_tune_mode_name(hop_tune_mode()),
          path, state);
  if (t == NULL || t->space == NULL) {
    fprintf(out, "  tuning: the %s family has no parameter space\n", st->family->name);
  } else if (t->user) {
    fprintf(out, "  tuning: parameters set by the user (%s); the lookup chain is skipped\n",
            t->dflt_why);
  } else {
    struct hop_tune_point p;
    hop_ocl_tune_default(st, &p, state, sizeof state);
    hop_tune_point_format(t->space, &p, text, sizeof text);
    fprintf(out, "  untuned sizes: %s (%s)\n", text, state);
    struct report r = {out, 0};
    snprintf(prefix, sizeof prefix, "%s.n", st->family->name);
    if (hop_tune_mode() != HOP_TUNE_OFF)
      hop_tune_each(t->scope, prefix, print_record, &r);
    if (r.rows == 0)
      fprintf(out, "  tuned sizes: none for this device, driver and library (`hopblas tune`)\n");
  }
  hop_ocl_calib_describe(st, t != NULL ? &t->cal : NULL, out);
}
