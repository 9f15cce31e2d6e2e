/* The benchmark's PNG: GFLOPS against cbrt(m n k) on a log2 axis, one line
 * per engine x mode x dtype x transposes, drawn by gnuplot (data inline, no
 * temporary files).  Skipped cases leave a gap. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

static bool same_series(const struct bench_row *a, const struct bench_row *b)
{
  return strcmp(a->engine, b->engine) == 0 && strcmp(a->mode, b->mode) == 0 &&
         strcmp(a->dtype, b->dtype) == 0 && strcmp(a->trans, b->trans) == 0;
}

/* The output must be a file we can write: gnuplot, failing to open it,
 * would draw on its stdout (ours) instead. */
static bool plot_target_ok(const char *png)
{
  if (strchr(png, '\'') != NULL) {
    fprintf(stderr, "hopblas bench: --plot %s: a quote in the path; no plot\n", png);
    return false;
  }
  int fd = open(png, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK, 0644);
  struct stat sb;
  bool ok = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
  if (!ok)
    fprintf(stderr, "hopblas bench: --plot %s: %s; no plot\n", png,
            fd < 0 ? strerror(errno) : "not a regular file");
  if (fd >= 0)
    close(fd);
  return ok;
}

bool bench_plot(const char *png, const struct bench_row *rows, size_t n, const char *title)
{
  if (!plot_target_ok(png))
    return false;
  /* The first row of every series. */
  size_t *first = calloc(n + 1, sizeof *first), nseries = 0;
  if (first == NULL)
    return false;
  for (size_t i = 0; i < n; i++) {
    bool seen = false;
    for (size_t s = 0; s < nseries && !seen; s++)
      seen = same_series(&rows[first[s]], &rows[i]);
    if (!seen && !rows[i].skipped)
      first[nseries++] = i;
  }
  FILE *gp = popen("gnuplot", "w");
  if (gp == NULL || nseries == 0) {
    fprintf(stderr, "hopblas bench: %s\n",
            gp == NULL ? "gnuplot not found; no plot" : "nothing to plot");
    if (gp != NULL)
      pclose(gp);
    free(first);
    return false;
  }
  fprintf(gp, "set terminal pngcairo size 1100,650 noenhanced\nset output '%s'\n", png);
  fprintf(gp, "set title '%s'\nset logscale x 2\nset xlabel 'cbrt(m n k)'\n", title);
  fprintf(gp, "set ylabel 'GFLOPS'\nset key outside right\nset grid\nplot ");
  for (size_t s = 0; s < nseries; s++) {
    const struct bench_row *r = &rows[first[s]];
    fprintf(gp, "%s'-' using 1:2 with linespoints title '%s %s %sgemm %s'", s ? ", " : "",
            r->engine, r->mode, r->dtype, r->trans);
  }
  fprintf(gp, "\n");
  for (size_t s = 0; s < nseries; s++) {
    for (size_t i = 0; i < n; i++)
      if (same_series(&rows[first[s]], &rows[i]) && !rows[i].skipped)
        fprintf(gp, "%.3f %.4f\n", cbrt((double)rows[i].m * rows[i].n * rows[i].k), rows[i].gflops);
    fprintf(gp, "e\n");
  }
  free(first);
  int rc = pclose(gp);
  struct stat sb;
  if (rc == 0 && (stat(png, &sb) != 0 || sb.st_size == 0))
    rc = -1;
  if (rc != 0)
    fprintf(stderr, "hopblas bench: gnuplot failed (status %d); no plot\n", rc);
  return rc == 0;
}
