/* Batched GEMM through cblas_?gemm_batch and cblas_?gemm_batch_strided in
 * both orders: groups of mixed sizes and transposes, an empty group, a
 * group of m == 0, alpha == 0 (NaN in A and B), k == 0, beta == 0 (NaN in
 * C), netlib's quick return (alpha == 0, beta == 1), each problem in
 * buffers of its own whose guards must stay; a strided batch whose gaps
 * must stay; a group count of zero and a negative one. */
#include <stdlib.h>
#include <string.h>

#include "gemmx.h"

struct shape {
  int m, n, k, ta, tb;
  struct gx_scalar alpha, beta;
  int count;
};

/* The groups of the mixed batch, the last ones the bulk of the work. */
static const struct shape mixed[] = {
  {3, 5, 7, HT_N, HT_N, {1.0, 0.0}, {0.0, 0.0}, 3},
  {17, 9, 33, HT_T, HT_N, {0.5, -0.25}, {-1.5, 0.5}, 2},
  {4, 4, 4, HT_N, HT_T, {1.0, 0.0}, {1.0, 0.0}, 0},  /* empty */
  {0, 6, 3, HT_N, HT_N, {1.0, 0.0}, {0.5, 0.0}, 2},  /* m == 0: C untouched */
  {6, 3, 5, HT_T, HT_T, {0.0, 0.0}, {0.5, 0.5}, 2},  /* alpha == 0: C = beta C */
  {5, 7, 0, HT_N, HT_N, {1.0, 0.0}, {0.0, 0.0}, 1},  /* k == 0, beta == 0: C = 0 */
  {5, 5, 5, HT_N, HT_N, {0.0, 0.0}, {1.0, 0.0}, 1},  /* quick return */
  {64, 64, 64, HT_N, HT_T, {1.0, 0.0}, {1.0, 0.0}, 5},
  {33, 70, 65, HT_CT, HT_CN, {-1.0, 0.5}, {0.25, 0.0}, 3},
};
enum { GROUPS = sizeof mixed / sizeof mixed[0] };

struct problem {
  struct ht_mat a, b, c;
};

static bool trans(int t) { return t == HT_T || t == HT_CT; }
static char trans_letter(int t) { return t == HT_N ? 'N' : t == HT_T ? 'T' : t == HT_CT ? 'C' : 'R'; }

static bool all(const void *arg, int i, int j)
{
  (void)arg, (void)i, (void)j;
  return true;
}

static bool none(const void *arg, int i, int j)
{
  (void)arg, (void)i, (void)j;
  return false;
}

/* The group's leading dimensions (as the caller stores its operands), a
 * little padding beyond the least. */
static void group_lds(const struct shape *s, bool row, int pad, int ld[3])
{
  int ar = trans(s->ta) ? s->k : s->m, ac = trans(s->ta) ? s->m : s->k;
  int br = trans(s->tb) ? s->n : s->k, bc = trans(s->tb) ? s->k : s->n;
  ld[0] = (row ? ac : ar) + pad, ld[1] = (row ? bc : br) + pad, ld[2] = (row ? s->n : s->m) + pad;
  for (int i = 0; i < 3; i++)
    ld[i] = ld[i] < 1 ? 1 : ld[i];
}

/* A, B and C of one problem of group s, filled as the contract says. */
static bool problem_alloc(struct problem *p, enum ht_dtype dt, const struct shape *s, bool row,
                          const int ld[3], int serial, struct ht_rng *r)
{
  int ar = trans(s->ta) ? s->k : s->m, ac = trans(s->ta) ? s->m : s->k;
  int br = trans(s->tb) ? s->n : s->k, bc = trans(s->tb) ? s->k : s->n;
  bool ok = gx_alloc(&p->a, dt, ar, ac, ld[0], row, serial % 4) &&
            gx_alloc(&p->b, dt, br, bc, ld[1], row, serial % 5) &&
            gx_alloc(&p->c, dt, s->m, s->n, ld[2], row, serial % 2);
  if (!ok)
    return false;
  bool alpha0 = s->alpha.re == 0.0 && s->alpha.im == 0.0;
  gx_fill(&p->a, r, alpha0);
  gx_fill(&p->b, r, alpha0);
  gx_fill(&p->c, r, s->beta.re == 0.0 && s->beta.im == 0.0);
  ht_mat_save(&p->a), ht_mat_save(&p->b), ht_mat_save(&p->c);
  return true;
}

