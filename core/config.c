/* Configuration: the environment first, then HOPBLAS_CONFIG_FILE
 * (KEY = value lines), then defaults.  The file is read once, when the
 * runtime context is created; every value is bounded and a bad one is
 * reported in one line and replaced by its default. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_file.h"
#include "hop.h"

/* The keys core/ itself reads; each engine lists its own (struct hop_backend). */
static const struct hop_config_key core_keys[] = {
  {"HOPBLAS_BACKEND", "force one engine", HOP_KEY_ENGINE},
  {"HOPBLAS_MIN_FLOPS", "calls with at least this many flops go to a device engine; 0 forces all", HOP_KEY_VALUE},
  {"HOPBLAS_DEVICE_FLOOR_FLOPS", "auto routing: calls below this stay on the CPU unasked", HOP_KEY_VALUE},
  {"HOPBLAS_VERBOSE", "0 silent, 1 problems (default), 2 decisions, 3 detail", HOP_KEY_VALUE},
  {"HOPBLAS_TRACE", "file that receives one CSV row per call", HOP_KEY_PATH},
  {"HOPBLAS_VERIFY", "0 | 1 (recompute offloaded calls on OpenBLAS) | fallback (also replace)", HOP_KEY_VALUE},
  {"HOPBLAS_CONFIG_FILE", "file of KEY = value lines read after the environment", HOP_KEY_PATH},
  {"HOPBLAS_CACHE_DIR", "directory of the tuning and program-binary caches", HOP_KEY_PATH},
  {"HOPBLAS_TUNE", "off | cached | quick: when the tuner may run", HOP_KEY_VALUE},
  {NULL, NULL, HOP_KEY_VALUE},
};

/* The walk's lists: core's, then the registry's engines, then the absent ones. */
static size_t list_count(void)
{
  size_t n = 1 + hop_backend_count;
  for (const struct hop_backend_absent *a = hop_backends_absent; a->name != NULL; a++)
    n++;
  return n;
}

static const struct hop_config_key *list_at(size_t l)
{
  if (l == 0)
    return core_keys;
  if (l <= hop_backend_count)
    return hop_backends[l - 1]->keys;
  return hop_backends_absent[l - 1 - hop_backend_count].keys;
}

/* The engines of one folder share one list: it is walked once. */
static bool given_before(size_t l, const struct hop_config_key *keys)
{
  for (size_t j = 0; j < l; j++)
    if (list_at(j) == keys)
      return true;
  return false;
}

const struct hop_config_key *hop_config_key_next(struct hop_config_key_iter *it)
{
  for (size_t n = list_count(); it->list < n; it->list++, it->key = 0) {
    const struct hop_config_key *keys = list_at(it->list);
    if (keys != NULL && keys[it->key].name != NULL && !given_before(it->list, keys))
      return &keys[it->key++];
  }
  return NULL;
}

static const struct hop_config_key *find_key(const char *name)
{
  struct hop_config_key_iter it = {0};
  for (const struct hop_config_key *k; (k = hop_config_key_next(&it)) != NULL;)
    if (strcmp(k->name, name) == 0)
      return k;
  return NULL;
}

bool hop_config_is_path_key(const char *key)
{
  const struct hop_config_key *k = find_key(key);
  return k != NULL && k->kind == HOP_KEY_PATH;
}

/* "auto", then the engine that always works, then the devices in preference
 * order: the names of this build's engines, as HOPBLAS_BACKEND takes them. */
void hop_config_key_help(const struct hop_config_key *k, char *out, size_t len)
{
  size_t used = 0;
  out[0] = '\0';
  if (k->kind == HOP_KEY_ENGINE) {
    used = (size_t)snprintf(out, len, "auto | %s", hop_backends[hop_backend_count - 1]->name);
    for (size_t i = 0; i + 1 < hop_backend_count && used < len; i++)
      used += (size_t)snprintf(out + used, len - used, " | %s", hop_backends[i]->name);
    if (used < len)
      used += (size_t)snprintf(out + used, len - used, ": ");
  }
  if (used < len)
    snprintf(out + used, len - used, "%s", k->help);
}

/* Path variables are ignored in set-uid programs: secure_getenv. */
static const char *env_lookup(const char *key)
{
#ifdef HAVE_SECURE_GETENV
  if (hop_config_is_path_key(key))
    return secure_getenv(key);
#endif
  return getenv(key);
}

/* ---- the file ---------------------------------------------------------- */

/* A junk file must not flood stderr: the first few problems each get their
 * line, the rest are counted into one summary line (hop_config_file_parse). */
enum { FILE_WARN_MAX = 5 };

static void file_warn(struct hop_config_file *f, int verbose, int line, const char *what)
{
  if (verbose >= 1 && f->problems++ < FILE_WARN_MAX)
    fprintf(stderr, "hopblas: config file %s line %d: %s; line ignored\n", f->path, line, what);
}

static char *trim(char *s)
{
  while (isspace((unsigned char)*s))
    s++;
  char *end = s + strlen(s);
  while (end > s && isspace((unsigned char)end[-1]))
    *--end = '\0';
  return s;
}

