/* Which kernel family computes (HOPBLAS_OPENCL_VARIANT, else the first in
 * the table whose match rule takes the device; nvidia only past its probe),
 * and what the engine does the same for every family: the program source,
 * launches cut into slabs and the queue window (HOPBLAS_QUEUE_WINDOW), and
 * the per-call note the trace's why column carries. */
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "sources.h"

/* ---- the choice --------------------------------------------------------- */

/* In the order their match rules are tried: generic takes every device. */
static const struct hop_ocl_family *const families[] = {
  &hop_ocl_family_adreno, &hop_ocl_family_mali, &hop_ocl_family_nvidia, &hop_ocl_family_generic};
enum { FAMILIES = sizeof families / sizeof families[0] };

static const struct hop_ocl_family *by_name(const char *name)
{
  for (size_t i = 0; i < FAMILIES; i++)
    if (strcmp(families[i]->name, name) == 0)
      return families[i];
  return NULL;
}

/* The family the device's name or vendor calls for; why says which. */
static const struct hop_ocl_family *by_device(const struct hop_ocl_device *d, char *why,
                                              size_t len)
{
  for (size_t i = 0; i + 1 < FAMILIES; i++)
    if (families[i]->match(d, why, len))
      return families[i];
  families[FAMILIES - 1]->match(d, why, len); /* generic: every device */
  return families[FAMILIES - 1];
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
  st->fam = NULL;
  /* With a queue window, a launch predicted longer than this is cut into
   * slabs of columns: MACE keeps every launch under 1 ms so that a phone's
   * display, which shares the GPU, keeps its frame rate. */
  st->window.slice_s = 1e-6 * (double)hop_config_int("HOPBLAS_QUEUE_SLICE_US", 1, 10000000, 1000);
  char bad[160] = ""; /* why not; or, when it may run, the family's note */
  if (f->setup != NULL && !f->setup(st, bad, sizeof bad)) {
    hop_log(1, "opencl: the %s family cannot run here (%s); using generic", f->name, bad);
    snprintf(st->variant_why, sizeof st->variant_why, "generic (%s asked by %.50s, but %.80s)",
             f->name, why, bad);
    if (f->release != NULL) /* what its setup allocated before it gave up */
      f->release(st);
    st->fam = NULL;
    return;
  }
  st->family = f;
  if (bad[0] != '\0')
    snprintf(st->variant_why, sizeof st->variant_why, "%s (%.62s; %.86s)", f->name, why, bad);
  else
    snprintf(st->variant_why, sizeof st->variant_why, "%s (%.140s)", f->name, why);
  hop_log(2, "opencl: kernel family %s", st->variant_why);
}

char *hop_ocl_source_join(const char *const *names, char *why, size_t len)
{
  size_t total = 1;
  enum { MOST = 15 };
  const char *text[MOST + 1] = {NULL}; /* the last stays NULL: the end */
  for (size_t i = 0; names[i] != NULL; i++) {
    if (i == MOST) {
      snprintf(why, len, "more than %d kernel files in one program", MOST);
      return NULL;
    }
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
  st->window.waits++;
  /* Kernels wait on uploads and maps of the other queues: flush them all first. */
  for (int q = 0; q < HOP_OCL_QUEUES; q++)
    clFlush(st->q[q]);
  clFinish(st->q[HOP_OCL_Q_EXEC]);
}

/* The rows [*r0, *r0 + *rows) of columns [col0, col0 + cols) of launch l
 * that hold wanted elements (gemmt's triangle; all for GEMM). */
static void wanted_rows(const struct hop_ocl_launch *l, int col0, int cols, int *r0, int *rows)
{
  int lo = 0, hi = l->m;
  switch (l->part) {
  case HOP_OCL_ALL: break;
  case HOP_OCL_UPPER: /* r <= c + diag */
    hi = col0 + cols + l->diag < hi ? col0 + cols + l->diag : hi;
    break;
  case HOP_OCL_LOWER: /* r >= c + diag */
    lo = col0 + l->diag > 0 ? col0 + l->diag : 0;
    break;
  }
  *r0 = lo, *rows = hi > lo ? hi - lo : 0;
}

/* One kernel launch of the call, in slabs of columns when a queue window
 * is set and the launch would be long; the window waits after every N
 * launches.  A launch of part of gemmt's triangle goes in slabs one grain
 * wide, each over the rows that hold wanted elements (buffer families:
 * image families cannot start a block at any row, so theirs compute every
 * row of a slab; the rest are never written back), and slabs with none are
 * skipped.  The queue is in order: the last slab's event stands for all. */
cl_int hop_ocl_family_launch(struct hop_ocl_state *st, const struct hop_ocl_launch *l,
                             cl_uint nwait, const cl_event *wait, cl_event *done)
{
  const struct hop_ocl_family *f = st->family;
  int slabs = 1;
  if (st->queue_window > 0) {
    double seconds = 2.0 * l->m * l->n * l->k / st->model.peak_flops;
    double want = seconds > st->window.slice_s ? seconds / st->window.slice_s + 1.0 : 1.0;
    slabs = want < (double)l->n ? (int)want : l->n; /* the grain bounds it further */
  }
  int grain = f->col_grain(st);
  int width = (l->n + slabs - 1) / slabs;
  width = l->part != HOP_OCL_ALL ? grain : (width + grain - 1) / grain * grain;
  bool first = true;
  *done = NULL;
  for (int col0 = 0; col0 < l->n; col0 += width) {
    int cols = l->n - col0 < width ? l->n - col0 : width, r0, rows;
    wanted_rows(l, col0, cols, &r0, &rows);
    if (rows == 0)
      continue;
    struct hop_ocl_launch s = *l;
    if (l->part != HOP_OCL_ALL && f->provide == NULL)
      s = hop_ocl_generic_rows(l, r0, rows);
    if (*done != NULL)
      clReleaseEvent(*done);
    *done = NULL;
    cl_int err = f->enqueue(st, &s, col0, cols, first ? nwait : 0, first ? wait : NULL, done);
    if (err != CL_SUCCESS)
      return err;
    first = false;
    st->window.launches++;
    if (st->queue_window > 0 && ++st->window.count % st->queue_window == 0)
      window_wait(st);
  }
  return first ? CL_INVALID_VALUE : CL_SUCCESS; /* a launch with nothing wanted is a bug */
}

void hop_ocl_family_release(struct hop_ocl_state *st)
{
  if (st->family != NULL && st->family->release != NULL)
    st->family->release(st);
  st->fam = NULL;
}

/* ---- the trace's note ----------------------------------------------------
 * Written at the end of a call under the engine's lock, read by the same
 * thread when core/ writes the trace row: thread-local, no race. */

static _Thread_local char detail[144];

void hop_ocl_family_call_begin(struct hop_ocl_state *st)
{
  st->window.launches = st->window.waits = 0;
  if (st->family->call_begin != NULL)
    st->family->call_begin(st);
  detail[0] = '\0';
}

void hop_ocl_family_call_end(struct hop_ocl_state *st, const struct hop_call *g)
{
  char waits[32] = "";
  if (st->queue_window > 0)
    snprintf(waits, sizeof waits, " window-waits=%ld", st->window.waits);
  st->family->note(st, g, waits, detail, sizeof detail);
}

void hop_ocl_family_detail_add(const char *more)
{
  size_t n = strlen(detail);
  snprintf(detail + n, sizeof detail - n, "%s", more);
}

void hop_ocl_family_detail_clear(void) { detail[0] = '\0'; }

const char *hop_ocl_family_detail(void *state)
{
  (void)state;
  return detail;
}
