/* Double-precision GEMM on the FP64 tensor cores of NVIDIA GPUs (sm_90)
 * from OpenCL: mma.sync.aligned.m16n8k8 .f64 through kernels/nv_ptx.cl's
 * nv_mma_f64 (kernels/nv_mma_emu.cl's stand-in on PoCL), with the generic
 * family's arguments and launch (one work-group of NT items per MWG x NWG
 * tile of C, column-major, any m, n, k, ld and offset; beta == 0 never
 * reads cin).
 *
 * A work-group of 8 warps (4 along m, 2 along n) owns a 128 x 64 tile; a
 * warp owns 32 x 32 of it: 2 x 4 mma tiles of 16 x 8.  Each k step of KWG
 * stages op(A) and op(B) in local memory k-major (zeros past the edges),
 * from which every warp reads its fragments. */

#ifndef MWG
#define MWG 128
#endif
#ifndef NWG
#define NWG 64
#endif
#ifndef KWG
#define KWG 16
#endif
#define WARPS_M 4
#define WARPS_N 2
#define NT (WARPS_M * WARPS_N * 32)
#define WM (MWG / WARPS_M)
#define WN (NWG / WARPS_N)
#define TM (WM / 16)
#define TN (WN / 8)
#define PITCHA (MWG + 4) /* a k-row of the A tile, padded against bank conflicts */
#define PITCHB (NWG + 4)

#if WM % 16 != 0 || WN % 8 != 0 || KWG % 8 != 0
#error "each warp's tile must be whole 16 x 8 mma tiles, KWG whole k8 steps"
#endif

/* op(X)(u, v) of a column-major matrix: X(u, v), or X(v, u) when transposed. */
static inline double op_elem(const __global double *x, ulong off, int ld, int trans, int u, int v)
{
  return trans ? x[off + (ulong)v + (ulong)u * (ulong)ld] : x[off + (ulong)u + (ulong)v * (ulong)ld];
}

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void dgemm_nv_mma(
  int m, int n, int k, double alpha, const __global double *a, ulong a_off, int lda, int ta,
  const __global double *b, ulong b_off, int ldb, int tb, double beta,
  const __global double *cin, ulong cin_off, int ldcin, __global double *cout, ulong cout_off,
  int ldcout)
{
  __local double as[KWG * PITCHA];
  __local double bs[KWG * PITCHB];
  NV_SCRATCH_DECL
  const int tid = (int)get_local_id(0), lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4;
  const int m0 = (int)get_group_id(0) * MWG, n0 = (int)get_group_id(1) * NWG;
  const int wm0 = warp % WARPS_M * WM, wn0 = warp / WARPS_M * WN;
  double4 acc[TM][TN];
  for (int i = 0; i < TM; i++)
    for (int j = 0; j < TN; j++)
      acc[i][j] = (double4)(0.0);
  for (int k0 = 0; k0 < k; k0 += KWG) {
    for (int s = tid; s < MWG * KWG; s += NT) { /* consecutive items: consecutive rows of op(A) */
      const int r = s % MWG, kk = s / MWG;
      const int gr = m0 + r, gk = k0 + kk;
      as[kk * PITCHA + r] = gr < m && gk < k ? op_elem(a, a_off, lda, ta, gr, gk) : 0.0;
    }
    for (int s = tid; s < NWG * KWG; s += NT) { /* consecutive items: consecutive k of op(B) */
      const int kk = s % KWG, c = s / KWG;
      const int gk = k0 + kk, gc = n0 + c;
      bs[kk * PITCHB + c] = gk < k && gc < n ? op_elem(b, b_off, ldb, tb, gk, gc) : 0.0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int ks = 0; ks < KWG; ks += 8) {
      double4 fa[TM];
      double2 fb[TN];
      for (int i = 0; i < TM; i++) { /* reg j: row g + 8 (j & 1), column t + 4 (j >> 1) */
        const int r = wm0 + i * 16 + g;
        fa[i] = (double4)(as[(ks + t) * PITCHA + r], as[(ks + t) * PITCHA + r + 8],
                          as[(ks + t + 4) * PITCHA + r], as[(ks + t + 4) * PITCHA + r + 8]);
      }
      for (int j = 0; j < TN; j++) { /* reg j: column g, row t + 4 j */
        const int c = wn0 + j * 8 + g;
        fb[j] = (double2)(bs[(ks + t) * PITCHB + c], bs[(ks + t + 4) * PITCHB + c]);
      }
      for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++)
          nv_mma_f64(&acc[i][j], fa[i], fb[j] NV_SCRATCH);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  /* C = alpha acc + beta C; element e of a tile: row g + 8 (e >> 1), column 2 t + (e & 1). */
  for (int i = 0; i < TM; i++)
    for (int j = 0; j < TN; j++) {
      const double v[4] = {acc[i][j].x, acc[i][j].y, acc[i][j].z, acc[i][j].w};
      for (int e = 0; e < 4; e++) {
        const int r = m0 + wm0 + i * 16 + g + (e >> 1) * 8;
        const int c = n0 + wn0 + j * 8 + 2 * t + (e & 1);
        if (r >= m || c >= n)
          continue;
        double out = alpha * v[e];
        if (beta != 0.0)
          out += beta * cin[cin_off + (ulong)r + (ulong)c * (ulong)ldcin];
        cout[cout_off + (ulong)r + (ulong)c * (ulong)ldcout] = out;
      }
    }
}
