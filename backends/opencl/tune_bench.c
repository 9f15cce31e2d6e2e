/* The tuner's test problem (tune.h): an n x n x n sgemm on operands resident
 * on the device, a small odd-shaped one (67 x 45 x 33, both operands
 * transposed: the edges of every tile), and their references computed once
 * on the CPU engine with the scale of each element's rounding error, so that
 * every candidate's result is checked before it may win. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

enum { ODD_M = HOP_TUNE_ODD_M, ODD_N = HOP_TUNE_ODD_N, ODD_K = HOP_TUNE_ODD_K };

/* C = op(A) op(B) in float on the CPU engine, and |op(A)| |op(B)|, the scale of
 * each element's rounding error (the contract's bound). */
static void reference(int m, int n, int k, bool ta, bool tb, const float *a, const float *b,
                      int ld, float *ref, float *bound)
{
  struct hop_call g = {.dtype = HOP_DTYPE_S, .symbol = "tune", .ta = ta, .tb = tb, .m = m,
                       .n = n, .k = k, .alpha = {1.0, 0.0}, .beta = {0.0, 0.0}, .a = a, .lda = ld,
                       .b = b, .ldb = ld, .c = ref, .ldc = m};
  hop_fallback_run(&g);
  size_t na = (size_t)ld * (size_t)ld;
  float *aa = malloc(na * sizeof *aa), *ab = malloc(na * sizeof *ab);
  if (aa == NULL || ab == NULL) { /* no bound: every element gets the largest one */
    for (size_t i = 0; i < (size_t)m * (size_t)n; i++)
      bound[i] = (float)k;
    free(aa), free(ab);
    return;
  }
  for (size_t i = 0; i < na; i++)
    aa[i] = fabsf(a[i]), ab[i] = fabsf(b[i]);
  g.a = aa, g.b = ab, g.c = bound;
  hop_fallback_run(&g);
  free(aa), free(ab);
}

/* |got - ref| <= 4 k eps (|A||B|)_ij, and no NaN. */
static bool matches(const float *got, const float *ref, const float *bound, size_t count, int k)
{
  const double eps = 5.96e-8;
  for (size_t i = 0; i < count; i++) {
    double tol = 4.0 * k * eps * bound[i] + 1e-30;
    if (!(fabs((double)got[i] - (double)ref[i]) <= tol))
      return false;
  }
  return true;
}

static cl_mem device_copy(struct hop_ocl_state *st, const float *host, size_t count, cl_int *err)
{
  cl_mem_flags flags = CL_MEM_READ_WRITE | (host != NULL ? CL_MEM_COPY_HOST_PTR : 0);
  return clCreateBuffer(st->ctx, flags, count * sizeof(float), (void *)host, err);
}

bool hop_tune_bench_open(struct hop_ocl_state *st, int n, struct hop_tune_bench *b, char *why,
                         size_t len)
{
  size_t nn = (size_t)n * (size_t)n, odd = (size_t)ODD_M * ODD_N;
  float *ha = malloc(nn * sizeof *ha), *hb = malloc(nn * sizeof *hb);
  *b = (struct hop_tune_bench){.n = n, .ha = ha, .hb = hb};
  b->ref = malloc(nn * sizeof *b->ref), b->bound = malloc(nn * sizeof *b->bound);
  b->out = malloc(nn * sizeof *b->out);
  b->odd_ref = malloc(odd * sizeof *b->odd_ref), b->odd_bound = malloc(odd * sizeof *b->odd_bound);
  if (!ha || !hb || !b->ref || !b->bound || !b->out || !b->odd_ref || !b->odd_bound) {
    snprintf(why, len, "out of host memory for n = %d", n);
    return false;
  }
  unsigned x = 12345u;
  for (size_t i = 0; i < nn; i++) {
    x = x * 1664525u + 1013904223u, ha[i] = (float)(x >> 8) / 8388608.0f - 1.0f;
    x = x * 1664525u + 1013904223u, hb[i] = (float)(x >> 8) / 8388608.0f - 1.0f;
  }
  reference(n, n, n, false, false, ha, hb, n, b->ref, b->bound);
  reference(ODD_M, ODD_N, ODD_K, true, true, ha, hb, n, b->odd_ref, b->odd_bound);
  cl_int err[4] = {CL_SUCCESS, CL_SUCCESS, CL_SUCCESS, CL_SUCCESS};
  b->a = device_copy(st, ha, nn, &err[0]);
  b->b = device_copy(st, hb, nn, &err[1]);
  b->c = device_copy(st, NULL, nn, &err[2]);
  b->odd_c = device_copy(st, NULL, odd, &err[3]);
  for (int i = 0; i < 4; i++)
    if (err[i] != CL_SUCCESS) {
      snprintf(why, len, "device buffers for n = %d: error %d", n, (int)err[i]);
      return false;
    }
  return true;
}

