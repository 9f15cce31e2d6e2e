/* A complex call's doubled plane formed on the device.  The real embedding
 * of a complex GEMM (core/complex_planes.c) doubles one operand: B' =
 * [Br Bi; -Bi Br] holds each element of B twice.  Packed on the host, that
 * operand costs twice the bytes of the caller's matrix in the host's copies
 * and on the link: for zgemm 8192 from host memory, 2 GiB of its 3 GiB of
 * operands.  Here each block of it goes up as the caller's complex elements
 * (a column-by-column copy, half the bytes) into a compact buffer of its
 * slot, and kernels/plane_spread.cl writes the plane's block from them.
 *
 * The spread runs on the kernels' queue, queued just before the first
 * kernel that reads the block (run.c), not when its upload is queued: the
 * GEMM kernels fill every compute unit, so a spread queued on the upload
 * queue waited for a whole wave of them, and the uploads behind it too;
 * queued early on the kernels' queue it would hold back the kernels of
 * tiles that do not read the block until its upload is done.
 *
 * Only for plain views (scale 1: alpha went to the real call, or the
 * operand is B), whole 2 x 2 elements (every edge of the block even), on
 * devices that keep subnormal floats, and while HOPBLAS_OPENCL_SPREAD is 1;
 * elsewhere, and where the kernel does not build (one log line), the host
 * packs the plane as before. */

#include "run.h"

/* Quadrant (q, r)'s part and sign, two bits at 2 (2q + r) (kernels/plane_spread.cl). */
static int spread_code(const struct hop_plane_view *v)
{
  int code = 0;
  for (int q = 0; q < 2; q++)
    for (int r = 0; r < 2; r++)
      code |= (v->part[q][r] | (hop_plane_view_sign(v, q, r) < 0 ? 2 : 0)) << (2 * (2 * q + r));
  return code;
}

/* The kernel of this precision, built on first use; NULL when it cannot be. */
static cl_kernel spread_kernel(struct hop_ocl_state *st, bool dbl)
{
  struct hop_ocl_spread *k = &st->spread;
  int d = dbl;
  if (k->kernel[d] != NULL || k->failed[d])
    return k->kernel[d];
  static const char *const files[] = {"plane_spread.cl", NULL};
  char why[160] = "";
  cl_program prog = hop_ocl_program_aux(st, "plane_spread", files, dbl ? "-DHOP_FP64" : "", why,
                                        sizeof why);
  cl_int err = CL_BUILD_PROGRAM_FAILURE;
  cl_kernel kn = prog != NULL ? clCreateKernel(prog, "plane_spread", &err) : NULL;
  if (kn == NULL) {
    hop_log(1, "opencl: the plane spreading kernel did not build (%s); %cgemm's planes are "
            "packed on the host", why[0] ? why : "no kernel", dbl ? 'z' : 'c');
    if (prog != NULL)
      clReleaseProgram(prog);
    k->failed[d] = true;
    return NULL;
  }
  k->prog[d] = prog, k->kernel[d] = kn;
  return kn;
}

void hop_ocl_spread_release(struct hop_ocl_state *st)
{
  struct hop_ocl_spread *k = &st->spread;
  for (int d = 0; d < 2; d++) {
    if (k->kernel[d] != NULL)
      clReleaseKernel(k->kernel[d]);
    if (k->prog[d] != NULL)
      clReleaseProgram(k->prog[d]);
    k->kernel[d] = NULL, k->prog[d] = NULL, k->failed[d] = false;
  }
}

static bool even(int x) { return (x & 1) == 0; }

bool hop_ocl_spread_wanted(struct hop_ocl_call *c, const struct hop_plane_view *v)
{
  if (v == NULL || v->grid_r != 2 || v->grid_c != 2 || v->scale.re != 1.0 || v->scale.im != 0.0 ||
      c->st->flushes || hop_config_int("HOPBLAS_OPENCL_SPREAD", 0, 1, 1) == 0)
    return false;
  return spread_kernel(c->st, v->dbl) != NULL;
}

bool hop_ocl_spread_fits(struct hop_ocl_call *c, const struct hop_plane_view *v, int r0, int c0,
                         int rows, int cols, int dr0, int dc0, int ld)
{
  return even(r0) && even(c0) && even(rows) && even(cols) && even(dr0) && even(dc0) && even(ld) &&
         hop_ocl_spread_wanted(c, v);
}

