/* The emulator launcher: the GPU allocation is the emulator's memory, at the
 * bus addresses a Pi 2/3 would give (0xC0000000, the uncached alias, so
 * that bit 31 is set as on the hardware); execute reads the same control
 * list the firmware would and runs the threads it names. */
#include <string.h>

#include "vc.h"


static enum hop_status emu_alloc(struct hop_vc_launcher *base, size_t size, struct hop_vc_mem *out,
                                 char *why, size_t why_len)
{
  struct hop_vc_emu_launcher *l = (struct hop_vc_emu_launcher *)base;
  memset(out, 0, sizeof *out);
  if (size > l->max_bytes || size > 0x40000000u) {
    snprintf(why, why_len, "needs %zu MiB, more than the emulator's %zu MiB (HOPBLAS_VC_EMU_MAX_MB)",
             (size + (1u << 20) - 1) >> 20, l->max_bytes >> 20);
    return HOP_DECLINED;
  }
  struct hop_qpuemu *e = hop_qpuemu_new(HOP_VC_EMU_BUS_BASE, size);
  if (e == NULL) {
    snprintf(why, why_len, "no host memory for a %zu MiB emulator", size >> 20);
    return HOP_ERR_NOMEM;
  }
  out->bus = HOP_VC_EMU_BUS_BASE;
  out->host = hop_qpuemu_ptr(e, HOP_VC_EMU_BUS_BASE, size);
  out->size = size;
  out->priv = e;
  return HOP_OK;
}

static void emu_release(struct hop_vc_launcher *base, struct hop_vc_mem *m)
{
  struct hop_vc_emu_launcher *l = (struct hop_vc_emu_launcher *)base;
  if (!(l->keep && l->last == m->priv))
    hop_qpuemu_free(m->priv);
  memset(m, 0, sizeof *m);
}

static enum hop_status emu_execute(struct hop_vc_launcher *base, struct hop_vc_mem *m, uint32_t control,
                                   unsigned nqpus, unsigned timeout_ms, char *why, size_t why_len)
{
  struct hop_vc_emu_launcher *l = (struct hop_vc_emu_launcher *)base;
  struct hop_qpuemu *e = m->priv;
  const uint32_t *list = hop_qpuemu_ptr(e, control, 8 * (size_t)nqpus);
  if (list == NULL || nqpus == 0 || nqpus > HOP_QPUEMU_MAX_QPUS) {
    snprintf(why, why_len, "control list of %u programs at 0x%08x is not in GPU memory", nqpus, control);
    return HOP_ERR_INTERNAL;
  }
  if (l->timing)
    hop_qpuemu_set_timing(e, l->timing);
  if (l->profile_words && !hop_qpuemu_profile(e, l->profile_code, l->profile_words)) {
    snprintf(why, why_len, "no memory for the emulator's profile");
    return HOP_ERR_NOMEM;
  }
  for (unsigned t = 0; t < nqpus; t++)
    hop_qpuemu_launch(e, list[2 * t + 1], list[2 * t]);
  /* The firmware's timeout, in QPU cycles at 250 MHz (4 clocks each). */
  uint64_t cap = l->max_cycles ? l->max_cycles : (uint64_t)timeout_ms * 62500u;
  enum hop_qpuemu_status st = hop_qpuemu_run(e, cap);
  if (l->keep)
    l->last = e;
  if (st != HOP_QPUEMU_DONE) {
    snprintf(why, why_len, "emulator: %s", hop_qpuemu_error(e));
    return HOP_ERR_DEVICE;
  }
  struct hop_qpuemu_counters c;
  hop_qpuemu_counters(e, -1, &c);
  l->last_cycles = c.cycles;
  if (c.host_interrupts == 0) {
    snprintf(why, why_len, "the program ended without raising the host interrupt");
    return HOP_ERR_DEVICE;
  }
  return HOP_OK;
}

void hop_vc_emu_launcher_init(struct hop_vc_emu_launcher *l, size_t max_bytes)
{
  memset(l, 0, sizeof *l);
  l->base.name = "emulator";
  l->base.alloc = emu_alloc;
  l->base.release = emu_release;
  l->base.execute = emu_execute;
  l->max_bytes = max_bytes;
}
