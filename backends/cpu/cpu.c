/* The CPU engine: OpenBLAS loaded privately (dlopen RTLD_LOCAL + dlsym on
 * the handle, never libblas.so.3, never ourselves), else the built-in
 * reference GEMM.  It is the last engine and never declines. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu.h"
#include "tune_cache.h"

static const char *const default_paths[] = {
  HOP_DEFAULT_CPU_BLAS,
  "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
  "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
  "/usr/lib/x86_64-linux-gnu/openblas-serial/libopenblas.so.0",
  "/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
  "/usr/lib/arm-linux-gnueabihf/openblas-pthread/libopenblas.so.0",
  NULL,
};

static struct hop_cpu_state cpu_state;

/* Set while a candidate is loaded.  Found set when init() begins only in
 * the child of a fork() that interrupted the parent's load: the dynamic
 * loader's lists may be half-updated there, so that child loads nothing. */
static atomic_bool loading;

/* Load one candidate; false (with why) if it is unusable. */
static bool try_load(const char *path, struct hop_cpu_state *st, char *why, size_t why_len)
{
  /* dlopen() reads a FIFO or a device node and may wait forever there. */
  struct stat sb;
  if (strchr(path, '/') != NULL) {
    const char *bad = stat(path, &sb) != 0 ? strerror(errno)
                      : !S_ISREG(sb.st_mode) ? "not a regular file" : NULL;
    if (bad != NULL) {
      snprintf(why, why_len, "%s: %s", path, bad);
      return false;
    }
  }
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    snprintf(why, why_len, "%s: %s", path, dlerror());
    return false;
  }
  hop_sgemm_fn fn = (hop_sgemm_fn)dlsym(h, "sgemm_");
  Dl_info theirs, ours;
  if (fn == NULL) {
    snprintf(why, why_len, "%s has no sgemm_", path);
  } else if (dladdr((void *)fn, &theirs) && dladdr((void *)hop_cpu_sgemm, &ours) &&
             theirs.dli_fbase == ours.dli_fbase) {
    /* e.g. HOPBLAS_CPU_BLAS naming a libblas.so.3 that is hopblas itself. */
    snprintf(why, why_len, "%s resolves sgemm_ to hopblas itself", path);
    fn = NULL;
  }
  if (fn == NULL) {
    dlclose(h);
    return false;
  }
  st->handle = h;
  st->sgemm = fn;
  /* The fast path lets the CPU BLAS check arguments: only OpenBLAS numbers
   * them as hopblas must (netlib's CBLAS differs), so only OpenBLAS gets it. */
  if (dlsym(h, "openblas_get_config") != NULL)
    st->cblas_sgemm = (hop_cblas_sgemm_fn)dlsym(h, "cblas_sgemm");
  /* Name the file really loaded, not the soname asked for. */
  struct link_map *lm = NULL;
  if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL && lm->l_name[0] != '\0')
    snprintf(st->name, sizeof st->name, "OpenBLAS %s", lm->l_name);
  else
    snprintf(st->name, sizeof st->name, "OpenBLAS %s", path);
  return true;
}

