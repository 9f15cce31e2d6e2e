/* The search (tune.h): every candidate of the family's space is built,
 * checked against the CPU reference (a fast wrong kernel never wins) and
 * timed with profiling events on resident operands.  A timed interval
 * holds enough launches to last 1 ms and 1000 ticks of the device's timer
 * (1 us on NVIDIA's), and the best of three such intervals counts.  The
 * default is measured first, whatever the budget, so every result has its
 * gain; the budget stops the search from starting a new candidate once one
 * has been right (until then it goes on: a result must be correct).
 *
 * Candidates are built from source here, not through program.c, so the
 * program-binary cache keeps only what calls use. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

enum { MAX_CANDIDATES = 128 };

struct search {
  struct hop_ocl_state *st;
  const struct hop_tune_space *sp;
  const struct hop_tune_opts *o;
  struct hop_tune_result *r;
  struct hop_tune_bench b;
  double deadline, t0, min_interval, best_s;
  struct hop_tune_point seen[MAX_CANDIDATES];
  int nseen, checked;
  bool have_prog;               /* st->prog is built with `built`'s compiled-in parameters */
  struct hop_tune_point built;
};

/* ---- one candidate ------------------------------------------------------------ */

static cl_int build(struct search *s, const struct hop_tune_point *p, char *why, size_t len)
{
  struct hop_ocl_state *st = s->st;
  const struct hop_ocl_family *f = st->family;
  const struct hop_ocl_device *d = hop_ocl_device(st);
  s->sp->set(st, p);
  char *src = hop_ocl_family_source(f, why, len), options[512];
  if (src == NULL)
    return CL_OUT_OF_HOST_MEMORY;
  f->options(st, &st->params, options, sizeof options);
  cl_int err;
  struct hop_ocl_program *pr = &st->prog;
  *pr = (struct hop_ocl_program){.tried = true, .status = HOP_OK, .params = st->params};
  pr->program = clCreateProgramWithSource(st->ctx, 1, (const char **)&src, NULL, &err);
  free(src);
  if (err == CL_SUCCESS)
    err = clBuildProgram(pr->program, 1, &d->id, options, NULL, NULL);
  size_t items = f->group_items(pr);
  for (int k = 0; k < HOP_OCL_KERNELS && err == CL_SUCCESS; k++) {
    size_t wg = 0;
    if (hop_ocl_kernel_fp64((enum hop_ocl_kernel)k) || f->kernel_name(k) == NULL)
      continue; /* a candidate is timed in float; the double program is built apart */
    pr->kernel[k] = clCreateKernel(pr->program, f->kernel_name(k), &err);
    if (err == CL_SUCCESS)
      err = clGetKernelWorkGroupInfo(pr->kernel[k], d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                     &wg, NULL);
    if (err == CL_SUCCESS && wg < items) {
      snprintf(why, len, "the build runs %zu work-items per group, %zu asked", wg, items);
      return CL_INVALID_WORK_GROUP_SIZE;
    }
  }
  if (err != CL_SUCCESS)
    snprintf(why, len, "build failed (error %d)", (int)err);
  return err;
}

/* Seconds per launch: reps launches back to back between the first's start
 * and the last's end, reps doubled until the interval is long enough. */
static double timed(struct search *s, int *reps)
{
  struct hop_ocl_launch l = hop_tune_bench_main(&s->b);
  for (;;) {
    cl_event first = NULL, last = NULL;
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < *reps && err == CL_SUCCESS; i++) {
      cl_event ev = NULL;
      err = s->sp->launch(s->st, &s->b, &l, &ev);
      if (first == NULL)
        first = ev;
      else if (last != NULL)
        clReleaseEvent(last);
      if (ev != first)
        last = ev;
    }
    cl_ulong t0 = 0, t1 = 0;
    if (err == CL_SUCCESS)
      err = clWaitForEvents(1, last ? &last : &first);
    if (err == CL_SUCCESS)
      err = clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    if (err == CL_SUCCESS)
      err = clGetEventProfilingInfo(last ? last : first, CL_PROFILING_COMMAND_END, sizeof t1, &t1,
                                    NULL);
    if (first != NULL)
      clReleaseEvent(first);
    if (last != NULL)
      clReleaseEvent(last);
    if (err != CL_SUCCESS || t1 <= t0)
      return -1.0;
    double sec = 1e-9 * (double)(t1 - t0);
    if (sec >= s->min_interval || *reps >= (1 << 16) || hop_now() > s->deadline)
      return sec / *reps;
    *reps *= sec > 0 ? (int)fmin(64.0, ceil(1.25 * s->min_interval / sec)) : 2;
    if (*reps < 2)
      *reps = 2;
  }
}

