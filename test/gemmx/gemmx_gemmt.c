/* gemmt through every entry point (cblas_?gemmt, cblas_?gemmtr, ?gemmt_,
 * ?gemmtr_, ?gemmt; or their ILP64 names) in both orders, both triangles, every transpose pair:
 * the owned triangle against the reference, every other byte of C's buffer
 * (the other triangle holds NaN, the guards a sentinel) untouched, A and B
 * untouched; beta == 0 with NaN in the owned triangle, alpha == 0 with NaN
 * in A and B, k == 0 and n == 0. */
#include <string.h>

#include "gemmx.h"

/* The entry points, LP64 or ILP64 names. */
static const struct entry {
  const char *name; /* ? for the precision */
  struct gx_entry e;
} lp64[] = {{"cblas_?gemmt", {false, false, false, false}},
            {"cblas_?gemmtr", {false, true, false, false}},
            {"?gemmt_", {true, false, false, false}},
            {"?gemmtr_", {true, true, false, false}},
            {"?gemmt", {true, false, true, false}}},
  ilp64[] = {{"cblas_?gemmt64_", {false, false, false, true}},
             {"cblas_?gemmtr64_", {false, true, false, true}},
             {"?gemmt_64_", {true, false, false, true}},
             {"?gemmtr_64_", {true, true, false, true}}};

static char trans_char(int t) { return t == HT_N ? 'N' : t == HT_T ? 'T' : t == HT_CT ? 'C' : 'R'; }

struct call {
  enum ht_dtype dt;
  const struct gx_entry *e;
  int order, uplo, ta, tb, n, k;
  struct gx_scalar alpha, beta;
  struct ht_mat a, b, c;
};

static void invoke(struct call *c)
{
  unsigned char al[16], be[16];
  const void *pa = gx_scalar_ptr(c->dt, c->alpha, al), *pb = gx_scalar_ptr(c->dt, c->beta, be);
  gx_gemmt_call(c->dt, c->e, c->order, c->uplo, c->ta, c->tb, c->n, c->k, pa, c->a.p, c->a.ld,
                c->b.p, c->b.ld, pb, c->c.p, c->c.ld);
}

static bool owned(const void *arg, int i, int j)
{
  const struct call *c = arg;
  return c->uplo == GX_UPPER ? i <= j : i >= j;
}

/* One call: allocate, fill, run, check; false with why. */
static bool one(struct call *c, struct ht_rng *r, int pad, int off, char *why, size_t len)
{
  bool row = c->order == HT_ROW, at = c->ta == HT_T || c->ta == HT_CT,
       bt = c->tb == HT_T || c->tb == HT_CT;
  int ar = at ? c->k : c->n, ac = at ? c->n : c->k, br = bt ? c->n : c->k, bc = bt ? c->k : c->n;
  int lda = (row ? ac : ar) + pad, ldb = (row ? bc : br) + pad, ldc = c->n + pad;
  lda = lda < 1 ? 1 : lda, ldb = ldb < 1 ? 1 : ldb, ldc = ldc < 1 ? 1 : ldc;
  bool ok = gx_alloc(&c->a, c->dt, ar, ac, lda, row, off) &&
            gx_alloc(&c->b, c->dt, br, bc, ldb, row, off + 1) &&
            gx_alloc(&c->c, c->dt, c->n, c->n, ldc, row, off);
  if (!ok) {
    snprintf(why, len, "out of memory");
    return false;
  }
  bool alpha0 = c->alpha.re == 0.0 && c->alpha.im == 0.0;
  bool beta0 = c->beta.re == 0.0 && c->beta.im == 0.0;
  gx_fill(&c->a, r, alpha0);
  gx_fill(&c->b, r, alpha0);
  gx_fill(&c->c, r, false);
  for (int i = 0; i < c->n; i++) /* NaN where nothing may be read or written */
    for (int j = 0; j < c->n; j++)
      if (!owned(c, i, j) || beta0)
        ht_mat_set_bits(&c->c, i, j, HT_NAN_F);
  ht_mat_save(&c->a), ht_mat_save(&c->b), ht_mat_save(&c->c);
  invoke(c);
  size_t where;
  struct gx_product p = {&c->a, &c->b, &c->c, c->ta, c->tb, c->k, c->alpha, c->beta};
  ok = gx_only_written(&c->c, owned, c, why, len);
  if (ok && (!ht_mat_unchanged(&c->a, &where) || !ht_mat_unchanged(&c->b, &where))) {
    snprintf(why, len, "A or B was written (cell %zu)", where);
    ok = false;
  }
  for (int j = 0; j < c->n && ok; j++)
    for (int i = 0; i < c->n && ok; i++)
      if (owned(c, i, j))
        ok = gx_element_ok(c->dt, &p, i, j, 2.0, why, len);
  ht_mat_free(&c->a), ht_mat_free(&c->b), ht_mat_free(&c->c);
  return ok;
}

