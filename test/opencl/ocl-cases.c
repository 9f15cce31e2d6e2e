/* The OpenCL engine's own cases, sized for slow runs (oclgrind, valgrind,
 * injected faults) and for sizes of several thousand:
 *
 *   ocl-cases [--set edges|big|rows|deep|fork] [--size N] [--shapes N] [--dtypes s,h,sh,d,c,z]
 *             [--label T]
 *
 * edges: every transpose pair on shapes around the kernel's tiles (1,
 *        primes, tile +- 1, several tiles), beta = 0 with NaN/Inf in C and
 *        beta = 0.5, column- and row-major, padded leading dimensions and
 *        odd view offsets; every element checked against a double reference
 *        and every cell outside C's block checked untouched (test/testutil);
 *        --shapes N keeps the first N shapes (slow simulators).
 * big:   two calls per dtype at about N (N^3 column-major NN, and a
 *        row-major TT of (N-1) x (N+3) x (N/2+1)), checked on the first and
 *        last row and column and 4096 random elements (a full double
 *        reference would take minutes at N = 3000); complex dtypes get a
 *        complex alpha and, in the second call, op = C and R.
 * rows:  the big set's two calls with m = 2N + 70 and k = 40 (n as big's):
 *        tall enough that a staged call cuts A into row blocks, cheap
 *        enough for a CPU device at N = 1100.
 * deep:  the rows set with k as big's (N and N/2 + 1): deep enough for
 *        leading passes over k (backends/opencl/run_lead.c); complex NN
 *        with beta 0, where a complex call takes them.
 * fork:  an engine call in the parent, then the same in a forked child
 *        (which must not use the parent's OpenCL objects) and again in the
 *        parent; every result checked.
 * Prints TAP, one line per dtype and group.  Which engine ran is the
 * caller's business (HOPBLAS_BACKEND, HOPBLAS_TRACE). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static const int trans[4][2] = {{HT_N, HT_N}, {HT_N, HT_T}, {HT_T, HT_N}, {HT_T, HT_T}};
static const int edge_shapes[][3] = {{1, 1, 1},    {2, 3, 5},     {17, 9, 33},   {33, 65, 17},
                                     {64, 64, 64}, {65, 31, 70},  {130, 67, 129}};

static int tap_n, tap_failed;

static void tap(bool ok, const char *label, const char *desc, const char *call, const char *why)
{
  printf("%s %d - %s%s\n", ok ? "ok" : "not ok", ++tap_n, label, desc);
  if (!ok) {
    printf("#   first failing call: %s\n#   %s\n", call, why);
    tap_failed++;
  }
}

/* op(X)(r, c) of a snapshot as (re, im): transposed and conjugated as t says. */
static void op_get(const struct ht_mat *x, int t, int r, int c, double v[2])
{
  bool tr = t == HT_T || t == HT_CT;
  for (int p = 0; p < 2; p++)
    v[p] = p == 1 && !x->cplx ? 0.0 : ht_mat_get_part(x, x->saved, tr ? c : r, tr ? r : c, p);
  if (t == HT_CT || t == HT_CN)
    v[1] = -v[1];
}

/* Element (i, j) of C (each part of a complex one) against a double
 * reference from the snapshots, with the contract's bound. */
static bool element_ok(const struct ht_call *c, int i, int j, char *why)
{
  double s[2] = {0.0, 0.0}, sa = 0.0;
  for (int l = 0; l < c->k; l++) {
    double a[2], b[2];
    op_get(&c->a, c->ta, i, l, a);
    op_get(&c->b, c->tb, l, j, b);
    s[0] += a[0] * b[0] - a[1] * b[1];
    s[1] += a[0] * b[1] + a[1] * b[0];
    sa += (fabs(a[0]) + fabs(a[1])) * (fabs(b[0]) + fabs(b[1]));
  }
  bool cplx = ht_dtypes[c->dtype].cplx;
  double c0[2] = {0.0, 0.0};
  for (int p = 0; c->beta != 0.0 || c->beta_im != 0.0 ? p < (cplx ? 2 : 1) : false; p++)
    c0[p] = ht_mat_get_part(&c->c, c->c.saved, i, j, p);
  double ref[2] = {c->alpha * s[0] - c->alpha_im * s[1] + c->beta * c0[0] - c->beta_im * c0[1],
                   c->alpha * s[1] + c->alpha_im * s[0] + c->beta * c0[1] + c->beta_im * c0[0]};
  double alpha = fabs(c->alpha) + fabs(c->alpha_im);
  double bc0 = (fabs(c->beta) + fabs(c->beta_im)) * (fabs(c0[0]) + fabs(c0[1]));
  double bound = ht_bound_dt(c->dtype, 2.0, c->k, alpha, sa, bc0);
  for (int p = 0; p < (cplx ? 2 : 1); p++) {
    double got = ht_mat_get_part(&c->c, c->c.buf, i, j, p);
    if (!ht_element_ok(c->dtype, got, ref[p], bound)) {
      snprintf(why, 512, "C(%d,%d) part %d = %.17g, expected %.17g within %.3g", i, j, p, got,
               ref[p], bound);
      return false;
    }
  }
  return true;
}

