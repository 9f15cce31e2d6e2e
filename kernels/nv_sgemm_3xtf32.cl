/* FP32 sgemm on NVIDIA tensor cores with fp32-level accuracy: 3xTF32.
 * Each fp32 operand x is split into tf32 parts hi = rna(x) and
 * lo = rna(x - hi), and a * b is taken as lo_a hi_b + hi_a lo_b + hi_a hi_b
 * by inline PTX `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`, all
 * accumulated in fp32.  The dropped lo_a lo_b and the rounding of lo are
 * each below 2^-22 |a b|.  Builds only where the compiler takes PTX
 * (NVIDIA, sm_80 or later); kernels/nv_probe.cl says whether it does.
 *
 * Inf and NaN propagate as in the fp32 reference: for a non-finite x the
 * split is (hi, mid, lo) = (x, 0, 0) and the cross terms use `mid` (which
 * equals hi for finite x), so an Inf never meets a zero lo part.
 *
 * Column-major C = alpha * op(A) * op(B) + beta * C for any m, n, k,
 * leading dimension and element offset, with the generic family's
 * signature (kernels/gemm_generic.cl); C is read from `cin` and written to
 * `cout`, and beta == 0 never reads cin.
 *
 * Launch: local size (WARPM * WARPN * 32, 1), global size
 * (ceil(m / MWG) * WARPM * WARPN * 32, ceil(n / NWG)).
 *
 * Tiles and pipeline as in kernels/nv_hgemm_mma.cl: A and B copied into
 * local memory as stored, by cp.async into a ring of NSTAGES slots (through
 * registers when not 16-byte aligned), one barrier per KWG step, the main
 * loop compiled once per transpose pair.  Tiles inside C with aligned
 * operands take a copy of it unrolled by NSTAGES (NV_FAST) that copies whole
 * k steps without bounds checks; the bounds code was a quarter of a step's
 * instructions.  (In hgemm one loop serves both; here two loops measured
 * 2.5% faster than one, README.md.)  Fragments are read with plain
 * local loads; the pitches (m or n extent + 8, k extent + 4) put the 32
 * lanes of every fragment load in 32 distinct banks. */

#ifndef MWG
#define MWG 128 /* rows of C per work-group */
#endif
#ifndef NWG
#define NWG 128 /* columns of C per work-group */
#endif
#ifndef KWG
#define KWG 8 /* k per local-memory tile (a multiple of 8) */
#endif
#ifndef WARPM
#define WARPM 2 /* warps along m */
#endif
#ifndef WARPN
#define WARPN 2 /* warps along n */
#endif
#ifndef GROUPM
#define GROUPM 8 /* work-groups along m that run side by side (L2 reuse of B) */
#endif
#ifndef NSTAGES
#define NSTAGES 4 /* tile pairs in the local-memory ring (2, 3 or 4) */
#endif
#ifndef NV_CPASYNC
#define NV_CPASYNC 1 /* 1: tiles by cp.async; 0: synchronously through registers */
#endif
#ifndef NV_FAST
/* 1: work-groups whose tile lies inside C, with 16-byte aligned operands,
 * run a main loop unrolled by NSTAGES (ring slots at constant offsets) that
 * copies whole k steps by unconditional cp.async from precomputed
 * addresses: fewer instructions per mma.  0: every tile takes the general
 * loop. */
#define NV_FAST 1
#endif
/* NV_TA, NV_TB (0 or 1, both or neither): compile the main loop for that
 * transpose pair only, a quarter of the code and build time. */

