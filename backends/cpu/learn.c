/* The untuned model's rate, corrected by the calls the engine ran.  Until
 * `hopblas tune` measures the machine, the CPU engine guesses its rate (30
 * GFLOPS a core, half of it in double), and the guess can be far off:
 * OpenBLAS's dgemm ran about 7 GFLOPS a core on a 32-core H200 host, so
 * the router kept the trailing updates of Debian's dgetrf on the CPU, at
 * twice the time the device took, for the whole factorization.  Each GEMM
 * the engine runs whose guess was long enough to time (thread start-up and
 * timer noise do not count) moves the correction of its precision towards
 * measured / guessed, geometrically: the first half of the way, later ones
 * a quarter, so that one disturbed call (the program's first touch of a
 * fresh matrix, a busy host) does not swing the routing.  Float (s, c) and
 * double (d, z) apart; the half types convert panels on the host and keep
 * their guess. */
#include <math.h>
#include <stdatomic.h>
#include <time.h>

#include "cpu.h"

enum { LEARN_FLOAT, LEARN_DOUBLE, LEARN_CLASSES };

/* Guesses shorter than this are not learnt from. */
static const double LEARN_MIN_S = 2e-3;
/* One call moves the correction by at most this factor either way. */
static const double LEARN_MAX_STEP = 16.0;

static _Atomic double factor[LEARN_CLASSES] = {1.0, 1.0};
static _Atomic int learnt[LEARN_CLASSES];

static int learn_class(const struct hop_call *g)
{
  if (g->op != HOP_OP_GEMM)
    return -1;
  switch (g->dtype) {
  case HOP_DTYPE_S:
  case HOP_DTYPE_C: return LEARN_FLOAT;
  case HOP_DTYPE_D:
  case HOP_DTYPE_Z: return LEARN_DOUBLE;
  case HOP_DTYPE_H:
  case HOP_DTYPE_SH:
  case HOP_DTYPE_COUNT: break;
  }
  return -1;
}

double hop_cpu_learned(enum hop_dtype dt)
{
  switch (dt) {
  case HOP_DTYPE_S:
  case HOP_DTYPE_C: return atomic_load(&factor[LEARN_FLOAT]);
  case HOP_DTYPE_D:
  case HOP_DTYPE_Z: return atomic_load(&factor[LEARN_DOUBLE]);
  case HOP_DTYPE_H:
  case HOP_DTYPE_SH:
  case HOP_DTYPE_COUNT: break;
  }
  return 1.0;
}

double hop_cpu_learn_clock(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool hop_cpu_learns(const struct hop_call *g, double guessed_s)
{
  return learn_class(g) >= 0 && guessed_s >= LEARN_MIN_S;
}

void hop_cpu_learn(const struct hop_call *g, double guessed_s, double measured_s)
{
  int c = learn_class(g);
  if (c < 0 || guessed_s < LEARN_MIN_S || !(measured_s > 0.0))
    return;
  double step = measured_s / guessed_s;
  step = step > LEARN_MAX_STEP ? LEARN_MAX_STEP : step < 1.0 / LEARN_MAX_STEP ? 1.0 / LEARN_MAX_STEP : step;
  bool first = atomic_fetch_add(&learnt[c], 1) == 0;
  /* A lost update between two threads only delays the correction. */
  double w = first ? 0.5 : 0.25;
  double now = pow(atomic_load(&factor[c]), 1.0 - w) * pow(step, w);
  atomic_store(&factor[c], now);
  if (first)
    hop_log(2, "cpu: the untuned model's %s rate corrected by a call it ran (%s %lldx%lldx%lld, "
               "%.3g ms against %.3g guessed): predictions now %.2fx its guess",
            c == LEARN_DOUBLE ? "double" : "float", hop_dtype_name(g->dtype), (long long)g->m,
            (long long)g->n, (long long)g->k, measured_s * 1e3, guessed_s * 1e3, now);
}
