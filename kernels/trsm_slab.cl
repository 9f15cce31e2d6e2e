/* One slab of the OpenCL engine's blocked trsm (backends/opencl/level3_tri.c),
 * solved on the device by substitution, so that the whole solve stays there.
 * Two kernels solve the same systems.  trsm_slab_wg, where the device takes
 * a work-group of NBMAX (rounded up to 32) work-items: a work-group solves
 * COLS vectors, work-item l holding entry l of each; at step i the owner of
 * entry i divides by M(i, i) and shares x_i through local memory, and the
 * others take M(l, i) x_i from theirs (column substitution).  Every step
 * runs on all the entries at once, so a slab of 128 costs 128 short steps,
 * where trsm_slab below runs each vector's 8192 multiply-adds on one
 * work-item, at a few work-items per compute unit.
 *
 * trsm_slab: work-item j solves M v = alpha v for its vector v of nb entries (at
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

#ifndef COLS
#define COLS 4 /* vectors per work-group of trsm_slab_wg */
#endif

/* Whether entry l is updated by step i's x_i: it lies after i in the solve's order. */
#define AFTER(l, i) (lower ? (l) > (i) : (l) < (i))

__kernel void trsm_slab_wg(int nb, int count, real alpha, __global const real *a, ulong a_off,
                           int lda, int trans, int lower, int unit, __global real *b, ulong b_off,
                           ulong vstep, ulong estep)
{
  __local real xs[2][COLS]; /* x_i of each vector, alternate steps in alternate rows */
  int l = (int)get_local_id(0), j0 = (int)get_group_id(0) * COLS;
  bool mine = l < nb;
  __global real *v = b + b_off + (ulong)l * estep;
  a += a_off;
  real r[COLS];
  for (int c = 0; c < COLS; c++)
    r[c] = mine && j0 + c < count ? alpha * v[(ulong)(j0 + c) * vstep] : (real)0;
  /* M(l, i) of the next step read a step ahead, so that its latency is not waited for. */
  int i = lower ? 0 : nb - 1;
  real m_next = mine && AFTER(l, i) ? M(l, i) : (real)0;
  for (int step = 0; step < nb; step++) {
    i = lower ? step : nb - 1 - step;
    int next = lower ? i + 1 : i - 1, buf = step & 1;
    real m = m_next;
    m_next = mine && step + 1 < nb && AFTER(l, next) ? M(l, next) : (real)0;
    if (l == i) {
      if (!unit) {
        real d = M(i, i);
        for (int c = 0; c < COLS; c++)
          r[c] /= d;
      }
      for (int c = 0; c < COLS; c++)
        xs[buf][c] = r[c];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* xs[buf] is written again two steps on, after every work-item passed the next barrier. */
    if (mine && AFTER(l, i))
      for (int c = 0; c < COLS; c++)
        r[c] -= m * xs[buf][c];
  }
  if (mine)
    for (int c = 0; c < COLS; c++)
      if (j0 + c < count)
        v[(ulong)(j0 + c) * vstep] = r[c];
}
