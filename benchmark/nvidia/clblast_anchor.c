/* clblast_anchor: CLBlast 1.5.3 sgemm on resident buffers, the OpenCL
 * anchor the nv_* kernels are held against, measured in the same run.
 *
 *   clblast_anchor default|tuned N [N ...]
 *
 * `default`: CLBlast's own parameters for the device; `tuned`: the Xgemm
 * parameters DEVICE.md found by tuning CLBlast on the H200, applied with
 * CLBlastOverrideParameters.  Time = wall clock of REPS back-to-back
 * calls divided by REPS (CLBlast may run helper kernels besides Xgemm, so
 * one event would not cover a call). */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 10

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Seconds per call, best of three batches; < 0 when CLBlast fails. */
static double time_sgemm(cl_command_queue q, size_t n, cl_mem a, cl_mem b, cl_mem c)
{
  double best = -1.0;
  for (int batch = 0; batch < 4; batch++) { /* batch 0 warms up (kernel build) */
    double t0 = now();
    for (int r = 0; r < REPS; r++) {
      CLBlastStatusCode s = CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo,
                                         CLBlastTransposeNo, n, n, n, 1.0f, a, 0, n, b, 0, n,
                                         0.0f, c, 0, n, &q, NULL);
      if (s != CLBlastSuccess) {
        fprintf(stderr, "clblast_anchor: CLBlastSgemm failed (%d)\n", (int)s);
        return -1.0;
      }
    }
    clFinish(q);
    double t = (now() - t0) / REPS;
    if (batch > 0 && (best < 0 || t < best))
      best = t;
  }
  return best;
}

int main(int argc, char **argv)
{
  static const char *names[] = {"GEMMK", "KREG", "KWG",  "KWI",  "MDIMA", "MDIMC",
                                "MWG",   "NDIMB", "NDIMC", "NWG", "SA",    "SB",
                                "STRM",  "STRN",  "VWM",  "VWN"};
  static const size_t tuned[] = {0, 1, 32, 2, 8, 32, 128, 16, 8, 64, 1, 1, 1, 0, 4, 4};
  cl_platform_id plat;
  cl_device_id dev;
  cl_int err = clGetPlatformIDs(1, &plat, NULL);
  if (err == CL_SUCCESS)
    err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
  cl_context ctx = err == CL_SUCCESS ? clCreateContext(NULL, 1, &dev, NULL, NULL, &err) : NULL;
  cl_command_queue q = err == CL_SUCCESS ? clCreateCommandQueue(ctx, dev, 0, &err) : NULL;
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clblast_anchor: no OpenCL device (%d)\n", (int)err);
    return 2;
  }
  int use_tuned = argc > 1 && strcmp(argv[1], "tuned") == 0;
  if (use_tuned &&
      CLBlastOverrideParameters(dev, "Xgemm", CLBlastPrecisionSingle, 16, names, tuned) !=
        CLBlastSuccess) {
    fprintf(stderr, "clblast_anchor: CLBlastOverrideParameters failed\n");
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    size_t n = (size_t)atol(argv[i]), bytes = n * n * sizeof(float);
    float *h = malloc(bytes);
    if (n == 0 || h == NULL)
      return 2;
    for (size_t e = 0; e < n * n; e++)
      h[e] = (float)((e * 2654435761u) % 1000) / 1000.0f - 0.5f;
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, h, &err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, h, &err);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    free(h);
    if (err != CL_SUCCESS)
      return 2;
    double t = time_sgemm(q, n, a, b, c);
    printf("clblast-%-11s s  NN %5zu %5zu %5zu  best %8.2f TFLOPS (wall clock / call)\n",
           use_tuned ? "tuned" : "default", n, n, n, t > 0 ? 2.0 * n * n * n / t * 1e-12 : 0.0);
    fflush(stdout);
    clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c);
  }
  return 0;
}
