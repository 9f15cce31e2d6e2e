/* Double-precision GEMM on the FP64 tensor cores of NVIDIA GPUs (sm_90)
 * from OpenCL: mma.sync.aligned.m16n8k8 .f64 through kernels/nv_ptx.cl's
 * nv_mma_f64 (kernels/nv_mma_emu.cl's stand-in on PoCL), with the generic
 * family's arguments and launch: local size (WARPM * WARPN * 32, 1), global
 * size (ceil(m / MWG) * WARPM * WARPN * 32, ceil(n / NWG)); column-major,
 * any m, n, k, ld and offset; C read from cin and written to cout; beta == 0
 * never reads cin.
 *
 * The pipeline of kernels/nv_sgemm_3xtf32.cl in double, with one mma per
 * fragment pair: A and B copied into local memory as stored, by cp.async
 * into a ring of NSTAGES slots (through registers when an operand is not
 * 16-byte aligned), one barrier per KWG step, the main loop compiled once
 * per transpose pair, and tiles inside C with aligned operands copied
 * without bounds checks (NV_FAST).
 *
 * The defaults, 128 x 64 tiles of 4 warps (each 64 x 32) and a 4-step ring
 * in 48 KiB, let two work-groups share an SM, so that while one waits at
 * its barrier the other keeps the tensor cores busy: 42.4 TFLOPS at n = 8192
 * on the H200 against 38.4 for 128 x 128 tiles of 8 warps, one per SM
 * (their registers fill the SM's).  Loading a step's fragments before the
 * last step's mma (a second set of fragment registers) spilled and ran
 * slower.
 *
 * Where a work-group may declare more local memory (NV_LDS_MAX; sm_90's
 * 227 KiB), one 128 x 128 work-group per SM wins instead once its barriers
 * are rarer and its copies hide behind its own mma: a ring slot holds KSUB
 * steps (one barrier each), and with NV_SPREAD the next slot's cp.async
 * copies are issued a few at a time between the rows of the current slot's
 * mma, not in a burst before them.  KSUB 4, NSTAGES 3 (192 KiB): 54.8 /
 * 56.8 TFLOPS at n = 4096 / 8192 through the engine on the H200, against
 * 45.7 / 42.8 for the defaults; larger slots without the spreading ran
 * about 40.
 *
 * The local tiles are not padded (48 KiB hold four 128 x 64 x 8 steps in
 * double, or three 128 x 128 x 8, two padded ones): a tile stored with u
 * contiguous keeps each row v's 16-byte chunks in place but XORs their
 * index with nv_swz(v), so that the four rows and two chunks that the 16
 * lanes of a half-warp read for one fragment register fall in distinct
 * banks. */

#ifndef MWG
#define MWG 128 /* rows of C per work-group */
#endif
#ifndef NWG
#define NWG 64 /* columns of C per work-group */
#endif
#ifndef KWG
#define KWG 8 /* k per local-memory step (8 or 16) */
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
#ifndef KSUB
#define KSUB 1 /* KWG steps that one ring slot holds and one barrier covers */
#endif
#ifndef NSTAGES
#define NSTAGES 4 /* slots in the local-memory ring (2 to 8) */
#endif
#ifndef NV_LDS_MAX
/* Local memory a work-group may declare: the 48 KiB NVIDIA's OpenCL
 * reports, unless the build asks for more (the H200's SM holds 227 KiB, and
 * its OpenCL runs kernels that declare more than 48 KiB). */
#define NV_LDS_MAX 49152
#endif
#ifndef NV_CPASYNC
#define NV_CPASYNC 1 /* 1: tiles by cp.async; 0: synchronously through registers */
#endif
#ifndef NV_FAST
#define NV_FAST 1 /* 1: tiles inside C with aligned operands take the unchecked loop */
#endif
#ifndef NV_PAIRS
/* 1: where A is not transposed, each lane's two k of a fragment (c and
 * c + 4 in the instruction's numbering) are taken as k 2c and 2c + 1 of
 * the step, and its rows g and g + 8 of each 16-row block as rows 2g and
 * 2g + 1, A and B alike (a sum over k is the same in any order; C's rows
 * follow A's): a lane's pairs then lie side by side in local memory and go
 * in one 16-byte load (NN 45.8 TFLOPS at n = 4096 on the H200 against
 * 44.8).  Not with A transposed: its rows of 8 then ran 6 to 10% slower. */
