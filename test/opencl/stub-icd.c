/* A stub OpenCL driver for `make check`, loaded by the ICD loader through
 * OCL_ICD_VENDORS: one platform, one device, commands executed at enqueue
 * time on the host, and the generic family's three kernels computed in C
 * from their arguments.  It exists so that the engine's host code (the
 * tile pipeline, both memory paths, the error paths) runs under valgrind in
 * seconds (PoCL compiles every kernel with LLVM, which takes minutes under
 * valgrind), and so that OpenCL objects can be counted: with HOPSTUB_REPORT
 * set it prints the objects still alive at exit.  Every kernel access is
 * checked against its buffer's size; a stray one fails the launch.
 *
 *   HOPSTUB_UNIFIED=1   the device reports host-unified memory (zero-copy)
 *   HOPSTUB_REPORT=1    "hopstub: live context=.. queue=.. mem=.. program=.. kernel=.. event=.."
 *
 * Test code, never installed; the engine's OpenCL C kernels are not run here
 * (oclgrind.test and the PoCL tests run those). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stub-icd.h"

static struct _cl_icd_dispatch table;

static const char *const kind_names[K_KINDS] = {"platform", "device", "context", "queue",
                                               "mem",      "program", "kernel", "event"};
static long live[K_KINDS];

static struct _cl_platform_id platform = {{&table, K_PLATFORM, 1}};
static struct _cl_device_id device = {{&table, K_DEVICE, 1}};

static void *make(size_t size, enum kind kind)
{
  struct obj *o = calloc(1, size);
  if (o != NULL) {
    o->dispatch = &table, o->kind = kind, o->refs = 1;
    live[kind]++;
  }
  return o;
}

static cl_int retain(void *p)
{
  if (p == NULL)
    return CL_INVALID_VALUE;
  ((struct obj *)p)->refs++;
  return CL_SUCCESS;
}

static cl_int release(void *p)
{
  struct obj *o = p;
  if (o == NULL || o->refs <= 0)
    return CL_INVALID_VALUE;
  if (--o->refs == 0) {
    live[o->kind]--;
    if (o->kind == K_MEM && ((struct _cl_mem *)p)->owned)
      free(((struct _cl_mem *)p)->ptr);
    free(o);
  }
  return CL_SUCCESS;
}

__attribute__((destructor)) static void report(void)
{
  if (getenv("HOPSTUB_REPORT") == NULL)
    return;
  fprintf(stderr, "hopstub: live");
  for (int k = K_CONTEXT; k < K_KINDS; k++)
    fprintf(stderr, " %s=%ld", kind_names[k], live[k]);
  fprintf(stderr, "\n");
}

/* clGet*Info: copy a value out, the OpenCL way. */
static cl_int info(const void *value, size_t size, size_t avail, void *out, size_t *out_size)
{
  if (out_size != NULL)
    *out_size = size;
  if (out != NULL) {
    if (avail < size)
      return CL_INVALID_VALUE;
    memcpy(out, value, size);
  }
  return CL_SUCCESS;
}

static cl_int set_err(cl_int *err, cl_int v)
{
  if (err != NULL)
    *err = v;
  return v;
}

/* ---- platform, device, context, queue -------------------------------------- */

static cl_int CL_API_CALL get_platform_ids(cl_uint n, cl_platform_id *p, cl_uint *count)
{
  if (p != NULL && n > 0)
    p[0] = &platform;
  if (count != NULL)
    *count = 1;
  return CL_SUCCESS;
}

static cl_int CL_API_CALL platform_info(cl_platform_id p, cl_platform_info what, size_t avail,
                                        void *out, size_t *out_size)
{
  /* The loader takes only platforms that list cl_khr_icd. */
  const char *s = what == CL_PLATFORM_NAME ? "hopblas stub platform"
                  : what == CL_PLATFORM_ICD_SUFFIX_KHR ? "HOPSTUB"
                  : what == CL_PLATFORM_EXTENSIONS ? "cl_khr_icd"
                  : what == CL_PLATFORM_VERSION ? "OpenCL 1.2 hopstub"
                  : what == CL_PLATFORM_PROFILE ? "FULL_PROFILE"
                                                : "hopblas";
  return info(s, strlen(s) + 1, avail, out, out_size);
}

