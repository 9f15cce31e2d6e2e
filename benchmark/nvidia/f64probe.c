/* Which fp64 tensor-core shapes NVIDIA's OpenCL compiler takes through
 * inline PTX, and their rate: a micro-benchmark of mma.sync ... .f64 in the
 * m8n8k4 shape (sm_80) and the sm_90 shapes m16n8k4, m16n8k8, m16n8k16,
 * before anyone writes a dgemm kernel on one of them.
 *
 *   f64probe [ITERS]     (NVIDIA's OpenCL registered, as benchmark/nvidia/h200.sh does)
 *
 * Each work-item keeps 4 independent accumulators and issues ITERS rounds
 * of 4 mma with every A and B element 1.0: each element of an accumulator
 * ends at ITERS * K.  One line per shape: built or why not, the check, and
 * TFLOPS (2 M N K per mma and warp).  F64PROBE_SHOW=1 prints each kernel. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shape {
  const char *name;
  int m, n, k, a_regs, b_regs, c_regs;
};

static const struct shape shapes[] = {
  {"m8n8k4", 8, 8, 4, 1, 1, 2},
  {"m16n8k4", 16, 8, 4, 2, 1, 4},
  {"m16n8k8", 16, 8, 8, 4, 2, 4},
  {"m16n8k16", 16, 8, 16, 8, 4, 4},
};

/* The kernel text for one shape: registers as arrays, one asm per mma. */
static void kernel_source(const struct shape *s, char *buf, size_t len)
{
  char regs[512] = "", *p = regs;
  int n = 0, first;
  /* {d...}, {a...}, {b...}, {c...}: operand numbers in order */
  p += sprintf(p, "{");
  for (int i = 0; i < s->c_regs; i++, n++)
    p += sprintf(p, "%s%%%d", i ? "," : "", n);
  p += sprintf(p, "}, {");
  for (int i = 0; i < s->a_regs; i++, n++)
    p += sprintf(p, "%s%%%d", i ? "," : "", n);
  p += sprintf(p, "}, {");
  for (int i = 0; i < s->b_regs; i++, n++)
    p += sprintf(p, "%s%%%d", i ? "," : "", n);
  p += sprintf(p, "}, {");
  first = n - s->a_regs - s->b_regs - s->c_regs;
  for (int i = 0; i < s->c_regs; i++)
    p += sprintf(p, "%s%%%d", i ? "," : "", first + i); /* C is D: "+d" would do, tied here */
  p += sprintf(p, "}");
  char outs[256] = "", ins[256] = "";
  for (int i = 0; i < s->c_regs; i++)
    sprintf(outs + strlen(outs), "%s\"+d\"(acc[q][%d])", i ? ", " : "", i);
  for (int i = 0; i < s->a_regs; i++)
    sprintf(ins + strlen(ins), "%s\"d\"(a[%d])", i ? ", " : "", i);
  for (int i = 0; i < s->b_regs; i++)
    sprintf(ins + strlen(ins), ", \"d\"(b[%d])", i);
  snprintf(buf, len,
           "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
           "__kernel void probe(int iters, __global double *out, double one) {\n"
           "  double a[%d], b[%d], acc[4][%d];\n"
           "  for (int i = 0; i < %d; i++) a[i] = one;\n"
           "  for (int i = 0; i < %d; i++) b[i] = one;\n"
           "  for (int q = 0; q < 4; q++) for (int i = 0; i < %d; i++) acc[q][i] = 0.0;\n"
           "  for (int it = 0; it < iters; it++)\n"
           "#pragma unroll\n"
           "    for (int q = 0; q < 4; q++)\n"
           "      asm volatile(\"mma.sync.aligned.%s.row.col.f64.f64.f64.f64 %s;\" : %s : %s);\n"
           "  double s = 0.0;\n"
           "  for (int q = 0; q < 4; q++) for (int i = 0; i < %d; i++) s += acc[q][i];\n"
           "  out[get_global_id(0)] = s;\n"
           "}\n",
           s->a_regs, s->b_regs, s->c_regs, s->a_regs, s->b_regs, s->c_regs, s->name, regs, outs,
           ins, s->c_regs);
}

int main(int argc, char **argv)
{
  int iters = argc > 1 ? atoi(argv[1]) : 4096;
  cl_platform_id plat;
  cl_device_id dev;
  cl_int err;
  if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) {
    printf("no OpenCL device\n");
    return 1;
  }
  char name[256];
  cl_uint units;
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
  printf("# %s, %u compute units, %d rounds of 4 mma per work-item\n", name, units, iters);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  size_t local = 256, global = (size_t)units * 8 * local; /* 8 groups of 8 warps per SM */
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, global * sizeof(double), NULL, &err);
  double *host = malloc(global * sizeof(double));
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    const struct shape *s = &shapes[i];
    char src[4096], log[2048] = "";
    kernel_source(s, src, sizeof src);
    if (getenv("F64PROBE_SHOW") != NULL)
      fputs(src, stdout);
    const char *srcs[1] = {src};
    cl_program prog = clCreateProgramWithSource(ctx, 1, srcs, NULL, &err);
    err = clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL);
    if (err != CL_SUCCESS) {
      clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
      log[strcspn(log, "\n")] = '\0';
      printf("%-9s build failed (%d): %.200s\n", s->name, (int)err, log);
      clReleaseProgram(prog);
      continue;
    }
    cl_kernel kn = clCreateKernel(prog, "probe", &err);
    double one = 1.0;
    clSetKernelArg(kn, 0, sizeof(int), &iters);
    clSetKernelArg(kn, 1, sizeof(cl_mem), &out);
    clSetKernelArg(kn, 2, sizeof(double), &one);
    double best = 1e30;
    for (int rep = 0; rep < 4; rep++) {
      cl_event ev;
      err = clEnqueueNDRangeKernel(q, kn, 1, NULL, &global, &local, 0, NULL, &ev);
      if (err != CL_SUCCESS)
        break;
      clWaitForEvents(1, &ev);
      cl_ulong t0, t1;
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
      clReleaseEvent(ev);
      double sec = (double)(t1 - t0) * 1e-9;
      best = sec < best ? sec : best;
    }
    clEnqueueReadBuffer(q, out, CL_TRUE, 0, global * sizeof(double), host, 0, NULL, NULL);
    /* every element of each accumulator: iters * K; a lane holds c_regs of them, 4 times */
    double want = (double)iters * s->k * s->c_regs * 4;
    size_t bad = 0;
    for (size_t j = 0; j < global; j++)
      bad += host[j] != want;
    double flops = (double)(global / 32) * iters * 4 * 2.0 * s->m * s->n * s->k;
    printf("%-9s built; %s (%zu of %zu lanes off, want %.0f, got %.0f); %.1f TFLOPS (%.3f ms)\n",
           s->name, bad ? "WRONG" : "right", bad, global, want, host[0], flops / best * 1e-12,
           best * 1e3);
    clReleaseKernel(kn);
    clReleaseProgram(prog);
  }
  free(host);
  return 0;
}
