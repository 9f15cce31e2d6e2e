/* Built-in reference dgemm, cgemm and zgemm, for when the loaded BLAS lacks
 * them (or none loads): correct, not fast.  Complex sums are formed in
 * double complex for c and z alike (complex float gains accuracy). */
#include <complex.h>
#include <stdlib.h>

#include "cpu.h"

static double complex load(const struct hop_call *g, const void *x, size_t at, bool conj_it)
{
  struct hop_scalar v = hop_dtype_load(g->dtype, false, x, at);
  return hop_cpu_complex(v.re, conj_it ? -v.im : v.im);
}

/* op(A)(i, l) and op(B)(l, j) of the caller, conjugated as asked. */
static double complex op_a(const struct hop_call *g, int64_t i, int64_t l)
{
  size_t at = hop_transposed(g->ta) ? hop_at(l, i, g->lda) : hop_at(i, l, g->lda);
  return load(g, g->a, at, hop_conjugated(g->ta));
}

static double complex op_b(const struct hop_call *g, int64_t l, int64_t j)
{
  size_t at = hop_transposed(g->tb) ? hop_at(j, l, g->ldb) : hop_at(l, j, g->ldb);
  return load(g, g->b, at, hop_conjugated(g->tb));
}

static void store(const struct hop_call *g, int64_t i, int64_t j, double complex v)
{
  hop_dtype_store(g->dtype, g->c, hop_at(i, j, g->ldc), (struct hop_scalar){creal(v), cimag(v)});
}

/* dgemm in plain doubles: complex arithmetic on (x, 0) would turn an
 * infinite product into NaN through 0 * Inf in the imaginary part. */
static void ref_dgemm(const struct hop_call *g)
{
  bool beta_zero = g->beta.re == 0.0;
  for (int64_t j = 0; j < g->n; j++)
    for (int64_t i = 0; i < g->m; i++) {
      double s = 0.0;
      for (int64_t l = 0; l < g->k; l++)
        s += creal(op_a(g, i, l)) * creal(op_b(g, l, j));
      double *c = (double *)g->c + hop_at(i, j, g->ldc);
      *c = g->alpha.re * s + (beta_zero ? 0.0 : g->beta.re * *c);
    }
}

void hop_ref_gemm_wide(const struct hop_call *g)
{
  if (!hop_dtype_info(g->dtype)->is_complex) {
    ref_dgemm(g);
    return;
  }
  double complex alpha = hop_cpu_complex(g->alpha.re, g->alpha.im);
  double complex beta = hop_cpu_complex(g->beta.re, g->beta.im);
  bool beta_zero = hop_scalar_is_zero(g->beta); /* C is write-only: NaN there must not propagate */
  double complex *sum = malloc(sizeof *sum * (size_t)(g->m > 0 ? g->m : 1));
  for (int64_t j = 0; j < g->n; j++) {
    if (sum != NULL) { /* axpy order: unit stride over op(A)'s columns when A is not transposed */
      for (int64_t i = 0; i < g->m; i++)
        sum[i] = 0.0;
      for (int64_t l = 0; l < g->k; l++) {
        double complex b = op_b(g, l, j);
        for (int64_t i = 0; i < g->m; i++)
          sum[i] += op_a(g, i, l) * b;
      }
    }
    for (int64_t i = 0; i < g->m; i++) {
      double complex s = 0.0;
      if (sum != NULL)
        s = sum[i];
      else /* no memory even for one column: dot products */
        for (int64_t l = 0; l < g->k; l++)
          s += op_a(g, i, l) * op_b(g, l, j);
      double complex c = beta_zero ? 0.0 : beta * load(g, g->c, hop_at(i, j, g->ldc), false);
      store(g, i, j, alpha * s + c);
    }
  }
  free(sum);
}