#define NV_PAIRS 1
#endif
#define nv_paired(ta) (NV_PAIRS && !(ta))
#ifndef NV_UNROLL_RING
/* 1: the fast loop is unrolled over the ring's slots (their offsets
 * constants); 0: one copy of its body, for large slots. */
#define NV_UNROLL_RING 1
#endif
#ifndef NV_SPREAD
/* 1: the fast loop issues the next slot's copies between the rows of the
 * current slot's mma instead of all before them (asm volatile keeps both in
 * source order). */
#define NV_SPREAD 0
#endif
/* NV_TA, NV_TB (0 or 1, both or neither): compile the main loop for that
 * transpose pair only. */
#ifndef NV_PROBE
/* Diagnostics for benchmark/nvidia/bound.sh, wrong results: 1 the fast
 * loop copies nothing after the ring's first steps (the SM's own ceiling:
 * fragments, mma, barriers); 2 it copies the same first steps again and
 * again through L1 (cp.async.ca), so L2 feeds nothing. */
#define NV_PROBE 0
#endif

#define NT (WARPM * WARPN * 32)
#define WTM (MWG / WARPM) /* a warp's rows */
#define WTN (NWG / WARPN) /* a warp's columns */
#define TILE_A (MWG * KWG)
#define TILE_B (NWG * KWG)
#define STAGE (TILE_A + TILE_B) /* one KWG step */
#define SLOT (KSUB * STAGE)        /* one ring slot: KSUB steps */
#define LOADS_A (MWG * KWG / 2 / NT) /* 16-byte copies per work-item per step */
#define LOADS_B (NWG * KWG / 2 / NT)
#define LOADS_MAX (LOADS_A > LOADS_B ? LOADS_A : LOADS_B)

#if WTM % 16 != 0 || WTN % 8 != 0 || (KWG != 8 && KWG != 16) || MWG % 16 != 0 || NWG % 16 != 0
#error "a warp's block must be whole 16 x 8 mma tiles, KWG 8 or 16, MWG and NWG multiples of 16"
#endif
#if NV_SPREAD && KWG != 8
#error "NV_SPREAD spreads steps of KWG 8"
#endif
#if LOADS_A * 2 * NT != MWG * KWG || LOADS_B * 2 * NT != NWG * KWG
#error "the tiles must split into whole 16-byte copies per work-item"
#endif
#if NSTAGES < 2 || NSTAGES > 8 || KSUB < 1 || NSTAGES * SLOT * 8 > NV_LDS_MAX
#error "NSTAGES must be 2 to 8, KSUB at least 1, and the ring fit in NV_LDS_MAX bytes"
#endif

#if !NV_CPASYNC
#undef nv_cp_wait
#define nv_cp_commit()
#define nv_cp_wait()
#endif

/* The chunk XOR of row v in a tile whose rows are TU doubles: rows of 16 or
 * more doubles start in the same bank, so four consecutive rows take chunk
 * pairs 0, 2, 4, 6 apart; rows of 8 alternate halves of the banks, so rows
 * v and v + 2 are set 2 chunks apart. */
#define nv_swz(v, TU) ((TU) >= 16 ? ((v) & 3) * 2 : (v) & 2)
/* Where element (u, v) of such a tile lives; P: paired (NV_PAIRS), whose
 * quarter-warps' 16-byte loads read rows v, v + 2, v + 4, v + 6 of a long
 * tile (two chunks each), so those take chunk XORs 0, 2, 4, 6; and rows v,
 * v + 1 of a tile of rows of 8, which fall in the two halves of the banks
 * as stored. */
#define nv_at(v, u, TU, P)                                                                       \
  ((P) && (TU) >= 16 ? (v) * (TU) + ((((u) >> 1) ^ (((v) >> 1) & 3) * 2) << 1) + ((u) & 1)   \
   : (P)             ? (v) * (TU) + (u)                                                        \
                     : (v) * (TU) + ((((u) >> 1) ^ nv_swz(v, TU)) << 1) + ((u) & 1))

/* The row in its 16-row block of element q (0 to 3) of lane group g's C
 * fragment; P: paired. */
