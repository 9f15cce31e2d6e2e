/* The tests' table of precisions and the one call through any entry point
 * of any of them (see testutil.h).  A new dtype is a row here, a case in
 * ht_call_invoke and its prototypes in testutil.h. */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

const struct ht_dtype_info ht_dtypes[HT_DTYPE_COUNT] = {
  [HT_S] = {"s", "cblas_sgemm", "sgemm_", NULL, NULL, 4, 4, false, FLT_EPSILON, 0x1p-150},
  [HT_H] = {"h", "cblas_hgemm", "hgemm_", NULL, NULL, 2, 2, false, FLT_EPSILON, 0x1p-150},
  [HT_SH] = {"sh", "cblas_shgemm", NULL, NULL, NULL, 2, 4, false, FLT_EPSILON, 0x1p-150},
  [HT_D] = {"d", "cblas_dgemm", "dgemm_", NULL, NULL, 8, 8, false, DBL_EPSILON, 0x1p-1074},
  [HT_C] = {"c", "cblas_cgemm", "cgemm_", "cblas_cgemm3m", "cgemm3m_", 8, 8, true, FLT_EPSILON,
            0x1p-150},
  [HT_Z] = {"z", "cblas_zgemm", "zgemm_", "cblas_zgemm3m", "zgemm3m_", 16, 16, true, DBL_EPSILON,
            0x1p-1074},
};

bool ht_dtype_parse(const char *name, enum ht_dtype *dt)
{
  for (int d = 0; d < HT_DTYPE_COUNT; d++)
    if (strcmp(name, ht_dtypes[d].name) == 0) {
      *dt = (enum ht_dtype)d;
      return true;
    }
  return false;
}

const char *ht_symbol(enum ht_dtype dt, enum ht_entry e)
{
  const char *s = e == HT_CBLAS ? ht_dtypes[dt].cblas : ht_dtypes[dt].fortran;
  return s != NULL ? s : "(no such entry point)";
}

static const char *lp64_symbol(const struct ht_call *c)
{
  static const char *const bare[HT_DTYPE_COUNT] = {[HT_S] = "sgemm", [HT_D] = "dgemm",
                                                   [HT_C] = "cgemm", [HT_Z] = "zgemm"};
  const struct ht_dtype_info *t = &ht_dtypes[c->dtype];
  if (c->three_m && t->cblas_3m != NULL)
    return c->entry == HT_CBLAS ? t->cblas_3m : t->fortran_3m;
  if (c->entry == HT_FORTRAN && c->no_underscore && bare[c->dtype] != NULL)
    return bare[c->dtype];
  return ht_symbol(c->dtype, c->entry);
}

const char *ht_call_symbol(const struct ht_call *c)
{
  if (c->names == HT_NAMES_LP64)
    return lp64_symbol(c);
  /* The standard name with scipy-openblas's prefix and OpenBLAS's 64_ suffix:
   * cblas_sgemm -> cblas_sgemm64_, sgemm_ -> sgemm_64_. */
  static _Thread_local char name[64];
  struct ht_call std = *c;
  std.no_underscore = false;
  const char *base = lp64_symbol(&std);
  bool scipy = c->names == HT_NAMES_SCIPY || c->names == HT_NAMES_SCIPY64;
  bool wide = c->names == HT_NAMES_ILP64 || c->names == HT_NAMES_SCIPY64;
  const char *suffix = wide ? "64_" : "";
  snprintf(name, sizeof name, "%s%s%s", scipy ? "scipy_" : "", base, suffix);
  return name;
}

static char trans_char(int t, bool lower)
{
  char ch = t == HT_N ? 'N' : t == HT_T ? 'T' : t == HT_CT ? 'C' : 'R';
  return lower ? (char)(ch - 'A' + 'a') : ch;
}

static ht_cblas_xgemm *cblas_complex(const struct ht_call *c)
{
  if (c->dtype == HT_C)
    return c->three_m ? cblas_cgemm3m : cblas_cgemm;
  return c->three_m ? cblas_zgemm3m : cblas_zgemm;
}

