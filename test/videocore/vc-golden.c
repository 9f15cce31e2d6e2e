/* The published py-videocore sgemm kernel (../shared/vc4/py-videocore-sgemm.bin)
 * on the emulator, with the uniforms layout of the fact sheet (Part E.2):
 * C = alpha*A*B + beta*C, row-major, p x q times q x r.
 *
 *   vc-golden GOLDEN                      the in-process cases (TAP)
 *   vc-golden GOLDEN --write-image FILE   an image for hopblas-qpu-emu (base 0);
 *                                         prints CODE_ADDR UNIFORMS_ADDR...
 *   vc-golden GOLDEN --check-image FILE   checks the image the tool wrote (TAP) */
#include "qpu_emu.h"
#include "vc_tap.h"

#include "vc_golden_layout.h"

static void run_case(int p, int q, int r, int pdiv, int rdiv, float alpha, float beta)
{
  struct golden_layout l = {p, q, r, pdiv, rdiv, alpha, beta, 0, 0, 0, 0, 0, 0, 0};
  golden_plan(&l);
  const uint32_t base = 0x40000000u; /* a Pi 1 bus address */
  struct hop_qpuemu *e = hop_qpuemu_new(base, l.end);
  uint32_t unif[12];
  int n = golden_fill(&l, hop_qpuemu_ptr(e, base, l.end), base, unif);
  for (int t = 0; t < n; t++)
    hop_qpuemu_launch(e, base + l.code, unif[t]);
  enum hop_qpuemu_status st = hop_qpuemu_run(e, 100000000);
  struct hop_qpuemu_counters c;
  hop_qpuemu_counters(e, -1, &c);
  double err = st == HOP_QPUEMU_DONE ? golden_check(&l, hop_qpuemu_ptr(e, base, l.end)) : INFINITY;
  vc_ok(st == HOP_QPUEMU_DONE && err <= 1.0 && c.host_interrupts == 1,
        "golden sgemm %dx%d times %dx%d on %d threads, alpha %g beta %g: error %.3g of the bound, "
        "%llu cycles %s", p, q, q, r, n, (double)alpha, (double)beta, err, (unsigned long long)c.cycles,
        hop_qpuemu_error(e));
  hop_qpuemu_free(e);
}

/* With A flush against the end of memory the over-fetch is a clear fault. */
static void run_overfetch(void)
{
  struct golden_layout l = {16, 8, 64, 1, 1, 1.0f, 0.0f, 0, 0, 0, 0, 0, 0, 0};
  golden_plan(&l);
  uint32_t a_end = l.a + 4u * 16u * 8u;
  struct hop_qpuemu *e = hop_qpuemu_new(0, l.end);
  uint32_t unif[1];
  golden_fill(&l, hop_qpuemu_ptr(e, 0, l.end), 0, unif);
  /* Move A to the very end of a smaller memory: same data, nothing after it. */
  struct hop_qpuemu *tight = hop_qpuemu_new(0, a_end);
  memcpy(hop_qpuemu_ptr(tight, 0, a_end), hop_qpuemu_ptr(e, 0, a_end), a_end);
  uint32_t *u = hop_qpuemu_ptr(tight, l.a - 64, 64);
  memcpy(u, hop_qpuemu_ptr(e, l.unif, 56), 56);
  u[0] = l.a - 64;
  hop_qpuemu_launch(tight, 0, l.a - 64);
  enum hop_qpuemu_status st = hop_qpuemu_run(tight, 10000000);
  vc_ok(st == HOP_QPUEMU_FAULT && strstr(hop_qpuemu_error(tight), "outside memory") != NULL,
        "the kernel's TMU over-fetch past A faults when nothing is mapped there: %s", hop_qpuemu_error(tight));
  hop_qpuemu_free(tight);
  hop_qpuemu_free(e);
}

static const struct golden_layout image_case = {32, 20, 128, 2, 2, 0.5f, -1.5f, 0, 0, 0, 0, 0, 0, 0};

static int write_image(const char *path)
{
  struct golden_layout l = image_case;
  golden_plan(&l);
  uint8_t *m = calloc(1, l.end);
  uint32_t unif[12];
  int n = m ? golden_fill(&l, m, 0, unif) : 0;
  FILE *f = fopen(path, "wb");
  bool ok = f && n && fwrite(m, 1, l.end, f) == l.end;
  if (f == NULL || fclose(f) != 0)
    ok = false;
  printf("%u", l.code);
  for (int t = 0; t < n; t++)
    printf(" %u", unif[t]);
  printf("\n");
  free(m);
  return ok ? 0 : 1;
}

static int check_image(const char *path)
{
  struct golden_layout l = image_case;
  golden_plan(&l);
  uint8_t *m = malloc(l.end);
  FILE *f = fopen(path, "rb");
  size_t got = f && m ? fread(m, 1, l.end, f) : 0;
  if (f)
    fclose(f);
  double err = got == l.end ? golden_check(&l, m) : INFINITY;
  vc_ok(got == l.end, "the tool wrote the whole image back (%zu of %u bytes)", got, l.end);
  vc_ok(err <= 1.0, "C in the image the tool wrote is right: error %.3g of the bound", err);
  free(m);
  return vc_tap_done();
}

int main(int argc, char **argv)
{
  bool loaded = argc > 1 && golden_load(argv[1]);
  if (argc > 3 && strcmp(argv[2], "--write-image") == 0)
    return loaded ? write_image(argv[3]) : 1;
  if (argc > 3 && strcmp(argv[2], "--check-image") == 0)
    return check_image(argv[3]);
  if (!vc_ok(loaded, "golden binary %s has 485 words", argc > 1 ? argv[1] : "(none given)"))
    return vc_tap_done();
  run_case(32, 20, 128, 2, 2, 1.0f, 1.0f);
  run_case(32, 20, 128, 1, 2, 0.5f, -2.0f);
  run_case(16, 2, 64, 1, 1, 1.0f, 0.0f);
  run_case(32, 20, 384, 2, 6, -1.0f, 0.25f);
  run_case(48, 33, 256, 3, 4, 2.0f, 1.0f);
  run_overfetch();
  return vc_tap_done();
}
