/* HOPBLAS_OPENCL_FAULT: a test knob that makes the N-th program build (the
 * GEMM program's, then the auxiliary ones': trsm's slab solver, the plane
 * spreading kernel), buffer creation, kernel enqueue (a plane's spread
 * too), read-back, (staged) upload or chunk of a split's shared A
 * (split_share.c) fail as a driver would, so the tests can prove that
 * every result stays correct and C is never left half-written.  "build",
 * "alloc:3", "read:2,enqueue:5", "upload:4"; N defaults to 1.
 * "@D" after an item limits it to OpenCL device D ("enqueue:2@1"): with
 * several devices sharing calls (split.c) each device counts its own.
 * Unset (the normal case) it costs one comparison per operation. */
#include <stdlib.h>
#include <string.h>

#include "ocl.h"

static const char *const op_names[HOP_OCL_FAULT_OPS] = {
  [HOP_OCL_FAULT_BUILD] = "build",
  [HOP_OCL_FAULT_ALLOC] = "alloc",
  [HOP_OCL_FAULT_ENQUEUE] = "enqueue",
  [HOP_OCL_FAULT_READ] = "read",
  [HOP_OCL_FAULT_UPLOAD] = "upload",
  [HOP_OCL_FAULT_SHARE] = "share",
};

/* Parse one "op[:N][@D]" item; false when it is not understood. */
static bool parse_item(struct hop_ocl_fault *f, const char *item, size_t len, size_t dev)
{
  const char *at_dev = memchr(item, '@', len);
  if (at_dev != NULL) {
    char num[24];
    size_t n = len - (size_t)(at_dev - item) - 1;
    if (n == 0 || n >= sizeof num)
      return false;
    memcpy(num, at_dev + 1, n);
    num[n] = '\0';
    char *end;
    unsigned long d = strtoul(num, &end, 10);
    if (*end != '\0')
      return false;
    len = (size_t)(at_dev - item);
    if (d != dev) {
      struct hop_ocl_fault scratch; /* checked, then left to its device */
      return parse_item(&scratch, item, len, dev);
    }
  }
  const char *colon = memchr(item, ':', len);
  size_t name_len = colon ? (size_t)(colon - item) : len;
  long at = 1;
  if (colon != NULL) {
    char num[24];
    size_t n = len - name_len - 1;
    if (n == 0 || n >= sizeof num)
      return false;
    memcpy(num, colon + 1, n);
    num[n] = '\0';
    char *end;
    at = strtol(num, &end, 10);
    if (*end != '\0' || at < 1)
      return false;
  }
  for (int op = 0; op < HOP_OCL_FAULT_OPS; op++)
    if (strlen(op_names[op]) == name_len && strncmp(op_names[op], item, name_len) == 0) {
      f->at[op] = at;
      return true;
    }
  return false;
}

void hop_ocl_fault_parse(struct hop_ocl_fault *f, const char *spec, size_t dev)
{
  memset(f, 0, sizeof *f);
  if (spec == NULL)
    return;
  while (*spec != '\0') {
    size_t len = strcspn(spec, ",");
    if (len > 0 && !parse_item(f, spec, len, dev))
      hop_log(1, "HOPBLAS_OPENCL_FAULT: '%.*s' is not build|alloc|enqueue|read|upload|share[:N][@D]; ignored",
              (int)len, spec);
    spec += len;
    if (*spec == ',')
      spec++;
  }
}

bool hop_ocl_fault_hit(struct hop_ocl_fault *f, enum hop_ocl_fault_op op)
{
  if (f->at[op] == 0)
    return false;
  if (++f->seen[op] != f->at[op])
    return false;
  hop_log(3, "opencl: injected %s failure (HOPBLAS_OPENCL_FAULT)", op_names[op]);
  return true;
}
