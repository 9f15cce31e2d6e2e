/* The doubled operand of a complex GEMM's real embedding (core/complex_planes.c:
 * [Br Bi; -Bi Br], or [Ar -Ai; Ai Ar]), formed on the device from the
 * caller's complex elements (backends/opencl/plane_spread.c), so that half
 * the bytes cross the link and the host copies each element once.
 *
 * The plane interleaves its quadrants on both axes: element (2i + q, 2j + r)
 * is quadrant (q, r) of the caller's element (i, j), a part (re or im) with
 * a sign, the conjugation already folded into the sign.  `code` holds each
 * quadrant's two bits at bit 2 (2q + r): bit 0 takes the imaginary part,
 * bit 1 negates it.
 *
 * Work-item (i, j) reads complex element (i, j) of the rows x cols block at
 * src + src_off (leading dimension ld_src, in complex elements) and writes
 * the 2 x 2 it stands for into the plane at dst + dst_off (ld_dst, in real
 * elements): two pairs, each in one column.  Built with -DHOP_FP64 for
 * double complex. */
#ifdef HOP_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#else
typedef float real;
typedef float2 real2;
#endif

/* Quadrant (q, r)'s value of x. */
static inline real quadrant(real2 x, int code, int q, int r)
{
  const int bits = code >> (2 * (2 * q + r));
  const real v = (bits & 1) ? x.y : x.x;
  return (bits & 2) ? -v : v;
}

__kernel void plane_spread(int rows, int cols, __global const real2 *src, ulong src_off,
                           int ld_src, __global real *dst, ulong dst_off, int ld_dst, int code)
{
  const int i = (int)get_global_id(0), j = (int)get_global_id(1);
  if (i >= rows || j >= cols)
    return;
  const real2 x = src[src_off + (ulong)j * (ulong)ld_src + (ulong)i];
  for (int r = 0; r < 2; r++) {
    __global real *out = dst + dst_off + (ulong)(2 * j + r) * (ulong)ld_dst + (ulong)(2 * i);
    out[0] = quadrant(x, code, 0, r);
    out[1] = quadrant(x, code, 1, r);
  }
}
