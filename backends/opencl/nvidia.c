/* The nvidia family: the kernels/nv_*.cl kernels for NVIDIA GPUs through
 * NVIDIA's OpenCL (benchmark/nvidia/README.md has their measurements).
 * sgemm runs sgemm_nv_fma (FP32 FMA, 128x256 tiles, 128x128 while those
 * fill one wave of the GPU), hgemm and shgemm run *_nv_mma on the tensor
 * cores through inline PTX, and HOPBLAS_OPENCL_NV_SGEMM=3xtf32 puts sgemm
 * on the tensor cores as 3xTF32 (opt-in: slower than FMA on the H200).
 *
 * The family is offered only past a gate: on an NVIDIA device,
 * kernels/nv_probe.cl must build and compute two small products exactly
 * with every PTX instruction the kernels use.  Anywhere else (PoCL
 * rejects the PTX) the engine keeps the generic family.  The test knob
 * HOPBLAS_OPENCL_NV_EMULATE=1 builds the kernels with kernels/nv_mma_emu.cl,
 * plain OpenCL C stand-ins for the PTX, on any device and without the
 * probe, so that CI checks everything around the instructions on PoCL.
 *
 * Each kernel file is its own program (the files share helper names), so
 * the family owns several programs (program.c builds and caches each);
 * they all take the generic family's arguments and launch geometry. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "family.h"

/* The programs, with the tiles measured fastest on the H200 (README.md):
 * work-groups of MDIMC x 1 items, one per MWG x NWG tile of C.  Every
 * program also holds kernels/nv_split.cl (split-k and its sums).
 *
 * group_gflops is what one work-group computes per second when a launch
 * fills the GPU, measured on the H200 (132 SMs, per_cu work-groups on each):
 * 45.0, 34.5 and 28.8 TFLOPS for the FMA tiles at n = 8192 (doc/FAMILIES.md;
 * the 128x64 tile from 8192 x 64 x 8192 in one wave, the 64x128 tile taken
 * as its mirror), 313 for the tensor cores (hgemm), 41.5 for 3xTF32
 * (benchmark/nvidia/README.md).
 * nv_pick compares launches with them. */
