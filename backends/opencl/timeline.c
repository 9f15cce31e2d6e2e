/* HOPBLAS_OPENCL_TIMELINE=1: where a call's time went on the device.  The
 * phase line (run.c) says how long the host packed, unpacked and waited;
 * it cannot say whether the device sat idle meanwhile, or the link.  With
 * the key set the queues keep profiling times, the pipeline hands every
 * upload, kernel, spread and read-back event here, and at the call's end one line
 * gives, in ms from the call's start, when each kind of command ran and
 * how long the link and the kernels were busy, and a second line each
 * kernel's start and end.  Device times are moved onto the host's clock by
 * the smallest gap seen between a command's enqueueing on the device's
 * clock and the host's clock just after it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ocl.h"

/* Spreads: complex planes formed on the device (plane_spread.c), apart
 * from the GEMM kernels so that these are counted alone. */
enum { KINDS = 4 };
static const char *const kind_name[KINDS] = {"uploads", "kernels", "read-backs", "spreads"};

bool hop_ocl_timeline_wanted(void)
{
  return hop_config_int("HOPBLAS_OPENCL_TIMELINE", 0, 1, 0) == 1;
}

void hop_ocl_timeline_add(struct hop_ocl_timeline *tl, cl_event ev, enum hop_ocl_tl_kind kind)
{
  if (tl == NULL || ev == NULL)
    return;
  if (tl->n == tl->cap) {
    size_t cap = tl->cap ? 2 * tl->cap : 64;
    struct hop_ocl_tl_event *e = realloc(tl->e, cap * sizeof *e);
    if (e == NULL)
      return; /* the line then lacks this command: nothing else depends on it */
    tl->e = e, tl->cap = cap;
  }
  clRetainEvent(ev);
  tl->e[tl->n++] = (struct hop_ocl_tl_event){.ev = ev, .kind = kind, .host = hop_now()};
}

struct span {
  double start, end;
};

static int by_start(const void *a, const void *b)
{
  const struct span *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Of spans s[0..n) sorted by start: the time any of them ran. */
static double busy(const struct span *s, size_t n)
{
  double total = 0.0, from = 0.0, to = -1.0;
  for (size_t i = 0; i < n; i++) {
    if (s[i].start > to) {
      total += to > from ? to - from : 0.0;
      from = s[i].start;
    }
    to = s[i].end > to ? s[i].end : to;
  }
  return total + (to > from ? to - from : 0.0);
}

/* printf onto the end of line (size bytes, *used of them taken). */
static void append(char *line, size_t size, size_t *used, const char *fmt, ...)
{
  if (*used >= size)
    return;
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(line + *used, size - *used, fmt, ap);
  va_end(ap);
  *used += w > 0 ? (size_t)w : 0;
}

void hop_ocl_timeline_report(struct hop_ocl_timeline *tl, const struct hop_call *g, double host0,
                             double seconds)
{
  struct span *s[KINDS] = {NULL};
  size_t n[KINDS] = {0};
  double offset = 0.0;
  bool have_offset = false;
  for (int k = 0; k < KINDS; k++)
    s[k] = calloc(tl->n ? tl->n : 1, sizeof *s[k]);
  bool room = true;
  for (int k = 0; k < KINDS; k++)
    room = room && s[k] != NULL;
  for (size_t i = 0; i < tl->n && room; i++) {
    cl_ulong q = 0, a = 0, b = 0;
    const struct hop_ocl_tl_event *e = &tl->e[i];
    if (clGetEventProfilingInfo(e->ev, CL_PROFILING_COMMAND_QUEUED, sizeof q, &q, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(e->ev, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(e->ev, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) != CL_SUCCESS)
      continue;
    double gap = e->host - 1e-9 * (double)q;
    if (!have_offset || gap < offset)
      offset = gap, have_offset = true;
    s[e->kind][n[e->kind]++] = (struct span){1e-9 * (double)a, 1e-9 * (double)b};
  }
  char line[4096];
  size_t used = 0;
  append(line, sizeof line, &used, "opencl timeline: %dx%dx%d %s, ms from the call's start:",
         (int)g->m, (int)g->n, (int)g->k, hop_dtype_info(g->dtype)->name);
  for (int k = 0; k < KINDS && s[k] != NULL; k++) {
    if (n[k] == 0)
      continue;
    for (size_t i = 0; i < n[k]; i++) /* onto the host's clock, from the call's start */
      s[k][i].start = 1e3 * (s[k][i].start + offset - host0),
      s[k][i].end = 1e3 * (s[k][i].end + offset - host0);
    qsort(s[k], n[k], sizeof *s[k], by_start);
    double last = s[k][0].end;
    for (size_t i = 1; i < n[k]; i++)
      last = s[k][i].end > last ? s[k][i].end : last;
    append(line, sizeof line, &used, " %zu %s %.2f to %.2f (busy %.2f);", n[k], kind_name[k],
           s[k][0].start, last, busy(s[k], n[k]));
  }
  append(line, sizeof line, &used, " the call %.2f", 1e3 * seconds);
  hop_log(1, "%s", have_offset ? line : "opencl timeline: no profiling times (the queues keep none)");
  if (have_offset && s[1] != NULL && n[1] > 0) {
    used = 0;
    append(line, sizeof line, &used, "opencl timeline: kernels (start-end):");
    for (size_t i = 0; i < n[1]; i++)
      append(line, sizeof line, &used, " %.2f-%.2f", s[1][i].start, s[1][i].end);
    hop_log(1, "%s", line);
  }
  for (int k = 0; k < KINDS; k++)
    free(s[k]);
  for (size_t i = 0; i < tl->n; i++)
    clReleaseEvent(tl->e[i].ev);
  free(tl->e);
  *tl = (struct hop_ocl_timeline){0};
}
