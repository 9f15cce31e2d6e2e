/* The benchmark's operands, its reference and its clock.  The reference
 * is the contract's (doc/CONTRACT.md): C_ref in double, and an element is
 * right when |C - C_ref| <= 2 (k + 2) eps (|alpha| (|A||B|)_ij + |beta C0_ij|),
 * eps the dtype's accumulation (core/dtype.c), the half of a value within
 * that for hgemm; complex parts each, with |x| taken as |re| + |im|.  At n = 8192 a full double
 * reference would take longer than the benchmark, so corners, edges and
 * random elements of C are checked (the same elements for every engine). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "hop.h"

enum { SAMPLES = 512 };

const enum hop_dtype bench_dtypes[] = {HOP_DTYPE_S, HOP_DTYPE_D, HOP_DTYPE_C,
                                       HOP_DTYPE_Z, HOP_DTYPE_H, HOP_DTYPE_SH};
const size_t bench_dtype_count = sizeof bench_dtypes / sizeof bench_dtypes[0];

double bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: the same operands in every child. */
static uint64_t next(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static float uniform(uint64_t *s) { return (float)((double)(next(s) >> 11) * 0x1p-52 - 1.0); }

/* Values of float's precision in every dtype (half's for half operands),
 * so that s and d, c and z see the same numbers. */
static void fill(void *x, size_t n, enum hop_dtype dt, bool is_c, uint64_t seed)
{
  bool cplx = hop_dtype_info(dt)->is_complex;
  for (size_t i = 0; i < n; i++) {
    struct hop_scalar v = {uniform(&seed), 0.0};
    if (cplx)
      v.im = uniform(&seed);
    if (dt == HOP_DTYPE_SH && !is_c) /* sh: half A and B, float C */
      ((uint16_t *)x)[i] = hop_float_to_half((float)v.re);
    else
      hop_dtype_store(dt, x, i, v);
  }
}

bool bench_data_make(struct bench_data *d, const struct bench_case *c)
{
  memset(d, 0, sizeof *d);
  d->cs = *c;
  size_t eab = hop_dtype_ab_size(c->dtype), ec = hop_dtype_c_size(c->dtype);
  d->a_elems = (size_t)c->m * (size_t)c->k;
  d->b_elems = (size_t)c->k * (size_t)c->n;
  d->c_elems = (size_t)c->m * (size_t)c->n;
  d->a = malloc(d->a_elems * eab);
  d->b = malloc(d->b_elems * eab);
  d->c0 = malloc(d->c_elems * ec);
  d->c = malloc(d->c_elems * ec);
  if (d->a == NULL || d->b == NULL || d->c0 == NULL || d->c == NULL) {
    bench_data_free(d);
    return false;
  }
  fill(d->a, d->a_elems, c->dtype, false, 1);
  fill(d->b, d->b_elems, c->dtype, false, 2);
  fill(d->c0, d->c_elems, c->dtype, true, 3);
  bench_data_reset_c(d);
  return true;
}

void bench_data_free(struct bench_data *d)
{
  free(d->a), free(d->b), free(d->c0), free(d->c);
  d->a = d->b = d->c0 = d->c = NULL;
}

void bench_data_reset_c(struct bench_data *d)
{
  memcpy(d->c, d->c0, d->c_elems * hop_dtype_c_size(d->cs.dtype));
}

static double magnitude(struct hop_scalar x) { return fabs(x.re) + fabs(x.im); }

/* Element (i, j) of C against the double reference. */
static void check_one(const struct bench_data *d, const void *c, int i, int j, double *err,
                      bool *within)
{
  const struct bench_case *bc = &d->cs;
  enum hop_dtype dt = bc->dtype;
  struct hop_scalar s = {0.0, 0.0};
  double sa = 0.0;
  for (int l = 0; l < bc->k; l++) {
    struct hop_scalar a = hop_dtype_load(dt, false, d->a, bc->ta ? hop_at(l, i, bc->k)
                                                                 : hop_at(i, l, bc->m));
    struct hop_scalar b = hop_dtype_load(dt, false, d->b, bc->tb ? hop_at(j, l, bc->n)
                                                                 : hop_at(l, j, bc->k));
    s.re += a.re * b.re - a.im * b.im;
    s.im += a.re * b.im + a.im * b.re;
    sa += magnitude(a) * magnitude(b);
  }
  struct hop_scalar c0 = hop_dtype_load(dt, true, d->c0, hop_at(i, j, bc->m));
  double beta = bc->beta != 0.0f ? bc->beta : 0.0; /* beta == 0: C0 is not read */
  struct hop_scalar ref = {bc->alpha * s.re + beta * c0.re, bc->alpha * s.im + beta * c0.im};
  double scale = fabs(bc->alpha) * sa + fabs(beta) * magnitude(c0);
  double bound = 2.0 * (bc->k + 2) * hop_dtype_info(dt)->eps * scale;
  struct hop_scalar got = hop_dtype_load(dt, true, c, hop_at(i, j, bc->m));
  bool ok;
  if (dt == HOP_DTYPE_H)
    ok = got.re >= hop_half_to_float(hop_float_to_half((float)(ref.re - bound))) &&
         got.re <= hop_half_to_float(hop_float_to_half((float)(ref.re + bound)));
  else
    ok = fabs(got.re - ref.re) <= bound && fabs(got.im - ref.im) <= bound;
  double diff = fmax(fabs(got.re - ref.re), fabs(got.im - ref.im));
  double e = scale > 0.0 ? diff / scale : diff;
  if (!(e <= *err)) /* NaN counts as the largest error */
    *err = isnan(e) ? INFINITY : e;
  *within = *within && ok;
}

void bench_check(const struct bench_data *d, const void *c, struct bench_result *r)
{
  const struct bench_case *bc = &d->cs;
  uint64_t seed = 42;
  r->max_err = 0.0;
  r->within = true;
  int corners[4][2] = {{0, 0}, {bc->m - 1, 0}, {0, bc->n - 1}, {bc->m - 1, bc->n - 1}};
  for (int s = 0; s < 4; s++)
    check_one(d, c, corners[s][0], corners[s][1], &r->max_err, &r->within);
  for (int s = 0; s < SAMPLES; s++)
    check_one(d, c, (int)(next(&seed) % (uint64_t)bc->m), (int)(next(&seed) % (uint64_t)bc->n),
              &r->max_err, &r->within);
}

static int by_value(const void *pa, const void *pb)
{
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

bool bench_time(bool (*fn)(void *), void *arg, const struct bench_opts *o, struct bench_result *r)
{
  double times[64];
  double total = 0.0;
  int n = 0;
  int max = o->max_reps < 64 ? o->max_reps : 64;
  while (n < max && (n < 2 || total < o->min_time)) {
    double t0 = bench_now();
    if (!fn(arg))
      return false;
    times[n] = bench_now() - t0;
    total += times[n++];
  }
  qsort(times, (size_t)n, sizeof times[0], by_value);
  r->seconds = o->best ? times[0] : times[n / 2];
  r->reps = n;
  return true;
}
