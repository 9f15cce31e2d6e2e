/* One Level-3 call of the contract sweep: operands in guarded buffers, the
 * call through its public entry point (found by name, as a program would
 * link it), and the check against a long double reference. */
#include <complex.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract_l3.h"

const char *const lt_routine_names[LT_ROUTINES] = {"symm", "hemm",  "syrk", "herk",
                                                   "syr2k", "her2k", "trmm", "trsm"};

bool lt_hermitian(enum lt_routine r) { return r == LT_HEMM || r == LT_HERK || r == LT_HER2K; }
bool lt_rank_k(enum lt_routine r) { return r >= LT_SYRK && r <= LT_HER2K; }
bool lt_triangular(enum lt_routine r) { return r == LT_TRMM || r == LT_TRSM; }
static bool two_operands(enum lt_routine r) { return r == LT_SYR2K || r == LT_HER2K; }

int lt_order_a(const struct lt_call *c) { return c->side == 'L' ? c->m : c->n; }

typedef long double complex num;

/* Shapes as the caller sees them. */
static void shape_a(const struct lt_call *c, int *rows, int *cols)
{
  if (lt_rank_k(c->r)) {
    *rows = c->trans == 'N' ? c->n : c->k;
    *cols = c->trans == 'N' ? c->k : c->n;
  } else {
    *rows = *cols = lt_order_a(c);
  }
}

static bool alloc_one(struct ht_mat *x, const struct lt_call *c, int rows, int cols, int pad,
                      int off, uint32_t fill, bool fence)
{
  const struct ht_dtype_info *t = &ht_dtypes[c->dt];
  int ld = (c->row_major ? cols : rows) + pad;
  return ht_mat_alloc(x, rows, cols, ld > 0 ? ld : 1, c->row_major, t->c_size, t->cplx, off, fill,
                      fence);
}

bool lt_alloc(struct lt_call *c, const int pad[3], const int off[3])
{
  int ar, ac;
  shape_a(c, &ar, &ac);
  bool b = two_operands(c->r) || c->r == LT_SYMM || c->r == LT_HEMM;
  int br = c->r == LT_SYMM || c->r == LT_HEMM ? c->m : ar, bc = c->r == LT_SYMM || c->r == LT_HEMM ? c->n : ac;
  if (alloc_one(&c->a, c, ar, ac, pad[0], off[0], HT_NAN_F, true) &&
      alloc_one(&c->b, c, b ? br : 0, b ? bc : 0, pad[1], off[1], HT_NAN_F, true) &&
      alloc_one(&c->c, c, c->m, c->n, pad[2], off[2], HT_SENTINEL_F, false))
    return true;
  lt_free(c);
  return false;
}

void lt_free(struct lt_call *c) { ht_mat_free(&c->a), ht_mat_free(&c->b), ht_mat_free(&c->c); }

/* Is (i, j) in the stored triangle (of A, or the owned one of C)? */
static bool in_triangle(char uplo, int i, int j) { return uplo == 'U' ? i <= j : i >= j; }

/* C(i, j) written by the call? */
static bool owned(const struct lt_call *c, int i, int j)
{
  return !lt_rank_k(c->r) || in_triangle(c->uplo, i, j);
}

static void set(struct ht_mat *x, const struct lt_call *c, int i, int j, double re, double im)
{
  ht_mat_set_part(x, i, j, 0, re);
  if (ht_dtypes[c->dt].cplx)
    ht_mat_set_part(x, i, j, 1, im);
}

static double value(const struct lt_call *c, struct ht_rng *r)
{
  double v = ht_rng_uniform(r, -1.0, 1.0);
  return ht_dtypes[c->dt].eps > 1e-10 ? (double)(float)v : v;
}

static void fill_random(struct ht_mat *x, const struct lt_call *c, struct ht_rng *r)
{
  for (int j = 0; j < x->cols; j++)
    for (int i = 0; i < x->rows; i++)
      set(x, c, i, j, value(c, r), value(c, r));
}

