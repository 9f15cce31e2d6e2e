/* One call of gemmt or of a batched GEMM through any of its entry points,
 * LP64 or ILP64 (the 64_ names: every integer argument 64-bit), with the
 * scalars by pointer as gx_scalar_ptr stores them. */
#include <stdlib.h>

#include "gemmx.h"

/* The no-underscore Fortran names (hopblas.h declares the others). */
void sgemmt(const char *, const char *, const char *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *);
void dgemmt(const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *);
void cgemmt(const char *, const char *, const char *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *);
void zgemmt(const char *, const char *, const char *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *);

typedef void f77_fn(const char *, const char *, const char *, const int *, const int *,
                    const void *, const void *, const int *, const void *, const int *,
                    const void *, void *, const int *);
typedef void f77_64_fn(const char *, const char *, const char *, const int64_t *, const int64_t *,
                       const void *, const void *, const int64_t *, const void *,
                       const int64_t *, const void *, void *, const int64_t *);

static void fortran(enum ht_dtype dt, const struct gx_entry *e, const char *uplo, const char *ta,
                    const char *tb, int64_t n, int64_t k, const void *alpha, const void *a,
                    int64_t lda, const void *b, int64_t ldb, const void *beta, void *c,
                    int64_t ldc)
{
  if (e->ilp64) {
    static f77_64_fn *const t64[2][HT_DTYPE_COUNT] = {
      {[HT_S] = (f77_64_fn *)sgemmt_64_, [HT_D] = (f77_64_fn *)dgemmt_64_, [HT_C] = cgemmt_64_,
       [HT_Z] = zgemmt_64_},
      {[HT_S] = (f77_64_fn *)sgemmtr_64_, [HT_D] = (f77_64_fn *)dgemmtr_64_,
       [HT_C] = cgemmtr_64_, [HT_Z] = zgemmtr_64_}};
    t64[e->tr][dt](uplo, ta, tb, &n, &k, alpha, a, &lda, b, &ldb, beta, c, &ldc);
    return;
  }
  static f77_fn *const t[3][HT_DTYPE_COUNT] = {
    {[HT_S] = (f77_fn *)sgemmt_, [HT_D] = (f77_fn *)dgemmt_, [HT_C] = cgemmt_, [HT_Z] = zgemmt_},
    {[HT_S] = (f77_fn *)sgemmtr_, [HT_D] = (f77_fn *)dgemmtr_, [HT_C] = cgemmtr_,
     [HT_Z] = zgemmtr_},
    {[HT_S] = (f77_fn *)sgemmt, [HT_D] = (f77_fn *)dgemmt, [HT_C] = cgemmt, [HT_Z] = zgemmt}};
  int ni = (int)n, ki = (int)k, la = (int)lda, lb = (int)ldb, lc = (int)ldc;
  t[e->bare ? 2 : e->tr][dt](uplo, ta, tb, &ni, &ki, alpha, a, &la, b, &lb, beta, c, &lc);
}

static char uplo_char(int u) { return u == GX_UPPER ? 'U' : u == GX_LOWER ? 'l' : 'X'; }
static char trans_char(int t)
{
  return t == HT_N ? 'N' : t == HT_T ? 'T' : t == HT_CT ? 'C' : t == HT_CN ? 'R' : 'X';
}

