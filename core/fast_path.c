/* The tiny-call fast path (see core/hop.h): set up once, after the first
 * call through core/, from the configuration and the CPU engine. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "hop.h"

static struct {
  pthread_once_t once;
  struct hop_fast_path path;
} fast = {PTHREAD_ONCE_INIT};

const struct hop_fast_path hop_fast_path_off = {.max_mnk = 0};
const struct hop_fast_path *hop_fast_path_ready = &hop_fast_path_off;

static void fast_prepare(void)
{
  const struct hop_config *cfg = hop_config();
  /* Every call must reach core/ when it has to be traced, told about
   * (HOPBLAS_VERBOSE=2 logs each routing decision) or sent to a device. */
  if (cfg->trace_path[0] != '\0' || cfg->verbose >= 2)
    return;
  double max_flops;
  const struct hop_backend *last = hop_backends[hop_backend_count - 1];
  if (strcmp(cfg->backend, last->name) == 0)
    max_flops = INFINITY;
  else if (strcmp(cfg->backend, "auto") != 0)
    return;
  else
    max_flops = cfg->min_flops >= 0.0 ? cfg->min_flops : cfg->device_floor_flops;
  if (last->direct == NULL)
    return;
  struct hop_engine_view v;
  hop_engine_get(hop_backend_count - 1, &v);
  last->direct(v.state, &fast.path.cblas_sgemm, &fast.path.sgemm);
  if (fast.path.cblas_sgemm == NULL || fast.path.sgemm == NULL)
    return;
  fast.path.max_mnk = (uint64_t)fmin(max_flops / 2.0, HOP_FAST_PATH_MAX_MNK);
  __atomic_store_n(&hop_fast_path_ready, &fast.path, __ATOMIC_RELEASE);
}

void hop_fast_path_prepare(void) { pthread_once(&fast.once, fast_prepare); }
