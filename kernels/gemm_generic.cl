/* The generic GEMM family: buffer kernels with local-memory tiling,
 * register blocking and vector loads, for desktop GPUs and PoCL.
 *
 * Column-major C = alpha * op(A) * op(B) + beta * C for any m, n, k,
 * leading dimension and element offset; transposes are kernel arguments.
 * C is read from `cin` and written to `cout` (they may be the same
 * buffer): beta == 0 never reads cin, so NaN there cannot propagate.
 * Half storage goes through vload_half / vstore_half_rte and the
 * arithmetic is float, so no cl_khr_fp16 is needed.
 *
 * Built with -DHOP_FP64 (a program of its own, on devices with
 * cl_khr_fp64), the same code computes in double and the program holds
 * dgemm_generic_tiled alone: `real` is float or double below.
 *
 * A work-group of MDIMC x NDIMC items computes an MWG x NWG tile of C in
 * steps of KWG along k.  Item (x, y) owns MWG/MDIMC rows, as vectors of
 * VWM consecutive rows strided by MDIMC*VWM, and NWG/NDIMC columns, as
 * runs of VWN strided by NDIMC*VWN.  Global loads are VWL-wide along the
 * contiguous dimension of the stored matrix; elements outside the matrix
 * load as zero, so the k tail adds 0 * 0. */

#ifndef MWG
#define MWG 64 /* rows of C per work-group */
#endif
#ifndef NWG
#define NWG 64 /* columns of C per work-group */
#endif
#ifndef KWG
#define KWG 16 /* k per local-memory tile */
#endif
#ifndef MDIMC
#define MDIMC 16 /* work-items along m */
#endif
#ifndef NDIMC
#define NDIMC 16 /* work-items along n */
#endif
#ifndef VWM
#define VWM 4 /* vector width of a work-item's rows (1, 2, 4, 8) */
#endif
#ifndef VWN
#define VWN 4 /* run length of a work-item's columns */
#endif
#ifndef VWL
#define VWL 4 /* global load vector width (1, 2, 4, 8) */
#endif
#ifndef PADA
#define PADA 0 /* local-memory padding of a k-row of the A tile */
#endif
#ifndef PADB
#define PADB 0
#endif

#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define MVEC (MWI / VWM)
#define PITCHA (MWG + PADA)
#define PITCHB (NWG + PADB)
#define NITEMS (MDIMC * NDIMC)

#if MWG % (MDIMC * VWM) != 0 || NWG % (NDIMC * VWN) != 0
#error "MWG must be a multiple of MDIMC*VWM and NWG of NDIMC*VWN"
#endif
#if MWG % VWL != 0 || NWG % VWL != 0 || KWG % VWL != 0
#error "MWG, NWG and KWG must be multiples of VWL"
#endif

#ifdef HOP_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
typedef double4 real4;
typedef double8 real8;
#else
typedef float real;
typedef float2 real2;
typedef float4 real4;
typedef float8 real8;
#endif

/* realM: VWM rows of C; LOADM/STOREM move one between memory and it. */
#if VWM == 1
typedef real realM;
#define LOADM(p) (*(p))
#define LOADHM(p) vload_half(0, p)
#define STOREM(v, p) (*(p) = (v))
#define STOREHM(v, p) vstore_half_rte(v, 0, p)
#elif VWM == 2
typedef real2 realM;
#define LOADM(p) vload2(0, p)
#define LOADHM(p) vload_half2(0, p)
#define STOREM(v, p) vstore2(v, 0, p)
#define STOREHM(v, p) vstore_half2_rte(v, 0, p)
#elif VWM == 4
typedef real4 realM;
#define LOADM(p) vload4(0, p)
#define LOADHM(p) vload_half4(0, p)
#define STOREM(v, p) vstore4(v, 0, p)
#define STOREHM(v, p) vstore_half4_rte(v, 0, p)
#elif VWM == 8
typedef real8 realM;
#define LOADM(p) vload8(0, p)
#define LOADHM(p) vload_half8(0, p)
#define STOREM(v, p) vstore8(v, 0, p)
#define STOREHM(v, p) vstore_half8_rte(v, 0, p)
#else
#error "VWM must be 1, 2, 4 or 8"
#endif

