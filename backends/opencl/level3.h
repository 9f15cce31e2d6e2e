/* The OpenCL engine's Level-3 routines beside GEMM (level3.c,
 * level3_tri.c), built on its GEMM path (engine.c's run, handed in). */
#ifndef HOP_OCL_LEVEL3_H
#define HOP_OCL_LEVEL3_H

#include "ocl.h"

/* One GEMM or gemmt through the engine's whole path (parameters, program,
 * pipeline; complex as real GEMMs): C final, or untouched with an error status. */
typedef enum hop_status (*hop_ocl_run_fn)(void *st, const struct hop_call *g);

/* symm, syrk, syr2k, trmm, trsm in s and d; anything else is declined. */
enum hop_status hop_ocl_level3(struct hop_ocl_state *st, const struct hop_call *g,
                               hop_ocl_run_fn run);
/* The same routines and hemm, herk, her2k and gemmt in c and z, as complex
 * GEMMs through gemm (the real embedding's) and host steps (level3_complex.c). */
enum hop_status hop_ocl_level3_complex(struct hop_ocl_state *st, const struct hop_call *g,
                                       hop_ocl_run_fn gemm);
/* syr2k's operands P and Q side by side, scaled by sp and sq (1 for real
 * dtypes): [op(P) op(Q)] stored as op() of what is copied; malloc'd. */
void *hop_ocl_side_by_side(const struct hop_call *g, const void *p, int64_t ldp,
                           struct hop_scalar sp, const void *q, int64_t ldq, struct hop_scalar sq);
/* trmm and trsm on resident operands (level3_tri.c). */
enum hop_status hop_ocl_triangular(struct hop_ocl_state *st, const struct hop_call *g,
                                   hop_ocl_run_fn run);
/* trsm's slab programs, when the library is unloaded. */
void hop_ocl_triangular_release(struct hop_ocl_state *st);
/* Predicted seconds of such a call, from gemm's prediction of the GEMMs it runs. */
double hop_ocl_level3_predict(const struct hop_ocl_state *st, const struct hop_call *g,
                              double (*gemm)(void *st, const struct hop_call *g));

#endif
