/* The nvidia family's kernel choice: which program of the table runs a
 * launch, and whether its k is cut into slices (split-k), both by a cost
 * model of whole waves of work-groups measured on the H200. */
#include <stdlib.h>

#include "nvidia.h"

static int ceil_div(int x, int y) { return (x + y - 1) / y; }

/* Split-k (kernels/nv_split.cl): when a launch's tiles leave much of the
 * GPU idle (n = 1024: 64 tiles of 128x128 on 132 SMs; 256 x 256 x 65536:
 * 4 tiles; n = 1536: 72 tiles of 128x256, 55% of one wave), k is cut into
 * slices run side by side into a workspace, then summed.  A slice keeps at
 * least SPLIT_MIN_K of k.  The sum costs a launch and two passes over the
 * slices' m x n floats: SPLIT_LAUNCH_S and SPLIT_BYTES_S, what they cost on
 * the H200 (4.3 TB/s measured, 70% of it; 10 us, as hgemm at n = 1024 in 4
 * slices ran no faster than whole). */
enum { SPLIT_MIN_K = 256 };
static const size_t split_max_bytes = (size_t)512 << 20;
static const double SPLIT_LAUNCH_S = 10e-6, SPLIT_BYTES_S = 3e12;

struct nv_choice {
  int unit;   /* st->prog.unit[] */
  int slices; /* of k; 1: no split */
};

/* Bytes of one slice of an m x n launch in the workspace: columns padded to
 * whole float4s, so that the kernels' vector stores stay aligned. */
static int slice_ld(int m) { return (m + 3) / 4 * 4; }

static size_t slice_bytes(int m, int n) { return (size_t)slice_ld(m) * (size_t)n * sizeof(float); }

static long tiles_of(const struct hop_ocl_params *p, const struct hop_ocl_launch *l)
{
  return (long)ceil_div(l->m, p->mwg) * ceil_div(l->n, p->nwg);
}

/* The step nv_split_k gives slice z: every slice must get some of k. */
static int slices_fitting(int slices, int k, int kwg)
{
  while (slices > 1) {
    int step = ceil_div(ceil_div(k, slices), kwg) * kwg;
    if ((long)(slices - 1) * step < k)
      break;
    slices--;
  }
  return slices;
}

/* Predicted seconds of launch l on unit v in `slices` slices: whole waves
 * of work-groups (a partial tile costs a whole one), each group computing
 * its tile over its slice of k, plus the sum. */
static double launch_seconds(const struct hop_ocl_nv_unit *v, const struct hop_ocl_launch *l,
                             long units, int slices)
{
  const struct hop_ocl_params *p = &v->params;
  long groups = tiles_of(p, l) * slices, room = units * v->per_cu;
  double waves = (double)((groups + room - 1) / room);
  double k = (double)ceil_div(ceil_div(l->k, slices), p->kwg) * p->kwg;
  double s = waves * 2.0 * p->mwg * p->nwg * k / (v->group_gflops * 1e9);
  if (slices > 1) {
    double passes = 2.0 * slices + 1.0 + (l->beta != 0.0f ? 1.0 : 0.0);
    s += SPLIT_LAUNCH_S + passes * (double)l->m * l->n * sizeof(float) / SPLIT_BYTES_S;
  }
  return s;
}

/* The program and the split for launch l, by the whole launch (so that
 * every slab agrees): the fastest by launch_seconds over the programs with
 * the kernel and the splits allowed (HOPBLAS_OPENCL_NV_SPLITK).  Split
 * launches of hgemm run the shgemm kernel into the float workspace; the
 * sum rounds to half once. */
static struct nv_choice nv_pick(const struct hop_ocl_state *st, const struct hop_ocl_launch *l)
{
  const struct hop_ocl_program *pr = &st->prog;
  const struct hop_ocl_nv *nv = hop_ocl_nv_of(st);
  const struct hop_ocl_nv_unit *list[HOP_OCL_UNITS];
  hop_ocl_nv_unit_list(nv, list);
  const long units = hop_ocl_device(st)->units > 0 ? (long)hop_ocl_device(st)->units : 1;
  const int asked = nv->split;
  enum hop_ocl_kernel ks = l->kernel == HOP_OCL_HGEMM ? HOP_OCL_SHGEMM : l->kernel;
  size_t per_slice = slice_bytes(l->m, l->n);
  size_t room = st->cap < split_max_bytes ? st->cap : split_max_bytes;
  long most = asked > 0 ? asked : asked < 0 ? 1 : l->k / SPLIT_MIN_K;
  most = most < HOP_OCL_NV_SPLIT_MAX ? most : HOP_OCL_NV_SPLIT_MAX;
  most = (size_t)most * per_slice <= room ? most : (long)(room / per_slice);
  if (most < 1 || nv->sum[0] == NULL)
    most = 1;
  struct nv_choice best = {-1, 1};
  double best_s = 0.0;
  for (int u = 0; u < pr->units; u++) {
    if (pr->unit[u].kernel[l->kernel] == NULL ||
        (list[u]->pair >= 0 && list[u]->pair != 2 * l->ta + l->tb))
      continue;
    /* The split's workspace and sums are float: double launches are never split. */
    long last = pr->unit[u].kernel[ks] != NULL && l->kernel != HOP_OCL_DGEMM ? most : 1;
    for (long s = asked > 0 ? last : 1; s <= last; s++) {
      int fit = slices_fitting(s > 1 ? (int)s : 1, l->k, pr->unit[u].params.kwg);
      double t = launch_seconds(list[u], l, units, fit);
      if (best.unit < 0 || t < best_s) {
        best = (struct nv_choice){u, fit};
        best_s = t;
      }
    }
  }
  return best;
}

/* The workspace for split launches, kept across calls like the pool's
 * buffers; false (no split) when it cannot be had. */
