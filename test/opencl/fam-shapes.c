/* Named GEMM shapes through the public entry points, each checked whole
 * against the double reference (and every cell outside C untouched): for
 * shapes the sweeps do not reach, such as skinny operands wider than an
 * image may be.
 *
 *   fam-shapes [--dtypes s,h,sh] MxNxK[:TATB][:row] ...
 *
 * e.g. 33000x3x5:TN:row.  Leading dimensions are padded and views start at
 * odd offsets; beta is 0.5 (C read) and then 0 over NaN (C never read).
 * One TAP line per shape, dtype and beta.  Which engine ran is the caller's
 * business (HOPBLAS_TRACE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static bool parse_shape(const char *s, struct ht_call *c)
{
  char ta = 'N', tb = 'N';
  int used = 0;
  if (sscanf(s, "%dx%dx%d%n", &c->m, &c->n, &c->k, &used) != 3 || c->m < 1 || c->n < 1 ||
      c->k < 1)
    return false;
  const char *rest = s + used;
  if (rest[0] == ':' && (rest[1] == 'N' || rest[1] == 'T') && (rest[2] == 'N' || rest[2] == 'T')) {
    ta = rest[1], tb = rest[2];
    rest += 3;
  }
  c->order = HT_COL;
  if (strcmp(rest, ":row") == 0)
    c->order = HT_ROW;
  else if (*rest != '\0')
    return false;
  c->ta = ta == 'T' ? HT_T : HT_N;
  c->tb = tb == 'T' ? HT_T : HT_N;
  return true;
}

int main(int argc, char **argv)
{
  bool dt[3] = {true, true, true};
  int first = 1, tests = 0, failed = 0;
  if (argc > 2 && strcmp(argv[1], "--dtypes") == 0) {
    char list[32];
    snprintf(list, sizeof list, ",%s,", argv[2]);
    dt[HT_S] = strstr(list, ",s,") != NULL;
    dt[HT_H] = strstr(list, ",h,") != NULL;
    dt[HT_SH] = strstr(list, ",sh,") != NULL;
    first = 3;
  }
  ht_crash_guard();
  struct ht_rng r = {4242};
  for (int i = first; i < argc; i++) {
    struct ht_call shape = {0}; /* every field the call does not name: zero */
    if (!parse_shape(argv[i], &shape)) {
      fprintf(stderr, "fam-shapes: '%s' is not MxNxK[:TATB][:row]\n", argv[i]);
      return 2;
    }
    for (int d = 0; d < 3; d++)
      for (int zero = 0; zero < 2 && dt[d]; zero++) {
        struct ht_call c = shape;
        c.dtype = (enum ht_dtype)d;
        c.entry = HT_CBLAS;
        c.alpha = 0.75;
        c.beta = zero ? 0.0 : 0.5;
        const int pad[3] = {1, 3, 2}, off[3] = {1, 0, 3};
        char call[512] = "", why[512] = "test out of memory";
        bool ok = ht_call_alloc(&c, pad, off);
        if (ok) {
          ht_call_fill(&c, &r);
          ht_crash_note(&c);
          ht_call_run(&c);
          ok = ht_call_check(&c, 2.0, why, sizeof why);
          ht_call_describe(&c, call, sizeof call);
          ht_call_free(&c);
        }
        printf("%s %d - %s %s beta=%s\n", ok ? "ok" : "not ok", ++tests, ht_symbol(c.dtype, c.entry),
               argv[i], zero ? "0 over NaN" : "0.5");
        if (!ok) {
          printf("#   %s\n#   %s\n", call, why);
          failed++;
        }
      }
  }
  printf("1..%d\n", tests);
  return failed != 0;
}