static cl_int CL_API_CALL device_ids(cl_platform_id p, cl_device_type type, cl_uint n,
                                     cl_device_id *d, cl_uint *count)
{
  if (d != NULL && n > 0)
    d[0] = &device;
  if (count != NULL)
    *count = 1;
  return CL_SUCCESS;
}

static cl_int CL_API_CALL device_info(cl_device_id d, cl_device_info what, size_t avail, void *out,
                                      size_t *out_size)
{
  const char *s = NULL;
  cl_ulong u = 0;
  cl_uint i = 0;
  size_t z = 0;
  cl_bool b = CL_FALSE;
  cl_device_type t = CL_DEVICE_TYPE_GPU;
  switch (what) {
  case CL_DEVICE_NAME: s = "hopblas stub device"; break;
  case CL_DEVICE_VENDOR: s = "hopblas"; break;
  case CL_DRIVER_VERSION: s = "1.0"; break;
  case CL_DEVICE_VERSION: s = "OpenCL 1.2 hopstub"; break;
  case CL_DEVICE_OPENCL_C_VERSION: s = "OpenCL C 1.2"; break;
  case CL_DEVICE_EXTENSIONS: s = ""; break;
  case CL_DEVICE_TYPE: return info(&t, sizeof t, avail, out, out_size);
  case CL_DEVICE_AVAILABLE:
  case CL_DEVICE_COMPILER_AVAILABLE: b = CL_TRUE; return info(&b, sizeof b, avail, out, out_size);
  case CL_DEVICE_HOST_UNIFIED_MEMORY:
    b = getenv("HOPSTUB_UNIFIED") != NULL;
    return info(&b, sizeof b, avail, out, out_size);
  case CL_DEVICE_IMAGE_SUPPORT: return info(&b, sizeof b, avail, out, out_size);
  case CL_DEVICE_MAX_COMPUTE_UNITS: i = 1; return info(&i, sizeof i, avail, out, out_size);
  case CL_DEVICE_MAX_CLOCK_FREQUENCY: i = 100; return info(&i, sizeof i, avail, out, out_size);
  case CL_DEVICE_MEM_BASE_ADDR_ALIGN: i = 1024; return info(&i, sizeof i, avail, out, out_size);
  case CL_DEVICE_GLOBAL_MEM_SIZE: u = 256u << 20; return info(&u, sizeof u, avail, out, out_size);
  case CL_DEVICE_MAX_MEM_ALLOC_SIZE: u = 64u << 20; return info(&u, sizeof u, avail, out, out_size);
  case CL_DEVICE_LOCAL_MEM_SIZE: u = 64u << 10; return info(&u, sizeof u, avail, out, out_size);
  case CL_DEVICE_MAX_WORK_GROUP_SIZE: z = 1024; return info(&z, sizeof z, avail, out, out_size);
  case CL_DEVICE_SINGLE_FP_CONFIG: /* its kernels run on the host, subnormals kept */
    u = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST;
    return info(&u, sizeof(cl_device_fp_config), avail, out, out_size);
  default: return CL_INVALID_VALUE;
  }
  return info(s, strlen(s) + 1, avail, out, out_size);
}

