/* Build OpenCL C files as one program on the first device, with options,
 * and report the build as TAP: for kernel variants that no device at hand
 * can run, such as the image families' real half arithmetic (read_imageh,
 * half4), which needs cl_khr_fp16.  Oclgrind's compiler accepts
 * cl_khr_fp16 code, so under oclgrind this proves the variant compiles.
 *
 *   fam-build OPTIONS FILE.cl ...
 *
 * Only clBuildProgram: kernels are not created (oclgrind cannot run
 * read_imageh, and stops the process when asked to). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n;
  if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)n + 1)) != NULL) {
    buf[fread(buf, 1, (size_t)n, f)] = '\0';
  }
  if (f != NULL)
    fclose(f);
  return buf;
}

int main(int argc, char **argv)
{
  if (argc < 3 || argc > 10) {
    fprintf(stderr, "usage: fam-build OPTIONS FILE.cl ...\n");
    return 2;
  }
  const char *src[8];
  int n = 0;
  for (int i = 2; i < argc; i++)
    if ((src[n++] = slurp(argv[i])) == NULL) {
      printf("not ok 1 - cannot read %s\n1..1\n", argv[i]);
      return 1;
    }
  cl_platform_id plat;
  cl_device_id dev;
  cl_int err = clGetPlatformIDs(1, &plat, NULL);
  if (err == CL_SUCCESS)
    err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
  cl_context ctx = err == CL_SUCCESS ? clCreateContext(NULL, 1, &dev, NULL, NULL, &err) : NULL;
  cl_program prog = err == CL_SUCCESS ? clCreateProgramWithSource(ctx, (cl_uint)n, src, NULL, &err)
                                      : NULL;
  if (err != CL_SUCCESS) {
    printf("not ok 1 - no OpenCL device or program (error %d)\n1..1\n", (int)err);
    return 1;
  }
  err = clBuildProgram(prog, 1, &dev, argv[1], NULL, NULL);
  char name[128] = "", log[8192] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
  printf("%s 1 - %s builds %s", err == CL_SUCCESS ? "ok" : "not ok", name, argv[1]);
  for (int i = 2; i < argc; i++)
    printf(" %s", strrchr(argv[i], '/') != NULL ? strrchr(argv[i], '/') + 1 : argv[i]);
  printf("\n");
  if (err != CL_SUCCESS)
    for (char *line = log; *line != '\0' && line < log + 2000;) {
      char *nl = line;
      while (*nl != '\0' && *nl != '\n')
        nl++;
      printf("#   %.*s\n", (int)(nl - line), line);
      line = *nl ? nl + 1 : nl;
    }
  printf("1..1\n");
  clReleaseProgram(prog);
  clReleaseContext(ctx);
  return err != CL_SUCCESS;
}
