/* Whether sharing a call among devices pays, learned from the calls.
 *
 * The cost model predicts each part as if its device had the host to
 * itself, so it shares every large call.  Devices of one host share its
 * memory, though: a staged call's packing and writing back of C take the
 * same host time however many devices take part, and each part has its own
 * pipeline to fill and drain.  On two H200s dgemm at 8192 ran slower shared
 * than on one GPU (host copies bound it) while at 16384 sharing gained a
 * third, and sgemm gained at both: no fixed rule of the model's gets that.
 *
 * So for each routine, dtype, shape and octave of flops the calls the
 * model would share keep two rates, measured on warm calls (every device
 * taking part has run a call before): shared, and alone on the first
 * device.  Each way's first
 * measurement of a class is dropped (it pays for the buffers, and perhaps
 * the program, of that size); the calls are shared (the model's choice)
 * until that way has a rate, then run alone until that way has one too,
 * and from then on the faster of the two runs, except every EXPLORE-th
 * call, which runs the other way so that a rate taken under load is
 * measured again.  Each later measurement moves its rate half of the way. */
#include <math.h>

#include "ocl.h"

enum { EXPLORE = 16 };

/* Calls alike: the same routine, dtype and shape (shared by rows or by
 * columns), and flops within a factor of two. */
static struct hop_ocl_split_class *class_of(struct hop_ocl_split_learn *l, const struct hop_call *g)
{
  double flops = hop_call_flops(g);
  int octave = (flops >= 1.0 ? (int)log2(flops) : 0) - HOP_OCL_SPLIT_FIRST_OCTAVE;
  octave = octave < 0 ? 0 : octave >= HOP_OCL_SPLIT_OCTAVES ? HOP_OCL_SPLIT_OCTAVES - 1 : octave;
  return &l->cls[g->op][g->dtype][hop_ocl_split_by_rows(g)][octave];
}

/* The arm whose rate is higher; sharing while either is unknown. */
static bool faster_shared(double alone, double shared)
{
  return !(alone > 0.0 && shared > 0.0) || shared >= alone;
}

bool hop_ocl_split_learnt_shared(struct hop_ocl_split_learn *l, const struct hop_call *g)
{
  struct hop_ocl_split_class *c = class_of(l, g);
  return faster_shared(atomic_load_explicit(&c->rate[0], memory_order_relaxed),
                       atomic_load_explicit(&c->rate[1], memory_order_relaxed));
}

bool hop_ocl_split_choose(struct hop_ocl_split_learn *l, const struct hop_call *g, char *why,
                          size_t len)
{
  struct hop_ocl_split_class *c = class_of(l, g);
  double alone = atomic_load(&c->rate[0]), shared = atomic_load(&c->rate[1]);
  unsigned n = atomic_fetch_add(&c->calls, 1);
  bool share;
  const char *how;
  if (!(shared > 0.0))
    share = true, how = "shared: not yet measured";
  else if (!(alone > 0.0))
    share = false, how = "alone: not yet measured";
  else if (n % EXPLORE == EXPLORE - 1)
    share = !faster_shared(alone, shared), how = share ? "shared: measured again" : "alone: measured again";
  else
    share = faster_shared(alone, shared), how = share ? "shared" : "alone";
  if (alone > 0.0 && shared > 0.0)
    snprintf(why, len, "%s (calls like it: shared %.3g, alone %.3g GFLOPS)", how, shared * 1e-9,
             alone * 1e-9);
  else
    snprintf(why, len, "%s", how);
  return share;
}

void hop_ocl_split_learn(struct hop_ocl_split_learn *l, const struct hop_call *g, bool shared,
                         double seconds)
{
  if (!(seconds > 0.0))
    return;
  struct hop_ocl_split_class *c = class_of(l, g);
  if (atomic_fetch_add(&c->samples[shared], 1) == 0)
    return; /* the first of its class this way: buffers made, perhaps a program loaded */
  double rate = hop_call_flops(g) / seconds, was = atomic_load(&c->rate[shared]);
  atomic_store(&c->rate[shared], was > 0.0 ? 0.5 * (was + rate) : rate);
}
