/* The contract of the Level-3 routines beside GEMM (doc/CONTRACT.md)
 * through their public entry points, CBLAS (both orders) and Fortran (with
 * lower-case letters and the names without the underscore), against a long
 * double reference: every side, triangle, transpose and diagonal; NaN in
 * what must not be read (A's other triangle, a unit diagonal, Hermitian
 * diagonals' imaginary parts, A and B when alpha == 0, C when beta == 0); a
 * sentinel in C's other triangle and guard cells around every operand; ld
 * padding and odd view offsets.  The engine is whatever the environment
 * selects; the calling .test proves from HOPBLAS_TRACE which one ran.
 * Prints TAP, one line per group.
 *
 *   contract-l3 [--dtypes s,d,c,z] [--routines symm,trsm,...] [--entry cblas|fortran|all]
 *               [--names std|ilp64|scipy64|scipy] [--max-dim N] [--large N] [--quick]
 *               [--seed S] [--tol C] [--label TEXT]
 *
 * --names: the ILP64 names (cblas_ssymm64_, ssymm_64_: 64-bit integers) or
 * scipy-openblas's prefixed forms of them or of the standard ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract_l3.h"

struct opts {
  bool dtypes[HT_DTYPE_COUNT], routines[LT_ROUTINES], entries[2], quick;
  enum lt_names names;
  int max_dim, large;
  unsigned long long seed;
  double tol;
  const char *label;
};

enum group { G_ALL, G_ZERO, G_SHAPES, G_LARGE, G_ERRORS, G_COUNT };
static const char *const group_names[G_COUNT] = {
  "every side, triangle, transpose, diagonal and order, shapes 1..7",
  "alpha == 0 with NaN in A and B, beta == 0 with NaN and -Inf in C",
  "shapes up to 40, ld padding, view offsets",
  "large sizes",
  "argument errors: a bad letter (INFO 1), C's leading dimension, through xerbla",
};

/* The letters a routine takes, in this dtype. */
static const char *transposes(enum lt_routine r, enum ht_dtype dt)
{
  bool cx = ht_dtypes[dt].cplx;
  if (lt_triangular(r))
    return cx ? "NTCR" : "NTC";
  if (!lt_rank_k(r))
    return "N";
  return !cx ? "NTC" : lt_hermitian(r) ? "NC" : "NT";
}

struct ctx {
  const struct opts *o;
  enum ht_dtype dt;
  enum lt_routine r;
  enum ht_entry entry;
  struct ht_rng *rng;
  int calls, failures;
  char first[512], first_why[512];
};

/* {0, 1, -1, 0.5 (complex: i), random}; real where the routine takes it real. */
static void scalar(struct ctx *x, int which, bool real, double v[2])
{
  static const double fixed[4] = {0.0, 1.0, -1.0, 0.5};
  bool cx = ht_dtypes[x->dt].cplx && !real;
  v[0] = v[1] = 0.0;
  if (which < 4) {
    if (cx && which == 3)
      v[1] = 1.0;
    else
      v[0] = fixed[which];
    return;
  }
  for (int p = 0; p < (cx ? 2 : 1); p++) {
    double r = ht_rng_uniform(x->rng, -2.0, 2.0);
    v[p] = ht_dtypes[x->dt].eps > 1e-10 ? (double)(float)r : r;
  }
}

static int clamp(const struct ctx *x, int d) { return d > x->o->max_dim ? x->o->max_dim : d; }

