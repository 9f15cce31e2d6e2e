/* A call through names other than the standard LP64 ones (testutil.h's
 * enum ht_names): looked up at run time, so that a test program links
 * against nothing but the standard names and still reaches every form the
 * library exports.  The ILP64 forms get their integers as int64_t. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static const char *const names_words[HT_NAMES_COUNT] = {"lp64", "ilp64", "scipy", "scipy64"};

bool ht_names_parse(const char *word, enum ht_names *out)
{
  for (int i = 0; i < HT_NAMES_COUNT; i++)
    if (strcmp(word, names_words[i]) == 0) {
      *out = (enum ht_names)i;
      return true;
    }
  return false;
}

static char trans_char(int t, bool lower)
{
  char ch = t == HT_N ? 'N' : t == HT_T ? 'T' : t == HT_CT ? 'C' : 'R';
  return lower ? (char)(ch - 'A' + 'a') : ch;
}

/* The scalars as the entry point takes them: float or double (by value for
 * real CBLAS calls), (re, im) pairs for complex, half bits for h. */
struct scalars {
  float f[2][2];
  double d[2][2];
  hopblas_half h[2];
  const void *alpha, *beta; /* the pointer form */
};

static void scalars_of(const struct ht_call *c, struct scalars *s)
{
  double v[2][2] = {{c->alpha, c->alpha_im}, {c->beta, c->beta_im}};
  for (int i = 0; i < 2; i++) {
    s->f[i][0] = (float)v[i][0], s->f[i][1] = (float)v[i][1];
    s->d[i][0] = v[i][0], s->d[i][1] = v[i][1];
    s->h[i] = ht_half_bits(v[i][0]);
  }
  bool dbl = c->dtype == HT_D || c->dtype == HT_Z;
  s->alpha = c->dtype == HT_H ? (const void *)&s->h[0] : dbl ? (const void *)s->d[0] : s->f[0];
  s->beta = c->dtype == HT_H ? (const void *)&s->h[1] : dbl ? (const void *)s->d[1] : s->f[1];
}

/* One invoker per integer width: the same code, int or int64_t. */
#define HT_DEFINE_INVOKE(TAG, INT)                                                              \
  typedef void TAG##_cblas_s(int, int, int, INT, INT, INT, float, const void *, INT,          \
                             const void *, INT, float, void *, INT);                            \
  typedef void TAG##_cblas_d(int, int, int, INT, INT, INT, double, const void *, INT,         \
                             const void *, INT, double, void *, INT);                           \
  typedef void TAG##_cblas_x(int, int, int, INT, INT, INT, const void *, const void *, INT,   \
                             const void *, INT, const void *, void *, INT);                     \
  typedef void TAG##_cblas_h(int, int, int, INT, INT, INT, hopblas_half, const void *, INT,   \
                             const void *, INT, hopblas_half, void *, INT);                     \
  typedef void TAG##_f77(const char *, const char *, const INT *, const INT *, const INT *,    \
                         const void *, const void *, const INT *, const void *, const INT *,  \
                         const void *, void *, const INT *);                                    \
  static void invoke_##TAG(const struct ht_call *c, void *fn)                                   \
  {                                                                                             \
    INT m = c->m, n = c->n, k = c->k, lda = c->a.ld, ldb = c->b.ld, ldc = c->c.ld;             \
    struct scalars s;                                                                           \
    scalars_of(c, &s);                                                                          \
    if (c->entry == HT_FORTRAN) {                                                               \
      char ta = trans_char(c->ta, c->lower_case), tb = trans_char(c->tb, c->lower_case);       \
      ((TAG##_f77 *)fn)(&ta, &tb, &m, &n, &k, s.alpha, c->a.p, &lda, c->b.p, &ldb, s.beta,     \
                        c->c.p, &ldc);                                                          \
      return;                                                                                   \
    }                                                                                           \
    switch (c->dtype) {                                                                         \
    case HT_S:                                                                                  \
    case HT_SH:                                                                                 \
      ((TAG##_cblas_s *)fn)(c->order, c->ta, c->tb, m, n, k, s.f[0][0], c->a.p, lda, c->b.p,   \
                            ldb, s.f[1][0], c->c.p, ldc);                                       \
      return;                                                                                   \
    case HT_D:                                                                                  \
      ((TAG##_cblas_d *)fn)(c->order, c->ta, c->tb, m, n, k, s.d[0][0], c->a.p, lda, c->b.p,   \
                            ldb, s.d[1][0], c->c.p, ldc);                                       \
      return;                                                                                   \
    case HT_C:                                                                                  \
    case HT_Z:                                                                                  \
      ((TAG##_cblas_x *)fn)(c->order, c->ta, c->tb, m, n, k, s.alpha, c->a.p, lda, c->b.p,     \
                            ldb, s.beta, c->c.p, ldc);                                          \
      return;                                                                                   \
    case HT_H:                                                                                  \
      ((TAG##_cblas_h *)fn)(c->order, c->ta, c->tb, m, n, k, s.h[0], c->a.p, lda, c->b.p, ldb, \
                            s.h[1], c->c.p, ldc);                                               \
      return;                                                                                   \
    case HT_DTYPE_COUNT:                                                                        \
      return;                                                                                   \
    }                                                                                           \
  }

HT_DEFINE_INVOKE(lp64, int)
HT_DEFINE_INVOKE(ilp64, int64_t)

void ht_call_invoke_named(const struct ht_call *c)
{
  const char *name = ht_call_symbol(c);
  void *fn = dlsym(RTLD_DEFAULT, name);
  if (fn == NULL) {
    /* A missing export: the contract then finds C untouched and says so. */
    fprintf(stderr, "testutil: the library exports no %s\n", name);
    return;
  }
  if (c->names == HT_NAMES_ILP64 || c->names == HT_NAMES_SCIPY64)
    invoke_ilp64(c, fn);
  else
    invoke_lp64(c, fn);
}
