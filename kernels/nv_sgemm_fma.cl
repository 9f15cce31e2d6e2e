/* FP32 FMA sgemm shaped for NVIDIA Hopper as NVIDIA's OpenCL sees it:
 * 48 KiB of local memory per work-group, up to 1024 work-items, warps of
 * 32 consecutive work-items.  Plain OpenCL C 1.2, so it also runs on PoCL.
 *
 * Column-major C = alpha * op(A) * op(B) + beta * C for any m, n, k,
 * leading dimension and element offset, with the generic family's
 * signature (kernels/gemm_generic.cl); C is read from `cin` and written to
 * `cout`, and beta == 0 never reads cin.
 *
 * Launch: local size (MDIMC * NDIMC, 1), global size
 * (ceil(m / MWG) * MDIMC * NDIMC, ceil(n / NWG)).  Work-groups are
 * renumbered so that GROUPM consecutive ones share a column of B tiles,
 * which keeps the B panel in L2 while they run.  A third dimension of S
 * work-groups cuts k into S slices (kernels/nv_split.cl).
 *
 * Each work-item owns an MWI x NWI block of C: MWI/4 runs of 4 rows strided
 * by 4*MDIMC and NWI/4 runs of 4 columns strided by 4*NDIMC, so every
 * local-memory read is a float4 and the 8 work-items of a quarter-warp read
 * distinct consecutive float4s of A (no bank conflicts) and one float4 of B
 * (a broadcast).  Both tiles sit k-major in local memory, double-buffered:
 * while one pair is multiplied, the next is fetched into registers and
 * then stored into the other pair, one barrier per KWG step. */

#ifndef MWG
#define MWG 128 /* rows of C per work-group */
#endif
#ifndef NWG
#define NWG 256 /* columns of C per work-group */
#endif
#ifndef KWG
#define KWG 8 /* k per local-memory tile */
#endif
#ifndef MDIMC
#define MDIMC 16 /* work-items along m */
#endif
#ifndef NDIMC
#define NDIMC 16 /* work-items along n */
#endif
#ifndef WLM
#define WLM 8 /* lanes of a warp along m (the other 32 / WLM go along n) */
#endif
#ifndef PADA
#define PADA 4 /* floats of padding per k-row of the A tile (a multiple of 4) */
#endif
#ifndef PADB
#define PADB 4
#endif
#ifndef GROUPM
#define GROUPM 8 /* work-groups along m that run side by side */
#endif
/* NV_TA, NV_TB (0 or 1, both or neither): compile for that transpose pair
 * only (the ta and tb arguments must match it). */

#define NT (MDIMC * NDIMC)
#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define WLN (32 / WLM)
#define PITCHA (MWG + PADA)
#define PITCHB (NWG + PADB)
#define LOADS_A (MWG * KWG / 4 / NT) /* float4 loads per work-item per tile */
#define LOADS_B (NWG * KWG / 4 / NT)

#if MWI % 4 != 0 || NWI % 4 != 0 || MWG % MDIMC != 0 || NWG % NDIMC != 0
#error "each work-item needs a multiple of 4 rows and 4 columns"
#endif
#if MDIMC % WLM != 0 || NDIMC % WLN != 0 || NT % 32 != 0
#error "the warp shape WLM x (32/WLM) must tile MDIMC x NDIMC"
#endif
#if LOADS_A * 4 * NT != MWG * KWG || LOADS_B * 4 * NT != NWG * KWG || KWG % 4 != 0
#error "the tiles must split into whole float4 loads per work-item"
#endif
#if PADA % 4 != 0 || PADB % 4 != 0
#error "PADA and PADB keep the local rows float4-aligned"
#endif

/* The work-group's tile of C, as (row tile, column tile). */
static inline int2 nv_tile_of_group(int m, int n)
{
  const int gm = (m + MWG - 1) / MWG, gn = (n + NWG - 1) / NWG;
  const int pid = (int)(get_group_id(1) * get_num_groups(0) + get_group_id(0));
  const int band = GROUPM * gn;
  const int first = pid / band * GROUPM;
  const int rows = min(gm - first, GROUPM);
  return (int2)(first + pid % band % rows, pid % band / rows);
}

/* The work-item's place in the MDIMC x NDIMC grid: warps are WLM x WLN
 * patches of it. */
static inline int2 nv_item(void)
{
  const int tid = (int)get_local_id(0), lane = tid % 32, warp = tid / 32;
  return (int2)(warp % (MDIMC / WLM) * WLM + lane % WLM, warp / (MDIMC / WLM) * WLN + lane / WLM);
}

/* Fetch the TU x TV block at (u0, v0) of a stored column-major matrix x
 * (u the contiguous index, extent U x V) into registers, one float4 along u
 * per load; outside the matrix reads as zero. */
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