static void one(struct ctx *x, bool row, char side, char uplo, char trans, char diag, int m, int n,
                int k, int alpha_which, int beta_which, bool views)
{
  struct lt_call c = {.dt = x->dt, .r = x->r, .entry = x->entry, .row_major = row, .side = side,
                      .uplo = uplo, .trans = trans, .diag = diag, .m = clamp(x, m),
                      .n = clamp(x, n), .k = clamp(x, k)};
  if (lt_rank_k(x->r))
    c.m = c.n;
  scalar(x, alpha_which, x->r == LT_HERK, c.alpha);
  scalar(x, beta_which, x->r == LT_HERK || x->r == LT_HER2K, c.beta);
  c.names = x->o->names;
  if (x->entry == HT_FORTRAN) /* the bare names are LP64's alone */
    c.lower_case = ht_rng_int(x->rng, 2), c.bare = c.names == LT_STD && ht_rng_int(x->rng, 3) == 0;
  static const int pads[3] = {0, 1, 5}, offs[3] = {0, 1, 3};
  int pad[3] = {0, 0, 0}, off[3] = {0, 0, 0};
  for (int i = 0; views && i < 3; i++)
    pad[i] = pads[ht_rng_int(x->rng, 3)], off[i] = offs[ht_rng_int(x->rng, 3)];
  x->calls++;
  char why[512] = "";
  bool ok = lt_alloc(&c, pad, off);
  if (!ok) {
    snprintf(why, sizeof why, "test out of memory");
  } else {
    lt_fill(&c, x->rng);
    char d[400];
    lt_describe(&c, d, sizeof d);
    ht_crash_note_text(d);
    ok = lt_run(&c, why, sizeof why) && lt_check(&c, x->o->tol, why, sizeof why);
  }
  if (!ok && x->failures++ == 0) {
    lt_describe(&c, x->first, sizeof x->first);
    snprintf(x->first_why, sizeof x->first_why, "%s", why);
  }
  lt_free(&c);
}

/* fn for every combination of the routine's letters and the entry's orders,
 * or for about `most` of them spread over all. */
static void each(struct ctx *x, void (*fn)(struct ctx *, bool, char, char, char, char, int),
                 int most)
{
  const char *ts = transposes(x->r, x->dt);
  int combos = (x->entry == HT_CBLAS ? 2 : 1) * (lt_rank_k(x->r) ? 1 : 2) * 2 * (int)strlen(ts) *
               (lt_triangular(x->r) ? 2 : 1);
  int skip = most > 0 && combos > most ? (combos + most - 1) / most : 1;
  int combo = 0;
  for (int row = 0; row < (x->entry == HT_CBLAS ? 2 : 1); row++)
    for (const char *s = lt_rank_k(x->r) ? "L" : "LR"; *s; s++)
      for (const char *u = "UL"; *u; u++)
        for (const char *t = ts; *t; t++)
          for (const char *d = lt_triangular(x->r) ? "NU" : "N"; *d; d++, combo++)
            if (combo % skip == 0)
              fn(x, row, *s, *u, *t, *d, combo);
}

static void g_all(struct ctx *x, bool row, char s, char u, char t, char d, int combo)
{
  static const int shapes[][3] = {{1, 1, 1}, {2, 3, 2}, {3, 2, 4}, {7, 5, 3}};
  int nshapes = x->o->quick ? 2 : 4;
  for (int i = 0; i < nshapes; i++)
    one(x, row, s, u, t, d, shapes[i][0], shapes[i][1], shapes[i][2], 1 + (combo + i) % 4,
        (combo + 2 * i) % 5, false);
}

static void g_zero(struct ctx *x, bool row, char s, char u, char t, char d, int combo)
{
  one(x, row, s, u, t, d, 5, 4, 3, 0, 2 + combo % 3, true); /* alpha == 0 */
  one(x, row, s, u, t, d, 6, 3, 5, 1 + combo % 4, 0, true); /* beta == 0 */
}

static void g_shapes(struct ctx *x, bool row, char s, char u, char t, char d, int combo)
{
  static const int shapes[][3] = {{17, 9, 13}, {33, 40, 31}, {1, 29, 8}, {29, 1, 1}};
  for (int i = 0; i < (x->o->quick ? 2 : 4); i++)
    one(x, row, s, u, t, d, shapes[i][0], shapes[i][1], shapes[i][2], 1 + (combo + i) % 4,
        (combo + i) % 5, true);
}

