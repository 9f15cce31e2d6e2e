/* The mali family (after kernels/gemm_image.cl, which says how the
 * operands are packed).  Bifrost and Valhall do not give images their own
 * cache as Adreno does, but texture and load/store units fetch in
 * parallel, so one operand comes through image2d_t and the other through
 * a buffer (seed 000's Valhall kernel).  Which one is an image is a
 * tunable (IMAGE_A, IMAGE_B; both is allowed): the seed found Mali models
 * that prefer two textures.  Valhall's FMA unit does 16 fp32 or 32 fp16
 * fused multiply-adds a cycle, so products go through explicit fma(), and
 * k advances by 2 per iteration.  A buffer operand has the same k-major
 * layout as an image (pitch pa or pb elements per k, 4 per texel). */

#ifndef IMAGE_A
#define IMAGE_A 1
#endif
#ifndef IMAGE_B
#define IMAGE_B 0
#endif
#if !IMAGE_A && !IMAGE_B
#error "the mali family reads at least one operand through an image"
#endif

/* Texel x of k row y of a buffer operand; hs: half storage. */
static inline float4 load_buf(const __global void *p, int pitch, int x, int y, bool hs)
{
  const size_t row = (size_t)y * (size_t)pitch;
  return hs ? vload_half4(x, (const __global half *)p + row)
            : vload4(x, (const __global float *)p + row);
}

#if IMAGE_A
#define A_PARAM __read_only image2d_t a
#define LOAD_A(x, y, hs) READ_F(a, x, y)
#define LOAD_AH(x, y) READ_H(a, x, y)
#else
#define A_PARAM const __global void *a
#define LOAD_A(x, y, hs) load_buf(a, pa, x, y, hs)
#define LOAD_AH(x, y) LOAD_HB((const __global half *)a + (size_t)(y) * (size_t)pa, x)
#endif
#if IMAGE_B
#define B_PARAM __read_only image2d_t b
#define LOAD_B(x, y, hs) READ_F(b, x, y)
#define LOAD_BH(x, y) READ_H(b, x, y)
#else
#define B_PARAM const __global void *b
#define LOAD_B(x, y, hs) load_buf(b, pb, x, y, hs)
#define LOAD_BH(x, y) LOAD_HB((const __global half *)b + (size_t)(y) * (size_t)pb, x)
#endif

/* acc[0..3] = fma(a, each of b's 4 columns, acc[0..3]). */
static inline void fma_outer(float4 *acc, float4 a, float4 b)
{
  acc[0] = fma(a, (float4)(b.x), acc[0]);
  acc[1] = fma(a, (float4)(b.y), acc[1]);
  acc[2] = fma(a, (float4)(b.z), acc[2]);
  acc[3] = fma(a, (float4)(b.w), acc[3]);
}

static inline void mali_float(A_PARAM, int pa, B_PARAM, int pb, bool hs, int kp, int gx, int gy,
                              float4 acc[RA][TN])
{
  zero_acc(acc);
  for (int kk = 0; kk < kp; kk += 2) {
    float4 a0[RA], a1[RA], b0[RB], b1[RB];
    for (int r = 0; r < RA; r++) {
      a0[r] = LOAD_A(gx * RA + r, kk, hs);
      a1[r] = LOAD_A(gx * RA + r, kk + 1, hs);
    }
    for (int s = 0; s < RB; s++) {
      b0[s] = LOAD_B(gy * RB + s, kk, hs);
      b1[s] = LOAD_B(gy * RB + s, kk + 1, hs);
    }
    for (int r = 0; r < RA; r++)
      for (int s = 0; s < RB; s++) {
        fma_outer(&acc[r][4 * s], a0[r], b0[s]);
        fma_outer(&acc[r][4 * s], a1[r], b1[s]);
      }
  }
}

#if HALF_MATH
/* c[0..3] = fma in half, rounded as the hardware rounds. */
static inline void hfma_outer(hvec *c, hvec a, hvec b)
{
  c[0] = HROUND(fma(a, (hvec)(b.x), c[0]));
  c[1] = HROUND(fma(a, (hvec)(b.y), c[1]));
  c[2] = HROUND(fma(a, (hvec)(b.z), c[2]));
  c[3] = HROUND(fma(a, (hvec)(b.w), c[3]));
}

/* Half products; HALF_MATH 1 adds each 2-step half sum to float
 * accumulators, HALF_MATH 2 accumulates in half all along. */
static inline void mali_half(A_PARAM, int pa, B_PARAM, int pb, int kp, int gx, int gy,
                             float4 acc[RA][TN])
{
  hvec hacc[RA][TN];
  for (int r = 0; r < RA; r++)
    for (int j = 0; j < TN; j++)
      hacc[r][j] = (hvec)(0);
  zero_acc(acc);
  for (int kk = 0; kk < kp; kk += 2) {
    hvec a0[RA], a1[RA], b0[RB], b1[RB];
    for (int r = 0; r < RA; r++) {
      a0[r] = LOAD_AH(gx * RA + r, kk);
      a1[r] = LOAD_AH(gx * RA + r, kk + 1);
    }
    for (int s = 0; s < RB; s++) {
      b0[s] = LOAD_BH(gy * RB + s, kk);
      b1[s] = LOAD_BH(gy * RB + s, kk + 1);
    }
    for (int r = 0; r < RA; r++)
      for (int s = 0; s < RB; s++) {
#if HALF_MATH == 2
        hfma_outer(&hacc[r][4 * s], a0[r], b0[s]);
        hfma_outer(&hacc[r][4 * s], a1[r], b1[s]);
#else
        hvec p[4] = {(hvec)(0), (hvec)(0), (hvec)(0), (hvec)(0)};
        hfma_outer(p, a0[r], b0[s]);
        hfma_outer(p, a1[r], b1[s]);
        for (int q = 0; q < 4; q++)
          acc[r][4 * s + q] += TO_F(p[q]);
#endif
      }
  }
#if HALF_MATH == 2
  for (int r = 0; r < RA; r++)
    for (int j = 0; j < TN; j++)
      acc[r][j] = TO_F(hacc[r][j]);
#endif
}
#define MALI_HALF(a, pa, b, pb, kp, gx, gy, acc) mali_half(a, pa, b, pb, kp, gx, gy, acc)
#else
#define MALI_HALF(a, pa, b, pb, kp, gx, gy, acc) mali_float(a, pa, b, pb, true, kp, gx, gy, acc)
#endif

/* ---- entry points ------------------------------------------------------ */

__kernel void sgemm_mali(int m, int n, int kp, float alpha, A_PARAM, int pa, B_PARAM, int pb,
                         C_PARAMS(float))
{
  OWN_TILE;
  float4 acc[RA][TN];
  mali_float(a, pa, b, pb, false, kp, gx, gy, acc);
  store_c_s(acc, m, n, i0, j0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}

__kernel void hgemm_mali(int m, int n, int kp, float alpha, A_PARAM, int pa, B_PARAM, int pb,
                         C_PARAMS(half))
{
  OWN_TILE;
  float4 acc[RA][TN];
  MALI_HALF(a, pa, b, pb, kp, gx, gy, acc);
  store_c_h(acc, m, n, i0, j0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}

__kernel void shgemm_mali(int m, int n, int kp, float alpha, A_PARAM, int pa, B_PARAM, int pb,
                          C_PARAMS(float))
{
  OWN_TILE;
  float4 acc[RA][TN];
  MALI_HALF(a, pa, b, pb, kp, gx, gy, acc);
  store_c_s(acc, m, n, i0, j0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}