static bool already_seen(struct search *s, const struct hop_tune_point *p)
{
  for (int i = 0; i < s->nseen; i++)
    if (hop_tune_point_equal(&s->seen[i], p))
      return true;
  if (s->nseen < MAX_CANDIDATES)
    s->seen[s->nseen++] = *p;
  return false;
}

/* Does the program built for `built` serve p (what differs applies at launch)? */
static bool same_build(const struct search *s, const struct hop_tune_point *p)
{
  if (!s->have_prog)
    return false;
  for (int i = 0; s->sp->names[i] != NULL; i++)
    if ((s->sp->rebuild >> i & 1u) && s->built.v[i] != p->v[i])
      return false;
  return true;
}

static void drop_program(struct search *s)
{
  hop_ocl_program_release(&s->st->prog);
  s->have_prog = false;
}

/* Build p's program, unless the one built already serves it. */
static cl_int prepare(struct search *s, const struct hop_tune_point *p, char *why, size_t len)
{
  if (same_build(s, p)) {
    s->sp->set(s->st, p);
    return CL_SUCCESS;
  }
  drop_program(s);
  cl_int err = build(s, p, why, len);
  if (err != CL_SUCCESS) {
    drop_program(s);
    return err;
  }
  s->have_prog = true;
  s->built = *p;
  return CL_SUCCESS;
}

/* Measure p; its seconds per launch, or < 0 when it was refused. */
static double measure(struct search *s, const struct hop_tune_point *p)
{
  char why[160] = "";
  double sec = -1.0;
  const char *bad = NULL;
  if (!s->sp->fits(s->st, p, why, sizeof why))
    bad = why;
  else if (prepare(s, p, why, sizeof why) != CL_SUCCESS)
    bad = why;
  else if ((bad = hop_tune_bench_check(s->st, s->sp, &s->b, s->o->wrong_at == ++s->checked)) ==
           NULL) {
    int reps = 1;
    sec = timed(s, &reps);
    for (int i = 0; i < 2 && sec > 0 && sec < 2.0 * s->best_s && hop_now() < s->deadline; i++) {
      double again = timed(s, &reps);
      sec = again > 0 && again < sec ? again : sec;
    }
    if (sec <= 0)
      bad = "the timing events failed";
  }
  s->r->tried++;
  if (s->o->progress != NULL)
    s->o->progress(s->r->tried, hop_now() - s->t0, s->o->budget_s, s->o->arg);
  char text[200];
  hop_tune_point_format(s->sp, p, text, sizeof text);
  if (bad != NULL) {
    s->r->rejected++;
    hop_log(2, "tune: n=%d candidate %d %s refused: %s", s->b.n, s->r->tried, text, bad);
    return -1.0;
  }
  hop_log(3, "tune: n=%d candidate %d %s %.3f ms, %.2f GFLOPS", s->b.n, s->r->tried, text,
          sec * 1e3, 2e-9 * pow(s->b.n, 3) / sec);
  return sec;
}

/* The test problem, and a profiling queue in place of the kernel queue. */
static bool setup(struct search *s, int n, cl_command_queue *saved)
{
  struct hop_ocl_state *st = s->st;
  const struct hop_ocl_device *d = hop_ocl_device(st);
  cl_int err = CL_SUCCESS;
  if (!hop_tune_bench_open(st, n, &s->b, s->r->why, sizeof s->r->why))
    return false;
  cl_command_queue q = clCreateCommandQueue(st->ctx, d->id, CL_QUEUE_PROFILING_ENABLE, &err);
  if (q == NULL) {
    snprintf(s->r->why, sizeof s->r->why, "no profiling queue (error %d)", (int)err);
    return false;
  }
  *saved = st->q[HOP_OCL_Q_EXEC];
  st->q[HOP_OCL_Q_EXEC] = q;
  size_t res_ns = 0;
  clGetDeviceInfo(d->id, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof res_ns, &res_ns, NULL);
  s->min_interval = fmax(1e-3, 1000.0 * 1e-9 * (double)res_ns);
  return true;
}

