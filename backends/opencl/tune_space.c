/* Parameter spaces of the kernel families, and the list they register in.
 *
 * The generic family's tunables are its tiles (MWG, NWG, KWG), vector
 * widths (VWM, VWN, VWL), local-memory padding (PADA, PADB) and its local
 * work size, MDIMC x NDIMC (the kernel requires exactly that work-group).
 * The search goes in stages, each varying one group around the best so
 * far, as CLBlast's tuner does in its stages: tile shape, k tile, vector
 * widths, then the work-group, then loads and padding.  The work-group
 * stage takes MACE's 2D list ({kwg/2, 2} ... {kwg, 1}, {1, kwg}) and
 * MNN's power-of-two sweep (seed 001), within CL_KERNEL_WORK_GROUP_SIZE,
 * the device's item limits and what the tile allows.
 *
 * A new family registers here: its names, get/set over the engine state,
 * a fits() check, its stages and a launch on the tuner's resident operands. */
#include <string.h>

#include "tune.h"

enum { MWG, NWG, KWG, MDIMC, NDIMC, VWM, VWN, VWL, PADA, PADB };

static const char *const generic_names[] = {"MWG", "NWG", "KWG", "MDIMC", "NDIMC",
                                            "VWM", "VWN", "VWL", "PADA", "PADB", NULL};

static const char *const generic_knobs[] = {"HOPBLAS_OPENCL_PARAMS", NULL};

static void generic_get(const struct hop_ocl_state *st, struct hop_tune_point *p)
{
  const struct hop_ocl_params *q = &st->params;
  *p = (struct hop_tune_point){{q->mwg, q->nwg, q->kwg, q->mdimc, q->ndimc, q->vwm, q->vwn,
                                q->vwl, q->pada, q->padb}};
}

static struct hop_ocl_params to_params(const struct hop_tune_point *p)
{
  const int *v = p->v;
  return (struct hop_ocl_params){v[MWG], v[NWG], v[KWG], v[MDIMC], v[NDIMC],
                                 v[VWM], v[VWN], v[VWL], v[PADA], v[PADB]};
}

static void generic_set(struct hop_ocl_state *st, const struct hop_tune_point *p)
{
  st->params = to_params(p);
}

/* The device's largest work-group per dimension. */
void hop_tune_item_limits(const struct hop_ocl_state *st, size_t lim[2])
{
  size_t sizes[3] = {0, 0, 0};
  lim[0] = lim[1] = hop_ocl_device(st)->max_wg;
  if (clGetDeviceInfo(hop_ocl_device(st)->id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes,
                      NULL) == CL_SUCCESS && sizes[0] > 0 && sizes[1] > 0)
    lim[0] = sizes[0], lim[1] = sizes[1];
}

static bool generic_fits(const struct hop_ocl_state *st, const struct hop_tune_point *p,
                         char *why, size_t len)
{
  struct hop_ocl_params q = to_params(p);
  size_t lim[2];
  hop_tune_item_limits(st, lim);
  if ((size_t)q.mdimc > lim[0] || (size_t)q.ndimc > lim[1]) {
    snprintf(why, len, "MDIMC or NDIMC above the device's work-item limits");
    return false;
  }
  /* Registers: more than 128 outputs per work-item spill on every device we know. */
  if (q.mdimc > 0 && q.ndimc > 0 && (q.mwg / q.mdimc) * (q.nwg / q.ndimc) > 128) {
    snprintf(why, len, "more than 128 outputs per work-item");
    return false;
  }
  return hop_ocl_generic_params_fit(hop_ocl_device(st), &q, why, len);
}

static int min_int(int a, int b) { return a < b ? a : b; }

/* The largest power of two <= x (x >= 1). */
static int pow2_floor(int x)
{
  int p = 1;
  while (2 * p <= x)
    p *= 2;
  return p;
}

/* Keep the best's work-group where the new tile allows it, else the
 * largest one up to 16 x 16 that does. */