#define NT (WARPM * WARPN * 32)
#define WTM (MWG / WARPM) /* a warp's rows */
#define WTN (NWG / WARPN) /* a warp's columns */
#define PITCH_KM (MWG + 8) /* A stored [k][m] (ta == 0) */
#define PITCH_MK (KWG + 4) /* A stored [m][k] (ta == 1) */
#define PITCH_NK (KWG + 4) /* B stored [n][k] (tb == 0) */
#define PITCH_KN (NWG + 8) /* B stored [k][n] (tb == 1) */
#define TILE_A (KWG * PITCH_KM > MWG * PITCH_MK ? KWG * PITCH_KM : MWG * PITCH_MK)
#define TILE_B (KWG * PITCH_KN > NWG * PITCH_NK ? KWG * PITCH_KN : NWG * PITCH_NK)
#define STAGE (TILE_A + TILE_B)
#define LOADS_A (MWG * KWG / 4 / NT) /* float4 loads per work-item per tile */
#define LOADS_B (NWG * KWG / 4 / NT)
#define LOADS_MAX (LOADS_A > LOADS_B ? LOADS_A : LOADS_B)

#if WTM % 16 != 0 || WTN % 8 != 0 || KWG % 8 != 0 || MWG % 32 != 0 || NWG % 32 != 0
#error "a warp's block must be whole 16 x 8 mma tiles, KWG a multiple of 8, MWG and NWG of 32"
#endif
#if LOADS_A * 4 * NT != MWG * KWG || LOADS_B * 4 * NT != NWG * KWG
#error "the tiles must split into whole float4 loads per work-item"
#endif
#if NSTAGES < 2 || NSTAGES > 4 || NSTAGES * STAGE * 4 > 49152
#error "NSTAGES must be 2, 3 or 4, and the ring fit in 48 KiB"
#endif

/* The PTX helpers (cvt.rna.tf32, mma.sync (tf32) and cp.async) come from kernels/nv_ptx.cl,
 * or their stand-ins from kernels/nv_mma_emu.cl, put in front of this file. */

#if !NV_CPASYNC /* tiles through registers: no copies in flight */
#undef nv_cp_wait
#define nv_cp_commit()
#define nv_cp_wait()
#endif

/* (hi, mid, lo) of one element. */
static inline uint3 nv_split(float x)
{
  const uint rounded = nv_tf32(x);
  const bool finite = isfinite(x);
  /* where rounding up overflowed, truncate instead */
  const uint hi = finite && isinf(as_float(rounded)) ? as_uint(x) & 0xffffe000u : rounded;
  return (uint3)(hi, finite ? hi : 0u, finite ? nv_tf32(x - as_float(hi)) : 0u);
}

static inline int2 nv_tile_of_group(int m, int n)
{
  const int gm = (m + MWG - 1) / MWG, gn = (n + NWG - 1) / NWG;
  const int pid = (int)(get_group_id(1) * get_num_groups(0) + get_group_id(0));
  const int band = GROUPM * gn;
  const int first = pid / band * GROUPM;
  const int rows = min(gm - first, GROUPM);
  return (int2)(first + pid % band % rows, pid % band / rows);
}

/* Fetch the TU x TV block at (u0, v0) of a stored column-major matrix x
 * (u contiguous, extent U x V) into registers, a float4 along u per load;
 * outside the matrix reads as zero. */
static inline void nv_fetch(float4 *r, const __global float *x, ulong off, int ld, int U, int V,
                            int u0, int v0, int TU, int TV, bool aligned)
{
  const int tid = (int)get_local_id(0);
  const bool inside = aligned && u0 + TU <= U && v0 + TV <= V;
#pragma unroll
  for (int i = 0; i < TU * TV / 4 / NT; i++) {
    const int s = tid + i * NT, u = s % (TU / 4) * 4, v = s / (TU / 4);
    const int gu = u0 + u, gv = v0 + v;
    const __global float *p = x + off + (ulong)gv * (ulong)ld + (ulong)gu;
    if (inside) {
      r[i] = *(const __global float4 *)p;
    } else {
      const bool col = gv < V;
      r[i] = (float4)(col && gu < U ? p[0] : 0.0f, col && gu + 1 < U ? p[1] : 0.0f,
                      col && gu + 2 < U ? p[2] : 0.0f, col && gu + 3 < U ? p[3] : 0.0f);
    }
  }
}

