/* libFuzzer target: the HOPBLAS_CONFIG_FILE parser on arbitrary bytes.
 * Every accepted entry must be a known key with a bounded, NUL-terminated value. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct hop_config_file f; /* large: keep it off the stack */
  memset(&f, 0, sizeof f);
  hop_config_file_parse(&f, (const char *)data, size, 0);
  if (f.count > HOP_CONFIG_FILE_ENTRIES)
    abort();
  for (size_t i = 0; i < f.count; i++) {
    if (strnlen(f.entries[i].key, HOP_CONFIG_KEY_MAX) == HOP_CONFIG_KEY_MAX ||
        strnlen(f.entries[i].value, HOP_CONFIG_VALUE_MAX) == HOP_CONFIG_VALUE_MAX)
      abort();
    if (strncmp(f.entries[i].key, "HOPBLAS_", 8) != 0 || hop_config_file_get(&f, f.entries[i].key) == NULL)
      abort();
  }
  return 0;
}
