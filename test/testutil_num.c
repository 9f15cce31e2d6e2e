/* Numbers for the tests: a seeded RNG and an fp16 codec written from the
 * IEEE 754 definition with double arithmetic, independently of
 * core/half.c, so a rounding bug in the library cannot hide behind it. */
#include <math.h>

#include "testutil.h"

/* ---- random numbers ------------------------------------------------------ */

uint64_t ht_rng_next(struct ht_rng *r)
{
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double ht_rng_uniform(struct ht_rng *r, double lo, double hi)
{
  return lo + (hi - lo) * (double)(ht_rng_next(r) >> 11) * 0x1p-53;
}

int ht_rng_int(struct ht_rng *r, int n) { return (int)(ht_rng_next(r) % (uint64_t)n); }

/* ---- binary16 -------------------------------------------------------------- */

double ht_half_to_double(uint16_t h)
{
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double s = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0x1f)
    return mant ? NAN : s * INFINITY;
  if (exp == 0)
    return s * ldexp(mant, -24);
  return s * ldexp(1024 + mant, exp - 25);
}

double ht_round_half(double x)
{
  if (isnan(x) || isinf(x))
    return x;
  double ax = fabs(x);
  if (ax >= 65520.0) /* halfway between 65504 and 65536 rounds (to even) up to inf */
    return copysign(INFINITY, x);
  int e = ax > 0.0 ? ilogb(ax) : -24;
  if (e < -14)
    e = -14; /* subnormals share the quantum 2^-24 */
  double q = ldexp(1.0, e - 10);
  return copysign(nearbyint(ax / q) * q, x); /* default rounding: ties to even */
}

uint16_t ht_half_bits(double v)
{
  if (isnan(v))
    return 0x7e00;
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double av = fabs(v);
  if (isinf(av))
    return sign | 0x7c00;
  if (av < 0x1p-14)
    return sign | (uint16_t)(av * 0x1p24);
  int e = ilogb(av);
  return sign | (uint16_t)((e + 15) << 10) | (uint16_t)((ldexp(av, -e) - 1.0) * 1024.0);
}
