/* The published py-videocore sgemm kernel (../shared/vc4/py-videocore-sgemm.bin)
 * on the emulator, with the uniforms layout of the fact sheet (Part E.2):
 * C = alpha*A*B + beta*C, row-major, p x q times q x r.
 *
 *   vc-golden GOLDEN                      the in-process cases (TAP)
 *   vc-golden GOLDEN --write-image FILE   an image for hopblas-qpu-emu (base 0);
 *                                         prints CODE_ADDR UNIFORMS_ADDR...
 *   vc-golden GOLDEN --check-image FILE   checks the image the tool wrote (TAP) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_emu.h"
#include "vc_tap.h"

struct layout {
  int p, q, r, pdiv, rdiv;
  float alpha, beta;
  uint32_t code, a, b, c, c0, unif, end; /* offsets from the base; c0: a copy of the first C */
};

static uint64_t golden[600];
static size_t golden_words;

static bool load_golden(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return false;
  golden_words = fread(golden, 8, 600, f);
  fclose(f);
  return golden_words == 485;
}

/* A sits right before the uniforms, so the kernel's one-column over-fetch
 * past A (fact sheet E.2) reads memory nobody wrote: poison, never used. */
static void plan(struct layout *l)
{
  uint32_t at = 4096;
  l->code = 0;
  l->b = at;
  at += (uint32_t)(4 * l->q * l->r + 4095) & ~4095u;
  l->c = at;
  at += (uint32_t)(4 * l->p * l->r + 4095) & ~4095u;
  l->c0 = at;
  at += (uint32_t)(4 * l->p * l->r + 4095) & ~4095u;
  l->a = at;
  at += (uint32_t)(4 * l->p * l->q + 4095 + 64) & ~4095u;
  l->unif = at;
  l->end = at + 64 * (uint32_t)(l->pdiv * l->rdiv) + 4096;
}