static void teardown(struct search *s, cl_command_queue saved)
{
  struct hop_ocl_state *st = s->st;
  if (saved != NULL) {
    clFinish(st->q[HOP_OCL_Q_EXEC]);
    clReleaseCommandQueue(st->q[HOP_OCL_Q_EXEC]);
    st->q[HOP_OCL_Q_EXEC] = saved;
  }
  hop_tune_bench_close(&s->b);
}

/* CL_KERNEL_WORK_GROUP_SIZE of the sgemm kernel built with p, within the device's limit. */
static size_t kernel_group_limit(struct search *s, const struct hop_tune_point *p)
{
  char why[160];
  size_t wg = 0, dev = hop_ocl_device(s->st)->max_wg;
  if (prepare(s, p, why, sizeof why) == CL_SUCCESS)
    clGetKernelWorkGroupInfo(s->st->prog.kernel[HOP_OCL_SGEMM], hop_ocl_device(s->st)->id,
                             CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
  return wg > 0 && wg < dev ? wg : dev;
}

static void search(struct search *s)
{
  struct hop_tune_result *r = s->r;
  struct hop_tune_point cands[MAX_CANDIDATES];
  already_seen(s, &r->dflt);
  s->best_s = INFINITY;
  double t = measure(s, &r->dflt);
  s->best_s = t > 0 ? t : INFINITY;
  r->dflt_gflops = t > 0 ? 2e-9 * pow(s->b.n, 3) / t : 0.0;
  r->best = r->dflt;
  size_t kwg = kernel_group_limit(s, &r->dflt);
  for (int stage = 0; s->sp->stage(s->st, stage, &r->dflt, s->b.n, kwg, cands, 1) > 0; stage++)
    r->stages = stage + 1;
  for (int stage = 0; stage < r->stages; stage++) {
    size_t count = s->sp->stage(s->st, stage, &r->best, s->b.n, kwg, cands, MAX_CANDIDATES);
    for (size_t i = 0; i < count; i++) {
      if (already_seen(s, &cands[i]))
        continue;
      if (hop_now() >= s->deadline && s->best_s < INFINITY) { /* go on until one is right */
        r->budget_hit = true;
        return;
      }
      t = measure(s, &cands[i]);
      if (t > 0 && t < s->best_s)
        s->best_s = t, r->best = cands[i];
    }
    r->stages_done = stage + 1;
  }
}

bool hop_ocl_tune_run(struct hop_ocl_state *st, const struct hop_tune_opts *o,
                      struct hop_tune_result *r)
{
  *r = (struct hop_tune_result){.budget_s = o->budget_s};
  struct search s = {.st = st, .sp = hop_tune_space_of(st->family), .o = o, .r = r};
  if (s.sp == NULL) {
    snprintf(r->why, sizeof r->why, "the %s family has no parameter space", st->family->name);
    return false;
  }
  char note[160];
  hop_ocl_tune_default(st, &r->dflt, note, sizeof note);
  /* The engine's program and parameters, put back afterwards; the search
   * builds and releases only its own programs in st->prog. */
  struct hop_ocl_program saved_prog = st->prog;
  st->prog = (struct hop_ocl_program){0};
  struct hop_tune_point saved_point;
  s.sp->get(st, &saved_point);
  cl_command_queue saved_q = NULL;
  s.t0 = hop_now();
  s.deadline = s.t0 + o->budget_s;
  double flops = 2.0 * pow(o->n, 3);
  if (setup(&s, o->n, &saved_q)) {
    search(&s);
    drop_program(&s);
    if (s.best_s < INFINITY) {
      r->best_gflops = flops / s.best_s * 1e-9;
    } else {
      snprintf(r->why, sizeof r->why, "no candidate computed correctly (%d refused)", r->rejected);
    }
  }
  teardown(&s, saved_q);
  st->prog = saved_prog;
  s.sp->set(st, &saved_point);
  r->spent_s = hop_now() - s.t0;
  return r->why[0] == '\0';
}
