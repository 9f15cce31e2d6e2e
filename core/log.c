/* One logging function: stderr, one line per message, gated by HOPBLAS_VERBOSE. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hop.h"

void hop_log(int level, const char *fmt, ...)
{
  if (level > hop_config()->verbose)
    return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  /* One write per line so that lines from several threads do not interleave. */
  fprintf(stderr, "hopblas: %s\n", line);
}
