/* One ALU instruction of one QPU: the blocking checks (nothing changes when
 * the word cannot issue this cycle), the hazard rules of the fact sheet
 * (sec. 7) as faults, operand reads with their side effects, both ALUs,
 * rotation, pack/unpack, conditional writes, flags and signals. */
#include <string.h>

#include "emu_internal.h"

static bool is_ldtmu(unsigned sig) { return sig == HOP_QPU_SIG_LDTMU0 || sig == HOP_QPU_SIG_LDTMU1; }

/* Side-effect reads that may have to wait: VPM, DMA waits, mutex, ldtmu. */
static enum emu_stall alu_blocked(struct hop_qpuemu *e, struct emu_qpu *q, const struct hop_qpu_insn *in)
{
  unsigned ra = in->raddr_a, rb = in->sig == HOP_QPU_SIG_SMALL_IMM ? HOP_QPU_R_NOP : in->raddr_b;
  enum emu_stall st = EMU_GO;
  if (ra == HOP_QPU_R_VPM || rb == HOP_QPU_R_VPM) {
    if (ra == rb) {
      emu_fault(e, q, "VPM read through both regfile addresses");
      return EMU_FAULTED;
    }
    st = emu_vpm_read_ready(e, q);
  }
  if (st == EMU_GO && ra == HOP_QPU_R_DMA_WAIT && q->load.pending)
    st = EMU_STALL_DMA;
  if (st == EMU_GO && rb == HOP_QPU_R_DMA_WAIT && q->store.pending)
    st = EMU_STALL_DMA;
  if (st == EMU_GO && (ra == HOP_QPU_R_MUTEX || rb == HOP_QPU_R_MUTEX)) {
    if (e->mutex_owner == q->index) {
      emu_fault(e, q, "mutex acquired again by the QPU that holds it");
      return EMU_FAULTED;
    }
    if (e->mutex_owner >= 0)
      st = EMU_STALL_MUTEX;
  }
  if (st == EMU_GO && is_ldtmu(in->sig))
    st = emu_tmu_pop_ready(e, q, in->sig - HOP_QPU_SIG_LDTMU0);
  /* A DMA may not start while this QPU's previous one of that kind runs. */
  for (int alu = 0; st == EMU_GO && alu < 2; alu++) {
    unsigned waddr = alu ? in->waddr_mul : in->waddr_add;
    bool file_b = alu ? !in->ws : in->ws;
    if (waddr == HOP_QPU_W_DMA_ADDR && (alu ? in->op_mul : in->op_add) != 0)
      st = emu_dma_start_ready(e, q, file_b);
  }
  return st;
}

/* Read one regfile address: registers, specials and their side effects. */
static bool read_raddr(struct hop_qpuemu *e, struct emu_qpu *q, unsigned addr, bool file_b, bool used,
                       uint32_t *v)
{
  uint32_t one = 0;
  bool fill = true;
  if (addr < 32) {
    uint32_t wrote = file_b ? q->wrote_b : q->wrote_a;
    if (used && (wrote >> addr & 1u)) {
      emu_fault(e, q, "r%c%u read right after it was written (needs one instruction between)",
                file_b ? 'b' : 'a', addr);
      return false;
    }
    memcpy(v, file_b ? q->rb[addr] : q->ra[addr], 4 * EMU_LANES);
    return true;
  }
  switch (addr) {
  case HOP_QPU_R_UNIFORM:
    if (q->since_unif_write < 3) {
      emu_fault(e, q, "uniform read %llu instruction(s) after a uniforms_address write (needs 2 between)",
                (unsigned long long)q->since_unif_write);
      return false;
    }
    if (!emu_mem_ok(e, q->unif, 4)) {
      emu_fault(e, q, "uniform read at 0x%08x is outside memory", q->unif);
      return false;
    }
    one = emu_load32(e, q->unif);
    q->unif += 4;
    q->cnt.uniforms++;
    break;
  case HOP_QPU_R_ELEM_QPU:
    fill = false;
    for (int i = 0; i < EMU_LANES; i++)
      v[i] = file_b ? (uint32_t)q->index : (uint32_t)i;
    break;
  case HOP_QPU_R_NOP: one = HOP_QPUEMU_POISON; break; /* stale on hardware: never rely on it */
  case HOP_QPU_R_VPM: fill = false; emu_vpm_read(e, q, v); break;
  case HOP_QPU_R_DMA_BUSY: one = (file_b ? q->store.pending : q->load.pending) ? 1u : 0u; break;
  case HOP_QPU_R_DMA_WAIT: break;
  case HOP_QPU_R_MUTEX: e->mutex_owner = q->index; break;
  default:
    emu_fault(e, q, "read of regfile-%c address %u, which is not modelled", file_b ? 'B' : 'A', addr);
    return false;
  }
  if (fill)
    for (int i = 0; i < EMU_LANES; i++)
      v[i] = one;
  return true;
}

