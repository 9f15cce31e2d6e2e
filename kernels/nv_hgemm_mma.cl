/* Half-precision GEMM on NVIDIA tensor cores from OpenCL: inline PTX
 * `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` (fp32 accumulation)
 * fed by `ldmatrix` from local memory.  NVIDIA's OpenCL has no
 * cl_khr_fp16, so halves are only moved as ushort bits here; the tensor
 * cores do all the arithmetic.  Builds only where the compiler takes PTX
 * (NVIDIA, sm_80 or later); kernels/nv_probe.cl says whether it does.
 *
 * Column-major C = alpha * op(A) * op(B) + beta * C for any m, n, k,
 * leading dimension and element offset, with the generic family's
 * signature (kernels/gemm_generic.cl); C is read from `cin` and written to
 * `cout`, and beta == 0 never reads cin.  hgemm_nv_mma stores C as half
 * (rounded once, to nearest even), shgemm_nv_mma as float.
 *
 * Launch: local size (WARPM * WARPN * 32, 1), global size
 * (ceil(m / MWG) * WARPM * WARPN * 32, ceil(n / NWG)).
 *
 * A work-group computes an MWG x NWG tile of C in steps of KWG along k;
 * its warps form a WARPM x WARPN grid, each owning a (MWG/WARPM) x
 * (NWG/WARPN) block as 16 x 8 mma tiles.  The A and B tiles are copied
 * into local memory as stored (whichever index is contiguous in global
 * memory stays contiguous), laid out so that the eight rows one ldmatrix
 * phase reads fall in distinct banks (see nv_at); `.trans` turns a tile
 * whose contiguous index is m or n into the fragment the mma expects.
 * NSTAGES tile pairs form a ring: `cp.async` copies run NSTAGES - 1 steps
 * ahead of the multiplication without holding registers, with one barrier
 * per step.  Operands whose leading dimension or offset is not a multiple
 * of 8 halves are copied synchronously through registers instead.  The
 * whole main loop is compiled once per transpose pair, so each copy keeps
 * only its own addresses live, and unrolled by NSTAGES, so that the ring
 * slots sit at constant offsets.  A work-group whose tile lies inside C,
 * with aligned operands, copies every k step that lies inside k by
 * unconditional cp.async from addresses computed once: the bounds code cost
 * a quarter of the instructions of a step (3-6% of the rate). */

#ifndef MWG
#define MWG 128 /* rows of C per work-group */
#endif
#ifndef NWG
#define NWG 128 /* columns of C per work-group */
#endif
#ifndef KWG
#define KWG 16 /* k per local-memory tile (a multiple of 16) */
#endif
#ifndef WARPM
#define WARPM 2 /* warps along m */
#endif
#ifndef WARPN
#define WARPN 4 /* warps along n */
#endif
#ifndef GROUPM
#define GROUPM 8 /* work-groups along m that run side by side (L2 reuse of B) */
#endif
#ifndef NSTAGES
#define NSTAGES 4 /* tile pairs in the local-memory ring (2, 3 or 4) */
#endif
#ifndef NV_SWIZZLE
#define NV_SWIZZLE 0 /* 1: unpadded tiles, 16-byte chunks XOR-swizzled; 0: padded rows */
#endif
#ifndef NV_CPASYNC
#define NV_CPASYNC 1 /* 1: tiles by cp.async; 0: synchronously through registers */
#endif
/* NV_TA, NV_TB (0 or 1, both or neither): compile the main loop for that
 * transpose pair only, a quarter of the code and build time. */

