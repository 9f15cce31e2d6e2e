/* Host memory <-> device buffers.  The pool keeps its buffers across calls
 * (a new pinned buffer per call would cost more than small GEMMs);
 * zero-copy wraps the caller's memory where its alignment allows; blocks
 * are packed densely otherwise.  C is only ever written here, by the host,
 * from a tile that the device has completely finished. */
#include <string.h>

#include "ocl.h"

enum hop_status hop_ocl_status(cl_int err)
{
  switch (err) {
  case CL_MEM_OBJECT_ALLOCATION_FAILURE:
  case CL_INVALID_BUFFER_SIZE:
    return HOP_ERR_DEVMEM;
  case CL_OUT_OF_HOST_MEMORY:
    return HOP_ERR_NOMEM;
  default:
    return HOP_ERR_DEVICE;
  }
}

static void slot_release(struct hop_ocl_state *st, struct hop_ocl_slot *s)
{
  if (s->mem == NULL)
    return;
  if (s->host != NULL) {
    clEnqueueUnmapMemObject(st->q[HOP_OCL_Q_UP], s->mem, s->host, 0, NULL, NULL);
    clFinish(st->q[HOP_OCL_Q_UP]);
  }
  clReleaseMemObject(s->mem);
  s->mem = NULL;
  s->host = NULL;
  s->size = 0;
}

void hop_ocl_pool_release(struct hop_ocl_state *st)
{
  for (int x = 0; x < 3; x++)
    for (int i = 0; i < 2; i++) {
      slot_release(st, &st->pool.dev[x][i]);
      slot_release(st, &st->pool.stage[x][i]);
    }
}

cl_int hop_ocl_slot_ensure(struct hop_ocl_state *st, struct hop_ocl_slot *s, size_t size,
                           cl_mem_flags flags, bool mapped)
{
  if (s->mem != NULL && s->size >= size)
    return CL_SUCCESS;
  slot_release(st, s);
  /* Grow by a quarter beyond the need, so slowly growing calls do not reallocate each time. */
  size_t want = size + size / 4;
  if (want > st->cap)
    want = size;
  cl_int err;
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_ALLOC))
    return CL_MEM_OBJECT_ALLOCATION_FAILURE;
  s->mem = clCreateBuffer(st->ctx, flags, want, NULL, &err);
  if (err != CL_SUCCESS) {
    s->mem = NULL;
    return err;
  }
  s->size = want;
  if (mapped) {
    /* A staging buffer stays mapped for its life: its host image is pinned memory. */
    s->host = clEnqueueMapBuffer(st->q[HOP_OCL_Q_UP], s->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                 0, want, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
      s->host = NULL;
      slot_release(st, s);
      return err;
    }
  }
  return CL_SUCCESS;
}

/* A read-only buffer over the caller's memory [first, first + bytes).  The
 * buffer starts at the device's base alignment below `first` (still on the
 * same page, so the bytes before `first` are mapped and never read); *off
 * is the element offset of `first` in it.  NULL with err == CL_SUCCESS
 * when the pointer is not element-aligned against that base, or the region
 * (leading dimension included) is larger than a buffer may be: pack instead. */
cl_mem hop_ocl_wrap(struct hop_ocl_state *st, const void *first, size_t bytes, size_t esize,
                    cl_ulong *off, cl_int *err)
{
  uintptr_t align = hop_ocl_device(st)->base_align;
  uintptr_t p = (uintptr_t)first, base = p / align * align;
  *err = CL_SUCCESS;
  if ((p - base) % esize != 0 || (p - base) + bytes > st->cap)
    return NULL;
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_ALLOC)) {
    *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return NULL;
  }
  cl_mem m = clCreateBuffer(st->ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, (p - base) + bytes,
                            (void *)base, err);
  if (*err != CL_SUCCESS)
    return NULL;
  *off = (p - base) / esize;
  return m;
}

/* Copy the rows x cols block at (row0, col0) of a column-major matrix into
 * dst, densely (ld = rows). */
void hop_ocl_pack(const void *x, int ld, size_t esize, int row0, int col0, int rows, int cols,
                  void *dst)
{
  const unsigned char *src = x;
  unsigned char *out = dst;
  size_t run = (size_t)rows * esize;
  for (int j = 0; j < cols; j++)
    memcpy(out + (size_t)j * run, src + hop_at(row0, col0 + j, ld) * esize, run);
}

/* Write a finished rows x cols tile (dense, ld = rows) into C at (i0, j0).
 * `accumulated`: the tile holds alpha op(A) op(B) in float (k was cut) and
 * beta * C is added here; else it holds the final values in C's type. */
void hop_ocl_unpack_c(const struct hop_gemm *g, bool accumulated, const void *src, int i0, int j0,
                      int rows, int cols)
{
  if (!accumulated) {
    size_t e = hop_dtype_c_size(g->dtype), run = (size_t)rows * e;
    for (int j = 0; j < cols; j++)
      memcpy((unsigned char *)g->c + hop_at(i0, j0 + j, g->ldc) * e,
             (const unsigned char *)src + (size_t)j * run, run);
    return;
  }
  const float *acc = src;
  for (int j = 0; j < cols; j++) {
    const float *a = acc + (size_t)j * rows;
    size_t at = hop_at(i0, j0 + j, g->ldc);
    if (g->dtype == HOP_DTYPE_H) {
      uint16_t *c = (uint16_t *)g->c + at;
      for (int i = 0; i < rows; i++)
        c[i] = hop_float_to_half(g->beta == 0.0f ? a[i] : a[i] + g->beta * hop_half_to_float(c[i]));
    } else {
      float *c = (float *)g->c + at;
      for (int i = 0; i < rows; i++)
        c[i] = g->beta == 0.0f ? a[i] : a[i] + g->beta * c[i];
    }
  }
}
