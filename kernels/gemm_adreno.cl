/* The adreno family (after kernels/gemm_image.cl, which says how the
 * operands are packed).  On Adreno, reads of image2d_t go through the
 * texture processor and its L1 cache while buffer reads only reach L2, so
 * both A and B are images (seed 000; Qualcomm's own kernel, seed 002, kept
 * one operand in a buffer, and later measurements preferred two).  Like
 * Qualcomm's kernel, each work-item keeps a TM x TN micro-tile (4x8 by
 * default, 4x4 and 8x4/8x8 as tunables) in registers and steps k by 4: per
 * step it reads 4*(RA + RB) texels and does 4*TM*TN multiply-adds.
 * Products are summed with `a * b + c`, never fma(): Qualcomm documents
 * fma() as emulated in software on Adreno, and the compiler contracts the
 * expression where the hardware has a fused unit. */

/* acc[0..3] += the 4 columns of b (one texel per k) times a (4 rows per k):
 * the four k of a step summed first, as in Qualcomm's kernel. */
static inline void step4(float4 *acc, const float4 a[4], const float4 b[4])
{
  acc[0] += a[0] * b[0].x + a[1] * b[1].x + a[2] * b[2].x + a[3] * b[3].x;
  acc[1] += a[0] * b[0].y + a[1] * b[1].y + a[2] * b[2].y + a[3] * b[3].y;
  acc[2] += a[0] * b[0].z + a[1] * b[1].z + a[2] * b[2].z + a[3] * b[3].z;
  acc[3] += a[0] * b[0].w + a[1] * b[1].w + a[2] * b[2].w + a[3] * b[3].w;
}

static inline void adreno_float(__read_only image2d_t a, __read_only image2d_t b, int kp, int gx,
                                int gy, float4 acc[RA][TN])
{
  zero_acc(acc);
  for (int kk = 0; kk < kp; kk += 4) {
    float4 av[RA][4], bv[RB][4];
#pragma unroll
    for (int t = 0; t < 4; t++) {
      for (int r = 0; r < RA; r++)
        av[r][t] = READ_F(a, gx * RA + r, kk + t);
      for (int s = 0; s < RB; s++)
        bv[s][t] = READ_F(b, gy * RB + s, kk + t);
    }
    for (int r = 0; r < RA; r++)
      for (int s = 0; s < RB; s++)
        step4(&acc[r][4 * s], av[r], bv[s]);
  }
}

#if HALF_MATH
/* c + the 4 products of one k step, in half (rounded after every operation). */
static inline hvec hstep(hvec c, const hvec a[4], hscal b0, hscal b1, hscal b2,
                         hscal b3)
{
  c = HROUND(a[0] * b0 + c);
  c = HROUND(a[1] * b1 + c);
  c = HROUND(a[2] * b2 + c);
  return HROUND(a[3] * b3 + c);
}

/* Half products; HALF_MATH 1 adds each step's half sum to float
 * accumulators, HALF_MATH 2 accumulates in half all along. */
static inline void adreno_half(__read_only image2d_t a, __read_only image2d_t b, int kp, int gx,
                               int gy, float4 acc[RA][TN])
{
  hvec hacc[RA][TN];
  for (int r = 0; r < RA; r++)
    for (int j = 0; j < TN; j++)
      hacc[r][j] = (hvec)(0);
  zero_acc(acc);
  for (int kk = 0; kk < kp; kk += 4) {
    hvec av[RA][4], bv[RB][4];
#pragma unroll
    for (int t = 0; t < 4; t++) {
      for (int r = 0; r < RA; r++)
        av[r][t] = READ_H(a, gx * RA + r, kk + t);
      for (int s = 0; s < RB; s++)
        bv[s][t] = READ_H(b, gy * RB + s, kk + t);
    }
    for (int r = 0; r < RA; r++)
      for (int s = 0; s < RB; s++) {
        const hvec *bs = bv[s];
        hvec *h = &hacc[r][4 * s];
#if HALF_MATH == 2
        h[0] = hstep(h[0], av[r], bs[0].x, bs[1].x, bs[2].x, bs[3].x);
        h[1] = hstep(h[1], av[r], bs[0].y, bs[1].y, bs[2].y, bs[3].y);
        h[2] = hstep(h[2], av[r], bs[0].z, bs[1].z, bs[2].z, bs[3].z);
        h[3] = hstep(h[3], av[r], bs[0].w, bs[1].w, bs[2].w, bs[3].w);
#else
        float4 *f = &acc[r][4 * s];
        f[0] += TO_F(hstep((hvec)(0), av[r], bs[0].x, bs[1].x, bs[2].x, bs[3].x));
        f[1] += TO_F(hstep((hvec)(0), av[r], bs[0].y, bs[1].y, bs[2].y, bs[3].y));
        f[2] += TO_F(hstep((hvec)(0), av[r], bs[0].z, bs[1].z, bs[2].z, bs[3].z));
        f[3] += TO_F(hstep((hvec)(0), av[r], bs[0].w, bs[1].w, bs[2].w, bs[3].w));
#endif
      }
  }
#if HALF_MATH == 2
  for (int r = 0; r < RA; r++)
    for (int j = 0; j < TN; j++)
      acc[r][j] = TO_F(hacc[r][j]);
#endif
}
#define ADRENO_HALF adreno_half
#else
#define ADRENO_HALF adreno_float /* half images read as float: no cl_khr_fp16 needed */
#endif

/* ---- entry points: pa and pb (buffer pitches) are unused here, kept so
 * that both image families take the same arguments. */

__kernel void sgemm_adreno(int m, int n, int kp, float alpha, __read_only image2d_t a, int pa,
                           __read_only image2d_t b, int pb, C_PARAMS(float))
{
  OWN_TILE;
  float4 acc[RA][TN];
  adreno_float(a, b, kp, gx, gy, acc);
  store_c_s(acc, m, n, i0, j0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}

__kernel void hgemm_adreno(int m, int n, int kp, float alpha, __read_only image2d_t a, int pa,
                           __read_only image2d_t b, int pb, C_PARAMS(half))
{
  OWN_TILE;
  float4 acc[RA][TN];
  ADRENO_HALF(a, b, kp, gx, gy, acc);
  store_c_h(acc, m, n, i0, j0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}

__kernel void shgemm_adreno(int m, int n, int kp, float alpha, __read_only image2d_t a, int pa,
                            __read_only image2d_t b, int pb, C_PARAMS(float))
{
  OWN_TILE;
  float4 acc[RA][TN];
  ADRENO_HALF(a, b, kp, gx, gy, acc);
  store_c_s(acc, m, n, i0, j0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}