/* One VWL-wide global load into a private array. */
#if VWL == 1
#define LOADL(p, e) ((e)[0] = *(p))
#define LOADHL(p, e) ((e)[0] = vload_half(0, p))
#elif VWL == 2
#define LOADL(p, e) vstore2(vload2(0, p), 0, e)
#define LOADHL(p, e) vstore2(vload_half2(0, p), 0, e)
#elif VWL == 4
#define LOADL(p, e) vstore4(vload4(0, p), 0, e)
#define LOADHL(p, e) vstore4(vload_half4(0, p), 0, e)
#elif VWL == 8
#define LOADL(p, e) vstore8(vload8(0, p), 0, e)
#define LOADHL(p, e) vstore8(vload_half8(0, p), 0, e)
#else
#error "VWL must be 1, 2, 4 or 8"
#endif

/* ---- global -> local tiles ------------------------------------------------
 * The TU x TV block at (u0, v0) of a stored column-major matrix x (u is the
 * contiguous index, U x V its extent) goes into a k-major local tile:
 * element (u, v) lands at dst[u * pitch + v] when u runs along k, else at
 * dst[v * pitch + u].  The float and half versions differ only in the load. */

static inline void load_tile_s(__local real *dst, int pitch, bool u_is_k,
                               const __global real *x, ulong off, int ld, int U, int V,
                               int u0, int v0, int TU, int TV)
{
  const int tid = get_local_id(1) * MDIMC + get_local_id(0);
  const int per_col = TU / VWL;
  for (int s = tid; s < per_col * TV; s += NITEMS) {
    /* No % beside the /: oclgrind cannot run the `freeze` LLVM emits for that pair. */
    const int v = s / per_col, u = (s - v * per_col) * VWL;
    const int gu = u0 + u, gv = v0 + v;
    real e[VWL];
    if (gv < V && gu <= U - VWL) {
      LOADL(x + off + (ulong)gv * (ulong)ld + (ulong)gu, e);
    } else {
      for (int i = 0; i < VWL; i++)
        e[i] = gv < V && gu + i < U ? x[off + (ulong)gv * (ulong)ld + (ulong)(gu + i)] : (real)0;
    }
    for (int i = 0; i < VWL; i++)
      dst[u_is_k ? (u + i) * pitch + v : v * pitch + u + i] = e[i];
  }
}

#ifndef HOP_FP64
static inline void load_tile_h(__local float *dst, int pitch, bool u_is_k,
                               const __global half *x, ulong off, int ld, int U, int V,
                               int u0, int v0, int TU, int TV)
{
  const int tid = get_local_id(1) * MDIMC + get_local_id(0);
  const int per_col = TU / VWL;
  for (int s = tid; s < per_col * TV; s += NITEMS) {
    /* No % beside the /: oclgrind cannot run the `freeze` LLVM emits for that pair. */
    const int v = s / per_col, u = (s - v * per_col) * VWL;
    const int gu = u0 + u, gv = v0 + v;
    float e[VWL];
    if (gv < V && gu <= U - VWL) {
      LOADHL(x + off + (ulong)gv * (ulong)ld + (ulong)gu, e);
    } else {
      const __global half *col = x + off + (ulong)gv * (ulong)ld;
      for (int i = 0; i < VWL; i++)
        e[i] = gv < V && gu + i < U ? vload_half(0, col + (ulong)(gu + i)) : 0.0f;
    }
    for (int i = 0; i < VWL; i++)
      dst[u_is_k ? (u + i) * pitch + v : v * pitch + u + i] = e[i];
  }
}

#endif

/* ---- the register-blocked product of one pair of local tiles ------------- */

