/* The Level-3 routines other than GEMM on the CPU: the loaded BLAS's own
 * (OpenBLAS's ssymm_, ..., ztrsm_, found by name when it loads), else the
 * built-in reference (ref_l3.c). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>

#include "cpu.h"

/* Their Fortran interfaces; complex and real scalars alike by pointer.
 * Integers by pointer too: int for the LP64 BLAS, int64_t for the ILP64
 * one, so one caller serves both. */
typedef const void *intp;
typedef void (*symm_fn)(const char *, const char *, intp, intp, const void *, const void *, intp,
                        const void *, intp, const void *, void *, intp, size_t, size_t);
typedef void (*syrk_fn)(const char *, const char *, intp, intp, const void *, const void *, intp,
                        const void *, void *, intp, size_t, size_t);
typedef void (*syr2k_fn)(const char *, const char *, intp, intp, const void *, const void *, intp,
                         const void *, intp, const void *, void *, intp, size_t, size_t);
typedef void (*trmm_fn)(const char *, const char *, const char *, const char *, intp, intp,
                        const void *, const void *, intp, void *, intp, size_t, size_t, size_t,
                        size_t);

/* Which precisions a routine has: symmetric ones all four, Hermitian ones c and z. */
static bool has(enum hop_op op, enum hop_dtype dt)
{
  bool cx = dt == HOP_DTYPE_C || dt == HOP_DTYPE_Z;
  switch (op) {
  case HOP_OP_SYMM:
  case HOP_OP_SYRK:
  case HOP_OP_SYR2K:
  case HOP_OP_TRMM:
  case HOP_OP_TRSM: return cx || dt == HOP_DTYPE_S || dt == HOP_DTYPE_D;
  case HOP_OP_HEMM:
  case HOP_OP_HERK:
  case HOP_OP_HER2K: return cx;
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT: /* cpu.c and gemmt.c */
  case HOP_OP_GEMM_BATCH: /* batch.c */
  case HOP_OP_COUNT: break;
  }
  return false;
}

void hop_cpu_l3_load(hop_blas_fn l3[HOP_OP_COUNT][HOP_DTYPE_COUNT], void *handle)
{
  for (int op = 0; op < HOP_OP_COUNT; op++)
    for (int dt = 0; dt < HOP_DTYPE_COUNT; dt++) {
      if (!has((enum hop_op)op, (enum hop_dtype)dt))
        continue;
      char name[16];
      snprintf(name, sizeof name, "%s%s_", hop_dtype_name((enum hop_dtype)dt),
               hop_op_name((enum hop_op)op));
      l3[op][dt] = (hop_blas_fn)dlsym(handle, name);
    }
}

/* A scalar of dtype dt (real: re alone) as the BLAS takes it, by pointer. */
struct scalar {
  union {
    float f[2];
    double d[2];
  } v;
};

static const void *scalar(enum hop_dtype dt, bool real, struct hop_scalar s, struct scalar *out)
{
  bool dbl = dt == HOP_DTYPE_D || dt == HOP_DTYPE_Z;
  if (dbl)
    out->v.d[0] = s.re, out->v.d[1] = real ? 0.0 : s.im;
  else
    out->v.f[0] = (float)s.re, out->v.f[1] = real ? 0.0f : (float)s.im;
  return out->v.f;
}

/* The call's six integers, as the BLAS that runs it takes them. */
struct ints {
  int i32[6];
  int64_t i64[6];
  bool wide;
};
enum { M, N, K, LDA, LDB, LDC };

static intp at(const struct ints *x, int i) { return x->wide ? (intp)&x->i64[i] : (intp)&x->i32[i]; }

/* g through fn, a Fortran routine of the BLAS whose integers are as x's. */
static void run(hop_blas_fn fn, const struct hop_call *g, struct ints *x)
{
  int64_t v[6] = {g->m, g->n, g->k, g->lda, g->ldb, g->ldc};
  for (int i = 0; i < 6; i++)
    x->i64[i] = v[i], x->i32[i] = x->wide ? 0 : (int)v[i]; /* narrow only when they fit */
  char side = g->right_side ? 'R' : 'L', uplo = g->upper ? 'U' : 'L';
  char diag = g->unit_diag ? 'U' : 'N', ta = hop_trans_letter(g->ta);
  bool herm = g->op == HOP_OP_HERK || g->op == HOP_OP_HER2K;
  struct scalar al, be;
  const void *alpha = scalar(g->dtype, g->op == HOP_OP_HERK, g->alpha, &al);
  const void *beta = scalar(g->dtype, herm, g->beta, &be);
  switch (g->op) {
  case HOP_OP_SYMM:
  case HOP_OP_HEMM:
    ((symm_fn)fn)(&side, &uplo, at(x, M), at(x, N), alpha, g->a, at(x, LDA), g->b, at(x, LDB),
                  beta, g->c, at(x, LDC), 1, 1);
    return;
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
    ((syrk_fn)fn)(&uplo, &ta, at(x, N), at(x, K), alpha, g->a, at(x, LDA), beta, g->c,
                  at(x, LDC), 1, 1);
    return;
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K:
    ((syr2k_fn)fn)(&uplo, &ta, at(x, N), at(x, K), alpha, g->a, at(x, LDA), g->b, at(x, LDB),
                   beta, g->c, at(x, LDC), 1, 1);
    return;
  case HOP_OP_TRMM:
  case HOP_OP_TRSM:
    ((trmm_fn)fn)(&side, &uplo, &ta, &diag, at(x, M), at(x, N), alpha, g->a, at(x, LDA), g->c,
                  at(x, LDC), 1, 1, 1, 1);
    return;
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT: /* cpu.c and gemmt.c */
  case HOP_OP_GEMM_BATCH: /* batch.c */
  case HOP_OP_COUNT: break;
  }
  hop_ref_l3(g);
}

void hop_cpu_l3(const struct hop_cpu_state *st, const struct hop_call *g)
{
  /* Sizes past the LP64 BLAS's ints (ILP64 calls) go to the ILP64 BLAS,
   * else to the reference: never narrowed.  'R' is OpenBLAS's alone
   * (netlib's trmm and trsm reject it). */
  struct ints x = {.wide = hop_call_max_dim(g) > INT_MAX};
  hop_blas_fn fn = x.wide ? hop_cpu_blas64_l3(st->blas64, g) : st->l3[g->op][g->dtype];
  if (fn == NULL || (!st->takes_r && !x.wide && g->ta == HOP_TRANS_R))
    hop_ref_l3(g);
  else
    HOP_BLAS_CALL(run(fn, g, &x)); /* a fork() waits for it */
}
