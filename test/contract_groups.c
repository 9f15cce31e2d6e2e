/* The groups of the contract sweep.  Every call gets its own ld padding
 * (0, 1, 2 or 5 above the minimum) and view offsets (0, 1 or 3 elements,
 * so pointers are not 8- or 16-byte aligned), NaN in A's and B's padding
 * and guards, sentinels around C; ht_call_check verifies all of it. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contract.h"

struct ctx {
  const struct ct_opts *o;
  const struct ct_group *g;
  struct ht_rng *rng;
  struct ct_result *res;
};

/* Per-case hook run after the standard fill (edge values, fixed cases). */
typedef void (*fill_hook)(struct ht_call *c, struct ht_rng *r, const void *arg);

/* Real dtypes: N, T and ConjTrans (a transpose there); complex ones add
 * ConjNoTrans, and ConjTrans conjugates. */
static const int trans_real[9][2] = {{HT_N, HT_N},   {HT_N, HT_T},  {HT_N, HT_CT},
                                     {HT_T, HT_N},   {HT_T, HT_T},  {HT_T, HT_CT},
                                     {HT_CT, HT_N},  {HT_CT, HT_T}, {HT_CT, HT_CT}};
static const int trans_complex[16][2] = {
  {HT_N, HT_N},  {HT_N, HT_T},  {HT_N, HT_CT},  {HT_N, HT_CN},  {HT_T, HT_N},  {HT_T, HT_T},
  {HT_T, HT_CT}, {HT_T, HT_CN}, {HT_CT, HT_N},  {HT_CT, HT_T},  {HT_CT, HT_CT}, {HT_CT, HT_CN},
  {HT_CN, HT_N}, {HT_CN, HT_T}, {HT_CN, HT_CT}, {HT_CN, HT_CN}};
/* --quick: each transpose, ConjTrans included, on both operands (complex: ConjNoTrans too). */
static const int trans_quick[8][2] = {{HT_N, HT_N},  {HT_N, HT_T},  {HT_T, HT_N},  {HT_T, HT_T},
                                      {HT_CT, HT_N}, {HT_N, HT_CT}, {HT_CN, HT_T}, {HT_CT, HT_CN}};

const char *ct_kind_name(enum ct_kind kind)
{
  static const char *const names[] = {
    "shapes 0..3, all orders, transposes, alpha, beta",
    "primes, tall and skinny shapes",
    "beta == 0 with NaN and Inf in C",
    "alpha == 0 with NaN in A and B",
    "fp16 edge values",
    "large sizes",
  };
  return names[kind];
}

static int clamp(const struct ctx *x, int d) { return d > x->o->max_dim ? x->o->max_dim : d; }

/* alpha and beta from {0, 1, -1, 0.5, random}, exact in the call's type;
 * complex: {0, 1, -1, i, random in both parts}. */
static void scalar(const struct ctx *x, int which, double v[2])
{
  static const double fixed[4][2] = {{0.0, 0.0}, {1.0, 0.0}, {-1.0, 0.0}, {0.5, 0.0}};
  enum ht_dtype dt = x->g->dtype;
  bool cx = ht_dtypes[dt].cplx;
  v[0] = v[1] = 0.0;
  if (which < 4) {
    v[0] = cx && which == 3 ? 0.0 : fixed[which][0];
    v[1] = cx && which == 3 ? 1.0 : fixed[which][1];
    return;
  }
  for (int p = 0; p < (cx ? 2 : 1); p++) {
    double r = ht_rng_uniform(x->rng, -2.0, 2.0);
    v[p] = dt == HT_H ? ht_round_half(r) : ht_dtypes[dt].eps == FLT_EPSILON ? (double)(float)r : r;
  }
}