static inline void multiply_tiles(const __local real *alm, const __local real *blm,
                                  realM acc[MVEC][NWI])
{
  const int lx = get_local_id(0), ly = get_local_id(1);
#pragma unroll
  for (int kk = 0; kk < KWG; kk++) {
    realM a[MVEC];
    real b[NWI];
#pragma unroll
    for (int r = 0; r < MVEC; r++)
      a[r] = LOADM(alm + kk * PITCHA + (r * MDIMC + lx) * VWM);
#pragma unroll
    for (int j = 0; j < NWI; j++)
      b[j] = blm[kk * PITCHB + ((j / VWN) * NDIMC + ly) * VWN + j % VWN];
#pragma unroll
    for (int r = 0; r < MVEC; r++)
#pragma unroll
      for (int j = 0; j < NWI; j++)
        acc[r][j] = fma(a[r], (realM)(b[j]), acc[r][j]);
  }
}

/* Row and column of C that element (r, j) of a work-item's block maps to. */
static inline int c_row(int m0, int r) { return m0 + (r * MDIMC + (int)get_local_id(0)) * VWM; }
static inline int c_col(int n0, int j)
{
  return n0 + ((j / VWN) * NDIMC + (int)get_local_id(1)) * VWN + j % VWN;
}

/* ---- C = alpha * acc + beta * C, float and half storage ------------------ */

static inline void store_c_s(realM acc[MVEC][NWI], int m, int n, int m0, int n0, real alpha,
                             real beta, const __global real *cin, ulong cin_off, int ldcin,
                             __global real *cout, ulong cout_off, int ldcout)
{
  for (int j = 0; j < NWI; j++) {
    const int col = c_col(n0, j);
    if (col >= n)
      continue;
    for (int r = 0; r < MVEC; r++) {
      const int row = c_row(m0, r);
      if (row >= m)
        continue;
      const ulong at_in = cin_off + (ulong)col * (ulong)ldcin + (ulong)row;
      __global real *out = cout + cout_off + (ulong)col * (ulong)ldcout + (ulong)row;
      realM v = alpha * acc[r][j];
      if (row <= m - VWM) {
        if (beta != (real)0)
          v += beta * LOADM(cin + at_in);
        STOREM(v, out);
      } else {
        real e[VWM];
        STOREM(v, e);
        for (int i = 0; row + i < m; i++)
          out[i] = beta != (real)0 ? e[i] + beta * cin[at_in + i] : e[i];
      }
    }
  }
}

#ifndef HOP_FP64
static inline void store_c_h(realM acc[MVEC][NWI], int m, int n, int m0, int n0, float alpha,
                             float beta, const __global half *cin, ulong cin_off, int ldcin,
                             __global half *cout, ulong cout_off, int ldcout)
{
  for (int j = 0; j < NWI; j++) {
    const int col = c_col(n0, j);
    if (col >= n)
      continue;
    for (int r = 0; r < MVEC; r++) {
      const int row = c_row(m0, r);
      if (row >= m)
        continue;
      const ulong at_in = cin_off + (ulong)col * (ulong)ldcin + (ulong)row;
      __global half *out = cout + cout_off + (ulong)col * (ulong)ldcout + (ulong)row;
      realM v = alpha * acc[r][j];
      if (row <= m - VWM) {
        if (beta != 0.0f)
          v += beta * LOADHM(cin + at_in);
        STOREHM(v, out);
      } else {
        float e[VWM];
        STOREM(v, e);
        for (int i = 0; row + i < m; i++)
          vstore_half_rte(beta != 0.0f ? e[i] + beta * vload_half(0, cin + at_in + i) : e[i], 0,
                          out + i);
      }
    }
  }
}

#endif

/* ---- the k loop: alpha-free products of op(A) and op(B) ----------------
 * alm and blm are the kernel's local tiles (local memory can only be
 * declared in a kernel); float and half operands differ only in the load. */

