/* The tuning cache's test driver (test/tune/cache.test runs it; each case
 * needs its own process, since a process reads the file once):
 *
 *   tune-cache roundtrip            format/parse round trips and bounds (prints TAP)
 *   tune-cache put SCOPE NAME VALUE [COUNT]   put (COUNT records NAME.0 ... when given)
 *                                   and flush, one flush per record; exit 1 when a flush fails
 *   tune-cache get SCOPE NAME       print the value; exit 1 when there is none
 *   tune-cache check FILE           parse FILE: "ok N" (records) or "bad: why"; exit 0/1
 *   tune-cache rewrite NAME VALUE   every record called NAME, whatever its scope, gets VALUE
 *                                   (through put + flush: the tests' way to plant values)
 *   tune-cache scopes NAME          print the scopes that have a record called NAME */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hop.h"
#include "tune_cache.h"

static int tap_n, tap_bad;

static void ok(bool cond, const char *what)
{
  printf("%s %d - %s\n", cond ? "ok" : "not ok", ++tap_n, what);
  tap_bad += !cond;
}

static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  char *buf = malloc(4 * HOP_TUNE_FILE_MAX + 1);
  *len = buf ? fread(buf, 1, 4 * HOP_TUNE_FILE_MAX, f) : 0;
  fclose(f);
  return buf;
}

static bool same(const struct hop_tune_store *a, const struct hop_tune_store *b)
{
  if (a->count != b->count)
    return false;
  for (size_t i = 0; i < a->count; i++) {
    const char *v = hop_tune_store_get(b, a->e[i].scope, a->e[i].name);
    if (v == NULL || strcmp(v, a->e[i].value) != 0)
      return false;
  }
  return true;
}

static int roundtrip(void)
{
  struct hop_tune_store s = {0}, back = {0};
  char scope[HOP_TUNE_SCOPE_MAX], value[HOP_TUNE_VALUE_MAX], why[160];
  /* Fields at their limits, and the bytes the format must escape. */
  memset(scope, 'S', sizeof scope - 1), scope[sizeof scope - 1] = '\0';
  memset(value, 'v', sizeof value - 1), value[sizeof value - 1] = '\0';
  ok(hop_tune_store_put(&s, "opencl;dev=GeForce 100%  \xc3\xa9t\xc3\xa9;driver=1 2", "generic.n256",
                        "MWG=64,NWG=64 12.5 9.1 14 3.2"),
     "a record with spaces, % and UTF-8 is kept");
  ok(hop_tune_store_put(&s, scope, "n.max", value), "fields of the largest size are kept");
  ok(hop_tune_store_put(&s, "cpu;model=x", "cpu.rate", "32:1.5,64:3"), "a third record");
  ok(hop_tune_store_put(&s, "#not a comment", "n.hash", "#1"), "a scope starting with '#' (found by "
                                                               "fuzz_cache: it was written as a comment)");
  char big[HOP_TUNE_VALUE_MAX + 1];
  memset(big, 'x', sizeof big - 1), big[sizeof big - 1] = '\0';
  ok(!hop_tune_store_put(&s, "a", "b", big), "a value over the limit is refused");
  size_t len;
  char *text = hop_tune_format(&s, &len);
  ok(text != NULL && hop_tune_parse(text, len, &back, why, sizeof why), "the file parses back");
  ok(same(&s, &back), "every record comes back unchanged");
  ok(hop_tune_store_put(&back, "cpu;model=x", "cpu.rate", "32:2"), "a record is replaced");
  ok(back.count == 4 && strcmp(hop_tune_store_get(&back, "cpu;model=x", "cpu.rate"), "32:2") == 0,
     "... in place");
  /* Each byte changed in turn: the hash or the grammar refuses every change. */
  int accepted = 0;
  for (size_t i = 0; text != NULL && i < len; i += 7) {
    struct hop_tune_store t;
    char saved = text[i];
    text[i] = (char)(text[i] ^ 0x5a);
    accepted += hop_tune_parse(text, len, &t, why, sizeof why);
    hop_tune_store_free(&t);
    text[i] = saved;
  }
  ok(accepted == 0, "no copy with a byte changed (every 7th in turn) parses");
  int cut_ok = 0;
  for (size_t cut = 1; text != NULL && cut < len; cut += 13) {
    struct hop_tune_store t;
    cut_ok += hop_tune_parse(text, cut, &t, why, sizeof why);
    hop_tune_store_free(&t);
  }
  ok(cut_ok == 0, "no truncated copy parses");
  free(text);
  hop_tune_store_free(&s);
  hop_tune_store_free(&back);
  struct hop_curve c;
  ok(hop_curve_parse("32:1.5,64:3,128:9", &c) && c.n == 3, "a curve parses");
  ok(!hop_curve_parse("64:3,32:1", &c) && !hop_curve_parse("32:-1", &c) &&
       !hop_curve_parse("32:nan", &c) && !hop_curve_parse("32:1e99", &c) &&
       !hop_curve_parse("32:1,", &c) && !hop_curve_parse("", &c),
     "curves out of order, negative, NaN, huge or cut are refused");
  printf("1..%d\n", tap_n);
  return tap_bad != 0;
}

