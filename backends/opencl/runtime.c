/* The OpenCL runtime of the process: every platform and device is found
 * once, one device is chosen (HOPBLAS_DEVICE, else the strongest GPU), or
 * several that share large calls (split.c opens the others' states here),
 * and each one's context and queues are created once and kept for the life
 * of the process.  Nothing here runs per call. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ocl.h"

/* A string property of a device (or, with d == NULL, of platform p),
 * truncated to fit dst: the driver refuses a buffer shorter than the value. */
static void info_string(cl_device_id d, cl_platform_id p, cl_uint what, char *dst, size_t len)
{
  size_t need = 0;
  char *tmp = NULL;
  dst[0] = '\0';
  cl_int err =
    d ? clGetDeviceInfo(d, what, 0, NULL, &need) : clGetPlatformInfo(p, what, 0, NULL, &need);
  if (err != CL_SUCCESS || need == 0 || (tmp = malloc(need)) == NULL)
    return;
  err = d ? clGetDeviceInfo(d, what, need, tmp, NULL) : clGetPlatformInfo(p, what, need, tmp, NULL);
  if (err == CL_SUCCESS)
    snprintf(dst, len, "%.*s", (int)need, tmp);
  free(tmp);
}

static void device_query(struct hop_ocl_device *d)
{
  cl_bool avail = CL_FALSE, compiler = CL_FALSE, unified = CL_FALSE;
  cl_uint align_bits = 0;
  cl_device_fp_config fp = 0;
  info_string(d->id, NULL, CL_DEVICE_NAME, d->name, sizeof d->name);
  info_string(d->id, NULL, CL_DEVICE_VENDOR, d->vendor, sizeof d->vendor);
  info_string(d->id, NULL, CL_DRIVER_VERSION, d->driver, sizeof d->driver);
  info_string(d->id, NULL, CL_DEVICE_VERSION, d->version, sizeof d->version);
  clGetDeviceInfo(d->id, CL_DEVICE_TYPE, sizeof d->type, &d->type, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->units, &d->units, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof d->clock_mhz, &d->clock_mhz, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof d->global_mem, &d->global_mem, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc, &d->max_alloc, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof d->local_mem, &d->local_mem, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_wg, &d->max_wg, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
  clGetDeviceInfo(d->id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
  d->usable = avail && compiler && d->max_alloc > 0 && d->max_wg > 0;
  d->unified = unified;
  d->flushes = (fp & CL_FP_DENORM) == 0; /* optional in OpenCL 1.2: Mali and Adreno may lack it */
  /* Page alignment at most: the aligned-down start of a host view must stay on its page. */
  d->base_align = align_bits >= 8 && align_bits / 8 <= 4096 ? align_bits / 8 : 128;
}

/* Every device of every platform, into st->devs. */
static enum hop_status discover(struct hop_ocl_state *st, char *why, size_t len)
{
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(0, NULL, &np);
  if (err != CL_SUCCESS || np == 0) {
    snprintf(why, len, "no OpenCL platform (the ICD loader found no driver: error %d)", (int)err);
    return HOP_UNAVAILABLE;
  }
  cl_platform_id *plats = calloc(np, sizeof *plats);
  if (plats == NULL || clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
    free(plats);
    snprintf(why, len, "OpenCL platforms could not be listed");
    return HOP_UNAVAILABLE;
  }
  for (cl_uint p = 0; p < np; p++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0)
      continue;
    cl_device_id *ids = calloc(nd, sizeof *ids);
    struct hop_ocl_device *grown = realloc(st->devs, (st->ndev + nd) * sizeof *grown);
    if (ids == NULL || grown == NULL ||
        clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, ids, NULL) != CL_SUCCESS) {
      free(ids);
      if (grown != NULL)
        st->devs = grown;
      continue;
    }
    st->devs = grown;
    for (cl_uint i = 0; i < nd; i++) {
      struct hop_ocl_device *d = &st->devs[st->ndev++];
      memset(d, 0, sizeof *d);
      d->platform = plats[p];
      d->id = ids[i];
      info_string(NULL, plats[p], CL_PLATFORM_NAME, d->platform_name, sizeof d->platform_name);
      device_query(d);
    }
    free(ids);
  }
  free(plats);
  if (st->ndev == 0) {
    snprintf(why, len, "OpenCL platforms found, but no device");
    return HOP_UNAVAILABLE;
  }
  return HOP_OK;
}

static int kind_rank(const struct hop_ocl_device *d)
{
  return d->type & CL_DEVICE_TYPE_GPU ? 3 : d->type & CL_DEVICE_TYPE_ACCELERATOR ? 2 : 1;
}

