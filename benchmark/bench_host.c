/* Host-memory engines of the benchmark: hopblas through its public entry
 * points (what a preloaded program sees: routing, transfers, the engine),
 * OpenBLAS and NVBLAS called directly.  Each runs in its own child. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "hop.h"
#include "engine_tools.h"
#include "hopblas.h"

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc);

enum { COL = 102, NOTRANS = 111, TRANS = 112 };

/* ---- hopblas: "hopblas" routes by itself, "opencl" and "cpu" force an engine -------- */

static char trace_path[64];

bool bench_hopblas_open(const char *name, char *why, size_t len)
{
  const char *backend = strcmp(name, "hopblas") == 0 ? "auto" : name;
  setenv("HOPBLAS_BACKEND", backend, 1);
  /* The trace tells which engine ran each call (auto routing's choice); it
   * is written by a separate process (see route_note), since writing a row
   * per call would slow down the calls being timed. */
  snprintf(trace_path, sizeof trace_path, "/tmp/hopblas-bench-XXXXXX");
  int fd = mkstemp(trace_path);
  if (fd >= 0)
    close(fd);
  else
    trace_path[0] = '\0';
  if (strcmp(backend, "auto") == 0)
    return true;
  struct hop_engine_view v;
  hop_engine_get(hop_engine_index(backend), &v);
  if (v.status != HOP_OK)
    snprintf(why, len, "%s", v.why);
  return v.status == HOP_OK;
}

/* "engine: why" from the trace's last row. */
static void last_route(char *out, size_t len)
{
  FILE *fp = fopen(trace_path, "r");
  char line[1024], last[1024] = "";
  while (fp != NULL && fgets(line, sizeof line, fp) != NULL)
    snprintf(last, sizeof last, "%s", line);
  if (fp != NULL)
    fclose(fp);
  const char *p = last;
  for (int field = 0; field < 8 && p != NULL; field++)
    p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
  if (p == NULL) {
    snprintf(out, len, "route unknown");
    return;
  }
  size_t elen = strcspn(p, ",");
  const char *q = p + elen + (p[elen] == ',');
  const char *why = *q == '"' ? q + 1 : q;
  snprintf(out, len, "ran on %.*s: %.*s", (int)elen, p, (int)strcspn(why, "\""), why);
}

static bool hopblas_call(void *arg)
{
  struct bench_data *d = arg;
  const struct bench_case *c = &d->cs;
  int ta = c->ta ? TRANS : NOTRANS, tb = c->tb ? TRANS : NOTRANS;
  int lda = c->ta ? c->k : c->m, ldb = c->tb ? c->n : c->k;
  switch (c->dtype) {
  case HOP_DTYPE_S:
    cblas_sgemm(COL, ta, tb, c->m, c->n, c->k, c->alpha, d->a, lda, d->b, ldb, c->beta, d->c, c->m);
    return true;
  case HOP_DTYPE_H:
    cblas_hgemm(COL, ta, tb, c->m, c->n, c->k, hop_float_to_half(c->alpha), d->a, lda, d->b, ldb,
                hop_float_to_half(c->beta), d->c, c->m);
    return true;
  case HOP_DTYPE_SH:
    cblas_shgemm(COL, ta, tb, c->m, c->n, c->k, c->alpha, d->a, lda, d->b, ldb, c->beta, d->c,
                 c->m);
    return true;
  case HOP_DTYPE_D: /* not in bench_dtypes yet */
  case HOP_DTYPE_C:
  case HOP_DTYPE_Z:
  case HOP_DTYPE_COUNT: break;
  }
  return false;
}

/* First call checked, then timed; the note says who ran the first call. */
static void host_run(bool (*call)(void *), struct bench_data *d, const struct bench_opts *o,
                     struct bench_result *r)
{
  bench_data_reset_c(d);
  if (!call(d)) {
    r->skipped = true;
    return;
  }
  bench_check(d, d->c, r);
  if (!bench_time(call, d, o, r))
    r->skipped = true;
}

/* Where the case goes and why: one more call, after the timed ones, with
 * tracing switched on for it alone (this program carries the library's
 * core, so it may flip its own context's trace path), and without the
 * tiny-call fast path, which would bypass the trace.  The timed calls run
 * untraced, as in a user's program. */
static void route_note(struct bench_data *d, char *note, size_t len)
{
  snprintf(note, len, "route unknown");
  if (trace_path[0] == '\0')
    return;
  struct hop_config *cfg = (struct hop_config *)hop_config();
  const struct hop_fast_path *fast = hop_fast_path();
  snprintf(cfg->trace_path, sizeof cfg->trace_path, "%s", trace_path);
  __atomic_store_n(&hop_fast_path_ready, &hop_fast_path_off, __ATOMIC_RELEASE);
  hopblas_call(d);
  hop_trace_release(); /* written and closed before the file is read */
  cfg->trace_path[0] = '\0';
  __atomic_store_n(&hop_fast_path_ready, fast, __ATOMIC_RELEASE);
  last_route(note, len);
}

void bench_hopblas_run(const char *name, enum bench_mode mode, struct bench_data *d,
                       const struct bench_opts *o, struct bench_result *r)
{
  host_run(hopblas_call, d, o, r);
  route_note(d, r->note, sizeof r->note);
}

