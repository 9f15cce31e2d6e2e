/* linkrate: the host-device link's rate as the OpenCL engine uses it, for
 * the bound of a call from host memory (doc/PERFORMANCE.md): writes from and
 * reads into pinned host memory (a mapped CL_MEM_ALLOC_HOST_PTR buffer, as
 * backends/opencl's staging slots are), one direction at a time and both at
 * once on two queues; and the host's memcpy rate between pageable buffers
 * on one thread, for scale.  Best of REPS transfers of MIB MiB each.
 *
 *   linkrate [MIB [REPS]]     (default 256 MiB, 5 reps; first OpenCL GPU,
 *                              else the first device)
 *   linkrate --contexts [MIB [REPS]]   (two GPUs: pinned memory across contexts)
 *   linkrate --host-ptr [MIB [REPS]]   (the caller's own memory as a buffer) */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
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

static int cmp_double(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

struct pin_job {
  cl_context ctx;
  unsigned char *at;
  size_t len;
  cl_mem buf;
  pthread_barrier_t *start;
};

static void *pin_one(void *arg)
{
  struct pin_job *j = arg;
  cl_int err;
  pthread_barrier_wait(j->start);
  j->buf = clCreateBuffer(j->ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, j->len, j->at, &err);
  check(err, "clCreateBuffer (USE_HOST_PTR, a share)");
  return NULL;
}

/* The time to create `threads` USE_HOST_PTR buffers over equal shares of h
 * at once, each on a thread of its own, then to copy them all into d. */
static void pin_shares(cl_context ctx, cl_command_queue q, cl_mem d, unsigned char *h, int threads,
                       double *create_s, double *copy_s, double *release_s)
{
  pthread_t tid[64];
  struct pin_job job[64];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  size_t per = bytes / (size_t)threads / 4096 * 4096;
  for (int i = 0; i < threads; i++)
    job[i] = (struct pin_job){ctx, h + (size_t)i * per, per, NULL, &start};
  double t0 = now();
  for (int i = 1; i < threads; i++)
    pthread_create(&tid[i], NULL, pin_one, &job[i]);
  pin_one(&job[0]);
  for (int i = 1; i < threads; i++)
    pthread_join(tid[i], NULL);
  double t1 = now();
  for (int i = 0; i < threads; i++)
    check(clEnqueueCopyBuffer(q, job[i].buf, d, 0, (size_t)i * per, per, 0, NULL, NULL), "copy");
  check(clFinish(q), "clFinish");
  double t2 = now();
  for (int i = 0; i < threads; i++)
    clReleaseMemObject(job[i].buf);
  clFinish(q);
  *create_s = t1 - t0, *copy_s = t2 - t1, *release_s = now() - t2;
  pthread_barrier_destroy(&start);
}

/* --host-ptr: could the engine upload an operand straight from the
 * caller's memory, without packing it into pinned buffers first?  A
 * CL_MEM_USE_HOST_PTR buffer over page-aligned malloc'd memory: the time to
 * create it, the first copy from it into a device buffer (where a driver
 * that pins the pages pins them) and the next ones, and its release; beside
 * a plain write from that memory (the driver's own staging) and from
 * pinned memory.  Medians of REPS. */
static int host_ptr(size_t mib, int nreps)
{
  bytes = mib << 20;
  reps = nreps < 1 ? 1 : nreps > 64 ? 64 : nreps;
  cl_platform_id plat;
  cl_device_id dev;
  cl_int err;
  check(clGetPlatformIDs(1, &plat, NULL), "clGetPlatformIDs");
  if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
    check(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  check(err, "clCreateCommandQueue");
  cl_mem d = device(ctx), pm;
  void *pin = pinned(ctx, q, &pm);
  void *h = aligned_alloc(4096, bytes);
  if (h == NULL)
    return 2;
  memset(h, 3, bytes);
  double create[64], first[64], next[64], release[64];
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    cl_mem u = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, bytes, h, &err);
    check(err, "clCreateBuffer (USE_HOST_PTR)");
    double t1 = now();
    check(clEnqueueCopyBuffer(q, u, d, 0, 0, bytes, 0, NULL, NULL), "copy");
    check(clFinish(q), "clFinish");
    double t2 = now();
    check(clEnqueueCopyBuffer(q, u, d, 0, 0, bytes, 0, NULL, NULL), "copy");
    check(clFinish(q), "clFinish");
    double t3 = now();
    clReleaseMemObject(u);
    clFinish(q);
    double t4 = now();
    create[r] = t1 - t0, first[r] = t2 - t1, next[r] = t3 - t2, release[r] = t4 - t3;
  }
  double *all[] = {create, first, next, release};
  for (int i = 0; i < 4; i++)
    qsort(all[i], (size_t)reps, sizeof(double), cmp_double);
  int m = reps / 2;
  printf("linkrate --host-ptr, %zu MiB, medians of %d: USE_HOST_PTR buffer created in %.2f ms, first copy "
         "into the device %.1f GB/s (%.2f ms), next %.1f GB/s, released in %.2f ms; a write from that "
         "memory %.1f GB/s, from pinned %.1f GB/s\n",
         bytes >> 20, reps, create[m] * 1e3, (double)bytes * 1e-9 / first[m], first[m] * 1e3,
         (double)bytes * 1e-9 / next[m], release[m] * 1e3, rate(1, &q, &d, h), rate(1, &q, &d, pin));
  for (int threads = 4; threads <= 16; threads *= 2) {
    double c = 0, k = 0, rel = 0;
    pin_shares(ctx, q, d, h, threads, &c, &k, &rel);
    printf("linkrate --host-ptr, %zu MiB in %d shares created at once on %d threads: created in %.2f ms, "
           "copied into the device at %.1f GB/s, released in %.2f ms\n",
           bytes >> 20, threads, threads, c * 1e3, (double)bytes * 1e-9 / k, rel * 1e3);
  }
  /* results the other way: the device writes a USE_HOST_PTR buffer, mapping it reads them back */
  double back[64];
  for (int r = 0; r < reps; r++) {
    cl_mem u = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, h, &err);
    check(err, "clCreateBuffer (USE_HOST_PTR, results)");
    check(clEnqueueCopyBuffer(q, d, u, 0, 0, bytes, 0, NULL, NULL), "copy back");
    check(clFinish(q), "clFinish");
    double t0 = now();
    void *p = clEnqueueMapBuffer(q, u, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL, &err);
    check(err, "clEnqueueMapBuffer (results)");
    back[r] = now() - t0;
    if (p != h)
      printf("linkrate --host-ptr: the mapping is not the caller's memory\n");
    check(clEnqueueUnmapMemObject(q, u, p, 0, NULL, NULL), "unmap");
    clReleaseMemObject(u);
    clFinish(q);
  }
  qsort(back, (size_t)reps, sizeof(double), cmp_double);
  printf("linkrate --host-ptr, %zu MiB of results written by the device into a USE_HOST_PTR buffer: "
         "mapped back into the caller's memory at %.1f GB/s (median)\n",
         bytes >> 20, (double)bytes * 1e-9 / back[m]);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--contexts") == 0)
    return contexts(argc > 2 ? (size_t)atol(argv[2]) : 256, argc > 3 ? atoi(argv[3]) : 5);
  if (argc > 1 && strcmp(argv[1], "--host-ptr") == 0)
    return host_ptr(argc > 2 ? (size_t)atol(argv[2]) : 256, argc > 3 ? atoi(argv[3]) : 5);
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