static void fill_a(struct lt_call *c, struct ht_rng *r)
{
  struct ht_mat *a = &c->a;
  if (lt_rank_k(c->r)) {
    fill_random(a, c, r);
    return;
  }
  int ka = lt_order_a(c);
  double scale = c->r == LT_TRSM ? 1.0 / ka : 1.0; /* X stays bounded */
  for (int j = 0; j < ka; j++)
    for (int i = 0; i < ka; i++) {
      if (!in_triangle(c->uplo, i, j))
        continue; /* NaN: never read */
      if (i == j && lt_triangular(c->r) && c->diag == 'U')
        continue; /* a unit diagonal is never read */
      double re = value(c, r) * scale, im = value(c, r) * scale;
      if (i == j && c->r == LT_TRSM) /* well away from zero */
        re = (re < 0 ? -1.0 : 1.0) * (1.0 + fabs(re) * ka);
      set(a, c, i, j, re, im);
      if (i == j && c->r == LT_HEMM)
        ht_mat_set_bits(a, i, j, HT_NAN_F), ht_mat_set_part(a, i, j, 0, re); /* im never read */
    }
}

void lt_fill(struct lt_call *c, struct ht_rng *r)
{
  bool alpha0 = c->alpha[0] == 0.0 && c->alpha[1] == 0.0;
  bool beta0 = c->beta[0] == 0.0 && c->beta[1] == 0.0;
  if (!alpha0) { /* alpha == 0: A and B never read (they keep their NaN) */
    fill_a(c, r);
    if (c->b.rows > 0)
      fill_random(&c->b, c, r);
  }
  bool c_read = lt_triangular(c->r) ? !alpha0 : !beta0;
  for (int j = 0; j < c->n; j++)
    for (int i = 0; i < c->m; i++) {
      if (!owned(c, i, j))
        continue; /* the sentinel: never written */
      if (!c_read)
        ht_mat_set_bits(&c->c, i, j, (i + j) % 2 ? HT_NAN_F : 0xff800000u); /* NaN, -Inf */
      else
        set(&c->c, c, i, j, value(c, r), value(c, r));
      if (c_read && i == j && (c->r == LT_HERK || c->r == LT_HER2K))
        ht_mat_set_part(&c->c, i, j, 1, NAN); /* the imaginary part is not read */
    }
}

/* ---- the call ---------------------------------------------------------------- */

union scalar {
  float f[2];
  double d[2];
};
enum kind { K_F, K_D, K_P }; /* by value as float, as double, or by pointer */

static void scalar(const struct lt_call *c, const double v[2], union scalar *s)
{
  bool dbl = c->dt == HT_D || c->dt == HT_Z;
  for (int p = 0; p < 2; p++)
    if (dbl)
      s->d[p] = v[p];
    else
      s->f[p] = (float)v[p];
}

static enum kind kind_of(const struct lt_call *c, bool real)
{
  if (!ht_dtypes[c->dt].cplx || real)
    return c->dt == HT_D || c->dt == HT_Z ? K_D : K_F;
  return K_P;
}

/* The CBLAS enumerator of a letter; 'X' (an argument error on purpose) is none. */
static int cblas_letter(char what, char v)
{
  if (v == 'X')
    return 99;
  switch (what) {
  case 's': return v == 'L' ? 141 : 142;
  case 'u': return v == 'U' ? 121 : 122;
  case 'd': return v == 'U' ? 132 : 131;
  default: return v == 'N' ? HT_N : v == 'T' ? HT_T : v == 'C' ? HT_CT : HT_CN;
  }
}

#define LT_INT int
#define LT_NAME(x) x##_lp
#include "contract_l3_calls.inc"
#undef LT_INT
#undef LT_NAME
#define LT_INT int64_t
#define LT_NAME(x) x##_ilp
#include "contract_l3_calls.inc"
#undef LT_INT
#undef LT_NAME

/* The entry point's name in the call's family of names: ssymm_, cblas_ssymm64_, scipy_ssymm_, ... */
static void symbol(const struct lt_call *c, char *out, size_t len)
{
  bool ilp = c->names == LT_ILP64 || c->names == LT_SCIPY64;
  const char *pre = c->names == LT_SCIPY || c->names == LT_SCIPY64 ? "scipy_" : "";
  const char *routine = lt_routine_names[c->r], *dt = ht_dtypes[c->dt].name;
  if (c->entry == HT_CBLAS)
    snprintf(out, len, "%scblas_%s%s%s", pre, dt, routine, ilp ? "64_" : "");
  else
    snprintf(out, len, "%s%s%s%s", pre, dt, routine, ilp ? "_64_" : c->bare ? "" : "_");
}

