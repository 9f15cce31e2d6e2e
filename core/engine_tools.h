/* What `hopblas tune`, `hopblas bench` and the benchmark programs ask of an
 * engine besides calls: tuning, calibration of its cost model and timing
 * with operands resident on its device.  An engine offers these through
 * its vtable's tools member (NULL when it has none, and any entry may be
 * NULL); the tools walk the registry for engines that have the entry, so
 * they include no engine header and never see an engine's state. */
#ifndef HOP_ENGINE_TOOLS_H
#define HOP_ENGINE_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "hop.h"
#include "tune_cache.h"

/* Progress of a long measurement, for the caller's bar: frac of the whole
 * in [0, 1] and a short line on what is being done. */
struct hop_tools_progress {
  void (*draw)(void *arg, double frac, const char *detail);
  void (*end)(void *arg); /* the bar is cleared before the engine prints */
  bool shown;             /* a bar is drawn: the engine leaves out its per-step lines */
  void *arg;
};

/* "done of count sizes" on the bar, after each size of a measurement. */
static inline void hop_tools_steps(const struct hop_tools_progress *p, int done, int count)
{
  char text[64];
  if (p == NULL || p->draw == NULL)
    return;
  snprintf(text, sizeof text, "%d of %d sizes", done, count);
  p->draw(p->arg, (double)done / count, text);
}

/* `hopblas tune`'s request to an engine that has parameters to search. */
struct hop_tune_request {
  const int *sizes;           /* square sizes, 0-terminated */
  double budget_s;            /* for all of them; a share left unused passes on */
  const char *family;         /* what the user asked to tune (--family), NULL: the engine's choice */
  FILE *out;                  /* the engine's report lines */
  struct hop_tools_progress progress;
};

/* A calibrated cost model: seconds(call) = setup + bytes moved / link +
 * flops / rate(size), with size = cbrt(m n k). */
struct hop_calibration {
  double setup_s;        /* fixed cost of one call; 0 for host memory */
  double link_bytes_s;   /* host <-> device bandwidth, when transfers counts */
  bool transfers;        /* calls move operands over a link (else zero-copy or host memory) */
  struct hop_curve rate; /* GFLOPS of whole calls by size */
  struct hop_curve rate_d; /* the same for dgemm calls; n = 0 when not measured */
  char why[80];          /* on failure: what went wrong */
};

/* One call with operands placed on the device once (resident); the
 * engine's own. */
struct hop_resident;

struct hop_engine_tools {
  const char *title; /* the engine in a sentence: "OpenCL", "CPU" */
  /* The configuration key that chooses what runs (the OpenCL family); the
   * tools set it before the engine starts.  NULL when there is no choice. */
  const char *variant_key;
  /* What runs, in a few words (the OpenCL family's name, the CPU BLAS). */
  const char *(*what_runs)(void *state);
  /* Search the engine's parameters at each size within the budget, store
   * the best in the tuning cache and print the report; false when a size
   * could not be tuned (the report says why). */
  bool (*tune)(void *state, const struct hop_tune_request *rq);
  /* Measure the cost model at the sizes (0-terminated) within the budget
   * and store it in the tuning cache; false with out->why when it could not. */
  bool (*calibrate)(void *state, const int *sizes, double budget_s, struct hop_calibration *out,
                    const struct hop_tools_progress *progress);
  /* Predicted seconds of g from the stored calibration alone; negative
   * when there is none. */
  double (*calibrated_seconds)(void *state, const struct hop_call *g);

  /* ---- resident timing (`hopblas bench --mode resident`) ----
   * ready: once, before any case (the program is built); false with why.
   * open: g's host operands on the device (C holds its value before the
   * call); NULL with a note when they cannot be (the case is skipped).
   * call: one call on them, finished when it returns; false with failed.
   * read: C back into host memory of g's C shape (ld = m).
   * note: what ran, for the report.  close: gives back what open made. */
  bool (*resident_ready)(void *state, char *why, size_t len);
  struct hop_resident *(*resident_open)(void *state, const struct hop_call *g, char *note,
                                        size_t len);
  bool (*resident_call)(struct hop_resident *r, const char **failed);
  bool (*resident_read)(struct hop_resident *r, void *c);
  void (*resident_note)(struct hop_resident *r, char *note, size_t len);
  void (*resident_close)(struct hop_resident *r);
  /* For comparisons with another OpenCL library on the same device: the
   * engine's cl_context, cl_command_queue and cl_device_id; false when it
   * has none. */
  bool (*opencl_handles)(void *state, void **context, void **queue, void **device);
};

#endif