#define NV_ROW(g, q, P) ((P) ? 2 * (g) + ((q) >> 1) : (g) + ((q) >> 1) * 8)

static inline int2 nv_tile_of_group(int m, int n)
{
  const int gm = (m + MWG - 1) / MWG, gn = (n + NWG - 1) / NWG;
  const int pid = (int)(get_group_id(1) * get_num_groups(0) + get_group_id(0));
  const int band = GROUPM * gn;
  const int first = pid / band * GROUPM;
  const int rows = min(gm - first, GROUPM);
  return (int2)(first + pid % band % rows, pid % band / rows);
}

/* The TU x TV block at (u0, v0) of a stored column-major matrix x (u
 * contiguous, extent U x V) into the local tile t, as stored (P: paired): by cp.async
 * when `aligned` (16-byte pairs), else through registers.  Outside the
 * matrix reads as zero. */
static inline void nv_load_one(__local double *t, const __global double *x, ulong off, int ld,
                               int U, int V, int u0, int v0, int TU, int TV, bool aligned,
                               const bool P)
{
  const int tid = (int)get_local_id(0);
#if NV_CPASYNC
  if (aligned) {
#pragma unroll
    for (int i = 0; i < TU * TV / 2 / NT; i++) {
      const int s = tid + i * NT, u = s % (TU / 2) * 2, v = s / (TU / 2);
      const int gu = u0 + u, gv = v0 + v;
      const int bytes = gv < V ? clamp((U - gu) * 8, 0, 16) : 0;
      nv_cp16(t + nv_at(v, u, TU, P),
              x + off + (bytes > 0 ? (ulong)gv * (ulong)ld + (ulong)gu : 0ul), bytes);
    }
    return;
  }
#endif
  double2 r[LOADS_MAX];
#pragma unroll
  for (int i = 0; i < TU * TV / 2 / NT; i++) {
    const int s = tid + i * NT, u = s % (TU / 2) * 2, v = s / (TU / 2);
    const int gu = u0 + u, gv = v0 + v;
    const __global double *p = x + off + (ulong)gv * (ulong)ld + (ulong)gu;
    const bool col = gv < V;
    r[i] = (double2)(col && gu < U ? p[0] : 0.0, col && gu + 1 < U ? p[1] : 0.0);
  }
#pragma unroll
  for (int i = 0; i < TU * TV / 2 / NT; i++) {
    const int s = tid + i * NT, u = s % (TU / 2) * 2, v = s / (TU / 2);
    *(__local double2 *)(t + nv_at(v, u, TU, P)) = r[i];
  }
}

/* Step k0 of A and B into `slot`. */
static inline void nv_load_step(__local double *slot, const __global double *a, ulong a_off, int lda,
                           const int ta, const __global double *b, ulong b_off, int ldb,
                           const int tb, int m, int n, int k, int m0, int n0, int k0)
{
  const bool a_vec = ((a_off | (ulong)lda) & 1) == 0, b_vec = ((b_off | (ulong)ldb) & 1) == 0;
  const bool P = nv_paired(ta);
  if (ta) /* [m][k]: rows of KWG */
    nv_load_one(slot, a, a_off, lda, k, m, k0, m0, KWG, MWG, a_vec, P);
  else /* [k][m]: rows of MWG */
    nv_load_one(slot, a, a_off, lda, m, k, m0, k0, MWG, KWG, a_vec, P);
  if (tb) /* [k][n] */
    nv_load_one(slot + TILE_A, b, b_off, ldb, n, k, n0, k0, NWG, KWG, b_vec, P);
  else /* [n][k] */
    nv_load_one(slot + TILE_A, b, b_off, ldb, k, n, k0, n0, KWG, NWG, b_vec, P);
}

/* The KSUB steps from k0 into the ring slot at `slot`. */
static inline void nv_load(__local double *slot, const __global double *a, ulong a_off, int lda,
                           const int ta, const __global double *b, ulong b_off, int ldb,
                           const int tb, int m, int n, int k, int m0, int n0, int k0)
{
#pragma unroll
  for (int j = 0; j < KSUB; j++)
    nv_load_step(slot + j * STAGE, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0, n0,
                 k0 + j * KWG);
}