/* Store what nv_fetch got, as stored: t[v * pitch + u]. */
static inline void nv_stash(const float4 *r, __local float *t, int pitch, int TU, int TV)
{
  const int tid = (int)get_local_id(0);
#pragma unroll
  for (int i = 0; i < TU * TV / 4 / NT; i++) {
    const int s = tid + i * NT, u = s % (TU / 4) * 4, v = s / (TU / 4);
    *(__local float4 *)(t + v * pitch + u) = r[i];
  }
}

/* The TU x TV block at (u0, v0) of a stored matrix into the local tile t
 * (row pitch `pitch`), as stored: by cp.async when `aligned` (16-byte
 * vectors), else through registers.  Outside the matrix reads as zero. */
static inline void nv_load_one(__local float *t, int pitch, const __global float *x, ulong off,
                               int ld, int U, int V, int u0, int v0, int TU, int TV, bool aligned)
{
#if NV_CPASYNC
  if (aligned) {
    const int tid = (int)get_local_id(0);
#pragma unroll
    for (int i = 0; i < TU * TV / 4 / NT; i++) {
      const int s = tid + i * NT, u = s % (TU / 4) * 4, v = s / (TU / 4);
      const int gu = u0 + u, gv = v0 + v;
      const int bytes = gv < V ? clamp((U - gu) * 4, 0, 16) : 0;
      nv_cp16(t + v * pitch + u, x + off + (bytes > 0 ? (ulong)gv * (ulong)ld + (ulong)gu : 0ul),
              bytes);
    }
    return;
  }
#endif
  float4 r[LOADS_MAX];
  nv_fetch(r, x, off, ld, U, V, u0, v0, TU, TV, aligned);
  nv_stash(r, t, pitch, TU, TV);
}

/* Step k0 of A and B into the ring slot at `slot`. */
static inline void nv_load(__local float *slot, const __global float *a, ulong a_off, int lda,
                           const int ta, const __global float *b, ulong b_off, int ldb,
                           const int tb, int m, int n, int k, int m0, int n0, int k0)
{
  const bool a_vec = ((a_off | (ulong)lda) & 3) == 0, b_vec = ((b_off | (ulong)ldb) & 3) == 0;
  if (ta)
    nv_load_one(slot, PITCH_MK, a, a_off, lda, k, m, k0, m0, KWG, MWG, a_vec);
  else
    nv_load_one(slot, PITCH_KM, a, a_off, lda, m, k, m0, k0, MWG, KWG, a_vec);
  if (tb)
    nv_load_one(slot + TILE_A, PITCH_KN, b, b_off, ldb, n, k, n0, k0, NWG, KWG, b_vec);
  else
    nv_load_one(slot + TILE_A, PITCH_NK, b, b_off, ldb, k, n, k0, n0, KWG, NWG, b_vec);
}

/* The A fragment (rows g, g+8; columns t, t+4) of the 16 x 8 block at
 * (mi, ki), and the B fragment (rows t, t+4; column g) of the 8 x 8 block
 * at (ki, ni). */
static inline float4 nv_frag_a(const __local float *t, const int ta, int mi, int ki)
{
  const int lane = (int)get_local_id(0) % 32, g = lane / 4, c = lane % 4;
  if (ta)
    return (float4)(t[(mi + g) * PITCH_MK + ki + c], t[(mi + g + 8) * PITCH_MK + ki + c],
                    t[(mi + g) * PITCH_MK + ki + c + 4], t[(mi + g + 8) * PITCH_MK + ki + c + 4]);
  return (float4)(t[(ki + c) * PITCH_KM + mi + g], t[(ki + c) * PITCH_KM + mi + g + 8],
                  t[(ki + c + 4) * PITCH_KM + mi + g], t[(ki + c + 4) * PITCH_KM + mi + g + 8]);
}

