/* The host side of one call: how the GPU allocation is laid out, and the
 * packing that makes every BLAS call fit the QPU program.
 *
 * op(A) (m x k) becomes 16-row panels, column kk of panel i at
 * +64 * (i * k_pad + kk): one TMU request is one 64-byte line, whatever
 * the transpose or lda.  op(B) (k x n) becomes 64-column panels, row kk of
 * panel j at +256 * (j * k_pad + kk): the uniform stream of a block is
 * contiguous.  C becomes 16x64 tiles of 64 columns of 16 floats (4 KiB),
 * so the DMA pitch is 64 bytes for any ldc.  Padding (rows past m, columns
 * past n, depth past k up to k_pad) is zero in A and B; the padded C
 * elements are computed and dropped.  k_pad is a multiple of the unroll and
 * at least two iterations (the pipeline needs q >= 2).  One A column past
 * the last panel is read and never used (the TMU runs one column ahead):
 * the allocation keeps 64 bytes there.  Halves are converted to float here
 * (hgemm accumulates in fp32 and rounds C once, like every engine).
 *
 * The block is 16x64, so the QPUs may compute C^T = op(B)^T op(A)^T
 * instead when that pads less (a row-major 96 x 3072 result arrives here
 * as 3072 x 96: 25% padding one way, none the other).
 *
 * The QPUs flush subnormal floats to zero.  The router keeps calls with
 * subnormal inputs away (hop_backend.flushes); the results small enough
 * for a flush to matter are recomputed as they are unpacked, while the
 * caller's C still holds the old values (core/subnormal.c). */
#include <math.h>
#include <string.h>

#include "vc.h"

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

enum hop_status hop_vc_plan_make(const struct hop_call *g, const struct hop_vc_program *prog,
                                 unsigned max_threads, struct hop_vc_plan *plan, char *why,
                                 size_t why_len)
{
  memset(plan, 0, sizeof *plan);
  size_t u = prog->unroll;
  uint64_t straight = round_up((size_t)g->m, HOP_VC_BLOCK_M) * (uint64_t)round_up((size_t)g->n, HOP_VC_BLOCK_N);
  uint64_t swapped = round_up((size_t)g->n, HOP_VC_BLOCK_M) * (uint64_t)round_up((size_t)g->m, HOP_VC_BLOCK_N);
  plan->swap = swapped < straight;
  plan->m = plan->swap ? g->n : g->m;
  plan->n = plan->swap ? g->m : g->n;
  plan->mb = (int)(((size_t)plan->m + HOP_VC_BLOCK_M - 1) / HOP_VC_BLOCK_M);
  plan->nb = (int)(((size_t)plan->n + HOP_VC_BLOCK_N - 1) / HOP_VC_BLOCK_N);
  size_t k_pad = round_up((size_t)g->k, u);
  if (k_pad < 2 * u)
    k_pad = 2 * u;
  size_t blocks = (size_t)plan->mb * (size_t)plan->nb;
  plan->threads = max_threads < 1 ? 1 : max_threads > HOP_VC_MAX_THREADS ? HOP_VC_MAX_THREADS : max_threads;
  if (blocks < plan->threads)
    plan->threads = (unsigned)blocks;
  size_t per_thread = (blocks + plan->threads - 1) / plan->threads;
  plan->unif_stride = round_up(4 * (HOP_VC_U_RECORD * per_thread + 2), 64);
  /* Sizes in 64-bit arithmetic: a call must fit the 32-bit bus space. */
  uint64_t a_bytes = (uint64_t)plan->mb * k_pad * 64 + 64;
  uint64_t b_bytes = (uint64_t)plan->nb * k_pad * 256 + 256;
  uint64_t c_bytes = (uint64_t)blocks * 4096;
  uint64_t off = 0;
  plan->off_code = 0;
  off = round_up(8 * prog->n, 64);
  plan->off_control = (size_t)off;
  off += round_up(8ull * plan->threads, 64);
  plan->off_unif = (size_t)off;
  off += (uint64_t)plan->unif_stride * plan->threads;
  off = round_up(off, 4096);
  plan->off_a = (size_t)off;
  off = round_up(off + a_bytes, 4096);
  plan->off_b = (size_t)off;
  off = round_up(off + b_bytes, 4096);
  plan->off_c = (size_t)off;
  off += c_bytes;
  if (k_pad > (1u << 28) || off > (1ull << 30)) {
    snprintf(why, why_len, "needs %llu MiB of GPU memory, more than 1 GiB", (unsigned long long)(off >> 20));
    return HOP_DECLINED;
  }
  plan->k_pad = (int)k_pad;
  plan->total = (size_t)off;
  return HOP_OK;
}