/* Store what nv_fetch got into a k-major local tile t[k * pitch + mn]. */
static inline void nv_stash(const float4 *r, __local float *t, int pitch, bool u_is_k, int TU,
                            int TV)
{
  const int tid = (int)get_local_id(0);
#pragma unroll
  for (int i = 0; i < TU * TV / 4 / NT; i++) {
    const int s = tid + i * NT, u = s % (TU / 4) * 4, v = s / (TU / 4);
    if (u_is_k) {
      t[(u + 0) * pitch + v] = r[i].x;
      t[(u + 1) * pitch + v] = r[i].y;
      t[(u + 2) * pitch + v] = r[i].z;
      t[(u + 3) * pitch + v] = r[i].w;
    } else {
      *(__local float4 *)(t + v * pitch + u) = r[i];
    }
  }
}

static inline void nv_fetch_a(float4 *r, const __global float *a, ulong off, int lda, int ta,
                              int m, int k, int m0, int k0, bool aligned)
{
  if (ta)
    nv_fetch(r, a, off, lda, k, m, k0, m0, KWG, MWG, aligned);
  else
    nv_fetch(r, a, off, lda, m, k, m0, k0, MWG, KWG, aligned);
}

static inline void nv_fetch_b(float4 *r, const __global float *b, ulong off, int ldb, int tb,
                              int n, int k, int n0, int k0, bool aligned)
{
  if (tb)
    nv_fetch(r, b, off, ldb, n, k, n0, k0, NWG, KWG, aligned);
  else
    nv_fetch(r, b, off, ldb, k, n, k0, n0, KWG, NWG, aligned);
}

static inline void nv_stash_ab(const float4 *ra, const float4 *rb, __local float *at,
                               __local float *bt, int ta, int tb)
{
  if (ta)
    nv_stash(ra, at, PITCHA, true, KWG, MWG);
  else
    nv_stash(ra, at, PITCHA, false, MWG, KWG);
  if (tb)
    nv_stash(rb, bt, PITCHB, false, NWG, KWG);
  else
    nv_stash(rb, bt, PITCHB, true, KWG, NWG);
}

/* acc[column][row run] += the product of one pair of local tiles. */
static inline void nv_multiply(const __local float4 *at, const __local float4 *bt, int2 item,
                               float4 acc[NWI][MWI / 4])
{
#pragma unroll
  for (int kk = 0; kk < KWG; kk++) {
    float4 av[MWI / 4], bv[NWI / 4];
#pragma unroll
    for (int i = 0; i < MWI / 4; i++)
      av[i] = at[kk * (PITCHA / 4) + item.x + i * MDIMC];
#pragma unroll
    for (int j = 0; j < NWI / 4; j++)
      bv[j] = bt[kk * (PITCHB / 4) + item.y + j * NDIMC];
#pragma unroll
    for (int j = 0; j < NWI / 4; j++)
#pragma unroll
      for (int i = 0; i < MWI / 4; i++) {
        acc[4 * j + 0][i] = fma(av[i], (float4)(bv[j].x), acc[4 * j + 0][i]);
        acc[4 * j + 1][i] = fma(av[i], (float4)(bv[j].y), acc[4 * j + 1][i]);
        acc[4 * j + 2][i] = fma(av[i], (float4)(bv[j].z), acc[4 * j + 2][i]);
        acc[4 * j + 3][i] = fma(av[i], (float4)(bv[j].w), acc[4 * j + 3][i]);
      }
  }
}

/* C = alpha * acc + beta * C; whole float4 runs where they fit.  A
 * column's old C is loaded whole before any of it is stored: cin and cout
 * may alias, so no load moves past a store, and one at a time each load
 * waits its full latency. */
static inline void nv_store(float4 acc[NWI][MWI / 4], int2 item, int m, int n, int m0, int n0,
                            float alpha, float beta, const __global float *cin, ulong cin_off,
                            int ldcin, __global float *cout, ulong cout_off, int ldcout)
{
  const bool vec = ((cin_off | (ulong)ldcin | cout_off | (ulong)ldcout) & 3) == 0;
#pragma unroll
  for (int j = 0; j < NWI; j++) {
    const int col = n0 + item.y * 4 + j / 4 * 4 * NDIMC + j % 4;
    if (col >= n)
      continue;
    float4 old[MWI / 4];
#pragma unroll
    for (int i = 0; i < MWI / 4; i++) {
      const int row = m0 + item.x * 4 + i * 4 * MDIMC;
      const __global float *in = cin + cin_off + (ulong)col * (ulong)ldcin + (ulong)row;
      old[i] = (float4)(0.0f);
      if (beta == 0.0f || row >= m)
        continue;
      if (vec && row + 4 <= m)
        old[i] = *(const __global float4 *)in;
      else {
        float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int q = 0; q < 4 && row + q < m; q++)
          t[q] = in[q];
        old[i] = (float4)(t[0], t[1], t[2], t[3]);
      }
    }
#pragma unroll
    for (int i = 0; i < MWI / 4; i++) {
      const int row = m0 + item.x * 4 + i * 4 * MDIMC;
      __global float *out = cout + cout_off + (ulong)col * (ulong)ldcout + (ulong)row;
      float4 v = alpha * acc[j][i];
      if (beta != 0.0f)
        v = fma((float4)(beta), old[i], v);
      if (vec && row + 4 <= m) {
        *(__global float4 *)out = v;
      } else {
        const float e[4] = {v.x, v.y, v.z, v.w};
        for (int q = 0; q < 4 && row + q < m; q++)
          out[q] = e[q];
      }
    }
  }
}