/* The A fragment (rows g, g+8; columns c, c+4) of the 16 x 8 block at
 * (mi, ki), and the B fragment (rows c, c+4; column g) of the 8 x 8 block
 * at (ki, ni); paired (A not transposed), those rows are 2g, 2g + 1 and
 * those k 2c, 2c + 1. */
static inline double4 nv_frag_a(const __local double *t, const int ta, int mi, int ki)
{
  const int lane = (int)get_local_id(0) % 32, g = lane / 4, c = lane % 4;
  if (nv_paired(ta)) {
    const double2 k0 = *(const __local double2 *)(t + nv_at(ki + 2 * c, mi + 2 * g, MWG, true));
    const double2 k1 = *(const __local double2 *)(t + nv_at(ki + 2 * c + 1, mi + 2 * g, MWG, true));
    return (double4)(k0.x, k0.y, k1.x, k1.y);
  }
  if (ta)
    return (double4)(t[nv_at(mi + g, ki + c, KWG, false)], t[nv_at(mi + g + 8, ki + c, KWG, false)],
                     t[nv_at(mi + g, ki + c + 4, KWG, false)],
                     t[nv_at(mi + g + 8, ki + c + 4, KWG, false)]);
  return (double4)(t[nv_at(ki + c, mi + g, MWG, false)], t[nv_at(ki + c, mi + g + 8, MWG, false)],
                   t[nv_at(ki + c + 4, mi + g, MWG, false)],
                   t[nv_at(ki + c + 4, mi + g + 8, MWG, false)]);
}

static inline double2 nv_frag_b(const __local double *t, const int ta, const int tb, int ni, int ki)
{
  const int lane = (int)get_local_id(0) % 32, g = lane / 4, c = lane % 4;
  if (nv_paired(ta) && tb)
    return (double2)(t[nv_at(ki + 2 * c, ni + g, NWG, true)],
                     t[nv_at(ki + 2 * c + 1, ni + g, NWG, true)]);
  if (nv_paired(ta))
    return *(const __local double2 *)(t + nv_at(ni + g, ki + 2 * c, KWG, true));
  if (tb)
    return (double2)(t[nv_at(ki + c, ni + g, NWG, false)], t[nv_at(ki + c + 4, ni + g, NWG, false)]);
  return (double2)(t[nv_at(ni + g, ki + c, KWG, false)], t[nv_at(ni + g, ki + c + 4, KWG, false)]);
}

/* acc += the product of one pair of local tiles, for this warp's block. */
static inline void nv_multiply(const __local double *at, const __local double *bt, const int ta,
                               const int tb, int wm0, int wn0,
                               double4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
#pragma unroll
  for (int kk = 0; kk < KWG; kk += 8) {
    double2 fb[WTN / 8];
#pragma unroll
    for (int j = 0; j < WTN / 8; j++)
      fb[j] = nv_frag_b(bt, ta, tb, wn0 + j * 8, kk);
#pragma unroll
    for (int i = 0; i < WTM / 16; i++) {
      const double4 fa = nv_frag_a(at, ta, wm0 + i * 16, kk);
#pragma unroll
      for (int j = 0; j < WTN / 8; j++)
        nv_mma_f64(&acc[i][j], fa, fb[j] NV_SCRATCH);
    }
  }
}

/* acc += the products of one ring slot's KSUB steps. */
static inline void nv_multiply_slot(const __local double *slot, const int ta, const int tb,
                                    int wm0, int wn0,
                                    double4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
#pragma unroll
  for (int j = 0; j < KSUB; j++)
    nv_multiply(slot + j * STAGE, slot + j * STAGE + TILE_A, ta, tb, wm0, wn0, acc NV_SCRATCH);
}

/* The main loop for one transpose pair: acc += op(A) op(B) for the
 * work-group's tile at (m0, n0) and this warp's block at (wm0, wn0). */