static enum hop_status cpu_init(void **state, char *why, size_t why_len)
{
  struct hop_cpu_state *st = &cpu_state;
  const char *asked = hop_config()->cpu_blas;
  char last[512] = "";
  *st = (struct hop_cpu_state){0}; /* a forked child may find the parent's start half done */
  bool forked_mid_load = atomic_load(&loading);
  if (strcmp(asked, "builtin") == 0 || forked_mid_load) {
    /* The reference GEMM on purpose (tests, debugging), or of necessity. */
    if (forked_mid_load)
      hop_log(1, "forked while the CPU BLAS was being loaded: this process uses the built-in "
                 "reference GEMM");
    snprintf(st->name, sizeof st->name, "built-in reference GEMM");
    st->peak_gflops = 2.0;
    snprintf(why, why_len, "%s", st->name);
    *state = st;
    return HOP_OK;
  }
  atomic_store(&loading, true);
  if (asked[0] != '\0' && !try_load(asked, st, last, sizeof last))
    hop_log(1, "HOPBLAS_CPU_BLAS: %s; trying the default OpenBLAS", last);
  for (size_t i = 0; st->sgemm == NULL && default_paths[i] != NULL; i++)
    try_load(default_paths[i], st, last, sizeof last);
  atomic_store(&loading, false);
  if (st->sgemm == NULL) {
    hop_log(1, "no OpenBLAS found (last tried %s); using the built-in reference GEMM", last);
    snprintf(st->name, sizeof st->name, "built-in reference GEMM");
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  /* Until `hopblas tune` measures the machine: ~30 GFLOPS per core with OpenBLAS. */
  st->peak_gflops = (st->sgemm ? 30.0 : 2.0) * (double)(cores > 0 ? cores : 1);
  snprintf(why, why_len, "%s", st->name);
  *state = st;
  return HOP_OK;
}

static double cpu_predict(void *state, const struct hop_call *g)
{
  const struct hop_cpu_state *st = state;
  double calibrated = hop_calib_cpu_seconds(g); /* the curve `hopblas tune` measured */
  if (calibrated >= 0.0)
    return calibrated;
  double flops = hop_call_flops(g);
  double size = cbrt((double)g->m * g->n * g->k);
  double rate = st->peak_gflops * 1e9 * size / (size + 96.0); /* small calls run below peak */
  return 1e-6 + flops / rate;
}

/* Never fails: the fallback of every other engine (core/context.c). */
static enum hop_status cpu_gemm(void *state, const struct hop_call *g)
{
  const struct hop_cpu_state *st = state;
  if (g->dtype == HOP_DTYPE_S)
    hop_cpu_sgemm(st, g->ta, g->tb, g->m, g->n, g->k, g->alpha, g->a, g->lda, g->b, g->ldb,
                  g->beta, g->c, g->ldc);
  else if (hop_cpu_half_gemm(st, g) != HOP_OK) /* not even the panel buffers */
    hop_cpu_half_gemm_unbuffered(st, g);
  return HOP_OK;
}

/* One call of the loaded BLAS (or the reference), as it is. */
static void blas_sgemm(const struct hop_cpu_state *st, bool ta, bool tb, int m, int n, int k,
                       float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                       float *c, int ldc)
{
  if (st->sgemm != NULL) {
    char cta = ta ? 'T' : 'N', ctb = tb ? 'T' : 'N';
    st->sgemm(&cta, &ctb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  } else {
    hop_ref_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}

/* How many columns of a matrix with this ld and rows keep every element
 * offset, ld * (cols - 1) + rows - 1, within INT_MAX. */
static int cols_fitting_int(int ld, int rows)
{
  size_t fit = ((size_t)INT_MAX - (size_t)rows) / (size_t)ld + 1;
  return fit > INT_MAX ? INT_MAX : (int)fit;
}

static int min_int(int x, int y) { return x < y ? x : y; }

void hop_cpu_sgemm(const struct hop_cpu_state *st, bool ta, bool tb, int m, int n, int k,
                   float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                   float *c, int ldc)
{
  /* CPU BLAS kernels may index with 32-bit ints (OpenBLAS 0.3.21's
   * COOPERLAKE small-matrix kernels do, and crash): cut the call into slices
   * whose element offsets fit.  A slice of one column always fits. */
  int sm = ta ? cols_fitting_int(lda, k) : m;                        /* A^T: k x m stored */
  int sn = min_int(cols_fitting_int(ldc, m), tb ? n : cols_fitting_int(ldb, k));
  int sk = min_int(ta ? k : cols_fitting_int(lda, m), tb ? cols_fitting_int(ldb, n) : k);
  if (sm >= m && sn >= n && sk >= k) {
    blas_sgemm(st, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  for (int j = 0; j < n; j += sn)
    for (int i = 0; i < m; i += sm) {
      int p = 0;
      do { /* later k slices accumulate into what the first one wrote */
        const float *as = a + (ta ? hop_at(p, i, lda) : hop_at(i, p, lda));
        const float *bs = b + (tb ? hop_at(j, p, ldb) : hop_at(p, j, ldb));
        blas_sgemm(st, ta, tb, min_int(sm, m - i), min_int(sn, n - j), min_int(sk, k - p), alpha,
                   as, lda, bs, ldb, p == 0 ? beta : 1.0f, c + hop_at(i, j, ldc), ldc);
      } while ((p += sk) < k);
    }
}

/* When the library is unloaded: OpenBLAS too (its own destructor joins its threads). */
static void cpu_release(void *state)
{
  struct hop_cpu_state *st = state;
  if (st->handle != NULL)
    dlclose(st->handle);
  *st = (struct hop_cpu_state){0};
}

/* OpenBLAS's own entry points for the fast path; NULL with any other BLAS. */
static void cpu_direct(void *state, hop_cblas_sgemm_fn *cblas, hop_f77_sgemm_fn *f77)
{
  const struct hop_cpu_state *st = state;
  *cblas = st->cblas_sgemm;
  *f77 = st->sgemm;
}

static void cpu_describe(void *state, FILE *out)
{
  const struct hop_cpu_state *st = state;
  char curve[HOP_TUNE_VALUE_MAX];
  if (hop_calib_cpu_describe(curve, sizeof curve))
    fprintf(out, "    model (calibrated by `hopblas tune`): GFLOPS by size %s\n", curve);
  else
    fprintf(out, "    model peak (untuned default): %.0f GFLOPS\n", st->peak_gflops);
}

const struct hop_backend hop_backend_cpu = {
  .name = "cpu",
  .is_device = false,
  .fork_safe = true,
  .init = cpu_init,
  .predict = cpu_predict,
  .run = cpu_gemm,
  .describe = cpu_describe,
  .release = cpu_release,
  .direct = cpu_direct,
  .tools = &hop_cpu_tools,
};


const char *hop_cpu_blas_name(void)
{
  struct hop_engine_view v;
  hop_engine_get(hop_backend_count - 1, &v);
  return ((const struct hop_cpu_state *)v.state)->name;
}
