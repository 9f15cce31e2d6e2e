/* The CPU engine's ILP64 BLAS: an OpenBLAS built with 64-bit integers
 * (USE64BITINT: Debian's libopenblas64, whose names are the plain ones),
 * loaded privately like the LP64 one, but only on the first call with a
 * size or leading dimension beyond an int: most processes never need it,
 * and an OpenBLAS starts its threads when it is loaded. */
#include "config.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#include "cpu.h"

enum { B64_UNLOADED, B64_LOADING, B64_READY, B64_OFF };

static struct hop_cpu_blas64 blas64;

static const char *const default_paths[] = {
  HOP_DEFAULT_CPU_BLAS64,
  "/usr/lib/" HOP_MULTIARCH "/openblas64-pthread/libopenblas64.so.0",
  "/usr/lib/" HOP_MULTIARCH "/openblas64-openmp/libopenblas64.so.0",
  "/usr/lib/" HOP_MULTIARCH "/openblas64-serial/libopenblas64.so.0",
  NULL,
};

struct hop_cpu_blas64 *hop_cpu_blas64_reset(bool off)
{
  blas64.handle = NULL;
  memset(blas64.gemm, 0, sizeof blas64.gemm);
  memset(blas64.l3, 0, sizeof blas64.l3);
  snprintf(blas64.name, sizeof blas64.name, "none");
  atomic_store(&blas64.state, off ? B64_OFF : B64_UNLOADED);
  return &blas64;
}

/* Load one candidate; false (with why) unless it is an ILP64 OpenBLAS: an
 * LP64 one would read the low halves of the sizes, silently. */
static bool try_load(struct hop_cpu_blas64 *b, const char *path, char *why, size_t why_len)
{
  void *h = hop_cpu_dlopen(path, why, why_len, NULL);
  if (h == NULL)
    return false;
  const char *(*config)(void) = (const char *(*)(void))dlsym(h, "openblas_get_config");
  hop_f77_gemm64_fn s = (hop_f77_gemm64_fn)dlsym(h, "sgemm_");
  if (config == NULL || s == NULL || hop_cpu_is_self((void *)s))
    snprintf(why, why_len, "%s is not an OpenBLAS", path);
  else if (strstr(config(), "USE64BITINT") == NULL)
    snprintf(why, why_len, "%s is an LP64 OpenBLAS (32-bit integers)", path);
  else {
    b->handle = h;
    b->gemm[HOP_DTYPE_S] = s;
    b->gemm[HOP_DTYPE_D] = (hop_f77_gemm64_fn)dlsym(h, "dgemm_");
    b->gemm[HOP_DTYPE_C] = (hop_f77_gemm64_fn)dlsym(h, "cgemm_");
    b->gemm[HOP_DTYPE_Z] = (hop_f77_gemm64_fn)dlsym(h, "zgemm_");
    hop_cpu_l3_load(b->l3, h);
    hop_cpu_lib_name(h, path, b->name, sizeof b->name);
    return true;
  }
  dlclose(h);
  return false;
}

static bool load(struct hop_cpu_blas64 *b)
{
  const char *asked = hop_cpu_asked_path("HOPBLAS_CPU_BLAS64");
  if (strcmp(asked, "none") == 0) {
    hop_log(2, "cpu: HOPBLAS_CPU_BLAS64=none: calls beyond 32 bits are cut into slices for the "
               "LP64 BLAS (GEMM) or run on the built-in reference (the other routines)");
    return false;
  }
  char last[512] = "";
  if (asked[0] != '\0' && !try_load(b, asked, last, sizeof last))
    hop_log(1, "HOPBLAS_CPU_BLAS64: %s; trying the default ILP64 OpenBLAS", last);
  for (size_t i = 0; b->handle == NULL && default_paths[i] != NULL; i++)
    try_load(b, default_paths[i], last, sizeof last);
  if (b->handle == NULL) {
    hop_log(asked[0] != '\0' ? 1 : 2,
            "no ILP64 OpenBLAS found (last tried %s); calls beyond 32 bits are cut into slices "
            "for the LP64 BLAS (GEMM) or run on the built-in reference (the other routines)", last);
    return false;
  }
  hop_log(2, "cpu: %s runs the calls beyond 32 bits", b->name);
  return true;
}

/* Is the ILP64 BLAS loaded?  The first caller loads it. */
static bool ready(struct hop_cpu_blas64 *b)
{
  int state = atomic_load(&b->state);
  if (state == B64_UNLOADED) {
    if (atomic_compare_exchange_strong(&b->state, &state, B64_LOADING)) {
      state = load(b) ? B64_READY : B64_OFF;
      atomic_store(&b->state, state);
    }
  }
  return state == B64_READY;
}

hop_blas_fn hop_cpu_blas64_l3(struct hop_cpu_blas64 *b, const struct hop_call *g)
{
  return ready(b) ? b->l3[g->op][g->dtype] : NULL;
}

bool hop_cpu_blas64_gemm(struct hop_cpu_blas64 *b, const struct hop_call *g)
{
  if (!ready(b) || b->gemm[g->dtype] == NULL)
    return false;
  char ta = hop_trans_letter(g->ta), tb = hop_trans_letter(g->tb);
  double alpha[2], beta[2]; /* as C's type: float, double, or their (re, im) pairs */
  hop_dtype_store(g->dtype, alpha, 0, g->alpha);
  hop_dtype_store(g->dtype, beta, 0, g->beta);
  HOP_BLAS_CALL(b->gemm[g->dtype](&ta, &tb, &g->m, &g->n, &g->k, alpha, g->a, &g->lda, g->b,
                                  &g->ldb, beta, g->c, &g->ldc, 1, 1)); /* a fork() waits for it */
  return true;
}

void hop_cpu_blas64_describe(const struct hop_cpu_blas64 *b, FILE *out)
{
  int state = atomic_load(&b->state);
  fprintf(out, "    calls beyond 32 bits: %s\n",
          state == B64_READY    ? b->name
          : state == B64_OFF    ? "GEMM cut into slices for the LP64 BLAS, the rest on the reference (no ILP64 OpenBLAS)"
                                : "an ILP64 OpenBLAS, loaded on the first such call");
}

void hop_cpu_blas64_release(struct hop_cpu_blas64 *b)
{
  if (atomic_load(&b->state) == B64_READY && b->handle != NULL)
    dlclose(b->handle);
  hop_cpu_blas64_reset(true);
}