static inline float2 nv_frag_b(const __local float *t, const int tb, int ni, int ki)
{
  const int lane = (int)get_local_id(0) % 32, g = lane / 4, c = lane % 4;
  if (tb)
    return (float2)(t[(ki + c) * PITCH_KN + ni + g], t[(ki + c + 4) * PITCH_KN + ni + g]);
  return (float2)(t[(ni + g) * PITCH_NK + ki + c], t[(ni + g) * PITCH_NK + ki + c + 4]);
}

/* acc += the product of one pair of local tiles, for this warp's block. */
static inline void nv_multiply(const __local float *at, const __local float *bt, const int ta,
                               const int tb, int wm0, int wn0,
                               float4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
#pragma unroll
  for (int kk = 0; kk < KWG; kk += 8) {
    uint2 bhi[WTN / 8], bmid[WTN / 8], blo[WTN / 8];
#pragma unroll
    for (int j = 0; j < WTN / 8; j++) {
      const float2 x = nv_frag_b(bt, tb, wn0 + j * 8, kk);
      const uint3 p = nv_split(x.x), q = nv_split(x.y);
      bhi[j] = (uint2)(p.x, q.x), bmid[j] = (uint2)(p.y, q.y), blo[j] = (uint2)(p.z, q.z);
    }
#pragma unroll
    for (int i = 0; i < WTM / 16; i++) {
      const float4 x = nv_frag_a(at, ta, wm0 + i * 16, kk);
      const uint3 p = nv_split(x.x), q = nv_split(x.y), r = nv_split(x.z), s = nv_split(x.w);
      const uint4 ahi = (uint4)(p.x, q.x, r.x, s.x), amid = (uint4)(p.y, q.y, r.y, s.y);
      const uint4 alo = (uint4)(p.z, q.z, r.z, s.z);
      /* term by term across the row of tiles, so that the three products
       * into one accumulator are not issued back to back */
#pragma unroll
      for (int j = 0; j < WTN / 8; j++)
        nv_mma_tf32(&acc[i][j], alo, bmid[j] NV_SCRATCH);
#pragma unroll
      for (int j = 0; j < WTN / 8; j++)
        nv_mma_tf32(&acc[i][j], amid, blo[j] NV_SCRATCH);
#pragma unroll
      for (int j = 0; j < WTN / 8; j++)
        nv_mma_tf32(&acc[i][j], ahi, bhi[j] NV_SCRATCH);
    }
  }
}

/* The main loop for one transpose pair: acc += op(A) op(B) for the
 * work-group's tile at (m0, n0) and this warp's block at (wm0, wn0). */
static inline void nv_3xtf32_loop(int m, int n, int k, const __global float *a, ulong a_off,
                                  int lda, const int ta, const __global float *b, ulong b_off,
                                  int ldb, const int tb, int m0, int n0, int wm0, int wn0,
                                  __local float *lds,
                                  float4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
  const int tiles = (k + KWG - 1) / KWG;
  for (int s = 0; s < NSTAGES - 1; s++) {
    if (s < tiles)
      nv_load(lds + s * STAGE, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0, n0, s * KWG);
    nv_cp_commit();
  }
  for (int t = 0; t < tiles; t++) {
    nv_cp_wait();
    /* step t is in place for everyone, and everyone is done with step t - 1,
     * whose slot the next load reuses */
    barrier(CLK_LOCAL_MEM_FENCE);
    const int ahead = t + NSTAGES - 1;
    if (ahead < tiles)
      nv_load(lds + ahead % NSTAGES * STAGE, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0,
              n0, ahead * KWG);
    nv_cp_commit();
    __local float *cur = lds + t % NSTAGES * STAGE;
    nv_multiply(cur, cur + TILE_A, ta, tb, wm0, wn0, acc NV_SCRATCH);
  }
}

