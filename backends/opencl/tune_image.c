/* The parameter space of the image families (adreno, mali; image.c): the
 * micro-tile of a work-item, TM x TN outputs (4 or 8 each, compiled in),
 * and the work-group LX x LY, set at launch, so that trying work-groups
 * costs no build, as in MACE and MNN.  Work-groups come from MACE's 2D
 * list ({kwg/2, 2} ... {kwg, 1}, {1, kwg}) and MNN's power-of-two sweep
 * (seed 001), both within CL_KERNEL_WORK_GROUP_SIZE, the device's limits
 * and twice the work-items of the problem (MNN's bound).
 *
 * The tuner's operands are packed by the family itself (provide), once per
 * tile and problem, and its kernels launched on them: the events time the
 * kernel alone. */
#include <string.h>

#include "image.h"
#include "tune.h"

enum { TM, TN, LX, LY };

static const char *const names[] = {"TM", "TN", "LX", "LY", NULL};
static const char *const knobs[] = {"HOPBLAS_OPENCL_TILE", "HOPBLAS_OPENCL_LWS", NULL};

static void get(const struct hop_ocl_state *st, struct hop_tune_point *p)
{
  const struct hop_ocl_imgcfg *c = &hop_ocl_img_of(st)->cfg;
  *p = (struct hop_tune_point){{c->tm, c->tn, c->lx, c->ly}};
}

static void set(struct hop_ocl_state *st, const struct hop_tune_point *p)
{
  struct hop_ocl_imgcfg *c = &hop_ocl_img_of(st)->cfg;
  c->tm = p->v[TM], c->tn = p->v[TN], c->lx = p->v[LX], c->ly = p->v[LY];
  /* CL_KERNEL_WORK_GROUP_SIZE belongs to a build: asked again for the next program. */
  memset(hop_ocl_img_of(st)->wg, 0, sizeof hop_ocl_img_of(st)->wg);
}

static bool pow2(int x) { return x >= 1 && (x & (x - 1)) == 0; }

static bool fits(const struct hop_ocl_state *st, const struct hop_tune_point *p, char *why,
                 size_t len)
{
  const int *v = p->v;
  size_t lim[2];
  hop_tune_item_limits(st, lim);
  const char *bad = NULL;
  if ((v[TM] != 4 && v[TM] != 8) || (v[TN] != 4 && v[TN] != 8))
    bad = "TM and TN must be 4 or 8";
  else if (!pow2(v[LX]) || !pow2(v[LY]) || v[LX] > 256 || v[LY] > 256)
    bad = "LX and LY must be powers of 2 up to 256";
  else if ((size_t)v[LX] > lim[0] || (size_t)v[LY] > lim[1] ||
           (size_t)v[LX] * (size_t)v[LY] > hop_ocl_device(st)->max_wg)
    bad = "the work-group is above the device's limits";
  if (bad != NULL)
    snprintf(why, len, "%s", bad);
  return bad == NULL;
}

static size_t stage(const struct hop_ocl_state *st, int stage, const struct hop_tune_point *best,
                    int size, size_t kwg, struct hop_tune_point *out, size_t max)
{
  static const int tiles[][2] = {{4, 4}, {4, 8}, {8, 4}, {8, 8}};
  struct hop_tune_point p;
  size_t n = 0, lim[2];
  if (stage == 0) {
    for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++) {
      p = *best, p.v[TM] = tiles[i][0], p.v[TN] = tiles[i][1];
      n = hop_tune_push(out, n, max, &p);
    }
    return n;
  }
  if (stage != 1)
    return 0;
  hop_tune_item_limits(st, lim);
  int k = (int)(kwg > 4096 ? 4096 : kwg);
  long items[2] = {2L * (size / best->v[TM]), 2L * (size / best->v[TN])};
  int pairs[96][2], np = 0;
  for (int d = 2; d <= 256; d *= 2) /* MACE: {kwg/d, d} */
    pairs[np][0] = k / d, pairs[np][1] = d, np++;
  pairs[np][0] = k, pairs[np][1] = 1, np++;
  pairs[np][0] = 1, pairs[np][1] = k, np++;
  for (int y = 1; y <= 256 && np < 96; y *= 2) /* MNN: powers of two up to twice the items */
    for (int x = 1; x <= 256 && np < 96; x *= 2)
      if ((x <= 4 || x <= items[0]) && (y <= 4 || y <= items[1]))
        pairs[np][0] = x, pairs[np][1] = y, np++;
  for (int i = 0; i < np; i++) {
    int x = pairs[i][0], y = pairs[i][1];
    if (!pow2(x) || !pow2(y) || x > 256 || y > 256 || (size_t)x * (size_t)y > kwg ||
        (size_t)x > lim[0] || (size_t)y > lim[1])
      continue;
    p = *best, p.v[LX] = x, p.v[LY] = y;
    n = hop_tune_push(out, n, max, &p);
  }
  return n;
}