static ht_fortran_xgemm *fortran_complex(const struct ht_call *c)
{
  if (c->dtype == HT_C)
    return c->three_m ? cgemm3m_ : c->no_underscore ? cgemm : cgemm_;
  return c->three_m ? zgemm3m_ : c->no_underscore ? zgemm : zgemm_;
}

static void invoke_fortran(const struct ht_call *c)
{
  int lda = c->a.ld, ldb = c->b.ld, ldc = c->c.ld;
  char ta = trans_char(c->ta, c->lower_case), tb = trans_char(c->tb, c->lower_case);
  switch (c->dtype) {
  case HT_S: {
    float al = (float)c->alpha, be = (float)c->beta;
    (c->no_underscore ? sgemm : sgemm_)(&ta, &tb, &c->m, &c->n, &c->k, &al, c->a.p, &lda, c->b.p,
                                        &ldb, &be, c->c.p, &ldc);
    break;
  }
  case HT_D:
    (c->no_underscore ? dgemm : dgemm_)(&ta, &tb, &c->m, &c->n, &c->k, &c->alpha, c->a.p, &lda,
                                        c->b.p, &ldb, &c->beta, c->c.p, &ldc);
    break;
  case HT_C: {
    float al[2] = {(float)c->alpha, (float)c->alpha_im}, be[2] = {(float)c->beta, (float)c->beta_im};
    fortran_complex(c)(&ta, &tb, &c->m, &c->n, &c->k, al, c->a.p, &lda, c->b.p, &ldb, be, c->c.p,
                       &ldc);
    break;
  }
  case HT_Z: {
    double al[2] = {c->alpha, c->alpha_im}, be[2] = {c->beta, c->beta_im};
    fortran_complex(c)(&ta, &tb, &c->m, &c->n, &c->k, al, c->a.p, &lda, c->b.p, &ldb, be, c->c.p,
                       &ldc);
    break;
  }
  case HT_H: {
    hopblas_half al = ht_half_bits(c->alpha), be = ht_half_bits(c->beta);
    hgemm_(&ta, &tb, &c->m, &c->n, &c->k, &al, c->a.p, &lda, c->b.p, &ldb, &be, c->c.p, &ldc);
    break;
  }
  case HT_SH: /* no Fortran shgemm: the callers never ask */
  case HT_DTYPE_COUNT:
    break;
  }
}

void ht_call_invoke(const struct ht_call *c)
{
  int lda = c->a.ld, ldb = c->b.ld, ldc = c->c.ld;
  if (c->names != HT_NAMES_LP64) {
    ht_call_invoke_named(c);
    return;
  }
  if (c->entry == HT_FORTRAN) {
    invoke_fortran(c);
    return;
  }
  switch (c->dtype) {
  case HT_S:
    cblas_sgemm(c->order, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, c->a.p, lda, c->b.p,
                ldb, (float)c->beta, c->c.p, ldc);
    break;
  case HT_D:
    cblas_dgemm(c->order, c->ta, c->tb, c->m, c->n, c->k, c->alpha, c->a.p, lda, c->b.p, ldb,
                c->beta, c->c.p, ldc);
    break;
  case HT_C: {
    float al[2] = {(float)c->alpha, (float)c->alpha_im}, be[2] = {(float)c->beta, (float)c->beta_im};
    cblas_complex(c)(c->order, c->ta, c->tb, c->m, c->n, c->k, al, c->a.p, lda, c->b.p, ldb, be,
                     c->c.p, ldc);
    break;
  }
  case HT_Z: {
    double al[2] = {c->alpha, c->alpha_im}, be[2] = {c->beta, c->beta_im};
    cblas_complex(c)(c->order, c->ta, c->tb, c->m, c->n, c->k, al, c->a.p, lda, c->b.p, ldb, be,
                     c->c.p, ldc);
    break;
  }
  case HT_H:
    cblas_hgemm(c->order, c->ta, c->tb, c->m, c->n, c->k, ht_half_bits(c->alpha), c->a.p, lda,
                c->b.p, ldb, ht_half_bits(c->beta), c->c.p, ldc);
    break;
  case HT_SH:
    cblas_shgemm(c->order, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, c->a.p, lda, c->b.p,
                 ldb, (float)c->beta, c->c.p, ldc);
    break;
  case HT_DTYPE_COUNT:
    break;
  }
}
