/* clprobe: run one GEMM kernel file on one OpenCL device, time it with
 * profiling events and check it against a double-precision reference.
 *
 * Standalone on purpose (links -lOpenCL only): it is built on the
 * development machine and carried to the GPU machine, which has no
 * compiler.  Every kernel it drives has the generic family's signature
 *   (m, n, k, alpha, a, a_off, lda, ta, b, b_off, ldb, tb, beta,
 *    cin, cin_off, ldcin, cout, cout_off, ldcout)
 * for column-major C = alpha op(A) op(B) + beta C, with C read from cin and
 * written to cout.  They are separate buffers here, so every timed launch
 * computes the same result and the first one can be checked.
 *
 * The tolerance is the engine contract's (doc/CONTRACT.md):
 *   |C - Cref| <= 2 (k + 2) FLT_EPSILON (|alpha| (|A||B|)_ij + |beta C_ij|)
 * plus one half rounding of |Cref| when C is stored as half. */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum dtype { DT_S, DT_H, DT_SH, DT_D };

struct opts {
  const char *files[8];
  int nfiles;
  const char *kernel, *build, *platform, *label, *binary;
  enum dtype dt;
  int m, n, k, ta, tb, pad, off, reps, check, verbose, probe; /* check: 0 none, 1 sample, 2 full */
  size_t lx, ly, bm, bn;
  float alpha, beta;
};

struct mat {     /* one column-major operand as stored */
  int rows, cols, ld;
  size_t off;    /* element offset of (0, 0) in the buffer */
  size_t cells;  /* off + ld * cols */
  int half;      /* stored as half */
  int dbl;       /* stored as double (dgemm: then alpha and beta are double too) */
  void *host;
};

static void die(const char *what, cl_int err)
{
  fprintf(stderr, "clprobe: %s failed (%d)\n", what, (int)err);
  exit(2);
}

static double mat_get(const struct mat *x, int i, int j)
{
  size_t at = x->off + (size_t)j * x->ld + i;
  return x->half  ? (double)((_Float16 *)x->host)[at]
         : x->dbl ? ((double *)x->host)[at]
                  : (double)((float *)x->host)[at];
}

static size_t mat_esize(const struct mat *x) { return x->half ? 2 : x->dbl ? 8 : 4; }

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static float rng_uniform(void) /* in [-1, 1) */
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (float)((rng_state >> 40) * 0x1p-23) - 1.0f;
}

/* Fill the whole buffer: cells outside the matrix get a sentinel that a
 * stray write would change; `nan_inside` fills the matrix with NaN. */
static void mat_init(struct mat *x, int rows, int cols, int pad, int off, int half, int dbl,
                     int nan_inside)
{
  x->rows = rows, x->cols = cols, x->ld = rows + pad, x->off = (size_t)off, x->half = half;
  x->dbl = dbl;
  x->cells = x->off + (size_t)x->ld * cols;
  x->host = malloc(x->cells * mat_esize(x));
  if (x->host == NULL) {
    fprintf(stderr, "clprobe: out of host memory\n");
    exit(2);
  }
  for (size_t c = 0; c < x->cells; c++) {
    size_t rel = c - x->off;
    int inside = c >= x->off && (int)(rel % x->ld) < rows;
    float v = !inside ? 777.0f : nan_inside ? NAN : rng_uniform();
    if (half)
      ((_Float16 *)x->host)[c] = (_Float16)v;
    else if (dbl) /* full 53-bit values: a float-only path would show */
      ((double *)x->host)[c] = inside && !nan_inside ? v + rng_uniform() * 0x1p-24 : v;
    else
      ((float *)x->host)[c] = v;
  }
}

static int parse_dtype(const char *s, enum dtype *dt)
{
  if (strcmp(s, "s") == 0)
    *dt = DT_S;
  else if (strcmp(s, "h") == 0)
    *dt = DT_H;
  else if (strcmp(s, "sh") == 0)
    *dt = DT_SH;
  else if (strcmp(s, "d") == 0)
    *dt = DT_D;
  else
    return -1;
  return 0;
}

