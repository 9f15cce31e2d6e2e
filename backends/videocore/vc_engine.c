/* The two VideoCore IV engines, one host side:
 *   "videocore":     the mailbox launcher on a Raspberry Pi 0-3;
 *   "videocore-emu": the same program, layout and uniform bytes on the
 *                    emulator, only when asked for by name (it is slow).
 * A call either completes on the QPUs and C is written once at the end, or
 * C is untouched and the router finishes it on the CPU. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mailbox.h"
#include "vc.h"

struct vc_state {
  struct hop_vc_program prog[2]; /* [1]: beta == 0, C is not read */
  unsigned threads;
  size_t max_bytes;
  double max_flops;  /* the emulator's work cap */
  bool real;
  struct hop_vc_mbox mbox;
};

static enum hop_status vc_setup(struct vc_state *st, char *why, size_t why_len)
{
  unsigned unroll = (unsigned)hop_config_int("HOPBLAS_VC_UNROLL", 2, 8, HOP_VC_DEFAULT_UNROLL);
  st->threads = (unsigned)hop_config_int("HOPBLAS_VC_QPUS", 1, HOP_VC_MAX_THREADS, HOP_VC_MAX_THREADS);
  for (int b = 0; b < 2; b++) {
    enum hop_status s = hop_vc_program_build(&st->prog[b], unroll, b == 1, why, why_len);
    if (s != HOP_OK)
      return s;
  }
  return HOP_OK;
}

static void vc_teardown(struct vc_state *st)
{
  hop_vc_program_free(&st->prog[0]);
  hop_vc_program_free(&st->prog[1]);
  free(st);
}

static void emu_release(void *state) { vc_teardown(state); }

static enum hop_status emu_init(void **state, char *why, size_t why_len)
{
  struct vc_state *st = calloc(1, sizeof *st);
  if (st == NULL)
    return HOP_ERR_NOMEM;
  enum hop_status s = vc_setup(st, why, why_len);
  if (s != HOP_OK) {
    vc_teardown(st);
    return s;
  }
  st->max_bytes = (size_t)hop_config_int("HOPBLAS_VC_EMU_MAX_MB", 1, 1024, 64) << 20;
  st->max_flops = hop_config_double("HOPBLAS_VC_EMU_MAX_GFLOP", 0.001, 1e4, 4.0) * 1e9;
  snprintf(why, why_len, "VideoCore IV emulator, %u QPUs, sgemm program of %zu words", st->threads,
           st->prog[0].n);
  *state = st;
  return HOP_OK;
}

/* The QPUs flush subnormal floats, inputs and results (the fact sheet). */
static bool vc_flushes(void *state)
{
  (void)state;
  return true;
}

static void log_redone(const char *engine, const struct hop_call *g, size_t redone)
{
  if (redone > 0)
    hop_log(2, "%s recomputed %zu of %zu results on the CPU: below %.3g, where the QPUs' flush of "
               "subnormals could have moved them", engine, redone, (size_t)g->m * (size_t)g->n,
            (double)hop_subnormal_limit(g));
}

/* Asked only when named (only_when_named): emulated seconds would mislead the router. */
static double emu_predict(void *state, const struct hop_call *g)
{
  (void)state;
  (void)g;
  return 0.0;
}

static enum hop_status emu_gemm(void *state, const struct hop_call *g)
{
  struct vc_state *st = state;
  char why[320] = "";
  if (hop_call_flops(g) > st->max_flops) {
    hop_log(2, "videocore-emu declines %dx%dx%d: more than HOPBLAS_VC_EMU_MAX_GFLOP", (int)g->m,
            (int)g->n, (int)g->k);
    return HOP_DECLINED;
  }
  struct hop_vc_emu_launcher l;
  hop_vc_emu_launcher_init(&l, st->max_bytes);
  size_t redone = 0;
  enum hop_status s = hop_vc_gemm_run(&l.base, g, &st->prog[hop_scalar_is_zero(g->beta)], st->threads, st->max_bytes,
                                      &redone, why, sizeof why);
  log_redone("videocore-emu", g, redone);
  if (s != HOP_OK) {
    hop_log(s == HOP_DECLINED ? 2 : 1, "videocore-emu %s %dx%dx%d: %s",
            s == HOP_DECLINED ? "declines" : "failed on", (int)g->m, (int)g->n, (int)g->k, why);
  } else if (hop_config()->verbose >= 3) {
    /* What the QPUs would take: 4 clocks per instruction cycle. */
    double mhz = hop_config_double("HOPBLAS_VC_CLOCK_MHZ", 1.0, 2000.0, 250.0);
    double sec = (double)l.last_cycles * 4.0 / (mhz * 1e6);
    hop_log(3, "videocore-emu %dx%dx%d: %llu QPU cycles, %.3f ms at %.0f MHz (%.2f GFLOPS projected)",
            (int)g->m, (int)g->n, (int)g->k, (unsigned long long)l.last_cycles, 1e3 * sec, mhz, hop_call_flops(g) / sec / 1e9);
  }
  return s;
}

static enum hop_status emu_run(void *state, const struct hop_call *g)
{
  return g->dtype == HOP_DTYPE_C ? hop_complex_by_real(g, emu_gemm, state, false) : emu_gemm(state, g);
}

