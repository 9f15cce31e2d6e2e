/* The stub OpenCL driver's objects (stub-icd.c), shared with its kernel
 * executor (stub-icd-gemm.c).  Test code. */
#ifndef HOPSTUB_H
#define HOPSTUB_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl_icd.h>

enum kind {
  K_PLATFORM, K_DEVICE, K_CONTEXT, K_QUEUE, K_MEM, K_PROGRAM, K_KERNEL, K_EVENT, K_KINDS
};

/* Every object: the loader's dispatch pointer first, then ours. */
struct obj {
  struct _cl_icd_dispatch *dispatch;
  enum kind kind;
  int refs;
};
struct _cl_platform_id { struct obj o; };
struct _cl_device_id { struct obj o; };
struct _cl_context { struct obj o; };
struct _cl_command_queue { struct obj o; };
struct _cl_mem { struct obj o; unsigned char *ptr; size_t size; int owned; };
struct _cl_program { struct obj o; };
struct _cl_event { struct obj o; };
struct _cl_kernel {
  struct obj o;
  int which; /* 0 sgemm, 1 hgemm, 2 shgemm, 3 batched sgemm (not run) */
  unsigned char args[24][8];
  size_t arg_size[24];
};

/* Run a generic-family kernel with its arguments; CL_SUCCESS or why not. */
cl_int hopstub_gemm(const struct _cl_kernel *k);

#endif
