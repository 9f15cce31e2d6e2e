/* Plain OpenCL C stand-ins for the PTX instructions of the nv_*_mma and
 * nv_sgemm_3xtf32 kernels, with the same per-lane fragment layouts, so that
 * everything around the instructions (tiles, fragment addressing, edges,
 * transposes) can be checked on PoCL.  Put this file in front of the kernel
 * source in place of kernels/nv_ptx.cl, whose names it defines:
 * clprobe -f kernels/nv_mma_emu.cl -f kernels/nv_....cl
 *
 * A warp is 32 consecutive work-items of a one-dimensional work-group.
 * Lanes exchange registers through a per-warp local scratch area; every
 * stand-in holds two work-group barriers, which is legal because the
 * kernels execute them in uniform control flow.  The layouts follow the
 * PTX ISA's figures for mma.m16n8k16 (.f16), mma.m16n8k8 (.tf32) and
 * ldmatrix.m8n8.x4 (g = lane / 4, t = lane % 4):
 *   f16 A: reg j holds row g + 8 (j & 1), columns 2t + 8 (j >> 1) + {0, 1}
 *   f16 B: reg j holds column g, rows 2t + 8 j + {0, 1}
 *   tf32 A: reg j holds row g + 8 (j & 1), column t + 4 (j >> 1)
 *   tf32 B: reg j holds column g, row t + 4 j
 *   C/D: element e is row g + 8 (e >> 1), column 2t + (e & 1)
 *   ldmatrix: lanes 8i..8i+7 give the row addresses of matrix i; lane l
 *   gets row l / 4, columns 2 (l % 4) + {0, 1} of matrix i (transposed
 *   with .trans) in register i. */

#define NV_SCRATCH_WORDS 384 /* per warp: 6 x 32 mma registers of 64 bits (f64), or of 32 and row offsets */
#define NV_SCRATCH_DECL __local uint nv_scratch[NT / 32 * NV_SCRATCH_WORDS];
#define NV_SCRATCH_PARAM , __local uint *nv_scratch
#define NV_SCRATCH , nv_scratch

static inline __local uint *nv_emu_warp(__local uint *scratch)
{
  return scratch + get_local_id(0) / 32 * NV_SCRATCH_WORDS;
}

static inline void nv_emu_put(__local uint *w, uint4 a, uint2 b)
{
  const int lane = (int)get_local_id(0) % 32;
  w[lane] = a.x, w[32 + lane] = a.y, w[64 + lane] = a.z, w[96 + lane] = a.w;
  w[128 + lane] = b.x, w[160 + lane] = b.y;
  barrier(CLK_LOCAL_MEM_FENCE);
}

