/* ptxpatch: what NVIDIA's OpenCL runs when the PTX it compiled is patched
 * and loaded back as a program binary (clCreateProgramWithBinary).
 *
 * NVIDIA's OpenCL compiles OpenCL C to PTX for `.target sm_90` and hands
 * that PTX out as the program's binary.  Hopper's thread-block clusters
 * (distributed shared memory), the sm_90a instructions (wgmma,
 * setmaxnreg) and more than 48 KiB of local memory are not reachable from
 * OpenCL C; this asks whether they are from patched PTX, each as one
 * check with its result verified:
 *   target    `.target sm_90a` and an sm_90a-only instruction (wgmma.fence)
 *   setmaxnreg  setmaxnreg.dec in a work-group of one warpgroup
 *   cluster   `.reqnctapercluster 2, 1, 1`: %cluster_nctarank, and each
 *             work-group reading its peer's local memory (mapa, ld.shared::cluster)
 *   dsmem     read rate of the peer's local memory against the own (GB/s per SM pair)
 *   local     a __local argument of 48 to 227 KiB
 *   static    a static local array patched from 48 to 96 KiB
 *
 * Standalone (links -lOpenCL only), built here and carried to the GPU
 * machine: ptxpatch [-P PLATFORM] [-S DIR (write each PTX before and after)] */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The body of k_local and k_static: words of `big` written, then read back
 * in reverse order by other work-items. */
#define FILL_AND_CHECK \
  "  const uint lid = get_local_id(0), n = get_local_size(0);\n" \
  "  for (uint i = lid; i < words; i += n) big[i] = i * 3u + 1u;\n" \
  "  barrier(CLK_LOCAL_MEM_FENCE);\n" \
  "  uint bad = 0;\n" \
  "  for (uint i = lid; i < words; i += n) bad += big[words - 1u - i] != (words - 1u - i) * 3u + 1u;\n" \
  "  out[get_global_id(0)] = bad;\n"

static const char *source =
  "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void k_target(__global uint *out)\n"
  "{\n"
  "  asm volatile(\"// HOP_MARK\");\n"
  "  out[get_global_id(0)] = 7u;\n"
  "}\n"
  "__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void k_setmaxnreg(__global uint *out)\n"
  "{\n"
  "  asm volatile(\"// HOP_MARK\");\n"
  "  out[get_global_id(0)] = 9u;\n"
  "}\n"
  "static inline uint cluster_reg(int which)\n"
  "{\n"
  "  uint r;\n"
  "  if (which == 0) asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(r));\n"
  "  else if (which == 1) asm volatile(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(r));\n"
  "  else asm volatile(\"mov.u32 %0, %%clusterid.x;\" : \"=r\"(r));\n"
  "  return r;\n"
  "}\n"
  "static inline void cluster_sync(void)\n"
  "{\n"
  "  asm volatile(\"barrier.cluster.arrive.release.aligned;\\n\\t\"\n"
  "               \"barrier.cluster.wait.acquire.aligned;\" ::: \"memory\");\n"
  "}\n"
  "static inline uint peer_addr(__local void *p, uint rank)\n"
  "{\n"
  "  uint r;\n"
  "  asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(r)\n"
  "               : \"r\"((uint)(size_t)p), \"r\"(rank));\n"
  "  return r;\n"
  "}\n"
  "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void k_cluster(__global uint *out)\n"
  "{\n"
  "  __local uint slot[64];\n"
  "  const uint lid = get_local_id(0), rank = cluster_reg(0), nrank = cluster_reg(1);\n"
  "  slot[lid] = (uint)get_group_id(0) * 1000u + lid;\n"
  "  cluster_sync();\n"
  "  uint peer = 0xffffffffu;\n"
  "  if (nrank > 1) {\n"
  "    const uint at = peer_addr(&slot[lid], rank ^ 1u);\n"
  "    asm volatile(\"ld.shared::cluster.u32 %0, [%1];\" : \"=r\"(peer) : \"r\"(at) : \"memory\");\n"
  "  }\n"
  "  cluster_sync();\n"
  "  const size_t g = get_global_id(0) * 4;\n"
  "  out[g] = rank; out[g + 1] = nrank; out[g + 2] = cluster_reg(2); out[g + 3] = peer;\n"
  "}\n"
  "/* Each work-group reads WORDS4 uint4 of local memory, its own (remote 0)\n"
  " * or its cluster peer's (remote 1), reps times. */\n"
  "#define WORDS4 2048\n"
  "__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void k_dsmem(__global uint *out, int reps, int remote)\n"
  "{\n"
  "  __local uint4 buf[WORDS4];\n"
  "  const uint lid = get_local_id(0);\n"
  "  for (uint i = lid; i < WORDS4; i += 256) buf[i] = (uint4)(i, i + 1u, i + 2u, i + 3u);\n"
  "  cluster_sync();\n"
  "  const uint rank = cluster_reg(0), nrank = cluster_reg(1);\n"
  "  const uint base = remote && nrank > 1 ? peer_addr(buf, rank ^ 1u) : (uint)(size_t)buf;\n"
  "  uint4 s = (uint4)(0u);\n"
  "  for (int r = 0; r < reps; r++)\n"
  "    for (uint i = lid; i < WORDS4; i += 256) {\n"
  "      uint4 v;\n"
  "      if (remote) asm volatile(\"ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];\"\n"
  "                   : \"=r\"(v.x), \"=r\"(v.y), \"=r\"(v.z), \"=r\"(v.w) : \"r\"(base + i * 16u) : \"memory\");\n"
  "      else asm volatile(\"ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\"\n"
  "                   : \"=r\"(v.x), \"=r\"(v.y), \"=r\"(v.z), \"=r\"(v.w) : \"r\"(base + i * 16u) : \"memory\");\n"
  "      s += v;\n"
  "    }\n"
  "  cluster_sync();\n"
  "  out[get_global_id(0)] = s.x + s.y + s.z + s.w;\n"
  "}\n"
  "__kernel void k_local(__global uint *out, __local uint *big, uint words)\n"
  "{\n"
  FILL_AND_CHECK
  "}\n"
  "__kernel void k_static(__global uint *out, uint words)\n"
  "{\n"
  "  __local uint big[12288];\n"
  FILL_AND_CHECK
  "}\n";

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue queue;
static const char *save_dir;

