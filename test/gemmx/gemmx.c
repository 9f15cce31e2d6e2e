/* test/gemmx's shared pieces: TAP, operands, the reference and the checks,
 * this program's xerbla_, and main (see gemmx.h). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gemmx.h"

/* ---- TAP ------------------------------------------------------------------ */

static int tap_n, tap_failed;

void gx_result(bool ok, const char *label, const char *fmt, ...)
{
  char text[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  tap_n++;
  tap_failed += !ok;
  printf("%s %d - %s%s\n", ok ? "ok" : "not ok", tap_n, label, text);
  fflush(stdout);
}

int gx_done(void)
{
  printf("1..%d\n", tap_n);
  return tap_failed == 0 ? 0 : 1;
}

/* ---- operands --------------------------------------------------------------- */

bool gx_alloc(struct ht_mat *x, enum ht_dtype dt, int rows, int cols, int ld, bool row_major,
              int offset)
{
  return ht_mat_alloc(x, rows, cols, ld, row_major, ht_dtypes[dt].c_size, ht_dtypes[dt].cplx,
                      offset, HT_SENTINEL_F, false);
}

void gx_fill(struct ht_mat *x, struct ht_rng *r, bool poison)
{
  for (int i = 0; i < x->rows; i++)
    for (int j = 0; j < x->cols; j++)
      for (int part = 0; part < (x->cplx ? 2 : 1); part++) {
        if (poison)
          ht_mat_set_bits(x, i, j, HT_NAN_F);
        else
          ht_mat_set_part(x, i, j, part, ht_rng_uniform(r, -1.0, 1.0));
      }
}

const void *gx_scalar_ptr(enum ht_dtype dt, struct gx_scalar s, void *buf16)
{
  if (dt == HT_D || dt == HT_Z) {
    double *d = buf16;
    d[0] = s.re, d[1] = s.im;
  } else {
    float *f = buf16;
    f[0] = (float)s.re, f[1] = (float)s.im;
  }
  return buf16;
}

/* ---- the reference ----------------------------------------------------------- */

struct cval {
  double re, im;
};

static struct cval get(const struct ht_mat *x, int i, int j, bool conj)
{
  struct cval v = {ht_mat_get_part(x, x->saved, i, j, 0),
                   x->cplx ? ht_mat_get_part(x, x->saved, i, j, 1) : 0.0};
  if (conj)
    v.im = -v.im;
  return v;
}

static bool transposed(int t) { return t == HT_T || t == HT_CT; }
static bool conjugated(int t) { return t == HT_CT || t == HT_CN; }
static double mag(struct cval v) { return fabs(v.re) + fabs(v.im); }

bool gx_element_ok(enum ht_dtype dt, const struct gx_product *p, int i, int j, double tol,
                   char *why, size_t len)
{
  struct cval sum = {0.0, 0.0}, ref = {0.0, 0.0};
  double abs_ab = 0.0, beta_c0 = 0.0, alpha = fabs(p->alpha.re) + fabs(p->alpha.im);
  if (alpha != 0.0) /* alpha == 0: A and B hold NaN and must not be read */
    for (int l = 0; l < p->k; l++) {
      struct cval x = transposed(p->ta) ? get(p->a, l, i, conjugated(p->ta))
                                        : get(p->a, i, l, conjugated(p->ta));
      struct cval y = transposed(p->tb) ? get(p->b, j, l, conjugated(p->tb))
                                        : get(p->b, l, j, conjugated(p->tb));
      sum.re += x.re * y.re - x.im * y.im;
      sum.im += x.re * y.im + x.im * y.re;
      abs_ab += mag(x) * mag(y);
    }
  ref.re = p->alpha.re * sum.re - p->alpha.im * sum.im;
  ref.im = p->alpha.re * sum.im + p->alpha.im * sum.re;
  if (p->beta.re != 0.0 || p->beta.im != 0.0) { /* beta == 0: C0 holds NaN, never read */
    struct cval c0 = get(p->c0, i, j, false);
    ref.re += p->beta.re * c0.re - p->beta.im * c0.im;
    ref.im += p->beta.re * c0.im + p->beta.im * c0.re;
    beta_c0 = (fabs(p->beta.re) + fabs(p->beta.im)) * mag(c0);
  }
  double bound = ht_bound_dt(dt, tol, p->k, alpha, abs_ab, beta_c0);
  struct cval got = {ht_mat_get_part(p->c0, p->c0->buf, i, j, 0),
                     p->c0->cplx ? ht_mat_get_part(p->c0, p->c0->buf, i, j, 1) : 0.0};
  if (ht_element_ok(dt, got.re, ref.re, bound) && ht_element_ok(dt, got.im, ref.im, bound))
    return true;
  snprintf(why, len, "C(%d,%d) = (%.9g, %.9g), expected (%.9g, %.9g) within %.3g", i, j, got.re,
           got.im, ref.re, ref.im, bound);
  return false;
}

bool gx_only_written(const struct ht_mat *x, bool (*keep)(const void *arg, int i, int j),
                     const void *arg, char *why, size_t len)
{
  size_t bytes = x->cells * x->esize;
  unsigned char *expect = malloc(bytes);
  if (expect == NULL) {
    snprintf(why, len, "out of memory");
    return false;
  }
  memcpy(expect, x->saved, bytes);
  for (int i = 0; i < x->rows; i++)
    for (int j = 0; j < x->cols; j++)
      if (keep(arg, i, j)) {
        size_t at = ht_mat_index(x, i, j) * x->esize;
        memcpy(expect + at, x->buf + at, x->esize);
      }
  bool same = true;
  for (size_t cell = 0; cell < x->cells && same; cell++)
    if (memcmp(expect + cell * x->esize, x->buf + cell * x->esize, x->esize) != 0) {
      snprintf(why, len, "cell %zu of the buffer (not an element it may write) changed", cell);
      same = false;
    }
  free(expect);
  return same;
}

/* ---- xerbla_: the library reports argument errors here ----------------------- */

int gx_xerbla_calls, gx_xerbla_info;
bool gx_xerbla_64;
char gx_xerbla_name[32];

static void seen(const char *name, int info, size_t len)
{
  gx_xerbla_calls++;
  gx_xerbla_info = info;
  memset(gx_xerbla_name, 0, sizeof gx_xerbla_name);
  memcpy(gx_xerbla_name, name, len < sizeof gx_xerbla_name - 1 ? len : sizeof gx_xerbla_name - 1);
}

__attribute__((visibility("default"))) void xerbla_(const char *name, const int *info, size_t len)
{
  seen(name, *info, len);
  gx_xerbla_64 = false;
}

/* The ILP64 entry points report here, as OpenBLAS's ILP64 build does. */
__attribute__((visibility("default"))) void xerbla_64_(const char *name, const int64_t *info,
                                                        size_t len)
{
  seen(name, (int)*info, len);
  gx_xerbla_64 = true;
}

/* ---- main ----------------------------------------------------------------------- */

static bool parse(int argc, char **argv, struct gx_opts *o)
{
  *o = (struct gx_opts){.max_dim = 70, .seed = 20261127, .label = ""};
  o->dtypes[HT_S] = o->dtypes[HT_D] = o->dtypes[HT_C] = o->dtypes[HT_Z] = true;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--quick") == 0) {
      o->quick = true;
      continue;
    }
    if (v == NULL)
      return false;
    i++;
    if (strcmp(a, "--max-dim") == 0) {
      o->max_dim = atoi(v);
    } else if (strcmp(a, "--seed") == 0) {
      o->seed = strtoull(v, NULL, 0);
    } else if (strcmp(a, "--label") == 0) {
      o->label = v;
    } else if (strcmp(a, "--names") == 0) {
      if (strcmp(v, "ilp64") != 0 && strcmp(v, "lp64") != 0)
        return false;
      o->ilp64 = strcmp(v, "ilp64") == 0;
    } else if (strcmp(a, "--dtypes") == 0) {
      char buf[64];
      snprintf(buf, sizeof buf, "%s", v);
      memset(o->dtypes, 0, sizeof o->dtypes);
      for (char *t = strtok(buf, ","); t != NULL; t = strtok(NULL, ",")) {
        enum ht_dtype d;
        if (!ht_dtype_parse(t, &d) || d == HT_H || d == HT_SH)
          return false;
        o->dtypes[d] = true;
      }
    } else {
      return false;
    }
  }
  return o->max_dim >= 1;
}

int main(int argc, char **argv)
{
  struct gx_opts o;
  ht_crash_guard();
  if (argc >= 3 && strcmp(argv[1], "big") == 0) {
    gx_batch_big(atoi(argv[2]), argc >= 4 ? argv[3] : "");
  } else if (argc >= 2 && strcmp(argv[1], "errors") == 0) {
    gx_errors(argc >= 3 && strcmp(argv[2], "ilp64") == 0);
  } else if (argc >= 2 && strcmp(argv[1], "gemmt") == 0 && parse(argc, argv, &o)) {
    gx_gemmt_cases(&o);
  } else if (argc >= 2 && strcmp(argv[1], "batch") == 0 && parse(argc, argv, &o)) {
    gx_batch_cases(&o);
  } else {
    fprintf(stderr, "usage: gemmx gemmt|batch [--dtypes s,d,c,z] [--max-dim N] [--quick] "
                    "[--seed S] [--label TEXT] [--names lp64|ilp64]\n       gemmx errors [ilp64]\n"
                    "       gemmx big COUNT [LABEL]\n");
    return 2;
  }
  return gx_done();
}