static void usage(void)
{
  fprintf(stderr,
          "usage: clprobe -f FILE.cl [-f MORE.cl] -K KERNEL -L LX[,LY] -W BM,BN [-D 'OPTS']\n"
          "         [-t s|h|sh|d] [-m M -n N -k K] [-T NN|NT|TN|TT] [-a ALPHA] [-b BETA]\n"
          "         [-r REPS] [-c none|sample|full] [-p PAD] [-o OFF] [-P PLATFORM]\n"
          "         [-l LABEL] [-v]\n"
          "         [-S FILE (write the program binary: PTX on NVIDIA)]\n"
          "       clprobe -probe -f kernels/nv_probe.cl -K nv_ptx_probe [-P PLATFORM] [-v]\n"
          "Work-group (i, j) computes C rows [i*BM, i*BM+BM) x columns [j*BN, j*BN+BN);\n"
          "global size = (ceil(M/BM)*LX, ceil(N/BN)*LY).  Exit 0: correct, 1: wrong, 2: error.\n");
  exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
  memset(o, 0, sizeof *o);
  o->build = "", o->dt = DT_S, o->m = o->n = o->k = 256, o->reps = 10, o->check = -1;
  o->alpha = 1.0f, o->ly = 1;
  for (int i = 1; i < argc; i++) {
    const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(f, "-v") == 0 || strcmp(f, "-probe") == 0) {
      *(f[1] == 'v' ? &o->verbose : &o->probe) = 1;
      continue;
    }
    if (v == NULL || f[0] != '-' || f[1] == 0 || f[2] != 0)
      usage();
    i++;
    switch (f[1]) {
    case 'f': if (o->nfiles == 8) usage(); o->files[o->nfiles++] = v; break;
    case 'K': o->kernel = v; break;
    case 'D': o->build = v; break;
    case 'P': o->platform = v; break;
    case 'l': o->label = v; break;
    case 'S': o->binary = v; break;
    case 't': if (parse_dtype(v, &o->dt)) usage(); break;
    case 'm': o->m = atoi(v); break;
    case 'n': o->n = atoi(v); break;
    case 'k': o->k = atoi(v); break;
    case 'a': o->alpha = strtof(v, NULL); break;
    case 'b': o->beta = strtof(v, NULL); break;
    case 'r': o->reps = atoi(v); break;
    case 'p': o->pad = atoi(v); break;
    case 'o': o->off = atoi(v); break;
    case 'T':
      if (strlen(v) != 2) usage();
      o->ta = v[0] == 'T', o->tb = v[1] == 'T';
      break;
    case 'c': o->check = strcmp(v, "none") == 0 ? 0 : strcmp(v, "sample") == 0 ? 1 : 2; break;
    case 'L': if (sscanf(v, "%zu,%zu", &o->lx, &o->ly) < 1) usage(); break;
    case 'W': if (sscanf(v, "%zu,%zu", &o->bm, &o->bn) != 2) usage(); break;
    default: usage();
    }
  }
  if (o->probe && o->nfiles > 0 && o->kernel != NULL)
    return;
  if (o->nfiles == 0 || o->kernel == NULL || o->lx == 0 || o->ly == 0 || o->bm == 0 ||
      o->bn == 0 || o->m <= 0 || o->n <= 0 || o->k <= 0 || o->reps <= 0 || o->pad < 0 || o->off < 0)
    usage();
  if (o->check < 0) /* whole C when the reference is cheap, else a sample */
    o->check = (double)o->m * o->n * o->k <= 0x1p27 ? 2 : 1;
}

static char *read_sources(const struct opts *o)
{
  size_t len = 0;
  char *all = calloc(1, 1);
  for (int i = 0; i < o->nfiles && all != NULL; i++) {
    FILE *fp = fopen(o->files[i], "rb");
    if (fp == NULL) {
      fprintf(stderr, "clprobe: cannot open %s\n", o->files[i]);
      exit(2);
    }
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *grown = realloc(all, len + (size_t)size + 2);
    if (grown == NULL || fread(grown + len, 1, (size_t)size, fp) != (size_t)size)
      die("reading a kernel file", -1);
    all = grown;
    len += (size_t)size;
    all[len++] = '\n';
    all[len] = 0;
    fclose(fp);
  }
  return all;
}

static cl_device_id pick_device(const char *want)
{
  cl_platform_id plats[16];
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(16, plats, &np);
  if (err != CL_SUCCESS || np == 0)
    die("clGetPlatformIDs", err);
  for (cl_uint p = 0; p < np; p++) {
    char name[256] = "";
    clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
    cl_device_id dev;
    if (want != NULL && strstr(name, want) == NULL)
      continue;
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) == CL_SUCCESS)
      return dev;
  }
  die("finding a device", -1);
  return NULL;
}