/* GPUs first, then accelerators, then CPUs; within a kind, units x clock. */
static double device_score(const struct hop_ocl_device *d)
{
  return kind_rank(d) * 1e12 + (double)d->units * (double)d->clock_mhz;
}

/* The usable devices of the strongest kind present (every GPU, when there
 * is one), in index order: what `all` and `local-rank` choose among.  A
 * CPU driver beside a GPU is left out: it would compete with the host. */
static size_t candidates(const struct hop_ocl_state *st, size_t *out)
{
  int best = 0;
  size_t n = 0;
  for (size_t i = 0; i < st->ndev; i++)
    if (st->devs[i].usable && kind_rank(&st->devs[i]) > best)
      best = kind_rank(&st->devs[i]);
  for (size_t i = 0; i < st->ndev; i++)
    if (st->devs[i].usable && kind_rank(&st->devs[i]) == best)
      out[n++] = i;
  return n;
}

/* One item of HOPBLAS_DEVICE: an index, or a substring of "platform name". */
static bool match_item(const struct hop_ocl_state *st, const char *item, size_t len, size_t *out,
                       char *why, size_t wlen)
{
  bool index = len > 0;
  for (size_t i = 0; i < len; i++)
    index = index && isdigit((unsigned char)item[i]);
  for (size_t i = 0; i < st->ndev && len > 0; i++) {
    char full[240];
    snprintf(full, sizeof full, "%s %s", st->devs[i].platform_name, st->devs[i].name);
    bool hit = index ? strtoul(item, NULL, 10) == i : memmem(full, strlen(full), item, len) != NULL;
    if (!hit)
      continue;
    if (!st->devs[i].usable) {
      snprintf(why, wlen, "HOPBLAS_DEVICE: '%.*s' names an unavailable device (%.80s)", (int)len,
               item, st->devs[i].name);
      return false;
    }
    *out = i;
    return true;
  }
  snprintf(why, wlen, "HOPBLAS_DEVICE: '%.*s' matches none of the %zu OpenCL devices", (int)len,
           item, st->ndev);
  return false;
}

/* The comma-separated items of list, the (rank mod count)-th only when pick
 * is set, into out[]; false with why when one matches nothing. */
static bool match_list(const struct hop_ocl_state *st, const char *list, bool pick, long rank,
                       size_t *out, size_t *n, char *why, size_t wlen)
{
  size_t items = 1;
  for (const char *p = list; *p; p++)
    items += *p == ',';
  size_t want = pick ? (size_t)rank % items : 0, at = 0;
  *n = 0;
  for (const char *p = list;; at++) {
    size_t len = strcspn(p, ",");
    if (!pick || at == want) {
      size_t d;
      if (!match_item(st, p, len, &d, why, wlen))
        return false;
      bool again = false;
      for (size_t i = 0; i < *n; i++)
        again = again || out[i] == d;
      if (!again)
        out[(*n)++] = d;
    }
    if (p[len] == '\0')
      return true;
    p += len + 1;
  }
}

/* HOPBLAS_DEVICE: unset, the strongest device; an index or a name
 * substring; a list of those (0,1) or `all`, several devices that share each
 * large call (split.c); `local-rank`, the MPI rank's place on its node
 * (core/rank.c) modulo the devices `all` would take, or `local-rank:LIST`,
 * the LIST item that rank indexes (modulo its length).  st->dev is the first
 * device, st->also the others. */