void gx_gemmt_call(enum ht_dtype dt, const struct gx_entry *e, int order, int uplo, int ta, int tb,
                   int64_t n, int64_t k, const void *alpha, const void *a, int64_t lda,
                   const void *b, int64_t ldb, const void *beta, void *c, int64_t ldc)
{
  if (e->fortran) {
    char u = uplo_char(uplo), ca = trans_char(ta), cb = trans_char(tb);
    fortran(dt, e, &u, &ca, &cb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  bool tr = e->tr;
  int ni = (int)n, ki = (int)k, la = (int)lda, lb = (int)ldb, lc = (int)ldc;
  switch (dt) {
  case HT_S: {
    float al = *(const float *)alpha, be = *(const float *)beta;
    if (e->ilp64)
      (tr ? cblas_sgemmtr64_ : cblas_sgemmt64_)(order, uplo, ta, tb, n, k, al, a, lda, b, ldb, be,
                                                c, ldc);
    else
      (tr ? cblas_sgemmtr : cblas_sgemmt)(order, uplo, ta, tb, ni, ki, al, a, la, b, lb, be, c, lc);
    break;
  }
  case HT_D: {
    double al = *(const double *)alpha, be = *(const double *)beta;
    if (e->ilp64)
      (tr ? cblas_dgemmtr64_ : cblas_dgemmt64_)(order, uplo, ta, tb, n, k, al, a, lda, b, ldb, be,
                                                c, ldc);
    else
      (tr ? cblas_dgemmtr : cblas_dgemmt)(order, uplo, ta, tb, ni, ki, al, a, la, b, lb, be, c, lc);
    break;
  }
  case HT_C:
    if (e->ilp64)
      (tr ? cblas_cgemmtr64_ : cblas_cgemmt64_)(order, uplo, ta, tb, n, k, alpha, a, lda, b, ldb,
                                                beta, c, ldc);
    else
      (tr ? cblas_cgemmtr : cblas_cgemmt)(order, uplo, ta, tb, ni, ki, alpha, a, la, b, lb, beta,
                                          c, lc);
    break;
  case HT_Z:
    if (e->ilp64)
      (tr ? cblas_zgemmtr64_ : cblas_zgemmt64_)(order, uplo, ta, tb, n, k, alpha, a, lda, b, ldb,
                                                beta, c, ldc);
    else
      (tr ? cblas_zgemmtr : cblas_zgemmt)(order, uplo, ta, tb, ni, ki, alpha, a, la, b, lb, beta,
                                          c, lc);
    break;
  default: break;
  }
}

void gx_batch_call(enum ht_dtype dt, bool ilp64, int order, const int *ta, const int *tb,
                   const int64_t *m, const int64_t *n, const int64_t *k, const void *alpha,
                   const void **a, const int64_t *lda, const void **b, const int64_t *ldb,
                   const void *beta, void **c, const int64_t *ldc, int64_t groups,
                   const int64_t *size)
{
  if (ilp64) {
    switch (dt) {
    case HT_S:
      cblas_sgemm_batch64_(order, ta, tb, m, n, k, alpha, (const float **)a, lda,
                           (const float **)b, ldb, beta, (float **)c, ldc, groups, size);
      break;
    case HT_D:
      cblas_dgemm_batch64_(order, ta, tb, m, n, k, alpha, (const double **)a, lda,
                           (const double **)b, ldb, beta, (double **)c, ldc, groups, size);
      break;
    case HT_C:
      cblas_cgemm_batch64_(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, groups,
                           size);
      break;
    case HT_Z:
      cblas_zgemm_batch64_(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, groups,
                           size);
      break;
    default: break;
    }
    return;
  }
  /* LP64: the same arrays as ints (none when there are no groups). */
  int64_t g = groups > 0 ? groups : 0;
  int *mi = malloc(7 * (size_t)(g > 0 ? g : 1) * sizeof *mi);
  if (mi == NULL)
    return;
  int *ni = mi + g, *ki = ni + g, *la = ki + g, *lb = la + g, *lc = lb + g, *si = lc + g;
  for (int64_t i = 0; i < g; i++)
    mi[i] = (int)m[i], ni[i] = (int)n[i], ki[i] = (int)k[i], la[i] = (int)lda[i],
    lb[i] = (int)ldb[i], lc[i] = (int)ldc[i], si[i] = (int)size[i];
  bool none = groups <= 0 && m == NULL; /* the caller's NULL arrays, passed as they are */
#define ARR(x) (none ? NULL : (x))
  switch (dt) {
  case HT_S:
    cblas_sgemm_batch(order, ta, tb, ARR(mi), ARR(ni), ARR(ki), alpha, (const float **)a, ARR(la),
                      (const float **)b, ARR(lb), beta, (float **)c, ARR(lc), (int)groups,
                      ARR(si));
    break;
  case HT_D:
    cblas_dgemm_batch(order, ta, tb, ARR(mi), ARR(ni), ARR(ki), alpha, (const double **)a, ARR(la),
                      (const double **)b, ARR(lb), beta, (double **)c, ARR(lc), (int)groups,
                      ARR(si));
    break;
  case HT_C:
    cblas_cgemm_batch(order, ta, tb, ARR(mi), ARR(ni), ARR(ki), alpha, a, ARR(la), b, ARR(lb),
                      beta, c, ARR(lc), (int)groups, ARR(si));
    break;
  case HT_Z:
    cblas_zgemm_batch(order, ta, tb, ARR(mi), ARR(ni), ARR(ki), alpha, a, ARR(la), b, ARR(lb),
                      beta, c, ARR(lc), (int)groups, ARR(si));
    break;
  default: break;
  }
#undef ARR
  free(mi);
}

void gx_strided_call(enum ht_dtype dt, bool ilp64, int order, int ta, int tb, int64_t m,
                     int64_t n, int64_t k, const void *alpha, const void *a, int64_t lda,
                     int64_t sa, const void *b, int64_t ldb, int64_t sb, const void *beta,
                     void *c, int64_t ldc, int64_t sc, int64_t count)
{
  int mi = (int)m, ni = (int)n, ki = (int)k, la = (int)lda, lb = (int)ldb, lc = (int)ldc;
  int si = (int)sa, sj = (int)sb, sk = (int)sc, cnt = (int)count;
  switch (dt) {
  case HT_S: {
    float al = *(const float *)alpha, be = *(const float *)beta;
    if (ilp64)
      cblas_sgemm_batch_strided64_(order, ta, tb, m, n, k, al, a, lda, sa, b, ldb, sb, be, c, ldc,
                                   sc, count);
    else
      cblas_sgemm_batch_strided(order, ta, tb, mi, ni, ki, al, a, la, si, b, lb, sj, be, c, lc,
                                sk, cnt);
    break;
  }
  case HT_D: {
    double al = *(const double *)alpha, be = *(const double *)beta;
    if (ilp64)
      cblas_dgemm_batch_strided64_(order, ta, tb, m, n, k, al, a, lda, sa, b, ldb, sb, be, c, ldc,
                                   sc, count);
    else
      cblas_dgemm_batch_strided(order, ta, tb, mi, ni, ki, al, a, la, si, b, lb, sj, be, c, lc,
                                sk, cnt);
    break;
  }
  case HT_C:
    if (ilp64)
      cblas_cgemm_batch_strided64_(order, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta,
                                   c, ldc, sc, count);
    else
      cblas_cgemm_batch_strided(order, ta, tb, mi, ni, ki, alpha, a, la, si, b, lb, sj, beta, c,
                                lc, sk, cnt);
    break;
  case HT_Z:
    if (ilp64)
      cblas_zgemm_batch_strided64_(order, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta,
                                   c, ldc, sc, count);
    else
      cblas_zgemm_batch_strided(order, ta, tb, mi, ni, ki, alpha, a, la, si, b, lb, sj, beta, c,
                                lc, sk, cnt);
    break;
  default: break;
  }
}
