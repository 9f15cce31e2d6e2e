/* The tuning cache's file format (core/tune_cache.h): records in memory,
 * the parser (all or nothing, every field bounded) and the writer.  No I/O
 * here, so the fuzz target (test/fuzz/fuzz_cache.c) runs exactly this. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hop.h"
#include "tune_cache.h"

enum { LINE_MAX_BYTES = 4096 };
static const char header[] = "hopblas-tune 1\n";

void hop_tune_store_free(struct hop_tune_store *s)
{
  free(s->e);
  *s = (struct hop_tune_store){0};
}

static struct hop_tune_entry *find(const struct hop_tune_store *s, const char *scope,
                                   const char *name)
{
  for (size_t i = 0; i < s->count; i++)
    if (strcmp(s->e[i].name, name) == 0 && strcmp(s->e[i].scope, scope) == 0)
      return &s->e[i];
  return NULL;
}

const char *hop_tune_store_get(const struct hop_tune_store *s, const char *scope,
                               const char *name)
{
  const struct hop_tune_entry *e = find(s, scope, name);
  return e ? e->value : NULL;
}

bool hop_tune_store_put(struct hop_tune_store *s, const char *scope, const char *name,
                        const char *value)
{
  if (strlen(scope) >= HOP_TUNE_SCOPE_MAX || strlen(name) >= HOP_TUNE_NAME_MAX ||
      strlen(value) >= HOP_TUNE_VALUE_MAX || *scope == '\0' || *name == '\0')
    return false;
  struct hop_tune_entry *e = find(s, scope, name);
  if (e == NULL) {
    if (s->count == HOP_TUNE_ENTRIES_MAX)
      return false;
    if (s->count == s->cap) {
      size_t cap = s->cap ? 2 * s->cap : 16;
      struct hop_tune_entry *grown = realloc(s->e, cap * sizeof *grown);
      if (grown == NULL)
        return false;
      s->e = grown, s->cap = cap;
    }
    e = &s->e[s->count++];
    snprintf(e->scope, sizeof e->scope, "%s", scope);
    snprintf(e->name, sizeof e->name, "%s", name);
  }
  snprintf(e->value, sizeof e->value, "%s", value);
  return true;
}

/* ---- fields: printable bytes but space, '%' and '#' as they are, the rest %XX -- */

static int hex(int c)
{
  return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* What a field may hold once unescaped. */
enum field_kind { FIELD_SCOPE, FIELD_NAME, FIELD_VALUE };

static bool allowed(enum field_kind k, unsigned char c)
{
  if (k == FIELD_NAME)
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
  if (c < 0x20 || c == 0x7f)
    return false;
  return k == FIELD_SCOPE || c < 0x80; /* device names may be UTF-8; values are ASCII */
}

/* Unescape src[0, n) into dst (size cap); false when malformed or too long. */
static bool unescape(const char *src, size_t n, char *dst, size_t cap, enum field_kind k)
{
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)src[i];
    if (c == '%') {
      int hi = i + 2 < n ? hex(src[i + 1]) : -1, lo = i + 2 < n ? hex(src[i + 2]) : -1;
      if (hi < 0 || lo < 0) /* also "%X" cut by the end of the field */
        return false;
      c = (unsigned char)(hi * 16 + lo);
      i += 2;
    } else if (c <= 0x20 || c >= 0x7f) {
      return false; /* the writer escapes these: raw, they are not ours */
    }
    if (!allowed(k, c) || o + 1 >= cap)
      return false;
    dst[o++] = (char)c;
  }
  dst[o] = '\0';
  return o > 0;
}

static size_t escape(const char *src, char *dst, size_t cap)
{
  static const char digits[] = "0123456789ABCDEF";
  size_t o = 0;
  for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
    /* '#' too: a scope starting with it would read back as a comment line. */
    bool plain = *p > 0x20 && *p < 0x7f && *p != '%' && *p != '#';
    if (o + (plain ? 1 : 3) >= cap)
      break;
    if (plain) {
      dst[o++] = (char)*p;
    } else {
      dst[o++] = '%';
      dst[o++] = digits[*p >> 4];
      dst[o++] = digits[*p & 15];
    }
  }
  dst[o] = '\0';
  return o;
}

/* ---- the parser ------------------------------------------------------------ */

static bool fail(char *why, size_t len, struct hop_tune_store *s, int line, const char *what)
{
  if (line > 0)
    snprintf(why, len, "line %d: %s", line, what);
  else
    snprintf(why, len, "%s", what);
  hop_tune_store_free(s);
  return false;
}