static inline void nv_dmma_loop(int m, int n, int k, const __global double *a, ulong a_off,
                                int lda, const int ta, const __global double *b, ulong b_off,
                                int ldb, const int tb, int m0, int n0, int wm0, int wn0,
                                __local double *lds,
                                double4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
  const int tiles = (k + KWG * KSUB - 1) / (KWG * KSUB);
  for (int s = 0; s < NSTAGES - 1; s++) {
    if (s < tiles)
      nv_load(lds + s * SLOT, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0, n0,
              s * KWG * KSUB);
    nv_cp_commit();
  }
  for (int t = 0; t < tiles; t++) {
    nv_cp_wait();
    /* step t is in place for everyone, and everyone is done with step t - 1,
     * whose slot the next load reuses */
    barrier(CLK_LOCAL_MEM_FENCE);
    const int ahead = t + NSTAGES - 1;
    if (ahead < tiles)
      nv_load(lds + ahead % NSTAGES * SLOT, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0,
              n0, ahead * KWG * KSUB);
    nv_cp_commit();
    nv_multiply_slot(lds + t % NSTAGES * SLOT, ta, tb, wm0, wn0, acc NV_SCRATCH);
  }
}

#if NV_FAST && NV_CPASYNC
/* This work-item's addresses for the TU x TV block at (u0, v0) of a stored
 * matrix at k step 0: pointers p and local offsets l; a k step adds a
 * fixed stride to each pointer. */
static inline void nv_fast_addr(const __global double **p, int *l, const __global double *x,
                                ulong off, int ld, int u0, int v0, int TU, int TV, const bool P)
{
  const int tid = (int)get_local_id(0);
#pragma unroll
  for (int i = 0; i < TU * TV / 2 / NT; i++) {
    const int s = tid + i * NT, u = s % (TU / 2) * 2, v = s / (TU / 2);
    p[i] = x + off + (ulong)(v0 + v) * (ulong)ld + (ulong)(u0 + u);
    l[i] = nv_at(v, u, TU, P);
  }
}

#if NV_SPREAD && NV_PROBE == 0
/* nv_multiply_slot of `cur`, with the copies of the slot at `next` (KSUB
 * steps from `step`) issued a share before each row of 16 of the mma. */
static inline void nv_multiply_spread(const __local double *cur, const int ta, const int tb,
                                      int wm0, int wn0, __local double *next,
                                      const __global double *const *pa, const int *la,
                                      const __global double *const *pb, const int *lb, ulong sa,
                                      ulong sb, ulong step, bool copy,
                                      double4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
  const int per = LOADS_A + LOADS_B, rows = KSUB * (WTM / 16), copies = KSUB * per;
#pragma unroll
  for (int j = 0; j < KSUB; j++) {
    const __local double *at = cur + j * STAGE, *bt = at + TILE_A;
    double2 fb[WTN / 8];
#pragma unroll
    for (int jn = 0; jn < WTN / 8; jn++)
      fb[jn] = nv_frag_b(bt, ta, tb, wn0 + jn * 8, 0);
#pragma unroll
    for (int i = 0; i < WTM / 16; i++) {
      const int r = j * (WTM / 16) + i;
      if (copy) {
#pragma unroll
        for (int q = r * copies / rows; q < (r + 1) * copies / rows; q++) {
          const int qj = q / per, qi = q % per;
          if (qi < LOADS_A)
            nv_cp16(next + qj * STAGE + la[qi], pa[qi] + (step + (ulong)qj) * sa, 16);
          else
            nv_cp16(next + qj * STAGE + TILE_A + lb[qi - LOADS_A],
                    pb[qi - LOADS_A] + (step + (ulong)qj) * sb, 16);
        }
      }
      const double4 fa = nv_frag_a(at, ta, wm0 + i * 16, 0);
#pragma unroll
      for (int jn = 0; jn < WTN / 8; jn++)
        nv_mma_f64(&acc[i][jn], fa, fb[jn] NV_SCRATCH);
    }
  }
}
#endif

/* nv_dmma_loop for a tile inside C with aligned operands: slots that lie
 * wholly inside k are copied without bounds checks. */