#define NT (WARPM * WARPN * 32)
#define WTM (MWG / WARPM) /* a warp's rows */
#define WTN (NWG / WARPN) /* a warp's columns */
#if NV_SWIZZLE
#define TILE_A (MWG * KWG)
#define TILE_B (NWG * KWG)
#else
#define SKEW 8 /* halves of padding per local row */
#define TILE_A (KWG * (MWG + SKEW) > MWG * (KWG + SKEW) ? KWG * (MWG + SKEW) : MWG * (KWG + SKEW))
#define TILE_B (KWG * (NWG + SKEW) > NWG * (KWG + SKEW) ? KWG * (NWG + SKEW) : NWG * (KWG + SKEW))
#endif
#define STAGE (TILE_A + TILE_B)
#define LOADS_A (MWG * KWG / 8 / NT) /* 16-byte loads per work-item per tile */
#define LOADS_B (NWG * KWG / 8 / NT)
#define LOADS_MAX (LOADS_A > LOADS_B ? LOADS_A : LOADS_B)

#if WTM % 16 != 0 || WTN % 16 != 0 || KWG % 16 != 0 || MWG % 8 != 0 || NWG % 8 != 0
#error "a warp's block must be whole 16 x 16 pieces and KWG a multiple of 16"
#endif
#if LOADS_A * 8 * NT != MWG * KWG || LOADS_B * 8 * NT != NWG * KWG
#error "the tiles must split into whole 16-byte loads per work-item"
#endif
#if NSTAGES < 2 || NSTAGES > 4 || NSTAGES * STAGE * 2 > 49152
#error "NSTAGES must be 2, 3 or 4, and the ring fit in 48 KiB"
#endif

/* The PTX helpers (ldmatrix, mma.sync (f16) and cp.async) come from kernels/nv_ptx.cl,
 * or their stand-ins from kernels/nv_mma_emu.cl, put in front of this file. */

#if !NV_CPASYNC /* tiles through registers: no copies in flight */
#undef nv_cp_wait
#define nv_cp_commit()
#define nv_cp_wait()
#endif

static inline int2 nv_tile_of_group(int m, int n)
{
  const int gm = (m + MWG - 1) / MWG, gn = (n + NWG - 1) / NWG;
  const int pid = (int)(get_group_id(1) * get_num_groups(0) + get_group_id(0));
  const int band = GROUPM * gn;
  const int first = pid / band * GROUPM;
  const int rows = min(gm - first, GROUPM);
  return (int2)(first + pid % band % rows, pid % band / rows);
}

/* Where the 8 halves at (row r, column c, a multiple of 8) of a local tile
 * with rows of w halves start.  An ldmatrix phase reads one 16-byte chunk
 * from each of 8 consecutive rows; unswizzled, rows a multiple of 128
 * bytes apart would all hit the same banks.  So either each row is padded
 * by 16 bytes, or (NV_SWIZZLE) the chunk index is XORed with the row's
 * position among the rows that share 128 bytes of banks. */
static inline int nv_at(int r, int c, int w)
{
#if NV_SWIZZLE
  const int chunks = w / 8;
  const int phase = chunks >= 8 ? r & 7 : r / (8 / chunks) & (chunks - 1);
  return r * w + ((c / 8) ^ phase) * 8;
#else
  return r * (w + SKEW) + c;
#endif
}

/* Fetch the TU x TV block at (u0, v0) of a stored column-major matrix x
 * (u contiguous, extent U x V) into registers, 8 halves along u per load;
 * outside the matrix reads as zero. */
static inline void nv_fetch(ushort8 *r, const __global ushort *x, ulong off, int ld, int U, int V,
                            int u0, int v0, int TU, int TV, bool aligned)
{
  const int tid = (int)get_local_id(0);
  const bool inside = aligned && u0 + TU <= U && v0 + TV <= V;
#pragma unroll
  for (int i = 0; i < TU * TV / 8 / NT; i++) {
    const int s = tid + i * NT, u = s % (TU / 8) * 8, v = s / (TU / 8);
    const int gu = u0 + u, gv = v0 + v;
    const __global ushort *p = x + off + (ulong)gv * (ulong)ld + (ulong)gu;
    if (inside) {
      r[i] = *(const __global ushort8 *)p;
    } else {
      ushort e[8];
      for (int q = 0; q < 8; q++)
        e[q] = gv < V && gu + q < U ? p[q] : (ushort)0;
      r[i] = vload8(0, e);
    }
  }
}

