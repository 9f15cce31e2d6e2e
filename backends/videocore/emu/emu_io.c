/* The units around the QPUs: TMU memory lookups, VPM generic reads and
 * writes, and the VCD DMA engine (VDR loads, VDW stores).  Only the 32-bit
 * modes are modelled; anything else stops the run with a message. */
#include <string.h>

#include "emu_internal.h"

/* ---- TMU ----------------------------------------------------------------- */

/* Half of each slice has TMU0/TMU1 swapped unless tmu_noswap was written
 * (VC4C's model: QPU index mod 4 >= 2). */
static unsigned tmu_unit(const struct emu_qpu *q, unsigned unit)
{
  bool swapped = !q->noswap && (q->index % 4) >= 2;
  return swapped ? unit ^ 1u : unit;
}

enum emu_stall emu_tmu_write(struct hop_qpuemu *e, struct emu_qpu *q, unsigned unit,
                             const uint32_t *addr)
{
  struct emu_tmu_fifo *f = &q->tmu[tmu_unit(q, unit)];
  if (f->count >= EMU_TMU_DEPTH) {
    emu_fault(e, q, "more than %d outstanding TMU%u requests (unreliable on hardware)",
              EMU_TMU_DEPTH, unit);
    return EMU_FAULTED;
  }
  struct emu_tmu_entry *en = &f->e[(f->head + f->count) % EMU_TMU_DEPTH];
  for (int i = 0; i < EMU_LANES; i++) {
    uint32_t a = addr[i] & ~3u; /* the TMU ignores the low two bits */
    if (!emu_mem_ok(e, a, 4)) {
      emu_fault(e, q, "TMU%u lookup of 0x%08x (lane %d) is outside memory", unit, addr[i], i);
      return EMU_FAULTED;
    }
    en->data[i] = emu_load32(e, a);
  }
  en->ready = e->cycle + e->timing.tmu_latency;
  f->count++;
  q->cnt.tmu_requests++;
  return EMU_GO;
}

enum emu_stall emu_tmu_pop_ready(struct hop_qpuemu *e, struct emu_qpu *q, unsigned unit)
{
  const struct emu_tmu_fifo *f = &q->tmu[tmu_unit(q, unit)];
  if (f->count == 0) {
    emu_fault(e, q, "ldtmu%u with no TMU request outstanding", unit);
    return EMU_FAULTED;
  }
  return e->cycle >= f->e[f->head].ready ? EMU_GO : EMU_STALL_TMU;
}

void emu_tmu_pop(struct emu_qpu *q, unsigned unit, uint32_t *r4)
{
  struct emu_tmu_fifo *f = &q->tmu[tmu_unit(q, unit)];
  memcpy(r4, f->e[f->head].data, sizeof f->e[f->head].data);
  f->head = (f->head + 1) % EMU_TMU_DEPTH;
  f->count--;
}

/* ---- VPM generic access -------------------------------------------------- */

static bool generic_setup(struct hop_qpuemu *e, struct emu_qpu *q, uint32_t v, const char *what)
{
  if (((v >> 8) & 3u) != HOP_QPU_VPM_32) {
    emu_fault(e, q, "VPM generic %s setup 0x%08x: only 32-bit access is modelled", what, v);
    return false;
  }
  return true;
}

/* Row and column of the vector at addr, lane 0 (vertical: top of the column). */
static void vpm_locate(unsigned addr, bool horiz, unsigned *y, unsigned *x)
{
  addr &= 63u;
  if (horiz) {
    *y = addr;
    *x = 0;
  } else {
    *y = (addr >> 4) * 16u;
    *x = addr & 15u;
  }
}

