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
 * probe, so that CI checks everything around the instructions on PoCL;
 * otherwise kernels/nv_ptx.cl, the PTX itself, goes in front of them.
 *
 * This file holds the family's kernel table; nvidia_pick.c chooses among
 * its programs, nvidia_probe.c opens the gate.
 *
 * Each kernel file is its own program (the files share helper names), so
 * the family owns several programs (program.c builds and caches each);
 * they all take the generic family's arguments and launch geometry. */
#include <string.h>

#include "nvidia.h"

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
 * nv_pick (nvidia_pick.c) compares launches with them. */
static const struct hop_ocl_nv_unit fma_wide[4] = {
  /* The 128x256 tile built for one transpose pair keeps only that pair's
   * addresses live: 46.4 TFLOPS at n = 8192 against 45.4 for one build of
   * all four (benchmark/results/nv-kernels-h200/variants-fma4.txt). */
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
           {128, 128, 16, 256, 1, 0, 0, 0, 0, 0}, 235, 1, -1},
  /* dgemm (and zgemm's real GEMM) on the FP64 units: the generic family's
   * kernel built in double with the tiles `hopblas tune` found best for the
   * generic family's sgemm on the H200 (backends/opencl/tune_table.c; 48 KiB
   * of local memory in double, the device's whole): 9.9 TFLOPS at n = 8192
   * there, against 5.8 with the generic defaults (doc/PERFORMANCE.md).  The
   * fp64 tensor cores (mma.sync f64) are still to come. */
  /* dgemm on the FP64 tensor cores (sm_90): mma.m16n8k8 .f64.  Where the
   * SM gives a work-group 227 KiB of local memory (more than the 48 KiB
   * NVIDIA's OpenCL reports, but its kernels may declare it): 128x128 tiles
   * of 8 warps, one work-group per SM, a 3-slot ring of 4 k steps each
   * (192 KiB), the next slot's copies issued between the current slot's mma:
   * 54.8 / 56.8 TFLOPS at n = 4096 / 8192 on the H200 through the engine
   * (cuBLAS 59.1 / 54.8 in the same call), against 45.7 / 42.8 for the
   * 48 KiB tile, 128x64 of 4 warps with a 4-step ring, two work-groups per
   * SM, kept for the other GPUs.  Preferred to
   * fp64-64x128 where it is built. */
  dmma_large = {"dmma-128x128", "nv_dgemm_mma.cl",
                "-DNWG=128 -DWARPN=4 -DKSUB=4 -DNSTAGES=3 -DNV_SPREAD=1 -DNV_LDS_MAX=232448", true,
                {[HOP_OCL_DGEMM] = "dgemm_nv_mma"}, {128, 128, 32, 256, 1, 0, 0, 0, 0, 0}, 386, 1, -1},
  dmma = {"dmma-128x64", "nv_dgemm_mma.cl", "", true, {[HOP_OCL_DGEMM] = "dgemm_nv_mma"},
          {128, 64, 8, 128, 1, 0, 0, 0, 0, 0}, 161, 2, -1},
  fp64 = {"fp64-64x128", "gemm_generic.cl",
          "-DHOP_FP64 -DMWG=64 -DNWG=128 -DKWG=32 -DMDIMC=8 -DNDIMC=16 -DVWM=8 -DVWN=4 -DVWL=4",
          false, {[HOP_OCL_DGEMM] = "dgemm_generic_tiled"}, {64, 128, 32, 8, 16, 8, 4, 4, 0, 0}, 37,
          2, -1},
  /* Batches (backends/opencl/batch.c): the generic batched kernels, a
   * problem per slice of the grid, tiles for small problems.  nv_pick never
   * picks them: they serve no GEMM launch. */
  batch = {"batch-64x64", "gemm_generic.cl",
           "-DMWG=64 -DNWG=64 -DKWG=16 -DMDIMC=16 -DNDIMC=16 -DVWM=4 -DVWN=4 -DVWL=4", false,
           {[HOP_OCL_SGEMM_BATCH] = "sgemm_batched_generic"}, {64, 64, 16, 16, 16, 4, 4, 4, 0, 0},
           0, 1, -1},
  batch_fp64 = {"batch-fp64-64x64", "gemm_generic.cl",
                "-DHOP_FP64 -DMWG=64 -DNWG=64 -DKWG=16 -DMDIMC=16 -DNDIMC=16 -DVWM=4 -DVWN=4 "
                "-DVWL=4",
                false, {[HOP_OCL_DGEMM_BATCH] = "dgemm_batched_generic"},
                {64, 64, 16, 16, 16, 4, 4, 4, 0, 0}, 0, 1, -1};

/* What st->prog.unit[] holds, in order.  nv_pick (nvidia_pick.c) chooses among those that
 * serve a launch's dtype and transpose pair. */
int hop_ocl_nv_unit_list(const struct hop_ocl_nv *nv, const struct hop_ocl_nv_unit **out)
{
  int n = 0;
  if (nv->tf32) {
    out[n++] = &tf32;
  } else {
    for (int pair = 0; pair < 4; pair++)
      out[n++] = &fma_wide[pair];
    out[n++] = &fma_square;
    out[n++] = &fma_narrow;
    out[n++] = &fma_short;
  }
  out[n++] = nv->f16x2 ? &f16x2 : &mma;
  if (nv->fp64)
    out[n++] = &fp64;
  if (nv->dmma)
    out[n++] = nv->dmma_large ? &dmma_large : &dmma;
  out[n++] = &batch;
  out[n++] = &batch_fp64;
  _Static_assert(4 + 3 + 1 + 2 + 2 <= HOP_OCL_UNITS, "the table outgrew HOP_OCL_UNITS");
  return n;
}