/* The QPUs compute in float: the engine takes s, h and sh only. */
static float load_ab(enum hop_dtype dt, const void *base, size_t at)
{
  switch (dt) {
  case HOP_DTYPE_S: return ((const float *)base)[at];
  case HOP_DTYPE_H:
  case HOP_DTYPE_SH: return hop_half_to_float(((const uint16_t *)base)[at]);
  case HOP_DTYPE_D: /* not in the engine's .takes */
  case HOP_DTYPE_C:
  case HOP_DTYPE_Z:
  case HOP_DTYPE_COUNT: break;
  }
  return 0.0f;
}

static bool half_c(enum hop_dtype dt)
{
  switch (dt) {
  case HOP_DTYPE_H: return true;
  case HOP_DTYPE_S:
  case HOP_DTYPE_SH:
  case HOP_DTYPE_D:
  case HOP_DTYPE_C:
  case HOP_DTYPE_Z:
  case HOP_DTYPE_COUNT: break;
  }
  return false;
}

/* op(A)(r, kk) and op(B)(kk, c) of the caller. */
static float op_a(const struct hop_call *g, int r, int kk)
{
  return load_ab(g->dtype, g->a, g->ta ? hop_at(kk, r, g->lda) : hop_at(r, kk, g->lda));
}

static float op_b(const struct hop_call *g, int kk, int c)
{
  return load_ab(g->dtype, g->b, g->tb ? hop_at(c, kk, g->ldb) : hop_at(kk, c, g->ldb));
}

/* The QPUs' A (plan->m x k) and B (k x plan->n). */
static float qpu_a(const struct hop_call *g, const struct hop_vc_plan *plan, int r, int kk)
{
  return plan->swap ? op_b(g, kk, r) : op_a(g, r, kk);
}

static float qpu_b(const struct hop_call *g, const struct hop_vc_plan *plan, int kk, int c)
{
  return plan->swap ? op_a(g, c, kk) : op_b(g, kk, c);
}

/* Where the QPUs' C element (r, c) lives in the caller's C. */
static size_t c_at(const struct hop_call *g, const struct hop_vc_plan *plan, int r, int c)
{
  return plan->swap ? hop_at(c, r, g->ldc) : hop_at(r, c, g->ldc);
}

static void pack_a(const struct hop_call *g, const struct hop_vc_plan *plan, float *dst)
{
  for (int i = 0; i < plan->mb; i++)
    for (int kk = 0; kk < plan->k_pad; kk++, dst += 16)
      for (int e = 0; e < 16; e++) {
        int r = 16 * i + e;
        dst[e] = r < plan->m && kk < g->k ? qpu_a(g, plan, r, kk) : 0.0f;
      }
}

static void pack_b(const struct hop_call *g, const struct hop_vc_plan *plan, float *dst)
{
  for (int j = 0; j < plan->nb; j++)
    for (int kk = 0; kk < plan->k_pad; kk++, dst += 64)
      for (int cc = 0; cc < 64; cc++) {
        int c = 64 * j + cc;
        dst[cc] = c < plan->n && kk < g->k ? qpu_b(g, plan, kk, c) : 0.0f;
      }
}

/* The caller's C into tiles (only when beta != 0: otherwise it is not read). */
static void pack_c(const struct hop_call *g, const struct hop_vc_plan *plan, float *tiles)
{
  for (int i = 0; i < plan->mb; i++)
    for (int j = 0; j < plan->nb; j++) {
      float *t = tiles + ((size_t)i * (size_t)plan->nb + (size_t)j) * 1024;
      for (int cc = 0; cc < 64; cc++)
        for (int e = 0; e < 16; e++) {
          int r = 16 * i + e, c = 64 * j + cc;
          float v = 0.0f;
          if (r < plan->m && c < plan->n) {
            size_t at = c_at(g, plan, r, c);
            v = half_c(g->dtype) ? hop_half_to_float(((const uint16_t *)g->c)[at])
                                        : ((const float *)g->c)[at];
          }
          t[16 * cc + e] = v;
        }
    }
}

static void put32(void *base, size_t off, uint32_t v) { memcpy((char *)base + off, &v, 4); }

