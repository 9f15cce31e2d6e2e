/* The Level-3 routines other than GEMM on the CPU: the loaded BLAS's own
 * (OpenBLAS's ssymm_, ..., ztrsm_, found by name when it loads), else the
 * built-in reference (ref_l3.c). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>

#include "cpu.h"

/* Their Fortran interfaces; complex and real scalars alike by pointer. */
typedef void (*symm_fn)(const char *, const char *, const int *, const int *, const void *,
                        const void *, const int *, const void *, const int *, const void *, void *,
                        const int *, size_t, size_t);
typedef void (*syrk_fn)(const char *, const char *, const int *, const int *, const void *,
                        const void *, const int *, const void *, void *, const int *, size_t,
                        size_t);
typedef void (*syr2k_fn)(const char *, const char *, const int *, const int *, const void *,
                         const void *, const int *, const void *, const int *, const void *,
                         void *, const int *, size_t, size_t);
typedef void (*trmm_fn)(const char *, const char *, const char *, const char *, const int *,
                        const int *, const void *, const void *, const int *, void *, const int *,
                        size_t, size_t, size_t, size_t);

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

void hop_cpu_l3_load(struct hop_cpu_state *st, void *handle)
{
  for (int op = 0; op < HOP_OP_COUNT; op++)
    for (int dt = 0; dt < HOP_DTYPE_COUNT; dt++) {
      if (!has((enum hop_op)op, (enum hop_dtype)dt))
        continue;
      char name[16];
      snprintf(name, sizeof name, "%s%s_", hop_dtype_name((enum hop_dtype)dt),
               hop_op_name((enum hop_op)op));
      st->l3[op][dt] = (hop_blas_fn)dlsym(handle, name);
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

void hop_cpu_l3(const struct hop_cpu_state *st, const struct hop_call *g)
{
  hop_blas_fn fn = st->l3[g->op][g->dtype];
  /* 'R' is OpenBLAS's alone (netlib's trmm and trsm reject it); sizes
   * past the BLAS's ints (ILP64 calls) go to the reference too. */
  if (fn == NULL || (!st->takes_r && g->ta == HOP_TRANS_R) || hop_call_max_dim(g) > INT_MAX) {
    hop_ref_l3(g);
    return;
  }
  /* The loaded BLAS takes ints (LP64): the call's dimensions fit, as checked above. */
  int m = (int)g->m, n = (int)g->n, k = (int)g->k;
  int lda = (int)g->lda, ldb = (int)g->ldb, ldc = (int)g->ldc;
  char side = g->right_side ? 'R' : 'L', uplo = g->upper ? 'U' : 'L';
  char diag = g->unit_diag ? 'U' : 'N', ta = hop_trans_letter(g->ta);
  bool herm = g->op == HOP_OP_HERK || g->op == HOP_OP_HER2K;
  struct scalar al, be;
  const void *alpha = scalar(g->dtype, g->op == HOP_OP_HERK, g->alpha, &al);
  const void *beta = scalar(g->dtype, herm, g->beta, &be);
  switch (g->op) {
  case HOP_OP_SYMM:
  case HOP_OP_HEMM:
    ((symm_fn)fn)(&side, &uplo, &m, &n, alpha, g->a, &lda, g->b, &ldb, beta, g->c,
                  &ldc, 1, 1);
    return;
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
    ((syrk_fn)fn)(&uplo, &ta, &n, &k, alpha, g->a, &lda, beta, g->c, &ldc, 1, 1);
    return;
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K:
    ((syr2k_fn)fn)(&uplo, &ta, &n, &k, alpha, g->a, &lda, g->b, &ldb, beta, g->c,
                   &ldc, 1, 1);
    return;
  case HOP_OP_TRMM:
  case HOP_OP_TRSM:
    ((trmm_fn)fn)(&side, &uplo, &ta, &diag, &m, &n, alpha, g->a, &lda, g->c, &ldc, 1,
                  1, 1, 1);
    return;
  case HOP_OP_GEMM:
  case HOP_OP_GEMMT: /* cpu.c and gemmt.c */
  case HOP_OP_GEMM_BATCH: /* batch.c */
  case HOP_OP_COUNT: break;
  }
  hop_ref_l3(g);
}
