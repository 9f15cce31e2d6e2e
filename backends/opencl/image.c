/* What the adreno and mali families share on the host: their settings
 * (HOPBLAS_OPENCL_TILE, _LWS, _FP16, _IMAGE_MAX), operands packed into
 * images or k-major buffers, the plan limits that keep every image within
 * CL_DEVICE_IMAGE2D_MAX_WIDTH/HEIGHT (larger operands are cut into blocks,
 * each its own image), and the launch.
 *
 * Host memory as in Qualcomm's host code (seed 002): on unified memory an
 * image is CL_MEM_ALLOC_HOST_PTR, mapped, packed in place and unmapped, so
 * the packing is the only copy; on a discrete device the block is packed
 * into a pinned staging buffer and written to a device image. */
#include <stdlib.h>
#include <string.h>

#include "image.h"

static int round_up(int x, int to) { return (x + to - 1) / to * to; }

bool hop_ocl_has_extension(const struct hop_ocl_device *d, const char *name)
{
  size_t need = 0;
  char *all = NULL;
  bool found = false;
  if (clGetDeviceInfo(d->id, CL_DEVICE_EXTENSIONS, 0, NULL, &need) != CL_SUCCESS || need == 0 ||
      (all = malloc(need + 2)) == NULL)
    return false;
  all[0] = ' ';
  if (clGetDeviceInfo(d->id, CL_DEVICE_EXTENSIONS, need, all + 1, NULL) == CL_SUCCESS) {
    all[need] = ' ';
    all[need + 1] = '\0';
    char word[80];
    snprintf(word, sizeof word, " %s ", name);
    found = strstr(all, word) != NULL;
  }
  free(all);
  return found;
}

/* "RxC" with R, C among the allowed values; false when not understood. */
static bool parse_pair(const char *s, int *a, int *b, int lo, int hi, bool pow2)
{
  char *end;
  long x = strtol(s, &end, 10);
  if (end == s || (*end != 'x' && *end != 'X'))
    return false;
  const char *t = end + 1;
  long y = strtol(t, &end, 10);
  if (end == t || *end != '\0' || x < lo || x > hi || y < lo || y > hi)
    return false;
  if (pow2 && ((x & (x - 1)) != 0 || (y & (y - 1)) != 0))
    return false;
  if (!pow2 && ((x != 4 && x != 8) || (y != 4 && y != 8)))
    return false;
  *a = (int)x, *b = (int)y;
  return true;
}

static bool format_supported(cl_context ctx, cl_channel_type type)
{
  cl_uint n = 0;
  cl_image_format fmts[256];
  if (clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 256, fmts, &n) !=
      CL_SUCCESS)
    return false;
  for (cl_uint i = 0; i < n && i < 256; i++)
    if (fmts[i].image_channel_order == CL_RGBA && fmts[i].image_channel_data_type == type)
      return true;
  return false;
}

static void choose_fp16(const struct hop_ocl_state *st, struct hop_ocl_imgcfg *c)
{
  const char *v = hop_config_get("HOPBLAS_OPENCL_FP16");
  c->fp16 = HOP_OCL_FP16_OFF;
  if (v != NULL && strcmp(v, "products") == 0)
    c->fp16 = HOP_OCL_FP16_PRODUCTS;
  else if (v != NULL && strcmp(v, "accumulate") == 0)
    c->fp16 = HOP_OCL_FP16_ACCUMULATE;
  else if (v != NULL && *v != '\0' && strcmp(v, "off") != 0)
    hop_log(1, "HOPBLAS_OPENCL_FP16=%.40s is not off|products|accumulate; using off", v);
  c->emulate = hop_config_int("HOPBLAS_OPENCL_FP16_EMULATE", 0, 1, 0) == 1;
  bool khr = hop_ocl_has_extension(hop_ocl_device(st), "cl_khr_fp16");
  const char *mode = c->fp16 == HOP_OCL_FP16_PRODUCTS ? "products" : "accumulate";
  if (c->fp16 == HOP_OCL_FP16_OFF) {
    snprintf(c->fp16_why, sizeof c->fp16_why,
             "half storage, float math (CL_HALF_FLOAT read with read_imagef; cl_khr_fp16 %s)",
             khr ? "reported" : "not needed");
  } else if (khr || c->emulate) {
    c->half_math = true;
    c->emulate = !khr;
    snprintf(c->fp16_why, sizeof c->fp16_why, "half arithmetic: %s in half (HOPBLAS_OPENCL_FP16=%s%s)",
             c->fp16 == HOP_OCL_FP16_PRODUCTS ? "each k step's products" : "everything", mode,
             khr ? "" : ", emulated in float: no cl_khr_fp16");
  } else {
    snprintf(c->fp16_why, sizeof c->fp16_why,
             "half storage, float math (HOPBLAS_OPENCL_FP16=%s, but no cl_khr_fp16)", mode);
  }
}