/* Rotate the mul result: lane i takes lane (i - n); inside quads when an
 * input came from r4 or regfile A. */
static void rotate(uint32_t *r, unsigned n, bool quads)
{
  uint32_t t[EMU_LANES];
  for (int i = 0; i < EMU_LANES; i++)
    t[i] = quads ? r[(i & ~3) | ((i - (int)n) & 3)] : r[(i - (int)n) & 15];
  memcpy(r, t, sizeof t);
}

/* The guide forbids rotating an accumulator the previous word wrote: the
 * lanes come from different passes of the 4-wide pipeline.  py-videocore's
 * sgemm does it where the written lanes are not the ones the rotation
 * reads, so only that case faults. */
static bool rotation(struct hop_qpuemu *e, struct emu_qpu *q, const struct hop_qpu_insn *in,
                     uint16_t mmul, uint32_t *r)
{
  bool by_r5 = in->raddr_b == 48;
  unsigned n = by_r5 ? q->acc[5][0] & 15u : in->raddr_b - 48;
  unsigned m[2] = {in->mul_a, in->mul_b};
  bool quads = false;
  for (int i = 0; i < 2; i++) {
    if (m[i] == 5) {
      emu_fault(e, q, "rotation with an r5 input is not defined");
      return false;
    }
    quads |= m[i] == 4 || m[i] == 6;
  }
  if (by_r5 && (q->wrote_acc[5] & 1u)) {
    emu_fault(e, q, "rotation by r5 right after r5 was written");
    return false;
  }
  /* Result lanes that land somewhere: r5 keeps lane 0 (B) or 0/4/8/12 (A). */
  uint16_t used = in->waddr_mul == HOP_QPU_W_R5 ? (in->ws ? 0x1111 : 0x0001) : mmul;
  for (int lane = 0; lane < EMU_LANES; lane++) {
    if (!(used >> lane & 1u))
      continue;
    int src = quads ? (lane & ~3) | ((lane - (int)n) & 3) : (lane - (int)n) & 15;
    for (int i = 0; i < 2; i++)
      if (m[i] < 4 && (q->wrote_acc[m[i]] >> src & 1u)) {
        emu_fault(e, q, "rotation reads lane %d of r%u right after that lane was written", src, m[i]);
        return false;
      }
  }
  rotate(r, n, quads);
  return true;
}

static void operand(struct emu_qpu *q, const struct hop_qpu_insn *in, unsigned mux, bool float_op,
                    const uint32_t *va, const uint32_t *vb, uint32_t *out)
{
  if (mux < 6)
    memcpy(out, q->acc[mux], 4 * EMU_LANES);
  else
    memcpy(out, mux == 6 ? va : vb, 4 * EMU_LANES);
  if (in->unpack && ((in->pm == 0 && mux == 6) || (in->pm == 1 && mux == 4)))
    emu_unpack(in->unpack, float_op, in->pm == 1, out);
}

/* The thread-end instruction and its two slots: no uniforms, no VPM or DMA,
 * not register 14 (RG p.37). */
static bool end_window_ok(struct hop_qpuemu *e, struct emu_qpu *q, const struct hop_qpu_insn *in)
{
  unsigned r[2] = {in->raddr_a, in->sig == HOP_QPU_SIG_SMALL_IMM ? 39u : in->raddr_b};
  unsigned w[2] = {in->op_add ? in->waddr_add : 39u, in->op_mul ? in->waddr_mul : 39u};
  bool bad = false;
  for (int i = 0; i < 2; i++) {
    bad |= r[i] == 32 || r[i] == 35 || r[i] == 48 || r[i] == 14;
    bad |= w[i] == 48 || w[i] == 49 || w[i] == 50 || w[i] == 14;
  }
  if (bad)
    emu_fault(e, q, "thread end window reads uniforms, touches the VPM/DMA or register 14");
  return !bad;
}

