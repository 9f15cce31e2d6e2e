/* linkrate: the host-device link's rate as the OpenCL engine uses it, for
 * the bound of a call from host memory (doc/PERFORMANCE.md): writes from and
 * reads into pinned host memory (a mapped CL_MEM_ALLOC_HOST_PTR buffer, as
 * backends/opencl's staging slots are), one direction at a time and both at
 * once on two queues; and the host's memcpy rate between pageable buffers
 * on one thread, for scale.  Best of REPS transfers of MIB MiB each.
 *
 *   linkrate [MIB [REPS]]     (default 256 MiB, 5 reps; first OpenCL GPU,
 *                              else the first device)
 *   linkrate --contexts [MIB [REPS]]   (two GPUs: pinned memory across contexts) */
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

static size_t bytes;
static int reps;

static void *pinned(cl_context ctx, cl_command_queue q, cl_mem *m)
{
  cl_int err;
  *m = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
  check(err, "clCreateBuffer (pinned)");
  void *p = clEnqueueMapBuffer(q, *m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL,
                               &err);
  check(err, "clEnqueueMapBuffer");
  memset(p, 1, bytes);
  return p;
}

static cl_mem device(cl_context ctx)
{
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  check(err, "clCreateBuffer (device)");
  return m;
}

/* GB/s of the best write of src into each of n (queue, buffer) pairs at once. */
static double rate(int n, cl_command_queue *q, cl_mem *d, const void *src)
{
  double best = 1e30;
  for (int r = 0; r < reps + 1; r++) {
    double t = now();
    for (int i = 0; i < n; i++)
      check(clEnqueueWriteBuffer(q[i], d[i], CL_FALSE, 0, bytes, src, 0, NULL, NULL), "write");
    for (int i = 0; i < n; i++)
      check(clFinish(q[i]), "clFinish");
    t = now() - t;
    if (r > 0 && t < best)
      best = t;
  }
  return (double)bytes * 1e-9 / best;
}

/* --contexts: can two GPUs take one packing of an operand?  Upload rates
 * into the second GPU from (a) pinned memory of its own context, (b) pinned
 * memory of the first GPU's context, (c) pageable memory; and, in one
 * context holding both GPUs, from one pinned buffer into each GPU alone and
 * into both at once (backends/opencl/split_share.c relies on (b)). */
static int contexts(size_t mib, int nreps)
{
  bytes = mib << 20;
  reps = nreps;
  cl_platform_id plat;
  cl_device_id dev[2];
  cl_uint ndev = 0;
  cl_int err;
  check(clGetPlatformIDs(1, &plat, NULL), "clGetPlatformIDs");
  check(clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 2, dev, &ndev), "clGetDeviceIDs");
  if (ndev < 2) {
    fprintf(stderr, "linkrate: two GPUs wanted, %u found\n", ndev);
    return 2;
  }
  cl_context c0 = clCreateContext(NULL, 1, &dev[0], NULL, NULL, &err);
  check(err, "clCreateContext 0");
  cl_context c1 = clCreateContext(NULL, 1, &dev[1], NULL, NULL, &err);
  check(err, "clCreateContext 1");
  cl_command_queue q0 = clCreateCommandQueue(c0, dev[0], 0, &err);
  check(err, "queue 0");
  cl_command_queue q1 = clCreateCommandQueue(c1, dev[1], 0, &err);
  check(err, "queue 1");
  cl_mem m0, m1;
  void *p0 = pinned(c0, q0, &m0), *p1 = pinned(c1, q1, &m1);
  void *h = malloc(bytes);
  if (h == NULL)
    return 2;
  memset(h, 2, bytes);
  cl_mem d1 = device(c1);
  printf("linkrate --contexts, %zu MiB into GPU 1 (a context of its own): own pinned %.1f GB/s, GPU 0's "
         "context's pinned %.1f GB/s, pageable %.1f GB/s\n",
         bytes >> 20, rate(1, &q1, &d1, p1), rate(1, &q1, &d1, p0), rate(1, &q1, &d1, h));
  cl_context cs = clCreateContext(NULL, 2, dev, NULL, NULL, &err);
  check(err, "clCreateContext (both)");
  cl_command_queue qs[2];
  cl_mem ds[2];
  for (int i = 0; i < 2; i++) {
    qs[i] = clCreateCommandQueue(cs, dev[i], 0, &err);
    check(err, "queue (both)");
    ds[i] = device(cs);
  }
  cl_mem ms;
  void *ps = pinned(cs, qs[0], &ms);
  double r0 = rate(1, &qs[0], &ds[0], ps), r1 = rate(1, &qs[1], &ds[1], ps);
  double rboth = rate(2, qs, ds, ps);
  printf("linkrate --contexts, one context of both GPUs, one pinned buffer: into GPU 0 %.1f GB/s, GPU 1 %.1f GB/s, "
         "both at once %.1f GB/s each; GPU 1 from GPU 0's own context's pinned %.1f GB/s\n",
         r0, r1, rboth, rate(1, &qs[1], &ds[1], p0));
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--contexts") == 0)
    return contexts(argc > 2 ? (size_t)atol(argv[2]) : 256, argc > 3 ? atoi(argv[3]) : 5);
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