int main(int argc, char **argv)
{
  const char *cmd = argc > 1 ? argv[1] : "";
  if (strcmp(cmd, "roundtrip") == 0)
    return roundtrip();
  if (strcmp(cmd, "put") == 0 && argc >= 5) {
    int count = argc > 5 ? atoi(argv[5]) : 0;
    bool flushed = true;
    for (int i = 0; i < (count > 0 ? count : 1); i++) {
      char name[HOP_TUNE_NAME_MAX];
      snprintf(name, sizeof name, count > 0 ? "%s.%d" : "%s", argv[3], i);
      hop_tune_put(argv[2], name, argv[4]);
      flushed = hop_tune_flush() && flushed;
    }
    return flushed ? 0 : 1;
  }
  if (strcmp(cmd, "get") == 0 && argc == 4) {
    char value[HOP_TUNE_VALUE_MAX];
    if (!hop_tune_get(argv[2], argv[3], value, sizeof value))
      return 1;
    printf("%s\n", value);
    return 0;
  }
  if (strcmp(cmd, "check") == 0 && argc == 3) {
    size_t len = 0;
    char *text = slurp(argv[2], &len), why[160];
    struct hop_tune_store s;
    bool good = text != NULL && hop_tune_parse(text, len, &s, why, sizeof why);
    if (good)
      printf("ok %zu\n", s.count);
    else
      printf("bad: %s\n", text ? why : "unreadable");
    if (good)
      hop_tune_store_free(&s);
    free(text);
    return good ? 0 : 1;
  }
  if ((strcmp(cmd, "rewrite") == 0 && argc == 4) || (strcmp(cmd, "scopes") == 0 && argc == 3)) {
    char path[4200], state[200];
    hop_tune_describe(path, sizeof path, state, sizeof state);
    size_t len = 0;
    char *text = slurp(path, &len), why[160];
    struct hop_tune_store s;
    if (text == NULL || !hop_tune_parse(text, len, &s, why, sizeof why))
      return free(text), 1;
    int hits = 0;
    for (size_t i = 0; i < s.count; i++)
      if (strcmp(s.e[i].name, argv[2]) == 0) {
        hits++;
        if (argc == 4)
          hop_tune_put(s.e[i].scope, s.e[i].name, argv[3]);
        else
          printf("%s\n", s.e[i].scope);
      }
    hop_tune_store_free(&s);
    free(text);
    return hits > 0 && (argc == 3 || hop_tune_flush()) ? 0 : 1;
  }
  fprintf(stderr, "usage: tune-cache roundtrip | put SCOPE NAME VALUE [COUNT] | get SCOPE NAME | "
                  "check FILE | rewrite NAME VALUE | scopes NAME\n");
  return 2;
}