bool lt_run(struct lt_call *c, char *why, size_t len)
{
  char name[32];
  symbol(c, name, sizeof name);
  void *fn = dlsym(RTLD_DEFAULT, name);
  if (fn == NULL) {
    snprintf(why, len, "no entry point %s", name);
    return false;
  }
  ht_mat_save(&c->a), ht_mat_save(&c->b), ht_mat_save(&c->c);
  union scalar al, be;
  scalar(c, c->alpha, &al), scalar(c, c->beta, &be);
  bool ilp = c->names == LT_ILP64 || c->names == LT_SCIPY64;
  if (c->entry == HT_CBLAS)
    (ilp ? call_cblas_ilp : call_cblas_lp)(c, fn, &al, &be);
  else
    (ilp ? call_fortran_ilp : call_fortran_lp)(c, fn, &al, &be);
  return true;
}

void lt_describe(const struct lt_call *c, char *out, size_t len)
{
  char name[32];
  symbol(c, name, sizeof name);
  snprintf(out, len,
           "%s %s side=%c uplo=%c trans=%c diag=%c m=%d n=%d k=%d alpha=(%g,%g) beta=(%g,%g) "
           "ld=%d,%d,%d",
           name, c->entry == HT_FORTRAN ? "" : c->row_major ? "row" : "col", c->side, c->uplo,
           c->trans, c->diag, c->m, c->n, c->k, c->alpha[0], c->alpha[1], c->beta[0], c->beta[1],
           c->a.ld, c->b.ld, c->c.ld);
}

/* ---- the reference ------------------------------------------------------------ */

/* re + i im without arithmetic: NaN * I would make the real part NaN too. */
static num make(long double re, long double im)
{
  union {
    num z;
    long double part[2];
  } u = {.part = {re, im}};
  return u.z;
}

static num get(const struct ht_mat *x, const unsigned char *base, bool cplx, int i, int j)
{
  return make(ht_mat_get_part(x, base, i, j, 0), cplx ? ht_mat_get_part(x, base, i, j, 1) : 0.0L);
}

/* An element of what the routine multiplies, from the inputs as given.
 * symm, hemm: A whole; syrk..: op(A) or op(B), n x k; trmm, trsm: op(A)
 * with zeros outside its triangle. */
static num elem(const struct lt_call *c, const struct ht_mat *x, int i, int l)
{
  bool cx = ht_dtypes[c->dt].cplx;
  if (lt_rank_k(c->r)) {
    num v = c->trans == 'N' ? get(x, x->saved, cx, i, l) : get(x, x->saved, cx, l, i);
    return c->trans == 'C' ? conjl(v) : v;
  }
  if (lt_triangular(c->r)) {
    bool t = c->trans == 'T' || c->trans == 'C', cj = c->trans == 'C' || c->trans == 'R';
    int r = t ? l : i, q = t ? i : l;
    if (r == q && c->diag == 'U')
      return 1.0L;
    if (!in_triangle(c->uplo, r, q))
      return 0.0L;
    num v = get(x, x->saved, cx, r, q);
    return cj ? conjl(v) : v;
  }
  bool stored = in_triangle(c->uplo, i, l);
  num v = stored ? get(x, x->saved, cx, i, l) : get(x, x->saved, cx, l, i);
  if (c->r == LT_HEMM && i == l)
    return creall(v);
  return c->r == LT_HEMM && !stored ? conjl(v) : v;
}

static long double mag(num v) { return fabsl(creall(v)) + fabsl(cimagl(v)); }

/* sum over l of x(i, l) y(l, j) and of their magnitudes. */
struct acc {
  num sum;
  long double abs;
};

static void add(struct acc *s, num x, num y)
{
  s->sum += x * y;
  s->abs += mag(x) * mag(y);
}