/* The first and last row and column, and 4096 random elements. */
static bool sampled_check(const struct ht_call *c, struct ht_rng *r, char *why)
{
  for (int i = 0; i < c->m; i++)
    if (!element_ok(c, i, 0, why) || !element_ok(c, i, c->n - 1, why))
      return false;
  for (int j = 0; j < c->n; j++)
    if (!element_ok(c, 0, j, why) || !element_ok(c, c->m - 1, j, why))
      return false;
  for (int s = 0; s < 4096; s++)
    if (!element_ok(c, ht_rng_int(r, c->m), ht_rng_int(r, c->n), why))
      return false;
  return true;
}

/* One call with random pads and offsets; false with the call and why on failure. */
static bool one_call(struct ht_call *c, struct ht_rng *r, bool sampled, char *call, char *why)
{
  static const int pads[3] = {0, 1, 3}, offs[3] = {0, 1, 3};
  int pad[3], off[3];
  for (int i = 0; i < 3; i++)
    pad[i] = pads[ht_rng_int(r, 3)], off[i] = offs[ht_rng_int(r, 3)];
  if (!ht_call_alloc(c, pad, off)) {
    snprintf(call, 512, "%s %dx%dx%d", ht_symbol(c->dtype, c->entry), c->m, c->n, c->k);
    snprintf(why, 512, "test out of memory");
    return false;
  }
  ht_call_fill(c, r);
  ht_call_run(c);
  bool ok = sampled ? sampled_check(c, r, why) : ht_call_check(c, 2.0, why, 512);
  ht_call_describe(c, call, 512);
  ht_call_free(c);
  return ok;
}

static void run_edges(enum ht_dtype dt, struct ht_rng *r, int shapes, const char *label)
{
  for (int zero = 1; zero >= 0; zero--) {
    int calls = 0, failures = 0;
    char call[512], why[512], first_call[512] = "", first_why[512] = "";
    for (int s = 0; s < shapes; s++)
      for (int t = 0; t < 4; t++) {
        struct ht_call c = {.dtype = dt, .entry = HT_CBLAS, .order = (s + t) % 2 ? HT_ROW : HT_COL,
                            .ta = trans[t][0], .tb = trans[t][1], .m = edge_shapes[s][0],
                            .n = edge_shapes[s][1], .k = edge_shapes[s][2],
                            .alpha = t % 2 ? -1.5 : 1.0, .beta = zero ? 0.0 : 0.5};
        calls++;
        if (!one_call(&c, r, false, call, why) && failures++ == 0)
          strcpy(first_call, call), strcpy(first_why, why);
      }
    char desc[160];
    snprintf(desc, sizeof desc, "%s: edge shapes, all transposes, %s (%d calls)",
             ht_symbol(dt, HT_CBLAS), zero ? "beta == 0 over NaN/Inf" : "beta = 0.5", calls);
    tap(failures == 0, label, desc, first_call, first_why);
  }
}

