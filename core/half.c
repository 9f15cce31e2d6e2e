/* IEEE binary16 <-> binary32.  Scalar conversions are exact software
 * routines (round to nearest even, overflow to infinity, NaN stays NaN);
 * the array forms use F16C when an x86 CPU has it, which rounds the same way
 * (ARM builds use the scalar routines). */
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#define HOP_HALF_F16C 1
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "hop.h"

float hop_half_to_float(uint16_t h)
{
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13) | (mant ? 0x00400000u : 0); /* inf, quiet NaN */
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else { /* subnormal: normalise */
    int e = -1;
    do {
      e++;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    bits = sign | ((uint32_t)(112 - e) << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t hop_float_to_half(float f)
{
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) /* inf or NaN (NaN stays quiet NaN, payload's top bits kept) */
    return sign | 0x7c00u | (ax > 0x7f800000u ? (uint16_t)(0x200u | ((ax >> 13) & 0x3ffu)) : 0);
  if (ax >= 0x477ff000u) /* rounds to >= 65536: infinity */
    return sign | 0x7c00u;
  if (ax < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
    if (ax < 0x33000000u) /* below half of the smallest subnormal: zero */
      return sign;
    uint32_t e = ax >> 23, mant = (ax & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - e; /* 14..24 */
    uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u)))
      q++;
    return sign | (uint16_t)q;
  }
  uint32_t q = (ax - 0x38000000u) >> 13, rem = ax & 0x1fffu; /* rebias 127 -> 15 */
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1u)))
    q++;
  return sign | (uint16_t)q;
}

#ifdef HOP_HALF_F16C
__attribute__((target("f16c,avx"))) static void half_to_float_f16c(const uint16_t *src, float *dst,
                                                                   size_t n)
{
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
  for (; i < n; i++)
    dst[i] = hop_half_to_float(src[i]);
}

__attribute__((target("f16c,avx"))) static void float_to_half_f16c(const float *src, uint16_t *dst,
                                                                   size_t n)
{
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128((__m128i *)(dst + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; i++)
    dst[i] = hop_float_to_half(src[i]);
}

/* CPUID leaf 1: F16C (ecx 29) and AVX (ecx 28) with the OS saving YMM state
 * (OSXSAVE, ecx 27, and XCR0 bits 1-2). */
static bool have_f16c(void)
{
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return false;
  const unsigned need = 1u << 29 | 1u << 28 | 1u << 27;
  if ((c & need) != need)
    return false;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 6u) == 6u;
}
#endif

void hop_half_to_float_n(const uint16_t *src, float *dst, size_t n)
{
#ifdef HOP_HALF_F16C
  if (n >= 8 && have_f16c()) {
    half_to_float_f16c(src, dst, n);
    return;
  }
#endif
  for (size_t i = 0; i < n; i++)
    dst[i] = hop_half_to_float(src[i]);
}

void hop_float_to_half_n(const float *src, uint16_t *dst, size_t n)
{
#ifdef HOP_HALF_F16C
  if (n >= 8 && have_f16c()) {
    float_to_half_f16c(src, dst, n);
    return;
  }
#endif
  for (size_t i = 0; i < n; i++)
    dst[i] = hop_float_to_half(src[i]);
}