/* The largest image: the device's, or HOPBLAS_OPENCL_IMAGE_MAX (tests) below it. */
static void choose_limits(const struct hop_ocl_state *st, struct hop_ocl_imgcfg *c)
{
  size_t w = 0, h = 0;
  clGetDeviceInfo(hop_ocl_device(st)->id, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof w, &w, NULL);
  clGetDeviceInfo(hop_ocl_device(st)->id, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof h, &h, NULL);
  long knob = hop_config_int("HOPBLAS_OPENCL_IMAGE_MAX", 0, 1L << 20, 0);
  c->max_w = w, c->max_h = h;
  snprintf(c->limit_why, sizeof c->limit_why, "the device's limit");
  if (knob > 0 && ((size_t)knob < w || (size_t)knob < h)) {
    c->max_w = (size_t)knob < w ? (size_t)knob : w;
    c->max_h = (size_t)knob < h ? (size_t)knob : h;
    snprintf(c->limit_why, sizeof c->limit_why, "HOPBLAS_OPENCL_IMAGE_MAX=%ld", knob);
  }
}

bool hop_ocl_image_setup(struct hop_ocl_state *st,
                         void (*defaults)(struct hop_ocl_state *st, struct hop_ocl_imgcfg *c),
                         char *why, size_t len)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(d->id, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
  if (!images) {
    snprintf(why, len, "the device has no image support");
    return false;
  }
  if (!format_supported(st->ctx, CL_FLOAT) || !format_supported(st->ctx, CL_HALF_FLOAT)) {
    snprintf(why, len, "CL_RGBA images of CL_FLOAT and CL_HALF_FLOAT are not both supported");
    return false;
  }
  struct hop_ocl_img *im = calloc(1, sizeof *im);
  if (im == NULL) {
    snprintf(why, len, "out of memory");
    return false;
  }
  st->fam = im;
  struct hop_ocl_imgcfg *c = &im->cfg;
  defaults(st, c);
  const char *tile = hop_config_get("HOPBLAS_OPENCL_TILE");
  if (tile != NULL && *tile != '\0') {
    if (parse_pair(tile, &c->tm, &c->tn, 4, 8, false))
      snprintf(c->tile_why, sizeof c->tile_why, "HOPBLAS_OPENCL_TILE=%s", tile);
    else
      hop_log(1, "HOPBLAS_OPENCL_TILE=%.40s is not 4x4, 4x8, 8x4 or 8x8; using %dx%d", tile,
              c->tm, c->tn);
  }
  const char *lws = hop_config_get("HOPBLAS_OPENCL_LWS");
  if (lws != NULL && *lws != '\0' && !parse_pair(lws, &c->lx, &c->ly, 1, 256, true))
    hop_log(1, "HOPBLAS_OPENCL_LWS=%.40s is not XxY (powers of 2 up to 256); using %dx%d", lws,
            c->lx, c->ly);
  choose_fp16(st, c);
  choose_limits(st, c);
  if (c->max_w < 2 || c->max_h < (size_t)c->ku) {
    snprintf(why, len, "images of %zu x %zu texels are too small", c->max_w, c->max_h);
    return false;
  }
  return true;
}