static inline void nv_dmma_loop_fast(int m, int n, int k, const __global double *a, ulong a_off,
                                     int lda, const int ta, const __global double *b,
                                     ulong b_off, int ldb, const int tb, int m0, int n0, int wm0,
                                     int wn0, __local double *lds,
                                     double4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
  const int tiles = (k + KWG * KSUB - 1) / (KWG * KSUB), full = k / (KWG * KSUB);
  const __global double *pa[LOADS_A], *pb[LOADS_B];
  int la[LOADS_A], lb[LOADS_B];
  const bool P = nv_paired(ta);
  if (ta)
    nv_fast_addr(pa, la, a, a_off, lda, 0, m0, KWG, MWG, P);
  else
    nv_fast_addr(pa, la, a, a_off, lda, m0, 0, MWG, KWG, P);
  if (tb)
    nv_fast_addr(pb, lb, b, b_off, ldb, n0, 0, NWG, KWG, P);
  else
    nv_fast_addr(pb, lb, b, b_off, ldb, 0, n0, KWG, NWG, P);
  const ulong sa = ta ? (ulong)KWG : (ulong)KWG * (ulong)lda;
  const ulong sb = tb ? (ulong)KWG * (ulong)ldb : (ulong)KWG;
  for (int s = 0; s < NSTAGES - 1; s++) {
    if (s < tiles)
      nv_load(lds + s * SLOT, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0, n0,
              s * KWG * KSUB);
    nv_cp_commit();
  }
  for (int t0 = 0; t0 < tiles; t0 += NSTAGES) {
#if NV_UNROLL_RING
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int r = 0; r < NSTAGES; r++) {
      const int t = t0 + r;
      if (t >= tiles)
        break;
      nv_cp_wait();
      barrier(CLK_LOCAL_MEM_FENCE);
      const int ahead = t + NSTAGES - 1;
      __local double *slot = lds + (r + NSTAGES - 1) % NSTAGES * SLOT;
#if NV_SPREAD && NV_PROBE == 0
      /* copies for a slot inside k spread over this slot's mma; the rest
       * (bounds-checked, at most the last slot) before them */
      if (ahead >= full && ahead < tiles)
        nv_load(slot, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0, n0,
                ahead * KWG * KSUB);
      nv_multiply_spread(lds + r * SLOT, ta, tb, wm0, wn0, slot, pa, la, pb, lb, sa, sb,
                         (ulong)ahead * KSUB, ahead < full, acc NV_SCRATCH);
      nv_cp_commit();
      continue;
#endif
      if (ahead < full) {
#if NV_PROBE == 2
#define NV_CP16_CA(t, p)                                                                         \
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;"                                      \
               :                                                                                \
               : "r"((uint)(size_t)(t)), "l"((ulong)(size_t)(p))                                \
               : "memory")
#pragma unroll
        for (int j = 0; j < KSUB; j++) {
          const ulong step = (ulong)(ahead % NSTAGES * KSUB + j);
#pragma unroll
          for (int i = 0; i < LOADS_A; i++)
            NV_CP16_CA(slot + j * STAGE + la[i], pa[i] + step * sa);
#pragma unroll
          for (int i = 0; i < LOADS_B; i++)
            NV_CP16_CA(slot + j * STAGE + TILE_A + lb[i], pb[i] + step * sb);
        }
#elif NV_PROBE == 0
#pragma unroll
        for (int j = 0; j < KSUB; j++) {
          const ulong step = (ulong)ahead * KSUB + (ulong)j;
#pragma unroll
          for (int i = 0; i < LOADS_A; i++)
            nv_cp16(slot + j * STAGE + la[i], pa[i] + step * sa, 16);
#pragma unroll
          for (int i = 0; i < LOADS_B; i++)
            nv_cp16(slot + j * STAGE + TILE_A + lb[i], pb[i] + step * sb, 16);
        }
#endif
      } else if (ahead < tiles) {
        nv_load(slot, a, a_off, lda, ta, b, b_off, ldb, tb, m, n, k, m0, n0,
                ahead * KWG * KSUB);
      }
      nv_cp_commit();
      nv_multiply_slot(lds + r * SLOT, ta, tb, wm0, wn0, acc NV_SCRATCH);
    }
  }
}


