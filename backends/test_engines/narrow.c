/* A device engine that declares one thing, sgemm, built only for `make
 * check`: it proves that the router hands an engine nothing it did not
 * declare.  It computes through the fallback engine what it takes, and
 * says so loudly (a log line, a status) if it is ever handed more. */
#include <limits.h>

#include "hop.h"

static enum hop_status narrow_init(void **state, char *why, size_t why_len)
{
  snprintf(why, why_len, "test engine: takes sgemm only");
  *state = NULL;
  return HOP_OK;
}

static double narrow_predict(void *state, const struct hop_call *g) { return 0.0; }

static enum hop_status narrow_run(void *state, const struct hop_call *g)
{
  if (g->op != HOP_OP_GEMM || g->dtype != HOP_DTYPE_S) {
    hop_log(1, "test-narrow was handed %s%s, which it never declared", hop_dtype_name(g->dtype),
            hop_op_name(g->op));
    return HOP_ERR_INTERNAL;
  }
  hop_fallback_run(g);
  return HOP_OK;
}

const struct hop_backend hop_backend_test_narrow = {
  .name = "test-narrow",
  .is_device = true,
  .fork_safe = true,
  .only_when_named = true,
  .max_dim = INT_MAX,
  .takes = {[HOP_OP_GEMM] = HOP_DTYPE_BIT(HOP_DTYPE_S)},
  .init = narrow_init,
  .predict = narrow_predict,
  .run = narrow_run,
};
