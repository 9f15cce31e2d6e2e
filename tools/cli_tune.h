/* Shared by tools/cli_tune.c and tools/cli_tune_ocl.c (`hopblas tune`). */
#ifndef HOP_CLI_TUNE_H
#define HOP_CLI_TUNE_H

#include <stdbool.h>

#include "tune_cache.h"

enum { MAX_SIZES = 16 };

struct cli_tune_opts {
  double budget;
  int sizes[MAX_SIZES + 1];
  const char *family;
  bool calibrate, tune;
};

struct cli_bar {
  bool tty;
  const char *what;
  int n;
};

void hop_cli_bar_draw(struct cli_bar *b, double frac, const char *detail);
void hop_cli_bar_end(struct cli_bar *b);
void hop_cli_steps_progress(int done, int count, void *arg); /* arg: the bar */
/* The calibration ladder: 32 ... the largest tuned size (2048 at least), 0-terminated. */
void hop_cli_ladder(const struct cli_tune_opts *o, int *out);

/* cli_tune_ocl.c: the search per size and the OpenCL calibration (state: the engine's). */
int hop_cli_tune_sizes(void *state, const struct cli_tune_opts *o, double budget, struct cli_bar *b);
bool hop_cli_calibrate_ocl(void *state, const struct cli_tune_opts *o, double budget, struct cli_bar *b,
                           const struct hop_curve *cpu);

#endif