static inline void nv_mma_f16(float4 *d, uint4 a, uint2 b NV_SCRATCH_PARAM)
{
  __local uint *w = nv_emu_warp(nv_scratch);
  nv_emu_put(w, a, b);
  const int lane = (int)get_local_id(0) % 32, g = lane / 4, t = lane % 4;
  float acc[4] = {d->x, d->y, d->z, d->w};
  for (int e = 0; e < 4; e++) {
    const int row = g + (e >> 1) * 8, col = 2 * t + (e & 1);
    for (int kk = 0; kk < 16; kk++) {
      const int aw = (row / 8 + 2 * (kk / 8)) * 32 + row % 8 * 4 + kk % 8 / 2;
      const int bw = (4 + kk / 8) * 32 + col * 4 + kk % 8 / 2;
      acc[e] = fma(vload_half(2 * aw + (kk & 1), (const __local half *)w),
                   vload_half(2 * bw + (kk & 1), (const __local half *)w), acc[e]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *d = (float4)(acc[0], acc[1], acc[2], acc[3]);
}

static inline float nv_emu_tf32(uint word) { return as_float(word & 0xffffe000u); }

static inline void nv_mma_tf32(float4 *d, uint4 a, uint2 b NV_SCRATCH_PARAM)
{
  __local uint *w = nv_emu_warp(nv_scratch);
  nv_emu_put(w, a, b);
  const int lane = (int)get_local_id(0) % 32, g = lane / 4, t = lane % 4;
  float acc[4] = {d->x, d->y, d->z, d->w};
  for (int e = 0; e < 4; e++) {
    const int row = g + (e >> 1) * 8, col = 2 * t + (e & 1);
    for (int kk = 0; kk < 8; kk++) {
      const int aw = (row / 8 + 2 * (kk / 4)) * 32 + row % 8 * 4 + kk % 4;
      const int bw = (4 + kk / 4) * 32 + col * 4 + kk % 4;
      acc[e] = fma(nv_emu_tf32(w[aw]), nv_emu_tf32(w[bw]), acc[e]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *d = (float4)(acc[0], acc[1], acc[2], acc[3]);
}

/* cvt.rna.tf32.f32: round the 13 dropped mantissa bits to nearest, ties
 * away from zero. */
static inline uint nv_tf32(float x)
{
  return isnan(x) ? as_uint(x) | 0x400000u : (as_uint(x) + 0x1000u) & 0xffffe000u;
}

static inline uint nv_emu_pair(const __local ushort *t, int lo, int hi)
{
  return (uint)t[lo] | (uint)t[hi] << 16;
}

/* ldmatrix.sync.aligned.m8n8.x4.shared.b16 at t + off (off per lane). */
static inline uint4 nv_ldsm_x4(const __local ushort *t, int off NV_SCRATCH_PARAM)
{
  __local int *w = (__local int *)nv_emu_warp(nv_scratch) + 192;
  const int lane = (int)get_local_id(0) % 32, row = lane / 4, col = lane % 4 * 2;
  w[lane] = off;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint r[4];
  for (int i = 0; i < 4; i++)
    r[i] = nv_emu_pair(t, w[8 * i + row] + col, w[8 * i + row] + col + 1);
  barrier(CLK_LOCAL_MEM_FENCE);
  return (uint4)(r[0], r[1], r[2], r[3]);
}

/* The same with .trans: lane l gets rows 2 (l % 4) + {0, 1}, column l / 4. */
static inline uint4 nv_ldsm_x4_trans(const __local ushort *t, int off NV_SCRATCH_PARAM)
{
  __local int *w = (__local int *)nv_emu_warp(nv_scratch) + 192;
  const int lane = (int)get_local_id(0) % 32, row = lane % 4 * 2, col = lane / 4;
  w[lane] = off;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint r[4];
  for (int i = 0; i < 4; i++)
    r[i] = nv_emu_pair(t, w[8 * i + row] + col, w[8 * i + row + 1] + col);
  barrier(CLK_LOCAL_MEM_FENCE);
  return (uint4)(r[0], r[1], r[2], r[3]);
}

/* cp.async.cg.shared.global with a source size: done at once here, so
 * commit and wait have nothing to do. */
static inline void nv_cp16(__local void *t, const __global void *p, int bytes)
{
  __local uchar *d = (__local uchar *)t;
  const __global uchar *s = (const __global uchar *)p;
  for (int i = 0; i < 16; i++)
    d[i] = i < bytes ? s[i] : (uchar)0;
}

static inline void nv_cp_commit(void) {}
static inline void nv_cp_wait(void) {}

/* fma.rn.f16x2: d = a * b + c on the two halves of each word (low half
 * first), in float and rounded to half (the product of two halves is
 * exact in float; the sum is rounded twice, which the tests' tolerance for
 * half accumulation absorbs). */
static inline uint nv_hfma2(uint a, uint b, uint c)
{
  ushort in[6] = {(ushort)a, (ushort)(a >> 16), (ushort)b, (ushort)(b >> 16), (ushort)c,
                  (ushort)(c >> 16)};
  ushort out[2];
  for (int h = 0; h < 2; h++) {
    const float r = fma(vload_half(h, (const half *)in), vload_half(2 + h, (const half *)in),
                        vload_half(4 + h, (const half *)in));
    vstore_half_rte(r, h, (half *)out);
  }
  return (uint)out[0] | (uint)out[1] << 16;
}

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* m16n8k8 in double: registers as for .tf32 above, one double each. */
static inline void nv_mma_f64(double4 *d, double4 a, double2 b NV_SCRATCH_PARAM)
{
  __local double *w = (__local double *)nv_emu_warp(nv_scratch);
  const int lane = (int)get_local_id(0) % 32, g = lane / 4, t = lane % 4;
  w[lane] = a.x, w[32 + lane] = a.y, w[64 + lane] = a.z, w[96 + lane] = a.w;
  w[128 + lane] = b.x, w[160 + lane] = b.y;
  barrier(CLK_LOCAL_MEM_FENCE);
  double acc[4] = {d->x, d->y, d->z, d->w};
  for (int e = 0; e < 4; e++) {
    const int row = g + (e >> 1) * 8, col = 2 * t + (e & 1);
    for (int kk = 0; kk < 8; kk++) {
      const int ra = (row >= 8) + 2 * (kk >= 4), la = row % 8 * 4 + kk % 4;
      const int rb = kk >= 4, lb = col * 4 + kk % 4;
      acc[e] = fma(w[ra * 32 + la], w[(4 + rb) * 32 + lb], acc[e]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *d = (double4)(acc[0], acc[1], acc[2], acc[3]);
}
#endif
