/* ALU semantics, lane by lane: the add and mul opcodes with their C flags,
 * pack and unpack, the zero and sign flags, the SFU.
 *
 * Floats follow the hardware model of the fact sheet: denormal inputs and
 * results are flushed to zero; fadd/fsub round toward zero (as VC4C's
 * hardware-validated model), fmul rounds to nearest.  NaN and infinity
 * follow IEEE here; what the QPU really does with them only a Pi can say. */
#include <math.h>
#include <string.h>

#include "emu_internal.h"
#include "hop.h"

static float as_float(uint32_t u)
{
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint32_t as_bits(float f)
{
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* Flush a denormal to a zero of the same sign. */
static uint32_t ftz(uint32_t u) { return (u & 0x7f800000u) == 0 ? (u & 0x80000000u) : u; }

static float in_f(uint32_t u) { return as_float(ftz(u)); }
static uint32_t out_f(float f) { return ftz(as_bits(f)); }

/* a + b rounded toward zero: the double sum is exact for the exponent gaps
 * that matter, then a float rounding that moved away from zero is undone by
 * stepping the magnitude down one unit (sign-magnitude bits). */
static uint32_t add_rtz(float a, float b)
{
  double s = (double)a + (double)b;
  float r = (float)s;
  uint32_t bits = as_bits(r);
  if (isfinite(r) && fabs((double)r) > fabs(s))
    bits -= 1;
  return ftz(bits);
}

bool emu_add_is_float_input(unsigned op) { return op >= HOP_QPU_A_FADD && op <= HOP_QPU_A_FTOI; }
bool emu_add_is_float_result(unsigned op)
{
  return (op >= HOP_QPU_A_FADD && op <= HOP_QPU_A_FMAXABS) || op == HOP_QPU_A_ITOF;
}

static uint32_t sat_u8(int v) { return v < 0 ? 0u : v > 255 ? 255u : (uint32_t)v; }

static uint32_t bytewise(uint32_t a, uint32_t b, int kind)
{
  uint32_t r = 0;
  for (int i = 0; i < 32; i += 8) {
    int x = (int)((a >> i) & 255u), y = (int)((b >> i) & 255u), v;
    switch (kind) {
    case 0: v = x + y; break;                    /* v8adds */
    case 1: v = x - y; break;                    /* v8subs */
    case 2: v = x < y ? x : y; break;            /* v8min */
    case 3: v = x > y ? x : y; break;            /* v8max */
    default: v = (x * y + 127) / 255; break;     /* v8muld */
    }
    r |= sat_u8(v) << i;
  }
  return r;
}

/* fadd/fsub, the hot pair (every k step of sgemm), in a loop of their own. */
static uint16_t fadd_lanes(const uint32_t *a, const uint32_t *b, uint32_t *r, bool sub)
{
  uint16_t c = 0;
  for (int i = 0; i < EMU_LANES; i++) {
    float y = in_f(b[i]);
    r[i] = add_rtz(in_f(a[i]), sub ? -y : y);
    c |= (uint16_t)(as_float(r[i]) > 0.0f ? 1u << i : 0u);
  }
  return c;
}

bool emu_add_op(unsigned op, const uint32_t *a, const uint32_t *b, uint32_t *r, uint16_t *carry)
{
  if (op == HOP_QPU_A_FADD || op == HOP_QPU_A_FSUB) {
    *carry = fadd_lanes(a, b, r, op == HOP_QPU_A_FSUB);
    return true;
  }
  uint16_t c = 0;
  for (int i = 0; i < EMU_LANES; i++) {
    uint32_t x = a[i], y = b[i], v = 0;
    float fx = in_f(x), fy = in_f(y);
    unsigned sh = y & 31u;
    bool ci = false;
    switch (op) {
    case HOP_QPU_A_NOP: break;
    case HOP_QPU_A_FMIN: v = out_f(fx < fy ? fx : fy); ci = fx > fy; break;
    case HOP_QPU_A_FMAX: v = out_f(fx > fy ? fx : fy); ci = fx > fy; break;
    case HOP_QPU_A_FMINABS: v = out_f(fabsf(fx) < fabsf(fy) ? fabsf(fx) : fabsf(fy)); ci = fabsf(fx) > fabsf(fy); break;
    case HOP_QPU_A_FMAXABS: v = out_f(fabsf(fx) > fabsf(fy) ? fabsf(fx) : fabsf(fy)); ci = fabsf(fx) > fabsf(fy); break;
    case HOP_QPU_A_FTOI:
      /* Truncation; NaN and out-of-range give 0 (unverified on hardware). */
      v = (isnan(fx) || fx >= 2147483648.0f || fx < -2147483648.0f) ? 0u : (uint32_t)(int32_t)fx;
      break;
    case HOP_QPU_A_ITOF: v = out_f((float)(int32_t)x); break;
    case HOP_QPU_A_ADD: v = x + y; ci = v < x; break;
    case HOP_QPU_A_SUB: v = x - y; ci = x < y; break;
    case HOP_QPU_A_SHR: v = x >> sh; ci = sh && ((x >> (sh - 1)) & 1u); break;
    case HOP_QPU_A_ASR: v = (uint32_t)((int32_t)x >> sh); ci = sh && ((x >> (sh - 1)) & 1u); break;
    case HOP_QPU_A_ROR: v = sh ? (x >> sh) | (x << (32 - sh)) : x; break;
    case HOP_QPU_A_SHL: v = x << sh; ci = sh && ((x >> (32 - sh)) & 1u); break;
    case HOP_QPU_A_MIN: v = (int32_t)x < (int32_t)y ? x : y; ci = (int32_t)x > (int32_t)y; break;
    case HOP_QPU_A_MAX: v = (int32_t)x > (int32_t)y ? x : y; ci = (int32_t)x > (int32_t)y; break;
    case HOP_QPU_A_AND: v = x & y; break;
    case HOP_QPU_A_OR: v = x | y; break;
    case HOP_QPU_A_XOR: v = x ^ y; break;
    case HOP_QPU_A_NOT: v = ~x; break;
    case HOP_QPU_A_CLZ: v = x ? (uint32_t)__builtin_clz(x) : 32u; break;
    case HOP_QPU_A_V8ADDS: v = bytewise(x, y, 0); break;
    case HOP_QPU_A_V8SUBS: v = bytewise(x, y, 1); break;
    default: return false; /* reserved opcode */
    }
    r[i] = v;
    c |= (uint16_t)(ci ? 1u << i : 0u);
  }
  *carry = c;
  return true;
}

bool emu_mul_op(unsigned op, const uint32_t *a, const uint32_t *b, uint32_t *r, uint16_t *carry)
{
  uint16_t c = 0;
  for (int i = 0; i < EMU_LANES; i++) {
    uint32_t x = a[i], y = b[i], v = 0;
    switch (op) {
    case HOP_QPU_M_NOP: break;
    case HOP_QPU_M_FMUL: v = out_f(in_f(x) * in_f(y)); break;
    case HOP_QPU_M_MUL24: {
      uint64_t p = (uint64_t)(x & 0xffffffu) * (uint64_t)(y & 0xffffffu);
      v = (uint32_t)p;
      c |= (uint16_t)((p >> 32) ? 1u << i : 0u);
      break;
    }
    case HOP_QPU_M_V8MULD: v = bytewise(x, y, 4); break;
    case HOP_QPU_M_V8MIN: v = bytewise(x, y, 2); break;
    case HOP_QPU_M_V8MAX: v = bytewise(x, y, 3); break;
    case HOP_QPU_M_V8ADDS: v = bytewise(x, y, 0); break;
    case HOP_QPU_M_V8SUBS: v = bytewise(x, y, 1); break;
    default: return false;
    }
    r[i] = v;
  }
  *carry = c;
  return true;
}

uint16_t emu_zero_mask(const uint32_t *r, bool float_result)
{
  uint16_t z = 0;
  for (int i = 0; i < EMU_LANES; i++) {
    uint32_t v = float_result ? (ftz(r[i]) & 0x7fffffffu) : r[i];
    z |= (uint16_t)(v == 0 ? 1u << i : 0u);
  }
  return z;
}

uint16_t emu_sign_mask(const uint32_t *r)
{
  unsigned n = 0;
  for (int i = 0; i < EMU_LANES; i++)
    n |= (r[i] >> 31) << i;
  return (uint16_t)n;
}

/* Unpack an operand in place: regfile-A reads (pm = 0) or r4 reads (pm = 1). */
void emu_unpack(unsigned code, bool float_op, bool r4_mode, uint32_t *v)
{
  bool to_float = float_op || r4_mode;
  for (int i = 0; i < EMU_LANES && code != 0; i++) {
    uint32_t x = v[i];
    if (code == 1 || code == 2) {
      uint16_t h = (uint16_t)(code == 1 ? x : x >> 16);
      v[i] = to_float ? as_bits(hop_half_to_float(h)) : (uint32_t)(int32_t)(int16_t)h;
    } else if (code == 3) {
      v[i] = ((x >> 24) & 255u) * 0x01010101u;
    } else {
      uint32_t byte = (x >> (8 * (code - 4))) & 255u;
      v[i] = to_float ? as_bits((float)byte / 255.0f) : byte;
    }
  }
}

/* Pack a result into the destination's bytes.  Regfile-A packs (mul_mode
 * false) may write part of the register; mul packs turn floats in [0,1]
 * into unorm bytes.  False for codes that have no meaning. */
bool emu_pack(unsigned code, bool mul_mode, bool float_result, const uint32_t *res, uint32_t *dst,
              const uint16_t mask)
{
  for (int i = 0; i < EMU_LANES; i++) {
    if (!(mask >> i & 1u))
      continue;
    uint32_t x = res[i], old = dst[i], v;
    if (mul_mode) {
      uint32_t byte = sat_u8((int)lrintf(fminf(fmaxf(in_f(x), 0.0f), 1.0f) * 255.0f));
      if (code == 3)
        v = byte * 0x01010101u;
      else if (code >= 4 && code <= 7)
        v = (old & ~(255u << (8 * (code - 4)))) | byte << (8 * (code - 4));
      else
        return false;
    } else {
      bool sat = code >= 8;
      unsigned base = sat ? code - 8 : code;
      int32_t s = (int32_t)x;
      if (code == 8) {
        v = x; /* 32-bit saturation needs the overflow, which the ops above never produce */
      } else if (base == 1 || base == 2) {
        uint32_t h = float_result ? hop_float_to_half(in_f(x))
                                  : (uint16_t)(sat ? (s < -32768 ? -32768 : s > 32767 ? 32767 : s) : s);
        unsigned shift = base == 1 ? 0 : 16;
        v = (old & ~(0xffffu << shift)) | (h & 0xffffu) << shift;
      } else if (base == 3) {
        v = (sat ? sat_u8(s) : (x & 255u)) * 0x01010101u;
      } else {
        unsigned shift = 8 * (base - 4);
        v = (old & ~(255u << shift)) | (sat ? sat_u8(s) : (x & 255u)) << shift;
      }
    }
    dst[i] = v;
  }
  return true;
}

float emu_sfu(unsigned waddr, float x)
{
  x = in_f(as_bits(x));
  switch (waddr) {
  case HOP_QPU_W_SFU_RECIP: return 1.0f / x;
  case HOP_QPU_W_SFU_RECIPSQRT: return 1.0f / sqrtf(fabsf(x));
  case HOP_QPU_W_SFU_EXP: return exp2f(x);
  default: return log2f(fabsf(x));
  }
}