void hop_vc_pack(const struct hop_call *g, const struct hop_vc_program *prog,
                 const struct hop_vc_plan *plan, const struct hop_vc_mem *mem)
{
  char *h = mem->host;
  memcpy(h + plan->off_code, prog->words, 8 * prog->n);
  float falpha = (float)g->alpha.re, fbeta = (float)g->beta.re; /* the QPUs compute in float */
  uint32_t alpha, beta;
  memcpy(&alpha, &falpha, 4);
  memcpy(&beta, &fbeta, 4);
  size_t blocks = (size_t)plan->mb * (size_t)plan->nb;
  for (unsigned t = 0; t < plan->threads; t++) {
    uint32_t unif = mem->bus + (uint32_t)(plan->off_unif + t * plan->unif_stride);
    put32(h, plan->off_control + 8 * t, unif);
    put32(h, plan->off_control + 8 * t + 4, mem->bus + (uint32_t)plan->off_code);
    size_t at = plan->off_unif + t * plan->unif_stride;
    /* Blocks go round-robin, column panel by column panel, so that the
     * threads running together share a B panel. */
    for (size_t b = t; b < blocks; b += plan->threads, at += 4 * HOP_VC_U_RECORD) {
      size_t i = b % (size_t)plan->mb, j = b / (size_t)plan->mb;
      uint32_t rec = mem->bus + (uint32_t)at;
      put32(h, at + 4 * HOP_VC_U_PART2, rec + 4 * HOP_VC_U_C);
      put32(h, at + 4 * HOP_VC_U_A, mem->bus + (uint32_t)(plan->off_a + i * (size_t)plan->k_pad * 64));
      put32(h, at + 4 * HOP_VC_U_B, mem->bus + (uint32_t)(plan->off_b + j * (size_t)plan->k_pad * 256));
      put32(h, at + 4 * HOP_VC_U_ITERS, (uint32_t)plan->k_pad / prog->unroll - 1);
      put32(h, at + 4 * HOP_VC_U_C, mem->bus + (uint32_t)(plan->off_c + (i * (size_t)plan->nb + j) * 4096));
      put32(h, at + 4 * HOP_VC_U_ALPHA, alpha);
      put32(h, at + 4 * HOP_VC_U_BETA, beta);
      put32(h, at + 4 * HOP_VC_U_MORE, b + plan->threads < blocks);
    }
    put32(h, at, t);                   /* the join: thread 0 is the master */
    put32(h, at + 4, plan->threads);
  }
  pack_a(g, plan, (float *)(h + plan->off_a));
  memset(h + plan->off_a + (size_t)plan->mb * (size_t)plan->k_pad * 64, 0, 64); /* over-fetched column */
  pack_b(g, plan, (float *)(h + plan->off_b));
  if (!prog->beta_zero)
    pack_c(g, plan, (float *)(h + plan->off_c));
}

size_t hop_vc_unpack(const struct hop_call *g, const struct hop_vc_plan *plan, const struct hop_vc_mem *mem)
{
  const float *tiles = (const float *)((const char *)mem->host + plan->off_c);
  float limit = hop_subnormal_limit(g);
  size_t redone = 0;
  for (int c = 0; c < plan->n; c++)
    for (int r = 0; r < plan->m; r++) {
      float v = tiles[(((size_t)(r / 16) * (size_t)plan->nb + (size_t)(c / 64)) * 64 + (size_t)(c % 64)) * 16 +
                      (size_t)(r % 16)];
      if (fabsf(v) < limit) { /* C(i, j) still holds its old value here */
        v = plan->swap ? hop_subnormal_redo(g, c, r) : hop_subnormal_redo(g, r, c);
        redone++;
      }
      size_t at = c_at(g, plan, r, c);
      if (half_c(g->dtype))
        ((uint16_t *)g->c)[at] = hop_float_to_half(v);
      else
        ((float *)g->c)[at] = v;
    }
  return redone;
}

enum hop_status hop_vc_gemm_run(struct hop_vc_launcher *l, const struct hop_call *g,
                                const struct hop_vc_program *prog, unsigned max_threads,
                                size_t max_bytes, size_t *redone, char *why, size_t why_len)
{
  struct hop_vc_plan plan;
  enum hop_status st = hop_vc_plan_make(g, prog, max_threads, &plan, why, why_len);
  if (st != HOP_OK)
    return st;
  if (plan.total > max_bytes) {
    snprintf(why, why_len, "needs %zu MiB of GPU memory, the limit is %zu MiB", plan.total >> 20,
             max_bytes >> 20);
    return HOP_DECLINED;
  }
  struct hop_vc_mem mem;
  st = l->alloc(l, plan.total, &mem, why, why_len);
  if (st != HOP_OK)
    return st;
  hop_vc_pack(g, prog, &plan, &mem);
  /* Timeout: one second plus the padded work at 1 GFLOPS, a tenth of what
   * the slowest Pi does; the emulator turns it into its cycle cap. */
  double flops = 2.0 * 16 * plan.mb * 64.0 * plan.nb * plan.k_pad;
  double ms = 1000.0 + flops / 1e6;
  unsigned timeout_ms = ms > 600000.0 ? 600000u : (unsigned)ms;
  st = l->execute(l, &mem, mem.bus + (uint32_t)plan.off_control, plan.threads, timeout_ms, why, why_len);
  if (st == HOP_OK) {
    size_t n = hop_vc_unpack(g, &plan, &mem);
    if (redone != NULL)
      *redone = n;
  }
  l->release(l, &mem);
  return st;
}