void gx_gemmt_cases(const struct gx_opts *o)
{
  static const int real_trans[] = {HT_N, HT_T}, cplx_trans[] = {HT_N, HT_T, HT_CT, HT_CN};
  static const struct gx_scalar alphas[][2] = {
    {{1.0, 0.0}, {0.0, 0.0}},    {{0.5, -0.25}, {-1.5, 0.5}}, {{-1.0, 0.0}, {1.0, 0.0}},
    {{0.0, 0.0}, {0.5, 0.25}},   {{1.25, 0.5}, {0.0, 0.0}},   {{2.0, 0.0}, {0.75, -1.0}},
  };
  int dims[] = {1, 2, 3, 7, 16, 33, 65, o->max_dim}, ks[] = {1, 4, 17, 64, 0, 9};
  int ndims = sizeof dims / sizeof dims[0], nks = sizeof ks / sizeof ks[0];
  struct ht_rng r = {o->seed};
  int serial = 0;
  for (int d = 0; d < HT_DTYPE_COUNT; d++) {
    if (!o->dtypes[d])
      continue;
    bool cplx = ht_dtypes[d].cplx;
    const int *trans = cplx ? cplx_trans : real_trans;
    int ntrans = o->quick ? 2 : cplx ? 4 : 2;
    const struct entry *entries = o->ilp64 ? ilp64 : lp64;
    int nentries = o->ilp64 ? (int)(sizeof ilp64 / sizeof ilp64[0]) : (int)(sizeof lp64 / sizeof lp64[0]);
    for (int e = 0; e < nentries; e++)
      for (int order = HT_ROW; order <= HT_COL; order++) {
        if (entries[e].e.fortran && order == HT_ROW)
          continue;
        for (int uplo = GX_UPPER; uplo <= GX_LOWER; uplo++) {
          int calls = 0;
          bool ok = true;
          char why[300] = "", what[160] = "";
          for (int x = 0; x < ntrans && ok; x++)
            for (int y = 0; y < ntrans && ok; y++, serial++) {
              struct call c = {.dt = (enum ht_dtype)d, .e = &entries[e].e, .order = order,
                               .uplo = uplo, .ta = trans[x], .tb = trans[(x + y) % ntrans],
                               .n = dims[serial % ndims], .k = ks[serial % nks]};
              if (c.n > o->max_dim)
                c.n = o->max_dim;
              const struct gx_scalar *ab = alphas[serial % 6];
              c.alpha = ab[0], c.beta = ab[1];
              if (!cplx)
                c.alpha.im = c.beta.im = 0.0;
              snprintf(what, sizeof what, "%c%c n=%d k=%d alpha=(%g,%g) beta=(%g,%g)",
                       trans_char(c.ta), trans_char(c.tb), c.n, c.k, c.alpha.re, c.alpha.im,
                       c.beta.re, c.beta.im);
              ok = one(&c, &r, serial % 3, serial % 4, why, sizeof why);
              calls++;
            }
          /* n == 0: a quick return; C (of one element, as if n were 1) untouched. */
          struct call z = {.dt = (enum ht_dtype)d, .e = &entries[e].e, .order = order,
                           .uplo = uplo, .ta = HT_N, .tb = HT_N, .n = 0, .k = 3,
                           .alpha = {1.0, 0.0}, .beta = {0.5, 0.0}};
          if (ok) {
            snprintf(what, sizeof what, "n=0");
            ok = one(&z, &r, 1, 0, why, sizeof why);
            calls++;
          }
          char sym[24];
          snprintf(sym, sizeof sym, "%s", entries[e].name);
          *strchr(sym, '?') = ht_dtypes[d].name[0];
          gx_result(ok, o->label, "%s %s %s: %d calls%s%s", sym, order == HT_ROW ? "row" : "col",
                    uplo == GX_UPPER ? "upper" : "lower", calls, ok ? "" : ": ", ok ? "" : what);
          if (!ok)
            printf("# %s\n", why);
        }
      }
  }
}