/* Netlib's quick return: C untouched; else every element checked. */
static bool problem_check(const struct problem *p, enum ht_dtype dt, const struct shape *s,
                          char *why, size_t len)
{
  size_t where;
  if (!ht_mat_unchanged(&p->a, &where) || !ht_mat_unchanged(&p->b, &where)) {
    snprintf(why, len, "A or B was written");
    return false;
  }
  bool quick = s->m == 0 || s->n == 0 ||
               ((s->k == 0 || (s->alpha.re == 0.0 && s->alpha.im == 0.0)) && s->beta.re == 1.0 &&
                s->beta.im == 0.0);
  if (!gx_only_written(&p->c, quick ? none : all, NULL, why, len))
    return false;
  struct gx_product pr = {&p->a, &p->b, &p->c, s->ta, s->tb, s->k, s->alpha, s->beta};
  for (int i = 0; i < s->m && !quick; i++)
    for (int j = 0; j < s->n; j++)
      if (!gx_element_ok(dt, &pr, i, j, 2.0, why, len))
        return false;
  return true;
}

static void problem_free(struct problem *p)
{
  ht_mat_free(&p->a), ht_mat_free(&p->b), ht_mat_free(&p->c);
}

static void call_group_api(enum ht_dtype dt, bool ilp64, int order, const struct shape *s,
                           int groups, const void **a, const void **b, void **c, const int *lda,
                           const int *ldb, const int *ldc)
{
  int ta[GROUPS], tb[GROUPS];
  int64_t m[GROUPS], n[GROUPS], k[GROUPS], size[GROUPS], la[GROUPS], lb[GROUPS], lc[GROUPS];
  double al[2 * GROUPS], be[2 * GROUPS];
  float alf[2 * GROUPS], bef[2 * GROUPS];
  bool cplx = ht_dtypes[dt].cplx, dbl = dt == HT_D || dt == HT_Z;
  for (int i = 0; i < groups; i++) {
    ta[i] = s[i].ta, tb[i] = s[i].tb, m[i] = s[i].m, n[i] = s[i].n, k[i] = s[i].k;
    size[i] = s[i].count, la[i] = lda[i], lb[i] = ldb[i], lc[i] = ldc[i];
    /* real dtypes: one scalar per group; complex: (re, im) pairs */
    int at = cplx ? 2 * i : i;
    al[at] = s[i].alpha.re, be[at] = s[i].beta.re, alf[at] = (float)al[at], bef[at] = (float)be[at];
    if (cplx) {
      al[at + 1] = s[i].alpha.im, be[at + 1] = s[i].beta.im;
      alf[at + 1] = (float)al[at + 1], bef[at + 1] = (float)be[at + 1];
    }
  }
  gx_batch_call(dt, ilp64, order, ta, tb, m, n, k, dbl ? (const void *)al : alf, a, la, b, lb,
                dbl ? (const void *)be : bef, c, lc, groups, size);
}

/* The mixed batch in one order; false with why. */
static bool mixed_batch(enum ht_dtype dt, bool ilp64, int order, struct ht_rng *r, char *why,
                        size_t len)
{
  bool cplx = ht_dtypes[dt].cplx, row = order == HT_ROW, ok = true;
  struct shape s[GROUPS];
  int total = 0, lda[GROUPS], ldb[GROUPS], ldc[GROUPS];
  for (int i = 0; i < GROUPS; i++) {
    s[i] = mixed[i];
    if (!cplx) { /* real dtypes: ConjTrans is Trans, ConjNoTrans NoTrans; real scalars */
      s[i].ta = trans(s[i].ta) ? HT_T : HT_N, s[i].tb = trans(s[i].tb) ? HT_T : HT_N;
      s[i].alpha.im = s[i].beta.im = 0.0;
    }
    total += s[i].count;
  }
  struct problem *p = calloc((size_t)total, sizeof *p);
  const void **a = calloc((size_t)total, sizeof *a), **b = calloc((size_t)total, sizeof *b);
  void **c = calloc((size_t)total, sizeof *c);
  int at = 0;
  for (int i = 0; i < GROUPS && p && a && b && c && ok; i++) {
    int ld[3];
    group_lds(&s[i], row, i % 3, ld);
    lda[i] = ld[0], ldb[i] = ld[1], ldc[i] = ld[2];
    for (int q = 0; q < s[i].count && ok; q++, at++) {
      ok = problem_alloc(&p[at], dt, &s[i], row, ld, at, r);
      a[at] = p[at].a.p, b[at] = p[at].b.p, c[at] = p[at].c.p;
    }
  }
  if (ok && p && a && b && c) {
    call_group_api(dt, ilp64, order, s, GROUPS, a, b, c, lda, ldb, ldc);
    at = 0;
    for (int i = 0; i < GROUPS && ok; i++)
      for (int q = 0; q < s[i].count && ok; q++, at++) {
        ok = problem_check(&p[at], dt, &s[i], why, len);
        if (!ok) {
          char more[80];
          snprintf(more, sizeof more, " (group %d, problem %d)", i, q);
          strncat(why, more, len - strlen(why) - 1);
        }
      }
  } else {
    snprintf(why, len, "out of memory");
    ok = false;
  }
  for (int i = 0; i < total && p; i++)
    problem_free(&p[i]);
  free(p), free(a), free(b), free(c);
  return ok;
}

