/* Split-k for the nvidia family's kernels (backends/opencl/nvidia.c): when
 * a launch has too few tiles of C to fill the GPU, k is cut into slices
 * run side by side, and the partial products are summed afterwards.
 *
 * A launch with get_num_groups(2) = S > 1 is S slices: slice z multiplies
 * steps [z * step, (z + 1) * step) of k, step = ceil(k / S) rounded up to
 * whole KWG tiles, and writes alpha * its product (beta = 0) to the
 * family's workspace at cout + z * ldcout * n.  The host picks S so that
 * no slice is empty.  nv_sum_slices then writes
 * C = sum of the slices + beta * C, in float, rounding once. */

/* Narrow a kernel's arguments to its slice; nothing to do without one. */
static inline void nv_split_k(int *k, ulong *a_off, int lda, int ta, ulong *b_off, int ldb,
                              int tb, ulong *cout_off, int ldcout, int n, int kwg)
{
  const int slices = (int)get_num_groups(2);
  if (slices <= 1)
    return;
  const int z = (int)get_group_id(2);
  const int step = ((*k + slices - 1) / slices + kwg - 1) / kwg * kwg;
  const int k0 = min(z * step, *k);
  *k = min(step, *k - k0);
  *a_off += ta ? (ulong)k0 : (ulong)k0 * (ulong)lda;
  *b_off += tb ? (ulong)k0 * (ulong)ldb : (ulong)k0;
  *cout_off += (ulong)z * (ulong)ldcout * (ulong)n;
}

/* The sum of `slices` m x n partial products at w (leading dimension ldw,
 * one after another), plus beta * cin; beta == 0 never reads cin.  One
 * work-item per element of C, work-groups along m. */
static inline float nv_slice_sum(int slices, const __global float *w, int ldw, int n, int i,
                                 int j)
{
  const ulong stride = (ulong)ldw * (ulong)n;
  const __global float *p = w + (ulong)j * (ulong)ldw + (ulong)i;
  float s = 0.0f;
  for (int z = 0; z < slices; z++)
    s += p[(ulong)z * stride];
  return s;
}

__kernel void nv_sum_slices(int m, int n, int slices, const __global float *w, int ldw,
                            float beta, const __global float *cin, ulong cin_off, int ldcin,
                            __global float *cout, ulong cout_off, int ldcout)
{
  const int i = (int)get_global_id(0), j = (int)get_global_id(1);
  if (i >= m || j >= n)
    return;
  float s = nv_slice_sum(slices, w, ldw, n, i, j);
  if (beta != 0.0f)
    s = fma(beta, cin[cin_off + (ulong)j * (ulong)ldcin + (ulong)i], s);
  cout[cout_off + (ulong)j * (ulong)ldcout + (ulong)i] = s;
}

/* hgemm: the slices are float (the shgemm kernel wrote them), C is half. */
__kernel void nv_sum_slices_half(int m, int n, int slices, const __global float *w, int ldw,
                                 float beta, const __global half *cin, ulong cin_off, int ldcin,
                                 __global half *cout, ulong cout_off, int ldcout)
{
  const int i = (int)get_global_id(0), j = (int)get_global_id(1);
  if (i >= m || j >= n)
    return;
  float s = nv_slice_sum(slices, w, ldw, n, i, j);
  if (beta != 0.0f)
    s = fma(beta, vload_half(0, cin + cin_off + (ulong)j * (ulong)ldcin + (ulong)i), s);
  vstore_half_rte(s, 0, cout + cout_off + (ulong)j * (ulong)ldcout + (ulong)i);
}
