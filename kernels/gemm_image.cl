/* What the image families share (kernels/gemm_adreno.cl and
 * kernels/gemm_mali.cl are built after this file, as one program).
 *
 * Column-major C = alpha * op(A) * op(B) + beta * C.  The host packs op(A)
 * and op(B) into a k-major layout (backends/opencl/image.c): row y of an
 * operand holds k index y, and one texel (CL_RGBA) holds 4 consecutive
 * elements along the operand's output dimension: rows of C for A, columns
 * of C for B.  Transposes, leading dimensions, offsets and edges are
 * absorbed by that packing: the rows are padded with zeros to whole
 * micro-tiles and the height to whole k steps, so every read of a live
 * work-item is inside the packed region and needs no bounds check.
 *
 * Work-item (gx, gy) owns the TM x TN micro-tile of C at row gx*TM and
 * column gy*TN: RA = TM/4 texels of A and RB = TN/4 texels of B per k.
 * acc[r][j] is the float4 of rows gx*TM + 4r .. +3 of column gy*TN + j.
 *
 * C goes through a buffer; beta == 0 never reads it, so NaN there cannot
 * propagate.  Storage may be half (CL_HALF_FLOAT images, half buffers):
 * read_imagef and vload_half convert without cl_khr_fp16.  HALF_MATH
 * (only where the device has cl_khr_fp16, or emulated for tests) does the
 * products in half: 1 sums each k step's products in half and adds them to
 * float accumulators; 2 keeps the accumulators in half too. */

#ifndef TM
#define TM 4 /* rows of C per work-item: 4 or 8 */
#endif
#ifndef TN
#define TN 8 /* columns of C per work-item: 4 or 8 */
#endif
#ifndef HALF_MATH
#define HALF_MATH 0
#endif
#ifndef EMULATE_FP16
#define EMULATE_FP16 0 /* tests only: half arithmetic done in float, rounded to half */
#endif

#if (TM != 4 && TM != 8) || (TN != 4 && TN != 8)
#error "TM and TN must be 4 or 8"
#endif
#define RA (TM / 4)
#define RB (TN / 4)

/* Integer coordinates, no filtering; never out of range (see above). */
__constant sampler_t hop_smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

#define READ_F(img, x, y) read_imagef(img, hop_smp, (int2)(x, y))

/* ---- half arithmetic ---------------------------------------------------
 * hvec is a half4 where the device computes in half; under EMULATE_FP16 a
 * float4 whose every result is rounded to half, as the hardware would
 * (products of halves are exact in float, so only the rounding differs). */
#if HALF_MATH && !EMULATE_FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half4 hvec;
typedef half hscal;
#define READ_H(img, x, y) read_imageh(img, hop_smp, (int2)(x, y))
#define LOAD_HB(p, x) vload4(x, p)
#define HROUND(v) (v)
#define TO_F(v) convert_float4(v)
#elif HALF_MATH
typedef float4 hvec;
typedef float hscal;
#define READ_H(img, x, y) read_imagef(img, hop_smp, (int2)(x, y))
#define LOAD_HB(p, x) vload_half4(x, p)
#define TO_F(v) (v)
static inline float4 hop_round_half(float4 v)
{
  ushort bits[4];
  vstore_half4_rte(v, 0, (__private half *)bits);
  return vload_half4(0, (const __private half *)bits);
}
#define HROUND(v) hop_round_half(v)
#endif

/* ---- C = alpha * acc + beta * C -------------------------------------- */

static inline void store_c_s(float4 acc[RA][TN], int m, int n, int i0, int j0, float alpha,
                             float beta, const __global float *cin, ulong cin_off, int ldcin,
                             __global float *cout, ulong cout_off, int ldcout)
{
  for (int j = 0; j < TN && j0 + j < n; j++)
    for (int r = 0; r < RA && i0 + 4 * r < m; r++) {
      const int row = i0 + 4 * r;
      const ulong in = cin_off + (ulong)(j0 + j) * (ulong)ldcin + (ulong)row;
      const ulong out = cout_off + (ulong)(j0 + j) * (ulong)ldcout + (ulong)row;
      float4 v = alpha * acc[r][j];
      if (row + 4 <= m) {
        if (beta != 0.0f)
          v += beta * vload4(0, cin + in);
        vstore4(v, 0, cout + out);
      } else {
        float e[4];
        vstore4(v, 0, e);
        for (int q = 0; row + q < m; q++)
          cout[out + q] = beta != 0.0f ? e[q] + beta * cin[in + q] : e[q];
      }
    }
}

static inline void store_c_h(float4 acc[RA][TN], int m, int n, int i0, int j0, float alpha,
                             float beta, const __global half *cin, ulong cin_off, int ldcin,
                             __global half *cout, ulong cout_off, int ldcout)
{
  for (int j = 0; j < TN && j0 + j < n; j++)
    for (int r = 0; r < RA && i0 + 4 * r < m; r++) {
      const int row = i0 + 4 * r;
      const ulong in = cin_off + (ulong)(j0 + j) * (ulong)ldcin + (ulong)row;
      const ulong out = cout_off + (ulong)(j0 + j) * (ulong)ldcout + (ulong)row;
      float4 v = alpha * acc[r][j];
      if (row + 4 <= m) {
        if (beta != 0.0f)
          v += beta * vload_half4(0, cin + in);
        vstore_half4_rte(v, 0, cout + out);
      } else {
        float e[4];
        vstore4(v, 0, e);
        for (int q = 0; row + q < m; q++)
          vstore_half_rte(beta != 0.0f ? e[q] + beta * vload_half(0, cin + in + q) : e[q], 0,
                          cout + out + q);
      }
    }
}

static inline void zero_acc(float4 acc[RA][TN])
{
  for (int r = 0; r < RA; r++)
    for (int j = 0; j < TN; j++)
      acc[r][j] = (float4)(0.0f);
}

/* The C arguments every entry point ends with, and its first lines:
 * which micro-tile this work-item owns, or nothing to do. */
#define C_PARAMS(T)                                                                               \
  float beta, const __global T *cin, ulong cin_off, int ldcin, __global T *cout, ulong cout_off,  \
    int ldcout
#define OWN_TILE                                                                                  \
  const int gx = (int)get_global_id(0), gy = (int)get_global_id(1);                               \
  const int i0 = gx * TM, j0 = gy * TN;                                                           \
  if (i0 >= m || j0 >= n)                                                                         \
    return
