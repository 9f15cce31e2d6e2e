/* Argument checks of the Level-3 routines other than GEMM (symm, hemm,
 * syrk, herk, syr2k, her2k, trmm, trsm), shared by the C and Fortran entry
 * points: OpenBLAS's numbering and order, which netlib's testers expect. */
#ifndef HOP_CHECK_L3_H
#define HOP_CHECK_L3_H

#include "blas_int.h"
#include "check.h"

/* A call as its entry point received it, its letters (Fortran) or
 * enumerators (CBLAS) read; for CBLAS, a row-major call already turned
 * into its column-major twin (hop_cblas_l3_read). */
struct hop_l3_args {
  enum hop_op op;
  enum hop_dtype dtype;
  int side, diag; /* 0 left, unit; 1 right, non-unit; -1 invalid */
  int uplo;       /* 1 upper, 0 lower, -1 invalid (hop_fortran_uplo, hop_cblas_uplo) */
  int trans;            /* an enum hop_trans, -1 invalid */
  int64_t m, n, k;      /* SYMM, HEMM, TRMM, TRSM: m, n; SYRK..HER2K: n, k */
  struct hop_scalar alpha, beta;
  const void *a, *b; /* TRMM, TRSM: b is their B, read and written */
  void *c;
  int64_t lda, ldb, ldc;
  bool row_major;
};

/* The routine's name as xerbla_ gets it: "SSYMM ", "CHER2K", ... */
void hop_l3_xname(enum hop_op op, enum hop_dtype dt, char out[8]);

/* Fortran letters; trans of SYRK..HER2K takes only what the routine takes
 * (real: N, T, C; complex symmetric: N, T; Hermitian: N, C). */
int hop_fortran_side(char c);
int hop_fortran_diag(char c);
int hop_fortran_rk_trans(char c, enum hop_op op, enum hop_dtype dt);

/* Read CBLAS enumerators into x (whose other fields are set), turning a
 * row-major call into the column-major one as OpenBLAS does (sides,
 * triangles and rank-k transposes swapped, m and n exchanged, her2k's
 * alpha conjugated).  Returns 0 for a bad order (xerbla's INFO), else -1. */
int hop_cblas_l3_read(struct hop_l3_args *x, int order, int side, int uplo, int trans, int diag);

/* Fortran INFO of the first bad argument, or 0. */
int hop_l3_check(const struct hop_l3_args *x);
/* netlib's quick return (C untouched): its reason for the trace, else NULL. */
const char *hop_l3_quick(const struct hop_l3_args *x);
/* The column-major call for core/. */
void hop_l3_call(const struct hop_l3_args *x, const char *symbol, struct hop_call *g);

/* The whole path after the letters are read: check (xerbla, the entry
 * file's HOP_XERBLA, and a trace row on error), quick return (a trace row),
 * core/.  t holds the caller's arguments for the unrouted trace rows. */
void hop_l3_run(void (*xerbla)(const char *name, int info), const struct hop_l3_args *x,
                const char *symbol, struct hop_trace_call *t);

/* CBLAS: hop_cblas_l3_read, then a bad order to xerbla (INFO 0), else hop_l3_run. */
void hop_cblas_l3_run(void (*xerbla)(const char *name, int info), struct hop_l3_args *x,
                      int order, int side, int uplo, int trans, int diag, const char *symbol,
                      struct hop_trace_call *t);

/* A scalar the routine takes as real (herk's alpha and beta, her2k's
 * beta) of a complex dtype, by pointer. */
struct hop_scalar hop_l3_real_scalar(enum hop_dtype dt, const void *p);


/* A scalar as CBLAS passes it: by value where it is real, else by pointer. */
#define HOP_BY_VALUE(dt, v) ((struct hop_scalar){(v), 0.0})
#define HOP_BY_POINTER(dt, p) hop_dtype_load(dt, true, p, 0)
/* As Fortran passes it, by pointer: of the dtype, or real (herk, her2k). */
#define HOP_BY_REF(dt, p) hop_dtype_load(dt, true, p, 0)
#define HOP_BY_REAL_REF(dt, p) hop_l3_real_scalar(dt, p)

#endif
