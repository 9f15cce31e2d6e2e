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

const struct hop_config_key hop_config_keys[] = {
  {"HOPBLAS_BACKEND", "auto | cpu | opencl | videocore | videocore-emu: force one engine"},
  {"HOPBLAS_MIN_FLOPS", "calls with at least this many flops go to a device engine; 0 forces all"},
  {"HOPBLAS_DEVICE_FLOOR_FLOPS", "auto routing: calls below this stay on the CPU unasked"},
  {"HOPBLAS_VERBOSE", "0 silent, 1 problems (default), 2 decisions, 3 detail"},
  {"HOPBLAS_TRACE", "file that receives one CSV row per call"},
  {"HOPBLAS_VERIFY", "0 | 1 (recompute offloaded calls on OpenBLAS) | fallback (also replace)"},
  {"HOPBLAS_CPU_BLAS", "path of the OpenBLAS library the CPU engine loads; builtin = the reference GEMM"},
  {"HOPBLAS_CONFIG_FILE", "file of KEY = value lines read after the environment"},
  {"HOPBLAS_CACHE_DIR", "directory of the tuning and program-binary caches"},
  {"HOPBLAS_DEVICE", "OpenCL device: index or name substring"},
  {"HOPBLAS_OPENCL_VARIANT", "auto | generic | adreno | mali | nvidia: OpenCL kernel family"},
  {"HOPBLAS_OPENCL_MEMORY", "auto | zero-copy | staged: host-memory strategy"},
  {"HOPBLAS_OPENCL_PARAMS", "generic OpenCL tiles, e.g. MWG=64,NWG=64,KWG=16,MDIMC=16,NDIMC=16"},
  {"HOPBLAS_OPENCL_MAX_ALLOC", "largest OpenCL buffer in bytes (0 = the device's limit)"},
  {"HOPBLAS_OPENCL_COPY_THREADS", "threads copying host memory <-> staging (0 = auto, 1 = none)"},
  {"HOPBLAS_OPENCL_CHUNK", "staged: bytes per upload and C read-back part (0 = 4 MiB)"},
  {"HOPBLAS_OPENCL_FAULT", "test knob: build|alloc|enqueue|read|upload[:N] fails the N-th such step"},
  {"HOPBLAS_OPENCL_FTZ", "test knob: 1 treats the device as flushing subnormal floats to zero"},
  {"HOPBLAS_QUEUE_WINDOW", "wait for the device after every N commands (0 = never)"},
  {"HOPBLAS_QUEUE_SLICE_US", "with a queue window: longest predicted kernel launch (1000 us)"},
  {"HOPBLAS_OPENCL_TILE", "adreno/mali outputs per work-item: 4x8 | 4x4 | 8x4 | 8x8"},
  {"HOPBLAS_OPENCL_LWS", "adreno/mali work-group XxY, powers of 2 (32x16 adreno, 16x8 mali)"},
  {"HOPBLAS_OPENCL_MALI_IMAGE", "a | b | both: the mali family's operand(s) read as images"},
  {"HOPBLAS_OPENCL_FP16", "off | products | accumulate: half arithmetic (image families with cl_khr_fp16; nvidia: accumulate = fma.rn.f16x2)"},
  {"HOPBLAS_OPENCL_FP16_EMULATE", "test knob: 1 emulates half arithmetic without cl_khr_fp16"},
  {"HOPBLAS_OPENCL_IMAGE_MAX", "test knob: largest image side in texels (0 = the device's)"},
  {"HOPBLAS_OPENCL_NV_SGEMM", "fma | 3xtf32: the nvidia family's sgemm kernel"},
  {"HOPBLAS_OPENCL_NV_EMULATE", "test knob: 1 runs the nvidia family with its PTX emulated"},
  {"HOPBLAS_OPENCL_NV_SPLITK", "auto | off | 2..64: the nvidia family's split-k slices"},
  {"HOPBLAS_TUNE", "off | cached | quick: when the tuner may run"},
  {"HOPBLAS_TUNE_BUDGET", "quick: seconds an unseen size bucket may spend tuning in a call (5)"},
  {"HOPBLAS_TUNE_FAULT", "test knob: wrong:N makes the tuner's N-th checked candidate wrong"},
  {"HOPBLAS_VC_CLOCK_MHZ", "VideoCore clock used for projected emulator times"},
  {"HOPBLAS_VC_QPUS", "VideoCore: QPUs (threads) per call, 1..12"},
  {"HOPBLAS_VC_UNROLL", "VideoCore: k steps per loop iteration of the QPU program, 2..8"},
  {"HOPBLAS_VC_MAX_MB", "VideoCore: most GPU memory one call may allocate, in MiB"},
  {"HOPBLAS_VC_EMU_MAX_MB", "videocore-emu: most emulator memory one call may use, in MiB"},
  {"HOPBLAS_VC_EMU_MAX_GFLOP", "videocore-emu: calls with more work (2mnk / 1e9) are declined"},
  {NULL, NULL},
};

static const char *const path_keys[] = {
  "HOPBLAS_TRACE", "HOPBLAS_CPU_BLAS", "HOPBLAS_CONFIG_FILE", "HOPBLAS_CACHE_DIR", NULL,
};

bool hop_config_is_path_key(const char *key)
{
  for (size_t i = 0; path_keys[i] != NULL; i++)
    if (strcmp(path_keys[i], key) == 0)
      return true;
  return false;
}

static bool is_known_key(const char *key)
{
  for (size_t i = 0; hop_config_keys[i].name != NULL; i++)
    if (strcmp(hop_config_keys[i].name, key) == 0)
      return true;
  return false;
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
  if (!is_known_key(full) || strcmp(full, "HOPBLAS_CONFIG_FILE") == 0) {
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

long hop_config_int(const char *key, long lo, long hi, long dflt)
{
  return (long)hop_config_parse_double(hop_config_file(), hop_config()->verbose, key, (double)lo,
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

  static const char *const backends[] = {
    "auto", "cpu", "opencl", "videocore", "videocore-emu", "test-wrong", "test-narrow", NULL,
  };
  snprintf(cfg->backend, sizeof cfg->backend, "auto");
  parse_word(file, cfg->verbose, "HOPBLAS_BACKEND", backends, cfg->backend, sizeof cfg->backend);
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
  parse_path(file, cfg->verbose, "HOPBLAS_CPU_BLAS", cfg->cpu_blas, sizeof cfg->cpu_blas);
}