/* Store one "KEY = value" line; the HOPBLAS_ prefix may be left out. */
static void file_parse_line(struct hop_config_file *f, char *line, int lineno, int verbose)
{
  char *s = trim(line);
  if (*s == '\0' || *s == '#')
    return;
  char *eq = strchr(s, '=');
  if (eq == NULL) {
    file_warn(f, verbose, lineno, "no '='");
    return;
  }
  *eq = '\0';
  char *key = trim(s), *value = trim(eq + 1);
  char full[HOP_CONFIG_KEY_MAX];
  if (strncmp(key, "HOPBLAS_", 8) == 0)
    snprintf(full, sizeof full, "%s", key);
  else
    snprintf(full, sizeof full, "HOPBLAS_%s", key);
  if (find_key(full) == NULL || strcmp(full, "HOPBLAS_CONFIG_FILE") == 0) {
    file_warn(f, verbose, lineno, "unknown key");
    return;
  }
  if (strlen(value) >= HOP_CONFIG_VALUE_MAX) {
    file_warn(f, verbose, lineno, "value too long");
    return;
  }
  for (size_t i = 0; i < f->count; i++)
    if (strcmp(f->entries[i].key, full) == 0) {
      snprintf(f->entries[i].value, sizeof f->entries[i].value, "%s", value);
      return;
    }
  if (f->count == HOP_CONFIG_FILE_ENTRIES) {
    file_warn(f, verbose, lineno, "too many entries");
    return;
  }
  snprintf(f->entries[f->count].key, sizeof f->entries[f->count].key, "%s", full);
  snprintf(f->entries[f->count].value, sizeof f->entries[f->count].value, "%s", value);
  f->count++;
}

void hop_config_file_parse(struct hop_config_file *f, const char *text, size_t len, int verbose)
{
  char line[HOP_CONFIG_VALUE_MAX + HOP_CONFIG_KEY_MAX + 8];
  size_t pos = 0;
  int lineno = 0;
  while (pos < len) {
    size_t end = pos;
    while (end < len && text[end] != '\n')
      end++;
    lineno++;
    size_t n = end - pos;
    if (memchr(text + pos, '\0', n) != NULL)
      file_warn(f, verbose, lineno, "NUL byte");
    else if (n >= sizeof line)
      file_warn(f, verbose, lineno, "line too long");
    else {
      memcpy(line, text + pos, n);
      line[n] = '\0';
      file_parse_line(f, line, lineno, verbose);
    }
    pos = end + 1;
  }
  if (verbose >= 1 && f->problems > FILE_WARN_MAX)
    fprintf(stderr, "hopblas: config file %s: %u more problem lines ignored\n", f->path,
            f->problems - FILE_WARN_MAX);
}

void hop_config_file_load(struct hop_config_file *f, const char *path, int verbose)
{
  memset(f, 0, sizeof *f);
  if (path == NULL || *path == '\0')
    return;
  snprintf(f->path, sizeof f->path, "%s", path);
  /* Only a regular file, opened without blocking: a FIFO with no writer or
   * a device node must not stop the program. */
  int fd = hop_open_regular(path, O_RDONLY, 0);
  FILE *fp = fd < 0 ? NULL : fdopen(fd, "r");
  if (fp == NULL) {
    if (verbose >= 1)
      fprintf(stderr, "hopblas: config file %s: %s; using the environment and defaults\n", path,
              errno == EINVAL ? "not a regular file" : strerror(errno));
    if (fd >= 0)
      close(fd);
    return;
  }
  static const size_t max_size = 64 * 1024;
  char *text = malloc(max_size + 1);
  size_t len = text ? fread(text, 1, max_size + 1, fp) : 0;
  int read_errno = text != NULL && ferror(fp) ? errno : 0;
  fclose(fp);
  if (text == NULL || len > max_size || read_errno != 0) {
    if (verbose >= 1)
      fprintf(stderr, "hopblas: config file %s: %s; ignored\n", path,
              text == NULL ? "out of memory"
              : read_errno ? strerror(read_errno)
                           : "larger than 64 KiB");
    free(text);
    return;
  }
  hop_config_file_parse(f, text, len, verbose);
  free(text);
}

const char *hop_config_file_get(const struct hop_config_file *f, const char *key)
{
  for (size_t i = 0; i < f->count; i++)
    if (strcmp(f->entries[i].key, key) == 0)
      return f->entries[i].value;
  return NULL;
}

/* ---- typed lookups -------------------------------------------------------- */

const char *hop_config_lookup(const struct hop_config_file *f, const char *key)
{
  const char *v = env_lookup(key);
  if (v != NULL)
    return v;
  return f ? hop_config_file_get(f, key) : NULL;
}

static void value_warn(int verbose, const char *key, const char *value, const char *expect)
{
  if (verbose >= 1)
    fprintf(stderr, "hopblas: %s=%.64s is not %s; using the default\n", key, value, expect);
}