/* Store what nv_fetch got, as stored: row v, column u of a tile with rows
 * of TU halves. */
static inline void nv_stash(const ushort8 *r, __local ushort *t, int TU, int TV)
{
  const int tid = (int)get_local_id(0);
#pragma unroll
  for (int i = 0; i < TU * TV / 8 / NT; i++) {
    const int s = tid + i * NT, u = s % (TU / 8) * 8, v = s / (TU / 8);
    *(__local ushort8 *)(t + nv_at(v, u, TU)) = r[i];
  }
}

/* The TU x TV block at (u0, v0) of a stored matrix into the local tile t,
 * as stored: by cp.async when `aligned` (16-byte vectors), else through
 * registers.  Outside the matrix reads as zero. */
static inline void nv_load_one(__local ushort *t, const __global ushort *x, ulong off, int ld,
                               int U, int V, int u0, int v0, int TU, int TV, bool aligned)
{
#if NV_CPASYNC
  if (aligned) {
    const int tid = (int)get_local_id(0);
#pragma unroll
    for (int i = 0; i < TU * TV / 8 / NT; i++) {
      const int s = tid + i * NT, u = s % (TU / 8) * 8, v = s / (TU / 8);
      const int gu = u0 + u, gv = v0 + v;
      const int bytes = gv < V ? clamp((U - gu) * 2, 0, 16) : 0;
      nv_cp16(t + nv_at(v, u, TU),
              x + off + (bytes > 0 ? (ulong)gv * (ulong)ld + (ulong)gu : 0ul), bytes);
    }
    return;
  }
#endif
  ushort8 r[LOADS_MAX];
  nv_fetch(r, x, off, ld, U, V, u0, v0, TU, TV, aligned);
  nv_stash(r, t, TU, TV);
}

/* Step k0 of A and B into the ring slot at `slot`. */
static inline void nv_load(__local ushort *slot, const __global ushort *a, ulong a_off, int lda,
                           const int ta, const __global ushort *b, ulong b_off, int ldb,
                           const int tb, int m, int n, int k, int m0, int n0, int k0)
{
  const bool a_vec = ((a_off | (ulong)lda) & 7) == 0, b_vec = ((b_off | (ulong)ldb) & 7) == 0;
  if (ta)
    nv_load_one(slot, a, a_off, lda, k, m, k0, m0, KWG, MWG, a_vec);
  else
    nv_load_one(slot, a, a_off, lda, m, k, m0, k0, MWG, KWG, a_vec);
  if (tb)
    nv_load_one(slot + TILE_A, b, b_off, ldb, n, k, n0, k0, NWG, KWG, b_vec);
  else
    nv_load_one(slot + TILE_A, b, b_off, ldb, k, n, k0, n0, KWG, NWG, b_vec);
}

/* The A fragment of the 16 x 16 block at (mi, ki) of the local A tile:
 * stored [k][m] when ta == 0 (ldmatrix.trans), [m][k] when ta == 1. */
static inline uint4 nv_frag_a(const __local ushort *t, const int ta, int mi,
                              int ki NV_SCRATCH_PARAM)
{
  const int lane = (int)get_local_id(0) % 32, q = lane / 8, r = lane % 8;
  if (ta)
    return nv_ldsm_x4(t, nv_at(mi + (q & 1) * 8 + r, ki + (q >> 1) * 8, KWG) NV_SCRATCH);
  return nv_ldsm_x4_trans(t, nv_at(ki + (q >> 1) * 8 + r, mi + (q & 1) * 8, MWG) NV_SCRATCH);
}