static char *build_log(cl_program prog)
{
  size_t n = 0;
  clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
  char *log = calloc(1, n + 1);
  if (log != NULL)
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
  return log;
}

/* The PTX of the whole source, NUL-terminated, or NULL. */
static char *compiled_ptx(void)
{
  cl_int err;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  if (err != CL_SUCCESS)
    return NULL;
  if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
    char *log = build_log(prog);
    fprintf(stderr, "ptxpatch: the source did not build:\n%s\n", log ? log : "");
    free(log);
    return NULL;
  }
  size_t size = 0;
  clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
  unsigned char *bin = calloc(1, size + 1);
  if (bin != NULL)
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
  clReleaseProgram(prog);
  return (char *)bin;
}

/* s with the first `from` after `after` (or anywhere if after is NULL)
 * replaced by `to`; a new string, or NULL when not found. */
static char *replace(const char *s, const char *after, const char *from, const char *to)
{
  const char *start = after != NULL ? strstr(s, after) : s;
  const char *at = start != NULL ? strstr(start, from) : NULL;
  if (at == NULL)
    return NULL;
  size_t head = (size_t)(at - s), nf = strlen(from), nt = strlen(to), tail = strlen(at + nf);
  char *r = malloc(head + nt + tail + 1);
  if (r == NULL)
    return NULL;
  memcpy(r, s, head);
  memcpy(r + head, to, nt);
  memcpy(r + head + nt, at + nf, tail + 1);
  return r;
}

static void save(const char *name, const char *ptx)
{
  if (save_dir == NULL || ptx == NULL)
    return;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.ptx", save_dir, name);
  FILE *fp = fopen(path, "w");
  if (fp != NULL) {
    fputs(ptx, fp);
    fclose(fp);
  }
}

/* The program built from PTX text, or NULL with the reason printed. */
static cl_program from_ptx(const char *label, const char *ptx)
{
  save(label, ptx);
  size_t len = strlen(ptx) + 1;
  const unsigned char *bin = (const unsigned char *)ptx;
  cl_int status, err;
  cl_program prog = clCreateProgramWithBinary(ctx, 1, &dev, &len, &bin, &status, &err);
  if (err != CL_SUCCESS) {
    printf("%s: clCreateProgramWithBinary failed (%d, status %d)\n", label, err, status);
    return NULL;
  }
  err = clBuildProgram(prog, 1, &dev, "-cl-nv-verbose", NULL, NULL);
  char *log = build_log(prog);
  if (err != CL_SUCCESS) {
    printf("%s: build failed (%d):\n%s\n", label, err, log ? log : "");
    free(log);
    clReleaseProgram(prog);
    return NULL;
  }
  if (log != NULL && log[0] != 0)
    printf("%s: build log:\n%s\n", label, log);
  free(log);
  return prog;
}

/* Runs kernel `name` of prog over `global` work-items in groups of
 * `local`, args after the output set by the caller's hook; the output
 * (words uint) into out.  Returns the enqueue's error code. */
