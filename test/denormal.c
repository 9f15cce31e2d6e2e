/* Subnormal floats through the public entry points, against the double
 * reference of doc/CONTRACT.md (its bound includes gradual underflow's
 * absolute part, so a correct subnormal result passes and a flushed one
 * fails).  The engine is whatever the environment selects; the calling
 * .test proves from HOPBLAS_TRACE which engine ran each case.
 *
 *   denormal --case operands|product|cancel|tiny [--label TEXT]
 *            [--expect-cpu-blas openblas|builtin]
 *
 *   operands  subnormals in A, in B, in C with beta != 0, as alpha, as beta
 *   product   normal A and B whose products are subnormal (alpha 1, and
 *             alpha 2^32, 2^60 scaling them to normal results)
 *   cancel    a subnormal partial sum (normal terms that cancel) and a
 *             subnormal alpha AB + beta C from cancellation
 *   tiny      a tiny (normal) alpha or beta scaling a result into the
 *             subnormal range
 *
 * Every call mixes rows and columns of ordinary values with the planted
 * ones, so a fix that recomputes too much or too little shows.  Before it
 * calls the library, each call is run through a model of a flushing engine
 * (every input, product, partial sum, alpha*sum, beta*C and result flushed
 * to zero) and must fail the check there: a call that could not catch a
 * flush fails the test itself.  Prints TAP, one line per call. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum plant {
  SUB_A, SUB_B, SUB_C, SUB_ALPHA, SUB_BETA, /* operands */
  PRODUCT,                                  /* product */
  CANCEL,                                   /* cancel */
  TINY,                                     /* tiny */
};

struct spec {
  enum plant plant;
  double alpha, beta;
};

static const struct spec operands[] = {
  {SUB_A, 1.0, 0.0}, {SUB_A, -0.5, 0x1p-100}, {SUB_B, 1.0, 0.0}, {SUB_B, 2.0, -0x1p-100},
  {SUB_C, 1.0, 1.0}, {SUB_C, 1.0, 0x1p30}, {SUB_ALPHA, 0x1p-140, 0.0}, {SUB_BETA, 1.0, 0x1p-140},
};
static const struct spec products[] = {
  {PRODUCT, 1.0, 0.0}, {PRODUCT, 0x1p32, 0.0}, {PRODUCT, -0x1p60, 0x1p-90},
};
static const struct spec cancels[] = {
  {CANCEL, 1.0, 0.0}, {CANCEL, 1.0, 1.0}, {CANCEL, 0x1p40, 0.0},
};
static const struct spec tinies[] = {
  {TINY, 0x1p-100, 0.0}, {TINY, -0x1p-100, 0x1p-100}, {TINY, 0x1p-110, 0x1p-90},
};

/* Shapes: a few elements, one across the QPUs' 16 x 64 block, and a deep
 * one that small OpenCL buffers cut in k (the host then adds beta C). */
static const int shapes[][3] = {{7, 5, 3}, {19, 70, 4}, {9, 6, 1500}};
enum { SHAPES = sizeof shapes / sizeof shapes[0] };
/* Orders and transposes, one per call in turn. */
static const int layouts[][3] = {{HT_COL, HT_N, HT_N}, {HT_ROW, HT_T, HT_N}, {HT_COL, HT_N, HT_T},
                                 {HT_ROW, HT_N, HT_T}, {HT_COL, HT_T, HT_T}};

/* Planted values, exact in the operand's type. */
static double subnormal(struct ht_rng *r)
{
  double v = ldexp((double)(1 + ht_rng_int(r, 0x7fffff)), -149);
  return ht_rng_int(r, 2) ? -v : v;
}

static double in_type(const struct ht_mat *x, double v)
{
  return x->esize == 2 ? ht_round_half(v) : (double)(float)v;
}

/* op(A)(i, l) and op(B)(l, j) of the caller, read and written. */
static int ra(const struct ht_call *c, int i, int l, int *col)
{
  *col = c->ta == HT_N ? l : i;
  return c->ta == HT_N ? i : l;
}

static int rb(const struct ht_call *c, int l, int j, int *col)
{
  *col = c->tb == HT_N ? j : l;
  return c->tb == HT_N ? l : j;
}

static void set_a(struct ht_call *c, int i, int l, double v)
{
  int col, row = ra(c, i, l, &col);
  ht_mat_set(&c->a, row, col, in_type(&c->a, v));
}

static void set_b(struct ht_call *c, int l, int j, double v)
{
  int col, row = rb(c, l, j, &col);
  ht_mat_set(&c->b, row, col, in_type(&c->b, v));
}

static double get_a(const struct ht_call *c, int i, int l)
{
  int col, row = ra(c, i, l, &col);
  return ht_mat_get(&c->a, c->a.buf, row, col);
}

static double get_b(const struct ht_call *c, int l, int j)
{
  int col, row = rb(c, l, j, &col);
  return ht_mat_get(&c->b, c->b.buf, row, col);
}

static void scale_row_a(struct ht_call *c, int i, double s)
{
  for (int l = 0; l < c->k; l++)
    set_a(c, i, l, get_a(c, i, l) * s);
}