static cl_kernel build(cl_context ctx, cl_device_id dev, const struct opts *o, double *seconds)
{
  char *src = read_sources(o);
  cl_int err;
  const char *text = src;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &text, NULL, &err);
  if (err != CL_SUCCESS)
    die("clCreateProgramWithSource", err);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  cl_int berr = clBuildProgram(prog, 1, &dev, o->build, NULL, NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  *seconds = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  if (berr != CL_SUCCESS || o->verbose) {
    size_t n = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = malloc(n + 1);
    if (log != NULL && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == 0)
      fprintf(stderr, "--- build log (%s) ---\n%s\n", o->build, log);
    free(log);
  }
  if (berr != CL_SUCCESS)
    die("clBuildProgram", berr);
  free(src);
  size_t size = 0;
  unsigned char *bin = NULL;
  FILE *fp = o->binary != NULL ? fopen(o->binary, "wb") : NULL;
  if (fp != NULL &&
      clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) == CL_SUCCESS &&
      (bin = malloc(size)) != NULL &&
      clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS)
    fwrite(bin, 1, size, fp);
  if (fp != NULL)
    fclose(fp);
  free(bin);
  cl_kernel kern = clCreateKernel(prog, o->kernel, &err);
  if (err != CL_SUCCESS)
    die("clCreateKernel", err);
  return kern;
}

static cl_mem upload(cl_context ctx, cl_command_queue q, const struct mat *x)
{
  cl_int err;
  size_t bytes = x->cells * mat_esize(x);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS)
    die("clCreateBuffer", err);
  err = clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, bytes, x->host, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    die("clEnqueueWriteBuffer", err);
  return buf;
}

static void set_args(cl_kernel kern, const struct opts *o, const struct mat *a, cl_mem da,
                     const struct mat *b, cl_mem db, const struct mat *c, cl_mem dcin, cl_mem dcout)
{
  cl_ulong aoff = a->off, boff = b->off, coff = c->off;
  cl_int ld[3] = {a->ld, b->ld, c->ld};
  double alpha_d = o->alpha, beta_d = o->beta;
  size_t scalar = o->dt == DT_D ? sizeof(double) : sizeof(float);
  const void *alpha = o->dt == DT_D ? (const void *)&alpha_d : (const void *)&o->alpha;
  const void *beta = o->dt == DT_D ? (const void *)&beta_d : (const void *)&o->beta;
  struct { size_t size; const void *value; } args[] = {
    {sizeof(cl_int), &o->m},     {sizeof(cl_int), &o->n},   {sizeof(cl_int), &o->k},
    {scalar, alpha},             {sizeof(cl_mem), &da},     {sizeof(cl_ulong), &aoff},
    {sizeof(cl_int), &ld[0]},    {sizeof(cl_int), &o->ta},  {sizeof(cl_mem), &db},
    {sizeof(cl_ulong), &boff},   {sizeof(cl_int), &ld[1]},  {sizeof(cl_int), &o->tb},
    {scalar, beta},              {sizeof(cl_mem), &dcin},   {sizeof(cl_ulong), &coff},
    {sizeof(cl_int), &ld[2]},    {sizeof(cl_mem), &dcout},  {sizeof(cl_ulong), &coff},
    {sizeof(cl_int), &ld[2]},
  };
  cl_uint i = 0;
  for (; i < sizeof args / sizeof args[0]; i++) {
    cl_int err = clSetKernelArg(kern, i, args[i].size, args[i].value);
    if (err != CL_SUCCESS)
      die("clSetKernelArg", err);
  }
  /* -DNV_DYNLDS=BYTES in the build options: the kernel takes one more
   * argument, a __local buffer of that many bytes (dynamic local memory,
   * to see whether the driver grants more than CL_DEVICE_LOCAL_MEM_SIZE) */
  const char *dyn = strstr(o->build, "-DNV_DYNLDS=");
  if (dyn != NULL) {
    cl_int err = clSetKernelArg(kern, i, (size_t)atol(dyn + 12), NULL);
    if (err != CL_SUCCESS)
      die("clSetKernelArg (dynamic local memory)", err);
  }
}

/* Check element (i, j) of `got` (C after the call) against the reference
 * built from A, B and C0; returns err/bound (> 1 means wrong). */
