/* `hopblas bench`: engines x modes x dtypes x transposes x sizes, GFLOPS
 * and error against a double reference, CSV and a gnuplot PNG.
 *
 * Every engine runs in a forked child of its own (a hopblas engine is
 * picked by HOPBLAS_BACKEND before the child's first call, and CLBlast or
 * NVBLAS never share a process with another engine); the child writes one
 * result line per case into a pipe. */
#ifndef HOP_BENCH_H
#define HOP_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hop.h"

enum bench_mode { BENCH_HOST, BENCH_RESIDENT };

/* One case: C = alpha op(A) op(B) + beta C, column-major, dense (ld = rows). */
struct bench_case {
  enum hop_dtype dtype; /* one of bench_dtypes */
  bool ta, tb;
  int m, n, k;
  float alpha, beta;
};

/* The operands of a case and its reference (sampled elements of C). */
struct bench_data {
  struct bench_case cs;
  void *a, *b, *c0; /* host operands of the dtype; c0 is C before the call */
  void *c;          /* C the engine writes */
  size_t a_elems, b_elems, c_elems;
};

struct bench_result {
  double seconds; /* median of the timed calls */
  int reps;
  double max_err; /* largest |C - ref| / (|alpha| (|A||B|)_ij + |beta C0_ij|) over samples
                   * (complex: the larger part's, |x| = |re| + |im|) */
  bool within;    /* every sample within the contract's bound (c = 2) */
  char note[96];  /* which engine ran, or why the case was skipped */
  bool skipped;
};

struct bench_opts {
  double min_time; /* seconds of timed calls per case */
  int max_reps;
  bool best;       /* --stat best: the fastest timed call, not the median */
};

/* bench_data.c: operands, the sampled reference check, the timing loop. */
bool bench_data_make(struct bench_data *d, const struct bench_case *c);
void bench_data_free(struct bench_data *d);
void bench_data_reset_c(struct bench_data *d);
void bench_check(const struct bench_data *d, const void *c, struct bench_result *r);
double bench_now(void);
/* Time repeated fn(arg) (false on failure) for at least min_time seconds
 * and 2 calls; the caller has made (and checked) the first, untimed call. */
bool bench_time(bool (*fn)(void *), void *arg, const struct bench_opts *o, struct bench_result *r);
/* The dtypes the benchmark times, in its report's order. */
extern const enum hop_dtype bench_dtypes[];
extern const size_t bench_dtype_count;

/* An engine of the benchmark: runs one case in one mode (in its child). */
struct bench_engine {
  const char *name;
  const char *help;
  bool modes[2]; /* indexed by enum bench_mode */
  /* Once in the child, before any case; false with why when unusable. */
  bool (*open)(const char *name, char *why, size_t len);
  void (*run)(const char *name, enum bench_mode mode, struct bench_data *d,
              const struct bench_opts *o, struct bench_result *r);
};

extern const struct bench_engine bench_engines[];

/* bench_host.c: hopblas through its public entry points, OpenBLAS, NVBLAS. */
bool bench_hopblas_open(const char *name, char *why, size_t len);
void bench_hopblas_run(const char *name, enum bench_mode mode, struct bench_data *d,
                       const struct bench_opts *o, struct bench_result *r);
bool bench_openblas_open(const char *name, char *why, size_t len);
void bench_openblas_run(const char *name, enum bench_mode mode, struct bench_data *d,
                        const struct bench_opts *o, struct bench_result *r);
bool bench_nvblas_open(const char *name, char *why, size_t len);
void bench_nvblas_run(const char *name, enum bench_mode mode, struct bench_data *d,
                      const struct bench_opts *o, struct bench_result *r);

/* bench_ocl.c: operands resident on the device (hopblas's kernels, CLBlast). */
bool bench_resident_open(const char *name, char *why, size_t len);
void bench_resident_run(const char *name, enum bench_mode mode, struct bench_data *d,
                        const struct bench_opts *o, struct bench_result *r);
bool bench_clblast_open(const char *name, char *why, size_t len);
void bench_clblast_run(const char *name, enum bench_mode mode, struct bench_data *d,
                       const struct bench_opts *o, struct bench_result *r);

/* bench_plot.c: GFLOPS against cbrt(m n k), one line per series. */
struct bench_row {
  char engine[24], mode[12], dtype[4], trans[4];
  int m, n, k;
  double seconds, gflops, max_err;
  bool within, skipped;
  char note[96];
};
bool bench_plot(const char *png, const struct bench_row *rows, size_t n, const char *title);

#endif