/* alpha and beta as (re, im); the imaginary parts are ignored by real dtypes. */
static void run_case(struct ctx *x, int order, const int tr[2], int m, int n, int k,
                     const double alpha[2], const double beta[2], fill_hook hook, const void *arg)
{
  struct ht_rng *r = x->rng;
  struct ht_call c = {.dtype = x->g->dtype, .entry = x->g->entry, .order = order, .ta = tr[0],
                      .tb = tr[1], .m = m, .n = n, .k = k, .alpha = alpha[0], .beta = beta[0]};
  if (ht_dtypes[c.dtype].cplx) {
    c.alpha_im = alpha[1], c.beta_im = beta[1];
    c.three_m = ht_rng_int(r, 4) == 0; /* the 3m forms: the same contract on the CPU */
  }
  if (c.entry == HT_FORTRAN) {
    c.lower_case = ht_rng_int(r, 2);
    c.no_underscore = c.dtype != HT_H && !c.three_m && ht_rng_int(r, 3) == 0;
    c.no_underscore = c.no_underscore && x->o->names == HT_NAMES_LP64; /* the others have none */
  }
  c.names = x->o->names;
  static const int pads[4] = {0, 1, 2, 5}, offs[3] = {0, 1, 3};
  int pad[3], off[3];
  for (int i = 0; i < 3; i++)
    pad[i] = pads[ht_rng_int(r, 4)], off[i] = offs[ht_rng_int(r, 3)];
  x->res->calls++;
  char why[512] = "";
  bool ok = ht_call_alloc(&c, pad, off);
  if (!ok) {
    snprintf(why, sizeof why, "test out of memory");
  } else {
    ht_call_fill(&c, r);
    if (hook != NULL)
      hook(&c, r, arg);
    ht_crash_note(&c);
    ht_call_run(&c);
    ok = ht_call_check(&c, x->o->tol, why, sizeof why);
  }
  if (!ok && x->res->failures++ == 0) {
    ht_call_describe(&c, x->res->first_call, sizeof x->res->first_call);
    snprintf(x->res->first_why, sizeof x->res->first_why, "%s", why);
  }
  ht_call_free(&c);
}

/* Every order the entry point has, every transpose pair of the mode. */
static void sweep(struct ctx *x, int m, int n, int k, int ab_first, int ab_count, int *ab_cursor,
                  fill_hook hook, const void *arg)
{
  static const int orders[2] = {HT_COL, HT_ROW};
  bool cx = ht_dtypes[x->g->dtype].cplx;
  /* Complex: all 16 pairs on the small shapes, the quick 8 on the larger ones (run time). */
  bool quick = x->o->quick || (cx && x->g->kind != CT_SMALL);
  int norders = x->g->entry == HT_CBLAS ? 2 : 1;
  int npairs = quick ? (cx ? 8 : 6) : cx ? 16 : 9;
  for (int o = 0; o < norders; o++)
    for (int t = 0; t < npairs; t++) {
      const int *tr = quick ? trans_quick[t] : cx ? trans_complex[t] : trans_real[t];
      int p = ab_first + (*ab_cursor)++ % ab_count;
      double alpha[2], beta[2];
      scalar(x, p / 5, alpha);
      scalar(x, p % 5, beta);
      run_case(x, orders[o], tr, m, n, k, alpha, beta, hook, arg);
    }
}

static void group_small(struct ctx *x)
{
  static const int quick[10][3] = {{0, 2, 2}, {2, 0, 2}, {2, 2, 0}, {1, 1, 1}, {1, 2, 3},
                                   {3, 2, 1}, {2, 3, 1}, {3, 3, 3}, {2, 2, 2}, {3, 1, 2}};
  /* Complex: 10 of the 25 alpha/beta pairs per shape and transpose, the
   * cursor walking on through all 25 (16 transpose pairs make up for it). */
  int cursor = 0, reps = x->o->quick ? 1 : ht_dtypes[x->g->dtype].cplx ? 10 : 25;
  for (int s = 0; s < (x->o->quick ? 10 : 64); s++) {
    int m = x->o->quick ? quick[s][0] : s / 16, n = x->o->quick ? quick[s][1] : s / 4 % 4,
        k = x->o->quick ? quick[s][2] : s % 4;
    /* Full mode: all 25 alpha/beta pairs for every shape and transpose. */
    for (int rep = 0; rep < reps; rep++)
      sweep(x, clamp(x, m), clamp(x, n), clamp(x, k), 0, 25, &cursor, NULL, NULL);
  }
}