static const struct nv_unit {
  const char *name, *file, *defines;
  bool ptx; /* inline PTX: the probe, or the emulation, must vouch for it */
  const char *kernel[HOP_OCL_KERNELS];
  struct hop_ocl_params params; /* MWG NWG KWG MDIMC NDIMC, the rest unused */
  double group_gflops;
  int per_cu;
  int pair; /* built for one transpose pair, 2 ta + tb; -1: all four */
} fma_wide[4] = {
  /* The 128x256 tile built for one transpose pair keeps only that pair's
   * addresses live: 46.4 TFLOPS at n = 8192 against 45.4 for one build of
   * all four (2026-11-22, variants-fma4.txt). */
  {"fma-128x256-nn", "nv_sgemm_fma.cl", "-DNV_TA=0 -DNV_TB=0", false,
   {[HOP_OCL_SGEMM] = "sgemm_nv_fma"}, {128, 256, 8, 256, 1, 0, 0, 0, 0, 0}, 351, 1, 0},
  {"fma-128x256-nt", "nv_sgemm_fma.cl", "-DNV_TA=0 -DNV_TB=1", false,
   {[HOP_OCL_SGEMM] = "sgemm_nv_fma"}, {128, 256, 8, 256, 1, 0, 0, 0, 0, 0}, 351, 1, 1},
  {"fma-128x256-tn", "nv_sgemm_fma.cl", "-DNV_TA=1 -DNV_TB=0", false,
   {[HOP_OCL_SGEMM] = "sgemm_nv_fma"}, {128, 256, 8, 256, 1, 0, 0, 0, 0, 0}, 351, 1, 2},
  {"fma-128x256-tt", "nv_sgemm_fma.cl", "-DNV_TA=1 -DNV_TB=1", false,
   {[HOP_OCL_SGEMM] = "sgemm_nv_fma"}, {128, 256, 8, 256, 1, 0, 0, 0, 0, 0}, 351, 1, 3},
},
  fma_square = {"fma-128x128", "nv_sgemm_fma.cl", "-DNWG=128 -DKWG=16", false,
                {[HOP_OCL_SGEMM] = "sgemm_nv_fma"}, {128, 128, 16, 256, 1, 0, 0, 0, 0, 0}, 261, 1,
                -1},
  fma_narrow = {"fma-128x64", "nv_sgemm_fma.cl", "-DNWG=64 -DKWG=16", false,
                {[HOP_OCL_SGEMM] = "sgemm_nv_fma"}, {128, 64, 16, 256, 1, 0, 0, 0, 0, 0}, 218, 1,
                -1},
  fma_short = {"fma-64x128", "nv_sgemm_fma.cl", "-DMWG=64 -DNWG=128 -DKWG=16", false,
               {[HOP_OCL_SGEMM] = "sgemm_nv_fma"}, {64, 128, 16, 256, 1, 0, 0, 0, 0, 0}, 218, 1,
               -1},
  mma = {"mma-128x128", "nv_hgemm_mma.cl", "", true,
         {[HOP_OCL_HGEMM] = "hgemm_nv_mma", [HOP_OCL_SHGEMM] = "shgemm_nv_mma"},
         {128, 128, 16, 256, 1, 0, 0, 0, 0, 0}, 1185, 2, -1},
  tf32 = {"3xtf32-128x128", "nv_sgemm_3xtf32.cl", "", true,
          {[HOP_OCL_SGEMM] = "sgemm_nv_3xtf32"}, {128, 128, 8, 128, 1, 0, 0, 0, 0, 0}, 157, 2, -1},
  /* HOPBLAS_OPENCL_FP16=accumulate: half arithmetic, fma.rn.f16x2, in place
   * of the tensor cores for hgemm and shgemm (31 TFLOPS at n = 8192 on the
   * H200, doc/PERFORMANCE.md). */
  f16x2 = {"f16x2-128x128", "nv_hgemm_f16x2.cl", "", true,
           {[HOP_OCL_HGEMM] = "hgemm_nv_f16x2", [HOP_OCL_SHGEMM] = "shgemm_nv_f16x2"},
           {128, 128, 16, 256, 1, 0, 0, 0, 0, 0}, 235, 1, -1};

/* What st->prog.unit[] holds, in order.  nv_pick chooses among those that
 * serve a launch's dtype and transpose pair. */
static int unit_list(const struct hop_ocl_state *st, const struct nv_unit **out)
{
  int n = 0;
  if (st->fam->nv.tf32) {
    out[n++] = &tf32;
  } else {
    for (int pair = 0; pair < 4; pair++)
      out[n++] = &fma_wide[pair];
    out[n++] = &fma_square;
    out[n++] = &fma_narrow;
    out[n++] = &fma_short;
  }
  out[n++] = st->fam->nv.f16x2 ? &f16x2 : &mma;
  return n;
}

static int nv_units(const struct hop_ocl_state *st, struct hop_ocl_unit_spec *out)
{
  const struct nv_unit *list[HOP_OCL_UNITS];
  int n = unit_list(st, list);
  bool emulate = st->fam->nv.emulate;
  for (int u = 0; u < n; u++) {
    const struct nv_unit *v = list[u];
    struct hop_ocl_unit_spec *s = &out[u];
    *s = (struct hop_ocl_unit_spec){.name = v->name, .params = v->params};
    int f = 0;
    if (v->ptx && emulate)
      s->sources[f++] = "nv_mma_emu.cl";
    s->sources[f++] = "nv_split.cl";
    s->sources[f++] = v->file;
    s->sources[f] = NULL;
    /* PoCL 3.1's optimiser miscomputes these kernels (barriers in a loop
     * chosen at run time) on several threads; -O0 is right, and quick. */
    snprintf(s->options, sizeof s->options, "%s%s", v->defines,
             emulate ? " -cl-opt-disable" : "");
    memcpy(s->kernel, v->kernel, sizeof s->kernel);
  }
  return n;
}

const char *hop_ocl_nvidia_unit_name(const struct hop_ocl_state *st, int unit)
{
  const struct nv_unit *list[HOP_OCL_UNITS];
  return unit < unit_list(st, list) ? list[unit]->name : "?";
}

/* ---- launches ------------------------------------------------------------ */