static cl_int run(cl_program prog, const char *name, size_t global, size_t local, cl_uint *out,
                  size_t words, void (*args)(cl_kernel, void *), void *ctxarg, double *ms)
{
  cl_int err;
  cl_kernel kern = clCreateKernel(prog, name, &err);
  if (err != CL_SUCCESS)
    return err;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, words * 4, NULL, &err);
  if (err != CL_SUCCESS) {
    clReleaseKernel(kern);
    return err;
  }
  clSetKernelArg(kern, 0, sizeof buf, &buf);
  if (args != NULL)
    args(kern, ctxarg);
  cl_event ev;
  err = clEnqueueNDRangeKernel(queue, kern, 1, NULL, &global, &local, 0, NULL, &ev);
  if (err == CL_SUCCESS) {
    err = clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, words * 4, out, 0, NULL, NULL);
    cl_ulong t0 = 0, t1 = 0;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    if (ms != NULL)
      *ms = (double)(t1 - t0) * 1e-6;
    clReleaseEvent(ev);
  }
  clReleaseMemObject(buf);
  clReleaseKernel(kern);
  return err;
}

static int all_equal(const cl_uint *v, size_t n, cl_uint want)
{
  for (size_t i = 0; i < n; i++)
    if (v[i] != want)
      return 0;
  return 1;
}

static void check_target(const char *ptx)
{
  char *a = replace(ptx, NULL, ".target sm_90,", ".target sm_90a,");
  char *b = a != NULL ? replace(a, ".entry k_target", "// HOP_MARK", "wgmma.fence.sync.aligned;") : NULL;
  if (b == NULL) {
    printf("target: no `.target sm_90` or mark in the PTX\n");
    free(a);
    return;
  }
  cl_program prog = from_ptx("target", b);
  cl_uint out[256];
  if (prog != NULL) {
    cl_int err = run(prog, "k_target", 256, 64, out, 256, NULL, NULL, NULL);
    printf("target: sm_90a with wgmma.fence: run %d, result %s\n", err,
           err == CL_SUCCESS && all_equal(out, 256, 7u) ? "right" : "wrong");
    clReleaseProgram(prog);
  }
  free(a);
  free(b);
}

static void check_setmaxnreg(const char *ptx)
{
  static const char *variants[][2] = {
    {"setmaxnreg.dec.sync.aligned.u32 64;", ""},
    {"setmaxnreg.dec.sync.aligned.u32 64;", ".maxnreg 128\n"},
    {"setmaxnreg.inc.sync.aligned.u32 232;", ".maxnreg 128\n"},
  };
  for (int v = 0; v < 3; v++) {
    char *a = replace(ptx, NULL, ".target sm_90,", ".target sm_90a,");
    char *b = a != NULL ? replace(a, ".entry k_setmaxnreg", "// HOP_MARK", variants[v][0]) : NULL;
    char *c = b;
    if (b != NULL && variants[v][1][0] != 0) {
      char dir[64];
      snprintf(dir, sizeof dir, "%s{", variants[v][1]);
      c = replace(b, ".entry k_setmaxnreg", "{", dir);
      free(b);
    }
    if (c == NULL) {
      printf("setmaxnreg: patch not applied\n");
      free(a);
      return;
    }
    char label[32];
    snprintf(label, sizeof label, "setmaxnreg%d", v);
    cl_program prog = from_ptx(label, c);
    cl_uint out[512];
    if (prog != NULL) {
      cl_int err = run(prog, "k_setmaxnreg", 512, 128, out, 512, NULL, NULL, NULL);
      printf("setmaxnreg: `%s` %s: run %d, result %s\n", variants[v][0],
             variants[v][1][0] ? "with .maxnreg 128" : "alone", err,
             err == CL_SUCCESS && all_equal(out, 512, 9u) ? "right" : "wrong");
      clReleaseProgram(prog);
    }
    free(a);
    free(c);
  }
}

struct dsmem_args {
  int reps, remote;
};

static void set_dsmem(cl_kernel k, void *p)
{
  struct dsmem_args *d = p;
  clSetKernelArg(k, 1, sizeof(int), &d->reps);
  clSetKernelArg(k, 2, sizeof(int), &d->remote);
}