#if NV_FAST && NV_CPASYNC
/* This work-item's addresses for the TU x TV block at (u0, v0) of a stored
 * matrix at k step 0, in a local tile of row pitch `pitch`: pointers p and
 * local offsets l; a k step adds a fixed stride to each pointer. */
static inline void nv_fast_addr(const __global float **p, int *l, const __global float *x,
                                ulong off, int ld, int pitch, int u0, int v0, int TU, int TV)
{
  const int tid = (int)get_local_id(0);
#pragma unroll
  for (int i = 0; i < TU * TV / 4 / NT; i++) {
    const int s = tid + i * NT, u = s % (TU / 4) * 4, v = s / (TU / 4);
    p[i] = x + off + (ulong)(v0 + v) * (ulong)ld + (ulong)(u0 + u);
    l[i] = v * pitch + u;
  }
}

/* nv_3xtf32_loop for a tile inside C with aligned operands: k steps that
 * lie wholly inside k are copied without bounds checks. */
static inline void nv_3xtf32_loop_fast(int m, int n, int k, const __global float *a,
                                       ulong a_off, int lda, const int ta,
                                       const __global float *b, ulong b_off, int ldb,
                                       const int tb, int m0, int n0, int wm0, int wn0,
                                       __local float *lds,
                                       float4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
  const int tiles = (k + KWG - 1) / KWG, full = k / KWG;
  const __global float *pa[LOADS_A], *pb[LOADS_B];
  int la[LOADS_A], lb[LOADS_B];
  if (ta)
    nv_fast_addr(pa, la, a, a_off, lda, PITCH_MK, 0, m0, KWG, MWG);
  else
    nv_fast_addr(pa, la, a, a_off, lda, PITCH_KM, m0, 0, MWG, KWG);
  if (tb)
    nv_fast_addr(pb, lb, b, b_off, ldb, PITCH_KN, n0, 0, NWG, KWG);
  else
    nv_fast_addr(pb, lb, b, b_off, ldb, PITCH_NK, 0, n0, KWG, NWG);
  const ulong sa = ta ? (ulong)KWG : (ulong)KWG * (ulong)lda;
  const ulong sb = tb ? (ulong)KWG * (ulong)ldb : (ulong)KWG;
  for (int s = 0; s < NSTAGES - 1; s++) {
    if (s < tiles)
      nv_load(lds + s * STAGE, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0, n0, s * KWG);
    nv_cp_commit();
  }
  for (int t0 = 0; t0 < tiles; t0 += NSTAGES) {
#pragma unroll
    for (int r = 0; r < NSTAGES; r++) {
      const int t = t0 + r;
      if (t >= tiles)
        break;
      nv_cp_wait();
      /* step t is in place for everyone, and everyone is done with step
       * t - 1, whose slot the next load reuses */
      barrier(CLK_LOCAL_MEM_FENCE);
      const int ahead = t + NSTAGES - 1;
      __local float *slot = lds + (r + NSTAGES - 1) % NSTAGES * STAGE;
      if (ahead < full) {
#pragma unroll
        for (int i = 0; i < LOADS_A; i++)
          nv_cp16(slot + la[i], pa[i] + (ulong)ahead * sa, 16);
#pragma unroll
        for (int i = 0; i < LOADS_B; i++)
          nv_cp16(slot + TILE_A + lb[i], pb[i] + (ulong)ahead * sb, 16);
      } else if (ahead < tiles) {
        nv_load(slot, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0, n0, ahead * KWG);
      }
      nv_cp_commit();
      __local float *cur = lds + r * STAGE;
      nv_multiply(cur, cur + TILE_A, ta, tb, wm0, wn0, acc NV_SCRATCH);
    }
  }
}