/* ---- OpenBLAS, loaded the way the CPU engine loads it -------------------------------- */

static void (*openblas_sgemm)(int, int, int, int, int, int, float, const float *, int,
                              const float *, int, float, float *, int);
static void (*openblas_shgemm)(int, int, int, int, int, int, float, const uint16_t *, int,
                               const uint16_t *, int, float, float *, int);

bool bench_openblas_open(const char *name, char *why, size_t len)
{
  /* OPENBLAS_LIB, else the library the CPU engine (the fallback) loaded
   * ("OpenBLAS /path"), else the soname. */
  const struct hop_backend *fb = hop_backends[hop_backend_count - 1];
  struct hop_engine_view v;
  hop_engine_get(hop_backend_count - 1, &v);
  const char *engine = fb->tools != NULL && fb->tools->what_runs != NULL && v.state != NULL
                         ? fb->tools->what_runs(v.state) : "";
  const char *space = strrchr(engine, ' ');
  const char *path = getenv("OPENBLAS_LIB") ? getenv("OPENBLAS_LIB")
                     : space != NULL && space[1] == '/' ? space + 1
                                                        : "libopenblas.so.0";
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h != NULL) {
    *(void **)&openblas_sgemm = dlsym(h, "cblas_sgemm");
    *(void **)&openblas_shgemm = dlsym(h, "cblas_shgemm"); /* OpenBLAS >= 0.3.31 */
  }
  if (openblas_sgemm == NULL)
    snprintf(why, len, "no cblas_sgemm in %s (set OPENBLAS_LIB)", path);
  return openblas_sgemm != NULL;
}

static bool openblas_call(void *arg)
{
  struct bench_data *d = arg;
  const struct bench_case *c = &d->cs;
  int ta = c->ta ? TRANS : NOTRANS, tb = c->tb ? TRANS : NOTRANS;
  int lda = c->ta ? c->k : c->m, ldb = c->tb ? c->n : c->k;
  if (c->dtype == HOP_DTYPE_S)
    openblas_sgemm(COL, ta, tb, c->m, c->n, c->k, c->alpha, d->a, lda, d->b, ldb, c->beta, d->c,
                   c->m);
  else /* bench_openblas_run lets only s and sh through */
    openblas_shgemm(COL, ta, tb, c->m, c->n, c->k, c->alpha, d->a, lda, d->b, ldb, c->beta, d->c,
                    c->m);
  return true;
}

void bench_openblas_run(const char *name, enum bench_mode mode, struct bench_data *d,
                        const struct bench_opts *o, struct bench_result *r)
{
  if (d->cs.dtype == HOP_DTYPE_H || (d->cs.dtype == HOP_DTYPE_SH && openblas_shgemm == NULL)) {
    r->skipped = true;
    snprintf(r->note, sizeof r->note, "this OpenBLAS has no %sgemm",
             hop_dtype_name(d->cs.dtype));
    return;
  }
  host_run(openblas_call, d, o, r);
}

/* ---- NVBLAS: sgemm_ only (it intercepts the Fortran names, not cblas) -------------- */

static void (*nvblas_sgemm)(const char *, const char *, const int *, const int *, const int *,
                            const float *, const float *, const int *, const float *, const int *,
                            const float *, float *, const int *);

bool bench_nvblas_open(const char *name, char *why, size_t len)
{
  /* Without its config file (which names the CPU BLAS) NVBLAS cannot run. */
  const char *path = getenv("NVBLAS_LIB") ? getenv("NVBLAS_LIB") : "libnvblas.so";
  if (getenv("NVBLAS_CONFIG_FILE") == NULL) {
    snprintf(why, len, "NVBLAS_CONFIG_FILE is not set (see doc/PERFORMANCE.md)");
    return false;
  }
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h != NULL)
    *(void **)&nvblas_sgemm = dlsym(h, "sgemm_");
  if (nvblas_sgemm == NULL)
    snprintf(why, len, "%s not loadable (set NVBLAS_LIB)", path);
  return nvblas_sgemm != NULL;
}

static bool nvblas_call(void *arg)
{
  struct bench_data *d = arg;
  const struct bench_case *c = &d->cs;
  int lda = c->ta ? c->k : c->m, ldb = c->tb ? c->n : c->k;
  nvblas_sgemm(c->ta ? "T" : "N", c->tb ? "T" : "N", &c->m, &c->n, &c->k, &c->alpha, d->a, &lda,
               d->b, &ldb, &c->beta, d->c, &c->m);
  return true;
}

void bench_nvblas_run(const char *name, enum bench_mode mode, struct bench_data *d,
                      const struct bench_opts *o, struct bench_result *r)
{
  if (d->cs.dtype != HOP_DTYPE_S) {
    r->skipped = true;
    snprintf(r->note, sizeof r->note, "NVBLAS has sgemm only");
    return;
  }
  host_run(nvblas_call, d, o, r);
}

/* Remove the child's trace file (called at the child's exit). */
void bench_host_cleanup(void)
{
  if (trace_path[0] != '\0')
    unlink(trace_path);
}