/* Expected C(i, j) (trsm: the residual's sums) and the magnitude sum of its terms. */
static struct acc expected(const struct lt_call *c, int i, int j)
{
  bool cx = ht_dtypes[c->dt].cplx;
  num alpha = make(c->alpha[0], c->alpha[1]);
  struct acc s = {0}, t = {0};
  const struct ht_mat *a = &c->a, *b = &c->b, *x = &c->c;
  switch (c->r) {
  case LT_SYMM:
  case LT_HEMM:
    for (int l = 0; l < lt_order_a(c); l++)
      if (c->side == 'L')
        add(&s, elem(c, a, i, l), get(b, b->saved, cx, l, j));
      else
        add(&s, get(b, b->saved, cx, i, l), elem(c, a, l, j));
    break;
  case LT_SYRK:
  case LT_HERK:
    for (int l = 0; l < c->k; l++)
      add(&s, elem(c, a, i, l), c->r == LT_HERK ? conjl(elem(c, a, j, l)) : elem(c, a, j, l));
    break;
  case LT_SYR2K:
  case LT_HER2K:
    for (int l = 0; l < c->k; l++) {
      bool h = c->r == LT_HER2K;
      add(&s, elem(c, a, i, l), h ? conjl(elem(c, b, j, l)) : elem(c, b, j, l));
      add(&t, elem(c, b, i, l), h ? conjl(elem(c, a, j, l)) : elem(c, a, j, l));
    }
    s.sum = alpha * s.sum + (c->r == LT_HER2K ? conjl(alpha) : alpha) * t.sum;
    s.abs = mag(alpha) * (s.abs + t.abs);
    return s;
  case LT_TRMM:
    for (int l = 0; l < lt_order_a(c); l++)
      if (c->side == 'L')
        add(&s, elem(c, a, i, l), get(x, x->saved, cx, l, j));
      else
        add(&s, get(x, x->saved, cx, i, l), elem(c, a, l, j));
    break;
  case LT_TRSM: /* op(A) X or X op(A), X as computed */
    for (int l = 0; l < lt_order_a(c); l++)
      if (c->side == 'L')
        add(&s, elem(c, a, i, l), get(x, x->buf, cx, l, j));
      else
        add(&s, get(x, x->buf, cx, i, l), elem(c, a, l, j));
    return s;
  case LT_ROUTINES: break;
  }
  s.sum *= alpha;
  s.abs *= mag(alpha);
  return s;
}

static bool close_enough(long double got, long double want, long double bound)
{
  return isfinite(got) && fabsl(got - want) <= bound;
}

/* Every cell of C's buffer that the call does not own, as it was. */
static bool others_unchanged(const struct lt_call *c, char *why, size_t len)
{
  const struct ht_mat *x = &c->c;
  bool *mine = calloc(x->cells, sizeof *mine);
  if (mine == NULL)
    return snprintf(why, len, "test out of memory"), false;
  for (int j = 0; j < c->n; j++)
    for (int i = 0; i < c->m; i++)
      if (owned(c, i, j))
        mine[ht_mat_index(x, i, j)] = true;
  size_t bad = x->cells;
  for (size_t p = 0; p < x->cells && bad == x->cells; p++)
    if (!mine[p] && memcmp(x->buf + p * x->esize, x->saved + p * x->esize, x->esize) != 0)
      bad = p;
  free(mine);
  if (bad < x->cells)
    snprintf(why, len, "C's cell %zu (outside what the routine owns) was written", bad);
  return bad == x->cells;
}