static void fix_group(struct hop_tune_point *p, size_t kwg)
{
  int *v = p->v;
  int mmax = v[MWG] / v[VWM], nmax = v[NWG] / v[VWN];
  if (mmax < 1 || nmax < 1)
    return;
  if (mmax % v[MDIMC] != 0 || v[MDIMC] > mmax)
    v[MDIMC] = min_int(16, pow2_floor(mmax));
  if (nmax % v[NDIMC] != 0 || v[NDIMC] > nmax)
    v[NDIMC] = min_int(16, pow2_floor(nmax));
  while ((size_t)v[MDIMC] * (size_t)v[NDIMC] > kwg && (v[MDIMC] > 1 || v[NDIMC] > 1)) {
    if (v[MDIMC] >= v[NDIMC])
      v[MDIMC] /= 2;
    else
      v[NDIMC] /= 2;
  }
  while (v[VWL] > 1 && (v[MWG] % v[VWL] || v[NWG] % v[VWL] || v[KWG] % v[VWL]))
    v[VWL] /= 2;
}

size_t hop_tune_push(struct hop_tune_point *out, size_t n, size_t max,
                     const struct hop_tune_point *p)
{
  for (size_t i = 0; i < n; i++)
    if (hop_tune_point_equal(&out[i], p))
      return n;
  if (n < max)
    out[n++] = *p;
  return n;
}

/* Work-groups of a tile: MACE's 2D list, then MNN's power-of-two sweep. */
static size_t groups(const struct hop_ocl_state *st, const struct hop_tune_point *best,
                     size_t kwg, struct hop_tune_point *out, size_t max)
{
  size_t n = 0, lim[2];
  hop_tune_item_limits(st, lim);
  int mmax = best->v[MWG] / best->v[VWM], nmax = best->v[NWG] / best->v[VWN];
  int pairs[96][2], np = 0;
  int k = (int)(kwg > 4096 ? 4096 : kwg);
  for (int d = 2; d <= 256; d *= 2) /* MACE: {kwg/d, d} */
    pairs[np][0] = k / d, pairs[np][1] = d, np++;
  pairs[np][0] = k, pairs[np][1] = 1, np++;
  pairs[np][0] = 1, pairs[np][1] = k, np++;
  for (int y = 1; y <= nmax && np < 96; y *= 2) /* MNN: every power of two in both */
    for (int x = 1; x <= mmax && np < 96; x *= 2)
      pairs[np][0] = x, pairs[np][1] = y, np++;
  for (int i = 0; i < np; i++) {
    int x = pairs[i][0], y = pairs[i][1];
    if (x < 1 || y < 1 || mmax % x != 0 || nmax % y != 0 || (size_t)x * (size_t)y > kwg ||
        (size_t)x > lim[0] || (size_t)y > lim[1])
      continue;
    struct hop_tune_point p = *best;
    p.v[MDIMC] = x, p.v[NDIMC] = y;
    n = hop_tune_push(out, n, max, &p);
  }
  return n;
}

/* best with parameters i and j set to each pair of values in turn (j < 0: i only). */
static size_t vary(const struct hop_tune_point *best, size_t kwg, int i, int j,
                   const int (*values)[2], size_t count, struct hop_tune_point *out, size_t max)
{
  size_t n = 0;
  for (size_t c = 0; c < count; c++) {
    struct hop_tune_point p = *best;
    p.v[i] = values[c][0];
    if (j >= 0)
      p.v[j] = values[c][1];
    fix_group(&p, kwg);
    n = hop_tune_push(out, n, max, &p);
  }
  return n;
}

