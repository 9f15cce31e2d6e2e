/* linkrate: the host-device link's rate as the OpenCL engine uses it, for
 * the bound of a call from host memory (doc/PERFORMANCE.md): writes from and
 * reads into pinned host memory (a mapped CL_MEM_ALLOC_HOST_PTR buffer, as
 * backends/opencl's staging slots are), one direction at a time and both at
 * once on two queues; and the host's memcpy rate between pageable buffers
 * on one thread, for scale.  Best of REPS transfers of MIB MiB each.
 *
 *   linkrate [MIB [REPS]]     (default 256 MiB, 5 reps; first OpenCL GPU,
 *                              else the first device) */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check(cl_int err, const char *what)
{
  if (err != CL_SUCCESS) {
    fprintf(stderr, "linkrate: %s failed (%d)\n", what, (int)err);
    exit(2);
  }
}

int main(int argc, char **argv)
{
  size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 256, bytes = mib << 20;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  cl_platform_id plat;
  cl_device_id dev;
  cl_int err = clGetPlatformIDs(1, &plat, NULL);
  check(err, "clGetPlatformIDs");
  if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
    check(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
  char name[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");
  cl_command_queue q[2];
  for (int i = 0; i < 2; i++) {
    q[i] = clCreateCommandQueue(ctx, dev, 0, &err);
    check(err, "clCreateCommandQueue");
  }
  cl_mem pin[2], dbuf[2];
  void *host[2];
  for (int i = 0; i < 2; i++) {
    pin[i] = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    check(err, "clCreateBuffer (pinned)");
    host[i] = clEnqueueMapBuffer(q[0], pin[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                 NULL, NULL, &err);
    check(err, "clEnqueueMapBuffer");
    memset(host[i], i + 1, bytes);
    dbuf[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    check(err, "clCreateBuffer (device)");
  }
  double best[3] = {1e30, 1e30, 1e30};
  for (int r = 0; r < reps + 1; r++) { /* the first of each is a warm-up */
    double t = now();
    check(clEnqueueWriteBuffer(q[0], dbuf[0], CL_TRUE, 0, bytes, host[0], 0, NULL, NULL), "write");
    double w = now() - t;
    t = now();
    check(clEnqueueReadBuffer(q[0], dbuf[1], CL_TRUE, 0, bytes, host[1], 0, NULL, NULL), "read");
    double rd = now() - t;
    t = now();
    check(clEnqueueWriteBuffer(q[0], dbuf[0], CL_FALSE, 0, bytes, host[0], 0, NULL, NULL), "write");
    check(clEnqueueReadBuffer(q[1], dbuf[1], CL_FALSE, 0, bytes, host[1], 0, NULL, NULL), "read");
    check(clFinish(q[0]), "clFinish");
    check(clFinish(q[1]), "clFinish");
    double both = now() - t;
    if (r > 0) {
      best[0] = w < best[0] ? w : best[0];
      best[1] = rd < best[1] ? rd : best[1];
      best[2] = both < best[2] ? both : best[2];
    }
  }
  char *src = malloc(bytes), *dst = malloc(bytes);
  if (src == NULL || dst == NULL)
    return 2;
  memset(src, 3, bytes);
  memset(dst, 4, bytes);
  double copy = 1e30;
  for (int r = 0; r < reps; r++) {
    double t = now();
    memcpy(dst, src, bytes);
    t = now() - t;
    copy = t < copy ? t : copy;
  }
  double gb = (double)bytes * 1e-9;
  printf("linkrate %s, %zu MiB: host->device %.1f GB/s, device->host %.1f GB/s, both at once "
         "%.1f GB/s each way; host memcpy (one thread, pageable) %.1f GB/s\n",
         name, mib, gb / best[0], gb / best[1], gb / best[2], gb / copy);
  return dst[bytes - 1] == 3 ? 0 : 1;
}
