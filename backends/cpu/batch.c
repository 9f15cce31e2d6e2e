/* Batched GEMM on the CPU: every problem through the loaded BLAS (else the
 * reference).  Problems small enough that OpenBLAS runs each on one thread
 * (m n k up to 64^3, its SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD)
 * are shared out over threads of their own, in runs of consecutive
 * problems; larger ones go one after another, each threaded by OpenBLAS,
 * so that the two never oversubscribe the cores. */
#include "cpu.h"

enum { SMALL_MNK = 64 * 64 * 64 };
/* A thread is worth its start (tens of microseconds) from this many flops. */
#define FLOPS_PER_THREAD 4e6

static bool small(const struct hop_batch_group *gr)
{
  return (double)gr->m * (double)gr->n * (double)gr->k <= SMALL_MNK;
}

struct batch_args {
  const struct hop_cpu_state *st;
  const struct hop_call *g;
};

/* Problems [first, end) of the small groups, numbered across them. */
static void run_small(void *arg, int64_t first, int64_t end)
{
  const struct batch_args *x = arg;
  const struct hop_batch *b = x->g->batch;
  int64_t base = 0;
  for (size_t i = 0; i < b->groups; i++) {
    const struct hop_batch_group *gr = &b->group[i];
    if (!small(gr))
      continue;
    int64_t lo = first > base ? first - base : 0;
    int64_t hi = end - base < gr->count ? end - base : gr->count;
    for (int64_t p = lo; p < hi; p++) {
      struct hop_call m = hop_batch_member(x->g, gr, p);
      hop_cpu_gemm_sliced(x->st, &m);
    }
    base += gr->count;
  }
}

void hop_cpu_gemm_batch(const struct hop_cpu_state *st, const struct hop_call *g)
{
  const struct hop_batch *b = g->batch;
  int64_t count = 0;
  double mnk = 0.0;
  for (size_t i = 0; i < b->groups; i++) {
    const struct hop_batch_group *gr = &b->group[i];
    if (small(gr)) {
      count += gr->count;
      mnk += (double)gr->count * (double)gr->m * (double)gr->n * (double)gr->k;
      continue;
    }
    for (int64_t p = 0; p < gr->count; p++) {
      struct hop_call m = hop_batch_member(g, gr, p);
      hop_cpu_gemm_sliced(st, &m);
    }
  }
  struct batch_args args = {st, g};
  double flops = mnk * hop_dtype_info(g->dtype)->flops_per_fma;
  hop_parallel(hop_parallel_threads(flops, FLOPS_PER_THREAD, count), count, run_small, &args);
}