static void group_shapes(struct ctx *x)
{
  static const int shapes[][3] = {
    {5, 7, 11},    {7, 11, 13},    {13, 1, 17},     {1, 19, 23},     {29, 31, 1},   {17, 5, 31},
    {31, 37, 41},  {61, 67, 3},    {1, 97, 89},     {127, 1, 131},   {300, 2, 5},   {2, 300, 7},
    {5, 7, 300},   {257, 3, 257},  {3, 257, 2},     {64, 64, 64},    {65, 63, 129}, {131, 127, 67},
    {211, 199, 101}, {293, 7, 283}, {1000, 1000, 1000},
  };
  int n = (int)(sizeof shapes / sizeof shapes[0]), cursor = 0;
  for (int s = 0; s < (x->o->quick ? 8 : n); s++)
    sweep(x, clamp(x, shapes[s][0]), clamp(x, shapes[s][1]), clamp(x, shapes[s][2]), 0, 25, &cursor,
          NULL, NULL);
}

static const int special_shapes[][3] = {{1, 1, 1},     {2, 3, 4},   {7, 5, 3},    {16, 16, 16},
                                        {33, 17, 9},   {64, 1, 64}, {97, 89, 13}, {200, 150, 70},
                                        {3, 4, 0},     {17, 1, 0}};

static void group_beta0(struct ctx *x)
{
  for (int s = 0; s < (x->o->quick ? 4 : 10); s++) /* beta index 0: beta == 0 */
    for (int a = 0; a < 5; a++) {
      int p = a * 5, one = 0;
      sweep(x, clamp(x, special_shapes[s][0]), clamp(x, special_shapes[s][1]),
            clamp(x, special_shapes[s][2]), p, 1, &one, NULL, NULL);
    }
}

static void group_alpha0(struct ctx *x)
{
  for (int s = 0; s < (x->o->quick ? 4 : 10); s++) /* alpha index 0: alpha == 0 */
    for (int b = 0; b < 5; b++) {
      int one = 0;
      sweep(x, clamp(x, special_shapes[s][0]), clamp(x, special_shapes[s][1]),
            clamp(x, special_shapes[s][2]), b, 1, &one, NULL, NULL);
    }
}

static void group_large(struct ctx *x)
{
  bool cx = ht_dtypes[x->g->dtype].cplx;
  int n = x->o->large, col_nn[2] = {HT_N, HT_N}, tt[2] = {HT_T, cx ? HT_CT : HT_T},
      tc[2] = {cx ? HT_CN : HT_T, HT_CT};
  const double half[2] = {0.5, cx ? -0.25 : 0.0}, minus1[2] = {-1.0, 0.0}, one[2] = {1.0, 0.0},
               zero[2] = {0.0, 0.0};
  run_case(x, HT_COL, col_nn, n, n, n, half, minus1, NULL, NULL);
  if (x->g->entry == HT_CBLAS)
    run_case(x, HT_ROW, tt, n - 1, n + 3, n / 2 + 1, one, zero, NULL, NULL);
  else
    run_case(x, HT_COL, tc, n - 1, n + 3, n / 2 + 1, one, zero, NULL, NULL);
}

/* ---- fp16 edge values (cblas_hgemm, hgemm_, cblas_shgemm) -------------- */

/* Mostly ordinary halves; 10% subnormal, 4% signed zero, 5% large (products
 * and sums overflow half), 1% +-inf, 1% NaN. */
static double edge_value(struct ht_rng *r)
{
  static const double big[6] = {256.0, 255.875, 4096.0, 30000.0, 60000.0, 65504.0};
  int u = ht_rng_int(r, 100);
  double sign = ht_rng_int(r, 2) ? -1.0 : 1.0;
  if (u < 10)
    return sign * ldexp(1 + ht_rng_int(r, 1023), -24);
  if (u < 14)
    return sign * 0.0;
  if (u < 19)
    return sign * big[ht_rng_int(r, 6)];
  if (u < 20)
    return sign * INFINITY;
  if (u < 21)
    return NAN;
  return ht_round_half(ht_rng_uniform(r, -2.0, 2.0));
}

static void edge_fill(struct ht_call *c, struct ht_rng *r, const void *arg)
{
  if (c->alpha != 0.0) {
    for (int i = 0; i < c->a.rows; i++)
      for (int j = 0; j < c->a.cols; j++)
        ht_mat_set(&c->a, i, j, edge_value(r));
    for (int i = 0; i < c->b.rows; i++)
      for (int j = 0; j < c->b.cols; j++)
        ht_mat_set(&c->b, i, j, edge_value(r));
  }
  if (c->beta != 0.0)
    for (int i = 0; i < c->m; i++)
      for (int j = 0; j < c->n; j++)
        ht_mat_set(&c->c, i, j, edge_value(r));
}

