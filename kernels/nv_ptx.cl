/* The inline PTX of the nvidia family's kernels (nv_hgemm_mma.cl,
 * nv_sgemm_3xtf32.cl, nv_hgemm_f16x2.cl), in one place: the family puts
 * this file in front of each of them when it builds (backends/opencl/
 * nvidia.c).  kernels/nv_mma_emu.cl defines the same names in plain
 * OpenCL C and takes this file's place under HOPBLAS_OPENCL_NV_EMULATE=1;
 * the two are never built together.  Builds only where the compiler takes
 * PTX (NVIDIA, sm_80 or later); kernels/nv_probe.cl says whether it does.
 * Unused helpers cost nothing: static inline functions that a kernel does
 * not call are not emitted. */

/* The emulation passes a local scratch area along; the instructions need none. */
#define NV_SCRATCH_DECL
#define NV_SCRATCH_PARAM
#define NV_SCRATCH

/* ldmatrix.sync.aligned.m8n8.x4.shared.b16 at t + off (off per lane), and
 * the same with .trans: one body for both, the instruction's text joined
 * at compile time.  A __local pointer converted to an integer is its
 * .shared address. */
#define NV_LDSM_X4(name, trans)                                                                  \
  static inline uint4 name(const __local ushort *t, int off)                                     \
  {                                                                                              \
    uint r0, r1, r2, r3; /* asm outputs are plain scalars */                                     \
    asm volatile("ldmatrix.sync.aligned.m8n8.x4" trans ".shared.b16 {%0, %1, %2, %3}, [%4];"     \
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)                                        \
                 : "r"((uint)(size_t)(t + off)));                                                \
    return (uint4)(r0, r1, r2, r3);                                                              \
  }
NV_LDSM_X4(nv_ldsm_x4, "")
NV_LDSM_X4(nv_ldsm_x4_trans, ".trans")

/* d += A B on the tensor cores: m16n8k16, f16 operands, f32 sums. */
static inline void nv_mma_f16(float4 *d, uint4 a, uint2 b)
{
  float r0, r1, r2, r3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
      : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y), "f"(d->x), "f"(d->y),
        "f"(d->z), "f"(d->w));
  *d = (float4)(r0, r1, r2, r3);
}

/* cvt.rna.tf32.f32: x rounded to tf32, to nearest, ties away from zero. */
static inline uint nv_tf32(float x)
{
  uint r;
  asm volatile("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

/* d += A B on the tensor cores: m16n8k8, tf32 operands, f32 sums. */
static inline void nv_mma_tf32(float4 *d, uint4 a, uint2 b)
{
  float r0, r1, r2, r3; /* asm outputs are plain scalars */
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
      : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y), "f"(d->x), "f"(d->y),
        "f"(d->z), "f"(d->w));
  *d = (float4)(r0, r1, r2, r3);
}

/* 16 bytes from global p to local t, of which the first `bytes` are read
 * and the rest zero-filled; in flight until nv_cp_wait. */
static inline void nv_cp16(__local void *t, const __global void *p, int bytes)
{
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
               :
               : "r"((uint)(size_t)t), "l"((ulong)(size_t)p), "r"(bytes)
               : "memory");
}

static inline void nv_cp_commit(void) { asm volatile("cp.async.commit_group;" : : : "memory"); }

/* Wait until the copies of the step about to be multiplied have landed:
 * NSTAGES - 2 younger groups may still be in flight.  A macro, because
 * NSTAGES (2 to 8) is the kernel's, defined after this file. */
#define nv_cp_wait() NV_CP_WAIT_OF(NSTAGES)
#define NV_CP_WAIT_OF(stages) NV_CP_WAIT_OF_(stages)
#define NV_CP_WAIT_OF_(stages) nv_cp_wait_##stages()
static inline void nv_cp_wait_2(void) { asm volatile("cp.async.wait_group 0;" : : : "memory"); }
static inline void nv_cp_wait_3(void) { asm volatile("cp.async.wait_group 1;" : : : "memory"); }
static inline void nv_cp_wait_4(void) { asm volatile("cp.async.wait_group 2;" : : : "memory"); }
static inline void nv_cp_wait_5(void) { asm volatile("cp.async.wait_group 3;" : : : "memory"); }
static inline void nv_cp_wait_6(void) { asm volatile("cp.async.wait_group 4;" : : : "memory"); }
static inline void nv_cp_wait_7(void) { asm volatile("cp.async.wait_group 5;" : : : "memory"); }
static inline void nv_cp_wait_8(void) { asm volatile("cp.async.wait_group 6;" : : : "memory"); }

/* fma.rn.f16x2: d = a * b + c on the two halves of each word. */
static inline uint nv_hfma2(uint a, uint b, uint c)
{
  uint d;
  asm volatile("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* d += A B on the FP64 tensor cores: m16n8k8, f64 throughout (sm_90; 64.7
 * TFLOPS in benchmark/nvidia/f64probe.c on the H200).  Registers as for
 * m16n8k8 .tf32 (kernels/nv_mma_emu.cl's comment), one double each. */
static inline void nv_mma_f64(double4 *d, double4 a, double2 b)
{
  double r0 = d->x, r1 = d->y, r2 = d->z, r3 = d->w;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+d"(r0), "+d"(r1), "+d"(r2), "+d"(r3)
               : "d"(a.x), "d"(a.y), "d"(a.z), "d"(a.w), "d"(b.x), "d"(b.y));
  *d = (double4)(r0, r1, r2, r3);
}
#endif
