/* Writes to registers and I/O addresses, flags, load immediate, semaphores,
 * branches, and the per-QPU step: fetch, dispatch, delay slots, thread end. */
#include <string.h>

#include "emu_internal.h"

uint16_t emu_cond_mask(const struct emu_qpu *q, unsigned cond)
{
  switch (cond) {
  case HOP_QPU_COND_NEVER: return 0;
  case HOP_QPU_COND_ALWAYS: return 0xffff;
  case HOP_QPU_COND_ZS: return q->fz;
  case HOP_QPU_COND_ZC: return (uint16_t)~q->fz;
  case HOP_QPU_COND_NS: return q->fn;
  case HOP_QPU_COND_NC: return (uint16_t)~q->fn;
  case HOP_QPU_COND_CS: return q->fc;
  default: return (uint16_t)~q->fc;
  }
}

/* Flags change only in the lanes whose write condition passed [HW]. */
void emu_set_flags(struct emu_qpu *q, uint16_t lanes, uint16_t z, uint16_t n, uint16_t c)
{
  q->fz = (uint16_t)((q->fz & ~lanes) | (z & lanes));
  q->fn = (uint16_t)((q->fn & ~lanes) | (n & lanes));
  q->fc = (uint16_t)((q->fc & ~lanes) | (c & lanes));
}

static bool exclusive(struct hop_qpuemu *e, struct emu_qpu *q, struct emu_effects *fx)
{
  if (++fx->exclusive > 1) {
    emu_fault(e, q, "more than one of TMU write/ldtmu/SFU/mutex/semaphore in one word");
    return false;
  }
  return true;
}

static bool write_io(struct hop_qpuemu *e, struct emu_qpu *q, unsigned waddr, bool file_b,
                     const uint32_t *val, struct emu_effects *fx)
{
  switch (waddr) {
  case HOP_QPU_W_TMU_NOSWAP:
    q->noswap = val[0] != 0;
    q->noswap_at = q->issued_total + 1;
    return true;
  case HOP_QPU_W_HOST_INT: q->cnt.host_interrupts += val[0] != 0; return true;
  case HOP_QPU_W_UNIFORMS_ADDR:
    q->unif = val[0];
    q->since_unif_write = 0;
    return true;
  case HOP_QPU_W_VPM: fx->vpm_access = true; emu_vpm_write(e, q, val); break;
  case HOP_QPU_W_VPM_SETUP: fx->vpm_access = true; emu_vpm_setup(e, q, file_b, val[0]); break;
  case HOP_QPU_W_DMA_ADDR: fx->vpm_access = true; emu_dma_start(e, q, file_b, val[0]); break;
  case HOP_QPU_W_MUTEX_RELEASE:
    if (e->mutex_owner != q->index) {
      emu_fault(e, q, "mutex released by a QPU that does not hold it");
      return false;
    }
    e->mutex_owner = -1;
    return true;
  case HOP_QPU_W_SFU_RECIP: case HOP_QPU_W_SFU_RECIPSQRT: case HOP_QPU_W_SFU_EXP: case HOP_QPU_W_SFU_LOG:
    if (!exclusive(e, q, fx))
      return false;
    for (int i = 0; i < EMU_LANES; i++) {
      float x, r;
      memcpy(&x, &val[i], 4);
      r = emu_sfu(waddr, x);
      memcpy(&q->sfu_value[i], &r, 4);
    }
    q->sfu_pending = true;
    q->sfu_at = q->issued_total;
    return true;
  case HOP_QPU_W_TMU0_S: case HOP_QPU_W_TMU1_S:
    if (!exclusive(e, q, fx))
      return false;
    if (q->noswap_at && q->issued_total < q->noswap_at + 2) {
      emu_fault(e, q, "TMU write less than 3 instructions after tmu_noswap");
      return false;
    }
    return emu_tmu_write(e, q, waddr == HOP_QPU_W_TMU0_S ? 0 : 1, val) == EMU_GO;
  default:
    emu_fault(e, q, "write to %s address %u is not modelled (graphics or texture)",
              file_b ? "regfile-B" : "regfile-A", waddr);
    return false;
  }
  return !e->faulted;
}