static void scale_col_b(struct ht_call *c, int j, double s)
{
  for (int l = 0; l < c->k; l++)
    set_b(c, l, j, get_b(c, l, j) * s);
}

/* Rows i % 3 == 1 and 2 (and columns j % 2 == 1) carry the plant; rows
 * i % 3 == 0 stay ordinary, so the results mix both kinds. */
static void plant(struct ht_call *c, enum plant p, struct ht_rng *r)
{
  bool half_ab = c->dtype != HT_S;
  for (int i = 0; i < c->m; i++) {
    int cls = i % 3;
    switch (p) {
    case SUB_A: /* subnormal rows of A; odd columns of B scaled so that some results are normal */
      for (int l = 0; cls != 0 && l < c->k; l++)
        set_a(c, i, l, subnormal(r));
      break;
    case SUB_B:
      if (cls == 2)
        scale_row_a(c, i, 0x1p32);
      break;
    case SUB_C: /* A rows zero: C = beta * C0 with C0 subnormal */
    case SUB_BETA:
      if (cls != 0)
        scale_row_a(c, i, 0.0);
      for (int j = 0; cls != 0 && j < c->n; j++)
        ht_mat_set(&c->c, i, j, p == SUB_C ? subnormal(r) : ht_rng_uniform(r, -0x1p100, 0x1p100));
      break;
    case SUB_ALPHA: /* alpha * sum is normal: a flushed alpha loses all of it */
      scale_row_a(c, i, half_ab ? 0x1p8 : 0x1p40);
      break;
    case PRODUCT: /* 2^-70 * 2^-70: subnormal products of normal inputs */
      if (cls != 0)
        scale_row_a(c, i, 0x1p-70);
      break;
    case CANCEL:
      if (cls == 1) { /* (2^-125 (1 + u) - 2^-125) * 1: a subnormal partial sum */
        for (int l = 0; l < c->k; l++)
          set_a(c, i, l, 0.0);
        set_a(c, i, 0, ldexp(1.0 + ldexp(1 + ht_rng_int(r, 1 << 20), -23), -125));
        set_a(c, i, 1, -0x1p-125);
      } else if (cls == 2 && c->beta != 0.0) { /* alpha * 2^-124 + beta * (-2^-124 + u) */
        for (int l = 0; l < c->k; l++)
          set_a(c, i, l, 0.0);
        set_a(c, i, 0, 0x1p-124 / c->alpha);
        for (int j = 0; j < c->n; j++)
          ht_mat_set(&c->c, i, j, (-0x1p-124 + ldexp(1 + ht_rng_int(r, 1 << 21), -148)) / c->beta);
      }
      break;
    case TINY: /* alpha 2^-100 times sums of 2^-32: subnormal; beta C0 of 2^-128 likewise */
      if (cls == 1)
        scale_row_a(c, i, 0x1p-16);
      if (cls == 2 && c->beta != 0.0) {
        scale_row_a(c, i, 0.0);
        for (int j = 0; j < c->n; j++)
          ht_mat_set(&c->c, i, j, ldexp(ht_rng_uniform(r, -1, 1), -128) / c->beta);
      }
      break;
    }
  }
  for (int j = 0; j < c->n; j++) {
    bool odd = j % 2 == 1;
    if (p == SUB_A && odd)
      scale_col_b(c, j, 0x1p32);
    if (p == SUB_B && odd)
      for (int l = 0; l < c->k; l++)
        set_b(c, l, j, subnormal(r));
    if (p == PRODUCT && odd)
      scale_col_b(c, j, 0x1p-70);
    if (p == SUB_ALPHA)
      scale_col_b(c, j, half_ab ? 0x1p8 : 0x1p40);
    if (p == CANCEL)
      set_b(c, 0, j, 1.0), set_b(c, 1, j, 1.0);
    if (p == TINY && odd)
      scale_col_b(c, j, 0x1p-16);
  }
}

/* ---- a flushing engine, modelled: how many elements it gets wrong -------- */

static float ftz(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }

static int flushed_wrong(const struct ht_call *c, double tol)
{
  int wrong = 0;
  float alpha = ftz((float)c->alpha), beta = ftz((float)c->beta);
  for (int i = 0; i < c->m; i++)
    for (int j = 0; j < c->n; j++) {
      float acc = 0.0f;
      double s = 0.0, sa = 0.0;
      for (int l = 0; l < c->k; l++) {
        double a = get_a(c, i, l), b = get_b(c, l, j);
        acc = ftz(acc + ftz(ftz((float)a) * ftz((float)b)));
        s += a * b;
        sa += fabs(a * b);
      }
      double c0 = c->beta != 0.0 ? ht_mat_get(&c->c, c->c.saved, i, j) : 0.0;
      float got = ftz(alpha * acc);
      if (c->beta != 0.0)
        got = ftz(got + ftz(beta * ftz((float)c0)));
      double ref = c->alpha * s + c->beta * c0;
      double bound = ht_bound(tol, c->k, c->alpha, sa, c->beta * c0);
      wrong += !ht_element_ok(c->dtype, c->dtype == HT_H ? ht_round_half(got) : got, ref, bound);
    }
  return wrong;
}

