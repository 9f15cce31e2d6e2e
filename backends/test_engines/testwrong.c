/* A device engine that answers wrongly on purpose, built only for `make check`:
 * it proves that HOPBLAS_VERIFY notices and that =fallback repairs, and that
 * the contract sweeps fail.  It computes the right result through the
 * fallback engine, then corrupts it: GEMM's first element of each column of
 * C, the other operations' last (for syrk's upper triangle, outside what
 * the call may write but in the last column). */
#include <limits.h>

#include "hop.h"

static enum hop_status wrong_init(void **state, char *why, size_t why_len)
{
  snprintf(why, why_len, "test engine: wrong on purpose");
  *state = NULL;
  return HOP_OK;
}

static double wrong_predict(void *state, const struct hop_call *g) { return 0.0; }

static enum hop_status wrong_gemm(void *state, const struct hop_call *g)
{
  hop_fallback_run(g);
  /* Off by one in one element of every column: far outside any tolerance. */
  int64_t row = g->op == HOP_OP_GEMM ? 0 : g->m - 1;
  for (int64_t j = 0; j < g->n; j++) {
    size_t at = hop_at(row, j, g->ldc);
    struct hop_scalar c = hop_dtype_load(g->dtype, true, g->c, at);
    c.re += 1.0;
    hop_dtype_store(g->dtype, g->c, at, c);
  }
  return HOP_OK;
}

const struct hop_backend hop_backend_test_wrong = {
  .name = "test-wrong",
  .is_device = true,
  .fork_safe = true,
  .only_when_named = true, /* it answers wrongly on purpose */
  .max_dim = INT_MAX,
  .takes = {[HOP_OP_GEMM] = HOP_DTYPE_BIT(HOP_DTYPE_S) | HOP_DTYPE_BIT(HOP_DTYPE_H) |
                            HOP_DTYPE_BIT(HOP_DTYPE_SH),
            [HOP_OP_SYMM] = HOP_DTYPE_BIT(HOP_DTYPE_S), [HOP_OP_SYRK] = HOP_DTYPE_BIT(HOP_DTYPE_S),
            [HOP_OP_SYR2K] = HOP_DTYPE_BIT(HOP_DTYPE_S), [HOP_OP_TRMM] = HOP_DTYPE_BIT(HOP_DTYPE_S),
            [HOP_OP_TRSM] = HOP_DTYPE_BIT(HOP_DTYPE_S)},
  .init = wrong_init,
  .predict = wrong_predict,
  .run = wrong_gemm,
  .describe = NULL,
};