static void check_cluster(const char *ptx)
{
  for (int with = 0; with < 2; with++) {
    char *p = with ? replace(ptx, ".entry k_cluster", "{", ".reqnctapercluster 2, 1, 1\n{")
                   : strdup(ptx);
    char *q = p != NULL && with ? replace(p, ".entry k_dsmem", "{", ".reqnctapercluster 2, 1, 1\n{")
                                : (p != NULL ? strdup(p) : NULL);
    if (q == NULL) {
      printf("cluster: patch not applied\n");
      free(p);
      return;
    }
    cl_program prog = from_ptx(with ? "cluster2" : "cluster1", q);
    enum { GROUPS = 264, WI = GROUPS * 64 };
    static cl_uint out[WI * 4];
    if (prog != NULL) {
      cl_int err = run(prog, "k_cluster", WI, 64, out, WI * 4, NULL, NULL, NULL);
      int ok = err == CL_SUCCESS;
      unsigned nrank = out[1], clusters = 0;
      for (size_t gi = 0; ok && gi < WI; gi++) {
        const cl_uint *o = out + gi * 4;
        size_t grp = gi / 64, lid = gi % 64;
        cl_uint want_peer = nrank > 1 ? (cl_uint)((grp ^ 1u) * 1000u + lid) : 0xffffffffu;
        if (o[1] != nrank || o[0] != grp % nrank || o[2] != grp / nrank || o[3] != want_peer)
          ok = 0;
        if (o[2] + 1 > clusters)
          clusters = o[2] + 1;
      }
      printf("cluster: %s: run %d, cluster size %u, %u clusters, ranks and peers' values %s\n",
             with ? ".reqnctapercluster 2, 1, 1" : "as compiled", err, nrank, clusters,
             ok ? "right" : "wrong");
      /* the peer's local memory against the own: 132 * 4 work-groups */
      for (int remote = 0; remote < 2; remote++) {
        struct dsmem_args d = {200, remote};
        double best = 1e30;
        cl_uint res[528 * 256];
        cl_int e2 = CL_SUCCESS;
        for (int r = 0; r < 3 && e2 == CL_SUCCESS; r++) {
          double ms = 0;
          e2 = run(prog, "k_dsmem", 528 * 256, 256, res, 528 * 256, set_dsmem, &d, &ms);
          if (ms < best)
            best = ms;
        }
        double bytes = 528.0 * 2048 * 16 * d.reps;
        printf("dsmem: %s reads: run %d, %.3f ms, %.0f GB/s over the GPU\n",
               remote ? "the peer's" : "own", e2, best, bytes / (best * 1e-3) / 1e9);
      }
      clReleaseProgram(prog);
    }
    free(p);
    free(q);
  }
}

struct local_args {
  size_t bytes;
  cl_uint words;
};

static void set_local(cl_kernel k, void *p)
{
  struct local_args *l = p;
  clSetKernelArg(k, 1, l->bytes, NULL);
  clSetKernelArg(k, 2, sizeof(cl_uint), &l->words);
}

static void set_static(cl_kernel k, void *p)
{
  struct local_args *l = p;
  clSetKernelArg(k, 1, sizeof(cl_uint), &l->words);
}

static void check_local(const char *ptx)
{
  cl_program prog = from_ptx("local", ptx);
  if (prog == NULL)
    return;
  static const size_t kib[] = {48, 64, 96, 160, 227};
  cl_uint out[1024];
  for (int i = 0; i < 5; i++) {
    struct local_args l = {kib[i] * 1024, (cl_uint)(kib[i] * 256)};
    cl_int err = run(prog, "k_local", 1024, 256, out, 1024, set_local, &l, NULL);
    printf("local: a __local argument of %zu KiB: run %d, result %s\n", kib[i], err,
           err == CL_SUCCESS && all_equal(out, 1024, 0u) ? "right" : "wrong");
  }
  clReleaseProgram(prog);
  /* the static array's declaration, 12288 words, made 24576 */
  char *p = replace(ptx, ".entry k_static", "[49152]", "[98304]");
  if (p == NULL) {
    printf("static: no [49152] declaration found after .entry k_static\n");
    return;
  }
  prog = from_ptx("static", p);
  if (prog != NULL) {
    struct local_args l = {0, 24576};
    cl_int err = run(prog, "k_static", 1024, 256, out, 1024, set_static, &l, NULL);
    printf("static: a 96 KiB static local array: run %d, result %s\n", err,
           err == CL_SUCCESS && all_equal(out, 1024, 0u) ? "right" : "wrong");
    clReleaseProgram(prog);
  }
  free(p);
}

int main(int argc, char **argv)
{
  const char *want = "NVIDIA";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "-P") == 0)
      want = argv[i + 1];
    else if (strcmp(argv[i], "-S") == 0)
      save_dir = argv[i + 1];
  }
  cl_platform_id plats[8];
  cl_uint np = 0;
  clGetPlatformIDs(8, plats, &np);
  for (cl_uint p = 0; p < np && dev == NULL; p++) {
    char name[256] = "";
    clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (strstr(name, want) != NULL && clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
      dev = NULL;
  }
  if (dev == NULL) {
    fprintf(stderr, "ptxpatch: no device on a platform named like %s\n", want);
    return 2;
  }
  cl_int err;
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  queue = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  char *ptx = compiled_ptx();
  if (ptx == NULL || strstr(ptx, ".target") == NULL) {
    printf("ptxpatch: the program binary is not PTX; nothing to patch\n");
    return 1;
  }
  save("compiled", ptx);
  check_target(ptx);
  check_setmaxnreg(ptx);
  check_cluster(ptx);
  check_local(ptx);
  free(ptx);
  return 0;
}
