/* Argument errors.  xerbla_, xerbla_64_ and cblas_xerbla are weak and
 * exported, so a program's own (the netlib testers have one) always wins;
 * ours print what OpenBLAS prints and return: a BLAS library never ends its
 * host program.  Defined once: the entry-point files are compiled twice. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

HOP_EXPORT int RowMajorStrg = 0;    /* netlib CBLAS globals: the prebuilt testers */
HOP_EXPORT int CBLAS_CallFromC = 0; /* copy-relocate them, so they must exist     */

static void print_error(const char *name, long long info, size_t len)
{
  int n = (int)strnlen(name, len > 6 ? 6 : len);
  printf(" ** On entry to %6.*s parameter number %2lld had an illegal value\n", n, name, info);
}

HOP_EXPORT __attribute__((weak)) void xerbla_(const char *name, const int *info, size_t len)
{
  print_error(name, *info, len);
}

/* The ILP64 entry points' (OpenBLAS's 64_ build): INFO is 64-bit. */
HOP_EXPORT __attribute__((weak)) void xerbla_64_(const char *name, const int64_t *info, size_t len)
{
  print_error(name, *info, len);
}

/* netlib's CBLAS error hook, for programs that call it; the message is
 * netlib's, but there is no exit(). */
HOP_EXPORT __attribute__((weak)) void cblas_xerbla(int p, const char *rout, const char *form, ...)
{
  extern int RowMajorStrg;
  if (RowMajorStrg && strstr(rout, "gemm") != NULL) {
    /* netlib reports row-major positions in the caller's terms. */
    static const int swap[15] = {0, 1, 2, 3, 5, 4, 6, 7, 8, 11, 10, 9, 12, 13, 14};
    if (p >= 0 && p < 15)
      p = swap[p];
  }
  if (p != 0)
    fprintf(stderr, "Parameter %d to routine %s was incorrect\n", p, rout);
  va_list ap;
  va_start(ap, form);
  vfprintf(stderr, form, ap);
  va_end(ap);
}

void hop_xerbla(const char *name, int info)
{
  /* Through the dynamic symbol, so an interposed xerbla_ sees the error. */
  xerbla_(name, &info, strlen(name));
}

void hop_xerbla_64(const char *name, int info)
{
  int64_t info64 = info;
  xerbla_64_(name, &info64, strlen(name));
}