static void g_large(struct ctx *x, bool row, char s, char u, char t, char d, int combo)
{
  int n = x->o->large;
  one(x, row, s, u, t, d, n, n / 2 + 3, n - 1, 4, 1 + combo % 4, true);
}

/* Two errors: the first letter bad (side, or uplo for the rank-k ones:
 * INFO 1), then C's (trmm's B's) leading dimension one short. */
static void g_errors(struct ctx *x, bool row, char s, char u, char t, char d, int combo)
{
  (void)combo;
  for (int e = 0; e < 2; e++) {
    struct lt_call c = {.dt = x->dt, .r = x->r, .entry = x->entry, .row_major = row, .side = s,
                        .uplo = u, .trans = t, .diag = d, .m = 4, .n = 3, .k = 2,
                        .alpha = {1.0, 0.0}, .beta = {0.5, 0.0}, .names = x->o->names};
    if (lt_rank_k(x->r))
      c.m = c.n;
    int info = 1;
    if (e == 0 && lt_rank_k(x->r))
      c.uplo = 'X';
    else if (e == 0)
      c.side = 'X';
    x->calls++;
    char why[512] = "";
    static const int pad[3] = {0, 0, 0}, off[3] = {0, 0, 0};
    bool ok = lt_alloc(&c, pad, off);
    if (ok) {
      lt_fill(&c, x->rng);
      if (e == 1) { /* one short of the rows (columns, row-major) C has */
        c.c.ld--;
        info = lt_triangular(x->r) ? 11 : x->r == LT_SYRK || x->r == LT_HERK ? 10 : 12;
      }
      ok = lt_run_error(&c, info, why, sizeof why);
      if (e == 1)
        c.c.ld++;
    }
    if (!ok && x->failures++ == 0) {
      lt_describe(&c, x->first, sizeof x->first);
      snprintf(x->first_why, sizeof x->first_why, "%s", why);
    }
    lt_free(&c);
  }
}

static bool parse_list(const char *arg, bool *out, int count, bool (*find)(const char *, int *))
{
  char buf[128];
  snprintf(buf, sizeof buf, "%s", arg);
  memset(out, 0, sizeof(bool) * (size_t)count);
  for (char *t = strtok(buf, ","); t != NULL; t = strtok(NULL, ",")) {
    int i;
    if (!find(t, &i))
      return false;
    out[i] = true;
  }
  return true;
}

static bool find_dtype(const char *s, int *i)
{
  enum ht_dtype d;
  if (!ht_dtype_parse(s, &d) || (d != HT_S && d != HT_D && d != HT_C && d != HT_Z))
    return false;
  *i = (int)d;
  return true;
}

static bool find_routine(const char *s, int *i)
{
  for (int r = 0; r < LT_ROUTINES; r++)
    if (strcmp(s, lt_routine_names[r]) == 0)
      return *i = r, true;
  return false;
}

