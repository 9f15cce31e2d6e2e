/* How a call is cut into tiles.  A tile of C (tm x tn) is computed from an
 * A block (tm x tk of op(A)) and a B block (tk x tn of op(B)); every buffer
 * a tile needs, packed densely, must fit `cap` (the device's largest
 * allocation, or less).  Zero-copy wraps a block's host region instead
 * where that region fits too (transfer.c).  When k is cut,
 * the device accumulates alpha * op(A) op(B) in float and the host applies
 * beta while writing C (one rounding for hgemm).  A staged call whose C the
 * device holds in C's own type does the same whole: C never goes up, so
 * the host neither packs it nor puts it on the link, and adds beta C while
 * it writes the results, reading C once instead of twice. */
#include "ocl.h"

enum { GRAIN = 64 }; /* tiles stay multiples of this while they can */
enum { MIN_ROW_BLOCK = 1024 }; /* A's row blocks: shorter ones would starve a large GPU */

/* Half a dimension, rounded up to the grain while it is above it. */
static int halve(int x)
{
  if (x > GRAIN) {
    int h = (x + 1) / 2;
    return (h + GRAIN - 1) / GRAIN * GRAIN < x ? (h + GRAIN - 1) / GRAIN * GRAIN : h;
  }
  return (x + 1) / 2;
}

/* Cut one of the two dimensions of an oversized buffer: the larger. */
static void cut(int *x, int *y)
{
  if (*x >= *y)
    *x = halve(*x);
  else
    *y = halve(*y);
}

size_t hop_ocl_acc_size(enum hop_dtype dt) { return dt == HOP_DTYPE_D ? 8 : 4; }

bool hop_ocl_beta_on_host(const struct hop_call *g, enum hop_ocl_memory mem, bool ksplit)
{
  if (ksplit)
    return true;
  /* Half C would come back as float sums, twice its bytes; complex
   * planes are written by their views (never with beta). */
  return mem == HOP_OCL_STAGED && !hop_scalar_is_zero(g->beta) && g->planes == NULL &&
         !hop_dtype_info(g->dtype)->is_complex &&
         hop_dtype_c_size(g->dtype) == hop_ocl_acc_size(g->dtype);
}

bool hop_ocl_kernel_for(enum hop_dtype dt, bool ksplit, enum hop_ocl_kernel *out)
{
  switch (dt) {
  case HOP_DTYPE_S: *out = HOP_OCL_SGEMM; return true;
  case HOP_DTYPE_SH: *out = HOP_OCL_SHGEMM; return true;
  case HOP_DTYPE_H: *out = ksplit ? HOP_OCL_SHGEMM : HOP_OCL_HGEMM; return true;
  case HOP_DTYPE_D: *out = HOP_OCL_DGEMM; return true;
  case HOP_DTYPE_C: /* complex runs as a real GEMM (complex.c) */
  case HOP_DTYPE_Z:
  case HOP_DTYPE_COUNT: break;
  }
  return false;
}

/* Cut the largest buffer if it is over cap; false when everything fits. */
static bool shrink_once(const struct hop_call *g, double cap, int *tm, int *tn, int *tk,
                        bool ksplit)
{
  double eab = (double)hop_dtype_ab_size(g->dtype);
  double ec = ksplit ? (double)hop_ocl_acc_size(g->dtype) : (double)hop_dtype_c_size(g->dtype);
  double a = (double)*tm * *tk * eab, b = (double)*tk * *tn * eab, c = (double)*tm * *tn * ec;
  if (a >= b && a >= c && a > cap)
    cut(tm, tk);
  else if (b >= c && b > a && b > cap)
    cut(tn, tk);
  else if (c > a && c > b && c > cap)
    cut(tm, tn);
  else
    return false;
  return true;
}

static int ceil_div(int x, int y) { return (int)(((long long)x + y - 1) / y); }

bool hop_ocl_plan_make(const struct hop_call *g, enum hop_ocl_memory mem, size_t cap,
                       struct hop_ocl_plan *p)
{
  bool staged = mem == HOP_OCL_STAGED;
  int tm = g->m, tn = g->n, tk = g->k;
  /* The family's largest block (images: the device's image size). */
  tm = p->max_tm > 0 && p->max_tm < tm ? p->max_tm : tm;
  tn = p->max_tn > 0 && p->max_tn < tn ? p->max_tn : tn;
  tk = p->max_tk > 0 && p->max_tk < tk ? p->max_tk : tk;
  /* Staged: several column panels, so that one panel's transfers and host
   * copies overlap another's kernel: four from n = 1024, eight from 4096
   * (panels of at least 512 columns; the last panel's kernel, read-back
   * and write into C are what no other work hides). */
  if (staged && g->n >= 4 * 256) {
    int panels = g->n >= 8 * 512 ? 8 : 4;
    int panel = (ceil_div(g->n, panels) + GRAIN - 1) / GRAIN * GRAIN;
    tn = panel < tn ? panel : tn;
  }
  for (int guard = 0; guard < 256; guard++) {
    bool ksplit = tk < g->k;
    if (!shrink_once(g, (double)cap, &tm, &tn, &tk, ksplit)) {
      /* Staged panels that would each read the whole of A: cut A into row
       * blocks too, so the first kernel waits for one block of A instead
       * of all of it, and the last tile's C is as small (run.c orders the
       * tiles so that every block is uploaded once).  Not for half
       * operands: their calls wait on the link, not on A's first block,
       * and the extra tiles only cost (measured on the H200). */
      p->by_columns = false;
      bool half = g->dtype == HOP_DTYPE_H || g->dtype == HOP_DTYPE_SH;
      if (staged && !half && tm == g->m && tk == g->k && tn < g->n && p->row_blocks > 1 &&
          g->m >= p->row_blocks * MIN_ROW_BLOCK) {
        tm = (ceil_div(g->m, p->row_blocks) + GRAIN - 1) / GRAIN * GRAIN;
        p->by_columns = true;
      }
      p->tm = tm, p->tn = tn, p->tk = tk;
      p->ksplit = ksplit;
      p->beta_host = hop_ocl_beta_on_host(g, mem, ksplit);
      p->tiles_m = ceil_div(g->m, tm);
      p->tiles_n = ceil_div(g->n, tn);
      p->chunks = ceil_div(g->k, tk);
      if (!hop_ocl_kernel_for(g->dtype, ksplit, &p->kernel))
        return false;
      p->c_esize = p->beta_host ? hop_ocl_acc_size(g->dtype) : hop_dtype_c_size(g->dtype);
      return true;
    }
    if (tm == 0 || tn == 0 || tk == 0)
      break;
  }
  return false; /* not even one element per buffer fits */
}