void emu_vpm_setup(struct hop_qpuemu *e, struct emu_qpu *q, bool write_side, uint32_t v)
{
  unsigned id = v >> 30;
  if (id == 0) {
    if (!generic_setup(e, q, v, write_side ? "write" : "read"))
      return;
    unsigned stride = (v >> 12) & 63u;
    if (write_side) {
      q->vwr_addr = v & 255u;
      q->vwr_stride = stride ? stride : 64u;
      q->vwr_horiz = (v >> 11) & 1u;
      q->vwr_valid = true;
      return;
    }
    struct emu_vpm_read r = {.left = (int)((v >> 20) & 15u), .addr = v & 255u,
                             .stride = stride ? stride : 64u, .horiz = (v >> 11) & 1u,
                             .ready = e->cycle + e->timing.vpm_setup_latency};
    if (r.left == 0)
      r.left = 16;
    /* A new setup is taken while at most one vector of the last one is unread [HW]. */
    if (q->vrd[0].left > 1 || (q->vrd[0].left == 1 && q->vrd[1].left > 0)) {
      emu_fault(e, q, "VPM read setup while %d vectors of the previous setup are unread",
                q->vrd[0].left);
      return;
    }
    q->vrd[q->vrd[0].left == 1 ? 1 : 0] = r;
    return;
  }
  if (!write_side) {
    if ((v >> 28) == 9u)
      q->vdr_pitch = v & ((1u << e->dma_pitch_bits) - 1u);
    else if (v >> 31)
      q->vdr_setup = v;
    else
      emu_fault(e, q, "vpmvcd_rd_setup 0x%08x has an unknown ID", v);
    return;
  }
  if (id == 2)
    q->vdw_setup = v;
  else if (id == 3)
    q->vdw_stride = v;
  else
    emu_fault(e, q, "vpmvcd_wr_setup 0x%08x has an unknown ID", v);
}

enum emu_stall emu_vpm_read_ready(struct hop_qpuemu *e, struct emu_qpu *q)
{
  if (q->vrd[0].left <= 0) {
    emu_fault(e, q, "VPM read with no generic read setup pending");
    return EMU_FAULTED;
  }
  return e->cycle >= q->vrd[0].ready ? EMU_GO : EMU_STALL_VPM;
}

void emu_vpm_read(struct hop_qpuemu *e, struct emu_qpu *q, uint32_t *out)
{
  struct emu_vpm_read *r = &q->vrd[0];
  unsigned y, x;
  vpm_locate(r->addr, r->horiz, &y, &x);
  for (int i = 0; i < EMU_LANES; i++)
    out[i] = r->horiz ? e->vpm[y][i] : e->vpm[(y + (unsigned)i) & 63u][x];
  r->addr = (r->addr + r->stride) & 255u;
  if (--r->left == 0 && q->vrd[1].left > 0) {
    q->vrd[0] = q->vrd[1];
    q->vrd[1].left = 0;
  }
}

void emu_vpm_write(struct hop_qpuemu *e, struct emu_qpu *q, const uint32_t *v)
{
  if (!q->vwr_valid) {
    emu_fault(e, q, "VPM write with no generic write setup");
    return;
  }
  unsigned y, x;
  vpm_locate(q->vwr_addr, q->vwr_horiz, &y, &x);
  for (int i = 0; i < EMU_LANES; i++) {
    if (q->vwr_horiz)
      e->vpm[y][i] = v[i];
    else
      e->vpm[(y + (unsigned)i) & 63u][x] = v[i];
  }
  q->vwr_addr = (q->vwr_addr + q->vwr_stride) & 255u;
}

/* ---- DMA ----------------------------------------------------------------- */

static bool dma_shape(struct hop_qpuemu *e, struct emu_qpu *q, bool store, struct emu_dma_shape *s)
{
  if (!store) {
    uint32_t v = q->vdr_setup;
    if (!(v >> 31) || ((v >> 28) & 7u) != 0) {
      emu_fault(e, q, "DMA load with setup 0x%08x: only 32-bit VDR is modelled", v);
      return false;
    }
    unsigned mpitch = (v >> 24) & 15u, vpitch = (v >> 12) & 15u;
    s->rows = (v >> 16) & 15u ? (v >> 16) & 15u : 16u;
    s->len = (v >> 20) & 15u ? (v >> 20) & 15u : 16u;
    s->pitch = mpitch ? 8u << mpitch : q->vdr_pitch;
    s->y = (v >> 4) & 127u;
    s->x = v & 15u;
    s->horiz = !((v >> 11) & 1u);
    s->vpitch = vpitch ? vpitch : 16u;
    if (!s->horiz) {
      emu_fault(e, q, "DMA load setup 0x%08x: vertical VDR is not modelled", v);
      return false;
    }
    return true;
  }
  uint32_t v = q->vdw_setup, st = q->vdw_stride;
  if ((v >> 30) != 2u || (v & 7u) != 0) {
    emu_fault(e, q, "DMA store with setup 0x%08x: only 32-bit VDW is modelled", v);
    return false;
  }
  if (st != 0 && ((st >> 16) & 1u)) {
    emu_fault(e, q, "VDW stride 0x%08x asks for block mode, which is not modelled", st);
    return false;
  }
  uint32_t smask = (1u << e->dma_pitch_bits) - 1u;
  if (st & 0xffffu & ~smask) {
    emu_fault(e, q, "VDW stride %u bytes does not fit the %u-bit field", st & 0xffffu, e->dma_pitch_bits);
    return false;
  }
  s->rows = (v >> 23) & 127u ? (v >> 23) & 127u : 128u;
  s->len = (v >> 16) & 127u ? (v >> 16) & 127u : 128u;
  s->horiz = (v >> 14) & 1u;
  s->y = (v >> 7) & 127u;
  s->x = (v >> 3) & 15u;
  s->pitch = 4u * s->len + (st & smask);
  s->vpitch = 1;
  return true;
}