/* One dot product C(0,0) = alpha * a.b + beta * c0 with chosen values. */
struct fixed_case {
  int k;
  double a[3], b[3], alpha, beta, c0;
};

static void fixed_fill(struct ht_call *c, struct ht_rng *r, const void *arg)
{
  const struct fixed_case *f = arg;
  for (int l = 0; l < f->k; l++) {
    ht_mat_set(&c->a, c->ta == HT_N ? 0 : l, c->ta == HT_N ? l : 0, f->a[l]);
    ht_mat_set(&c->b, c->tb == HT_N ? l : 0, c->tb == HT_N ? 0 : l, f->b[l]);
  }
  if (f->beta != 0.0)
    ht_mat_set(&c->c, 0, 0, f->c0);
}

static void ct_half_edges(struct ctx *x)
{
  static const int shapes[8][3] = {{1, 1, 1}, {2, 2, 2}, {3, 5, 1}, {7, 3, 2},
                                   {4, 4, 8}, {16, 9, 3}, {33, 17, 5}, {5, 5, 17}};
  /* alpha 1, -1, 0.5, random; beta 0, 1, -1, 0.5 (indices into scalar()). */
  static const int pairs[8] = {5, 6, 7, 8, 10, 16, 18, 20};
  for (int s = 0; s < (x->o->quick ? 4 : 8); s++)
    for (int p = 0; p < (x->o->quick ? 2 : 8); p++) {
      int one = 0;
      sweep(x, clamp(x, shapes[s][0]), clamp(x, shapes[s][1]), clamp(x, shapes[s][2]),
            pairs[p], 1, &one, edge_fill, NULL);
    }
  const double inf = INFINITY, t24 = 0x1p-24;
  const struct fixed_case cases[] = {
    {1, {256}, {256}, 1, 0, 0},                   /* 65536: overflows half when rounded */
    {1, {255.875}, {256}, 1, 0, 0},               /* 65504: the largest half */
    {2, {60000, 60000}, {1, 1}, 1, 0, 0},         /* sum overflows half */
    {2, {60000, 60000}, {1, -1}, 1, 0, 0},        /* 0: needs fp32 accumulation */
    {1, {0x1p-14}, {0x1p-10}, 1, 0, 0},           /* smallest subnormal */
    {1, {t24}, {1024}, 1, 0, 0},                  /* subnormal input */
    {3, {t24, t24, t24}, {1, 1, 1}, 1, 0, 0},     /* subnormal sum */
    {1, {inf}, {0}, 1, 0, 0},                     /* inf * 0: NaN */
    {2, {inf, -inf}, {1, 1}, 1, 0, 0},            /* inf - inf: NaN */
    {2, {inf, 1}, {2, 3}, 1, 0, 0},               /* inf */
    {1, {NAN}, {0}, 1, 0, 0},                     /* NaN */
    {1, {32}, {1}, 1, 1, 65504},                  /* beta C + AB overflows half */
    {1, {65504}, {65504}, 0x1p-10, 0, 0},         /* scaled past half's range */
    {1, {0x1p-16}, {1}, 65504, 0, 0},             /* large alpha, subnormal A */
    {1, {1}, {1}, 1, 1, inf},                     /* Inf in C with beta != 0 */
  };
  static const int variants[4][2] = {{HT_N, HT_N}, {HT_T, HT_N}, {HT_N, HT_T}, {HT_T, HT_CT}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int v = 0; v < 4; v++)
      run_case(x, v % 2 == 0 || x->g->entry == HT_FORTRAN ? HT_COL : HT_ROW, variants[v], 1, 1,
               cases[i].k, (const double[2]){cases[i].alpha, 0.0},
               (const double[2]){cases[i].beta, 0.0}, fixed_fill, &cases[i]);
}

void ct_run_group(const struct ct_opts *o, const struct ct_group *g, struct ht_rng *rng,
                  struct ct_result *res)
{
  struct ctx x = {o, g, rng, res};
  switch (g->kind) {
  case CT_SMALL: group_small(&x); break;
  case CT_SHAPES: group_shapes(&x); break;
  case CT_BETA0: group_beta0(&x); break;
  case CT_ALPHA0: group_alpha0(&x); break;
  case CT_HALF_EDGES: ct_half_edges(&x); break;
  case CT_LARGE: group_large(&x); break;
  default: break;
  }
}
