/* Which kernel family computes (HOPBLAS_OPENCL_VARIANT, else the device's
 * name and vendor; nvidia only past its probe), the generic family behind
 * the family interface, and what every family shares: the program source,
 * launches cut into slabs and the queue window (HOPBLAS_QUEUE_WINDOW), and
 * the per-call note the trace's why column carries. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "family.h"
#include "sources.h"


/* ---- the generic family: generic.c's kernels as they are -------------- */

static const char *const generic_sources[] = {"gemm_generic.cl", NULL};

static void generic_options(const struct hop_ocl_state *st, const struct hop_ocl_params *p,
                            char *buf, size_t len)
{
  (void)st;
  hop_ocl_generic_options(p, buf, len);
}

static size_t generic_group_items(const struct hop_ocl_program *pr)
{
  return (size_t)pr->params.mdimc * (size_t)pr->params.ndimc;
}

/* Columns [col0, col0 + cols) of C: the same kernel over a narrower C and
 * the matching columns of op(B). */
struct hop_ocl_launch hop_ocl_family_slab(const struct hop_ocl_launch *l, int col0, int cols)
{
  struct hop_ocl_launch s = *l;
  s.n = cols;
  s.b_off += l->tb ? (cl_ulong)col0 : (cl_ulong)col0 * (cl_ulong)l->ldb;
  s.cin_off += (cl_ulong)col0 * (cl_ulong)l->ldcin;
  s.cout_off += (cl_ulong)col0 * (cl_ulong)l->ldcout;
  return s;
}

static cl_int generic_enqueue(struct hop_ocl_state *st, const struct hop_ocl_launch *l, int col0,
                              int cols, cl_uint nwait, const cl_event *wait, cl_event *done)
{
  struct hop_ocl_launch s = hop_ocl_family_slab(l, col0, cols);
  return hop_ocl_generic_enqueue(st, &s, nwait, wait, done);
}

static int generic_col_grain(const struct hop_ocl_state *st) { return st->prog.params.nwg; }

const struct hop_ocl_family hop_ocl_family_generic = {
  .name = "generic",
  .sources = generic_sources,
  .options = generic_options,
  .kernel_name = hop_ocl_generic_kernel_name,
  .group_items = generic_group_items,
  .enqueue = generic_enqueue,
  .col_grain = generic_col_grain,
};

/* ---- the choice --------------------------------------------------------- */

static const struct hop_ocl_family *by_name(const char *name)
{
  static const struct hop_ocl_family *const all[] = {
    &hop_ocl_family_generic, &hop_ocl_family_adreno, &hop_ocl_family_mali,
    &hop_ocl_family_nvidia};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (strcmp(all[i]->name, name) == 0)
      return all[i];
  return NULL;
}

/* The family the device's name or vendor calls for; why says which. */
static const struct hop_ocl_family *by_device(const struct hop_ocl_device *d, char *why,
                                              size_t len)
{
  if (strcasestr(d->name, "adreno") != NULL || strcasestr(d->vendor, "qualcomm") != NULL) {
    snprintf(why, len, "device \"%.50s\" (vendor %.24s) is an Adreno GPU", d->name, d->vendor);
    return &hop_ocl_family_adreno;
  }
  if (strcasestr(d->name, "mali") != NULL || strcasecmp(d->vendor, "arm") == 0) {
    snprintf(why, len, "device \"%.50s\" (vendor %.24s) is a Mali GPU", d->name, d->vendor);
    return &hop_ocl_family_mali;
  }
  if (hop_ocl_nvidia_device(d)) {
    snprintf(why, len, "device \"%.36s\" by %.24s", d->name, d->vendor);
    return &hop_ocl_family_nvidia;
  }
  snprintf(why, len, "device \"%.60s\" is neither Adreno, Mali nor NVIDIA", d->name);
  return &hop_ocl_family_generic;
}

