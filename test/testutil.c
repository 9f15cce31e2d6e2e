/* Shared test pieces; see testutil.h (numbers: testutil_num.c). */
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

const char *ht_symbol(enum ht_dtype dt, enum ht_entry e)
{
  if (dt == HT_S)
    return e == HT_CBLAS ? "cblas_sgemm" : "sgemm_";
  if (dt == HT_H)
    return e == HT_CBLAS ? "cblas_hgemm" : "hgemm_";
  return e == HT_CBLAS ? "cblas_shgemm" : "(no Fortran shgemm)";
}

/* ---- guarded matrices -------------------------------------------------------- */

bool ht_mat_alloc(struct ht_mat *x, int rows, int cols, int ld, bool row_major, size_t esize,
                  int offset, uint32_t fill, bool fence)
{
  memset(x, 0, sizeof *x);
  x->rows = rows, x->cols = cols, x->ld = ld, x->row_major = row_major, x->esize = esize;
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
  for (size_t i = 0; i < x->cells; i++) {
    if (esize == 4)
      memcpy(x->buf + 4 * i, &fill, 4);
    else
      memcpy(x->buf + 2 * i, &(uint16_t){(uint16_t)fill}, 2);
  }
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

double ht_mat_get(const struct ht_mat *x, const unsigned char *base, int i, int j)
{
  size_t at = ht_mat_index(x, i, j);
  if (x->esize == 4) {
    float f;
    memcpy(&f, base + 4 * at, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, base + 2 * at, 2);
  return ht_half_to_double(h);
}

void ht_mat_set(struct ht_mat *x, int i, int j, double v)
{
  size_t at = ht_mat_index(x, i, j);
  if (x->esize == 4)
    memcpy(x->buf + 4 * at, &(float){(float)v}, 4);
  else
    memcpy(x->buf + 2 * at, &(uint16_t){ht_half_bits(v)}, 2);
}

void ht_mat_set_bits(struct ht_mat *x, int i, int j, uint32_t bits)
{
  size_t at = ht_mat_index(x, i, j);
  if (x->esize == 4)
    memcpy(x->buf + 4 * at, &bits, 4);
  else
    memcpy(x->buf + 2 * at, &(uint16_t){(uint16_t)bits}, 2);
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
  bool rm = c->order == HT_ROW;
  size_t ab = c->dtype == HT_S ? 4 : 2, ce = c->dtype == HT_H ? 2 : 4;
  uint32_t nan_ab = ab == 4 ? HT_NAN_F : HT_NAN_H, sent = ce == 4 ? HT_SENTINEL_F : HT_SENTINEL_H;
  int ar = c->ta == HT_N ? c->m : c->k, ac = c->ta == HT_N ? c->k : c->m;
  int br = c->tb == HT_N ? c->k : c->n, bc = c->tb == HT_N ? c->n : c->k;
  int lda = (rm ? (ac > 1 ? ac : 1) : (ar > 1 ? ar : 1)) + pad[0];
  int ldb = (rm ? (bc > 1 ? bc : 1) : (br > 1 ? br : 1)) + pad[1];
  int ldc = (rm ? (c->n > 1 ? c->n : 1) : (c->m > 1 ? c->m : 1)) + pad[2];
  memset(&c->a, 0, sizeof c->a), memset(&c->b, 0, sizeof c->b), memset(&c->c, 0, sizeof c->c);
  if (ht_mat_alloc(&c->a, ar, ac, lda, rm, ab, offset[0], nan_ab, true) &&
      ht_mat_alloc(&c->b, br, bc, ldb, rm, ab, offset[1], nan_ab, true) &&
      ht_mat_alloc(&c->c, c->m, c->n, ldc, rm, ce, offset[2], sent, false))
    return true;
  ht_call_free(c);
  return false;
}

void ht_call_free(struct ht_call *c)
{
  ht_mat_free(&c->a), ht_mat_free(&c->b), ht_mat_free(&c->c);
}

static void fill_operand(struct ht_mat *x, struct ht_rng *r, bool poison)
{
  for (int i = 0; i < x->rows; i++)
    for (int j = 0; j < x->cols; j++) {
      if (poison)
        ht_mat_set_bits(x, i, j, x->esize == 4 ? HT_NAN_F : HT_NAN_H);
      else
        ht_mat_set(x, i, j, x->esize == 4 ? ht_rng_uniform(r, -1, 1) : ht_round_half(ht_rng_uniform(r, -1, 1)));
    }
}

void ht_call_fill(struct ht_call *c, struct ht_rng *r)
{
  fill_operand(&c->a, r, c->alpha == 0.0);
  fill_operand(&c->b, r, c->alpha == 0.0);
  for (int i = 0; i < c->m; i++)
    for (int j = 0; j < c->n; j++) {
      if (c->beta == 0.0) { /* write-only C: NaN and Inf must not come back */
        bool inf = (i + j) % 2;
        ht_mat_set_bits(&c->c, i, j, c->c.esize == 4 ? (inf ? 0xff800000u : HT_NAN_F) : (inf ? 0xfc00u : HT_NAN_H));
      } else {
        double v = ht_rng_uniform(r, -1, 1);
        ht_mat_set(&c->c, i, j, c->c.esize == 2 ? ht_round_half(v) : v);
      }
    }
}

static char trans_char(int t, bool lower)
{
  char ch = t == HT_N ? 'N' : t == HT_T ? 'T' : 'C';
  return lower ? (char)(ch - 'A' + 'a') : ch;
}

void ht_call_run(struct ht_call *c)
{
  ht_mat_save(&c->a), ht_mat_save(&c->b), ht_mat_save(&c->c);
  ht_call_invoke(c);
}

void ht_call_invoke(const struct ht_call *c)
{
  int lda = c->a.ld, ldb = c->b.ld, ldc = c->c.ld;
  if (c->entry == HT_FORTRAN) {
    char ta = trans_char(c->ta, c->lower_case), tb = trans_char(c->tb, c->lower_case);
    if (c->dtype == HT_S) {
      float al = (float)c->alpha, be = (float)c->beta;
      (c->no_underscore ? sgemm : sgemm_)(&ta, &tb, &c->m, &c->n, &c->k, &al, c->a.p, &lda, c->b.p,
                                          &ldb, &be, c->c.p, &ldc);
    } else {
      hopblas_half al = ht_half_bits(c->alpha), be = ht_half_bits(c->beta);
      hgemm_(&ta, &tb, &c->m, &c->n, &c->k, &al, c->a.p, &lda, c->b.p, &ldb, &be, c->c.p, &ldc);
    }
    return;
  }
  if (c->dtype == HT_S)
    cblas_sgemm(c->order, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, c->a.p, lda, c->b.p,
                ldb, (float)c->beta, c->c.p, ldc);
  else if (c->dtype == HT_H)
    cblas_hgemm(c->order, c->ta, c->tb, c->m, c->n, c->k, ht_half_bits(c->alpha), c->a.p, lda,
                c->b.p, ldb, ht_half_bits(c->beta), c->c.p, ldc);
  else
    cblas_shgemm(c->order, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, c->a.p, lda, c->b.p,
                 ldb, (float)c->beta, c->c.p, ldc);
}

/* op(X) as a dense double array: opa[i*k + l] = op(A)(i, l), opbt[j*k + l] = op(B)(l, j). */
static double *dense_op(const struct ht_mat *x, bool trans, int outer, int k)
{
  double *d = malloc(sizeof(double) * ((size_t)outer * (size_t)k + 1));
  if (d == NULL)
    return NULL;
  for (int o = 0; o < outer; o++)
    for (int l = 0; l < k; l++)
      d[(size_t)o * k + l] = trans ? ht_mat_get(x, x->saved, l, o) : ht_mat_get(x, x->saved, o, l);
  return d;
}

/* Gradual underflow: each operation may also be off by half the smallest
 * subnormal, 2^-150, in absolute terms (scaled by alpha for those before
 * it); a flush to zero is far outside this. */
double ht_bound(double tol, int k, double alpha, double abs_ab, double beta_c0)
{
  return tol * (k + 2) *
         (FLT_EPSILON * (fabs(alpha) * abs_ab + fabs(beta_c0)) + (fabs(alpha) + 1.0) * 0x1p-150);
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

/* Walk the m x n block against the reference; stop at the first bad
 * element unless st is given (then count them all).  The block cells of a
 * copy of C are reset from the snapshot, so that whatever differs after the
 * walk was written outside the block. */
static bool check_block(const struct ht_call *c, double tol, struct ht_bad *st, char *why,
                        size_t why_len)
{
  int m = c->m, n = c->n, k = c->k;
  bool use_ab = c->alpha != 0.0 && k > 0; /* alpha == 0: A and B are not part of C */
  double *opa = use_ab ? dense_op(&c->a, c->ta != HT_N, m, k) : NULL;
  double *opbt = use_ab ? dense_op(&c->b, c->tb == HT_N, n, k) : NULL;
  unsigned char *merged = malloc(c->c.cells * c->c.esize);
  bool ok = merged != NULL && (!use_ab || (opa != NULL && opbt != NULL));
  if (!ok)
    snprintf(why, why_len, "test out of memory");
  else
    memcpy(merged, c->c.buf, c->c.cells * c->c.esize);
  bool walk = ok;
  for (int j = 0; walk && j < n; j++)
    for (int i = 0; walk && i < m; i++) {
      double s = 0.0, sa = 0.0;
      for (int l = 0; use_ab && l < k; l++) {
        double p = opa[(size_t)i * k + l] * opbt[(size_t)j * k + l];
        s += p;
        sa += fabs(p);
      }
      double c0 = c->beta != 0.0 ? ht_mat_get(&c->c, c->c.saved, i, j) : 0.0;
      double ref = (use_ab ? c->alpha * s : 0.0) + (c->beta != 0.0 ? c->beta * c0 : 0.0);
      double bound = ht_bound(tol, k, c->alpha, sa, c->beta * c0);
      double got = ht_mat_get(&c->c, c->c.buf, i, j);
      if (!ht_element_ok(c->dtype, got, ref, bound)) {
        if (ok)
          snprintf(why, why_len, "C(%d,%d) = %.9g, expected %.9g within %.3g (C0 %.9g)", i, j, got,
                   ref, c->dtype == HT_H ? bound + fabs(ref) * 0x1p-11 : bound, c0);
        ok = false;
        if (st != NULL) {
          double d = got - ref;
          if (st->count == 0 || d < st->delta_min)
            st->delta_min = d;
          if (st->count == 0 || d > st->delta_max)
            st->delta_max = d;
          st->count++;
          st->max_row = i > st->max_row ? i : st->max_row;
        }
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
  static const char tn[] = "NTC";
  size_t oa = (size_t)((unsigned char *)c->a.p - c->a.buf) / c->a.esize - HT_GUARD;
  size_t ob = (size_t)((unsigned char *)c->b.p - c->b.buf) / c->b.esize - HT_GUARD;
  size_t oc = (size_t)((unsigned char *)c->c.p - c->c.buf) / c->c.esize - HT_GUARD;
  snprintf(out, len,
           "%s%s %s %c%c m=%d n=%d k=%d alpha=%.9g beta=%.9g lda=%d ldb=%d ldc=%d offsets=%zu,%zu,%zu",
           c->entry == HT_FORTRAN && c->no_underscore ? "sgemm" : ht_symbol(c->dtype, c->entry),
           c->lower_case ? "(lower-case)" : "", c->order == HT_ROW ? "row" : "col",
           tn[c->ta - HT_N], tn[c->tb - HT_N], c->m, c->n, c->k, c->alpha, c->beta, c->a.ld,
           c->b.ld, c->c.ld, oa, ob, oc);
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
  snprintf(crash_note, sizeof crash_note, "during %s", d);
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
