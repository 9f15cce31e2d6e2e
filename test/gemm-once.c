/* One GEMM (or a few) through a public entry point, checked against the
 * double reference; the building block of verify.test and config.test.
 *
 *   gemm-once [--dtype s|d|c|z|h|sh] [--entry cblas|fortran] [--order row|col]
 *             [--m M] [--n N] [--k K] [--alpha A] [--beta B] [--calls N]
 *             [--fork] [--expect-cpu-blas openblas|builtin] [--sizes N1,N2,...]
 *
 * Prints, per call, "result: right" or
 *   "result: wrong bad=COUNT max_row=R delta=MIN..MAX[ outside][ inputs]"
 * (delta = got - expected over the bad elements), on stdout only; stderr is
 * left to the library so that tests can count its log lines.  --fork: one
 * call in the parent, then the child makes the remaining calls.  --sizes:
 * one square call (m = n = k) per listed size, in order, in place of --calls.
 * Exit: 0 every call right, 3 some call wrong, 1 anything else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

struct opts {
  struct ht_call tmpl;
  int calls;
  bool fork;
  const char *expect_cpu_blas;
  int sizes[16], nsizes;
};

static bool parse(int argc, char **argv, struct opts *o)
{
  *o = (struct opts){.tmpl = {.dtype = HT_S, .entry = HT_CBLAS, .order = HT_COL, .ta = HT_N,
                              .tb = HT_N, .m = 37, .n = 29, .k = 23, .alpha = 0.5, .beta = -1.0},
                     .calls = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    struct ht_call *t = &o->tmpl;
    if (strcmp(a, "--fork") == 0) {
      o->fork = true;
      continue;
    }
    if (i + 1 >= argc)
      return false;
    i++;
    if (strcmp(a, "--dtype") == 0) {
      if (!ht_dtype_parse(v, &t->dtype))
        return false;
    } else if (strcmp(a, "--entry") == 0)
      t->entry = strcmp(v, "fortran") == 0 ? HT_FORTRAN : HT_CBLAS;
    else if (strcmp(a, "--order") == 0)
      t->order = strcmp(v, "row") == 0 ? HT_ROW : HT_COL;
    else if (strcmp(a, "--m") == 0)
      t->m = atoi(v);
    else if (strcmp(a, "--n") == 0)
      t->n = atoi(v);
    else if (strcmp(a, "--k") == 0)
      t->k = atoi(v);
    else if (strcmp(a, "--alpha") == 0)
      t->alpha = atof(v);
    else if (strcmp(a, "--beta") == 0)
      t->beta = atof(v);
    else if (strcmp(a, "--calls") == 0)
      o->calls = atoi(v);
    else if (strcmp(a, "--expect-cpu-blas") == 0)
      o->expect_cpu_blas = v;
    else if (strcmp(a, "--sizes") == 0)
      for (char *end = (char *)v; *end != '\0' && o->nsizes < 16; end += *end == ',')
        o->sizes[o->nsizes++] = (int)strtol(end, &end, 10);
    else
      return false;
  }
  struct ht_call *t = &o->tmpl;
  if (t->dtype == HT_H) /* scalars must be exact in the call's type */
    t->alpha = ht_round_half(t->alpha), t->beta = ht_round_half(t->beta);
  else
    t->alpha = (float)t->alpha, t->beta = (float)t->beta;
  return o->calls >= 1 && t->m >= 0 && t->n >= 0 && t->k >= 0 &&
         !(t->entry == HT_FORTRAN && (t->order == HT_ROW || t->dtype == HT_SH));
}

/* 0 right, 3 wrong, 1 could not run.  Call i of a --sizes list is square. */
static int one_call(const struct opts *o, int i, struct ht_rng *rng)
{
  struct ht_call c = o->tmpl;
  if (o->nsizes > 0)
    c.m = c.n = c.k = o->sizes[i];
  static const int pad[3] = {1, 2, 3}, off[3] = {1, 0, 3};
  if (!ht_call_alloc(&c, pad, off)) {
    printf("result: out of memory\n");
    return 1;
  }
  ht_call_fill(&c, rng);
  ht_call_run(&c);
  struct ht_bad st;
  char why[512];
  bool ok = ht_call_bad(&c, 2.0, &st, why, sizeof why);
  if (ok)
    printf("result: right\n");
  else
    printf("result: wrong bad=%d max_row=%d delta=%.6g..%.6g%s%s\n# %s\n", st.count, st.max_row,
           st.delta_min, st.delta_max, st.outside ? " outside" : "",
           st.inputs_written ? " inputs" : "", why);
  ht_call_free(&c);
  return ok ? 0 : 3;
}

int main(int argc, char **argv)
{
  struct opts o;
  if (!parse(argc, argv, &o)) {
    fprintf(stderr, "gemm-once: bad arguments (see the comment at the top of test/gemm-once.c)\n");
    return 1;
  }
  struct ht_rng rng = {12345};
  if (o.nsizes > 0)
    o.calls = o.nsizes;
  int rc = one_call(&o, 0, &rng);
  if (o.fork) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
      perror("fork");
      return 1;
    }
    if (pid > 0) {
      int status;
      if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        printf("child: did not exit normally\n");
        return 1;
      }
      printf("child: exit %d\n", WEXITSTATUS(status));
      return rc ? rc : WEXITSTATUS(status);
    }
    printf("child:\n");
  }
  for (int i = 1; i < o.calls; i++) {
    int r = one_call(&o, i, &rng);
    rc = rc ? rc : r;
  }
  if (o.expect_cpu_blas != NULL) {
    bool want = strcmp(o.expect_cpu_blas, "openblas") == 0, have = ht_openblas_mapped();
    printf("cpu-blas: libopenblas %smapped\n", have ? "" : "not ");
    if (want != have)
      rc = rc ? rc : 1;
  }
  fflush(stdout);
  return rc;
}
