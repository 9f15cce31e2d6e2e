/* The parsed HOPBLAS_CONFIG_FILE and the lookups that need it; internal to core/. */
#ifndef HOP_CONFIG_FILE_H
#define HOP_CONFIG_FILE_H

#include <stddef.h>

#include "hop.h"

#define HOP_CONFIG_FILE_ENTRIES 64
#define HOP_CONFIG_KEY_MAX 64
#define HOP_CONFIG_VALUE_MAX 4096

struct hop_config_file {
  char path[4096];
  size_t count;
  unsigned problems; /* lines reported or counted as ignored */
  struct {
    char key[HOP_CONFIG_KEY_MAX];
    char value[HOP_CONFIG_VALUE_MAX];
  } entries[HOP_CONFIG_FILE_ENTRIES];
};

/* Parse text (not NUL-terminated, len bytes) into f; problems are reported
 * to stderr when verbose >= 1 and the offending line is skipped. */
void hop_config_file_parse(struct hop_config_file *f, const char *text, size_t len, int verbose);
void hop_config_file_load(struct hop_config_file *f, const char *path, int verbose);
const char *hop_config_file_get(const struct hop_config_file *f, const char *key);

/* Environment, then f (which may be NULL). */
const char *hop_config_lookup(const struct hop_config_file *f, const char *key);
double hop_config_parse_double(const struct hop_config_file *f, int verbose, const char *key,
                               double lo, double hi, double dflt);
void hop_config_build(struct hop_config *cfg, struct hop_config_file *file);

/* The context's parsed file (core/context.c). */
const struct hop_config_file *hop_config_file(void);

#endif
