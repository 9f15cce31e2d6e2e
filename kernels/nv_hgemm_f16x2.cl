/* hgemm and shgemm with half arithmetic on NVIDIA: `fma.rn.f16x2` through
 * inline PTX, two rows of C per instruction, the accumulators in half.
 * The opt-in HOPBLAS_OPENCL_FP16=accumulate path of the nvidia family
 * (backends/opencl/nvidia.c): its error grows as k times the half unit
 * roundoff, beyond the contract's float bound, so it is never the default;
 * the tensor-core kernel (nv_hgemm_mma.cl) accumulates in float.
 *
 * Column-major C = alpha * op(A) * op(B) + beta * C, any m, n, k, leading
 * dimension and element offset, the generic family's signature; the half
 * sums are widened to float for alpha, beta and the store (a half C is
 * rounded once more, to nearest even).  beta == 0 never reads cin.
 *
 * Launch: local size (256, 1), global size (ceil(m / 128) * 256,
 * ceil(n / 128)).  Work-item (x, y) = (id % 16, id / 16) owns rows
 * 2x + 32i + {0, 1} (i < 4, one half2 each) and columns y + 16j (j < 8) of
 * the work-group's 128 x 128 tile.  Both operand tiles sit k-major in
 * local memory as half bits: a pair of rows is one 32-bit read, a column
 * value is broadcast to both halves of a half2. */

#define MWG 128
#define NWG 128
#define KWG 16
#define NT 256
#define PITCHA (MWG + 2) /* halves per k-row of the A tile (keeps pairs 32-bit aligned) */
#define PITCHB (NWG + 2)

/* nv_hfma2 (fma.rn.f16x2) comes from kernels/nv_ptx.cl, or its stand-in from
 * kernels/nv_mma_emu.cl, put in front of this file. */

/* op(X)(u, v) of a stored column-major matrix, as half bits; 0 outside. */
static inline ushort nv_f16_at(const __global ushort *x, ulong off, int ld, int t, int rows,
                               int cols, int u, int v)
{
  if (u >= rows || v >= cols)
    return 0;
  return t ? x[off + (ulong)u * (ulong)ld + (ulong)v] : x[off + (ulong)v * (ulong)ld + (ulong)u];
}

/* The half2 sums of the work-group's tile at (m0, n0): acc[j][i]. */
static inline void nv_f16x2_tile(int m, int n, int k, const __global ushort *a, ulong a_off,
                                 int lda, int ta, const __global ushort *b, ulong b_off, int ldb,
                                 int tb, int m0, int n0, __local ushort *at, __local ushort *bt,
                                 uint acc[8][4])
{
  const int tid = (int)get_local_id(0), x = tid % 16, y = tid / 16;
  for (int k0 = 0; k0 < k; k0 += KWG) {
    /* 128 x 16 of op(A) and 16 x 128 of op(B), 8 elements each per item,
     * consecutive items on consecutive rows (A) or columns (B). */
    for (int e = tid; e < MWG * KWG; e += NT) {
      const int r = e % MWG, kk = e / MWG;
      at[kk * PITCHA + r] = nv_f16_at(a, a_off, lda, ta, m, k, m0 + r, k0 + kk);
    }
    for (int e = tid; e < NWG * KWG; e += NT) {
      const int kk = e % KWG, c = e / KWG;
      bt[kk * PITCHB + c] = nv_f16_at(b, b_off, ldb, tb, k, n, k0 + kk, n0 + c);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll 4
    for (int kk = 0; kk < KWG; kk++) {
      uint av[4];
#pragma unroll
      for (int i = 0; i < 4; i++)
        av[i] = *(const __local uint *)(at + kk * PITCHA + 2 * x + 32 * i);
#pragma unroll
      for (int j = 0; j < 8; j++) {
        const uint bv = (uint)bt[kk * PITCHB + y + 16 * j];
        const uint bb = bv | bv << 16;
#pragma unroll
        for (int i = 0; i < 4; i++)
          acc[j][i] = nv_hfma2(av[i], bb, acc[j][i]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/* Half bits to float (vload_half from a private copy). */
static inline float nv_f16_float(uint bits)
{
  const ushort h = (ushort)bits;
  return vload_half(0, (const half *)&h);
}

#define NV_F16X2_BODY(STORE)                                                                     \
  __local uint at32[KWG * PITCHA / 2], bt32[KWG * PITCHB / 2]; /* 32-bit aligned pairs */         \
  __local ushort *at = (__local ushort *)at32, *bt = (__local ushort *)bt32;                     \
  const int tid = (int)get_local_id(0), x = tid % 16, y = tid / 16;                              \
  const int m0 = (int)get_group_id(0) * MWG, n0 = (int)get_group_id(1) * NWG;                    \
  uint acc[8][4];                                                                                \
  for (int j = 0; j < 8; j++)                                                                    \
    for (int i = 0; i < 4; i++)                                                                  \
      acc[j][i] = 0u;                                                                            \
  nv_f16x2_tile(m, n, k, (const __global ushort *)a, a_off, lda, ta, (const __global ushort *)b, \
                b_off, ldb, tb, m0, n0, at, bt, acc);                                            \
  for (int j = 0; j < 8; j++) {                                                                  \
    const int col = n0 + y + 16 * j;                                                             \
    for (int i = 0; i < 4; i++)                                                                  \
      for (int q = 0; q < 2; q++) {                                                              \
        const int row = m0 + 2 * x + 32 * i + q;                                                 \
        if (row < m && col < n) {                                                                \
          float v = alpha * nv_f16_float(acc[j][i] >> (16 * q));                                 \
          STORE                                                                                  \
        }                                                                                        \
      }                                                                                          \
  }

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void hgemm_nv_f16x2(
  int m, int n, int k, float alpha, const __global half *a, ulong a_off, int lda, int ta,
  const __global half *b, ulong b_off, int ldb, int tb, float beta, const __global half *cin,
  ulong cin_off, int ldcin, __global half *cout, ulong cout_off, int ldcout)
{
  NV_F16X2_BODY(
    if (beta != 0.0f) v = fma(beta, vload_half(0, cin + cin_off + (ulong)col * ldcin + row), v);
    vstore_half_rte(v, 0, cout + cout_off + (ulong)col * (ulong)ldcout + (ulong)row);)
}

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void shgemm_nv_f16x2(
  int m, int n, int k, float alpha, const __global half *a, ulong a_off, int lda, int ta,
  const __global half *b, ulong b_off, int ldb, int tb, float beta, const __global float *cin,
  ulong cin_off, int ldcin, __global float *cout, ulong cout_off, int ldcout)
{
  nv_split_k(&k, &a_off, lda, ta, &b_off, ldb, tb, &cout_off, ldcout, n, KWG); /* nv_split.cl */
  NV_F16X2_BODY(
    if (beta != 0.0f) v = fma(beta, cin[cin_off + (ulong)col * ldcin + row], v);
    cout[cout_off + (ulong)col * (ulong)ldcout + (ulong)row] = v;)
}