/* The fast loop where the tile allows it, else the general one. */
static inline void nv_dmma_pair(int m, int n, int k, const __global double *a, ulong a_off,
                                int lda, const int ta, const __global double *b, ulong b_off,
                                int ldb, const int tb, int m0, int n0, int wm0, int wn0,
                                __local double *lds,
                                double4 acc[WTM / 16][WTN / 8] NV_SCRATCH_PARAM)
{
  const bool fast =
    ((a_off | (ulong)lda | b_off | (ulong)ldb) & 1) == 0 && m0 + MWG <= m && n0 + NWG <= n;
  if (fast)
    nv_dmma_loop_fast(m, n, k, a, a_off, lda, ta, b, b_off, ldb, tb, m0, n0, wm0, wn0, lds,
                      acc NV_SCRATCH);
  else
    nv_dmma_loop(m, n, k, a, a_off, lda, ta, b, b_off, ldb, tb, m0, n0, wm0, wn0, lds,
                 acc NV_SCRATCH);
}
#else
#define nv_dmma_pair nv_dmma_loop
#endif

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void dgemm_nv_mma(
  int m, int n, int k, double alpha, const __global double *a, ulong a_off, int lda, int ta,
  const __global double *b, ulong b_off, int ldb, int tb, double beta,
  const __global double *cin, ulong cin_off, int ldcin, __global double *cout, ulong cout_off,
  int ldcout)
{
  __local double2 lds[NSTAGES * SLOT / 2];
  NV_SCRATCH_DECL
  const int2 tile = nv_tile_of_group(m, n);
  const int m0 = tile.x * MWG, n0 = tile.y * NWG;
  const int warp = (int)get_local_id(0) / 32, lane = (int)get_local_id(0) % 32;
  const int wm0 = warp % WARPM * WTM, wn0 = warp / WARPM * WTN;
  __local double *base = (__local double *)lds;
  double4 acc[WTM / 16][WTN / 8];
#pragma unroll
  for (int i = 0; i < WTM / 16; i++)
#pragma unroll
    for (int j = 0; j < WTN / 8; j++)
      acc[i][j] = (double4)(0.0);

#ifdef NV_TA /* only the pair given at build time (ta and tb must match it) */
  nv_dmma_pair(m, n, k, a, a_off, lda, NV_TA, b, b_off, ldb, NV_TB, m0, n0, wm0, wn0, base,
               acc NV_SCRATCH);
#else
  if (ta && tb)
    nv_dmma_pair(m, n, k, a, a_off, lda, 1, b, b_off, ldb, 1, m0, n0, wm0, wn0, base,
                 acc NV_SCRATCH);
  else if (ta)
    nv_dmma_pair(m, n, k, a, a_off, lda, 1, b, b_off, ldb, 0, m0, n0, wm0, wn0, base,
                 acc NV_SCRATCH);
  else if (tb)
    nv_dmma_pair(m, n, k, a, a_off, lda, 0, b, b_off, ldb, 1, m0, n0, wm0, wn0, base,
                 acc NV_SCRATCH);
  else
    nv_dmma_pair(m, n, k, a, a_off, lda, 0, b, b_off, ldb, 0, m0, n0, wm0, wn0, base,
                 acc NV_SCRATCH);
#endif

#ifdef NV_TA
  const bool paired = nv_paired(NV_TA);
#else
  const bool paired = nv_paired(ta);
#endif
  /* C = alpha acc + beta C; element q of a tile: row NV_ROW(g, q, paired), column 2 c + (q & 1).
   * A row block's old C is loaded whole before any of it is stored: cin and
   * cout may alias, so no load moves past a store, and loads one at a time
   * each waited their full latency (a k = 512 launch with beta 1 took 0.19
   * ms on the H200 against 0.13 with beta 0). */
#pragma unroll
  for (int i = 0; i < WTM / 16; i++) {
    double old[WTN / 8][4];
#pragma unroll
    for (int j = 0; j < WTN / 8; j++)
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const int row = m0 + wm0 + i * 16 + NV_ROW(lane / 4, q, paired);
        const int col = n0 + wn0 + j * 8 + lane % 4 * 2 + (q & 1);
        old[j][q] = beta != 0.0 && row < m && col < n
                      ? cin[cin_off + (ulong)col * (ulong)ldcin + (ulong)row]
                      : 0.0;
      }
#pragma unroll
    for (int j = 0; j < WTN / 8; j++) {
      const double e[4] = {acc[i][j].x, acc[i][j].y, acc[i][j].z, acc[i][j].w};
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const int row = m0 + wm0 + i * 16 + NV_ROW(lane / 4, q, paired);
        const int col = n0 + wn0 + j * 8 + lane % 4 * 2 + (q & 1);
        if (row < m && col < n)
          cout[cout_off + (ulong)col * (ulong)ldcout + (ulong)row] =
            beta != 0.0 ? fma(beta, old[j][q], alpha * e[q]) : alpha * e[q];
      }
    }
  }
}
