/* The stub driver's kernels: sgemm/hgemm/shgemm_generic_tiled computed on
 * the host from the arguments the engine set (kernels/gemm_generic.cl's
 * signature), every access checked against its buffer.  beta == 0 never
 * reads C, as the real kernels.  Test code. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "stub-icd.h"

static float half_to_float(uint16_t h)
{
  int e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                     : ldexpf((float)(m | 1024), e - 25);
  return h & 0x8000 ? -v : v;
}

/* Round to nearest even through the float's bits. */
static uint16_t float_to_half(float f)
{
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  if (isnan(f))
    return sign | 0x7e00;
  float a = fabsf(f);
  if (a >= 65520.0f)
    return sign | 0x7c00;
  if (a < 0x1p-14f) /* subnormal: multiples of 2^-24, rint rounds to even */
    return sign | (uint16_t)rintf(a * 0x1p24f);
  int e;
  float frac = frexpf(a, &e);                      /* a = frac * 2^e, frac in [0.5, 1) */
  uint32_t m = (uint32_t)rintf(frac * 2048.0f);    /* 11 significant bits */
  if (m == 2048)
    m = 1024, e++;
  return sign | (uint16_t)(((e + 14) << 10) | (m & 1023));
}

static int arg_int(const struct _cl_kernel *k, int i)
{
  int v;
  memcpy(&v, k->args[i], sizeof v);
  return v;
}

static float arg_float(const struct _cl_kernel *k, int i)
{
  float v;
  memcpy(&v, k->args[i], sizeof v);
  return v;
}

static cl_ulong arg_ulong(const struct _cl_kernel *k, int i)
{
  cl_ulong v;
  memcpy(&v, k->args[i], sizeof v);
  return v;
}

static cl_mem arg_mem(const struct _cl_kernel *k, int i)
{
  cl_mem v;
  memcpy(&v, k->args[i], sizeof v);
  return v;
}

/* Is the rows x cols view at element off (ld) inside the buffer? */
static bool inside(cl_mem m, cl_ulong off, int ld, int rows, int cols, size_t esize)
{
  if (m == NULL || ld < rows || rows < 1 || cols < 1)
    return false;
  unsigned long long last = off + (unsigned long long)(cols - 1) * (unsigned)ld + (unsigned)rows;
  return last * esize <= m->size;
}

static float load(cl_mem m, size_t at, size_t esize)
{
  if (esize == 4) {
    float v;
    memcpy(&v, m->ptr + at * 4, 4);
    return v;
  }
  uint16_t h;
  memcpy(&h, m->ptr + at * 2, 2);
  return half_to_float(h);
}

static void store(cl_mem m, size_t at, size_t esize, float v)
{
  if (esize == 4) {
    memcpy(m->ptr + at * 4, &v, 4);
  } else {
    uint16_t h = float_to_half(v);
    memcpy(m->ptr + at * 2, &h, 2);
  }
}

cl_int hopstub_gemm(const struct _cl_kernel *k)
{
  if (k->which == 3)
    return CL_INVALID_KERNEL;
  for (int i = 0; i < 19; i++)
    if (k->arg_size[i] == 0)
      return CL_INVALID_KERNEL_ARGS;
  int m = arg_int(k, 0), n = arg_int(k, 1), kk = arg_int(k, 2);
  float alpha = arg_float(k, 3), beta = arg_float(k, 12);
  cl_mem a = arg_mem(k, 4), b = arg_mem(k, 8), cin = arg_mem(k, 13), cout = arg_mem(k, 16);
  cl_ulong aoff = arg_ulong(k, 5), boff = arg_ulong(k, 9), cioff = arg_ulong(k, 14),
           cooff = arg_ulong(k, 17);
  int lda = arg_int(k, 6), ta = arg_int(k, 7), ldb = arg_int(k, 10), tb = arg_int(k, 11),
      ldci = arg_int(k, 15), ldco = arg_int(k, 18);
  size_t eab = k->which == 0 ? 4 : 2, ec = k->which == 1 ? 2 : 4;
  if (m < 1 || n < 1 || kk < 1 || !inside(a, aoff, lda, ta ? kk : m, ta ? m : kk, eab) ||
      !inside(b, boff, ldb, tb ? n : kk, tb ? kk : n, eab) ||
      (beta != 0.0f && !inside(cin, cioff, ldci, m, n, ec)) ||
      !inside(cout, cooff, ldco, m, n, ec)) {
    fprintf(stderr, "hopstub: kernel arguments reach outside their buffers (m=%d n=%d k=%d)\n", m,
            n, kk);
    return CL_INVALID_KERNEL_ARGS;
  }
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      float acc = 0.0f;
      for (int l = 0; l < kk; l++) {
        size_t ai = aoff + (ta ? (size_t)i * lda + l : (size_t)l * lda + i);
        size_t bi = boff + (tb ? (size_t)l * ldb + j : (size_t)j * ldb + l);
        acc = fmaf(load(a, ai, eab), load(b, bi, eab), acc);
      }
      float v = alpha * acc;
      if (beta != 0.0f)
        v += beta * load(cin, cioff + (size_t)j * ldci + i, ec);
      store(cout, cooff + (size_t)j * ldco + i, ec, v);
    }
  return CL_SUCCESS;
}