/* The main loop for one transpose pair: acc = op(A) op(B) for the
 * work-group's tile at (m0, n0). */
static inline void nv_fma_loop(int m, int n, int k, const __global float *a, ulong a_off, int lda,
                               const int ta, const __global float *b, ulong b_off, int ldb,
                               const int tb, int m0, int n0, int2 item, __local float4 *alm,
                               __local float4 *blm, float4 acc[NWI][MWI / 4])
{
  const bool a_vec = ((a_off | (ulong)lda) & 3) == 0, b_vec = ((b_off | (ulong)ldb) & 3) == 0;
  float4 ra[LOADS_A], rb[LOADS_B];
  nv_fetch_a(ra, a, a_off, lda, ta, m, k, m0, 0, a_vec);
  nv_fetch_b(rb, b, b_off, ldb, tb, n, k, n0, 0, b_vec);
  nv_stash_ab(ra, rb, (__local float *)alm, (__local float *)blm, ta, tb);
  barrier(CLK_LOCAL_MEM_FENCE);
  const int tiles = (k + KWG - 1) / KWG;
  for (int t = 0; t < tiles; t++) {
    const int cur = t & 1;
    const bool more = t + 1 < tiles;
    if (more) { /* the next tiles travel while this pair is multiplied */
      nv_fetch_a(ra, a, a_off, lda, ta, m, k, m0, (t + 1) * KWG, a_vec);
      nv_fetch_b(rb, b, b_off, ldb, tb, n, k, n0, (t + 1) * KWG, b_vec);
    }
    nv_multiply(alm + cur * (KWG * PITCHA / 4), blm + cur * (KWG * PITCHB / 4), item, acc);
    if (more)
      nv_stash_ab(ra, rb, (__local float *)(alm + (cur ^ 1) * (KWG * PITCHA / 4)),
                  (__local float *)(blm + (cur ^ 1) * (KWG * PITCHB / 4)), ta, tb);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void sgemm_nv_fma(
  int m, int n, int k, float alpha, const __global float *a, ulong a_off, int lda, int ta,
  const __global float *b, ulong b_off, int ldb, int tb, float beta, const __global float *cin,
  ulong cin_off, int ldcin, __global float *cout, ulong cout_off, int ldcout)
{
  nv_split_k(&k, &a_off, lda, ta, &b_off, ldb, tb, &cout_off, ldcout, n, KWG); /* nv_split.cl */
  __local float4 alm[2 * KWG * PITCHA / 4];
  __local float4 blm[2 * KWG * PITCHB / 4];
  const int2 tile = nv_tile_of_group(m, n), item = nv_item();
  const int m0 = tile.x * MWG, n0 = tile.y * NWG;
  float4 acc[NWI][MWI / 4];
#pragma unroll
  for (int j = 0; j < NWI; j++)
#pragma unroll
    for (int i = 0; i < MWI / 4; i++)
      acc[j][i] = (float4)(0.0f);
#ifdef NV_TA /* only the pair given at build time (ta and tb must match it) */
  nv_fma_loop(m, n, k, a, a_off, lda, NV_TA, b, b_off, ldb, NV_TB, m0, n0, item, alm, blm, acc);
#else
  /* one specialised copy of the main loop per transpose pair, so that each
   * keeps only its own addresses live (a 128 x 128 tile needs 130
   * registers so, 173 with the branches inside the loop) */
  if (ta && tb)
    nv_fma_loop(m, n, k, a, a_off, lda, 1, b, b_off, ldb, 1, m0, n0, item, alm, blm, acc);
  else if (ta)
    nv_fma_loop(m, n, k, a, a_off, lda, 1, b, b_off, ldb, 0, m0, n0, item, alm, blm, acc);
  else if (tb)
    nv_fma_loop(m, n, k, a, a_off, lda, 0, b, b_off, ldb, 1, m0, n0, item, alm, blm, acc);
  else
    nv_fma_loop(m, n, k, a, a_off, lda, 0, b, b_off, ldb, 0, m0, n0, item, alm, blm, acc);
#endif
  nv_store(acc, item, m, n, m0, n0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}