bool lt_check(const struct lt_call *c, double tol, char *why, size_t len)
{
  size_t where;
  if (!ht_mat_unchanged(&c->a, &where) || !ht_mat_unchanged(&c->b, &where))
    return snprintf(why, len, "an input (A or B) was written at cell %zu", where), false;
  if (!others_unchanged(c, why, len))
    return false;
  const struct ht_dtype_info *t = &ht_dtypes[c->dt];
  bool cx = t->cplx, herm_c = c->r == LT_HERK || c->r == LT_HER2K;
  num alpha = make(c->alpha[0], c->alpha[1]), beta = make(c->beta[0], c->beta[1]);
  bool beta0 = beta == 0.0L, alpha0 = alpha == 0.0L;
  int k = lt_rank_k(c->r) ? c->k : lt_order_a(c);
  for (int j = 0; j < c->n; j++)
    for (int i = 0; i < c->m; i++) {
      if (!owned(c, i, j))
        continue;
      num got = get(&c->c, c->c.buf, cx, i, j);
      num c0 = get(&c->c, c->c.saved, cx, i, j), want;
      long double abs;
      if (herm_c && i == j)
        c0 = make(creall(c0), 0.0L);
      if (lt_triangular(c->r) && alpha0) {
        want = 0.0L, abs = 0.0L;
      } else if (alpha0) {
        want = beta0 ? 0.0L : beta * c0, abs = beta0 ? 0.0L : mag(beta) * mag(c0);
      } else {
        struct acc e = expected(c, i, j);
        if (c->r == LT_TRSM) { /* residual: op(A) X - alpha B */
          want = alpha * c0, abs = e.abs + mag(alpha) * mag(c0);
          got = e.sum;
        } else {
          want = e.sum + (beta0 || lt_triangular(c->r) ? 0.0L : beta * c0);
          abs = e.abs + (beta0 || lt_triangular(c->r) ? 0.0L : mag(beta) * mag(c0));
        }
      }
      long double bound = tol * (k + 2) * (t->eps * abs + (mag(alpha) + 1.0L) * t->tiny);
      bool ok = close_enough(creall(got), creall(want), bound) &&
                (!cx || close_enough(cimagl(got), cimagl(want), bound)) &&
                (!herm_c || i != j || cimagl(get(&c->c, c->c.buf, cx, i, j)) == 0.0L);
      if (!ok) {
        snprintf(why, len, "C(%d,%d) = (%.9Lg, %.9Lg), expected (%.9Lg, %.9Lg) within %.3Lg%s", i,
                 j, creall(got), cimagl(got), creall(want), cimagl(want), bound,
                 c->r == LT_TRSM ? " (residual op(A) X vs alpha B)" : "");
        return false;
      }
    }
  return true;
}

/* ---- argument errors ------------------------------------------------------------ */

/* The program's own xerbla_ and xerbla_64_ (the library reports through the
 * dynamic symbols, so these win): the last report, and which one took it. */
static struct {
  char name[8];
  int64_t info;
  int calls, calls64;
} reported;

__attribute__((visibility("default"))) void xerbla_(const char *name, const int *info, size_t len)
{
  snprintf(reported.name, sizeof reported.name, "%.*s", (int)(len < 7 ? len : 7), name);
  reported.info = *info, reported.calls++;
}

__attribute__((visibility("default"))) void xerbla_64_(const char *name, const int64_t *info,
                                                       size_t len)
{
  snprintf(reported.name, sizeof reported.name, "%.*s", (int)(len < 7 ? len : 7), name);
  reported.info = *info, reported.calls64++;
}

bool lt_run_error(struct lt_call *c, int want_info, char *why, size_t len)
{
  memset(&reported, 0, sizeof reported);
  if (!lt_run(c, why, len))
    return false;
  char want[8];
  snprintf(want, sizeof want, "%c%-5s", ht_dtypes[c->dt].name[0] - 'a' + 'A', lt_routine_names[c->r]);
  for (char *p = want; *p; p++)
    *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
  bool ilp = c->names == LT_ILP64 || c->names == LT_SCIPY64;
  size_t where;
  if ((ilp ? reported.calls64 : reported.calls) != 1 || (ilp ? reported.calls : reported.calls64) != 0)
    return snprintf(why, len, "%d reports through xerbla_, %d through xerbla_64_; want one through %s",
                    reported.calls, reported.calls64, ilp ? "xerbla_64_" : "xerbla_"), false;
  if (strcmp(reported.name, want) != 0 || reported.info != want_info)
    return snprintf(why, len, "xerbla got \"%s\" INFO %lld, want \"%s\" INFO %d", reported.name,
                    (long long)reported.info, want, want_info), false;
  if (!ht_mat_unchanged(&c->a, &where) || !ht_mat_unchanged(&c->b, &where) ||
      !ht_mat_unchanged(&c->c, &where))
    return snprintf(why, len, "an operand was written at cell %zu", where), false;
  return true;
}