/* B fragments of the 16 (k) x 16 (n) block at (ki, ni): .xy for columns
 * ni..ni+7, .zw for ni+8..ni+15.  Stored [n][k] when tb == 0, [k][n]
 * (ldmatrix.trans) when tb == 1. */
static inline uint4 nv_frag_b(const __local ushort *t, const int tb, int ni,
                              int ki NV_SCRATCH_PARAM)
{
  const int lane = (int)get_local_id(0) % 32, q = lane / 8, r = lane % 8;
  if (tb)
    return nv_ldsm_x4_trans(t, nv_at(ki + (q & 1) * 8 + r, ni + (q >> 1) * 8, NWG) NV_SCRATCH);
  return nv_ldsm_x4(t, nv_at(ni + (q >> 1) * 8 + r, ki + (q & 1) * 8, KWG) NV_SCRATCH);
}

/* acc += the product of one pair of local tiles, for this warp's block. */
static inline void nv_multiply(const __local ushort *at, const __local ushort *bt, const int ta,
                               const int tb, int wm0, int wn0,
                               float4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
#pragma unroll
  for (int kk = 0; kk < KWG; kk += 16) {
    uint4 af[WTM / 16], bf[WTN / 16];
#pragma unroll
    for (int i = 0; i < WTM / 16; i++)
      af[i] = nv_frag_a(at, ta, wm0 + i * 16, kk NV_SCRATCH);
#pragma unroll
    for (int j = 0; j < WTN / 16; j++)
      bf[j] = nv_frag_b(bt, tb, wn0 + j * 16, kk NV_SCRATCH);
#pragma unroll
    for (int i = 0; i < WTM / 16; i++)
#pragma unroll
      for (int j = 0; j < WTN / 16; j++) {
        nv_mma_f16(&acc[i][2 * j], af[i], bf[j].xy NV_SCRATCH);
        nv_mma_f16(&acc[i][2 * j + 1], af[i], bf[j].zw NV_SCRATCH);
      }
  }
}

#if NV_CPASYNC
/* This work-item's addresses for the TU x TV block at (u0, v0) of a stored
 * matrix at k step 0: pointers p and local offsets l. */
static inline void nv_fast_addr(const __global ushort **p, int *l, const __global ushort *x,
                                ulong off, int ld, int u0, int v0, int TU, int TV)
{
  const int tid = (int)get_local_id(0);
#pragma unroll
  for (int i = 0; i < TU * TV / 8 / NT; i++) {
    const int s = tid + i * NT, u = s % (TU / 8) * 8, v = s / (TU / 8);
    p[i] = x + off + (ulong)(v0 + v) * (ulong)ld + (ulong)(u0 + u);
    l[i] = nv_at(v, u, TU);
  }
}
#endif

/* The main loop shared by both entry points, for one transpose pair: acc =
 * op(A) op(B) for the work-group's tile at (m0, n0) and this warp's block at
 * (wm0, wn0).  `fast`: the tile lies inside C and the operands are aligned. */
