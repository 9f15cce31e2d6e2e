/* Does this OpenCL compiler take the inline PTX of the tensor-core kernels
 * (nv_hgemm_mma.cl, nv_sgemm_3xtf32.cl), and do the instructions compute
 * what those kernels assume?  Build this first: anywhere but NVIDIA's
 * OpenCL on sm_80 or later the build fails (PoCL rejects the PTX), and the
 * PTX kernels must not be offered.  Then run it as one work-group of 32
 * and compare `out` with the products below; any difference also means no.
 *
 * With A(i, l) = (i + 2 l) % 5 - 2 and B(l, j) = (3 l + j) % 7 - 3 (small
 * integers, so every sum is exact):
 *   out[i * 16 + j]       = sum over l < 16 of A(i, l) B(l, j), i, j < 16
 *     (ldmatrix.x4 for A, ldmatrix.x4.trans for B, mma m16n8k16 f16 -> f32)
 *   out[256 + i * 8 + j]  = sum over l < 8 of A(i, l) B(l, j), i < 16, j < 8
 *     (cvt.rna.tf32.f32 and mma m16n8k8 tf32 -> f32)
 *   out[384 + 2 l], out[385 + 2 l] = A(i, 0) B(0, j) + A(i, 2) and
 *     A(i, 1) B(1, j) + B(2, j), i = l % 16, j = l % 8, for lane l
 *     (fma.rn.f16x2, nv_hgemm_f16x2.cl) */

static inline float nv_probe_a(int i, int l) { return (float)((i + 2 * l) % 5 - 2); }
static inline float nv_probe_b(int l, int j) { return (float)((3 * l + j) % 7 - 3); }

static inline uint nv_probe_tf32(float x)
{
  uint r;
  asm volatile("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

__kernel __attribute__((reqd_work_group_size(32, 1, 1))) void nv_ptx_probe(__global float *out)
{
  __local ushort8 at8[16 * 16 / 8], bt8[16 * 16 / 8]; /* A as [i][l], B as [l][j] */
  __local ushort *at = (__local ushort *)at8, *bt = (__local ushort *)bt8;
  const int lane = (int)get_local_id(0), g = lane / 4, t = lane % 4, q = lane / 8, r = lane % 8;
  for (int e = lane; e < 256; e += 32) {
    vstore_half(nv_probe_a(e / 16, e % 16), 0, (__local half *)at + e);
    vstore_half(nv_probe_b(e / 16, e % 16), 0, (__local half *)bt + e);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  uint a0, a1, a2, a3, b0, b1, b2, b3; /* asm outputs are plain scalars */
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
               : "r"((uint)(size_t)(at + ((q & 1) * 8 + r) * 16 + (q >> 1) * 8)));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(b0), "=r"(b1), "=r"(b2), "=r"(b3)
               : "r"((uint)(size_t)(bt + ((q & 1) * 8 + r) * 16 + (q >> 1) * 8)));
  for (int half_n = 0; half_n < 2; half_n++) {
    float d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
        : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(half_n ? b2 : b0), "r"(half_n ? b3 : b1),
          "f"(0.0f), "f"(0.0f), "f"(0.0f), "f"(0.0f));
    const int j = half_n * 8 + 2 * t;
    out[g * 16 + j] = d0, out[g * 16 + j + 1] = d1;
    out[(g + 8) * 16 + j] = d2, out[(g + 8) * 16 + j + 1] = d3;
  }

  const uint t0 = nv_probe_tf32(nv_probe_a(g, t)), t1 = nv_probe_tf32(nv_probe_a(g + 8, t));
  const uint t2 = nv_probe_tf32(nv_probe_a(g, t + 4)), t3 = nv_probe_tf32(nv_probe_a(g + 8, t + 4));
  const uint u0 = nv_probe_tf32(nv_probe_b(t, g)), u1 = nv_probe_tf32(nv_probe_b(t + 4, g));
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
      : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
      : "r"(t0), "r"(t1), "r"(t2), "r"(t3), "r"(u0), "r"(u1), "f"(0.0f), "f"(0.0f), "f"(0.0f),
        "f"(0.0f));
  out[256 + g * 8 + 2 * t] = d0, out[256 + g * 8 + 2 * t + 1] = d1;
  out[256 + (g + 8) * 8 + 2 * t] = d2, out[256 + (g + 8) * 8 + 2 * t + 1] = d3;

  const int i = lane % 16, j = lane % 8;
  ushort h[6];
  const float in[6] = {nv_probe_a(i, 0), nv_probe_a(i, 1), nv_probe_b(0, j), nv_probe_b(1, j),
                       nv_probe_a(i, 2), nv_probe_b(2, j)};
  for (int e = 0; e < 6; e++)
    vstore_half(in[e], e, (half *)h);
  uint f;
  asm volatile("fma.rn.f16x2 %0, %1, %2, %3;"
               : "=r"(f)
               : "r"((uint)h[0] | (uint)h[1] << 16), "r"((uint)h[2] | (uint)h[3] << 16),
                 "r"((uint)h[4] | (uint)h[5] << 16));
  const ushort fl = (ushort)f, fh = (ushort)(f >> 16);
  out[384 + 2 * lane] = vload_half(0, (const half *)&fl);
  out[385 + 2 * lane] = vload_half(0, (const half *)&fh);
}