/* VPM word for element i of memory row r, as a linear index; -1 outside. */
static long dma_vpm_index(const struct emu_dma_shape *s, unsigned r, unsigned i)
{
  unsigned y, x;
  if (s->horiz) {
    unsigned lin = (s->y + r * s->vpitch) * 16u + s->x + i;
    y = lin / 16u;
    x = lin % 16u;
  } else {
    y = s->y + i;
    x = s->x + r;
    if (x >= 16u)
      return -1;
  }
  return y < EMU_VPM_ROWS ? (long)(y * 16u + x) : -1;
}

enum emu_stall emu_dma_start_ready(struct hop_qpuemu *e, struct emu_qpu *q, bool store)
{
  (void)e;
  return (store ? q->store.pending : q->load.pending) ? EMU_STALL_DMA : EMU_GO;
}

void emu_dma_start(struct hop_qpuemu *e, struct emu_qpu *q, bool store, uint32_t addr)
{
  struct emu_dma_shape s;
  if (!dma_shape(e, q, store, &s))
    return;
  for (unsigned r = 0; r < s.rows; r++) {
    uint32_t row = addr + r * s.pitch;
    if (dma_vpm_index(&s, r, 0) < 0 || dma_vpm_index(&s, r, s.len - 1) < 0) {
      emu_fault(e, q, "DMA %s row %u falls outside the modelled VPM (64 rows)", store ? "store" : "load", r);
      return;
    }
    if (!emu_mem_ok(e, row, 4u * s.len)) {
      emu_fault(e, q, "DMA %s of row %u at 0x%08x (%u bytes) is outside memory", store ? "store" : "load",
                r, row, 4u * s.len);
      return;
    }
  }
  struct emu_dma *d = store ? &q->store : &q->load;
  uint64_t bytes = 4ull * s.rows * s.len, bw = e->timing.dma_bytes_per_cycle ? e->timing.dma_bytes_per_cycle : 1;
  uint64_t start = e->cycle > e->dma_free ? e->cycle : e->dma_free;
  d->pending = true;
  d->done = start + e->timing.dma_latency + (bytes + bw - 1) / bw;
  d->shape = s;
  d->addr = addr;
  e->dma_free = d->done;
  if (store)
    q->cnt.dma_stores++;
  else
    q->cnt.dma_loads++;
}

/* Land the transfers whose time has come: data moves at completion, so a
 * program that reads the VPM before vpm_ld_wait sees the old contents. */
void emu_dma_complete(struct hop_qpuemu *e, struct emu_qpu *q)
{
  for (int which = 0; which < 2; which++) {
    struct emu_dma *d = which ? &q->store : &q->load;
    if (!d->pending || e->cycle < d->done)
      continue;
    d->pending = false;
    const struct emu_dma_shape *s = &d->shape;
    for (unsigned r = 0; r < s->rows; r++)
      for (unsigned i = 0; i < s->len; i++) {
        long at = dma_vpm_index(s, r, i);
        uint32_t bus = d->addr + r * s->pitch + 4u * i;
        uint32_t *cell = &e->vpm[at / 16][at % 16];
        if (which)
          emu_store32(e, bus, *cell);
        else
          *cell = emu_load32(e, bus);
      }
  }
}
