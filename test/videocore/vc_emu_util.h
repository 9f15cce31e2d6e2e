/* Helpers for the emulator unit tests: a small memory (code, uniforms,
 * data), programs from the builder, a run, register reads. */
#ifndef HOP_VC_EMU_UTIL_H
#define HOP_VC_EMU_UTIL_H

#include <string.h>

#include "qpu_asm.h"
#include "qpu_emu.h"
#include "vc_tap.h"

#define T_BASE 0x10000u
#define T_SIZE 0x10000u
#define T_UNIF (T_BASE + 0x4000u) /* thread t's uniforms at T_UNIF + 0x100 * t */
#define T_DATA (T_BASE + 0x8000u)

static inline float t_f(uint32_t u)
{
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static inline uint32_t t_u(float f)
{
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* Thread end plus its two delay slots. */
static inline void t_end(struct hop_qpu_prog *p)
{
  hop_qpu_emit_nop(p, HOP_QPU_SIG_THREAD_END);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_nop(p, 0);
}

/* Load code and the same uniforms for every thread; NULL if the program
 * did not assemble (reported as a failed test). */
static inline struct hop_qpuemu *t_load(struct hop_qpu_prog *p, int threads, const uint32_t *unif,
                                        size_t nunif)
{
  if (!hop_qpu_prog_finish(p)) {
    vc_ok(false, "program assembles: %s", p->error);
    return NULL;
  }
  struct hop_qpuemu *e = hop_qpuemu_new(T_BASE, T_SIZE);
  memcpy(hop_qpuemu_ptr(e, T_BASE, 8 * p->n), p->words, 8 * p->n);
  for (int t = 0; t < threads; t++) {
    if (nunif)
      memcpy(hop_qpuemu_ptr(e, T_UNIF + 0x100u * (unsigned)t, 4 * nunif), unif, 4 * nunif);
    hop_qpuemu_launch(e, T_BASE, T_UNIF + 0x100u * (unsigned)t);
  }
  return e;
}

/* Run one program on `threads` threads; the emulator stays for inspection. */
static inline struct hop_qpuemu *t_run(struct hop_qpu_prog *p, int threads, const uint32_t *unif,
                                       size_t nunif, enum hop_qpuemu_status *st)
{
  struct hop_qpuemu *e = t_load(p, threads, unif, nunif);
  *st = e ? hop_qpuemu_run(e, 100000) : HOP_QPUEMU_FAULT;
  hop_qpu_prog_free(p);
  return e;
}

static inline uint32_t t_acc(struct hop_qpuemu *e, unsigned r, int lane)
{
  uint32_t v[16] = {0};
  hop_qpuemu_read_reg(e, 0, HOP_QPUEMU_REG_ACC, r, v);
  return v[lane];
}

#endif