bool emu_write(struct hop_qpuemu *e, struct emu_qpu *q, const struct hop_qpu_insn *in, bool mul,
               bool active, const uint32_t *val, uint16_t mask, bool float_result,
               struct emu_effects *fx)
{
  unsigned waddr = mul ? in->waddr_mul : in->waddr_add;
  bool file_b = mul ? !in->ws : in->ws;
  unsigned cond = mul ? in->cond_mul : in->cond_add;
  if (!active || waddr == HOP_QPU_W_NOP)
    return true;
  bool pack_a = in->pm == 0 && in->pack != 0 && !file_b && waddr < 32;
  bool pack_m = in->pm == 1 && in->pack != 0 && mul;
  if (waddr < 32 || (waddr >= 32 && waddr <= 35)) {
    uint32_t *dst = waddr < 32 ? (file_b ? q->rb[waddr] : q->ra[waddr]) : q->acc[waddr - 32];
    if (pack_a || pack_m) {
      if (!emu_pack(in->pack, pack_m, float_result, val, dst, mask)) {
        emu_fault(e, q, "pack mode %u (pm %u) has no meaning", in->pack, in->pm);
        return false;
      }
    } else {
      for (int i = 0; i < EMU_LANES; i++)
        if (mask >> i & 1u)
          dst[i] = val[i];
    }
    if (waddr < 32)
      *(file_b ? &fx->wrote_b : &fx->wrote_a) |= 1u << waddr;
    else
      fx->wrote_acc[waddr - 32] |= mask;
    return true;
  }
  if (pack_m) {
    emu_fault(e, q, "mul pack into I/O address %u does not work on hardware", waddr);
    return false;
  }
  if (waddr == HOP_QPU_W_R5) {
    /* A side: lanes 0, 4, 8, 12 across their quads; B side: lane 0 to all.
     * The write follows the condition of the source lane [HW]. */
    for (int i = 0; i < EMU_LANES; i++) {
      int src = file_b ? 0 : (i & ~3);
      if (mask >> src & 1u) {
        q->acc[5][i] = val[src];
        fx->wrote_acc[5] |= (uint16_t)(1u << i);
      }
    }
    return true;
  }
  if (cond != HOP_QPU_COND_ALWAYS) {
    emu_fault(e, q, "conditional write to I/O address %u (the request fires with undefined lanes)", waddr);
    return false;
  }
  return write_io(e, q, waddr, file_b, val, fx);
}

/* ---- load immediate and semaphores -------------------------------------- */

static enum emu_stall step_ldi(struct hop_qpuemu *e, struct emu_qpu *q, const struct hop_qpu_insn *in,
                               struct emu_effects *fx)
{
  uint32_t v[EMU_LANES];
  if (in->ldi_type == HOP_QPU_LDI_SEMAPHORE) {
    unsigned sem = in->imm & 15u;
    bool acquire = (in->imm >> 4) & 1u;
    if (acquire ? e->sem[sem] == 0 : e->sem[sem] == 15)
      return EMU_STALL_SEMA;
    if (!exclusive(e, q, fx))
      return EMU_FAULTED;
    e->sem[sem] += acquire ? -1 : 1;
  }
  for (int i = 0; i < EMU_LANES; i++) {
    uint32_t two = ((in->imm >> i) & 1u) | (((in->imm >> (16 + i)) & 1u) << 1);
    switch (in->ldi_type) {
    case HOP_QPU_LDI_32: case HOP_QPU_LDI_SEMAPHORE: v[i] = in->imm; break;
    case HOP_QPU_LDI_PER_ELEM_SIGNED: v[i] = two >= 2 ? two - 4u : two; break;
    case HOP_QPU_LDI_PER_ELEM_UNSIGNED: v[i] = two; break;
    default:
      emu_fault(e, q, "reserved load-immediate type %u", in->ldi_type);
      return EMU_FAULTED;
    }
  }
  uint16_t madd = emu_cond_mask(q, in->cond_add), mmul = emu_cond_mask(q, in->cond_mul);
  if (!emu_write(e, q, in, false, true, v, madd, false, fx) ||
      !emu_write(e, q, in, true, true, v, mmul, false, fx))
    return EMU_FAULTED;
  if (in->sf)
    emu_set_flags(q, madd, emu_zero_mask(v, false), emu_sign_mask(v), 0);
  return EMU_GO;
}

/* ---- branches ------------------------------------------------------------ */

static bool branch_taken(const struct emu_qpu *q, unsigned cond)
{
  uint16_t f = cond < 4 ? q->fz : cond < 8 ? q->fn : q->fc;
  switch (cond & 3u) {
  case 0: return f == 0xffff;            /* set in all lanes */
  case 1: return f == 0;                 /* clear in all lanes */
  case 2: return f != 0;                 /* set in any lane */
  default: return f != 0xffff;           /* clear in any lane */
  }
}