static enum hop_status choose(struct hop_ocl_state *st, char *why, size_t len)
{
  const char *want = hop_config_get("HOPBLAS_DEVICE");
  size_t *list = calloc(st->ndev, sizeof *list), n = 0;
  if (list == NULL) {
    snprintf(why, len, "out of memory");
    return HOP_ERR_NOMEM;
  }
  long rank = 0;
  const char *from = NULL;
  bool ok = true;
  if (want == NULL || *want == '\0') {
    for (size_t i = 0; i < st->ndev; i++)
      if (st->devs[i].usable && (n == 0 || device_score(&st->devs[i]) > device_score(&st->devs[list[0]])))
        list[0] = i, n = 1;
    if (n == 0)
      snprintf(why, len, "no available OpenCL device with a compiler");
    snprintf(st->dev_why, sizeof st->dev_why, "%s",
             st->ndev == 1 ? "the only device" : "strongest device (GPU first, then units x clock)");
  } else if (strcmp(want, "all") == 0) {
    n = candidates(st, list);
    if (n == 0)
      snprintf(why, len, "HOPBLAS_DEVICE=all: no available OpenCL device with a compiler");
    snprintf(st->dev_why, sizeof st->dev_why, "HOPBLAS_DEVICE=all: the %zu usable devices of the "
             "strongest kind", n);
  } else if (strncmp(want, "local-rank", 10) == 0 && (want[10] == '\0' || want[10] == ':')) {
    if (!hop_mpi_rank(true, &rank, &from))
      hop_log(2, "opencl: HOPBLAS_DEVICE=%.60s outside an MPI job: local rank 0", want);
    if (want[10] == ':') {
      ok = match_list(st, want + 11, true, rank, list, &n, why, len);
    } else {
      size_t c = candidates(st, list);
      if (c == 0)
        snprintf(why, len, "HOPBLAS_DEVICE=local-rank: no available OpenCL device with a compiler");
      else
        list[0] = list[(size_t)rank % c], n = 1;
    }
    snprintf(st->dev_why, sizeof st->dev_why, "HOPBLAS_DEVICE=%.60s: local rank %ld%s%s%s", want,
             rank, from ? " (" : " (not in an MPI job", from ? from : "", ")");
  } else {
    ok = match_list(st, want, false, 0, list, &n, why, len);
    snprintf(st->dev_why, sizeof st->dev_why, "HOPBLAS_DEVICE=%.60s", want);
  }
  if (!ok || n == 0) {
    free(list);
    return HOP_UNAVAILABLE;
  }
  st->dev = list[0];
  st->nalso = n - 1;
  if (st->nalso > 0)
    memmove(list, list + 1, st->nalso * sizeof *list), st->also = list;
  else
    free(list);
  return HOP_OK;
}

static void choose_memory(struct hop_ocl_state *st)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  const char *want = hop_config_get("HOPBLAS_OPENCL_MEMORY");
  st->memory_chosen_by_user = want != NULL && (strcmp(want, "zero-copy") == 0 ||
                                               strcmp(want, "staged") == 0);
  if (want != NULL && strcmp(want, "zero-copy") == 0) {
    st->memory = HOP_OCL_ZERO_COPY;
    snprintf(st->memory_why, sizeof st->memory_why, "HOPBLAS_OPENCL_MEMORY=zero-copy");
  } else if (want != NULL && strcmp(want, "staged") == 0) {
    st->memory = HOP_OCL_STAGED;
    snprintf(st->memory_why, sizeof st->memory_why, "HOPBLAS_OPENCL_MEMORY=staged");
  } else {
    if (want != NULL && *want != '\0' && strcmp(want, "auto") != 0)
      hop_log(1, "HOPBLAS_OPENCL_MEMORY=%.40s is not auto|zero-copy|staged; using auto", want);
    st->memory = d->unified ? HOP_OCL_ZERO_COPY : HOP_OCL_STAGED;
    snprintf(st->memory_why, sizeof st->memory_why, "%s",
             d->unified ? "the device shares host memory; calls of at most 64 KiB of operands "
                          "are staged through the kept buffers"
                        : "discrete device memory");
  }
}

/* The context and queues on st->dev, and what depends on the device. */
static enum hop_status open_device(struct hop_ocl_state *st, char *why, size_t len)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
  cl_int err;
  st->ctx = clCreateContext(props, 1, &d->id, NULL, NULL, &err);
  cl_command_queue_properties qp = hop_ocl_timeline_wanted() ? CL_QUEUE_PROFILING_ENABLE : 0;
  for (int q = 0; q < HOP_OCL_QUEUES && err == CL_SUCCESS; q++)
    st->q[q] = clCreateCommandQueue(st->ctx, d->id, qp, &err);
  if (err != CL_SUCCESS) {
    snprintf(why, len, "%s: context or queue creation failed (error %d)", d->name, (int)err);
    return HOP_UNAVAILABLE;
  }
  choose_memory(st);
  hop_ocl_generic_params(d, &st->params, st->params_why, sizeof st->params_why);
  /* The largest buffer a call plans for: the device's limit, and an eighth of
   * its memory so that the pool's six buffers fit beside other users; less
   * for tests (HOPBLAS_OPENCL_MAX_ALLOC). */
  long long knob = hop_config_int("HOPBLAS_OPENCL_MAX_ALLOC", 0, 1LL << 46, 0);
  st->cap = d->max_alloc;
  if (d->global_mem / 8 >= (64u << 20) && d->global_mem / 8 < st->cap)
    st->cap = d->global_mem / 8;
  if (knob > 0 && (cl_ulong)knob < st->cap)
    st->cap = (size_t)knob;
  st->queue_window = hop_config_int("HOPBLAS_QUEUE_WINDOW", 0, 1L << 30, 0);
  st->flushes = d->flushes || hop_config_int("HOPBLAS_OPENCL_FTZ", 0, 1, 0) == 1;
  snprintf(why, len, "%s (%s)", d->name, d->platform_name);
  return HOP_OK;
}