int hop_ocl_nv_unit_specs(const struct hop_ocl_nv *nv, struct hop_ocl_unit_spec *out)
{
  const struct hop_ocl_nv_unit *list[HOP_OCL_UNITS];
  int n = hop_ocl_nv_unit_list(nv, list);
  for (int u = 0; u < n; u++) {
    const struct hop_ocl_nv_unit *v = list[u];
    struct hop_ocl_unit_spec *s = &out[u];
    *s = (struct hop_ocl_unit_spec){.name = v->name, .params = v->params};
    int f = 0;
    if (v->ptx) /* the PTX helpers, or their stand-ins: the same names, never both */
      s->sources[f++] = nv->emulate ? "nv_mma_emu.cl" : "nv_ptx.cl";
    s->sources[f++] = "nv_split.cl";
    s->sources[f++] = v->file;
    s->sources[f] = NULL;
    /* PoCL 3.1's optimiser miscomputes these kernels (barriers in a loop
     * chosen at run time) on several threads; -O0 is right, and quick. */
    snprintf(s->options, sizeof s->options, "%s%s", v->defines,
             nv->emulate ? " -cl-opt-disable" : "");
    memcpy(s->kernel, v->kernel, sizeof s->kernel);
    for (int k = 0; k < HOP_OCL_KERNELS; k++) /* built on the first d or z call */
      s->fp64 = s->fp64 || (hop_ocl_kernel_fp64((enum hop_ocl_kernel)k) && v->kernel[k] != NULL);
  }
  return n;
}

static int nv_units(const struct hop_ocl_state *st, struct hop_ocl_unit_spec *out)
{
  return hop_ocl_nv_unit_specs(hop_ocl_nv_of(st), out);
}

static const char *unit_name(const struct hop_ocl_state *st, int unit)
{
  const struct hop_ocl_nv_unit *list[HOP_OCL_UNITS];
  return unit < hop_ocl_nv_unit_list(hop_ocl_nv_of(st), list) ? list[unit]->name : "?";
}

void hop_ocl_nv_call_begin(struct hop_ocl_state *st)
{
  struct hop_ocl_nv *nv = hop_ocl_nv_of(st);
  nv->used = 0;
  nv->split_used = 1;
}

/* The trace's note: the programs the call launched, its split. */
void hop_ocl_nv_note(const struct hop_ocl_state *st, const struct hop_call *g, const char *waits,
                     char *buf, size_t len)
{
  const struct hop_ocl_nv *nv = hop_ocl_nv_of(st);
  (void)g;
  char used[96] = "";
  for (int u = 0; u < st->prog.units; u++)
    if (nv->used >> u & 1u)
      snprintf(used + strlen(used), sizeof used - strlen(used), "%s%s", used[0] ? "+" : "",
               unit_name(st, u));
  char split[24] = "";
  if (nv->split_used > 1)
    snprintf(split, sizeof split, " split-k=%d", nv->split_used);
  snprintf(buf, len, "family=nvidia kernels=%s launches=%ld%s%s%s", used, st->window.launches, split,
           waits, nv->emulate ? " ptx=emulated" : "");
}

static void nv_describe(const struct hop_ocl_state *st, FILE *out)
{
  const struct hop_ocl_nv *nv = hop_ocl_nv_of(st);
  const struct hop_ocl_nv_unit *list[HOP_OCL_UNITS];
  int n = hop_ocl_nv_unit_list(nv, list);
  for (int u = 0; u < n; u++) {
    const struct hop_ocl_nv_unit *v = list[u];
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
          nv->split < 0   ? "off (HOPBLAS_OPENCL_NV_SPLITK=off)"
          : nv->split > 0 ? "every launch in as many slices as asked (HOPBLAS_OPENCL_NV_SPLITK)"
                  : "when predicted faster (few tiles of C, long k)");
  fprintf(out, "  hgemm, shgemm: %s\n",
          nv->f16x2 ? "half arithmetic, fma.rn.f16x2 (HOPBLAS_OPENCL_FP16=accumulate)"
                : "tensor cores, float sums (HOPBLAS_OPENCL_FP16=accumulate for "
                  "fma.rn.f16x2)");
  fprintf(out, "  sgemm: %s\n",
          nv->tf32 ? "3xTF32 on the tensor cores (HOPBLAS_OPENCL_NV_SGEMM=3xtf32)"
               : "FP32 FMA (HOPBLAS_OPENCL_NV_SGEMM=3xtf32 for the tensor cores)");
}

/* Every file, so that the tuning scope's source hash follows them all. */
static const char *const nv_sources[] = {"nv_sgemm_fma.cl", "nv_hgemm_mma.cl", "nv_sgemm_3xtf32.cl",
                                         "nv_hgemm_f16x2.cl", "nv_ptx.cl", "nv_mma_emu.cl",
                                         "nv_split.cl", "nv_dgemm_mma.cl", "gemm_generic.cl", NULL};

const struct hop_ocl_family hop_ocl_family_nvidia = {
  .name = "nvidia",
  .match = hop_ocl_nv_match,
  .setup = hop_ocl_nv_setup,
  .sources = nv_sources,
  .units = nv_units,
  .enqueue = hop_ocl_nv_enqueue,
  .col_grain = hop_ocl_nv_col_grain,
  .describe = nv_describe,
  .call_begin = hop_ocl_nv_call_begin,
  .note = hop_ocl_nv_note,
  .release = hop_ocl_nv_release,
};

