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
 * work-groups of MDIMC x 1 items, one per MWG x NWG tile of C. */
static const struct nv_unit {
  const char *name, *file, *defines;
  bool ptx; /* inline PTX: the probe, or the emulation, must vouch for it */
  const char *kernel[HOP_OCL_KERNELS];
  struct hop_ocl_params params; /* MWG NWG KWG MDIMC NDIMC, the rest unused */
} fma_wide = {"fma-128x256", "nv_sgemm_fma.cl", "", false,
              {[HOP_OCL_SGEMM] = "sgemm_nv_fma"}, {128, 256, 8, 256, 1, 0, 0, 0, 0, 0}},
  fma_square = {"fma-128x128", "nv_sgemm_fma.cl", "-DNWG=128 -DKWG=16", false,
                {[HOP_OCL_SGEMM] = "sgemm_nv_fma"}, {128, 128, 16, 256, 1, 0, 0, 0, 0, 0}},
  mma = {"mma-128x128", "nv_hgemm_mma.cl", "", true,
         {[HOP_OCL_HGEMM] = "hgemm_nv_mma", [HOP_OCL_SHGEMM] = "shgemm_nv_mma"},
         {128, 128, 16, 256, 1, 0, 0, 0, 0, 0}},
  tf32 = {"3xtf32-128x128", "nv_sgemm_3xtf32.cl", "", true,
          {[HOP_OCL_SGEMM] = "sgemm_nv_3xtf32"}, {128, 128, 8, 128, 1, 0, 0, 0, 0, 0}};

/* What st->prog.unit[] holds, in order.  When two serve a dtype, the
 * second (smaller tiles) takes launches whose work-groups fit one wave. */
static int unit_list(const struct hop_ocl_state *st, const struct nv_unit **out)
{
  int n = 0;
  if (st->fam->nv.tf32) {
    out[n++] = &tf32;
  } else {
    out[n++] = &fma_wide;
    out[n++] = &fma_square;
  }
  out[n++] = &mma;
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

/* The program for launch l: the first with its kernel, or a later one with
 * smaller tiles when all of its work-groups run at once.  A 128x256 FMA
 * tile leaves most SMs idle below n = 1536 (32 work-groups at 1024 on 132
 * SMs: 10.9 TFLOPS against 16.6 for 128x128); each FMA build runs one
 * work-group per SM (130 and 219 registers), so one wave is the unit count. */
static int pick(const struct hop_ocl_state *st, const struct hop_ocl_launch *l)
{
  const struct hop_ocl_program *pr = &st->prog;
  int first = -1;
  for (int u = 0; u < pr->units; u++) {
    if (pr->unit[u].kernel[l->kernel] == NULL)
      continue;
    if (first < 0) {
      first = u;
      continue;
    }
    const struct hop_ocl_params *p = &pr->unit[u].params;
    long groups = (long)ceil_div(l->m, p->mwg) * ceil_div(l->n, p->nwg);
    if (groups <= (long)hop_ocl_device(st)->units)
      return u;
  }
  return first;
}

static cl_int nv_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l, int col0,
                         int cols, cl_uint nwait, const cl_event *wait, cl_event *done)
{
  int u = pick(st, l); /* by the whole launch, so that every slab agrees */
  if (u < 0)
    return CL_INVALID_KERNEL;
  const struct hop_ocl_unit *un = &st->prog.unit[u];
  struct hop_ocl_launch s = hop_ocl_family_slab(l, col0, cols);
  st->fam->nv.used |= 1u << u;
  return hop_ocl_generic_enqueue_with(st, un->kernel[l->kernel], &un->params, &s, nwait, wait,
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
            v->params.mdimc, u == 1 && !st->fam->nv.tf32 ? " (when they fit one wave)" : "");
  }
  fprintf(out, "  sgemm: %s\n",
          st->fam->nv.tf32 ? "3xTF32 on the tensor cores (HOPBLAS_OPENCL_NV_SGEMM=3xtf32)"
                           : "FP32 FMA (HOPBLAS_OPENCL_NV_SGEMM=3xtf32 for the tensor cores)");
}

/* Every file, so that the tuning scope's source hash follows them all. */
static const char *const nv_sources[] = {"nv_sgemm_fma.cl", "nv_hgemm_mma.cl",
                                         "nv_sgemm_3xtf32.cl", "nv_mma_emu.cl", NULL};

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

enum { PROBE_ITEMS = 32, PROBE_OUT = 384 };

/* kernels/nv_probe.cl's products, from the formula in its header: A(i, l) =
 * (i + 2 l) % 5 - 2, B(l, j) = (3 l + j) % 7 - 3; out[16 i + j] sums 16
 * terms (i, j < 16), out[256 + 8 i + j] the first 8 (j < 8). */
static void probe_expected(float *want)
{
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      int s16 = 0, s8 = 0;
      for (int l = 0; l < 16; l++) {
        int p = ((i + 2 * l) % 5 - 2) * ((3 * l + j) % 7 - 3);
        s16 += p;
        s8 += l < 8 ? p : 0;
      }
      want[i * 16 + j] = (float)s16;
      if (j < 8)
        want[256 + i * 8 + j] = (float)s8;
    }
}

/* Build and run nv_ptx_probe: one work-group of 32 items, one float[384]. */
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
