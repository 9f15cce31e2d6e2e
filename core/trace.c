/* HOPBLAS_TRACE: one CSV row per call, in the caller's terms (row-major
 * calls are shown as the caller made them, not as core/ ran them). */
#include <string.h>
#include <sys/time.h>

#include "hop.h"

/* Quote a field for CSV: the why text may hold commas. */
static void put_quoted(FILE *fp, const char *s)
{
  fputc('"', fp);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', fp);
    fputc(*s, fp);
  }
  fputc('"', fp);
}

void hop_trace_row(const struct hop_gemm *g, const char *engine, const char *why, double seconds,
                   const char *verify)
{
  FILE *fp = hop_trace_lock();
  if (fp == NULL)
    return;
  struct timeval tv;
  gettimeofday(&tv, NULL);
  /* core/ holds the column-major form; a row-major call had A/B and m/n swapped. */
  int m = g->row_major ? g->n : g->m, n = g->row_major ? g->m : g->n;
  bool ta = g->row_major ? g->tb : g->ta, tb = g->row_major ? g->ta : g->tb;
  double gflops = seconds > 0.0 ? hop_gemm_flops(g) / seconds * 1e-9 : 0.0;
  fprintf(fp, "%ld.%06ld,%s,%s,%d,%d,%d,%c,%c,%s,", (long)tv.tv_sec, (long)tv.tv_usec, g->symbol,
          hop_dtype_name(g->dtype), m, n, g->k, ta ? 'T' : 'N', tb ? 'T' : 'N', engine);
  put_quoted(fp, why);
  fprintf(fp, ",%.9f,%.3f,%s\n", seconds, gflops, verify ? verify : "");
  hop_trace_unlock();
}