static double check_one(const struct opts *o, const struct mat *a, const struct mat *b,
                        const struct mat *c0, const struct mat *got, int i, int j)
{
  long double s = 0.0, sa = 0.0; /* wider than a double result */
  for (int l = 0; l < o->k; l++) {
    long double p = (long double) (o->ta ? mat_get(a, l, i) : mat_get(a, i, l)) *
               (o->tb ? mat_get(b, j, l) : mat_get(b, l, j));
    s += p;
    sa += fabsl(p);
  }
  double cij = o->beta != 0.0f ? mat_get(c0, i, j) : 0.0;
  double ref = (double)(o->alpha * s + (o->beta != 0.0f ? o->beta * cij : 0.0));
  double eps = got->dbl ? DBL_EPSILON : FLT_EPSILON;
  double bound = 2.0 * (o->k + 2) * eps * (fabs(o->alpha) * (double)sa + fabs(o->beta * cij));
  if (got->half)
    bound += fabs(ref) * 0x1p-11;
  double v = mat_get(got, i, j), err = fabs(v - ref);
  if (!(err <= bound)) /* NaN lands here too */
    return isnan(err) ? INFINITY : (bound > 0 ? err / bound : INFINITY);
  return bound > 0 ? err / bound : 0.0;
}

/* Every element for `full`, else corners, edges and random ones; in full mode
 * also every cell outside the m x n block, which must keep its sentinel. */
static int check(const struct opts *o, const struct mat *a, const struct mat *b,
                 const struct mat *c0, const struct mat *got, double *worst, int *tested)
{
  int bad = 0;
  *worst = 0.0, *tested = 0;
  int samples = o->check == 2 ? 0 : 600;
  for (int s = 0; s < (o->check == 2 ? o->m * o->n : samples); s++) {
    int i, j;
    if (o->check == 2)
      i = s % o->m, j = s / o->m;
    else if (s < 4)
      i = s & 1 ? o->m - 1 : 0, j = s & 2 ? o->n - 1 : 0;
    else if (s < 100 && (s & 1)) /* the last row and column: edge tiles */
      i = o->m - 1, j = (int)(rng_state % o->n);
    else if (s < 100)
      i = (int)(rng_state % o->m), j = o->n - 1;
    else
      i = (int)(rng_state % o->m), j = (int)((rng_state >> 32) % o->n);
    rng_uniform();
    double r = check_one(o, a, b, c0, got, i, j);
    *worst = r > *worst ? r : *worst;
    bad += r > 1.0;
    if (r > 1.0 && bad <= 3)
      fprintf(stderr, "clprobe: C(%d,%d) = %.9g off by %.3g x the bound\n", i, j,
              mat_get(got, i, j), r);
    ++*tested;
  }
  if (o->check == 2)
    for (size_t cell = 0; cell < got->cells; cell++) {
      size_t rel = cell - got->off;
      if (cell >= got->off && (int)(rel % got->ld) < got->rows)
        continue;
      double v = got->half  ? (double)((_Float16 *)got->host)[cell]
                 : got->dbl ? ((double *)got->host)[cell]
                            : ((float *)got->host)[cell];
      if (v != 777.0 && bad++ < 3)
        fprintf(stderr, "clprobe: cell %zu outside C was written\n", cell);
    }
  return bad;
}

