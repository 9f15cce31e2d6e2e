/* Shared test pieces; see testutil.h (numbers: testutil_num.c, the
 * precisions and the call itself: testutil_dtype.c). */
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- guarded matrices -------------------------------------------------------- */

static size_t part_size(const struct ht_mat *x) { return x->cplx ? x->esize / 2 : x->esize; }

/* One part from its bits as a half or a float (doubles: that float's value). */
static void put_bits(unsigned char *p, size_t psize, uint32_t bits)
{
  float f;
  if (psize == 2)
    memcpy(p, &(uint16_t){(uint16_t)bits}, 2);
  else if (psize == 4)
    memcpy(p, &bits, 4);
  else
    memcpy(&f, &bits, 4), memcpy(p, &(double){f}, 8);
}

static double get_value(const unsigned char *p, size_t psize)
{
  uint16_t h;
  float f;
  double d;
  if (psize == 2)
    return memcpy(&h, p, 2), ht_half_to_double(h);
  if (psize == 4)
    return memcpy(&f, p, 4), f;
  return memcpy(&d, p, 8), d;
}

static void put_value(unsigned char *p, size_t psize, double v)
{
  if (psize == 2)
    memcpy(p, &(uint16_t){ht_half_bits(v)}, 2);
  else if (psize == 4)
    memcpy(p, &(float){(float)v}, 4);
  else
    memcpy(p, &v, 8);
}