static int ceil_div(int x, int y) { return (x + y - 1) / y; }

/* Split-k (kernels/nv_split.cl): when a launch's tiles leave much of the
 * GPU idle (n = 1024: 64 tiles of 128x128 on 132 SMs; 256 x 256 x 65536:
 * 4 tiles; n = 1536: 72 tiles of 128x256, 55% of one wave), k is cut into
 * slices run side by side into a workspace, then summed.  A slice keeps at
 * least SPLIT_MIN_K of k.  The sum costs a launch and two passes over the
 * slices' m x n floats: SPLIT_LAUNCH_S and SPLIT_BYTES_S, what they cost on
 * the H200 (4.3 TB/s measured, 70% of it; 10 us, as hgemm at n = 1024 in 4
 * slices ran no faster than whole). */
enum { SPLIT_MIN_K = 256, SPLIT_MAX = 64 };
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
static double launch_seconds(const struct nv_unit *v, const struct hop_ocl_launch *l, long units,
                             int slices)
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
  const struct nv_unit *list[HOP_OCL_UNITS];
  unit_list(st, list);
  const long units = hop_ocl_device(st)->units > 0 ? (long)hop_ocl_device(st)->units : 1;
  const int asked = st->fam->nv.split;
  enum hop_ocl_kernel ks = l->kernel == HOP_OCL_HGEMM ? HOP_OCL_SHGEMM : l->kernel;
  size_t per_slice = slice_bytes(l->m, l->n);
  size_t room = st->cap < split_max_bytes ? st->cap : split_max_bytes;
  long most = asked > 0 ? asked : asked < 0 ? 1 : l->k / SPLIT_MIN_K;
  most = most < SPLIT_MAX ? most : SPLIT_MAX;
  most = (size_t)most * per_slice <= room ? most : (long)(room / per_slice);
  if (most < 1 || st->fam->nv.sum[0] == NULL)
    most = 1;
  struct nv_choice best = {-1, 1};
  double best_s = 0.0;
  for (int u = 0; u < pr->units; u++) {
    if (pr->unit[u].kernel[l->kernel] == NULL ||
        (list[u]->pair >= 0 && list[u]->pair != 2 * l->ta + l->tb))
      continue;
    long last = pr->unit[u].kernel[ks] != NULL ? most : 1;
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
  struct hop_ocl_nv *nv = &st->fam->nv;
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
  struct hop_ocl_nv *nv = &st->fam->nv;
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
  struct hop_ocl_nv *nv = &st->fam->nv;
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

static cl_int nv_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l, int col0,
                         int cols, cl_uint nwait, const cl_event *wait, cl_event *done)
{
  struct hop_ocl_nv *nv = &st->fam->nv;
  if (!nv->sum_tried && nv->split >= 0)
    sums_create(st);
  struct nv_choice c = nv_pick(st, l);
  if (c.unit < 0)
    return CL_INVALID_KERNEL;
  const struct hop_ocl_unit *un = &st->prog.unit[c.unit];
  struct hop_ocl_launch s = hop_ocl_family_slab(l, col0, cols);
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
static int nv_col_grain(const struct hop_ocl_state *st)
{
  int grain = 1;
  for (int u = 0; u < st->prog.units; u++)
    grain = st->prog.unit[u].params.nwg > grain ? st->prog.unit[u].params.nwg : grain;
  return grain;
}

static void nv_describe(const struct hop_ocl_state *st, FILE *out)
{
  const struct nv_unit *list[HOP_OCL_UNITS];
  int n = unit_list(st, list);
  for (int u = 0; u < n; u++) {
    const struct nv_unit *v = list[u];
    char entries[96] = "";
    for (int k = 0; k < HOP_OCL_KERNELS; k++)
      if (v->kernel[k] != NULL)
        snprintf(entries + strlen(entries), sizeof entries - strlen(entries), "%s%s",
                 entries[0] ? ", " : "", v->kernel[k]);
    fprintf(out, "  kernels %s: %s (%s%s%s), %dx%d tiles of C, %d work-items%s\n", v->name, entries,
            v->file, v->defines[0] ? " " : "", v->defines, v->params.mwg, v->params.nwg,
            v->params.mdimc,
            v->pair >= 0 ? " (its transpose pair only)"
            : u == 0 || v == &mma ? "" : " (where predicted faster)");
  }
  fprintf(out, "  split-k: %s\n",
          st->fam->nv.split < 0   ? "off (HOPBLAS_OPENCL_NV_SPLITK=off)"
          : st->fam->nv.split > 0 ? "every launch in as many slices as asked (HOPBLAS_OPENCL_NV_SPLITK)"
                                  : "when predicted faster (few tiles of C, long k)");
  fprintf(out, "  hgemm, shgemm: %s\n",
          st->fam->nv.f16x2 ? "half arithmetic, fma.rn.f16x2 (HOPBLAS_OPENCL_FP16=accumulate)"
                            : "tensor cores, float sums (HOPBLAS_OPENCL_FP16=accumulate for "
                              "fma.rn.f16x2)");
  fprintf(out, "  sgemm: %s\n",
          st->fam->nv.tf32 ? "3xTF32 on the tensor cores (HOPBLAS_OPENCL_NV_SGEMM=3xtf32)"
                           : "FP32 FMA (HOPBLAS_OPENCL_NV_SGEMM=3xtf32 for the tensor cores)");
}

/* Every file, so that the tuning scope's source hash follows them all. */
static const char *const nv_sources[] = {"nv_sgemm_fma.cl", "nv_hgemm_mma.cl", "nv_sgemm_3xtf32.cl",
                                         "nv_hgemm_f16x2.cl", "nv_mma_emu.cl", "nv_split.cl",
                                         NULL};

const struct hop_ocl_family hop_ocl_family_nvidia = {
  .name = "nvidia",
  .sources = nv_sources,
  .units = nv_units,
  .enqueue = nv_enqueue,
  .col_grain = nv_col_grain,
  .describe = nv_describe,
};

/* ---- the gate ------------------------------------------------------------ */

bool hop_ocl_nvidia_device(const struct hop_ocl_device *d)
{
  return strcasestr(d->vendor, "nvidia") != NULL || strcasestr(d->name, "nvidia") != NULL;
}

enum { PROBE_ITEMS = 32, PROBE_OUT = 448 };

static int probe_a(int i, int l) { return (i + 2 * l) % 5 - 2; }
static int probe_b(int l, int j) { return (3 * l + j) % 7 - 3; }

/* kernels/nv_probe.cl's products, from the formula in its header: A(i, l) =
 * (i + 2 l) % 5 - 2, B(l, j) = (3 l + j) % 7 - 3; out[16 i + j] sums 16
 * terms (i, j < 16), out[256 + 8 i + j] the first 8 (j < 8); out[384 +
 * 2 lane + {0, 1}] the two halves of one fma.rn.f16x2. */
static void probe_expected(float *want)
{
  for (int lane = 0; lane < PROBE_ITEMS; lane++) {
    int i = lane % 16, j = lane % 8;
    want[384 + 2 * lane] = (float)(probe_a(i, 0) * probe_b(0, j) + probe_a(i, 2));
    want[385 + 2 * lane] = (float)(probe_a(i, 1) * probe_b(1, j) + probe_b(2, j));
  }
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      int s16 = 0, s8 = 0;
      for (int l = 0; l < 16; l++) {
        int p = probe_a(i, l) * probe_b(l, j);
        s16 += p;
        s8 += l < 8 ? p : 0;
      }
      want[i * 16 + j] = (float)s16;
      if (j < 8)
        want[256 + i * 8 + j] = (float)s8;
    }
}