double hop_config_parse_double(const struct hop_config_file *f, int verbose, const char *key,
                               double lo, double hi, double dflt)
{
  const char *v = hop_config_lookup(f, key);
  if (v == NULL || *v == '\0')
    return dflt;
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  while (isspace((unsigned char)*end))
    end++;
  if (errno != 0 || *end != '\0' || !isfinite(x) || x < lo || x > hi) {
    char expect[96];
    snprintf(expect, sizeof expect, "a number in [%g, %g]", lo, hi);
    value_warn(verbose, key, v, expect);
    return dflt;
  }
  return x;
}

long long hop_config_int(const char *key, long long lo, long long hi, long long dflt)
{
  return (long long)hop_config_parse_double(hop_config_file(), hop_config()->verbose, key, (double)lo,
                                       (double)hi, (double)dflt);
}

double hop_config_double(const char *key, double lo, double hi, double dflt)
{
  return hop_config_parse_double(hop_config_file(), hop_config()->verbose, key, lo, hi, dflt);
}

const char *hop_config_get(const char *key)
{
  return hop_config_lookup(hop_config_file(), key);
}

/* Copy a string value into dst if it is one of the allowed words. */
static void parse_word(const struct hop_config_file *f, int verbose, const char *key,
                       const char *const *allowed, char *dst, size_t dst_len)
{
  const char *v = hop_config_lookup(f, key);
  if (v == NULL || *v == '\0')
    return;
  for (size_t i = 0; allowed[i] != NULL; i++)
    if (strcmp(v, allowed[i]) == 0) {
      snprintf(dst, dst_len, "%s", v);
      return;
    }
  value_warn(verbose, key, v, "a known value");
}

/* A value of HOPBLAS_BACKEND: an engine of this build or of another one
 * (a call then runs on the CPU, and the trace says the engine is not built in). */
static bool is_engine_word(const char *v)
{
  if (strcmp(v, "auto") == 0 || hop_engine_index(v) < hop_backend_count)
    return true;
  for (const struct hop_backend_absent *a = hop_backends_absent; a->name != NULL; a++)
    if (strcmp(a->name, v) == 0)
      return true;
  return false;
}

static void parse_engine(const struct hop_config_file *f, int verbose, char *dst, size_t dst_len)
{
  const char *v = hop_config_lookup(f, "HOPBLAS_BACKEND");
  if (v == NULL || *v == '\0')
    return;
  if (is_engine_word(v))
    snprintf(dst, dst_len, "%s", v);
  else
    value_warn(verbose, "HOPBLAS_BACKEND", v, "a known value");
}

static void parse_path(const struct hop_config_file *f, int verbose, const char *key, char *dst,
                       size_t dst_len)
{
  const char *v = hop_config_lookup(f, key);
  if (v == NULL)
    return;
  if (strlen(v) >= dst_len) {
    value_warn(verbose, key, v, "a path of reasonable length");
    return;
  }
  snprintf(dst, dst_len, "%s", v);
}

void hop_config_build(struct hop_config *cfg, struct hop_config_file *file)
{
  memset(cfg, 0, sizeof *cfg);
  /* Verbosity first, from the environment only, so the file's own problems can be reported. */
  cfg->verbose = (int)hop_config_parse_double(NULL, 1, "HOPBLAS_VERBOSE", 0, 3, 1);
  parse_path(NULL, cfg->verbose, "HOPBLAS_CONFIG_FILE", cfg->config_file, sizeof cfg->config_file);
  hop_config_file_load(file, cfg->config_file, cfg->verbose);
  /* The environment wins and was parsed (and reported) above; only the file's value is new. */
  if (hop_config_lookup(NULL, "HOPBLAS_VERBOSE") == NULL)
    cfg->verbose = (int)hop_config_parse_double(file, cfg->verbose, "HOPBLAS_VERBOSE", 0, 3, 1);

  snprintf(cfg->backend, sizeof cfg->backend, "auto");
  parse_engine(file, cfg->verbose, cfg->backend, sizeof cfg->backend);
  cfg->min_flops = hop_config_parse_double(file, cfg->verbose, "HOPBLAS_MIN_FLOPS", 0, 1e30, -1);
  /* 2 * 96^3: below this no engine has a chance against OpenBLAS on a call's fixed costs. */
  cfg->device_floor_flops =
    hop_config_parse_double(file, cfg->verbose, "HOPBLAS_DEVICE_FLOOR_FLOPS", 0, 1e30, 2.0 * 96 * 96 * 96);

  char verify[16] = "0";
  static const char *const verify_words[] = {"0", "1", "fallback", NULL};
  parse_word(file, cfg->verbose, "HOPBLAS_VERIFY", verify_words, verify, sizeof verify);
  cfg->verify = strcmp(verify, "1") == 0          ? HOP_VERIFY_LOG
                : strcmp(verify, "fallback") == 0 ? HOP_VERIFY_FALLBACK
                                                  : HOP_VERIFY_OFF;
  parse_path(file, cfg->verbose, "HOPBLAS_TRACE", cfg->trace_path, sizeof cfg->trace_path);
}
