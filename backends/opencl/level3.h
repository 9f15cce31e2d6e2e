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
/* Rows (left) or columns (right) per slab of trmm and trsm: HOPBLAS_OPENCL_L3_BLOCK, else 128. */
int64_t hop_ocl_l3_block(void);
/* Complex trsm's block (rows or columns) for a triangle of order k, its
 * operands resident (level3_ctrsm.c) or not (level3_complex.c). */
int64_t hop_ocl_complex_trsm_block(int64_t k, bool resident);
/* Complex trsm with R and T resident (level3_ctrsm.c): B written once, at
 * the end, else untouched; steps gets the GEMMs run and the blocks solved
 * on the host.  Declined by the image families and where it does not fit. */
enum hop_status hop_ocl_complex_trsm(struct hop_ocl_state *st, const struct hop_call *g, int *steps);
/* trmm and trsm on resident operands (level3_tri.c). */
enum hop_status hop_ocl_triangular(struct hop_ocl_state *st, const struct hop_call *g,
                                   hop_ocl_run_fn run);
/* trsm's slab programs, when the library is unloaded. */
void hop_ocl_triangular_release(struct hop_ocl_state *st);
/* Predicted seconds of such a call, from gemm's prediction of the GEMMs it runs. */
double hop_ocl_level3_predict(const struct hop_ocl_state *st, const struct hop_call *g,
                              double (*gemm)(void *st, const struct hop_call *g));

#endif