/* Fill memory at host pointer m (bus base `base`) and return the threads. */
static int fill(const struct layout *l, uint8_t *m, uint32_t base, uint32_t *unif_addrs)
{
  memcpy(m + l->code, golden, 8 * golden_words);
  float *a = (float *)(m + l->a), *b = (float *)(m + l->b), *c = (float *)(m + l->c);
  srand(7);
  for (int i = 0; i < l->p * l->q; i++)
    a[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  for (int i = 0; i < l->q * l->r; i++)
    b[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  for (int i = 0; i < l->p * l->r; i++)
    c[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  memcpy(m + l->c0, c, 4 * (size_t)l->p * (size_t)l->r);
  int h = l->p / (16 * l->pdiv), w = l->r / (64 * l->rdiv), th = 0, n = l->pdiv * l->rdiv;
  for (int i = 0; i < l->pdiv; i++)
    for (int j = 0; j < l->rdiv; j++, th++) {
      uint32_t *u = (uint32_t *)(m + l->unif + 64 * th);
      u[0] = base + l->unif + 64 * (uint32_t)th;
      u[1] = (uint32_t)(i != l->pdiv - 1 ? h : l->p / 16 - i * h);
      u[2] = (uint32_t)l->q;
      u[3] = (uint32_t)(j != l->rdiv - 1 ? w : l->r / 64 - j * w);
      u[4] = base + l->a + 4u * (uint32_t)(i * 16 * h * l->q);
      u[5] = base + l->b + 4u * (uint32_t)(j * 64 * w);
      u[6] = base + l->c + 4u * (uint32_t)(i * 16 * h * l->r + j * 64 * w);
      u[7] = 4u * (uint32_t)l->q;
      u[8] = u[9] = 4u * (uint32_t)l->r;
      memcpy(&u[10], &l->alpha, 4);
      memcpy(&u[11], &l->beta, 4);
      u[12] = (uint32_t)th;
      u[13] = (uint32_t)n;
      unif_addrs[th] = u[0];
    }
  return n;
}

/* Worst error relative to the bound 2*q*eps*(|alpha|*sum|a||b| + |beta*c0|). */
static double check(const struct layout *l, const uint8_t *m)
{
  const float *a = (const float *)(m + l->a), *b = (const float *)(m + l->b);
  const float *c = (const float *)(m + l->c), *c0 = (const float *)(m + l->c0);
  double worst = 0.0;
  for (int i = 0; i < l->p; i++)
    for (int j = 0; j < l->r; j++) {
      double s = 0.0, abs_s = 0.0;
      for (int k = 0; k < l->q; k++) {
        s += (double)a[i * l->q + k] * b[k * l->r + j];
        abs_s += fabs((double)a[i * l->q + k] * b[k * l->r + j]);
      }
      double ref = l->alpha * s + l->beta * (double)c0[i * l->r + j];
      double bound = 2.0 * l->q * 1.2e-7 * (fabs(l->alpha) * abs_s + fabs(l->beta * c0[i * l->r + j])) + 1e-30;
      double e = fabs((double)c[i * l->r + j] - ref) / bound;
      if (!(e <= worst))
        worst = e; /* NaN counts as worst */
    }
  return worst;
}

static void run_case(int p, int q, int r, int pdiv, int rdiv, float alpha, float beta)
{
  struct layout l = {p, q, r, pdiv, rdiv, alpha, beta, 0, 0, 0, 0, 0, 0, 0};
  plan(&l);
  const uint32_t base = 0x40000000u; /* a Pi 1 bus address */
  struct hop_qpuemu *e = hop_qpuemu_new(base, l.end);
  uint32_t unif[12];
  int n = fill(&l, hop_qpuemu_ptr(e, base, l.end), base, unif);
  for (int t = 0; t < n; t++)
    hop_qpuemu_launch(e, base + l.code, unif[t]);
  enum hop_qpuemu_status st = hop_qpuemu_run(e, 100000000);
  struct hop_qpuemu_counters c;
  hop_qpuemu_counters(e, -1, &c);
  double err = st == HOP_QPUEMU_DONE ? check(&l, hop_qpuemu_ptr(e, base, l.end)) : INFINITY;
  vc_ok(st == HOP_QPUEMU_DONE && err <= 1.0 && c.host_interrupts == 1,
        "golden sgemm %dx%d times %dx%d on %d threads, alpha %g beta %g: error %.3g of the bound, "
        "%llu cycles %s", p, q, q, r, n, (double)alpha, (double)beta, err, (unsigned long long)c.cycles,
        hop_qpuemu_error(e));
  hop_qpuemu_free(e);
}

/* With A flush against the end of memory the over-fetch is a clear fault. */
static void run_overfetch(void)
{
  struct layout l = {16, 8, 64, 1, 1, 1.0f, 0.0f, 0, 0, 0, 0, 0, 0, 0};
  plan(&l);
  uint32_t a_end = l.a + 4u * 16u * 8u;
  struct hop_qpuemu *e = hop_qpuemu_new(0, l.end);
  uint32_t unif[1];
  fill(&l, hop_qpuemu_ptr(e, 0, l.end), 0, unif);
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

static const struct layout image_case = {32, 20, 128, 2, 2, 0.5f, -1.5f, 0, 0, 0, 0, 0, 0, 0};

static int write_image(const char *path)
{
  struct layout l = image_case;
  plan(&l);
  uint8_t *m = calloc(1, l.end);
  uint32_t unif[12];
  int n = m ? fill(&l, m, 0, unif) : 0;
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
  struct layout l = image_case;
  plan(&l);
  uint8_t *m = malloc(l.end);
  FILE *f = fopen(path, "rb");
  size_t got = f && m ? fread(m, 1, l.end, f) : 0;
  if (f)
    fclose(f);
  double err = got == l.end ? check(&l, m) : INFINITY;
  vc_ok(got == l.end, "the tool wrote the whole image back (%zu of %u bytes)", got, l.end);
  vc_ok(err <= 1.0, "C in the image the tool wrote is right: error %.3g of the bound", err);
  free(m);
  return vc_tap_done();
}

int main(int argc, char **argv)
{
  bool loaded = argc > 1 && load_golden(argv[1]);
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