/* The fast loop where the tile allows it, else the general one. */
static inline void nv_3xtf32_pair(int m, int n, int k, const __global float *a, ulong a_off,
                                  int lda, const int ta, const __global float *b, ulong b_off,
                                  int ldb, const int tb, int m0, int n0, int wm0, int wn0,
                                  __local float *lds,
                                  float4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
  const bool fast = ((a_off | (ulong)lda | b_off | (ulong)ldb) & 3) == 0 && m0 + MWG <= m &&
                    n0 + NWG <= n;
  if (fast)
    nv_3xtf32_loop_fast(m, n, k, a, a_off, lda, ta, b, b_off, ldb, tb, m0, n0, wm0, wn0, lds,
                        acc NV_SCRATCH);
  else
    nv_3xtf32_loop(m, n, k, a, a_off, lda, ta, b, b_off, ldb, tb, m0, n0, wm0, wn0, lds,
                   acc NV_SCRATCH);
}
#else
#define nv_3xtf32_pair nv_3xtf32_loop
#endif

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void sgemm_nv_3xtf32(
  int m, int n, int k, float alpha, const __global float *a, ulong a_off, int lda, int ta,
  const __global float *b, ulong b_off, int ldb, int tb, float beta, const __global float *cin,
  ulong cin_off, int ldcin, __global float *cout, ulong cout_off, int ldcout)
{
  nv_split_k(&k, &a_off, lda, ta, &b_off, ldb, tb, &cout_off, ldcout, n, KWG); /* nv_split.cl */
  __local float4 lds[NSTAGES * STAGE / 4];
  NV_SCRATCH_DECL
  const int2 tile = nv_tile_of_group(m, n);
  const int m0 = tile.x * MWG, n0 = tile.y * NWG;
  const int warp = (int)get_local_id(0) / 32, lane = (int)get_local_id(0) % 32;
  const int wm0 = warp % WARPM * WTM, wn0 = warp / WARPM * WTN;
  __local float *base = (__local float *)lds;
  float4 acc[WTM / 16][WTN / 8];
#pragma unroll
  for (int i = 0; i < WTM / 16; i++)
#pragma unroll
    for (int j = 0; j < WTN / 8; j++)
      acc[i][j] = (float4)(0.0f);

#ifdef NV_TA /* only the pair given at build time (ta and tb must match it) */
  nv_3xtf32_pair(m, n, k, a, a_off, lda, NV_TA, b, b_off, ldb, NV_TB, m0, n0, wm0, wn0, base,
                 acc NV_SCRATCH);
#else
  /* one specialised copy of the main loop per transpose pair */
  if (ta && tb)
    nv_3xtf32_pair(m, n, k, a, a_off, lda, 1, b, b_off, ldb, 1, m0, n0, wm0, wn0, base,
                   acc NV_SCRATCH);
  else if (ta)
    nv_3xtf32_pair(m, n, k, a, a_off, lda, 1, b, b_off, ldb, 0, m0, n0, wm0, wn0, base,
                   acc NV_SCRATCH);
  else if (tb)
    nv_3xtf32_pair(m, n, k, a, a_off, lda, 0, b, b_off, ldb, 1, m0, n0, wm0, wn0, base,
                   acc NV_SCRATCH);
  else
    nv_3xtf32_pair(m, n, k, a, a_off, lda, 0, b, b_off, ldb, 0, m0, n0, wm0, wn0, base,
                   acc NV_SCRATCH);
#endif

#pragma unroll
  for (int i = 0; i < WTM / 16; i++)
#pragma unroll
    for (int j = 0; j < WTN / 8; j++) {
      const float e[4] = {acc[i][j].x, acc[i][j].y, acc[i][j].z, acc[i][j].w};
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const int row = m0 + wm0 + i * 16 + lane / 4 + (q >> 1) * 8;
        const int col = n0 + wn0 + j * 8 + lane % 4 * 2 + (q & 1);
        if (row < m && col < n) {
          float v = alpha * e[q];
          if (beta != 0.0f)
            v = fma(beta, cin[cin_off + (ulong)col * (ulong)ldcin + (ulong)row], v);
          cout[cout_off + (ulong)col * (ulong)ldcout + (ulong)row] = v;
        }
      }
    }
}