bool ht_mat_alloc(struct ht_mat *x, int rows, int cols, int ld, bool row_major, size_t esize,
                  bool cplx, int offset, uint32_t fill, bool fence)
{
  memset(x, 0, sizeof *x);
  x->rows = rows, x->cols = cols, x->ld = ld, x->row_major = row_major, x->esize = esize;
  x->cplx = cplx;
  int inner = row_major ? cols : rows, outer = row_major ? rows : cols;
  size_t need = rows == 0 || cols == 0 ? 0 : (size_t)ld * (size_t)(outer - 1) + (size_t)inner;
  x->cells = HT_GUARD + (size_t)offset + need + (fence ? 0 : HT_GUARD);
  size_t bytes = x->cells * esize;
  if (fence) {
    /* The matrix ends where an inaccessible page begins. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (bytes + page - 1) / page * page + page;
    void *base = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base != MAP_FAILED) {
      x->map = base, x->map_len = span;
      if (mprotect((char *)base + span - page, page, PROT_NONE) == 0)
        x->buf = (unsigned char *)base + span - page - bytes;
    }
  } else {
    x->buf = malloc(bytes);
  }
  x->saved = malloc(bytes);
  if (x->buf == NULL || x->saved == NULL) {
    ht_mat_free(x);
    return false;
  }
  size_t psize = part_size(x);
  for (size_t i = 0; i < x->cells * esize / psize; i++)
    put_bits(x->buf + psize * i, psize, fill);
  x->p = x->buf + (HT_GUARD + (size_t)offset) * esize;
  return true;
}

void ht_mat_free(struct ht_mat *x)
{
  if (x->map != NULL)
    munmap(x->map, x->map_len);
  else
    free(x->buf);
  free(x->saved);
  x->buf = x->saved = NULL;
  x->map = NULL;
}

size_t ht_mat_index(const struct ht_mat *x, int i, int j)
{
  size_t base = (size_t)((unsigned char *)x->p - x->buf) / x->esize;
  return base + (x->row_major ? (size_t)i * x->ld + j : (size_t)j * x->ld + i);
}

double ht_mat_get_part(const struct ht_mat *x, const unsigned char *base, int i, int j, int part)
{
  size_t psize = part_size(x);
  return get_value(base + ht_mat_index(x, i, j) * x->esize + (size_t)part * psize, psize);
}

double ht_mat_get(const struct ht_mat *x, const unsigned char *base, int i, int j)
{
  return ht_mat_get_part(x, base, i, j, 0);
}

void ht_mat_set_part(struct ht_mat *x, int i, int j, int part, double v)
{
  size_t psize = part_size(x);
  put_value(x->buf + ht_mat_index(x, i, j) * x->esize + (size_t)part * psize, psize, v);
}

void ht_mat_set(struct ht_mat *x, int i, int j, double v)
{
  ht_mat_set_part(x, i, j, 0, v);
  if (x->cplx)
    ht_mat_set_part(x, i, j, 1, 0.0);
}

void ht_mat_set_bits(struct ht_mat *x, int i, int j, uint32_t bits)
{
  size_t psize = part_size(x);
  for (size_t p = 0; p < x->esize / psize; p++)
    put_bits(x->buf + ht_mat_index(x, i, j) * x->esize + p * psize, psize, bits);
}

void ht_mat_save(struct ht_mat *x) { memcpy(x->saved, x->buf, x->cells * x->esize); }

bool ht_mat_unchanged(const struct ht_mat *x, size_t *where)
{
  for (size_t i = 0; i < x->cells; i++)
    if (memcmp(x->buf + i * x->esize, x->saved + i * x->esize, x->esize) != 0) {
      *where = i;
      return false;
    }
  return true;
}

/* ---- calls ------------------------------------------------------------------- */

bool ht_call_alloc(struct ht_call *c, const int pad[3], const int offset[3])
{
  bool rm = c->order == HT_ROW, cx = ht_dtypes[c->dtype].cplx;
  size_t ab = ht_dtypes[c->dtype].ab_size, ce = ht_dtypes[c->dtype].c_size;
  uint32_t nan_ab = ab == 2 ? HT_NAN_H : HT_NAN_F, sent = ce == 2 ? HT_SENTINEL_H : HT_SENTINEL_F;
  bool nta = c->ta == HT_N || c->ta == HT_CN, ntb = c->tb == HT_N || c->tb == HT_CN;
  int ar = nta ? c->m : c->k, ac = nta ? c->k : c->m;
  int br = ntb ? c->k : c->n, bc = ntb ? c->n : c->k;
  int lda = (rm ? (ac > 1 ? ac : 1) : (ar > 1 ? ar : 1)) + pad[0];
  int ldb = (rm ? (bc > 1 ? bc : 1) : (br > 1 ? br : 1)) + pad[1];
  int ldc = (rm ? (c->n > 1 ? c->n : 1) : (c->m > 1 ? c->m : 1)) + pad[2];
  memset(&c->a, 0, sizeof c->a), memset(&c->b, 0, sizeof c->b), memset(&c->c, 0, sizeof c->c);
  if (ht_mat_alloc(&c->a, ar, ac, lda, rm, ab, cx, offset[0], nan_ab, true) &&
      ht_mat_alloc(&c->b, br, bc, ldb, rm, ab, cx, offset[1], nan_ab, true) &&
      ht_mat_alloc(&c->c, c->m, c->n, ldc, rm, ce, cx, offset[2], sent, false))
    return true;
  ht_call_free(c);
  return false;
}

void ht_call_free(struct ht_call *c)
{
  ht_mat_free(&c->a), ht_mat_free(&c->b), ht_mat_free(&c->c);
}

/* Uniform in [-1, 1] in each part, halves rounded. */
static void fill_random(struct ht_mat *x, struct ht_rng *r, int i, int j)
{
  for (int p = 0; p < (x->cplx ? 2 : 1); p++) {
    double v = ht_rng_uniform(r, -1, 1);
    ht_mat_set_part(x, i, j, p, x->esize == 2 ? ht_round_half(v) : v);
  }
}

static void fill_operand(struct ht_mat *x, struct ht_rng *r, bool poison)
{
  for (int i = 0; i < x->rows; i++)
    for (int j = 0; j < x->cols; j++) {
      if (poison)
        ht_mat_set_bits(x, i, j, x->esize == 2 ? HT_NAN_H : HT_NAN_F);
      else
        fill_random(x, r, i, j);
    }
}

void ht_call_fill(struct ht_call *c, struct ht_rng *r)
{
  bool alpha0 = c->alpha == 0.0 && c->alpha_im == 0.0, beta0 = c->beta == 0.0 && c->beta_im == 0.0;
  fill_operand(&c->a, r, alpha0);
  fill_operand(&c->b, r, alpha0);
  for (int i = 0; i < c->m; i++)
    for (int j = 0; j < c->n; j++) {
      if (beta0) { /* write-only C: NaN and Inf must not come back */
        bool inf = (i + j) % 2;
        ht_mat_set_bits(&c->c, i, j, c->c.esize == 2 ? (inf ? 0xfc00u : HT_NAN_H) : (inf ? 0xff800000u : HT_NAN_F));
      } else {
        fill_random(&c->c, r, i, j);
      }
    }
}

void ht_call_run(struct ht_call *c)
{
  ht_mat_save(&c->a), ht_mat_save(&c->b), ht_mat_save(&c->c);
  ht_call_invoke(c);
}

/* op(X) as a dense array of (re, im) pairs: opa[2 (i*k + l) + part] =
 * op(A)(i, l), opbt[2 (j*k + l) + part] = op(B)(l, j); conj negates im. */
static double *dense_op(const struct ht_mat *x, bool trans, bool conj, int outer, int k)
{
  double *d = calloc((size_t)outer * (size_t)k * 2 + 2, sizeof(double));
  if (d == NULL)
    return NULL;
  for (int o = 0; o < outer; o++)
    for (int l = 0; l < k; l++) {
      int i = trans ? l : o, j = trans ? o : l;
      double *e = d + 2 * ((size_t)o * k + l);
      e[0] = ht_mat_get_part(x, x->saved, i, j, 0);
      if (x->cplx)
        e[1] = (conj ? -1.0 : 1.0) * ht_mat_get_part(x, x->saved, i, j, 1);
    }
  return d;
}

/* Gradual underflow: each operation may also be off by half the smallest
 * subnormal (2^-150 for float accumulation), in absolute terms (scaled by
 * alpha for those before it); a flush to zero is far outside this. */
double ht_bound_dt(enum ht_dtype dt, double tol, int k, double alpha, double abs_ab,
                   double beta_c0)
{
  return tol * (k + 2) *
         (ht_dtypes[dt].eps * (fabs(alpha) * abs_ab + fabs(beta_c0)) +
          (fabs(alpha) + 1.0) * ht_dtypes[dt].tiny);
}

double ht_bound(double tol, int k, double alpha, double abs_ab, double beta_c0)
{
  return ht_bound_dt(HT_S, tol, k, alpha, abs_ab, beta_c0);
}

/* One element against its reference; true when within the contract. */
bool ht_element_ok(enum ht_dtype dt, double got, double ref, double bound)
{
  if (isnan(ref))
    return isnan(got);
  if (isinf(ref))
    return got == ref;
  if (dt != HT_H)
    return fabs(got - ref) <= bound;
  /* Accumulated in float, rounded to half once: the half of any value
   * within the float bound is acceptable (rounding is monotone). */
  return got >= ht_round_half(ref - bound) && got <= ht_round_half(ref + bound);
}

/* C(i,j)'s reference (ref[0] + i ref[1]) in double, and its bound.  For d
 * and z the reference rounds about as much as the result may: the bound's
 * factor tol = 2 is the room for both. */
static void reference(const struct ht_call *c, const double *opa, const double *opbt, int i,
                      int j, double tol, double ref[2], double *bound, double c0[2])
{
  int k = c->k;
  bool cx = ht_dtypes[c->dtype].cplx, beta0 = c->beta == 0.0 && c->beta_im == 0.0;
  double sr = 0.0, si = 0.0, sa = 0.0;
  for (int l = 0; opa != NULL && l < k; l++) {
    const double *a = opa + 2 * ((size_t)i * k + l), *b = opbt + 2 * ((size_t)j * k + l);
    if (cx) {
      sr += a[0] * b[0] - a[1] * b[1];
      si += a[0] * b[1] + a[1] * b[0];
      sa += (fabs(a[0]) + fabs(a[1])) * (fabs(b[0]) + fabs(b[1]));
    } else {
      double p = a[0] * b[0];
      sr += p;
      sa += fabs(p);
    }
  }
  c0[0] = beta0 ? 0.0 : ht_mat_get_part(&c->c, c->c.saved, i, j, 0);
  c0[1] = beta0 || !cx ? 0.0 : ht_mat_get_part(&c->c, c->c.saved, i, j, 1);
  double ar = c->alpha, ai = c->alpha_im, br = c->beta, bi = c->beta_im;
  if (cx) {
    ref[0] = (opa != NULL ? ar * sr - ai * si : 0.0) + (beta0 ? 0.0 : br * c0[0] - bi * c0[1]);
    ref[1] = (opa != NULL ? ar * si + ai * sr : 0.0) + (beta0 ? 0.0 : br * c0[1] + bi * c0[0]);
  } else {
    ref[0] = (opa != NULL ? ar * sr : 0.0) + (beta0 ? 0.0 : br * c0[0]);
    ref[1] = 0.0;
  }
  double alpha_abs = fabs(c->alpha) + fabs(c->alpha_im);
  double beta_c0 = (fabs(c->beta) + fabs(c->beta_im)) * (fabs(c0[0]) + fabs(c0[1]));
  *bound = ht_bound_dt(c->dtype, tol, k, alpha_abs, sa, beta_c0);
}

static void note_bad(struct ht_bad *st, int i, double d)
{
  if (st->count == 0 || d < st->delta_min)
    st->delta_min = d;
  if (st->count == 0 || d > st->delta_max)
    st->delta_max = d;
  st->count++;
  st->max_row = i > st->max_row ? i : st->max_row;
}

/* Walk the m x n block against the reference; stop at the first bad
 * element unless st is given (then count them all).  The block cells of a
 * copy of C are reset from the snapshot, so that whatever differs after the
 * walk was written outside the block. */
static bool check_block(const struct ht_call *c, double tol, struct ht_bad *st, char *why,
                        size_t why_len)
{
  int m = c->m, n = c->n, k = c->k, parts = ht_dtypes[c->dtype].cplx ? 2 : 1;
  /* alpha == 0: A and B are not part of C */
  bool use_ab = (c->alpha != 0.0 || c->alpha_im != 0.0) && k > 0;
  bool ta = c->ta == HT_T || c->ta == HT_CT, tb = c->tb == HT_T || c->tb == HT_CT;
  double *opa = use_ab ? dense_op(&c->a, ta, c->ta == HT_CT || c->ta == HT_CN, m, k) : NULL;
  double *opbt = use_ab ? dense_op(&c->b, !tb, c->tb == HT_CT || c->tb == HT_CN, n, k) : NULL;
  unsigned char *merged = malloc(c->c.cells * c->c.esize);
  bool ok = merged != NULL && (!use_ab || (opa != NULL && opbt != NULL));
  if (!ok)
    snprintf(why, why_len, "test out of memory");
  else
    memcpy(merged, c->c.buf, c->c.cells * c->c.esize);
  bool walk = ok;
  for (int j = 0; walk && j < n; j++)
    for (int i = 0; walk && i < m; i++) {
      double ref[2], bound, c0[2];
      reference(c, opa, opbt, i, j, tol, ref, &bound, c0);
      for (int p = 0; walk && p < parts; p++) {
        double got = ht_mat_get_part(&c->c, c->c.buf, i, j, p);
        if (ht_element_ok(c->dtype, got, ref[p], bound))
          continue;
        if (ok)
          snprintf(why, why_len, "C(%d,%d)%s = %.17g, expected %.17g within %.3g (C0 %.17g)", i, j,
                   parts == 1 ? "" : p == 0 ? ".re" : ".im", got, ref[p],
                   c->dtype == HT_H ? bound + fabs(ref[p]) * 0x1p-11 : bound, c0[p]);
        ok = false;
        if (st != NULL)
          note_bad(st, i, got - ref[p]);
        walk = st != NULL;
      }
      size_t at = ht_mat_index(&c->c, i, j) * c->c.esize;
      memcpy(merged + at, c->c.saved + at, c->c.esize);
    }
  if (walk)
    for (size_t i = 0; i < c->c.cells; i++)
      if (memcmp(merged + i * c->c.esize, c->c.saved + i * c->c.esize, c->c.esize) != 0) {
        snprintf(why, why_len, "C buffer cell %zu outside the m x n block was written", i);
        ok = false;
        if (st != NULL)
          st->outside = true;
        break;
      }
  free(opa), free(opbt), free(merged);
  return ok;
}

static bool inputs_unchanged(const struct ht_call *c, char *why, size_t why_len)
{
  size_t where;
  if (!ht_mat_unchanged(&c->a, &where)) {
    snprintf(why, why_len, "A was written (buffer cell %zu)", where);
    return false;
  }
  if (!ht_mat_unchanged(&c->b, &where)) {
    snprintf(why, why_len, "B was written (buffer cell %zu)", where);
    return false;
  }
  return true;
}

bool ht_call_check(const struct ht_call *c, double tol, char *why, size_t why_len)
{
  return inputs_unchanged(c, why, why_len) && check_block(c, tol, NULL, why, why_len);
}

bool ht_call_bad(const struct ht_call *c, double tol, struct ht_bad *st, char *why, size_t why_len)
{
  memset(st, 0, sizeof *st);
  if (!inputs_unchanged(c, why, why_len)) {
    st->inputs_written = true;
    return false;
  }
  return check_block(c, tol, st, why, why_len);
}

void ht_call_describe(const struct ht_call *c, char *out, size_t len)
{
  static const char tn[] = "NTCR";
  size_t oa = (size_t)((unsigned char *)c->a.p - c->a.buf) / c->a.esize - HT_GUARD;
  size_t ob = (size_t)((unsigned char *)c->b.p - c->b.buf) / c->b.esize - HT_GUARD;
  size_t oc = (size_t)((unsigned char *)c->c.p - c->c.buf) / c->c.esize - HT_GUARD;
  char scalars[96];
  if (ht_dtypes[c->dtype].cplx)
    snprintf(scalars, sizeof scalars, "alpha=(%.9g,%.9g) beta=(%.9g,%.9g)", c->alpha, c->alpha_im,
             c->beta, c->beta_im);
  else
    snprintf(scalars, sizeof scalars, "alpha=%.9g beta=%.9g", c->alpha, c->beta);
  snprintf(out, len, "%s%s %s %c%c m=%d n=%d k=%d %s lda=%d ldb=%d ldc=%d offsets=%zu,%zu,%zu",
           ht_call_symbol(c), c->lower_case ? "(lower-case)" : "", c->order == HT_ROW ? "row" : "col",
           tn[c->ta - HT_N], tn[c->tb - HT_N], c->m, c->n, c->k, scalars, c->a.ld, c->b.ld, c->c.ld,
           oa, ob, oc);
}

/* ---- crashes ------------------------------------------------------------------ */

static char crash_note[600] = "(no call yet)";

static void on_crash(int sig)
{
  static const char head[] = "Bail out! crashed (signal ";
  char num[4] = {(char)('0' + sig / 10 % 10), (char)('0' + sig % 10), ')', ' '};
  ssize_t ignored = write(1, head, sizeof head - 1);
  ignored = write(1, num, sizeof num);
  ignored = write(1, crash_note, strlen(crash_note));
  ignored = write(1, "\n", 1);
  (void)ignored;
  _exit(128 + sig);
}

void ht_crash_guard(void)
{
  signal(SIGSEGV, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGFPE, on_crash);
}

void ht_crash_note(const struct ht_call *c)
{
  char d[sizeof crash_note - 16];
  ht_call_describe(c, d, sizeof d);
  ht_crash_note_text(d);
}

void ht_crash_note_text(const char *what)
{
  snprintf(crash_note, sizeof crash_note, "during %.*s", (int)sizeof crash_note - 16, what);
}

/* The CPU engine loads OpenBLAS with dlopen; nothing else in the test
 * programs does, so its presence in the address space tells which CPU
 * BLAS ran. */
bool ht_openblas_mapped(void)
{
  FILE *fp = fopen("/proc/self/maps", "r");
  char line[4096];
  bool found = false;
  while (fp != NULL && fgets(line, sizeof line, fp) != NULL)
    found = found || strstr(line, "libopenblas") != NULL;
  if (fp != NULL)
    fclose(fp);
  return found;
}