void hop_ocl_family_choose(struct hop_ocl_state *st)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  const char *want = hop_config_get("HOPBLAS_OPENCL_VARIANT");
  char why[160];
  const struct hop_ocl_family *f = by_device(d, why, sizeof why);
  if (want != NULL && *want != '\0' && strcmp(want, "auto") != 0) {
    if (by_name(want) != NULL) {
      f = by_name(want);
      snprintf(why, sizeof why, "HOPBLAS_OPENCL_VARIANT=%s", want);
    } else {
      hop_log(1, "HOPBLAS_OPENCL_VARIANT=%.40s is not auto|generic|adreno|mali|nvidia; using auto",
              want);
    }
  }
  st->family = &hop_ocl_family_generic;
  st->fam = calloc(1, sizeof *st->fam);
  if (st->fam == NULL) { /* the engine cannot keep its per-call state: off */
    hop_log(1, "opencl: out of memory while choosing a kernel family; the engine is off");
    snprintf(st->variant_why, sizeof st->variant_why, "none (out of memory)");
    st->off = st->declines = true;
    return;
  }
  /* With a queue window, a launch predicted longer than this is cut into
   * slabs of columns: MACE keeps every launch under 1 ms so that a phone's
   * display, which shares the GPU, keeps its frame rate. */
  st->fam->slice_s = 1e-6 * (double)hop_config_int("HOPBLAS_QUEUE_SLICE_US", 1, 10000000, 1000);
  char bad[160] = "";
  bool ok = f == &hop_ocl_family_generic ? true
            : f == &hop_ocl_family_nvidia ? hop_ocl_nvidia_setup(st, bad, sizeof bad)
                                          : hop_ocl_image_setup(st, f, bad, sizeof bad);
  if (!ok) {
    hop_log(1, "opencl: the %s family cannot run here (%s); using generic", f->name, bad);
    snprintf(st->variant_why, sizeof st->variant_why, "generic (%s asked by %.50s, but %.80s)",
             f->name, why, bad);
    memset(&st->fam->cfg, 0, sizeof st->fam->cfg);
    memset(&st->fam->nv, 0, sizeof st->fam->nv);
    return;
  }
  st->family = f;
  if (f == &hop_ocl_family_nvidia)
    snprintf(st->variant_why, sizeof st->variant_why, "nvidia (%.62s; %.86s)", why,
             st->fam->nv.gate_why);
  else
    snprintf(st->variant_why, sizeof st->variant_why, "%s (%.140s)", f->name, why);
  hop_log(2, "opencl: kernel family %s", st->variant_why);
}

char *hop_ocl_source_join(const char *const *names, char *why, size_t len)
{
  size_t total = 1;
  const char *text[8] = {NULL};
  for (size_t i = 0; names[i] != NULL && i < 8; i++) {
    for (const struct hop_ocl_source *s = hop_ocl_sources; s->name != NULL; s++)
      if (strcmp(s->name, names[i]) == 0)
        text[i] = s->text;
    if (text[i] == NULL) {
      snprintf(why, len, "%s is not embedded in the library", names[i]);
      return NULL;
    }
    total += strlen(text[i]);
  }
  char *all = malloc(total);
  if (all == NULL) {
    snprintf(why, len, "out of memory");
    return NULL;
  }
  all[0] = '\0';
  for (size_t i = 0; text[i] != NULL; i++)
    strcat(all, text[i]);
  return all;
}

/* The family's files, in order, as one string (malloc'd). */
char *hop_ocl_family_source(const struct hop_ocl_family *f, char *why, size_t len)
{
  return hop_ocl_source_join(f->sources, why, len);
}

/* ---- launches: slabs and the queue window -------------------------------- */

static void window_wait(struct hop_ocl_state *st)
{
  st->fam->waits++;
  /* Kernels wait on uploads and maps of the other queues: flush them all first. */
  for (int q = 0; q < HOP_OCL_QUEUES; q++)
    clFlush(st->q[q]);
  clFinish(st->q[HOP_OCL_Q_EXEC]);
}

/* One kernel launch of the call, in slabs of columns when a queue window
 * is set and the launch would be long; the window waits after every N
 * launches.  The queue is in order: the last slab's event stands for all. */