/* Build and run nv_ptx_probe: one work-group of 32 items, one float[448]. */
static bool probe(struct hop_ocl_state *st, char *why, size_t len)
{
  const char *const files[] = {"nv_probe.cl", NULL};
  char sub[200] = "";
  char *src = hop_ocl_source_join(files, sub, sizeof sub);
  cl_program prog = src ? hop_ocl_program_build(st, "nvidia/probe", src, "", sub, sizeof sub)
                        : NULL;
  free(src);
  if (prog == NULL) {
    snprintf(why, len, "nv_ptx_probe: %.100s", sub);
    return false;
  }
  float out[PROBE_OUT], want[PROBE_OUT];
  size_t items = PROBE_ITEMS;
  cl_int err;
  cl_kernel kn = clCreateKernel(prog, "nv_ptx_probe", &err);
  cl_mem buf = NULL;
  if (err == CL_SUCCESS)
    buf = clCreateBuffer(st->ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(kn, 0, sizeof buf, &buf);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(st->q[HOP_OCL_Q_EXEC], kn, 1, NULL, &items, &items, 0, NULL,
                                 NULL);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(st->q[HOP_OCL_Q_EXEC], buf, CL_TRUE, 0, sizeof out, out, 0, NULL,
                              NULL);
  if (buf != NULL)
    clReleaseMemObject(buf);
  if (kn != NULL)
    clReleaseKernel(kn);
  clReleaseProgram(prog);
  if (err != CL_SUCCESS) {
    snprintf(why, len, "nv_ptx_probe built but did not run (error %d)", (int)err);
    return false;
  }
  probe_expected(want);
  int wrong = 0, first = -1;
  for (int i = 0; i < PROBE_OUT; i++)
    if (out[i] != want[i] && wrong++ == 0)
      first = i;
  if (wrong > 0) {
    snprintf(why, len, "nv_ptx_probe computed %d of %d values wrong (out[%d] = %g, not %g)", wrong,
             PROBE_OUT, first, (double)out[first], (double)want[first]);
    return false;
  }
  snprintf(why, len, "nv_ptx_probe exact: %d of %d values", PROBE_OUT, PROBE_OUT);
  return true;
}

bool hop_ocl_nvidia_setup(struct hop_ocl_state *st, char *why, size_t len)
{
  struct hop_ocl_nv *nv = &st->fam->nv;
  const char *sgemm = hop_config_get("HOPBLAS_OPENCL_NV_SGEMM");
  nv->tf32 = sgemm != NULL && strcmp(sgemm, "3xtf32") == 0;
  if (sgemm != NULL && *sgemm != '\0' && !nv->tf32 && strcmp(sgemm, "fma") != 0)
    hop_log(1, "HOPBLAS_OPENCL_NV_SGEMM=%.40s is not fma|3xtf32; using fma", sgemm);
  nv->emulate = hop_config_int("HOPBLAS_OPENCL_NV_EMULATE", 0, 1, 0) == 1;
  /* Half arithmetic is opt-in, as in the image families; `products` has no
   * kernel here (the tensor cores already take half products). */
  const char *fp16 = hop_config_get("HOPBLAS_OPENCL_FP16");
  nv->f16x2 = fp16 != NULL && strcmp(fp16, "accumulate") == 0;
  if (fp16 != NULL && strcmp(fp16, "products") == 0)
    hop_log(1, "HOPBLAS_OPENCL_FP16=products: the nvidia family has no such kernel; hgemm on "
               "the tensor cores (float sums)");
  else if (fp16 != NULL && *fp16 != '\0' && !nv->f16x2 && strcmp(fp16, "off") != 0)
    hop_log(1, "HOPBLAS_OPENCL_FP16=%.40s is not off|products|accumulate; using off", fp16);
  const char *split = hop_config_get("HOPBLAS_OPENCL_NV_SPLITK");
  char *end = NULL;
  long slices = split != NULL ? strtol(split, &end, 10) : 0;
  if (split == NULL || *split == '\0' || strcmp(split, "auto") == 0)
    nv->split = 0;
  else if (strcmp(split, "off") == 0)
    nv->split = -1;
  else if (end != split && *end == '\0' && slices >= 2 && slices <= SPLIT_MAX)
    nv->split = (int)slices;
  else
    hop_log(1, "HOPBLAS_OPENCL_NV_SPLITK=%.40s is not auto|off|2..%d; using auto", split,
            SPLIT_MAX);
  if (nv->emulate) {
    snprintf(nv->gate_why, sizeof nv->gate_why,
             "PTX emulated in OpenCL C (HOPBLAS_OPENCL_NV_EMULATE=1), probe not run");
    return true;
  }
  if (!probe(st, nv->gate_why, sizeof nv->gate_why)) {
    snprintf(why, len, "%s", nv->gate_why);
    return false;
  }
  return true;
}
