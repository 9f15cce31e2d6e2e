/* The CPU engine: OpenBLAS loaded privately (dlopen RTLD_LOCAL + dlsym on
 * the handle, never libblas.so.3, never ourselves), else the built-in
 * reference GEMMs.  It takes every dtype, is the last engine and never
 * declines. */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu.h"
#include "tune_cache.h"

static const char *const default_paths[] = {
  HOP_DEFAULT_CPU_BLAS,
  "/usr/lib/" HOP_MULTIARCH "/openblas-pthread/libopenblas.so.0",
  "/usr/lib/" HOP_MULTIARCH "/openblas-openmp/libopenblas.so.0",
  "/usr/lib/" HOP_MULTIARCH "/openblas-serial/libopenblas.so.0",
  NULL,
};

static struct hop_cpu_state cpu_state;

static const struct hop_config_key cpu_keys[] = {
  {"HOPBLAS_CPU_BLAS", "path of the OpenBLAS library the CPU engine loads; builtin = the reference routines",
   HOP_KEY_PATH},
  {"HOPBLAS_CPU_BLAS64",
   "path of the ILP64 OpenBLAS (64-bit integers) the CPU engine loads for calls with a size beyond "
   "2^31-1; none = cut GEMMs into slices for the LP64 BLAS, the other routines on the reference",
   HOP_KEY_PATH},
  {NULL, NULL, HOP_KEY_VALUE},
};

/* Set while a candidate is loaded.  Found set when init() begins only in
 * the child of a fork() that interrupted the parent's load: the dynamic
 * loader's lists may be half-updated there, so that child loads nothing. */
static atomic_bool loading;

