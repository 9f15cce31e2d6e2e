/* TAP for the standalone test programs, those that cannot link the test
 * library (it links hopblas): one "ok N - ..." or "not ok N - ..." line
 * per check, counted for the plan and the exit status. */
#ifndef HT_TAP_H
#define HT_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static void tap(bool ok, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  printf("%s %d - ", ok ? "ok" : "not ok", ++tap_n);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  tap_failed += !ok;
  fflush(stdout);
}

#endif
