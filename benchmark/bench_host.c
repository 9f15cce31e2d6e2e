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
void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                 int lda, const double *b, int ldb, double beta, double *c, int ldc);
void cblas_cgemm(int order, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
                 int lda, const void *b, int ldb, const void *beta, void *c, int ldc);
void cblas_zgemm(int order, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
                 int lda, const void *b, int ldb, const void *beta, void *c, int ldc);

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

/* The case's alpha and beta by pointer, in the dtype's scalar type, as the
 * complex CBLAS and every Fortran entry point take them. */
struct scalars {
  float s[2], c[2][2];
  double d[2], z[2][2];
  const void *alpha, *beta;
};

static void scalars_of(const struct bench_case *c, struct scalars *sc)
{
  *sc = (struct scalars){{c->alpha, c->beta}, {{c->alpha, 0.0f}, {c->beta, 0.0f}},
                         {c->alpha, c->beta}, {{c->alpha, 0.0}, {c->beta, 0.0}}, NULL, NULL};
  switch (c->dtype) {
  case HOP_DTYPE_S:
  case HOP_DTYPE_SH: sc->alpha = &sc->s[0], sc->beta = &sc->s[1]; return;
  case HOP_DTYPE_D: sc->alpha = &sc->d[0], sc->beta = &sc->d[1]; return;
  case HOP_DTYPE_C: sc->alpha = sc->c[0], sc->beta = sc->c[1]; return;
  case HOP_DTYPE_Z: sc->alpha = sc->z[0], sc->beta = sc->z[1]; return;
  case HOP_DTYPE_H: /* half scalars by value only (cblas_hgemm) */
  case HOP_DTYPE_COUNT: return;
  }
}

