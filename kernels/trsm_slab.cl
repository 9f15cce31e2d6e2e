/* One slab of the OpenCL engine's blocked trsm (backends/opencl/level3_tri.c),
 * solved on the device by substitution, so that the whole solve stays there:
 * work-item j solves M v = alpha v for its vector v of nb entries (at
 * b + b_off + j * vstep, entries estep apart: a column of the slab, or a row
 * for trsm's right side), M the nb x nb triangle at a + a_off with leading
 * dimension lda, read as M(i, l) = A(l, i) when trans, else A(i, l); lower or
 * upper; a unit diagonal is never read.  Every work-item reads the same M
 * (a broadcast through the caches) and keeps its vector in private memory.
 *
 * Built with -DHOP_FP64 in double (devices with cl_khr_fp64), and -DNBMAX,
 * the largest slab. */
#ifdef HOP_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

#ifndef NBMAX
#define NBMAX 128 /* entries of a vector kept in private memory */
#endif

#define M(i, l) (trans ? a[(ulong)(l) + (ulong)(i) * (ulong)lda] : a[(ulong)(i) + (ulong)(l) * (ulong)lda])

__kernel void trsm_slab(int nb, int count, real alpha, __global const real *a, ulong a_off,
                        int lda, int trans, int lower, int unit, __global real *b, ulong b_off,
                        ulong vstep, ulong estep)
{
  int j = (int)get_global_id(0);
  if (j >= count || nb > NBMAX)
    return;
  __global real *v = b + b_off + (ulong)j * vstep;
  a += a_off;
  real x[NBMAX];
  for (int i = 0; i < nb; i++)
    x[i] = alpha * v[(ulong)i * estep];
  if (lower) {
    for (int i = 0; i < nb; i++) {
      real s = x[i];
      for (int l = 0; l < i; l++)
        s -= M(i, l) * x[l];
      x[i] = unit ? s : s / M(i, i);
    }
  } else {
    for (int i = nb - 1; i >= 0; i--) {
      real s = x[i];
      for (int l = i + 1; l < nb; l++)
        s -= M(i, l) * x[l];
      x[i] = unit ? s : s / M(i, i);
    }
  }
  for (int i = 0; i < nb; i++)
    v[(ulong)i * estep] = x[i];
}