void hop_ocl_image_options(const struct hop_ocl_state *st, const struct hop_ocl_params *p,
                           char *buf, size_t len)
{
  (void)p;
  const struct hop_ocl_imgcfg *c = &hop_ocl_img_of(st)->cfg;
  /* Never -cl-fast-relaxed-math: NaN and Inf must propagate as in the reference. */
  snprintf(buf, len, "-cl-std=CL1.2 -DTM=%d -DTN=%d -DIMAGE_A=%d -DIMAGE_B=%d -DHALF_MATH=%d "
                     "-DEMULATE_FP16=%d",
           c->tm, c->tn, c->image[0], c->image[1],
           !c->half_math ? 0 : c->fp16 == HOP_OCL_FP16_ACCUMULATE ? 2 : 1,
           c->half_math && c->emulate);
}

/* The work-group is chosen per launch (it shrinks to what a kernel runs). */
size_t hop_ocl_image_group_items(const struct hop_ocl_program *pr)
{
  (void)pr;
  return 1;
}

int hop_ocl_image_col_grain(const struct hop_ocl_state *st)
{
  const struct hop_ocl_imgcfg *c = &hop_ocl_img_of(st)->cfg;
  return c->tn * c->ly;
}

/* ---- operands ------------------------------------------------------------ */

static cl_int image_ensure(struct hop_ocl_state *st, struct hop_ocl_image *im, size_t w, size_t h,
                           cl_channel_type type, cl_mem_flags flags)
{
  if (im->mem != NULL && im->w >= w && im->h >= h && im->type == type)
    return CL_SUCCESS;
  if (im->mem != NULL && im->type == type) { /* grow: keep what the larger blocks needed */
    w = im->w > w ? im->w : w;
    h = im->h > h ? im->h : h;
  }
  if (im->mem != NULL)
    clReleaseMemObject(im->mem);
  *im = (struct hop_ocl_image){0};
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_ALLOC))
    return CL_MEM_OBJECT_ALLOCATION_FAILURE;
  cl_image_format fmt = {CL_RGBA, type};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = w,
                        .image_height = h};
  cl_int err;
  im->mem = clCreateImage(st->ctx, flags, &fmt, &desc, NULL, &err);
  if (err != CL_SUCCESS) {
    im->mem = NULL;
    return err;
  }
  im->w = w, im->h = h, im->type = type;
  return CL_SUCCESS;
}

static void flush_queues(struct hop_ocl_state *st)
{
  for (int q = 0; q < HOP_OCL_QUEUES; q++)
    clFlush(st->q[q]);
}

/* The staging buffer's previous upload must have left it before it is rewritten. */
static cl_int stage_for(struct hop_ocl_state *st, const struct hop_ocl_block *b, size_t bytes,
                        void **host)
{
  struct hop_ocl_slot *stage = &st->pool.stage[b->x][b->slot];
  cl_int err =
    hop_ocl_slot_ensure(st, stage, bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, true);
  if (err == CL_SUCCESS && b->uploaded != NULL) {
    flush_queues(st);
    err = clWaitForEvents(1, &b->uploaded);
  }
  *host = stage->host;
  return err;
}