static cl_context CL_API_CALL create_context(const cl_context_properties *props, cl_uint n,
                                             const cl_device_id *d, void *notify, void *user,
                                             cl_int *err)
{
  cl_context c = make(sizeof *c, K_CONTEXT);
  set_err(err, c ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  return c;
}

static cl_command_queue CL_API_CALL create_queue(cl_context c, cl_device_id d,
                                                 cl_command_queue_properties p, cl_int *err)
{
  cl_command_queue q = make(sizeof *q, K_QUEUE);
  set_err(err, q ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  return q;
}

/* ---- memory ------------------------------------------------------------------ */

static cl_mem CL_API_CALL create_buffer(cl_context c, cl_mem_flags flags, size_t size, void *host,
                                        cl_int *err)
{
  if (size == 0 || size > (64u << 20) || ((flags & CL_MEM_USE_HOST_PTR) && host == NULL)) {
    set_err(err, CL_INVALID_BUFFER_SIZE);
    return NULL;
  }
  cl_mem m = make(sizeof *m, K_MEM);
  if (m == NULL) {
    set_err(err, CL_OUT_OF_HOST_MEMORY);
    return NULL;
  }
  m->size = size;
  if (flags & CL_MEM_USE_HOST_PTR) {
    m->ptr = host;
  } else {
    m->ptr = malloc(size); /* not zeroed: valgrind sees reads of what nobody wrote */
    m->owned = 1;
    if (flags & CL_MEM_COPY_HOST_PTR)
      memcpy(m->ptr, host, size);
  }
  return set_err(err, CL_SUCCESS), m;
}

/* Every enqueue: the command has run by the time it returns. */
static cl_int done(cl_event *ev)
{
  if (ev != NULL && (*ev = make(sizeof **ev, K_EVENT)) == NULL)
    return CL_OUT_OF_HOST_MEMORY;
  return CL_SUCCESS;
}

static cl_int CL_API_CALL rw_buffer(cl_command_queue q, cl_mem m, cl_bool block, size_t off,
                                    size_t size, const void *p, cl_uint n, const cl_event *w,
                                    cl_event *ev, int write)
{
  if (m == NULL || off + size > m->size || (n > 0) != (w != NULL))
    return CL_INVALID_VALUE;
  if (write)
    memcpy(m->ptr + off, p, size);
  else
    memcpy((void *)p, m->ptr + off, size);
  return done(ev);
}

static cl_int CL_API_CALL read_buffer(cl_command_queue q, cl_mem m, cl_bool b, size_t off,
                                      size_t size, void *p, cl_uint n, const cl_event *w,
                                      cl_event *ev)
{
  return rw_buffer(q, m, b, off, size, p, n, w, ev, 0);
}

static cl_int CL_API_CALL write_buffer(cl_command_queue q, cl_mem m, cl_bool b, size_t off,
                                       size_t size, const void *p, cl_uint n, const cl_event *w,
                                       cl_event *ev)
{
  return rw_buffer(q, m, b, off, size, p, n, w, ev, 1);
}

static void *CL_API_CALL map_buffer(cl_command_queue q, cl_mem m, cl_bool b, cl_map_flags f,
                                    size_t off, size_t size, cl_uint n, const cl_event *w,
                                    cl_event *ev, cl_int *err)
{
  if (m == NULL || off + size > m->size || (n > 0) != (w != NULL)) {
    set_err(err, CL_INVALID_VALUE);
    return NULL;
  }
  set_err(err, done(ev));
  return m->ptr + off;
}

static cl_int CL_API_CALL unmap(cl_command_queue q, cl_mem m, void *p, cl_uint n,
                                const cl_event *w, cl_event *ev)
{
  if (m == NULL || (unsigned char *)p < m->ptr || (unsigned char *)p >= m->ptr + m->size)
    return CL_INVALID_VALUE;
  return done(ev);
}

/* ---- programs and kernels ------------------------------------------------------ */

static cl_program CL_API_CALL program_source(cl_context c, cl_uint n, const char **src,
                                             const size_t *len, cl_int *err)
{
  cl_program p = make(sizeof *p, K_PROGRAM);
  set_err(err, p ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  return p;
}

static const char binary[] = "hopstub binary";

static cl_program CL_API_CALL program_binary(cl_context c, cl_uint n, const cl_device_id *d,
                                             const size_t *len, const unsigned char **bins,
                                             cl_int *status, cl_int *err)
{
  bool ok = n == 1 && len[0] == sizeof binary && memcmp(bins[0], binary, sizeof binary) == 0;
  if (status != NULL)
    status[0] = ok ? CL_SUCCESS : CL_INVALID_BINARY;
  if (!ok)
    return set_err(err, CL_INVALID_BINARY), NULL;
  return program_source(c, 0, NULL, NULL, err);
}

static cl_int CL_API_CALL build(cl_program p, cl_uint n, const cl_device_id *d, const char *opts,
                                void *notify, void *user)
{
  return p != NULL ? CL_SUCCESS : CL_INVALID_PROGRAM;
}

static cl_int CL_API_CALL program_info(cl_program p, cl_program_info what, size_t avail,
                                       void *out, size_t *out_size)
{
  size_t size = sizeof binary;
  if (what == CL_PROGRAM_BINARY_SIZES)
    return info(&size, sizeof size, avail, out, out_size);
  if (what == CL_PROGRAM_BINARIES) {
    if (out != NULL && avail >= sizeof(char *) && ((char **)out)[0] != NULL)
      memcpy(((char **)out)[0], binary, sizeof binary);
    if (out_size != NULL)
      *out_size = sizeof(char *);
    return CL_SUCCESS;
  }
  return CL_INVALID_VALUE;
}

static cl_int CL_API_CALL build_info(cl_program p, cl_device_id d, cl_program_build_info what,
                                     size_t avail, void *out, size_t *out_size)
{
  return info("", 1, avail, out, out_size);
}

static cl_kernel CL_API_CALL create_kernel(cl_program p, const char *name, cl_int *err)
{
  /* The batched kernel is made (the program holds it) but never run here:
   * hopstub_gemm refuses it, and the engine's batches go to the CPU. */
  static const char *const names[4] = {"sgemm_generic_tiled", "hgemm_generic_tiled",
                                       "shgemm_generic_tiled", "sgemm_batched_generic"};
  for (int i = 0; i < 4; i++)
    if (strcmp(name, names[i]) == 0) {
      cl_kernel k = make(sizeof *k, K_KERNEL);
      if (k != NULL)
        k->which = i;
      set_err(err, k ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
      return k;
    }
  return set_err(err, CL_INVALID_KERNEL_NAME), NULL;
}

static cl_int CL_API_CALL set_arg(cl_kernel k, cl_uint i, size_t size, const void *value)
{
  if (k == NULL || i >= 24 || size > 8 || value == NULL)
    return CL_INVALID_ARG_INDEX;
  memcpy(k->args[i], value, size);
  k->arg_size[i] = size;
  return CL_SUCCESS;
}

static cl_int CL_API_CALL kernel_wg_info(cl_kernel k, cl_device_id d,
                                         cl_kernel_work_group_info what, size_t avail, void *out,
                                         size_t *out_size)
{
  size_t wg = 1024;
  cl_ulong zero = 0;
  if (what == CL_KERNEL_WORK_GROUP_SIZE)
    return info(&wg, sizeof wg, avail, out, out_size);
  return info(&zero, sizeof zero, avail, out, out_size);
}

static cl_int CL_API_CALL ndrange(cl_command_queue q, cl_kernel k, cl_uint dims,
                                  const size_t *offset, const size_t *global, const size_t *local,
                                  cl_uint n, const cl_event *w, cl_event *ev)
{
  if (k == NULL || (n > 0) != (w != NULL))
    return CL_INVALID_VALUE;
  cl_int err = hopstub_gemm(k);
  return err != CL_SUCCESS ? err : done(ev);
}

/* ---- events and queues ----------------------------------------------------------- */

static cl_int CL_API_CALL wait_events(cl_uint n, const cl_event *ev)
{
  for (cl_uint i = 0; i < n; i++)
    if (ev[i] == NULL || ev[i]->o.refs <= 0)
      return CL_INVALID_EVENT;
  return n > 0 ? CL_SUCCESS : CL_INVALID_VALUE;
}

static cl_int CL_API_CALL event_info(cl_event e, cl_event_info what, size_t avail, void *out,
                                     size_t *out_size)
{
  cl_int status = CL_COMPLETE;
  if (e == NULL || e->o.refs <= 0)
    return CL_INVALID_EVENT;
  return info(&status, sizeof status, avail, out, out_size);
}

static cl_int CL_API_CALL queue_sync(cl_command_queue q)
{
  return q != NULL ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

static cl_int CL_API_CALL unsupported(void) { return CL_INVALID_OPERATION; }

static void *CL_API_CALL extension_for_platform(cl_platform_id p, const char *name)
{
  return NULL;
}

/* ---- the loader's entry points ------------------------------------------------------ */

static void fill_table(void)
{
  void (**slot)(void) = (void (**)(void))&table;
  for (size_t i = 0; i < sizeof table / sizeof *slot; i++)
    slot[i] = (void (*)(void))unsupported;
#define SET(name, fn) table.name = (void *)(fn)
  SET(clGetPlatformIDs, get_platform_ids);
  SET(clGetPlatformInfo, platform_info);
  SET(clGetDeviceIDs, device_ids);
  SET(clGetDeviceInfo, device_info);
  SET(clCreateContext, create_context);
  SET(clRetainContext, retain);
  SET(clReleaseContext, release);
  SET(clCreateCommandQueue, create_queue);
  SET(clRetainCommandQueue, retain);
  SET(clReleaseCommandQueue, release);
  SET(clCreateBuffer, create_buffer);
  SET(clRetainMemObject, retain);
  SET(clReleaseMemObject, release);
  SET(clCreateProgramWithSource, program_source);
  SET(clCreateProgramWithBinary, program_binary);
  SET(clRetainProgram, retain);
  SET(clReleaseProgram, release);
  SET(clBuildProgram, build);
  SET(clGetProgramInfo, program_info);
  SET(clGetProgramBuildInfo, build_info);
  SET(clCreateKernel, create_kernel);
  SET(clRetainKernel, retain);
  SET(clReleaseKernel, release);
  SET(clSetKernelArg, set_arg);
  SET(clGetKernelWorkGroupInfo, kernel_wg_info);
  SET(clWaitForEvents, wait_events);
  SET(clGetEventInfo, event_info);
  SET(clRetainEvent, retain);
  SET(clReleaseEvent, release);
  SET(clFlush, queue_sync);
  SET(clFinish, queue_sync);
  SET(clEnqueueReadBuffer, read_buffer);
  SET(clEnqueueWriteBuffer, write_buffer);
  SET(clEnqueueMapBuffer, map_buffer);
  SET(clEnqueueUnmapMemObject, unmap);
  SET(clEnqueueNDRangeKernel, ndrange);
  SET(clGetExtensionFunctionAddressForPlatform, extension_for_platform);
#undef SET
}

__attribute__((visibility("default"))) cl_int CL_API_CALL
clIcdGetPlatformIDsKHR(cl_uint n, cl_platform_id *p, cl_uint *count)
{
  if (table.clGetPlatformIDs == NULL)
    fill_table();
  return get_platform_ids(n, p, count);
}

__attribute__((visibility("default"))) void *CL_API_CALL
clGetExtensionFunctionAddress(const char *name)
{
  if (strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
    return (void *)clIcdGetPlatformIDsKHR;
  return NULL;
}

/* The loader also looks this one up by name in the library. */
__attribute__((visibility("default"))) cl_int CL_API_CALL
clGetPlatformInfo(cl_platform_id p, cl_platform_info what, size_t avail, void *out,
                  size_t *out_size)
{
  return platform_info(p, what, avail, out, out_size);
}
