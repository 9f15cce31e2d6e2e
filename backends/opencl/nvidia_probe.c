/* The nvidia family's gate and settings: on an NVIDIA device,
 * kernels/nv_probe.cl must build and compute two small products exactly
 * with every PTX instruction the kernels use (or HOPBLAS_OPENCL_NV_EMULATE=1
 * stands in for the PTX); the family's knobs are read here. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nvidia.h"

bool hop_ocl_nv_match(const struct hop_ocl_device *d, char *why, size_t len)
{
  if (strcasestr(d->vendor, "nvidia") == NULL && strcasestr(d->name, "nvidia") == NULL)
    return false;
  snprintf(why, len, "device \"%.36s\" by %.24s", d->name, d->vendor);
  return true;
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

/* On success why holds the gate's note (variant_why). */
bool hop_ocl_nv_setup(struct hop_ocl_state *st, char *why, size_t len)
{
  struct hop_ocl_nv *nv = calloc(1, sizeof *nv);
  if (nv == NULL) {
    snprintf(why, len, "out of memory");
    return false;
  }
  st->fam = nv;
  const char *sgemm = hop_config_get("HOPBLAS_OPENCL_NV_SGEMM");
  nv->tf32 = sgemm != NULL && strcmp(sgemm, "3xtf32") == 0;
  if (sgemm != NULL && *sgemm != '\0' && !nv->tf32 && strcmp(sgemm, "fma") != 0)
    hop_log(1, "HOPBLAS_OPENCL_NV_SGEMM=%.40s is not fma|3xtf32; using fma", sgemm);
  nv->emulate = hop_config_int("HOPBLAS_OPENCL_NV_EMULATE", 0, 1, 0) == 1;
  nv->fp64 = hop_ocl_has_extension(hop_ocl_device(st), "cl_khr_fp64");
  /* mma.m16n8k8 .f64 is sm_90's: the compute capability, where the driver tells it. */
  cl_uint major = 0;
  if (hop_ocl_has_extension(hop_ocl_device(st), "cl_nv_device_attribute_query") &&
      clGetDeviceInfo(hop_ocl_device(st)->id, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */,
                      sizeof major, &major, NULL) != CL_SUCCESS)
    major = 0;
  nv->dmma = nv->fp64 && (nv->emulate || major >= 9);
  /* NVIDIA's OpenCL reports 48 KiB of local memory, but runs kernels that
   * declare more, up to the SM's opt-in limit: 227 KiB on sm_90 and sm_100
   * (99 KiB on sm_120), so the 192 KiB dgemm tile only there. */
  nv->dmma_large = nv->dmma && (nv->emulate || major == 9 || major == 10);
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
  else if (end != split && *end == '\0' && slices >= 2 && slices <= HOP_OCL_NV_SPLIT_MAX)
    nv->split = (int)slices;
  else
    hop_log(1, "HOPBLAS_OPENCL_NV_SPLITK=%.40s is not auto|off|2..%d; using auto", split,
            HOP_OCL_NV_SPLIT_MAX);
  if (nv->emulate) {
    snprintf(nv->gate_why, sizeof nv->gate_why,
             "PTX emulated in OpenCL C (HOPBLAS_OPENCL_NV_EMULATE=1), probe not run");
    snprintf(why, len, "%s", nv->gate_why);
    return true;
  }
  bool ok = probe(st, nv->gate_why, sizeof nv->gate_why);
  snprintf(why, len, "%s", nv->gate_why);
  return ok;
}