static void vc_describe(void *state, FILE *out)
{
  const struct vc_state *st = state;
  const struct hop_vc_program *p = &st->prog[0];
  size_t loop = p->loop_end - p->loop_first;
  fprintf(out, "  sgemm QPU program: %zu words (beta == 0: %zu); k-loop %zu words for %u k steps: "
               "%.1f%% of ALU slots do fadd/fmul\n", p->n, st->prog[1].n, loop, p->unroll,
          100.0 * 128.0 * p->unroll / (2.0 * (double)loop));
  fprintf(out, "  threads: %u QPUs; GPU memory per call at most %zu MiB\n", st->threads, st->max_bytes >> 20);
  fprintf(out, "  subnormal floats: flushed by the QPUs: calls with subnormal inputs go elsewhere, small "
               "results are recomputed\n");
  if (st->real)
    fprintf(out, "  board: %s, V3D clock %u MHz\n", st->mbox.board.model, st->mbox.clock_hz / 1000000u);
}

const struct hop_backend hop_backend_videocore_emu = {
  .name = "videocore-emu",
  .is_device = true,
  /* The QPUs compute in float: cgemm as a real sgemm (core/complex_real.c), no double. */
  .takes = {[HOP_OP_GEMM] = HOP_DTYPE_BIT(HOP_DTYPE_S) | HOP_DTYPE_BIT(HOP_DTYPE_C) |
                            HOP_DTYPE_BIT(HOP_DTYPE_H) | HOP_DTYPE_BIT(HOP_DTYPE_SH)},
  .max_dim = INT_MAX, /* int sizes in launches and packing */
  .only_when_named = true,
  .fork_safe = true, /* nothing but the generated programs outlives a call */
  .init = emu_init,
  .predict = emu_predict,
  .run = emu_run,
  .describe = vc_describe,
  .flushes = vc_flushes,
  .release = emu_release,
  .keys = hop_videocore_keys,
};

/* ---- the real QPUs ------------------------------------------------------- */

static enum hop_status real_init(void **state, char *why, size_t why_len)
{
  struct vc_state *st = calloc(1, sizeof *st);
  if (st == NULL)
    return HOP_ERR_NOMEM;
  enum hop_status s = hop_vc_mbox_open(&st->mbox, &hop_vc_mbox_sys, "/proc/device-tree", why, why_len);
  if (s != HOP_OK) {
    free(st);
    return s;
  }
  st->real = true;
  s = vc_setup(st, why, why_len);
  if (s != HOP_OK) {
    hop_vc_mbox_close(&st->mbox);
    vc_teardown(st);
    return s;
  }
  st->max_bytes = (size_t)hop_config_int("HOPBLAS_VC_MAX_MB", 1, 1024, 64) << 20;
  snprintf(why, why_len, "%s, V3D at %u MHz, %u QPUs", st->mbox.board.model, st->mbox.clock_hz / 1000000u,
           st->threads);
  *state = st;
  return HOP_OK;
}

static void real_release(void *state)
{
  struct vc_state *st = state;
  hop_vc_mbox_close(&st->mbox);
  vc_teardown(st);
}

/* Mailbox and packing overhead, then the padded work at py-videocore's
 * measured efficiency (8 GFLOPS of 24 at 250 MHz: a third of 96 flops per
 * clock).  Calibration by the tuner may replace these numbers later. */
static double real_predict(void *state, const struct hop_call *g)
{
  const struct vc_state *st = state;
  if (g->dtype == HOP_DTYPE_C) { /* the real sgemm it runs as: n and k doubled */
    struct hop_call r = *g;
    r.dtype = HOP_DTYPE_S, r.n = 2 * g->n, r.k = 2 * g->k;
    return real_predict(state, &r);
  }
  double clock = st->mbox.clock_hz ? st->mbox.clock_hz : 250e6;
  double k = g->k < 4 ? 4.0 : g->k;
  double mn = (g->m + 15) / 16 * 16.0 * ((g->n + 63) / 64 * 64.0);
  double nm = (g->n + 15) / 16 * 16.0 * ((g->m + 63) / 64 * 64.0);
  double padded = mn < nm ? mn : nm; /* the host picks the orientation that pads less */
  double bytes = 4.0 * ((double)g->m * k + k * (double)g->n + 2.0 * (double)g->m * g->n);
  return 1e-3 + bytes / 3e8 + 2.0 * padded * k / (96.0 * clock / 3.0);
}

static enum hop_status real_gemm(void *state, const struct hop_call *g)
{
  struct vc_state *st = state;
  char why[320] = "";
  size_t redone = 0;
  enum hop_status s = hop_vc_gemm_run(&st->mbox.base, g, &st->prog[hop_scalar_is_zero(g->beta)], st->threads,
                                      st->max_bytes, &redone, why, sizeof why);
  log_redone("videocore", g, redone);
  if (s != HOP_OK)
    hop_log(s == HOP_DECLINED ? 2 : 1, "videocore %s %dx%dx%d: %s", s == HOP_DECLINED ? "declines" : "failed on",
            (int)g->m, (int)g->n, (int)g->k, why);
  return s;
}

static enum hop_status real_run(void *state, const struct hop_call *g)
{
  return g->dtype == HOP_DTYPE_C ? hop_complex_by_real(g, real_gemm, state, false) : real_gemm(state, g);
}

const struct hop_backend hop_backend_videocore = {
  .name = "videocore",
  .is_device = true,
  /* The QPUs compute in float: cgemm as a real sgemm (core/complex_real.c), no double. */
  .takes = {[HOP_OP_GEMM] = HOP_DTYPE_BIT(HOP_DTYPE_S) | HOP_DTYPE_BIT(HOP_DTYPE_C) |
                            HOP_DTYPE_BIT(HOP_DTYPE_H) | HOP_DTYPE_BIT(HOP_DTYPE_SH)},
  .max_dim = INT_MAX, /* int sizes in launches and packing */
  .fork_safe = false, /* the parent's /dev/vcio, /dev/mem and GPU memory */
  .init = real_init,
  .predict = real_predict,
  .run = real_run,
  .describe = vc_describe,
  .flushes = vc_flushes,
  .release = real_release,
  .keys = hop_videocore_keys,
};