static bool parse_args(int argc, char **argv, struct opts *o)
{
  *o = (struct opts){.entries = {true, true}, .max_dim = 64, .seed = 20251126, .tol = 2.0,
                     .label = ""};
  o->dtypes[HT_S] = o->dtypes[HT_D] = o->dtypes[HT_C] = o->dtypes[HT_Z] = true;
  for (int r = 0; r < LT_ROUTINES; r++)
    o->routines[r] = true;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--quick") == 0) {
      o->quick = true;
      continue;
    }
    if (v == NULL)
      return false;
    i++;
    if (strcmp(a, "--dtypes") == 0 && parse_list(v, o->dtypes, HT_DTYPE_COUNT, find_dtype))
      continue;
    if (strcmp(a, "--routines") == 0 && parse_list(v, o->routines, LT_ROUTINES, find_routine))
      continue;
    if (strcmp(a, "--entry") == 0 &&
        (!strcmp(v, "cblas") || !strcmp(v, "fortran") || !strcmp(v, "all"))) {
      o->entries[HT_CBLAS] = strcmp(v, "fortran") != 0;
      o->entries[HT_FORTRAN] = strcmp(v, "cblas") != 0;
    } else if (strcmp(a, "--max-dim") == 0) {
      o->max_dim = atoi(v);
    } else if (strcmp(a, "--large") == 0) {
      o->large = atoi(v);
    } else if (strcmp(a, "--seed") == 0) {
      o->seed = strtoull(v, NULL, 0);
    } else if (strcmp(a, "--tol") == 0) {
      o->tol = atof(v);
    } else if (strcmp(a, "--label") == 0) {
      o->label = v;
    } else if (strcmp(a, "--names") == 0) {
      static const char *const names[] = {"std", "ilp64", "scipy64", "scipy"};
      int i = 0;
      while (i < 4 && strcmp(v, names[i]) != 0)
        i++;
      if (i == 4)
        return false;
      o->names = (enum lt_names)i;
    } else {
      return false;
    }
  }
  if (o->large > o->max_dim) /* the large group's sizes are not clamped */
    o->max_dim = o->large;
  return o->max_dim >= 1 && o->tol > 0.0 && o->large >= 0;
}

int main(int argc, char **argv)
{
  struct opts o;
  if (!parse_args(argc, argv, &o)) {
    fprintf(stderr, "usage: contract-l3 [--dtypes s,d,c,z] [--routines symm,...,trsm]\n"
                    "                   [--entry cblas|fortran|all] [--names std|ilp64|scipy64|scipy]\n"
                    "                   [--max-dim N] [--large N]\n"
                    "                   [--quick] [--seed S] [--tol C] [--label TEXT]\n");
    return 2;
  }
  ht_crash_guard();
  static const enum ht_dtype order[] = {HT_S, HT_D, HT_C, HT_Z};
  void (*const fns[G_COUNT])(struct ctx *, bool, char, char, char, char, int) = {
    g_all, g_zero, g_shapes, g_large, g_errors};
  int planned = 0;
  for (int pass = 0; pass < 2; pass++) {
    int failed = 0, num = 0;
    for (size_t d = 0; d < 4; d++)
      for (int r = 0; r < LT_ROUTINES; r++)
        for (int e = 0; e < 2; e++)
          for (int g = 0; g < G_COUNT; g++) {
            enum ht_dtype dt = order[d];
            if (!o.dtypes[dt] || !o.routines[r] || !o.entries[e] ||
                (lt_hermitian((enum lt_routine)r) && !ht_dtypes[dt].cplx) ||
                (g == G_LARGE && o.large == 0))
              continue;
            if (pass == 0) {
              planned++;
              continue;
            }
            struct ht_rng rng = {o.seed + 7919u * (unsigned)(num + 1)};
            struct ctx x = {.o = &o, .dt = dt, .r = (enum lt_routine)r, .entry = (enum ht_entry)e,
                            .rng = &rng};
            /* The large group takes four combinations (time), the errors two. */
            each(&x, fns[g], g == G_LARGE ? 4 : g == G_ERRORS ? 2 : 0);
            bool ok = x.calls > 0 && x.failures == 0;
            printf("%s %d - %s%s%s%s: %s (%d calls)\n", ok ? "ok" : "not ok", ++num, o.label,
                   e == HT_CBLAS ? "cblas_" : "", ht_dtypes[dt].name, lt_routine_names[r],
                   group_names[g], x.calls);
            if (!ok) {
              failed++;
              printf("# %d of %d calls failed; first: %s\n#   %s\n", x.failures, x.calls, x.first,
                     x.first_why);
            }
            fflush(stdout);
          }
    if (pass == 0) {
      printf("1..%d\n# seed %llu, max-dim %d%s, tol %g\n", planned, o.seed, o.max_dim,
             o.quick ? ", quick" : "", o.tol);
      continue;
    }
    return failed ? 1 : 0;
  }
  return 0;
}
