/* The arithmetic of the OpenCL model's fixed cost corrected by the calls
 * run (backends/opencl/model_learn.c) on made-up timings, so that every
 * branch is checked whatever this machine's calls take: the first step half
 * of the way in log terms, later ones a quarter, at most 16x a step, never
 * under the default.  Prints TAP. */
#include <math.h>

#include "ocl.h"
#include "test/tap.h"

static void near(double got, double want, const char *what)
{
  tap(fabs(got - want) <= 1e-9 * fabs(want), "%s (%.6g, want %.6g)", what, got, want);
}

int main(void)
{
  const double dflt = 50e-6; /* a discrete GPU's default */
  /* a 256 dgemm predicted at 95 us, 50 of them fixed, that took 205 us: 160 us seen */
  near(hop_ocl_model_setup_step(dflt, dflt, 45e-6, 205e-6, true), dflt * sqrt(160.0 / 50.0),
       "first: half of the way to what the call showed");
  near(hop_ocl_model_setup_step(100e-6, dflt, 45e-6, 205e-6, false), 100e-6 * pow(1.6, 0.25),
       "later: a quarter of the way");
  near(hop_ocl_model_setup_step(dflt, dflt, 45e-6, 1.0, true), dflt * 4.0,
       "a stalled call: the step capped at 16x (half of the way: 4x)");
  near(hop_ocl_model_setup_step(dflt, dflt, 45e-6, 60e-6, true), dflt,
       "a call cheaper than the default: the default, not under it");
  near(hop_ocl_model_setup_step(400e-6, dflt, 45e-6, 60e-6, true), 400e-6 * sqrt(50.0 / 400.0),
       "learnt above the default, then a cheap call: half of the way down to the default");
  near(hop_ocl_model_setup_step(dflt, dflt, 300e-6, 100e-6, true), dflt,
       "the rest over-predicted (nothing fixed left): the default");
  near(hop_ocl_model_setup_step(200e-6, dflt, 0.0, 50e-6, false), 200e-6 * pow(0.25, 0.25),
       "down a quarter of the way while above the default");
  printf("1..%d\n", tap_n);
  return tap_failed != 0;
}
