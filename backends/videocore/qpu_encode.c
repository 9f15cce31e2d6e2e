/* Fields <-> 64-bit QPU words, small-immediate codes and the VPM/DMA setup
 * words.  Bit positions are those of the fact sheet, sec. 2 and 11. */
#include <math.h>
#include <string.h>

#include "qpu_asm.h"

#define FIELD(w, hi, lo) ((unsigned)(((w) >> (lo)) & ((1ull << ((hi) - (lo) + 1)) - 1)))
#define PUT(v, hi, lo) (((uint64_t)(v) & ((1ull << ((hi) - (lo) + 1)) - 1)) << (lo))

uint64_t hop_qpu_encode(const struct hop_qpu_insn *in)
{
  uint64_t w = PUT(in->sig, 63, 60);
  if (in->sig == HOP_QPU_SIG_BRANCH) {
    w |= PUT(in->br_unused, 59, 56) | PUT(in->cond_br, 55, 52) | PUT(in->rel, 51, 51) |
         PUT(in->reg, 50, 50) | PUT(in->raddr_a, 49, 45) | PUT(in->ws, 44, 44) |
         PUT(in->waddr_add, 43, 38) | PUT(in->waddr_mul, 37, 32) | PUT(in->imm, 31, 0);
    return w;
  }
  w |= PUT(in->pm, 56, 56) | PUT(in->pack, 55, 52) | PUT(in->cond_add, 51, 49) |
       PUT(in->cond_mul, 48, 46) | PUT(in->sf, 45, 45) | PUT(in->ws, 44, 44) |
       PUT(in->waddr_add, 43, 38) | PUT(in->waddr_mul, 37, 32);
  if (in->sig == HOP_QPU_SIG_LOAD_IMM)
    return w | PUT(in->ldi_type, 59, 57) | PUT(in->imm, 31, 0);
  return w | PUT(in->unpack, 59, 57) | PUT(in->op_mul, 31, 29) | PUT(in->op_add, 28, 24) |
         PUT(in->raddr_a, 23, 18) | PUT(in->raddr_b, 17, 12) | PUT(in->add_a, 11, 9) |
         PUT(in->add_b, 8, 6) | PUT(in->mul_a, 5, 3) | PUT(in->mul_b, 2, 0);
}

void hop_qpu_decode(uint64_t w, struct hop_qpu_insn *out)
{
  memset(out, 0, sizeof *out);
  out->sig = FIELD(w, 63, 60);
  out->ws = FIELD(w, 44, 44);
  out->waddr_add = FIELD(w, 43, 38);
  out->waddr_mul = FIELD(w, 37, 32);
  if (out->sig == HOP_QPU_SIG_BRANCH) {
    out->br_unused = FIELD(w, 59, 56);
    out->cond_br = FIELD(w, 55, 52);
    out->rel = FIELD(w, 51, 51);
    out->reg = FIELD(w, 50, 50);
    out->raddr_a = FIELD(w, 49, 45);
    out->imm = (uint32_t)w;
    return;
  }
  out->pm = FIELD(w, 56, 56);
  out->pack = FIELD(w, 55, 52);
  out->cond_add = FIELD(w, 51, 49);
  out->cond_mul = FIELD(w, 48, 46);
  out->sf = FIELD(w, 45, 45);
  if (out->sig == HOP_QPU_SIG_LOAD_IMM) {
    out->ldi_type = FIELD(w, 59, 57);
    out->imm = (uint32_t)w;
    return;
  }
  out->unpack = FIELD(w, 59, 57);
  out->op_mul = FIELD(w, 31, 29);
  out->op_add = FIELD(w, 28, 24);
  out->raddr_a = FIELD(w, 23, 18);
  out->raddr_b = FIELD(w, 17, 12);
  out->add_a = FIELD(w, 11, 9);
  out->add_b = FIELD(w, 8, 6);
  out->mul_a = FIELD(w, 5, 3);
  out->mul_b = FIELD(w, 2, 0);
}

int hop_qpu_small_imm_int(int value)
{
  if (value >= 0 && value <= 15)
    return value;
  if (value >= -16 && value <= -1)
    return value + 32;
  return -1;
}

int hop_qpu_small_imm_float(float value)
{
  for (int code = 32; code <= 47; code++) {
    uint32_t bits = hop_qpu_small_imm_value((unsigned)code);
    float f;
    memcpy(&f, &bits, sizeof f);
    if (f == value)
      return code;
  }
  return value == 0.0f && !signbit(value) ? 0 : -1;
}

uint32_t hop_qpu_small_imm_value(unsigned code)
{
  if (code <= 15)
    return code;
  if (code <= 31)
    return (uint32_t)((int)code - 32);
  if (code <= 47) {
    int e = code <= 39 ? (int)code - 32 : (int)code - 48; /* 2^0..2^7, 2^-8..2^-1 */
    float f = ldexpf(1.0f, e);
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
  }
  return (uint32_t)((int)code - 64); /* rotation codes read through mux 7 [HW] */
}

/* ---- setup words --------------------------------------------------------- */

uint32_t hop_qpu_vpm_read_setup(unsigned num, unsigned stride, bool horiz, unsigned size,
                                unsigned addr)
{
  return ((num & 15u) << 20) | ((stride & 63u) << 12) | ((horiz ? 1u : 0u) << 11) |
         ((size & 3u) << 8) | (addr & 255u);
}

uint32_t hop_qpu_vpm_write_setup(unsigned stride, bool horiz, unsigned size, unsigned addr)
{
  return ((stride & 63u) << 12) | ((horiz ? 1u : 0u) << 11) | ((size & 3u) << 8) | (addr & 255u);
}

uint32_t hop_qpu_vdr_setup(unsigned nrows, unsigned rowlen, unsigned mpitch, unsigned vpitch,
                           bool vert, unsigned y, unsigned x)
{
  return 0x80000000u | ((mpitch & 15u) << 24) | ((rowlen & 15u) << 20) | ((nrows & 15u) << 16) |
         ((vpitch & 15u) << 12) | ((vert ? 1u : 0u) << 11) | ((y & 127u) << 4) | (x & 15u);
}

uint32_t hop_qpu_vdr_pitch(unsigned pitch_bytes) { return 0x90000000u | (pitch_bytes & 8191u); }

uint32_t hop_qpu_vdw_setup(unsigned units, unsigned depth, bool horiz, unsigned y, unsigned x)
{
  return 0x80000000u | ((units & 127u) << 23) | ((depth & 127u) << 16) |
         ((horiz ? 1u : 0u) << 14) | ((y & 127u) << 7) | ((x & 15u) << 3);
}

uint32_t hop_qpu_vdw_stride(unsigned stride_bytes, bool blockmode)
{
  return 0xC0000000u | ((blockmode ? 1u : 0u) << 16) | (stride_bytes & 8191u);
}
