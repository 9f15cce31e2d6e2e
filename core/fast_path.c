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

const struct hop_fast_path hop_fast_path_off = {.max_mnk = {0}};
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
  struct hop_direct_entries *e = &fast.path.e;
  last->direct(v.state, e);
  /* The same flops threshold for every dtype: a complex multiply-add is 4
   * real ones. */
  uint64_t real = (uint64_t)fmin(max_flops / 2.0, HOP_FAST_PATH_MAX_MNK);
  uint64_t cplx = (uint64_t)fmin(max_flops / 8.0, HOP_FAST_PATH_MAX_MNK);
  fast.path.max_mnk[HOP_DTYPE_S] = e->cblas_sgemm && e->sgemm ? real : 0;
  fast.path.max_mnk[HOP_DTYPE_D] = e->cblas_dgemm && e->dgemm ? real : 0;
  fast.path.max_mnk[HOP_DTYPE_C] = e->cblas_cgemm && e->cgemm ? cplx : 0;
  fast.path.max_mnk[HOP_DTYPE_Z] = e->cblas_zgemm && e->zgemm ? cplx : 0;
  __atomic_store_n(&hop_fast_path_ready, &fast.path, __ATOMIC_RELEASE);
}

void hop_fast_path_prepare(void) { pthread_once(&fast.once, fast_prepare); }