static size_t generic_stage(const struct hop_ocl_state *st, int stage,
                            const struct hop_tune_point *best, int size, size_t kwg,
                            struct hop_tune_point *out, size_t max)
{
  (void)size;
  static const int tiles[][2] = {{32, 32}, {64, 32}, {32, 64}, {64, 64},
                                 {128, 64}, {64, 128}, {128, 128}};
  static const int kwgs[][2] = {{8, 0}, {16, 0}, {32, 0}, {64, 0}};
  static const int widths[][2] = {{4, 4}, {8, 4}, {4, 2}, {2, 4}, {2, 2}, {8, 2}, {1, 4}, {4, 1}};
  static const int loads[][2] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}};
  switch (stage) {
  case 0: /* tile shape */
    return vary(best, kwg, MWG, NWG, tiles, sizeof tiles / sizeof tiles[0], out, max);
  case 1: /* k per local tile */
    return vary(best, kwg, KWG, -1, kwgs, sizeof kwgs / sizeof kwgs[0], out, max);
  case 2: /* register vectors */
    return vary(best, kwg, VWM, VWN, widths, sizeof widths / sizeof widths[0], out, max);
  case 3: /* local work size */
    return groups(st, best, kwg, out, max);
  case 4: { /* global loads, then local padding */
    size_t n = vary(best, kwg, VWL, -1, loads, sizeof loads / sizeof loads[0], out, max);
    struct hop_tune_point p = *best;
    p.v[PADA] = p.v[PADB] = best->v[PADA] ? 0 : 1;
    return hop_tune_push(out, n, max, &p);
  }
  default:
    return 0;
  }
}

static cl_int generic_launch(struct hop_ocl_state *st, struct hop_tune_bench *b,
                             const struct hop_ocl_launch *l, cl_event *done)
{
  (void)b;
  return hop_ocl_generic_enqueue(st, l, 0, NULL, done);
}

static void generic_origin(const struct hop_ocl_state *st, char *buf, size_t len)
{
  snprintf(buf, len, "%s", st->params_why);
}

const struct hop_tune_space hop_tune_space_generic = {
  .names = generic_names,
  .knobs = generic_knobs,
  .rebuild = ~0u, /* everything, the work-group included, is compiled in */
  .get = generic_get,
  .set = generic_set,
  .fits = generic_fits,
  .stage = generic_stage,
  .launch = generic_launch,
  .origin = generic_origin,
};

/* ---- the family's space, and points as text ----------------------------- */

const struct hop_tune_space *hop_tune_space_of(const struct hop_ocl_family *f)
{
  return f->tuning;
}

void hop_tune_point_format(const struct hop_tune_space *s, const struct hop_tune_point *p,
                           char *buf, size_t len)
{
  size_t o = 0;
  buf[0] = '\0';
  for (int i = 0; s->names[i] != NULL && o < len; i++)
    o += (size_t)snprintf(buf + o, len - o, "%s%s=%d", i ? "," : "", s->names[i], p->v[i]);
}

bool hop_tune_point_parse(const struct hop_tune_space *s, const char *text,
                          struct hop_tune_point *p)
{
  const char *q = text;
  while (*q != '\0') {
    size_t len = strcspn(q, ",");
    const char *eq = memchr(q, '=', len);
    if (eq == NULL)
      return false;
    int i = 0;
    while (s->names[i] != NULL &&
           !(strlen(s->names[i]) == (size_t)(eq - q) && strncmp(s->names[i], q, (size_t)(eq - q)) == 0))
      i++;
    if (s->names[i] == NULL)
      return false;
    long v = 0;
    const char *d = eq + 1;
    if (d == q + len)
      return false;
    for (; d < q + len; d++) {
      if (*d < '0' || *d > '9' || v > 4096)
        return false;
      v = v * 10 + (*d - '0');
    }
    if (v > 4096)
      return false;
    p->v[i] = (int)v;
    q += len;
    if (*q == ',')
      q++;
  }
  return true;
}

bool hop_tune_point_equal(const struct hop_tune_point *a, const struct hop_tune_point *b)
{
  return memcmp(a->v, b->v, sizeof a->v) == 0;
}