cl_int hop_ocl_image_provide(struct hop_ocl_state *st, const struct hop_call *g,
                             const struct hop_ocl_block *b, cl_mem *mem, int *ld,
                             cl_event *ready)
{
  const struct hop_ocl_imgcfg *c = &hop_ocl_img_of(st)->cfg;
  size_t es = hop_dtype_ab_size(g->dtype);
  int vec = b->x == 0 ? b->rows : b->cols, kext = b->x == 0 ? b->cols : b->rows;
  int tile = b->x == 0 ? c->tm : c->tn;
  size_t width = (size_t)round_up(vec, tile) / 4, height = (size_t)round_up(kext, c->ku);
  size_t pitch = width * 4 * es, bytes = pitch * height;
  size_t origin[3] = {0, 0, 0}, region[3] = {width, height, 1};
  cl_uint nw = b->last_use != NULL;
  const cl_event *wl = nw ? &b->last_use : NULL;
  cl_command_queue up = st->q[HOP_OCL_Q_UP];
  cl_mem_flags flags = CL_MEM_READ_ONLY | (b->staged ? 0 : CL_MEM_ALLOC_HOST_PTR);
  bool image = c->image[b->x];
  cl_int err;
  /* The device object: an image, or a k-major buffer (the mali family's buffer operand). */
  if (image) {
    struct hop_ocl_image *im = &hop_ocl_img_of(st)->img[b->x][b->slot];
    err = image_ensure(st, im, width, height, es == 2 ? CL_HALF_FLOAT : CL_FLOAT, flags);
    *mem = im->mem;
  } else {
    err = hop_ocl_slot_ensure(st, &st->pool.dev[b->x][b->slot], bytes, flags, false);
    *mem = st->pool.dev[b->x][b->slot].mem;
  }
  if (err != CL_SUCCESS)
    return err;
  /* Where the packing goes: the pinned staging buffer, or the object itself, mapped. */
  void *host = NULL;
  size_t row_pitch = pitch;
  if (b->staged) {
    err = stage_for(st, b, bytes, &host);
  } else {
    flush_queues(st); /* a blocking map must not wait on an unflushed queue */
    host = image ? clEnqueueMapImage(up, *mem, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, origin,
                                     region, &row_pitch, NULL, nw, wl, NULL, &err)
                 : clEnqueueMapBuffer(up, *mem, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, bytes,
                                      nw, wl, NULL, &err);
  }
  if (err != CL_SUCCESS)
    return err;
  hop_ocl_pack_kmajor(g, b, width * 4, height, host, row_pitch);
  hop_ocl_img_of(st)->packs[b->x]++;
  *ld = (int)(width * 4);
  if (!b->staged)
    return clEnqueueUnmapMemObject(up, *mem, host, 0, NULL, ready);
  return image ? clEnqueueWriteImage(up, *mem, CL_FALSE, origin, region, pitch, 0, host, nw, wl,
                                     ready)
               : clEnqueueWriteBuffer(up, *mem, CL_FALSE, 0, bytes, host, nw, wl, ready);
}

/* Blocks whose images stay within the limit: rows of C for A, columns for
 * B (4 per texel, whole micro-tiles), k for both (whole k steps). */
void hop_ocl_image_limits(const struct hop_ocl_state *st, const struct hop_call *g,
                          struct hop_ocl_plan *p)
{
  (void)g;
  const struct hop_ocl_imgcfg *c = &hop_ocl_img_of(st)->cfg;
  if (c->image[0])
    p->max_tm = (int)(c->max_w / (size_t)(c->tm / 4)) * c->tm;
  if (c->image[1])
    p->max_tn = (int)(c->max_w / (size_t)(c->tn / 4)) * c->tn;
  p->max_tk = (int)(c->max_h / (size_t)c->ku) * c->ku;
}

/* ---- the launch ------------------------------------------------------------ */

/* Halve a work-group side while half of it still covers the items. */
static size_t fit_side(size_t side, size_t items)
{
  while (side > 1 && side / 2 >= items)
    side /= 2;
  return side;
}

cl_int hop_ocl_image_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l, int col0,
                             int cols, cl_uint nwait, const cl_event *wait, cl_event *done)
{
  struct hop_ocl_img *fm = hop_ocl_img_of(st);
  const struct hop_ocl_imgcfg *c = &fm->cfg;
  cl_kernel kn = st->prog.kernel[l->kernel];
  cl_int kp = round_up(l->k, c->ku), pa = l->lda, pb = l->ldb;
  cl_int err = 0;
  cl_uint i = 0;
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->m);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->n);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &kp);
  err |= clSetKernelArg(kn, i++, sizeof(cl_float), &l->alpha);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &l->a);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &pa);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &l->b);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &pb);
  err |= clSetKernelArg(kn, i++, sizeof(cl_float), &l->beta);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &l->cin);
  err |= clSetKernelArg(kn, i++, sizeof(cl_ulong), &l->cin_off);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->ldcin);
  err |= clSetKernelArg(kn, i++, sizeof(cl_mem), &l->cout);
  err |= clSetKernelArg(kn, i++, sizeof(cl_ulong), &l->cout_off);
  err |= clSetKernelArg(kn, i++, sizeof(cl_int), &l->ldcout);
  if (err != CL_SUCCESS)
    return CL_INVALID_KERNEL_ARGS;
  if (hop_ocl_fault_hit(&st->fault, HOP_OCL_FAULT_ENQUEUE))
    return CL_OUT_OF_RESOURCES;
  if (fm->wg[l->kernel] == 0 &&
      clGetKernelWorkGroupInfo(kn, hop_ocl_device(st)->id, CL_KERNEL_WORK_GROUP_SIZE,
                               sizeof fm->wg[l->kernel], &fm->wg[l->kernel], NULL) != CL_SUCCESS)
    fm->wg[l->kernel] = 1;
  /* Work-items: one per micro-tile; the slab's columns start at work-item col0 / TN. */
  size_t items[2] = {(size_t)(l->m + c->tm - 1) / (size_t)c->tm,
                     (size_t)(cols + c->tn - 1) / (size_t)c->tn};
  size_t local[2] = {fit_side((size_t)c->lx, items[0]), fit_side((size_t)c->ly, items[1])};
  while (local[0] * local[1] > fm->wg[l->kernel])
    local[local[0] >= local[1] ? 0 : 1] /= 2;
  size_t offset[2] = {0, (size_t)col0 / (size_t)c->tn};
  size_t global[2] = {(items[0] + local[0] - 1) / local[0] * local[0],
                      (items[1] + local[1] - 1) / local[1] * local[1]};
  return clEnqueueNDRangeKernel(st->q[HOP_OCL_Q_EXEC], kn, 2, offset, global, local, nwait, wait,
                                done);
}