static inline void nv_hgemm_loop(int m, int n, int k, const __global ushort *a, ulong a_off,
                                 int lda, const int ta, const __global ushort *b, ulong b_off,
                                 int ldb, const int tb, int m0, int n0, int wm0, int wn0,
                                 bool fast, __local ushort *lds,
                                 float4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
  const int tiles = (k + KWG - 1) / KWG;
#if NV_CPASYNC
  const int full = fast ? k / KWG : 0; /* steps copied without bounds checks */
  const __global ushort *pa[LOADS_A], *pb[LOADS_B];
  int la[LOADS_A], lb[LOADS_B];
  if (ta)
    nv_fast_addr(pa, la, a, a_off, lda, 0, m0, KWG, MWG);
  else
    nv_fast_addr(pa, la, a, a_off, lda, m0, 0, MWG, KWG);
  if (tb)
    nv_fast_addr(pb, lb, b, b_off, ldb, n0, 0, NWG, KWG);
  else
    nv_fast_addr(pb, lb, b, b_off, ldb, 0, n0, KWG, NWG);
  const ulong sa = ta ? (ulong)KWG : (ulong)KWG * (ulong)lda;
  const ulong sb = tb ? (ulong)KWG * (ulong)ldb : (ulong)KWG;
#endif
  for (int s = 0; s < NSTAGES - 1; s++) {
    if (s < tiles)
      nv_load(lds + s * STAGE, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0, n0, s * KWG);
    nv_cp_commit();
  }
  for (int t0 = 0; t0 < tiles; t0 += NSTAGES) {
#pragma unroll
    for (int r = 0; r < NSTAGES; r++) { /* step t uses slot r */
      const int t = t0 + r;
      if (t >= tiles)
        break;
      nv_cp_wait();
      /* step t is in place for everyone, and everyone is done with step
       * t - 1, whose slot the next load reuses */
      barrier(CLK_LOCAL_MEM_FENCE);
      const int ahead = t + NSTAGES - 1;
      __local ushort *slot = lds + (r + NSTAGES - 1) % NSTAGES * STAGE;
#if NV_CPASYNC
      if (ahead < full) {
#pragma unroll
        for (int i = 0; i < LOADS_A; i++)
          nv_cp16(slot + la[i], pa[i] + (ulong)ahead * sa, 16);
#pragma unroll
        for (int i = 0; i < LOADS_B; i++)
          nv_cp16(slot + TILE_A + lb[i], pb[i] + (ulong)ahead * sb, 16);
      } else
#endif
      if (ahead < tiles)
        nv_load(slot, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0, n0, ahead * KWG);
      nv_cp_commit();
      __local ushort *cur = lds + r * STAGE;
      nv_multiply(cur, cur + TILE_A, ta, tb, wm0, wn0, acc NV_SCRATCH);
    }
  }
}

static inline void nv_hgemm_core(int m, int n, int k, const __global ushort *a, ulong a_off,
                                 int lda, int ta, const __global ushort *b, ulong b_off, int ldb,
                                 int tb, int m0, int n0, int wm0, int wn0, __local ushort *lds,
                                 float4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
#pragma unroll
  for (int i = 0; i < WTM / 16; i++)
#pragma unroll
    for (int j = 0; j < WTN / 8; j++)
      acc[i][j] = (float4)(0.0f);
  const bool fast = ((a_off | (ulong)lda | b_off | (ulong)ldb) & 7) == 0 && m0 + MWG <= m &&
                    n0 + NWG <= n;
#ifdef NV_TA /* only the pair given at build time (ta and tb must match it) */
  nv_hgemm_loop(m, n, k, a, a_off, lda, NV_TA, b, b_off, ldb, NV_TB, m0, n0, wm0, wn0, fast, lds,
                acc NV_SCRATCH);
#else
  /* one specialised copy of the main loop per transpose pair */
  if (ta && tb)
    nv_hgemm_loop(m, n, k, a, a_off, lda, 1, b, b_off, ldb, 1, m0, n0, wm0, wn0, fast, lds,
                  acc NV_SCRATCH);
  else if (ta)
    nv_hgemm_loop(m, n, k, a, a_off, lda, 1, b, b_off, ldb, 0, m0, n0, wm0, wn0, fast, lds,
                  acc NV_SCRATCH);
  else if (tb)
    nv_hgemm_loop(m, n, k, a, a_off, lda, 0, b, b_off, ldb, 1, m0, n0, wm0, wn0, fast, lds,
                  acc NV_SCRATCH);
  else
    nv_hgemm_loop(m, n, k, a, a_off, lda, 0, b, b_off, ldb, 0, m0, n0, wm0, wn0, fast, lds,
                  acc NV_SCRATCH);
#endif
}

#define NV_KERNEL __kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void

