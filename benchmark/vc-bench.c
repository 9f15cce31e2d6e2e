/* VideoCore IV sgemm on the emulator: our generated program through the
 * engine's host side, and the published py-videocore kernel on the same
 * emulator, for the article's 96x363 times 363x3072 problem by default.
 * Reports, from the emulator's counters, the k-loop ALU-slot utilisation
 * (fadd/fmul slots over 2 per cycle spent in the loop body, stalls
 * included) and the projected GFLOPS at 250/300/400 MHz (4 clocks per
 * QPU instruction), next to py-videocore's published 8 GFLOPS.
 *
 *   vc-bench [--golden FILE] [--m M] [--n N] [--k K] [--unroll U] [--qpus T]
 *            [--tmu-latency C] [--dma-bytes B]
 *
 * FILE defaults to vc4/py-videocore-sgemm.bin in the reference folder given
 * to ./configure --with-shared-dir (HOP_SHARED_DIR, set by the build).
 *
 * The timing model is the emulator's (see doc/PERFORMANCE.md): memory
 * latency and bandwidth beyond it are not modelled, hence the last column,
 * which scales by how far the golden kernel's published figure is below its
 * emulated one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_asm.h"
#include "vc.h"
#include "vc_golden_layout.h"

struct result {
  const char *name;
  double flops, util_static, util_dynamic, err;
  struct hop_qpuemu_counters c;
  bool ok;
  char why[400];
};

static const double mhz[3] = {250, 300, 400};

static bool is_fmul(uint64_t w) { return (w >> 60) <= 13 && ((w >> 29) & 7) == HOP_QPU_M_FMUL; }
static int flop_slots(uint64_t w)
{
  if ((w >> 60) >= 14)
    return 0;
  unsigned add = (w >> 24) & 31;
  return (add == HOP_QPU_A_FADD || add == HOP_QPU_A_FSUB) + is_fmul(w);
}

/* Static and dynamic utilisation of the words [first, end). */
static void loop_stats(const uint64_t *words, size_t first, size_t end, const struct hop_qpuemu *e,
                       struct result *r)
{
  const uint64_t *issues = hop_qpuemu_profile_issues(e), *stalls = hop_qpuemu_profile_stalls(e);
  double slots = 0, done = 0, cycles = 0;
  for (size_t i = first; i < end; i++) {
    slots += flop_slots(words[i]);
    done += (double)flop_slots(words[i]) * (double)issues[i];
    cycles += (double)issues[i] + (double)stalls[i];
  }
  r->util_static = slots / (2.0 * (double)(end - first));
  r->util_dynamic = cycles > 0 ? done / (2.0 * cycles) : 0.0;
}

/* The innermost loop with 32 or more fmul words: the k-loop,
 * [target, branch + 4). */
static void find_kloop(const uint64_t *w, size_t n, size_t *first, size_t *end)
{
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    if ((w[i] >> 60) != HOP_QPU_SIG_BRANCH || !((w[i] >> 51) & 1))
      continue;
    long target = (long)i + 4 + (long)(int32_t)(uint32_t)w[i] / 8;
    if (target < 0 || (size_t)target >= i)
      continue;
    int muls = 0;
    for (size_t j = (size_t)target; j < i + 4 && j < n; j++)
      muls += is_fmul(w[j]);
    if (muls >= 32 && i + 4 - (size_t)target < best) {
      best = i + 4 - (size_t)target;
      *first = (size_t)target;
      *end = i + 4;
    }
  }
}