static bool work_ensure(struct hop_ocl_state *st, size_t bytes)
{
  struct hop_ocl_nv *nv = hop_ocl_nv_of(st);
  if (nv->work != NULL && nv->work_size >= bytes)
    return true;
  if (nv->work != NULL)
    clReleaseMemObject(nv->work);
  nv->work = NULL;
  nv->work_size = 0;
  size_t want = bytes + bytes / 4 <= st->cap ? bytes + bytes / 4 : bytes;
  cl_int err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
  if (!hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_ALLOC))
    nv->work = clCreateBuffer(st->ctx, CL_MEM_READ_WRITE, want, NULL, &err);
  if (err != CL_SUCCESS || nv->work == NULL) {
    nv->work = NULL;
    hop_log(2, "opencl: no split-k workspace of %zu bytes (error %d); k not split", want,
            (int)err);
    return false;
  }
  nv->work_size = want;
  return true;
}

/* Slab s as `slices` slices into the workspace, then their sum into C. */
static cl_int split_enqueue(struct hop_ocl_state *st, const struct hop_ocl_unit *un,
                            const struct hop_ocl_launch *s, int slices, cl_uint nwait,
                            const cl_event *wait, cl_event *done)
{
  struct hop_ocl_nv *nv = hop_ocl_nv_of(st);
  bool half = s->kernel == HOP_OCL_HGEMM;
  struct hop_ocl_launch part = *s;
  part.kernel = half ? HOP_OCL_SHGEMM : s->kernel;
  part.beta = 0.0f; /* the slices never read C: the sum applies beta */
  part.cin = part.cout = nv->work;
  part.cin_off = part.cout_off = 0;
  part.ldcin = part.ldcout = slice_ld(s->m);
  cl_int err = hop_ocl_generic_enqueue_with(st, un->kernel[part.kernel], &un->params, &part,
                                            (cl_uint)slices, nwait, wait, NULL);
  if (err != CL_SUCCESS)
    return err;
  cl_kernel kn = nv->sum[half];
  cl_int sl = slices;
  cl_uint i = 0;
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &s->m);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &s->n);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &sl);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &nv->work);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &part.ldcout);
  err |= clSetKernelArg(kn, i++, sizeof(cl_float), &s->beta);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &s->cin);
  err |= clSetKernelArg(kn, i++, sizeof(cl_ulong), &s->cin_off);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &s->ldcin);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &s->cout);
  err |= clSetKernelArg(kn, i++, sizeof(cl_ulong), &s->cout_off);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &s->ldcout);
  if (err != CL_SUCCESS)
    return CL_INVALID_KERNEL_ARGS;
  size_t local[2] = {64, 1};
  size_t global[2] = {((size_t)s->m + 63) / 64 * 64, (size_t)s->n};
  return clEnqueueNDRangeKernel(st->q[HOP_OCL_Q_EXEC], kn, 2, NULL, global, local, 0, NULL, done);
}

/* The sums, from the first program (every one holds nv_split.cl); without
 * them k is never split. */
static void sums_create(struct hop_ocl_state *st)
{
  struct hop_ocl_nv *nv = hop_ocl_nv_of(st);
  static const char *const names[2] = {"nv_sum_slices", "nv_sum_slices_half"};
  nv->sum_tried = true;
  cl_int err = CL_SUCCESS;
  for (int h = 0; h < 2 && err == CL_SUCCESS; h++)
    nv->sum[h] = clCreateKernel(st->prog.unit[0].program, names[h], &err);
  if (err == CL_SUCCESS)
    return;
  for (int h = 0; h < 2; h++)
    if (nv->sum[h] != NULL)
      clReleaseKernel(nv->sum[h]);
  nv->sum[0] = nv->sum[1] = NULL;
  hop_log(2, "opencl: no split-k sum kernel (error %d); k is never split", (int)err);
}

cl_int hop_ocl_nv_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l, int col0,
                          int cols, cl_uint nwait, const cl_event *wait, cl_event *done)
{
  struct hop_ocl_nv *nv = hop_ocl_nv_of(st);
  if (!nv->sum_tried && nv->split >= 0)
    sums_create(st);
  struct nv_choice c = nv_pick(st, l);
  if (c.unit < 0)
    return CL_INVALID_KERNEL;
  const struct hop_ocl_unit *un = &st->prog.unit[c.unit];
  struct hop_ocl_launch s = hop_ocl_generic_slab(l, col0, cols);
  nv->used |= 1u << c.unit;
  if (c.slices > 1 &&
      work_ensure(st, (size_t)c.slices * slice_bytes(s.m, s.n))) {
    nv->split_used = c.slices > nv->split_used ? c.slices : nv->split_used;
    return split_enqueue(st, un, &s, c.slices, nwait, wait, done);
  }
  return hop_ocl_generic_enqueue_with(st, un->kernel[l->kernel], &un->params, &s, 1, nwait, wait,
                                      done);
}

/* Slabs of columns must start on a tile of every program: the widest NWG
 * (all are powers of two). */
int hop_ocl_nv_col_grain(const struct hop_ocl_state *st)
{
  int grain = 1;
  for (int u = 0; u < st->prog.units; u++)
    grain = st->prog.unit[u].params.nwg > grain ? st->prog.unit[u].params.nwg : grain;
  return grain;
}

void hop_ocl_nv_release(struct hop_ocl_state *st)
{
  struct hop_ocl_nv *nv = hop_ocl_nv_of(st);
  st->fam = NULL;
  if (nv == NULL)
    return;
  for (int h = 0; h < 2; h++)
    if (nv->sum[h] != NULL)
      clReleaseKernel(nv->sum[h]);
  if (nv->work != NULL)
    clReleaseMemObject(nv->work);
  free(nv);
}