void hop_tune_bench_close(struct hop_tune_bench *b)
{
  cl_mem mems[] = {b->a, b->b, b->c, b->odd_c};
  for (size_t i = 0; i < 4; i++)
    if (mems[i] != NULL)
      clReleaseMemObject(mems[i]);
  free((void *)b->ha), free((void *)b->hb);
  free(b->ref), free(b->bound), free(b->out), free(b->odd_ref), free(b->odd_bound);
  *b = (struct hop_tune_bench){0};
}

struct hop_ocl_launch hop_tune_bench_main(const struct hop_tune_bench *b)
{
  int n = b->n;
  return (struct hop_ocl_launch){.kernel = HOP_OCL_SGEMM, .m = n, .n = n, .k = n, .alpha = 1.0f,
                                 .beta = 0.0f, .a = b->a, .b = b->b, .cin = b->c, .cout = b->c,
                                 .lda = n, .ldb = n, .ldcin = n, .ldcout = n};
}

/* Run l once and read C back; false when the device failed. */
static bool run_once(struct hop_ocl_state *st, const struct hop_tune_space *sp,
                     struct hop_tune_bench *b, const struct hop_ocl_launch *l, cl_mem c,
                     size_t count)
{
  cl_event ev = NULL;
  cl_int err = sp->launch(st, b, l, &ev);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(st->q[HOP_OCL_Q_EXEC], c, CL_TRUE, 0, count * sizeof(float), b->out,
                              1, &ev, NULL);
  if (ev != NULL)
    clReleaseEvent(ev);
  return err == CL_SUCCESS;
}

const char *hop_tune_bench_check(struct hop_ocl_state *st, const struct hop_tune_space *sp,
                                 struct hop_tune_bench *b, bool make_wrong)
{
  size_t nn = (size_t)b->n * (size_t)b->n;
  struct hop_ocl_launch l = hop_tune_bench_main(b);
  if (!run_once(st, sp, b, &l, b->c, nn))
    return "the launch failed";
  if (make_wrong)
    b->out[nn / 2] += 1.0f;
  if (!matches(b->out, b->ref, b->bound, nn, b->n))
    return "wrong result";
  l = (struct hop_ocl_launch){.kernel = HOP_OCL_SGEMM, .m = ODD_M, .n = ODD_N, .k = ODD_K,
                              .alpha = 1.0f, .beta = 0.0f, .ta = true, .tb = true, .a = b->a,
                              .b = b->b, .cin = b->odd_c, .cout = b->odd_c, .lda = b->n,
                              .ldb = b->n, .ldcin = ODD_M, .ldcout = ODD_M};
  if (!run_once(st, sp, b, &l, b->odd_c, (size_t)ODD_M * ODD_N))
    return "the launch failed (odd shape)";
  if (!matches(b->out, b->odd_ref, b->odd_bound, (size_t)ODD_M * ODD_N, ODD_K))
    return "wrong result (odd shape)";
  return NULL;
}
