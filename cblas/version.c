/* The version query (include/hopblas.h), defined once: the entry-point
 * files beside it are compiled twice (blas_int.h). */
#include "config.h"

#include "hop.h"
#include "hopblas.h"

HOP_EXPORT const char *hopblas_version(void) { return "hopblas " PACKAGE_VERSION; }