static inline void accumulate_s(__local real *alm, __local real *blm, realM acc[MVEC][NWI],
                                int m, int n, int k, int m0, int n0, const __global real *a,
                                ulong a_off, int lda, int ta, const __global real *b, ulong b_off,
                                int ldb, int tb)
{
  for (int r = 0; r < MVEC; r++)
    for (int j = 0; j < NWI; j++)
      acc[r][j] = (realM)(0);
  const int tiles = (k - 1) / KWG + 1;
  for (int t = 0; t < tiles; t++) {
    const int k0 = t * KWG;
    if (ta)
      load_tile_s(alm, PITCHA, true, a, a_off, lda, k, m, k0, m0, KWG, MWG);
    else
      load_tile_s(alm, PITCHA, false, a, a_off, lda, m, k, m0, k0, MWG, KWG);
    if (tb)
      load_tile_s(blm, PITCHB, false, b, b_off, ldb, n, k, n0, k0, NWG, KWG);
    else
      load_tile_s(blm, PITCHB, true, b, b_off, ldb, k, n, k0, n0, KWG, NWG);
    barrier(CLK_LOCAL_MEM_FENCE);
    multiply_tiles(alm, blm, acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

#ifndef HOP_FP64
static inline void accumulate_h(__local float *alm, __local float *blm, realM acc[MVEC][NWI],
                                int m, int n, int k, int m0, int n0, const __global half *a,
                                ulong a_off, int lda, int ta, const __global half *b, ulong b_off,
                                int ldb, int tb)
{
  for (int r = 0; r < MVEC; r++)
    for (int j = 0; j < NWI; j++)
      acc[r][j] = (realM)(0.0f);
  const int tiles = (k - 1) / KWG + 1;
  for (int t = 0; t < tiles; t++) {
    const int k0 = t * KWG;
    if (ta)
      load_tile_h(alm, PITCHA, true, a, a_off, lda, k, m, k0, m0, KWG, MWG);
    else
      load_tile_h(alm, PITCHA, false, a, a_off, lda, m, k, m0, k0, MWG, KWG);
    if (tb)
      load_tile_h(blm, PITCHB, false, b, b_off, ldb, n, k, n0, k0, NWG, KWG);
    else
      load_tile_h(blm, PITCHB, true, b, b_off, ldb, k, n, k0, n0, KWG, NWG);
    barrier(CLK_LOCAL_MEM_FENCE);
    multiply_tiles(alm, blm, acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

#endif

/* ---- entry points: storage of A/B (float, half) x storage of C ------------ */

#ifdef RELAX_WORKGROUP_SIZE
#define GROUP_SIZE
#else
#define GROUP_SIZE __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
#endif

/* ---- a batch of GEMMs in one launch ---------------------------------------
 * Work-group (x, y, p) computes tile (x, y) of problem p, which desc[p]
 * describes (backends/opencl/batch.c fills it): BATCH_DESC ulongs, m, n, k,
 * ta, tb, lda, ldb, ldc, the element offsets of its A, B and C in the packed
 * buffers a, b and c, and alpha's and beta's bits.  The grid covers the
 * largest problem's tiles; a work-group past its problem's returns at once,
 * every item of it alike, so no barrier is left waiting. */
#define BATCH_DESC 16

#ifdef HOP_FP64
#define BATCH_REAL(bits) as_double(bits)
#else
#define BATCH_REAL(bits) as_float((uint)(bits))
#endif

static inline void batched_tile(__local real *alm, __local real *blm, const __global ulong *desc,
                                const __global real *a, const __global real *b, __global real *c)
{
  const __global ulong *d = desc + (ulong)get_group_id(2) * BATCH_DESC;
  const int m = (int)d[0], n = (int)d[1];
  const int m0 = (int)get_group_id(0) * MWG, n0 = (int)get_group_id(1) * NWG;
  if (m0 >= m || n0 >= n)
    return;
  realM acc[MVEC][NWI];
  accumulate_s(alm, blm, acc, m, n, (int)d[2], m0, n0, a, d[8], (int)d[5], (int)d[3], b, d[9],
               (int)d[6], (int)d[4]);
  store_c_s(acc, m, n, m0, n0, BATCH_REAL(d[11]), BATCH_REAL(d[12]), c, d[10], (int)d[7], c, d[10],
            (int)d[7]);
}

#ifdef HOP_FP64
__kernel GROUP_SIZE void dgemm_batched_generic(const __global ulong *desc,
                                               const __global double *a,
                                               const __global double *b, __global double *c)
{
  __local double alm[KWG * PITCHA];
  __local double blm[KWG * PITCHB];
  batched_tile(alm, blm, desc, a, b, c);
}
#else
__kernel GROUP_SIZE void sgemm_batched_generic(const __global ulong *desc, const __global float *a,
                                               const __global float *b, __global float *c)
{
  __local float alm[KWG * PITCHA];
  __local float blm[KWG * PITCHB];
  batched_tile(alm, blm, desc, a, b, c);
}
#endif

#ifdef HOP_FP64
__kernel GROUP_SIZE void dgemm_generic_tiled(
  int m, int n, int k, double alpha, const __global double *a, ulong a_off, int lda, int ta,
  const __global double *b, ulong b_off, int ldb, int tb, double beta,
  const __global double *cin, ulong cin_off, int ldcin, __global double *cout, ulong cout_off,
  int ldcout)
{
  __local double alm[KWG * PITCHA];
  __local double blm[KWG * PITCHB];
  const int m0 = (int)get_group_id(0) * MWG, n0 = (int)get_group_id(1) * NWG;
  realM acc[MVEC][NWI];
  accumulate_s(alm, blm, acc, m, n, k, m0, n0, a, a_off, lda, ta, b, b_off, ldb, tb);
  store_c_s(acc, m, n, m0, n0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}
#else
__kernel GROUP_SIZE void sgemm_generic_tiled(
  int m, int n, int k, float alpha, const __global float *a, ulong a_off, int lda, int ta,
  const __global float *b, ulong b_off, int ldb, int tb, float beta, const __global float *cin,
  ulong cin_off, int ldcin, __global float *cout, ulong cout_off, int ldcout)
{
  __local float alm[KWG * PITCHA];
  __local float blm[KWG * PITCHB];
  const int m0 = (int)get_group_id(0) * MWG, n0 = (int)get_group_id(1) * NWG;
  realM acc[MVEC][NWI];
  accumulate_s(alm, blm, acc, m, n, k, m0, n0, a, a_off, lda, ta, b, b_off, ldb, tb);
  store_c_s(acc, m, n, m0, n0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}

__kernel GROUP_SIZE void hgemm_generic_tiled(
  int m, int n, int k, float alpha, const __global half *a, ulong a_off, int lda, int ta,
  const __global half *b, ulong b_off, int ldb, int tb, float beta, const __global half *cin,
  ulong cin_off, int ldcin, __global half *cout, ulong cout_off, int ldcout)
{
  __local float alm[KWG * PITCHA];
  __local float blm[KWG * PITCHB];
  const int m0 = (int)get_group_id(0) * MWG, n0 = (int)get_group_id(1) * NWG;
  realM acc[MVEC][NWI];
  accumulate_h(alm, blm, acc, m, n, k, m0, n0, a, a_off, lda, ta, b, b_off, ldb, tb);
  store_c_h(acc, m, n, m0, n0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}

__kernel GROUP_SIZE void shgemm_generic_tiled(
  int m, int n, int k, float alpha, const __global half *a, ulong a_off, int lda, int ta,
  const __global half *b, ulong b_off, int ldb, int tb, float beta, const __global float *cin,
  ulong cin_off, int ldcin, __global float *cout, ulong cout_off, int ldcout)
{
  __local float alm[KWG * PITCHA];
  __local float blm[KWG * PITCHB];
  const int m0 = (int)get_group_id(0) * MWG, n0 = (int)get_group_id(1) * NWG;
  realM acc[MVEC][NWI];
  accumulate_h(alm, blm, acc, m, n, k, m0, n0, a, a_off, lda, ta, b, b_off, ldb, tb);
  store_c_s(acc, m, n, m0, n0, alpha, beta, cin, cin_off, ldcin, cout, cout_off, ldcout);
}
#endif