NV_KERNEL hgemm_nv_mma(int m, int n, int k, float alpha, const __global half *a, ulong a_off,
                       int lda, int ta, const __global half *b, ulong b_off, int ldb, int tb,
                       float beta, const __global half *cin, ulong cin_off, int ldcin,
                       __global half *cout, ulong cout_off, int ldcout)
{
  __local ushort8 lds[NSTAGES * STAGE / 8];
  NV_SCRATCH_DECL
  const int2 tile = nv_tile_of_group(m, n);
  const int warp = (int)get_local_id(0) / 32, lane = (int)get_local_id(0) % 32;
  const int wm0 = warp % WARPM * WTM, wn0 = warp / WARPM * WTN;
  float4 acc[WTM / 16][WTN / 8];
  nv_hgemm_core(m, n, k, (const __global ushort *)a, a_off, lda, ta, (const __global ushort *)b,
                b_off, ldb, tb, tile.x * MWG, tile.y * NWG, wm0, wn0, (__local ushort *)lds,
                acc NV_SCRATCH);
#pragma unroll
  for (int i = 0; i < WTM / 16; i++)
#pragma unroll
    for (int j = 0; j < WTN / 8; j++) {
      const float e[4] = {acc[i][j].x, acc[i][j].y, acc[i][j].z, acc[i][j].w};
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const int row = tile.x * MWG + wm0 + i * 16 + lane / 4 + (q >> 1) * 8;
        const int col = tile.y * NWG + wn0 + j * 8 + lane % 4 * 2 + (q & 1);
        if (row < m && col < n) {
          const ulong at = (ulong)col * (ulong)ldcout + (ulong)row;
          float v = alpha * e[q];
          if (beta != 0.0f)
            v = fma(beta, vload_half(0, cin + cin_off + (ulong)col * (ulong)ldcin + (ulong)row), v);
          vstore_half_rte(v, 0, cout + cout_off + at);
        }
      }
    }
}

NV_KERNEL shgemm_nv_mma(int m, int n, int k, float alpha, const __global half *a, ulong a_off,
                        int lda, int ta, const __global half *b, ulong b_off, int ldb, int tb,
                        float beta, const __global float *cin, ulong cin_off, int ldcin,
                        __global float *cout, ulong cout_off, int ldcout)
{
  nv_split_k(&k, &a_off, lda, ta, &b_off, ldb, tb, &cout_off, ldcout, n, KWG); /* nv_split.cl */
  __local ushort8 lds[NSTAGES * STAGE / 8];
  NV_SCRATCH_DECL
  const int2 tile = nv_tile_of_group(m, n);
  const int warp = (int)get_local_id(0) / 32, lane = (int)get_local_id(0) % 32;
  const int wm0 = warp % WARPM * WTM, wn0 = warp / WARPM * WTN;
  float4 acc[WTM / 16][WTN / 8];
  nv_hgemm_core(m, n, k, (const __global ushort *)a, a_off, lda, ta, (const __global ushort *)b,
                b_off, ldb, tb, tile.x * MWG, tile.y * NWG, wm0, wn0, (__local ushort *)lds,
                acc NV_SCRATCH);
#pragma unroll
  for (int i = 0; i < WTM / 16; i++)
#pragma unroll
    for (int j = 0; j < WTN / 8; j++) {
      const float e[4] = {acc[i][j].x, acc[i][j].y, acc[i][j].z, acc[i][j].w};
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const int row = tile.x * MWG + wm0 + i * 16 + lane / 4 + (q >> 1) * 8;
        const int col = tile.y * NWG + wn0 + j * 8 + lane % 4 * 2 + (q & 1);
        if (row < m && col < n) {
          float v = alpha * e[q];
          if (beta != 0.0f)
            v = fma(beta, cin[cin_off + (ulong)col * (ulong)ldcin + (ulong)row], v);
          cout[cout_off + (ulong)col * (ulong)ldcout + (ulong)row] = v;
        }
      }
    }
}