/* The operands of launch l packed as the family wants them, once per tile and problem. */
static cl_int provide(struct hop_ocl_state *st, struct hop_tune_bench *b,
                      const struct hop_ocl_launch *l, int which)
{
  const struct hop_ocl_imgcfg *c = &hop_ocl_img_of(st)->cfg;
  uint64_t key = (uint64_t)c->tm << 56 | (uint64_t)c->tn << 48 | (uint64_t)l->m << 32 | (uint64_t)l->n << 16 |
                 (uint64_t)l->k;
  if (b->op_key[which] == key)
    return CL_SUCCESS;
  b->op_key[which] = 0;
  struct hop_call g = {.dtype = HOP_DTYPE_S, .symbol = "tune", .ta = l->ta, .tb = l->tb,
                       .m = l->m, .n = l->n, .k = l->k, .alpha = {l->alpha, 0.0}, .beta = {l->beta, 0.0},
                       .a = b->ha, .lda = l->lda, .b = b->hb, .ldb = l->ldb};
  for (int x = 0; x < 2; x++) {
    struct hop_ocl_block blk = {.x = x, .slot = which, .rows = x == 0 ? l->m : l->k,
                                .cols = x == 0 ? l->k : l->n,
                                .staged = st->memory == HOP_OCL_STAGED};
    cl_event ready = NULL;
    cl_int err = hop_ocl_image_provide(st, &g, &blk, &b->op[which][x], &b->op_ld[which][x], &ready);
    if (ready != NULL) {
      clFlush(st->q[HOP_OCL_Q_UP]);
      if (err == CL_SUCCESS)
        err = clWaitForEvents(1, &ready);
      clReleaseEvent(ready);
    }
    if (err != CL_SUCCESS)
      return err;
  }
  b->op_key[which] = key;
  return CL_SUCCESS;
}

static cl_int launch(struct hop_ocl_state *st, struct hop_tune_bench *b,
                     const struct hop_ocl_launch *l, cl_event *done)
{
  int which = l->m == b->n && l->n == b->n ? 0 : 1;
  cl_int err = provide(st, b, l, which);
  if (err != CL_SUCCESS)
    return err;
  struct hop_ocl_launch packed = *l;
  packed.a = b->op[which][0], packed.lda = b->op_ld[which][0], packed.a_off = 0;
  packed.b = b->op[which][1], packed.ldb = b->op_ld[which][1], packed.b_off = 0;
  return hop_ocl_image_enqueue(st, &packed, 0, l->n, 0, NULL, done);
}

static void origin(const struct hop_ocl_state *st, char *buf, size_t len)
{
  snprintf(buf, len, "the %s family's default: %.100s", st->family->name,
           hop_ocl_img_of(st)->cfg.tile_why);
}

const struct hop_tune_space hop_tune_space_adreno = {
  .names = names, .knobs = knobs, .rebuild = 1u << TM | 1u << TN,
  .get = get, .set = set, .fits = fits, .stage = stage, .launch = launch, .origin = origin,
};

const struct hop_tune_space hop_tune_space_mali = {
  .names = names, .knobs = knobs, .rebuild = 1u << TM | 1u << TN,
  .get = get, .set = set, .fits = fits, .stage = stage, .launch = launch, .origin = origin,
};