/* ---- the calls -------------------------------------------------------------- */

static const char *plant_name(enum plant p)
{
  static const char *const names[] = {"subnormal A",     "subnormal B",       "subnormal C, beta != 0",
                                      "subnormal alpha", "subnormal beta",    "subnormal products",
                                      "cancellation",    "tiny alpha, beta"};
  return names[p];
}

/* SH and Fortran entries for the plants that make sense there: half A and
 * B hold no float subnormal, and their products are never subnormal. */
static bool applies(enum ht_dtype dt, enum plant p)
{
  return dt == HT_S || p == SUB_C || p == SUB_ALPHA || p == SUB_BETA || p == TINY;
}

static int run_one(const struct spec *s, enum ht_dtype dt, enum ht_entry e, int shape, int layout,
                   struct ht_rng *r, int num, const char *label, double tol)
{
  const int *sh = shapes[shape], *lay = layouts[e == HT_FORTRAN ? 0 : layout];
  struct ht_call c = {.dtype = dt, .entry = e, .order = lay[0], .ta = lay[1], .tb = lay[2],
                      .m = sh[0], .n = sh[1], .k = sh[2], .alpha = s->alpha, .beta = s->beta};
  const int pad[3] = {layout % 2, 0, 1}, off[3] = {1, 0, layout % 3};
  char desc[512], why[512] = "";
  bool ok = ht_call_alloc(&c, pad, off);
  if (!ok) {
    printf("not ok %d - %stest out of memory\n", num, label);
    return 1;
  }
  ht_call_fill(&c, r);
  plant(&c, s->plant, r);
  ht_mat_save(&c.c); /* the model reads C0 from the snapshot */
  int model = flushed_wrong(&c, tol);
  ht_crash_note(&c);
  ht_call_run(&c);
  ok = ht_call_check(&c, tol, why, sizeof why);
  ht_call_describe(&c, desc, sizeof desc);
  bool sensitive = model > 0;
  printf("%s %d - %s%s: %s (a flushing engine gets %d of %d elements wrong)\n",
         ok && sensitive ? "ok" : "not ok", num, label, plant_name(s->plant), desc, model, c.m * c.n);
  if (!ok)
    printf("#   %s\n", why);
  if (!sensitive)
    printf("#   this call cannot tell a flushing engine from a right one: the test is wrong\n");
  fflush(stdout);
  ht_call_free(&c);
  return ok && sensitive ? 0 : 1;
}

int main(int argc, char **argv)
{
  const char *which = NULL, *label = "", *expect = NULL;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--case") == 0)
      which = argv[i + 1];
    else if (strcmp(argv[i], "--label") == 0)
      label = argv[i + 1];
    else if (strcmp(argv[i], "--expect-cpu-blas") == 0)
      expect = argv[i + 1];
    else
      which = NULL, i = argc;
  }
  const struct spec *specs = NULL;
  size_t ns = 0;
#define PICK(name, arr) \
  if (which != NULL && strcmp(which, name) == 0) \
    specs = arr, ns = sizeof arr / sizeof arr[0];
  PICK("operands", operands) PICK("product", products) PICK("cancel", cancels) PICK("tiny", tinies)
#undef PICK
  if (specs == NULL || argc % 2 == 0 ||
      (expect != NULL && strcmp(expect, "openblas") != 0 && strcmp(expect, "builtin") != 0)) {
    fprintf(stderr, "usage: denormal --case operands|product|cancel|tiny [--label TEXT]\n"
                    "                [--expect-cpu-blas openblas|builtin]\n");
    return 2;
  }
  ht_crash_guard();
  static const struct { enum ht_dtype dt; enum ht_entry e; } entries[] = {
    {HT_S, HT_CBLAS}, {HT_S, HT_FORTRAN}, {HT_SH, HT_CBLAS}};
  int planned = 0;
  for (size_t s = 0; s < ns; s++)
    for (size_t e = 0; e < 3; e++)
      planned += applies(entries[e].dt, specs[s].plant) ? SHAPES : 0;
  printf("1..%d\n", planned + (expect != NULL));
  struct ht_rng r = {20261121};
  int num = 0, failed = 0, layout = 0;
  for (size_t s = 0; s < ns; s++)
    for (size_t e = 0; e < 3; e++)
      for (int shape = 0; shape < SHAPES && applies(entries[e].dt, specs[s].plant); shape++)
        failed += run_one(&specs[s], entries[e].dt, entries[e].e, shape, layout++ % 5, &r, ++num,
                          label, 2.0);
  if (expect != NULL) {
    bool want = strcmp(expect, "openblas") == 0, have = ht_openblas_mapped();
    printf("%s %d - %sCPU BLAS is %s (libopenblas %smapped)\n", want == have ? "ok" : "not ok",
           ++num, label, expect, have ? "" : "not ");
    failed += want != have;
  }
  return failed ? 1 : 0;
}
