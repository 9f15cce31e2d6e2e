/* TAP output for the VideoCore test programs: the plan goes last, so a
 * program that dies half-way is caught by the driver as a missing plan. */
#ifndef HOP_VC_TAP_H
#define HOP_VC_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int vc_tap_count, vc_tap_failed;

static __attribute__((format(printf, 2, 3))) bool vc_ok(bool cond, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  printf("%s %d - ", cond ? "ok" : "not ok", ++vc_tap_count);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  fflush(stdout);
  vc_tap_failed += !cond;
  return cond;
}

static int vc_tap_done(void)
{
  printf("1..%d\n", vc_tap_count);
  return vc_tap_failed ? 1 : 0;
}

#endif
