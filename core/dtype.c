/* The one table of precisions, and element access by dtype for the code
 * that must read any of them (core's beta*C, verify, the subnormal check).
 * Every switch here lists each dtype with no default: a new one is a
 * compiler error until each is filled in. */
#include <float.h>

#include "hop.h"

const struct hop_dtype_info *hop_dtype_info(enum hop_dtype dt)
{
  /* Half products are formed and summed in float by every engine (and by
   * the contract), so h and sh carry float's epsilon; half C adds the final
   * rounding to half. */
  static const struct hop_dtype_info s = {"s", 4, 4, false, 2.0, FLT_EPSILON, 0.0, 0x1p-149},
                                     d = {"d", 8, 8, false, 2.0, DBL_EPSILON, 0.0, 0x1p-1074},
                                     c = {"c", 8, 8, true, 8.0, FLT_EPSILON, 0.0, 0x1p-149},
                                     z = {"z", 16, 16, true, 8.0, DBL_EPSILON, 0.0, 0x1p-1074},
                                     h = {"h", 2, 2, false, 2.0, FLT_EPSILON, 0x1p-10, 0x1p-149},
                                     sh = {"sh", 2, 4, false, 2.0, FLT_EPSILON, 0.0, 0x1p-149};
  switch (dt) {
  case HOP_DTYPE_S: return &s;
  case HOP_DTYPE_D: return &d;
  case HOP_DTYPE_C: return &c;
  case HOP_DTYPE_Z: return &z;
  case HOP_DTYPE_H: return &h;
  case HOP_DTYPE_SH: return &sh;
  case HOP_DTYPE_COUNT: break;
  }
  return &s; /* not a dtype: callers pass only the enumerators above */
}

size_t hop_dtype_ab_size(enum hop_dtype dt) { return hop_dtype_info(dt)->ab_size; }
size_t hop_dtype_c_size(enum hop_dtype dt) { return hop_dtype_info(dt)->c_size; }
const char *hop_dtype_name(enum hop_dtype dt) { return hop_dtype_info(dt)->name; }
enum hop_dtype hop_dtype_real(enum hop_dtype dt)
{
  return dt == HOP_DTYPE_Z ? HOP_DTYPE_D : dt == HOP_DTYPE_C ? HOP_DTYPE_S : dt;
}

const char *hop_op_name(enum hop_op op)
{
  switch (op) {
  case HOP_OP_GEMM: return "gemm";
  case HOP_OP_SYMM: return "symm";
  case HOP_OP_HEMM: return "hemm";
  case HOP_OP_SYRK: return "syrk";
  case HOP_OP_HERK: return "herk";
  case HOP_OP_SYR2K: return "syr2k";
  case HOP_OP_HER2K: return "her2k";
  case HOP_OP_TRMM: return "trmm";
  case HOP_OP_TRSM: return "trsm";
  case HOP_OP_GEMMT: return "gemmt";
  case HOP_OP_GEMM_BATCH: return "gemm_batch";
  case HOP_OP_COUNT: break;
  }
  return "?";
}

char hop_trans_letter(enum hop_trans t)
{
  switch (t) {
  case HOP_TRANS_N: return 'N';
  case HOP_TRANS_T: return 'T';
  case HOP_TRANS_R: return 'R';
  case HOP_TRANS_C: return 'C';
  }
  return 'N';
}

struct hop_scalar hop_dtype_load(enum hop_dtype dt, bool from_c, const void *p, size_t at)
{
  switch (dt) {
  case HOP_DTYPE_S: return (struct hop_scalar){((const float *)p)[at], 0.0};
  case HOP_DTYPE_D: return (struct hop_scalar){((const double *)p)[at], 0.0};
  case HOP_DTYPE_C: {
    const float *x = (const float *)p + 2 * at;
    return (struct hop_scalar){x[0], x[1]};
  }
  case HOP_DTYPE_Z: {
    const double *x = (const double *)p + 2 * at;
    return (struct hop_scalar){x[0], x[1]};
  }
  case HOP_DTYPE_SH:
    if (from_c)
      return (struct hop_scalar){((const float *)p)[at], 0.0};
    return (struct hop_scalar){hop_half_to_float(((const uint16_t *)p)[at]), 0.0};
  case HOP_DTYPE_H: return (struct hop_scalar){hop_half_to_float(((const uint16_t *)p)[at]), 0.0};
  case HOP_DTYPE_COUNT: break;
  }
  return (struct hop_scalar){0.0, 0.0};
}

void hop_dtype_store(enum hop_dtype dt, void *c, size_t at, struct hop_scalar v)
{
  switch (dt) {
  case HOP_DTYPE_S:
  case HOP_DTYPE_SH: ((float *)c)[at] = (float)v.re; return;
  case HOP_DTYPE_D: ((double *)c)[at] = v.re; return;
  case HOP_DTYPE_C:
    ((float *)c)[2 * at] = (float)v.re, ((float *)c)[2 * at + 1] = (float)v.im;
    return;
  case HOP_DTYPE_Z:
    ((double *)c)[2 * at] = v.re, ((double *)c)[2 * at + 1] = v.im;
    return;
  case HOP_DTYPE_H: ((uint16_t *)c)[at] = hop_float_to_half((float)v.re); return;
  case HOP_DTYPE_COUNT: return;
  }
}