/* ---- a strided batch ------------------------------------------------------
 * Problem p's A, B and C are blocks of one matrix each, `gap` rows
 * (row-major) or columns apart: the gaps must stay as they were. */
struct strided {
  int m, n, k, count, gap;
  bool row;
};

static struct ht_mat view(const struct ht_mat *big, int rows, int cols, int p, int gap)
{
  struct ht_mat v = *big;
  v.rows = rows, v.cols = cols;
  size_t first = big->row_major ? (size_t)p * (size_t)(rows + gap) * (size_t)big->ld
                                : (size_t)p * (size_t)(cols + gap) * (size_t)big->ld;
  v.p = (unsigned char *)big->p + first * big->esize;
  return v;
}

static bool in_block(const void *arg, int i, int j)
{
  const struct strided *s = arg;
  return s->row ? i % (s->m + s->gap) < s->m : j % (s->n + s->gap) < s->n;
}

static bool strided_batch(enum ht_dtype dt, bool ilp64, int order, int ta, int tb, struct ht_rng *r,
                          char *why, size_t len)
{
  struct strided s = {9, 6, 11, 4, 2, order == HT_ROW};
  int ar = trans(ta) ? s.k : s.m, ac = trans(ta) ? s.m : s.k;
  int br = trans(tb) ? s.n : s.k, bc = trans(tb) ? s.k : s.n;
  int big = s.count, g = s.gap;
  /* Big matrices: blocks stacked down (row-major) or across (column-major). */
  int a_rows = s.row ? big * (ar + g) : ar, a_cols = s.row ? ac : big * (ac + g);
  int b_rows = s.row ? big * (br + g) : br, b_cols = s.row ? bc : big * (bc + g);
  int c_rows = s.row ? big * (s.m + g) : s.m, c_cols = s.row ? s.n : big * (s.n + g);
  struct ht_mat A, B, C;
  bool ok = gx_alloc(&A, dt, a_rows, a_cols, (s.row ? a_cols : a_rows) + 1, s.row, 1) &&
            gx_alloc(&B, dt, b_rows, b_cols, (s.row ? b_cols : b_rows) + 2, s.row, 0) &&
            gx_alloc(&C, dt, c_rows, c_cols, (s.row ? c_cols : c_rows) + 1, s.row, 3);
  if (!ok) {
    snprintf(why, len, "out of memory");
    return false;
  }
  gx_fill(&A, r, false), gx_fill(&B, r, false), gx_fill(&C, r, false);
  ht_mat_save(&A), ht_mat_save(&B), ht_mat_save(&C);
  int sa = (s.row ? ar + g : ac + g) * A.ld, sb = (s.row ? br + g : bc + g) * B.ld;
  int sc = (s.row ? s.m + g : s.n + g) * C.ld;
  struct gx_scalar alpha = {0.75, ht_dtypes[dt].cplx ? -0.5 : 0.0};
  struct gx_scalar beta = {-1.25, ht_dtypes[dt].cplx ? 0.25 : 0.0};
  unsigned char al[16], be[16];
  const void *pa = gx_scalar_ptr(dt, alpha, al), *pb = gx_scalar_ptr(dt, beta, be);
  gx_strided_call(dt, ilp64, order, ta, tb, s.m, s.n, s.k, pa, A.p, A.ld, sa, B.p, B.ld, sb, pb,
                  C.p, C.ld, sc, s.count);
  size_t where;
  ok = ht_mat_unchanged(&A, &where) && ht_mat_unchanged(&B, &where);
  if (!ok)
    snprintf(why, len, "A or B was written");
  ok = ok && gx_only_written(&C, in_block, &s, why, len);
  for (int p = 0; p < s.count && ok; p++) {
    struct ht_mat a = view(&A, ar, ac, p, g), b = view(&B, br, bc, p, g);
    struct ht_mat c = view(&C, s.m, s.n, p, g);
    struct gx_product pr = {&a, &b, &c, ta, tb, s.k, alpha, beta};
    for (int i = 0; i < s.m && ok; i++)
      for (int j = 0; j < s.n && ok; j++)
        ok = gx_element_ok(dt, &pr, i, j, 2.0, why, len);
  }
  ht_mat_free(&A), ht_mat_free(&B), ht_mat_free(&C);
  return ok;
}

