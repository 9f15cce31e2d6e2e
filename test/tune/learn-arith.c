/* The arithmetic of the CPU model's correction (backends/cpu/learn.c) on
 * made-up timings, so that every branch is checked whatever this machine's
 * calls take: the first step half of the way in log terms, later ones a
 * quarter, a call guessed under 2 ms in proportion to its guess, steps
 * capped at 16x, nothing from calls both guessed and measured short or
 * from the half types, each routine and precision apart.  Prints TAP. */
#include <math.h>
#include <stdio.h>

#include "backends/cpu/cpu.h"

static int n, bad;

static void near(double got, double want, const char *what)
{
  bool ok = fabs(got - want) <= 1e-9 * fabs(want);
  printf("%s %d - %s (%.6g, want %.6g)\n", ok ? "ok" : "not ok", ++n, what, got, want);
  bad += !ok;
}

int main(void)
{
  struct hop_call d = {.op = HOP_OP_GEMM, .dtype = HOP_DTYPE_D, .m = 8, .n = 8, .k = 8};
  struct hop_call z = d, s = d, syrk = d, h = d;
  z.dtype = HOP_DTYPE_Z, s.dtype = HOP_DTYPE_S, syrk.op = HOP_OP_SYRK, h.dtype = HOP_DTYPE_H;
  near(hop_cpu_learned(&d), 1.0, "nothing learnt: 1");
  hop_cpu_learn(&d, 1e-3, 1.5e-3);
  near(hop_cpu_learned(&d), 1.0, "guessed and measured under 2 ms: nothing");
  hop_cpu_learn(&d, 10e-3, 40e-3);
  near(hop_cpu_learned(&d), 2.0, "first: half of the way to 4x");
  near(hop_cpu_learned(&z), 2.0, "z shares d's correction");
  near(hop_cpu_learned(&s), 1.0, "float untouched");
  near(hop_cpu_learned(&syrk), 1.0, "another routine untouched");
  hop_cpu_learn(&d, 10e-3, 10e-3);
  near(hop_cpu_learned(&d), pow(2.0, 0.75), "later: a quarter of the way (to 1x)");
  hop_cpu_learn(&s, 10e-3, 1000e-3);
  near(hop_cpu_learned(&s), 4.0, "a 100x step capped at 16x, half of it");
  hop_cpu_learn(&syrk, 0.5e-3, 5e-3);
  near(hop_cpu_learned(&syrk), pow(10.0, 0.5 * 0.25), "guessed 0.5 ms, took 5: a quarter of the weight");
  hop_cpu_learn(&h, 10e-3, 40e-3);
  near(hop_cpu_learned(&h), 1.0, "the half types keep their guess");
  printf("1..%d\n", n);
  return bad != 0;
}
