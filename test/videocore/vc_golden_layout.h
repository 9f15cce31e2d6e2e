/* The py-videocore sgemm kernel's memory layout and uniforms (fact sheet
 * Part E.2), shared by the golden test and the benchmark: row-major
 * C = alpha*A*B + beta*C, p x q times q x r, on p_div x r_div threads. */
#ifndef HOP_VC_GOLDEN_LAYOUT_H
#define HOP_VC_GOLDEN_LAYOUT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct golden_layout {
  int p, q, r, pdiv, rdiv;
  float alpha, beta;
  uint32_t code, a, b, c, c0, unif, end; /* offsets from the base; c0: a copy of the first C */
};

static uint64_t golden[600]; /* the kernel's words */
static size_t golden_words;

static bool golden_load(const char *path)
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
static void golden_plan(struct golden_layout *l)
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
static int golden_fill(const struct golden_layout *l, uint8_t *m, uint32_t base, uint32_t *unif_addrs)
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
static double golden_check(const struct golden_layout *l, const uint8_t *m)
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

#endif