/* ---- `hopblas info` ----------------------------------------------------- */

void hop_ocl_image_describe(const struct hop_ocl_state *st, FILE *out)
{
  const struct hop_ocl_img *fm = hop_ocl_img_of(st);
  const struct hop_ocl_imgcfg *c = &fm->cfg;
  fprintf(out, "  kernels: %dx%d outputs per work-item (%s), k unrolled by %d, work-group up to "
               "%dx%d\n",
          c->tm, c->tn, c->tile_why, c->ku, c->lx, c->ly);
  fprintf(out, "  operands: A through %s, B through %s (%s), C through a buffer\n",
          c->image[0] ? "image2d_t" : "a buffer", c->image[1] ? "image2d_t" : "a buffer",
          c->image_why);
  fprintf(out, "  images: CL_RGBA of CL_FLOAT or CL_HALF_FLOAT, at most %zu x %zu texels (%s); "
               "larger operands are cut into blocks\n",
          c->max_w, c->max_h, c->limit_why);
  fprintf(out, "  half: %s\n", c->fp16_why);
  if (fm->qcom[0] != '\0')
    fprintf(out, "  Qualcomm extensions: %s\n", fm->qcom);
}

/* ---- the trace's note, and release ---------------------------------------- */

void hop_ocl_image_note(const struct hop_ocl_state *st, const struct hop_call *g,
                        const char *waits, char *buf, size_t len)
{
  const struct hop_ocl_img *fm = hop_ocl_img_of(st);
  const struct hop_ocl_imgcfg *c = &fm->cfg;
  bool half = g->dtype != HOP_DTYPE_S;
  snprintf(buf, len, "family=%s tile=%dx%d A=%s*%ld B=%s*%ld launches=%ld%s math=%s",
           st->family->name, c->tm, c->tn, c->image[0] ? "image" : "buffer", fm->packs[0],
           c->image[1] ? "image" : "buffer", fm->packs[1], st->window.launches, waits,
           !half || !c->half_math                      ? "float"
           : c->fp16 == HOP_OCL_FP16_ACCUMULATE ? (c->emulate ? "half-emulated" : "half")
                                                : (c->emulate ? "products-emulated" : "products"));
}

void hop_ocl_image_call_begin(struct hop_ocl_state *st)
{
  hop_ocl_img_of(st)->packs[0] = hop_ocl_img_of(st)->packs[1] = 0;
}

void hop_ocl_image_release(struct hop_ocl_state *st)
{
  struct hop_ocl_img *fm = hop_ocl_img_of(st);
  st->fam = NULL;
  if (fm == NULL)
    return;
  for (int x = 0; x < 2; x++)
    for (int i = 0; i < 2; i++)
      if (fm->img[x][i].mem != NULL)
        clReleaseMemObject(fm->img[x][i].mem);
  free(fm);
}