static enum emu_stall step_branch(struct hop_qpuemu *e, struct emu_qpu *q, const struct hop_qpu_insn *in,
                                  struct emu_effects *fx)
{
  if (q->br_left > 0 || q->since_branch < 3) {
    emu_fault(e, q, "branch less than 3 instructions after the previous branch");
    return EMU_FAULTED;
  }
  if (in->raddr_a & 1u) {
    emu_fault(e, q, "branch with an odd raddr_a also sets flags on hardware");
    return EMU_FAULTED;
  }
  if (in->cond_br >= 12 && in->cond_br != HOP_QPU_B_ALWAYS) {
    emu_fault(e, q, "reserved branch condition %u", in->cond_br);
    return EMU_FAULTED;
  }
  q->since_branch = 0;
  if (in->cond_br != HOP_QPU_B_ALWAYS && !branch_taken(q, in->cond_br))
    return EMU_GO;
  uint32_t target = (in->rel ? q->pc + 32 : 0) + in->imm;
  if (in->reg) {
    const uint32_t *r = q->ra[in->raddr_a];
    if (q->wrote_a >> in->raddr_a & 1u || r[0] != r[15]) {
      emu_fault(e, q, "branch register ra%u written just before or not the same in lanes 0 and 15",
                in->raddr_a);
      return EMU_FAULTED;
    }
    target += r[15]; /* lane 15 on hardware, lane 0 in the guide: both agree here */
  }
  uint32_t link[EMU_LANES];
  for (int i = 0; i < EMU_LANES; i++)
    link[i] = q->pc + 32;
  struct hop_qpu_insn alu = *in;
  alu.cond_add = alu.cond_mul = HOP_QPU_COND_ALWAYS;
  alu.pm = alu.pack = 0;
  for (int m = 0; m < 2; m++) {
    unsigned w = m ? in->waddr_mul : in->waddr_add;
    if (w != HOP_QPU_W_NOP && w > 35) {
      emu_fault(e, q, "branch link to I/O address %u", w);
      return EMU_FAULTED;
    }
    if (!emu_write(e, q, &alu, m == 1, true, link, 0xffff, false, fx))
      return EMU_FAULTED;
  }
  q->br_left = 3;
  q->br_target = target;
  return EMU_GO;
}

/* ---- the step ----------------------------------------------------------- */

static const struct hop_qpu_insn *fetch(struct hop_qpuemu *e, struct emu_qpu *q)
{
  if ((q->pc & 7u) || !emu_mem_ok(e, q->pc, 8)) {
    emu_fault(e, q, "instruction fetch at 0x%08x is outside memory or unaligned", q->pc);
    return NULL;
  }
  uint64_t raw = (uint64_t)emu_load32(e, q->pc) | (uint64_t)emu_load32(e, q->pc + 4) << 32;
  struct emu_dcache_entry *d = &e->dcache[(q->pc >> 3) & (EMU_DCACHE - 1)];
  if (!d->valid || d->pc != q->pc || d->raw != raw) {
    d->valid = true;
    d->pc = q->pc;
    d->raw = raw;
    hop_qpu_decode(raw, &d->in);
  }
  return &d->in;
}

/* Leaving with work in flight is a program bug the hardware would not report. */
static void check_clean_end(struct hop_qpuemu *e, struct emu_qpu *q)
{
  if (e->mutex_owner == q->index)
    emu_fault(e, q, "thread ended holding the mutex");
  else if (q->tmu[0].count || q->tmu[1].count)
    emu_fault(e, q, "thread ended with %d TMU results not read", q->tmu[0].count + q->tmu[1].count);
  else if (q->load.pending || q->store.pending)
    emu_fault(e, q, "thread ended with a DMA transfer in flight");
  else if (q->vrd[0].left > 0)
    emu_fault(e, q, "thread ended with %d VPM reads of a setup not done", q->vrd[0].left);
}

enum emu_stall emu_step(struct hop_qpuemu *e, struct emu_qpu *q)
{
  const struct hop_qpu_insn *in = fetch(e, q);
  if (in == NULL)
    return EMU_FAULTED;
  if (q->sfu_pending && q->issued_total >= q->sfu_at + 3) {
    memcpy(q->acc[4], q->sfu_value, sizeof q->sfu_value);
    q->sfu_pending = false;
  }
  struct emu_effects fx;
  memset(&fx, 0, sizeof fx);
  enum emu_stall st;
  if (in->sig == HOP_QPU_SIG_BRANCH)
    st = step_branch(e, q, in, &fx);
  else if (in->sig == HOP_QPU_SIG_LOAD_IMM)
    st = step_ldi(e, q, in, &fx);
  else
    st = emu_step_alu(e, q, in, &fx);
  if (e->faulted)
    return EMU_FAULTED;
  if (st != EMU_GO)
    return st;
  if (q->sfu_pending && fx.wrote_acc[4]) {
    emu_fault(e, q, "ldtmu within 2 instructions of an SFU write");
    return EMU_FAULTED;
  }
  q->wrote_a = fx.wrote_a;
  q->wrote_b = fx.wrote_b;
  memcpy(q->wrote_acc, fx.wrote_acc, sizeof q->wrote_acc);
  q->cnt.instructions++;
  q->issued_total++;
  q->since_unif_write++;
  if (in->sig != HOP_QPU_SIG_BRANCH)
    q->since_branch++;
  uint32_t here = q->pc;
  bool jumping = in->sig == HOP_QPU_SIG_BRANCH && q->br_left == 3;
  if (!jumping && q->br_left > 0) {
    q->pc = --q->br_left == 0 ? q->br_target : q->pc + 8;
  } else {
    q->pc += 8;
  }
  if (q->end_left > 0 && --q->end_left == 0) {
    q->state = EMU_Q_ENDED;
    q->pc = here; /* the last word, for messages */
    check_clean_end(e, q);
  } else if (fx.thread_end) {
    q->end_left = 2;
  }
  return e->faulted ? EMU_FAULTED : EMU_GO;
}