enum hop_status hop_ocl_runtime_open(struct hop_ocl_state *st, char *why, size_t len)
{
  enum hop_status rc = discover(st, why, len);
  if (rc == HOP_OK)
    rc = choose(st, why, len);
  return rc == HOP_OK ? open_device(st, why, len) : rc;
}

enum hop_status hop_ocl_runtime_open_on(struct hop_ocl_state *st, const struct hop_ocl_state *first,
                                        size_t dev, char *why, size_t len)
{
  st->devs = malloc(first->ndev * sizeof *st->devs);
  if (st->devs == NULL) {
    snprintf(why, len, "out of memory");
    return HOP_ERR_NOMEM;
  }
  memcpy(st->devs, first->devs, first->ndev * sizeof *st->devs);
  st->ndev = first->ndev;
  st->dev = dev;
  snprintf(st->dev_why, sizeof st->dev_why, "shares calls with device %zu (%.100s)", first->dev,
           first->dev_why);
  return open_device(st, why, len);
}

void hop_ocl_runtime_close(struct hop_ocl_state *st)
{
  hop_ocl_pool_release(st);
  hop_ocl_program_release(&st->prog);
  for (int q = 0; q < HOP_OCL_QUEUES; q++)
    if (st->q[q] != NULL)
      clReleaseCommandQueue(st->q[q]);
  if (st->ctx != NULL)
    clReleaseContext(st->ctx);
  free(st->devs);
  free(st->also);
  st->devs = NULL;
  st->also = NULL;
  st->ndev = st->nalso = 0;
}

const struct hop_ocl_device *hop_ocl_device(const struct hop_ocl_state *st)
{
  return &st->devs[st->dev];
}

static const char *type_name(cl_device_type t)
{
  return t & CL_DEVICE_TYPE_GPU ? "GPU" : t & CL_DEVICE_TYPE_CPU ? "CPU"
         : t & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "other";
}

static bool in_use(const struct hop_ocl_state *st, size_t i)
{
  bool yes = i == st->dev;
  for (size_t a = 0; a < st->nalso; a++)
    yes = yes || st->also[a] == i;
  return yes;
}

void hop_ocl_runtime_describe(const struct hop_ocl_state *st, FILE *out)
{
  for (size_t i = 0; i < st->ndev; i++) {
    const struct hop_ocl_device *d = &st->devs[i];
    fprintf(out,
            "  %s device %zu: %s / %s, %s, %u units at %u MHz, %.1f GiB, %s memory, driver %s%s\n",
            in_use(st, i) ? "*" : " ", i, d->platform_name, d->name, type_name(d->type), d->units,
            d->clock_mhz, (double)d->global_mem / (1 << 30), d->unified ? "unified" : "discrete",
            d->driver, d->usable ? "" : " (unavailable)");
  }
  fprintf(out, "  device%s in use: %zu", st->nalso > 0 ? "s" : "", st->dev);
  for (size_t i = 0; i < st->nalso; i++)
    fprintf(out, ", %zu", st->also[i]);
  fprintf(out, " (%s)\n", st->dev_why);
  fprintf(out, "  host memory: %s (%s)\n", st->memory == HOP_OCL_ZERO_COPY ? "zero-copy" : "staged",
          st->memory_why);
  int threads = hop_ocl_copy_threads_wanted(st);
  size_t chunk = hop_ocl_chunk_planned(st);
  bool configured = hop_config_int("HOPBLAS_OPENCL_CHUNK", 0, 1L << 30, 0) != 0;
  size_t large = hop_ocl_call_chunk(chunk, configured, 1e300, st->cap);
  char large_note[64] = "";
  if (large != chunk)
    snprintf(large_note, sizeof large_note, " (%.1f MiB with 1 GiB of A and B)",
             (double)large / (1 << 20));
  fprintf(out,
          "  host copies: %d thread%s%s; staged uploads of %.1f MiB%s through %d pinned buffers; "
          "staged s and d calls add beta C on the host (C never goes up)\n",
          threads < 1 ? 1 : threads, threads > 1 ? "s" : "",
          threads > 1 ? "" : " (the calling thread)", (double)chunk / (1 << 20), large_note,
          hop_ocl_ring_depth(st));
  fprintf(out, "  subnormal floats: %s\n",
          !st->flushes ? "kept (CL_FP_DENORM)"
          : hop_ocl_device(st)->flushes
            ? "flushed by the device: calls with subnormal inputs go elsewhere, small results are "
              "recomputed"
            : "treated as flushed (HOPBLAS_OPENCL_FTZ=1)");
}
