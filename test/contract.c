/* The contract sweep (doc/CONTRACT.md) through the public entry points,
 * against a double-precision reference.  The engine is whatever the
 * environment selects (HOPBLAS_BACKEND, HOPBLAS_MIN_FLOPS), so one program
 * tests every engine; the calling .test proves from HOPBLAS_TRACE which
 * engine ran.  Prints TAP: one line per group, a diagnostic for the first
 * failing call of a group.
 *
 *   contract [--max-dim N] [--dtypes s,d,c,z,h,sh] [--entry cblas|fortran|all]
 *            [--quick] [--large N] [--seed S] [--tol C]
 *            [--expect-cpu-blas openblas|builtin] [--label TEXT]
 *            [--names lp64|ilp64|scipy|scipy64]
 *
 * --dtypes: those of test/testutil_dtype.c's table, all by default; an
 * engine's tests pass the ones it declares (hop_engine_dtypes in test/lib.sh).
 * --label prefixes every test description (several runs in one script).
 * --names: the calls go through the ILP64 names (cblas_sgemm64_, sgemm_64_)
 * or scipy-openblas's prefixed ones instead of the standard names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"

static void usage(void)
{
  fprintf(stderr, "usage: contract [--max-dim N] [--dtypes s,d,c,z,h,sh] [--entry cblas|fortran|all]\n"
                  "                [--quick] [--large N] [--seed S] [--tol C]\n"
                  "                [--expect-cpu-blas openblas|builtin] [--label TEXT]\n"
                  "                [--names lp64|ilp64|scipy|scipy64]\n");
}

static bool parse_list(const char *arg, bool dt[HT_DTYPE_COUNT])
{
  char buf[64];
  snprintf(buf, sizeof buf, "%s", arg);
  memset(dt, 0, sizeof(bool) * HT_DTYPE_COUNT);
  for (char *t = strtok(buf, ","); t != NULL; t = strtok(NULL, ",")) {
    enum ht_dtype d;
    if (!ht_dtype_parse(t, &d))
      return false;
    dt[d] = true;
  }
  return true;
}

static bool parse_args(int argc, char **argv, struct ct_opts *o)
{
  *o = (struct ct_opts){.max_dim = 300, .entries = {true, true}, .seed = 20240601, .tol = 2.0,
                        .label = ""};
  for (int d = 0; d < HT_DTYPE_COUNT; d++)
    o->dtypes[d] = true;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool takes = strcmp(a, "--quick") != 0;
    if (takes && v == NULL)
      return false;
    if (strcmp(a, "--quick") == 0)
      o->quick = true;
    else if (strcmp(a, "--max-dim") == 0)
      o->max_dim = atoi(v);
    else if (strcmp(a, "--large") == 0)
      o->large = atoi(v);
    else if (strcmp(a, "--seed") == 0)
      o->seed = strtoull(v, NULL, 0);
    else if (strcmp(a, "--tol") == 0)
      o->tol = atof(v);
    else if (strcmp(a, "--dtypes") == 0) {
      if (!parse_list(v, o->dtypes))
        return false;
    } else if (strcmp(a, "--entry") == 0) {
      o->entries[HT_CBLAS] = strcmp(v, "fortran") != 0;
      o->entries[HT_FORTRAN] = strcmp(v, "cblas") != 0;
      if (strcmp(v, "cblas") != 0 && strcmp(v, "fortran") != 0 && strcmp(v, "all") != 0)
        return false;
    } else if (strcmp(a, "--names") == 0) {
      if (!ht_names_parse(v, &o->names))
        return false;
    } else if (strcmp(a, "--label") == 0) {
      o->label = v;
    } else if (strcmp(a, "--expect-cpu-blas") == 0) {
      o->expect_cpu_blas = v;
      if (strcmp(v, "openblas") != 0 && strcmp(v, "builtin") != 0)
        return false;
    } else
      return false;
    if (takes)
      i++;
  }
  return o->max_dim >= 1 && o->tol > 0.0;
}

int main(int argc, char **argv)
{
  struct ct_opts o;
  if (!parse_args(argc, argv, &o)) {
    usage();
    return 2;
  }
  ht_crash_guard();
  struct ct_group groups[HT_DTYPE_COUNT * 2 * CT_KIND_COUNT];
  size_t ng = 0;
  /* In the order s, h, sh, d, c, z: the seeds of the first three stay as they were. */
  for (int d = 0; d < HT_DTYPE_COUNT; d++)
    for (int e = 0; e < 2; e++) {
      if (!o.dtypes[d] || !o.entries[e] || (e == HT_FORTRAN && ht_dtypes[d].fortran == NULL))
        continue;
      for (int kind = 0; kind < CT_KIND_COUNT; kind++) {
        if (kind == CT_HALF_EDGES && d != HT_H && d != HT_SH)
          continue;
        if (kind == CT_LARGE && o.large <= 0)
          continue;
        groups[ng++] = (struct ct_group){.dtype = d, .entry = e, .kind = kind};
      }
    }
  printf("1..%zu\n", ng + (o.expect_cpu_blas ? 1 : 0));
  printf("# seed %llu, max-dim %d%s, tol %g\n", (unsigned long long)o.seed, o.max_dim,
         o.quick ? ", quick" : "", o.tol);
  int failed = 0, num = 0;
  for (size_t g = 0; g < ng; g++) {
    struct ct_result res = {0};
    struct ht_rng rng = {o.seed + 7919 * g};
    ct_run_group(&o, &groups[g], &rng, &res);
    bool ok = res.calls > 0 && res.failures == 0;
    struct ht_call named = {.dtype = groups[g].dtype, .entry = groups[g].entry, .names = o.names};
    printf("%s %d - %s%s: %s (%d calls)\n", ok ? "ok" : "not ok", ++num, o.label,
           ht_call_symbol(&named), ct_kind_name(groups[g].kind), res.calls);
    if (!ok) {
      failed++;
      printf("# %d of %d calls failed; first: %s\n#   %s\n", res.failures, res.calls, res.first_call,
             res.first_why);
    }
    fflush(stdout);
  }
  if (o.expect_cpu_blas != NULL) {
    bool want = strcmp(o.expect_cpu_blas, "openblas") == 0, have = ht_openblas_mapped();
    printf("%s %d - %sCPU BLAS is %s (libopenblas %smapped)\n", want == have ? "ok" : "not ok",
           ++num, o.label, o.expect_cpu_blas, have ? "" : "not ");
    failed += want != have;
  }
  return failed ? 1 : 0;
}