/* One "SCOPE NAME VALUE" line (without its newline). */
static const char *parse_record(const char *p, size_t n, struct hop_tune_store *s)
{
  const char *sp1 = memchr(p, ' ', n);
  const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - p)) : NULL;
  if (sp2 == NULL || memchr(sp2 + 1, ' ', n - (size_t)(sp2 + 1 - p)) != NULL)
    return "not three fields";
  struct hop_tune_entry e;
  if (!unescape(p, (size_t)(sp1 - p), e.scope, sizeof e.scope, FIELD_SCOPE))
    return "bad scope";
  if (!unescape(sp1 + 1, (size_t)(sp2 - sp1 - 1), e.name, sizeof e.name, FIELD_NAME))
    return "bad name";
  if (!unescape(sp2 + 1, n - (size_t)(sp2 + 1 - p), e.value, sizeof e.value, FIELD_VALUE))
    return "bad value";
  if (hop_tune_store_get(s, e.scope, e.name) != NULL)
    return "a record given twice";
  if (!hop_tune_store_put(s, e.scope, e.name, e.value))
    return s->count == HOP_TUNE_ENTRIES_MAX ? "too many records" : "out of memory";
  return NULL;
}

/* The last line, "end COUNT HASH", checked against what precedes it. */
static const char *parse_end(const char *text, size_t at, size_t len, size_t records)
{
  char line[80];
  size_t n = len - at - 1;
  if (n >= sizeof line)
    return "the last line is not the end line (truncated?)";
  memcpy(line, text + at, n);
  line[n] = '\0';
  unsigned long long count;
  uint64_t hash;
  int used = 0;
  if (sscanf(line, "end %llu %16" SCNx64 "%n", &count, &hash, &used) != 2 || line[used] != '\0' ||
      strncmp(line, "end ", 4) != 0)
    return "the last line is not the end line (truncated?)";
  if (count != records)
    return "the record count does not match (truncated?)";
  if (hash != hop_hash_fnv1a(text, at, HOP_HASH_SEED))
    return "the hash does not match (corrupt)";
  return NULL;
}

bool hop_tune_parse(const char *text, size_t len, struct hop_tune_store *s, char *why,
                    size_t why_len)
{
  *s = (struct hop_tune_store){0};
  if (len > HOP_TUNE_FILE_MAX)
    return fail(why, why_len, s, 0, "larger than 1 MiB");
  if (len < sizeof header - 1 || memcmp(text, header, sizeof header - 1) != 0)
    return fail(why, why_len, s, 1, "not a hopblas-tune 1 file");
  if (memchr(text, '\0', len) != NULL)
    return fail(why, why_len, s, 0, "a NUL byte");
  if (text[len - 1] != '\n')
    return fail(why, why_len, s, 0, "no newline at the end (truncated?)");
  /* The end line starts after the last newline but one (the header's at least). */
  size_t pos = sizeof header - 1, last = len - 1;
  if (len == pos)
    return fail(why, why_len, s, 0, "no end line (truncated?)");
  while (last > pos && text[last - 1] != '\n')
    last--;
  int lineno = 1;
  while (pos < last) {
    const char *nl = memchr(text + pos, '\n', last - pos);
    size_t n = (size_t)(nl - (text + pos));
    lineno++;
    if (n >= LINE_MAX_BYTES)
      return fail(why, why_len, s, lineno, "line too long");
    if (n > 0 && text[pos] != '#') {
      const char *bad = parse_record(text + pos, n, s);
      if (bad != NULL)
        return fail(why, why_len, s, lineno, bad);
    }
    pos += n + 1;
  }
  const char *bad = parse_end(text, last, len, s->count);
  if (bad != NULL)
    return fail(why, why_len, s, lineno + 1, bad);
  return true;
}

/* ---- the writer ------------------------------------------------------------ */

char *hop_tune_format(const struct hop_tune_store *s, size_t *len)
{
  static const char comment[] =
    "# hopblas tuning cache: SCOPE NAME VALUE per line (%XX escapes), written by `hopblas tune`\n"
    "# and by HOPBLAS_TUNE=quick.  Edited files fail the check in the last line and are rebuilt.\n";
  size_t cap = sizeof header + sizeof comment + 80 +
               s->count * 3 * (HOP_TUNE_SCOPE_MAX + HOP_TUNE_NAME_MAX + HOP_TUNE_VALUE_MAX + 3);
  char *out = malloc(cap);
  if (out == NULL)
    return NULL;
  size_t o = (size_t)snprintf(out, cap, "%s%s", header, comment);
  for (size_t i = 0; i < s->count; i++) {
    o += escape(s->e[i].scope, out + o, cap - o);
    out[o++] = ' ';
    o += escape(s->e[i].name, out + o, cap - o);
    out[o++] = ' ';
    o += escape(s->e[i].value, out + o, cap - o);
    out[o++] = '\n';
  }
  uint64_t h = hop_hash_fnv1a(out, o, HOP_HASH_SEED);
  o += (size_t)snprintf(out + o, cap - o, "end %zu %016" PRIx64 "\n", s->count, h);
  *len = o;
  return out;
}