/* Load one candidate; false (with why) if it is unusable. */
static bool try_load(const char *path, struct hop_cpu_state *st, char *why, size_t why_len)
{
  enum hop_cpu_spin spin;
  void *h = hop_cpu_dlopen(path, why, why_len, &spin);
  if (h == NULL)
    return false;
  hop_sgemm_fn fn = (hop_sgemm_fn)dlsym(h, "sgemm_");
  if (fn == NULL) {
    snprintf(why, why_len, "%s has no sgemm_", path);
  } else if (hop_cpu_is_self((void *)fn)) {
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
  st->spin = spin;
  /* A BLAS without one of these leaves that dtype to the reference. */
  st->dgemm = (hop_f77_dgemm_fn)dlsym(h, "dgemm_");
  st->cgemm = (hop_f77_xgemm_fn)dlsym(h, "cgemm_");
  st->zgemm = (hop_f77_xgemm_fn)dlsym(h, "zgemm_");
  hop_cpu_l3_load(st->l3, h);
  st->get_threads = (int (*)(void))dlsym(h, "openblas_get_num_threads");
  st->set_threads = (void (*)(int))dlsym(h, "openblas_set_num_threads");
  /* The fast path lets the CPU BLAS check arguments: only OpenBLAS numbers
   * them as hopblas must (netlib's CBLAS differs), so only OpenBLAS gets it. */
  if (dlsym(h, "openblas_get_config") != NULL) {
    struct hop_direct_entries *e = &st->direct;
    st->takes_r = true;
    e->cblas_sgemm = (hop_cblas_sgemm_fn)dlsym(h, "cblas_sgemm");
    e->cblas_dgemm = (hop_cblas_dgemm_fn)dlsym(h, "cblas_dgemm");
    e->cblas_cgemm = (hop_cblas_xgemm_fn)dlsym(h, "cblas_cgemm");
    e->cblas_zgemm = (hop_cblas_xgemm_fn)dlsym(h, "cblas_zgemm");
    e->sgemm = st->sgemm, e->dgemm = st->dgemm, e->cgemm = st->cgemm, e->zgemm = st->zgemm;
  }
  hop_cpu_lib_name(h, path, st->name, sizeof st->name);
  return true;
}

static enum hop_status cpu_init(void **state, char *why, size_t why_len)
{
  struct hop_cpu_state *st = &cpu_state;
  const char *asked = hop_cpu_asked_path("HOPBLAS_CPU_BLAS");
  char last[512] = "";
  *st = (struct hop_cpu_state){0}; /* a forked child may find the parent's start half done */
  bool forked_mid_load = atomic_load(&loading);
  if (strcmp(asked, "builtin") == 0 || forked_mid_load) {
    /* The reference GEMM on purpose (tests, debugging), or of necessity. */
    if (forked_mid_load)
      hop_log(1, "forked while the CPU BLAS was being loaded: this process uses the built-in "
                 "reference GEMM");
    snprintf(st->name, sizeof st->name, "built-in reference GEMM");
    st->blas64 = hop_cpu_blas64_reset(true);
    st->peak_gflops = 2.0;
    snprintf(why, why_len, "%s", st->name);
    *state = st;
    return HOP_OK;
  }
  st->blas64 = hop_cpu_blas64_reset(false);
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
  st->cores = cores > 0 ? (int)cores : 1;
  /* Until `hopblas tune` measures the machine: ~30 GFLOPS per core with OpenBLAS. */
  st->peak_gflops = (st->sgemm ? 30.0 : 2.0) * (double)st->cores;
  snprintf(why, why_len, "%s", st->name);
  *state = st;
  return HOP_OK;
}

/* The untuned model's guess for a call; < 0 where `hopblas tune` measured the curve. */
static double untuned_guess(const struct hop_cpu_state *st, const struct hop_call *g)
{
  if (hop_calib_cpu_seconds(g) >= 0.0)
    return -1.0;
  double flops = hop_call_flops(g);
  double size = cbrt((double)g->m * g->n * g->k);
  double rate = st->peak_gflops * 1e9 * size / (size + 96.0); /* small calls run below peak */
  if (hop_cpu_double_rate(g->dtype))
    rate /= 2.0; /* a double fills half the SIMD lanes */
  return 1e-6 + flops / (rate * hop_cpu_threads_share(st));
}

static double cpu_predict(void *state, const struct hop_call *g)
{
  const struct hop_cpu_state *st = state;
  double calibrated = hop_calib_cpu_seconds(g); /* the curve `hopblas tune` measured */
  if (calibrated >= 0.0)
    return calibrated / hop_cpu_threads_share(st);
  return untuned_guess(st, g) * hop_cpu_learned(g); /* learn.c */
}

static enum hop_status cpu_gemm(const struct hop_cpu_state *st, const struct hop_call *g)
{
  switch (g->dtype) {
  case HOP_DTYPE_S:
  case HOP_DTYPE_D:
  case HOP_DTYPE_C:
  case HOP_DTYPE_Z: hop_cpu_gemm_sliced(st, g); return HOP_OK;
  case HOP_DTYPE_H:
  case HOP_DTYPE_SH:
    if (hop_cpu_half_gemm(st, g) != HOP_OK) /* not even the panel buffers */
      hop_cpu_half_gemm_unbuffered(st, g);
    return HOP_OK;
  case HOP_DTYPE_COUNT: break;
  }
  return HOP_DECLINED;
}

/* Never fails: the fallback of every other engine (core/context.c). */
static enum hop_status cpu_call(const struct hop_cpu_state *st, const struct hop_call *g)
{
  switch (g->op) {
  case HOP_OP_GEMM: return cpu_gemm(st, g);
  case HOP_OP_GEMMT: hop_cpu_gemmt(st, g); return HOP_OK;
  case HOP_OP_SYMM:
  case HOP_OP_HEMM:
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K:
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: hop_cpu_l3(st, g); return HOP_OK;
  case HOP_OP_GEMM_BATCH: hop_cpu_gemm_batch(st, g); return HOP_OK;
  case HOP_OP_COUNT: break;
  }
  return HOP_DECLINED;
}

static enum hop_status cpu_run(void *state, const struct hop_call *g)
{
  const struct hop_cpu_state *st = state;
  /* Guessed before the cap: under it OpenBLAS reports the capped count, and
   * the guess would leave out the share the prediction divides by. */
  double guess = untuned_guess(st, g);
  bool capped;
  hop_cpu_threads_begin(st, &capped); /* off the cores a device engine's copies use */
  bool timed = hop_cpu_learns(g, guess);
  double t0 = timed ? hop_now() : 0.0;
  enum hop_status rc = cpu_call(st, g);
  if (timed && rc == HOP_OK)
    hop_cpu_learn(g, guess, hop_now() - t0);
  hop_cpu_threads_end(st, capped);
  return rc;
}

/* One call of the loaded BLAS (or the reference), as it is: every value of
 * g fits an int (hop_cpu_gemm_sliced cuts calls that do not).  'R' is
 * OpenBLAS's alone (netlib's cgemm rejects it): elsewhere the reference. */
static void blas_gemm_call(const struct hop_cpu_state *st, const struct hop_call *g)
{
  char ta = hop_trans_letter(g->ta), tb = hop_trans_letter(g->tb);
  bool blas_takes = st->takes_r || (g->ta != HOP_TRANS_R && g->tb != HOP_TRANS_R);
  const int m = (int)g->m, n = (int)g->n, k = (int)g->k;
  const int lda = (int)g->lda, ldb = (int)g->ldb, ldc = (int)g->ldc;
  switch (g->dtype) {
  case HOP_DTYPE_S:
    if (st->sgemm != NULL) {
      float alpha = (float)g->alpha.re, beta = (float)g->beta.re;
      st->sgemm(&ta, &tb, &m, &n, &k, &alpha, g->a, &lda, g->b, &ldb, &beta, g->c, &ldc, 1, 1);
    } else {
      hop_ref_sgemm(g->ta, g->tb, g->m, g->n, g->k, (float)g->alpha.re, g->a, g->lda, g->b,
                    g->ldb, (float)g->beta.re, g->c, g->ldc);
    }
    return;
  case HOP_DTYPE_D:
    if (st->dgemm != NULL) {
      st->dgemm(&ta, &tb, &m, &n, &k, &g->alpha.re, g->a, &lda, g->b, &ldb, &g->beta.re, g->c,
                &ldc, 1, 1);
      return;
    }
    break;
  case HOP_DTYPE_C:
    if (st->cgemm != NULL && blas_takes) {
      float alpha[2] = {(float)g->alpha.re, (float)g->alpha.im};
      float beta[2] = {(float)g->beta.re, (float)g->beta.im};
      st->cgemm(&ta, &tb, &m, &n, &k, alpha, g->a, &lda, g->b, &ldb, beta, g->c, &ldc, 1, 1);
      return;
    }
    break;
  case HOP_DTYPE_Z:
    if (st->zgemm != NULL && blas_takes) {
      double alpha[2] = {g->alpha.re, g->alpha.im}, beta[2] = {g->beta.re, g->beta.im};
      st->zgemm(&ta, &tb, &m, &n, &k, alpha, g->a, &lda, g->b, &ldb, beta, g->c, &ldc, 1, 1);
      return;
    }
    break;
  case HOP_DTYPE_H:
  case HOP_DTYPE_SH:
  case HOP_DTYPE_COUNT: return; /* cpu_gemm sends these to half_gemm.c */
  }
  hop_ref_gemm_wide(g);
}

static void blas_gemm(const struct hop_cpu_state *st, const struct hop_call *g)
{
  HOP_BLAS_CALL(blas_gemm_call(st, g)); /* a fork() waits for it */
}

/* How many columns of a matrix with this ld and at most `rows` rows keep
 * every element offset, ld * (cols - 1) + rows - 1, within INT_MAX: at
 * least one, since rows <= INT_MAX. */
static int64_t cols_fitting_int(int64_t ld, int64_t rows)
{
  return (INT_MAX - rows) / ld + 1;
}

static int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

/* The ld a slice passes: its own when it fits an int; else the slice has
 * one column there (cols_fitting_int), and any ld >= its rows will do. */
static int64_t slice_ld(int64_t ld, int64_t rows) { return ld <= INT_MAX ? ld : rows > 1 ? rows : 1; }

void hop_cpu_gemm_sliced(const struct hop_cpu_state *st, const struct hop_call *g)
{
  /* CPU BLAS kernels may index with 32-bit ints (OpenBLAS 0.3.21's
   * COOPERLAKE small-matrix kernels do, and crash), and an LP64 BLAS takes
   * int sizes: cut the call into slices whose sizes and element offsets
   * fit.  A slice of one column of at most INT_MAX rows always fits. */
  if (hop_call_max_dim(g) > INT_MAX && hop_cpu_blas64_gemm(st->blas64, g))
    return; /* whole, on the ILP64 BLAS */
  bool ta = hop_transposed(g->ta), tb = hop_transposed(g->tb);
  int64_t m = g->m, n = g->n, k = g->k;
  int64_t rm = min64(m, INT_MAX), rn = min64(n, INT_MAX), rk = min64(k, INT_MAX);
  int64_t sm = ta ? min64(rm, cols_fitting_int(g->lda, rk)) : rm; /* A^T: k x m stored */
  int64_t sn = min64(min64(rn, cols_fitting_int(g->ldc, rm)), tb ? rn : cols_fitting_int(g->ldb, rk));
  int64_t sk = min64(min64(rk, ta ? rk : cols_fitting_int(g->lda, rm)),
                     tb ? cols_fitting_int(g->ldb, rn) : rk);
  if (sm >= m && sn >= n && sk >= k) {
    blas_gemm(st, g);
    return;
  }
  size_t es = hop_dtype_c_size(g->dtype); /* A, B and C share it for s, d, c, z */
  for (int64_t j = 0; j < n; j += sn)
    for (int64_t i = 0; i < m; i += sm) {
      int64_t p = 0;
      do { /* later k slices accumulate into what the first one wrote */
        struct hop_call s = *g;
        s.m = min64(sm, m - i), s.n = min64(sn, n - j), s.k = min64(sk, k - p);
        s.a = (const char *)g->a + es * (ta ? hop_at(p, i, g->lda) : hop_at(i, p, g->lda));
        s.b = (const char *)g->b + es * (tb ? hop_at(j, p, g->ldb) : hop_at(p, j, g->ldb));
        s.c = (char *)g->c + es * hop_at(i, j, g->ldc);
        s.lda = slice_ld(g->lda, ta ? s.k : s.m);
        s.ldb = slice_ld(g->ldb, tb ? s.n : s.k);
        s.ldc = slice_ld(g->ldc, s.m);
        if (p > 0)
          s.beta = (struct hop_scalar){1.0, 0.0};
        blas_gemm(st, &s);
      } while ((p += sk) < k);
    }
}

void hop_cpu_sgemm(const struct hop_cpu_state *st, bool ta, bool tb, int64_t m, int64_t n,
                   int64_t k, float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                   float beta, float *c, int64_t ldc)
{
  struct hop_call g = {.op = HOP_OP_GEMM, .dtype = HOP_DTYPE_S, .symbol = "cpu",
                       .ta = ta ? HOP_TRANS_T : HOP_TRANS_N, .tb = tb ? HOP_TRANS_T : HOP_TRANS_N,
                       .m = m, .n = n, .k = k, .alpha = {alpha, 0.0}, .beta = {beta, 0.0},
                       .a = a, .lda = lda, .b = b, .ldb = ldb, .c = c, .ldc = ldc};
  hop_cpu_gemm_sliced(st, &g);
}

/* When the library is unloaded: OpenBLAS too (its own destructor joins its threads). */
static void cpu_release(void *state)
{
  struct hop_cpu_state *st = state;
  if (st->handle != NULL)
    dlclose(st->handle);
  hop_cpu_blas64_release(st->blas64);
  *st = (struct hop_cpu_state){0};
}

/* OpenBLAS's own entry points for the fast path; NULL with any other BLAS. */
static void cpu_direct(void *state, struct hop_direct_entries *out)
{
  const struct hop_cpu_state *st = state;
  *out = st->direct;
}

static void cpu_describe(void *state, FILE *out)
{
  const struct hop_cpu_state *st = state;
  char curve[HOP_TUNE_VALUE_MAX];
  if (hop_calib_cpu_describe(false, curve, sizeof curve)) {
    fprintf(out, "    model (calibrated by `hopblas tune`): GFLOPS by size %s\n", curve);
    if (hop_calib_cpu_describe(true, curve, sizeof curve))
      fprintf(out, "    double (d, z) GFLOPS by size %s\n", curve);
    else
      fprintf(out, "    double (d, z): not calibrated; half the float curve\n");
  } else
    fprintf(out, "    model peak (untuned default): %.0f GFLOPS, double (d, z) %.0f; in a program, "
                 "corrected per routine by the calls it runs (guessed or taking 2 ms or more)\n",
            st->peak_gflops, st->peak_gflops / 2.0);
  if (st->sgemm != NULL && st->spin != HOP_CPU_SPIN_UNKNOWN)
    fprintf(out, "    %s\n", hop_cpu_spin_text(st->spin));
  int cap = hop_cpu_threads_cap(st);
  if (cap > 0)
    fprintf(out, "    calls run on at most %d threads: a device engine's copy threads use the other "
                 "%d cores\n", cap, hop_host_cores_reserved());
  hop_cpu_blas64_describe(st->blas64, out);
}

#define HOP_CPU_CZ (HOP_DTYPE_BIT(HOP_DTYPE_C) | HOP_DTYPE_BIT(HOP_DTYPE_Z))
#define HOP_CPU_SDCZ (HOP_DTYPE_BIT(HOP_DTYPE_S) | HOP_DTYPE_BIT(HOP_DTYPE_D) | HOP_CPU_CZ)

const struct hop_backend hop_backend_cpu = {
  .name = "cpu",
  .is_device = false,
  .takes = {[HOP_OP_GEMM] = HOP_DTYPE_BIT(HOP_DTYPE_S) | HOP_DTYPE_BIT(HOP_DTYPE_D) |
                            HOP_DTYPE_BIT(HOP_DTYPE_C) | HOP_DTYPE_BIT(HOP_DTYPE_Z) |
                            HOP_DTYPE_BIT(HOP_DTYPE_H) | HOP_DTYPE_BIT(HOP_DTYPE_SH),
            [HOP_OP_SYMM] = HOP_CPU_SDCZ, [HOP_OP_HEMM] = HOP_CPU_CZ, [HOP_OP_SYRK] = HOP_CPU_SDCZ,
            [HOP_OP_HERK] = HOP_CPU_CZ, [HOP_OP_SYR2K] = HOP_CPU_SDCZ, [HOP_OP_HER2K] = HOP_CPU_CZ,
            [HOP_OP_TRMM] = HOP_CPU_SDCZ, [HOP_OP_TRSM] = HOP_CPU_SDCZ,
            [HOP_OP_GEMMT] = HOP_CPU_SDCZ, [HOP_OP_GEMM_BATCH] = HOP_CPU_SDCZ},
  /* Past the LP64 BLAS's ints: the ILP64 BLAS, else GEMM sliced to its
   * ints (hop_cpu_gemm_sliced) and the other operations on the reference
   * (blas_l3.c). */
  .max_dim = INT64_MAX,
  .fork_safe = true,
  .init = cpu_init,
  .predict = cpu_predict,
  .run = cpu_run,
  .describe = cpu_describe,
  .release = cpu_release,
  .direct = cpu_direct,
  .keys = cpu_keys,
  .tools = &hop_cpu_tools,
};


const char *hop_cpu_blas_name(void)
{
  struct hop_engine_view v;
  hop_engine_get(hop_backend_count - 1, &v);
  return ((const struct hop_cpu_state *)v.state)->name;
}