/* No groups, or a negative count: nothing is read or written (NULL arrays). */
static bool empty_batches(enum ht_dtype dt, bool ilp64)
{
  for (int groups = 0; groups >= -1; groups--)
    gx_batch_call(dt, ilp64, groups ? HT_ROW : HT_COL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                  NULL, NULL, NULL, NULL, NULL, NULL, groups, NULL);
  return gx_xerbla_calls == 0;
}

void gx_batch_cases(const struct gx_opts *o)
{
  struct ht_rng r = {o->seed};
  for (int d = 0; d < HT_DTYPE_COUNT; d++) {
    if (!o->dtypes[d])
      continue;
    enum ht_dtype dt = (enum ht_dtype)d;
    const char *name = ht_dtypes[d].name;
    for (int order = HT_ROW; order <= HT_COL; order++) {
      char why[300] = "";
      const char *ord = order == HT_ROW ? "row" : "col";
      bool ok = mixed_batch(dt, o->ilp64, order, &r, why, sizeof why);
      gx_result(ok, o->label, "cblas_%sgemm_batch%s %s: %d groups of mixed shapes, transposes "
                "and scalars, an empty one, m == 0, alpha == 0, k == 0, a quick return%s%s",
                name, o->ilp64 ? "64_" : "", ord, GROUPS, ok ? "" : ": ", why);
      static const int pairs[][2] = {{HT_N, HT_N}, {HT_T, HT_N}, {HT_N, HT_T}, {HT_CT, HT_CN}};
      int npairs = ht_dtypes[d].cplx && !o->quick ? 4 : 3;
      for (int t = 0; t < npairs; t++) {
        ok = strided_batch(dt, o->ilp64, order, pairs[t][0], pairs[t][1], &r, why, sizeof why);
        gx_result(ok, o->label, "cblas_%sgemm_batch_strided%s %s %c%c: 4 problems, the gaps "
                  "between them untouched%s%s", name, o->ilp64 ? "64_" : "", ord,
                  trans_letter(pairs[t][0]), trans_letter(pairs[t][1]), ok ? "" : ": ", why);
      }
    }
    gx_xerbla_calls = 0;
    gx_result(empty_batches(dt, o->ilp64), o->label, "cblas_%sgemm_batch%s: no groups, a "
              "negative count: nothing read, written or reported", name, o->ilp64 ? "64_" : "");
  }
}

/* count sgemm of 64 x 64 x 64 in one group, every result checked: enough
 * problems for the CPU engine to share them out over threads, and for a
 * device engine's one launch. */
void gx_batch_big(int count, const char *label)
{
  struct ht_rng r = {20261128};
  const struct shape s = {64, 64, 64, HT_N, HT_T, {1.0, 0.0}, {0.5, 0.0}, count};
  struct problem *p = calloc(count > 0 ? (size_t)count : 1, sizeof *p);
  const void **a = calloc(count > 0 ? (size_t)count : 1, sizeof *a);
  const void **b = calloc(count > 0 ? (size_t)count : 1, sizeof *b);
  void **c = calloc(count > 0 ? (size_t)count : 1, sizeof *c);
  int ld[3];
  group_lds(&s, false, 1, ld);
  bool ok = p && a && b && c;
  for (int i = 0; i < count && ok; i++) {
    ok = problem_alloc(&p[i], HT_S, &s, false, ld, i, &r);
    a[i] = p[i].a.p, b[i] = p[i].b.p, c[i] = p[i].c.p;
  }
  char why[300] = "out of memory";
  if (ok)
    call_group_api(HT_S, false, HT_COL, &s, 1, a, b, c, &ld[0], &ld[1], &ld[2]);
  for (int i = 0; i < count && ok; i++)
    ok = problem_check(&p[i], HT_S, &s, why, sizeof why);
  gx_result(ok, label, "cblas_sgemm_batch: %d problems of 64 x 64 x 64%s%s", count, ok ? "" : ": ",
            ok ? "" : why);
  for (int i = 0; i < count && p; i++)
    problem_free(&p[i]);
  free(p), free(a), free(b), free(c);
}