cl_int hop_ocl_family_launch(struct hop_ocl_state *st, const struct hop_ocl_launch *l,
                             cl_uint nwait, const cl_event *wait, cl_event *done)
{
  const struct hop_ocl_family *f = st->family;
  int slabs = 1;
  if (st->queue_window > 0) {
    double seconds = 2.0 * l->m * l->n * l->k / st->model.peak_flops;
    double want = seconds > st->fam->slice_s ? seconds / st->fam->slice_s + 1.0 : 1.0;
    slabs = want < (double)l->n ? (int)want : l->n; /* the grain bounds it further */
  }
  int grain = f->col_grain(st);
  int width = (l->n + slabs - 1) / slabs;
  width = (width + grain - 1) / grain * grain;
  *done = NULL;
  for (int col0 = 0; col0 < l->n; col0 += width) {
    int cols = l->n - col0 < width ? l->n - col0 : width;
    if (*done != NULL)
      clReleaseEvent(*done);
    *done = NULL;
    cl_int err = f->enqueue(st, l, col0, cols, col0 == 0 ? nwait : 0, col0 == 0 ? wait : NULL,
                            done);
    if (err != CL_SUCCESS)
      return err;
    st->fam->launches++;
    if (st->queue_window > 0 && ++st->fam->window_count % st->queue_window == 0)
      window_wait(st);
  }
  return CL_SUCCESS;
}

void hop_ocl_family_release(struct hop_ocl_state *st)
{
  struct hop_ocl_fam *fm = st->fam;
  st->fam = NULL;
  if (fm == NULL)
    return;
  for (int x = 0; x < 2; x++)
    for (int i = 0; i < 2; i++)
      if (fm->img[x][i].mem != NULL)
        clReleaseMemObject(fm->img[x][i].mem);
  for (int h = 0; h < 2; h++)
    if (fm->nv.sum[h] != NULL)
      clReleaseKernel(fm->nv.sum[h]);
  if (fm->nv.work != NULL)
    clReleaseMemObject(fm->nv.work);
  free(fm);
}

/* ---- the trace's note ----------------------------------------------------
 * Written at the end of a call under the engine's lock, read by the same
 * thread when core/ writes the trace row: thread-local, no race. */

static _Thread_local char detail[120];

void hop_ocl_family_call_begin(struct hop_ocl_state *st)
{
  st->fam->packs[0] = st->fam->packs[1] = st->fam->launches = st->fam->waits = 0;
  st->fam->nv.used = 0;
  st->fam->nv.split_used = 1;
  detail[0] = '\0';
}

void hop_ocl_family_call_end(struct hop_ocl_state *st, const struct hop_gemm *g)
{
  const struct hop_ocl_fam *fm = st->fam;
  char waits[32] = "";
  if (st->queue_window > 0)
    snprintf(waits, sizeof waits, " window-waits=%ld", fm->waits);
  if (st->family == &hop_ocl_family_generic) {
    snprintf(detail, sizeof detail, "family=generic launches=%ld%s", fm->launches, waits);
    return;
  }
  if (st->family == &hop_ocl_family_nvidia) {
    char used[96] = "";
    for (int u = 0; u < st->prog.units; u++)
      if (fm->nv.used >> u & 1u)
        snprintf(used + strlen(used), sizeof used - strlen(used), "%s%s", used[0] ? "+" : "",
                 hop_ocl_nvidia_unit_name(st, u));
    char split[24] = "";
    if (fm->nv.split_used > 1)
      snprintf(split, sizeof split, " split-k=%d", fm->nv.split_used);
    snprintf(detail, sizeof detail, "family=nvidia kernels=%s launches=%ld%s%s%s", used,
             fm->launches, split, waits, fm->nv.emulate ? " ptx=emulated" : "");
    return;
  }
  const struct hop_ocl_imgcfg *c = &fm->cfg;
  bool half = g->dtype != HOP_DTYPE_S;
  snprintf(detail, sizeof detail, "family=%s tile=%dx%d A=%s*%ld B=%s*%ld launches=%ld%s math=%s",
           st->family->name, c->tm, c->tn, c->image[0] ? "image" : "buffer", fm->packs[0],
           c->image[1] ? "image" : "buffer", fm->packs[1], fm->launches, waits,
           !half || !c->half_math                      ? "float"
           : c->fp16 == HOP_OCL_FP16_ACCUMULATE ? (c->emulate ? "half-emulated" : "half")
                                                : (c->emulate ? "products-emulated" : "products"));
}

const char *hop_ocl_family_detail(void *state)
{
  (void)state;
  return detail;
}
