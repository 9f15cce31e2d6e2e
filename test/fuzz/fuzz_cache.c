/* libFuzzer target: the tuning cache's parser on arbitrary bytes.  A file
 * it accepts must hold bounded, NUL-terminated fields within the record
 * limit, write back to an image that parses to the same records, and every
 * value must survive the curve and number parsers its readers use. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hop.h"
#include "tune_cache.h"

static void check(const char *data, size_t size);

/* The input as it is, then with the end line a writer would add (its count
 * and hash right), so that mutations reach the records' grammar and the
 * accepted path too, not only the hash check. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  check((const char *)data, size);
  if (size > HOP_TUNE_FILE_MAX)
    return 0;
  char *text = malloc(size + 80);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  size_t len = size;
  if (len > 0 && text[len - 1] != '\n')
    text[len++] = '\n';
  size_t records = 0;
  for (size_t i = 0, start = 0; i < len; i++)
    if (text[i] == '\n') {
      records += start > 0 && i > start && text[start] != '#';
      start = i + 1;
    }
  uint64_t h = hop_hash_fnv1a(text, len, HOP_HASH_SEED);
  len += (size_t)snprintf(text + len, 80, "end %zu %016" PRIx64 "\n", records, h);
  check(text, len);
  free(text);
  return 0;
}

static void check(const char *data, size_t size)
{
  struct hop_tune_store s, back;
  char why[160];
  if (!hop_tune_parse(data, size, &s, why, sizeof why)) {
    if (s.count != 0 || s.e != NULL || strnlen(why, sizeof why) == sizeof why)
      abort(); /* a refused file leaves nothing behind and says why */
    return;
  }
  if (s.count > HOP_TUNE_ENTRIES_MAX)
    abort();
  for (size_t i = 0; i < s.count; i++) {
    const struct hop_tune_entry *e = &s.e[i];
    if (strnlen(e->scope, HOP_TUNE_SCOPE_MAX) == HOP_TUNE_SCOPE_MAX ||
        strnlen(e->name, HOP_TUNE_NAME_MAX) == HOP_TUNE_NAME_MAX ||
        strnlen(e->value, HOP_TUNE_VALUE_MAX) == HOP_TUNE_VALUE_MAX || e->scope[0] == '\0')
      abort();
    struct hop_curve c;
    if (hop_curve_parse(e->value, &c) && (c.n < 1 || c.n > HOP_CURVE_POINTS))
      abort();
  }
  size_t len;
  char *text = hop_tune_format(&s, &len);
  if (text == NULL)
    abort();
  if (!hop_tune_parse(text, len, &back, why, sizeof why) || back.count != s.count)
    abort();
  for (size_t i = 0; i < s.count; i++) {
    const char *v = hop_tune_store_get(&back, s.e[i].scope, s.e[i].name);
    if (v == NULL || strcmp(v, s.e[i].value) != 0)
      abort();
  }
  free(text);
  hop_tune_store_free(&s);
  hop_tune_store_free(&back);
}