bool hop_ocl_spread_up(struct hop_ocl_call *c, struct hop_ocl_op_slot *o,
                       const struct hop_ocl_src *s, const struct hop_plane_view *v, int r0, int c0,
                       int rows, int cols, cl_mem dst, int dr0, int dc0, int ld, cl_event *ev)
{
  struct hop_ocl_state *st = c->st;
  struct hop_ocl_slot *compact = &st->pool.compact[s->x][s->slot];
  cl_int err = hop_ocl_slot_ensure(st, compact, s->full / 2, CL_MEM_READ_WRITE, false);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "allocating an operand buffer");
  size_t ce = v->dbl ? 16 : 8; /* a complex element */
  bool dense = dr0 == 0 && dc0 == 0 && rows == ld; /* whole columns from the start: plain writes */
  err = hop_ocl_stage_upload_into(st, &c->sg, v->src, NULL, (int)v->ld, ce, r0 / 2, c0 / 2,
                                  rows / 2, cols / 2, compact->mem, dense ? 0 : ld / 2, dr0 / 2,
                                  dc0 / 2, o->last_use, ev);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "uploading an operand");
  struct hop_ocl_spread_job *job = &o->spread;
  clRetainEvent(*ev);
  hop_ocl_ev_put(&job->up, *ev);
  job->src = compact->mem, job->dst = dst, job->rows = rows / 2, job->cols = cols / 2;
  job->ld_src = ld / 2, job->ld_dst = ld, job->code = spread_code(v), job->dbl = v->dbl;
  job->src_off = (cl_ulong)(dr0 / 2) + (cl_ulong)(dc0 / 2) * (cl_ulong)(ld / 2);
  job->dst_off = (cl_ulong)dr0 + (cl_ulong)dc0 * (cl_ulong)ld;
  return true;
}

enum { SPREAD_GROUP = 64 };

bool hop_ocl_spread_run(struct hop_ocl_call *c, struct hop_ocl_op_slot *o, cl_event *ev)
{
  struct hop_ocl_spread_job *job = &o->spread;
  *ev = NULL;
  if (job->up == NULL)
    return true;
  struct hop_ocl_state *st = c->st;
  cl_kernel kn = st->spread.kernel[job->dbl];
  cl_int rows = job->rows, cols = job->cols, lds = job->ld_src, ldd = job->ld_dst,
         code = job->code;
  const struct { size_t size; const void *value; } args[] = {
    {sizeof rows, &rows}, {sizeof cols, &cols}, {sizeof job->src, &job->src},
    {sizeof job->src_off, &job->src_off}, {sizeof lds, &lds}, {sizeof job->dst, &job->dst},
    {sizeof job->dst_off, &job->dst_off}, {sizeof ldd, &ldd}, {sizeof code, &code},
  };
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < sizeof args / sizeof args[0] && err == CL_SUCCESS; i++)
    err = clSetKernelArg(kn, i, args[i].size, args[i].value);
  size_t local[2] = {SPREAD_GROUP, 1};
  size_t global[2] = {((size_t)rows + SPREAD_GROUP - 1) / SPREAD_GROUP * SPREAD_GROUP,
                      (size_t)cols};
  if (err == CL_SUCCESS && hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_ENQUEUE))
    err = CL_OUT_OF_RESOURCES;
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(st->q[HOP_OCL_Q_EXEC], kn, 2, NULL, global, local, 1, &job->up,
                                 ev);
  hop_ocl_ev_put(&job->up, NULL);
  if (err != CL_SUCCESS)
    return hop_ocl_call_fail(c, err, "spreading a complex operand's plane");
  c->sg.spreads++;
  hop_ocl_timeline_add(c->sg.tl, *ev, HOP_OCL_TL_SPREAD);
  return true;
}

bool hop_ocl_spread_settle(struct hop_ocl_call *c, struct hop_ocl_op_slot *o)
{
  cl_event ev = NULL;
  if (!hop_ocl_spread_run(c, o, &ev))
    return false;
  if (ev != NULL) /* it reads the compact buffer and writes the slot: uploads wait for it */
    hop_ocl_ev_put(&o->last_use, ev);
  return true;
}

void hop_ocl_spread_drop(struct hop_ocl_op_slot *o) { hop_ocl_ev_put(&o->spread.up, NULL); }