enum emu_stall emu_step_alu(struct hop_qpuemu *e, struct emu_qpu *q, const struct hop_qpu_insn *in,
                            struct emu_effects *fx)
{
  enum emu_stall st = alu_blocked(e, q, in);
  if (st != EMU_GO)
    return st;
  unsigned sig = in->sig;
  if (sig != HOP_QPU_SIG_NONE && sig != HOP_QPU_SIG_SMALL_IMM && sig != HOP_QPU_SIG_THREAD_END &&
      !is_ldtmu(sig)) {
    emu_fault(e, q, "signal %u (%s) is not modelled", sig, sig == 0 ? "breakpoint" : "graphics");
    return EMU_FAULTED;
  }
  if ((sig == HOP_QPU_SIG_THREAD_END || q->end_left > 0) && !end_window_ok(e, q, in))
    return EMU_FAULTED;
  if (in->raddr_a == 32 && in->raddr_b == 32 && sig != HOP_QPU_SIG_SMALL_IMM) {
    emu_fault(e, q, "uniform read through both regfile addresses");
    return EMU_FAULTED;
  }
  bool add_f = emu_add_is_float_input(in->op_add), mul_f = in->op_mul == HOP_QPU_M_FMUL;
  /* Which muxes read the regfile values (for the hazard check). */
  unsigned muxes[4] = {in->add_a, in->add_b, in->mul_a, in->mul_b};
  bool use_a = false, use_b = false, use_r4 = false;
  for (int i = 0; i < 4; i++) {
    bool live = i < 2 ? in->op_add != 0 : in->op_mul != 0;
    use_a |= live && muxes[i] == 6;
    use_b |= live && muxes[i] == 7;
    use_r4 |= live && muxes[i] == 4;
  }
  if (use_r4 && q->sfu_pending) {
    emu_fault(e, q, "r4 read within 2 instructions of an SFU write");
    return EMU_FAULTED;
  }
  uint32_t va[EMU_LANES], vb[EMU_LANES];
  if (!read_raddr(e, q, in->raddr_a, false, use_a, va))
    return EMU_FAULTED;
  if (sig == HOP_QPU_SIG_SMALL_IMM) {
    uint32_t imm = hop_qpu_small_imm_value(in->raddr_b);
    for (int i = 0; i < EMU_LANES; i++)
      vb[i] = imm;
  } else if (!read_raddr(e, q, in->raddr_b, true, use_b, vb)) {
    return EMU_FAULTED;
  }
  uint32_t a[EMU_LANES], b[EMU_LANES], radd[EMU_LANES], rmul[EMU_LANES];
  uint16_t cadd = 0, cmul = 0;
  operand(q, in, in->add_a, add_f, va, vb, a);
  operand(q, in, in->add_b, add_f, va, vb, b);
  if (!emu_add_op(in->op_add, a, b, radd, &cadd)) {
    emu_fault(e, q, "reserved add opcode %u", in->op_add);
    return EMU_FAULTED;
  }
  operand(q, in, in->mul_a, mul_f, va, vb, a);
  operand(q, in, in->mul_b, mul_f, va, vb, b);
  emu_mul_op(in->op_mul, a, b, rmul, &cmul);
  uint16_t madd = emu_cond_mask(q, in->cond_add), mmul = emu_cond_mask(q, in->cond_mul);
  if (sig == HOP_QPU_SIG_SMALL_IMM && in->raddr_b >= 48 && in->op_mul != 0 &&
      !rotation(e, q, in, mmul, rmul))
    return EMU_FAULTED;
  if (in->op_add == 0)
    madd = 0;
  if (in->op_mul == 0)
    mmul = 0;
  bool ok = emu_write(e, q, in, false, in->op_add != 0, radd, madd,
                      emu_add_is_float_result(in->op_add), fx) &&
            emu_write(e, q, in, true, in->op_mul != 0, rmul, mmul, in->op_mul == HOP_QPU_M_FMUL, fx);
  if (!ok)
    return EMU_FAULTED;
  if (in->sf) {
    bool from_add = in->op_add != 0;
    if (from_add || in->op_mul != 0) {
      const uint32_t *r = from_add ? radd : rmul;
      bool fl = from_add ? emu_add_is_float_result(in->op_add) : in->op_mul == HOP_QPU_M_FMUL;
      emu_set_flags(q, from_add ? madd : mmul, emu_zero_mask(r, fl), emu_sign_mask(r),
                    from_add ? cadd : cmul);
    }
  }
  if (is_ldtmu(sig)) {
    if (fx->vpm_access) {
      emu_fault(e, q, "ldtmu together with a VPM access is unreliable");
      return EMU_FAULTED;
    }
    if (++fx->exclusive > 1) {
      emu_fault(e, q, "more than one of TMU write/ldtmu/SFU/mutex/semaphore in one word");
      return EMU_FAULTED;
    }
    emu_tmu_pop(q, sig - HOP_QPU_SIG_LDTMU0, q->acc[4]);
    fx->wrote_acc[4] = 0xffff;
  }
  if (in->raddr_a == HOP_QPU_R_MUTEX || (sig != HOP_QPU_SIG_SMALL_IMM && in->raddr_b == HOP_QPU_R_MUTEX))
    if (++fx->exclusive > 1) {
      emu_fault(e, q, "more than one of TMU write/ldtmu/SFU/mutex/semaphore in one word");
      return EMU_FAULTED;
    }
  if (sig == HOP_QPU_SIG_THREAD_END) {
    if ((fx->wrote_a | fx->wrote_b) != 0) {
      emu_fault(e, q, "thread end instruction writes a regfile register");
      return EMU_FAULTED;
    }
    fx->thread_end = true;
  }
  q->cnt.add_ops += in->op_add != 0;
  q->cnt.mul_ops += in->op_mul != 0;
  q->cnt.fadd_ops += in->op_add == HOP_QPU_A_FADD || in->op_add == HOP_QPU_A_FSUB;
  q->cnt.fmul_ops += in->op_mul == HOP_QPU_M_FMUL;
  return EMU_GO;
}