static int cmp_double(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* kernels/nv_probe.cl's operands: small integers, so every sum is exact. */
static int probe_a(int i, int l) { return (i + 2 * l) % 5 - 2; }
static int probe_b(int l, int j) { return (3 * l + j) % 7 - 3; }

/* kernels/nv_probe.cl: one work-group of 32 writes two small exact
 * products and one fma.rn.f16x2 per lane (see the kernel's header); 0
 * when all are right. */
static int run_probe(cl_context ctx, cl_command_queue q, cl_kernel kern)
{
  float out[448], want[448];
  for (int lane = 0; lane < 32; lane++) { /* one fma.rn.f16x2 per lane */
    int i = lane % 16, j = lane % 8;
    want[384 + 2 * lane] = (float)(probe_a(i, 0) * probe_b(0, j) + probe_a(i, 2));
    want[385 + 2 * lane] = (float)(probe_a(i, 1) * probe_b(1, j) + probe_b(2, j));
  }
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      double s16 = 0.0, s8 = 0.0;
      for (int l = 0; l < 16; l++) {
        double p = (double)probe_a(i, l) * probe_b(l, j);
        s16 += p;
        s8 += l < 8 ? p : 0.0;
      }
      want[i * 16 + j] = (float)s16;
      if (j < 8)
        want[256 + i * 8 + j] = (float)s8;
    }
  cl_int err;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  size_t n = 32;
  if (err == CL_SUCCESS)
    err = clSetKernelArg(kern, 0, sizeof buf, &buf);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(q, kern, 1, NULL, &n, &n, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    die("running the probe", err);
  int bad = 0;
  for (int i = 0; i < 448; i++)
    if (out[i] != want[i] && bad++ < 3)
      fprintf(stderr, "clprobe: probe out[%d] = %g, expected %g\n", i, out[i], want[i]);
  printf("nv_ptx_probe: %s (%d of 448 wrong)\n", bad ? "WRONG" : "ok", bad);
  return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
  struct opts o;
  parse(argc, argv, &o);
  cl_int err;
  cl_device_id dev = pick_device(o.platform);
  char devname[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof devname, devname, NULL);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  if (err != CL_SUCCESS)
    die("clCreateContext", err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS)
    die("clCreateCommandQueue", err);
  double build_s;
  cl_kernel kern = build(ctx, dev, &o, &build_s);
  if (o.probe)
    return run_probe(ctx, q, kern);

  int half_ab = o.dt == DT_H || o.dt == DT_SH, half_c = o.dt == DT_H, dbl = o.dt == DT_D;
  struct mat a, b, c0, c;
  mat_init(&a, o.ta ? o.k : o.m, o.ta ? o.m : o.k, o.pad, o.off, half_ab, dbl, 0);
  mat_init(&b, o.tb ? o.n : o.k, o.tb ? o.k : o.n, o.pad, o.off, half_ab, dbl, 0);
  mat_init(&c0, o.m, o.n, o.pad, o.off, half_c, dbl, o.beta == 0.0f); /* beta 0: C is write-only */
  mat_init(&c, o.m, o.n, o.pad, o.off, half_c, dbl, 1);
  cl_mem da = upload(ctx, q, &a), db = upload(ctx, q, &b);
  cl_mem dcin = upload(ctx, q, &c0), dcout = upload(ctx, q, &c);
  set_args(kern, &o, &a, da, &b, db, &c0, dcin, dcout);

  size_t local[2] = {o.lx, o.ly};
  size_t global[2] = {(o.m + o.bm - 1) / o.bm * o.lx, (o.n + o.bn - 1) / o.bn * o.ly};
  double *ns = malloc(sizeof(double) * o.reps);
  cl_event *ev = malloc(sizeof(cl_event) * o.reps);
  if (ns == NULL || ev == NULL)
    die("malloc", -1);
  err = clEnqueueNDRangeKernel(q, kern, 2, NULL, global, local, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    die("clEnqueueNDRangeKernel", err);
  err = clEnqueueReadBuffer(q, dcout, CL_TRUE, 0, c.cells * mat_esize(&c), c.host, 0, NULL,
                            NULL);
  if (err != CL_SUCCESS)
    die("running the kernel", err);
  for (int r = 0; r < o.reps; r++)
    if ((err = clEnqueueNDRangeKernel(q, kern, 2, NULL, global, local, 0, NULL, &ev[r])))
      die("clEnqueueNDRangeKernel", err);
  if ((err = clFinish(q)) != CL_SUCCESS)
    die("clFinish", err);
  for (int r = 0; r < o.reps; r++) {
    cl_ulong t0 = 0, t1 = 0;
    clGetEventProfilingInfo(ev[r], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    clGetEventProfilingInfo(ev[r], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    ns[r] = (double)(t1 - t0);
    clReleaseEvent(ev[r]);
  }
  qsort(ns, o.reps, sizeof ns[0], cmp_double);
  double flops = 2.0 * o.m * o.n * o.k;
  double worst = 0.0;
  int tested = 0, bad = o.check ? check(&o, &a, &b, &c0, &c, &worst, &tested) : 0;
  static const char *dtname[] = {"s", "h", "sh", "d"};
  printf("%-20s %-2s %c%c %5d %5d %5d  best %8.2f  med %8.2f TFLOPS  %9.1f us  %s %d/%d "
         "worst %.3g  build %.2fs  %s\n",
         o.label ? o.label : o.kernel, dtname[o.dt], o.ta ? 'T' : 'N', o.tb ? 'T' : 'N', o.m,
         o.n, o.k, flops / ns[0] * 1e-3, flops / ns[o.reps / 2] * 1e-3, ns[o.reps / 2] * 1e-3,
         !o.check ? "unchecked" : bad ? "WRONG" : "ok", bad, tested, worst, build_s, devname);
  return bad ? 1 : 0;
}
