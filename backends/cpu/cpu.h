/* The CPU engine's pieces: OpenBLAS (or the reference) for float, panels
 * converted from half for hgemm and shgemm. */
#ifndef HOP_CPU_H
#define HOP_CPU_H

#include "hop.h"

/* OpenBLAS's Fortran sgemm_, with gfortran's hidden string lengths. */
typedef hop_f77_sgemm_fn hop_sgemm_fn;

/* Owned by the engine's context slot; written once, in init. */
struct hop_cpu_state {
  void *handle;
  hop_sgemm_fn sgemm; /* NULL: the built-in reference */
  hop_cblas_sgemm_fn cblas_sgemm; /* for the fast path; may be NULL */
  char name[512];
  double peak_gflops;
};

extern const struct hop_backend hop_backend_cpu;

void hop_cpu_sgemm(const struct hop_cpu_state *st, bool ta, bool tb, int m, int n, int k,
                   float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                   float *c, int ldc);
void hop_ref_sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *a, int lda,
                   const float *b, int ldb, float beta, float *c, int ldc);

/* hgemm and shgemm through float panels (bounded memory). */
enum hop_status hop_cpu_half_gemm(const struct hop_cpu_state *st, const struct hop_gemm *g);
/* The same without any allocation, element by element: the last resort. */
void hop_cpu_half_gemm_unbuffered(const struct hop_cpu_state *st, const struct hop_gemm *g);

#endif