static bool hopblas_call(void *arg)
{
  struct bench_data *d = arg;
  const struct bench_case *c = &d->cs;
  int ta = c->ta ? TRANS : NOTRANS, tb = c->tb ? TRANS : NOTRANS;
  int lda = c->ta ? c->k : c->m, ldb = c->tb ? c->n : c->k;
  struct scalars sc;
  scalars_of(c, &sc);
  switch (c->dtype) {
  case HOP_DTYPE_S:
    cblas_sgemm(COL, ta, tb, c->m, c->n, c->k, c->alpha, d->a, lda, d->b, ldb, c->beta, d->c, c->m);
    return true;
  case HOP_DTYPE_D:
    cblas_dgemm(COL, ta, tb, c->m, c->n, c->k, c->alpha, d->a, lda, d->b, ldb, c->beta, d->c, c->m);
    return true;
  case HOP_DTYPE_C:
    cblas_cgemm(COL, ta, tb, c->m, c->n, c->k, sc.alpha, d->a, lda, d->b, ldb, sc.beta, d->c, c->m);
    return true;
  case HOP_DTYPE_Z:
    cblas_zgemm(COL, ta, tb, c->m, c->n, c->k, sc.alpha, d->a, lda, d->b, ldb, sc.beta, d->c, c->m);
    return true;
  case HOP_DTYPE_H:
    cblas_hgemm(COL, ta, tb, c->m, c->n, c->k, hop_float_to_half(c->alpha), d->a, lda, d->b, ldb,
                hop_float_to_half(c->beta), d->c, c->m);
    return true;
  case HOP_DTYPE_SH:
    cblas_shgemm(COL, ta, tb, c->m, c->n, c->k, c->alpha, d->a, lda, d->b, ldb, c->beta, d->c,
                 c->m);
    return true;
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

typedef void (*cblas_real_fn)(int, int, int, int, int, int, float, const void *, int, const void *,
                              int, float, void *, int);
typedef void (*cblas_double_fn)(int, int, int, int, int, int, double, const void *, int,
                                const void *, int, double, void *, int);
typedef void (*cblas_complex_fn)(int, int, int, int, int, int, const void *, const void *, int,
                                 const void *, int, const void *, void *, int);
static cblas_real_fn openblas_sgemm, openblas_shgemm;
static cblas_double_fn openblas_dgemm;
static cblas_complex_fn openblas_cgemm, openblas_zgemm;

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
    *(void **)&openblas_dgemm = dlsym(h, "cblas_dgemm");
    *(void **)&openblas_cgemm = dlsym(h, "cblas_cgemm");
    *(void **)&openblas_zgemm = dlsym(h, "cblas_zgemm");
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
  struct scalars sc;
  scalars_of(c, &sc);
  /* bench_openblas_run lets through only the dtypes this OpenBLAS has */
  switch (c->dtype) {
  case HOP_DTYPE_S:
  case HOP_DTYPE_SH:
    (c->dtype == HOP_DTYPE_S ? openblas_sgemm : openblas_shgemm)(
      COL, ta, tb, c->m, c->n, c->k, c->alpha, d->a, lda, d->b, ldb, c->beta, d->c, c->m);
    return true;
  case HOP_DTYPE_D:
    openblas_dgemm(COL, ta, tb, c->m, c->n, c->k, c->alpha, d->a, lda, d->b, ldb, c->beta, d->c,
                   c->m);
    return true;
  case HOP_DTYPE_C:
  case HOP_DTYPE_Z:
    (c->dtype == HOP_DTYPE_C ? openblas_cgemm : openblas_zgemm)(
      COL, ta, tb, c->m, c->n, c->k, sc.alpha, d->a, lda, d->b, ldb, sc.beta, d->c, c->m);
    return true;
  case HOP_DTYPE_H:
  case HOP_DTYPE_COUNT: break;
  }
  return false;
}

/* The symbol of each dtype in this OpenBLAS (NULL: it has none). */
static void *openblas_fn(enum hop_dtype dt)
{
  switch (dt) {
  case HOP_DTYPE_S: return (void *)openblas_sgemm;
  case HOP_DTYPE_D: return (void *)openblas_dgemm;
  case HOP_DTYPE_C: return (void *)openblas_cgemm;
  case HOP_DTYPE_Z: return (void *)openblas_zgemm;
  case HOP_DTYPE_SH: return (void *)openblas_shgemm;
  case HOP_DTYPE_H:
  case HOP_DTYPE_COUNT: break;
  }
  return NULL;
}

void bench_openblas_run(const char *name, enum bench_mode mode, struct bench_data *d,
                        const struct bench_opts *o, struct bench_result *r)
{
  if (openblas_fn(d->cs.dtype) == NULL) {
    r->skipped = true;
    snprintf(r->note, sizeof r->note, "this OpenBLAS has no %sgemm",
             hop_dtype_name(d->cs.dtype));
    return;
  }
  host_run(openblas_call, d, o, r);
}

/* ---- NVBLAS: the Fortran names (it intercepts those, not cblas) --------------------- */

typedef void (*fortran_gemm_fn)(const char *, const char *, const int *, const int *, const int *,
                                const void *, const void *, const int *, const void *,
                                const int *, const void *, void *, const int *);
static fortran_gemm_fn nvblas_gemm[HOP_DTYPE_COUNT];

bool bench_nvblas_open(const char *name, char *why, size_t len)
{
  /* Without its config file (which names the CPU BLAS) NVBLAS cannot run. */
  const char *path = getenv("NVBLAS_LIB") ? getenv("NVBLAS_LIB") : "libnvblas.so";
  if (getenv("NVBLAS_CONFIG_FILE") == NULL) {
    snprintf(why, len, "NVBLAS_CONFIG_FILE is not set (see doc/PERFORMANCE.md)");
    return false;
  }
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h != NULL) {
    *(void **)&nvblas_gemm[HOP_DTYPE_S] = dlsym(h, "sgemm_");
    *(void **)&nvblas_gemm[HOP_DTYPE_D] = dlsym(h, "dgemm_");
    *(void **)&nvblas_gemm[HOP_DTYPE_C] = dlsym(h, "cgemm_");
    *(void **)&nvblas_gemm[HOP_DTYPE_Z] = dlsym(h, "zgemm_");
  }
  if (nvblas_gemm[HOP_DTYPE_S] == NULL)
    snprintf(why, len, "%s not loadable (set NVBLAS_LIB)", path);
  return nvblas_gemm[HOP_DTYPE_S] != NULL;
}

static bool nvblas_call(void *arg)
{
  struct bench_data *d = arg;
  const struct bench_case *c = &d->cs;
  int lda = c->ta ? c->k : c->m, ldb = c->tb ? c->n : c->k;
  struct scalars sc;
  scalars_of(c, &sc);
  nvblas_gemm[c->dtype](c->ta ? "T" : "N", c->tb ? "T" : "N", &c->m, &c->n, &c->k, sc.alpha, d->a,
                        &lda, d->b, &ldb, sc.beta, d->c, &c->m);
  return true;
}

void bench_nvblas_run(const char *name, enum bench_mode mode, struct bench_data *d,
                      const struct bench_opts *o, struct bench_result *r)
{
  if (nvblas_gemm[d->cs.dtype] == NULL) {
    r->skipped = true;
    snprintf(r->note, sizeof r->note, "NVBLAS has no %sgemm_", hop_dtype_name(d->cs.dtype));
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