static void run_ours(int m, int n, int k, unsigned unroll, unsigned qpus, const struct hop_qpuemu_timing *t,
                     struct result *r)
{
  r->name = "hopblas (generated)";
  float *a = malloc(sizeof(float) * (size_t)m * k), *b = malloc(sizeof(float) * (size_t)k * n);
  float *c = malloc(sizeof(float) * (size_t)m * n), *c0 = malloc(sizeof(float) * (size_t)m * n);
  srand(3);
  for (size_t i = 0; i < (size_t)m * k; i++)
    a[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  for (size_t i = 0; i < (size_t)k * n; i++)
    b[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  for (size_t i = 0; i < (size_t)m * n; i++)
    c[i] = c0[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  struct hop_call g = {.dtype = HOP_DTYPE_S, .m = m, .n = n, .k = k, .alpha = {1.0, 0.0}, .beta = {1.0, 0.0},
                       .a = a, .lda = m, .b = b, .ldb = k, .c = c, .ldc = m};
  struct hop_vc_program prog;
  if (hop_vc_program_build(&prog, unroll, false, r->why, sizeof r->why) != HOP_OK)
    return;
  struct hop_vc_emu_launcher l;
  hop_vc_emu_launcher_init(&l, (size_t)1 << 30);
  l.keep = true;
  l.timing = t;
  l.profile_code = HOP_VC_EMU_BUS_BASE; /* the program is the allocation's first bytes */
  l.profile_words = prog.n;
  r->ok = hop_vc_gemm_run(&l.base, &g, &prog, qpus, (size_t)1 << 30, NULL, r->why, sizeof r->why) == HOP_OK;
  r->flops = 2.0 * m * n * k;
  if (l.last) {
    hop_qpuemu_counters(l.last, -1, &r->c);
    loop_stats(prog.words, prog.loop_first, prog.loop_end, l.last, r);
    hop_qpuemu_free(l.last);
  }
  double worst = 0;
  for (int j = 0; r->ok && j < n; j++)
    for (int i = 0; i < m; i++) {
      double s = 0, abs_s = 0;
      for (int kk = 0; kk < k; kk++) {
        double p = (double)a[i + (size_t)kk * m] * b[kk + (size_t)j * k];
        s += p;
        abs_s += fabs(p);
      }
      double e = fabs(c[i + (size_t)j * m] - (s + c0[i + (size_t)j * m])) /
                 (2.0 * k * 1.2e-7 * (abs_s + fabs(c0[i + (size_t)j * m])) + 1e-30);
      worst = e > worst ? e : worst;
    }
  r->err = worst;
  hop_vc_program_free(&prog);
  free(a);
  free(b);
  free(c);
  free(c0);
}

/* py-videocore's kernel: its DMA pitch for a 3072-wide C (12288 bytes)
 * needs the 16-bit field reported from hardware, not the guide's 13. */
static void run_golden(const char *path, int m, int n, int k, const struct hop_qpuemu_timing *t, struct result *r)
{
  r->name = "py-videocore (golden)";
  if (!golden_load(path)) {
    snprintf(r->why, sizeof r->why, "cannot read %s", path);
    return;
  }
  int pdiv = m >= 32 && m % 32 == 0 ? 2 : 1, rdiv = n / 64 >= 6 ? 6 : n / 64;
  struct golden_layout l = {m, k, n, pdiv, rdiv, 1.0f, 1.0f, 0, 0, 0, 0, 0, 0, 0};
  golden_plan(&l);
  const uint32_t base = 0xc0000000u;
  struct hop_qpuemu *e = hop_qpuemu_new(base, l.end);
  if (e == NULL) {
    snprintf(r->why, sizeof r->why, "no memory for the emulator");
    return;
  }
  hop_qpuemu_set_timing(e, t);
  hop_qpuemu_set_dma_pitch_bits(e, 16);
  hop_qpuemu_profile(e, base, golden_words);
  uint32_t unif[12];
  int threads = golden_fill(&l, hop_qpuemu_ptr(e, base, l.end), base, unif);
  for (int i = 0; i < threads; i++)
    hop_qpuemu_launch(e, base, unif[i]);
  r->ok = hop_qpuemu_run(e, 1ull << 36) == HOP_QPUEMU_DONE;
  snprintf(r->why, sizeof r->why, "%s", hop_qpuemu_error(e));
  hop_qpuemu_counters(e, -1, &r->c);
  size_t first = 0, end = 0;
  find_kloop(golden, golden_words, &first, &end);
  loop_stats(golden, first, end, e, r);
  r->err = r->ok ? golden_check(&l, hop_qpuemu_ptr(e, base, l.end)) : INFINITY;
  r->flops = 2.0 * m * n * k;
  hop_qpuemu_free(e);
}

static double gflops(const struct result *r, double f_mhz)
{
  return r->c.cycles ? r->flops / ((double)r->c.cycles * 4.0 / (f_mhz * 1e6)) / 1e9 : 0.0;
}

static void report(const struct result *r, double scale)
{
  const struct hop_qpuemu_counters *c = &r->c;
  double cyc = c->cycles ? (double)c->cycles : 1.0, q = c->instructions ? (double)c->instructions : 1.0;
  printf("| %s | %s | %.1f%% | %.1f%% | %llu | %.1f / %.1f / %.1f | %.1f |\n", r->name,
         r->ok ? "right" : "FAILED", 100 * r->util_static, 100 * r->util_dynamic,
         (unsigned long long)c->cycles, gflops(r, mhz[0]), gflops(r, mhz[1]), gflops(r, mhz[2]),
         gflops(r, mhz[0]) * scale);
  printf("|   stalls (all QPUs, %% of issued words) | TMU %.2f%% | VPM %.2f%% | DMA %.2f%% | mutex %.2f%% | "
         "semaphore %.2f%% | error %.2g of bound |\n", 100 * c->stall_tmu / q, 100 * c->stall_vpm / q,
         100 * c->stall_dma / q, 100 * c->stall_mutex / q, 100 * c->stall_sema / q, r->err);
  (void)cyc;
  if (!r->ok)
    printf("|   %s |\n", r->why);
}

int main(int argc, char **argv)
{
  const char *golden_path = HOP_SHARED_DIR "/vc4/py-videocore-sgemm.bin";
  int m = 96, n = 3072, k = 363;
  unsigned unroll = HOP_VC_DEFAULT_UNROLL, qpus = 12;
  struct hop_qpuemu_timing t;
  hop_qpuemu_timing_default(&t);
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *o = argv[i], *v = argv[i + 1];
    if (strcmp(o, "--golden") == 0) golden_path = v;
    else if (strcmp(o, "--m") == 0) m = atoi(v);
    else if (strcmp(o, "--n") == 0) n = atoi(v);
    else if (strcmp(o, "--k") == 0) k = atoi(v);
    else if (strcmp(o, "--unroll") == 0) unroll = (unsigned)atoi(v);
    else if (strcmp(o, "--qpus") == 0) qpus = (unsigned)atoi(v);
    else if (strcmp(o, "--tmu-latency") == 0) t.tmu_latency = (unsigned)atoi(v);
    else if (strcmp(o, "--dma-bytes") == 0) t.dma_bytes_per_cycle = (unsigned)atoi(v);
    else {
      fprintf(stderr, "vc-bench: unknown option %s\n", o);
      return 2;
    }
  }
  if (m < 16 || n < 64 || k < 2 || m % 16 || n % 64) {
    fprintf(stderr, "vc-bench: the golden kernel needs m %% 16 == 0, n %% 64 == 0, k >= 2\n");
    return 2;
  }
  struct result ours = {0}, gold = {0};
  run_ours(m, n, k, unroll, qpus, &t, &ours);
  run_golden(golden_path, m, n, k, &t, &gold);
  double scale = gflops(&gold, mhz[0]) > 0 ? 8.0 / gflops(&gold, mhz[0]) : 0.0;
  printf("sgemm %d x %d times %d x %d (%.3g flops), %u QPUs, k-loop unroll %u; timing model: TMU %u cycles, "
         "DMA %u + bytes/%u cycles, VPM setup %u\n\n", m, k, k, n, 2.0 * m * n * k, qpus, unroll,
         t.tmu_latency, t.dma_latency, t.dma_bytes_per_cycle, t.vpm_setup_latency);
  printf("| program | C | k-loop ALU slots (static) | k-loop ALU slots (with stalls) | cycles | projected GFLOPS "
         "at 250 / 300 / 400 MHz | scaled to the golden's published figure (250 MHz) |\n");
  printf("|---|---|---|---|---|---|---|\n");
  report(&ours, scale);
  report(&gold, scale);
  printf("| py-videocore published (Pi 1/2, 250 MHz presumed) | | | | | 8 / - / - | 8 |\n");
  printf("\nhost side of hopblas on a Pi: packs %.1f MB (A, B, C in and out) before and after the QPUs\n",
         4.0 * ((double)m * k + (double)k * n + 2.0 * m * n) / 1e6);
  return ours.ok && gold.ok && ours.err <= 1.0 && gold.err <= 1.0 ? 0 : 1;
}
