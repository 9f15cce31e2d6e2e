/* The untuned model's rate, corrected by the calls the engine ran.  Until
 * `hopblas tune` measures the machine, the CPU engine guesses its rate (30
 * GFLOPS a core, half of it in double) for every routine, and the guess can
 * be far off: OpenBLAS's dgemm ran about 7 GFLOPS a core on a 32-core H200
 * host, so the router kept the trailing updates of Debian's dgetrf on the
 * CPU, at twice the time the device took; dpotrf's dsyrk of 64 x 64 x k
 * and its dtrsm of m x 64 panels, guessed at a fraction of a millisecond,
 * ran ten times longer (the devices ran them faster: doc/PERFORMANCE.md).
 *
 * Each call the engine runs whose guess or measured time is long enough
 * to time (thread start-up and timer noise do not count) moves the
 * correction of its routine and precision towards measured / guessed,
 * geometrically: the first half of the way, later ones a quarter, so that
 * one disturbed call (the program's first touch of a fresh matrix, a busy
 * host) does not swing the routing.  A call guessed shorter than that
 * moves it in proportion to its guess: a stall of a few milliseconds in a
 * call guessed at a tenth of one is not a rate (on this 2-core VM one
 * swung double GEMM's prediction fourfold), while dpotrf's hundreds of
 * dsyrk calls still teach it in a few dozen.  Float (s, c) and double
 * (d, z) apart; the half types convert panels on the host and keep their
 * guess. */
#include <math.h>
#include <stdatomic.h>

#include "cpu.h"

enum { LEARN_FLOAT, LEARN_DOUBLE, LEARN_CLASSES };

/* Calls whose guess and measured time are both shorter than this are not learnt from. */
static const double LEARN_MIN_S = 2e-3;
/* One call moves the correction by at most this factor either way. */
static const double LEARN_MAX_STEP = 16.0;

static struct {
  _Atomic double factor; /* 0: nothing learnt yet (1) */
  _Atomic int learnt;
} learn[HOP_OP_COUNT][LEARN_CLASSES];

static int learn_class(enum hop_dtype dt)
{
  switch (dt) {
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

double hop_cpu_learned(const struct hop_call *g)
{
  int c = learn_class(g->dtype);
  double f = c < 0 || g->op >= HOP_OP_COUNT ? 0.0 : atomic_load(&learn[g->op][c].factor);
  return f > 0.0 ? f : 1.0;
}

bool hop_cpu_learns(const struct hop_call *g, double guessed_s)
{
  return learn_class(g->dtype) >= 0 && g->op < HOP_OP_COUNT && guessed_s > 0.0;
}

void hop_cpu_learn(const struct hop_call *g, double guessed_s, double measured_s)
{
  int c = learn_class(g->dtype);
  if (c < 0 || g->op >= HOP_OP_COUNT || !(guessed_s > 0.0) || !(measured_s > 0.0) ||
      (guessed_s < LEARN_MIN_S && measured_s < LEARN_MIN_S))
    return;
  double step = measured_s / guessed_s;
  step = step > LEARN_MAX_STEP ? LEARN_MAX_STEP : step < 1.0 / LEARN_MAX_STEP ? 1.0 / LEARN_MAX_STEP : step;
  bool first = atomic_fetch_add(&learn[g->op][c].learnt, 1) == 0;
  double w = (first ? 0.5 : 0.25) * (guessed_s < LEARN_MIN_S ? guessed_s / LEARN_MIN_S : 1.0);
  /* A lost update between two threads only delays the correction. */
  double now = pow(hop_cpu_learned(g), 1.0 - w) * pow(step, w);
  atomic_store(&learn[g->op][c].factor, now);
  if (first)
    hop_log(2, "cpu: the untuned model's %s %s rate corrected by a call it ran (%s %lldx%lldx%lld, "
               "%.3g ms against %.3g guessed): predictions now %.2fx its guess",
            c == LEARN_DOUBLE ? "double" : "float", hop_op_name(g->op), hop_dtype_name(g->dtype),
            (long long)g->m, (long long)g->n, (long long)g->k, measured_s * 1e3, guessed_s * 1e3,
            now);
}
