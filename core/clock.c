/* The one clock every timing in the library reads: monotonic seconds (a
 * call's phases, the CPU model's correction, tuning and calibration). */
#include <time.h>

#include "hop.h"

double hop_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