static void run_big(enum ht_dtype dt, struct ht_rng *r, int n, bool tall, bool deep,
                    const char *label)
{
  struct ht_call calls[2] = {
    {.dtype = dt, .entry = HT_CBLAS, .order = HT_COL, .ta = HT_N, .tb = HT_N, .m = n, .n = n,
     .k = n, .alpha = 0.5, .beta = -1.0},
    {.dtype = dt, .entry = HT_CBLAS, .order = HT_ROW, .ta = HT_T, .tb = HT_T, .m = n - 1,
     .n = n + 3, .k = n / 2 + 1, .alpha = 1.0, .beta = 0.0},
  };
  for (int i = 0; tall && i < 2; i++)
    calls[i].m = 2 * n + 70, calls[i].k = deep ? calls[i].k : 40;
  if (ht_dtypes[dt].cplx) { /* a complex alpha, and the conjugate transposes */
    calls[0].alpha_im = 0.25, calls[1].ta = HT_CT, calls[1].tb = HT_CN;
    calls[1].beta = 0.5, calls[1].beta_im = 0.0;
    calls[0].beta = deep ? 0.0 : calls[0].beta;
  }
  for (int i = 0; i < 2; i++) {
    char call[512], why[512] = "", desc[160];
    bool ok = one_call(&calls[i], r, true, call, why);
    snprintf(desc, sizeof desc, "%s %dx%dx%d %s, sampled check", ht_symbol(dt, HT_CBLAS),
             calls[i].m, calls[i].n, calls[i].k,
             i == 0 ? "NN" : ht_dtypes[dt].cplx ? "row-major CR" : "row-major TT");
    tap(ok, label, desc, call, why);
  }
}

/* One sgemm call checked; the child's verdict comes back as its exit status. */
static bool fork_call(struct ht_rng *r, char *why)
{
  char call[512];
  struct ht_call c = {.dtype = HT_S, .entry = HT_CBLAS, .order = HT_COL, .ta = HT_N, .tb = HT_T,
                      .m = 33, .n = 65, .k = 17, .alpha = 1.0, .beta = 0.5};
  return one_call(&c, r, false, call, why);
}

static void run_fork(struct ht_rng *r, const char *label)
{
  char why[512] = "";
  tap(fork_call(r, why), label, "a call in the parent, before the fork", "", why);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0)
    _exit(fork_call(r, why) ? 0 : 1);
  int status = -1;
  waitpid(pid, &status, 0);
  tap(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0, label,
      "the same call in a forked child", "", "the child's result was wrong or it died");
  tap(fork_call(r, why), label, "a call in the parent, after the fork", "", why);
}

int main(int argc, char **argv)
{
  const char *set = "edges", *label = "";
  bool dtypes[HT_DTYPE_COUNT] = {true, true, true}; /* s, h, sh unless --dtypes says */
  int size = 2000, nedge = (int)(sizeof edge_shapes / sizeof edge_shapes[0]), shapes = nedge;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--set") == 0)
      set = argv[i + 1];
    else if (strcmp(argv[i], "--size") == 0)
      size = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--shapes") == 0)
      shapes = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--label") == 0)
      label = argv[i + 1];
    else if (strcmp(argv[i], "--dtypes") == 0)
      for (int d = 0; d < HT_DTYPE_COUNT; d++) {
        char list[64], item[8];
        snprintf(list, sizeof list, ",%s,", argv[i + 1]);
        snprintf(item, sizeof item, ",%s,", ht_dtypes[d].name);
        dtypes[d] = strstr(list, item) != NULL;
      }
    else {
      fprintf(stderr,
              "usage: ocl-cases [--set edges|big|rows|deep|fork] [--size N] [--shapes N] [--dtypes s,h,sh,d,c,z] "
              "[--label T]\n");
      return 2;
    }
  }
  bool deep = strcmp(set, "deep") == 0, tall = deep || strcmp(set, "rows") == 0;
  bool big = tall || strcmp(set, "big") == 0;
  bool forked = strcmp(set, "fork") == 0;
  if ((!big && !forked && strcmp(set, "edges") != 0) || size < 8 || shapes < 1 ||
      shapes > nedge) {
    fprintf(stderr, "ocl-cases: --set edges|big|rows|deep|fork, --size >= 8, --shapes 1..%d\n", nedge);
    return 2;
  }
  struct ht_rng r = {20260101};
  if (forked)
    run_fork(&r, label);
  for (int d = 0; d < HT_DTYPE_COUNT && !forked; d++)
    if (dtypes[d]) {
      if (big)
        run_big((enum ht_dtype)d, &r, size, tall, deep, label);
      else
        run_edges((enum ht_dtype)d, &r, shapes, label);
    }
  printf("1..%d\n", tap_n);
  return tap_failed != 0;
}
