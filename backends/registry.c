/* The one table of engines, in preference order; the CPU engine is last.
 * Adding an engine: its folder, one line here, one configure switch.
 * Compiled twice: into the library, and with HOP_WITH_TEST_ENGINE into the
 * `make check` library that also carries the test engines
 * (backends/test_engines/). */
#include "config.h"

#include "hop.h"

extern const struct hop_backend hop_backend_cpu;
#ifdef HOP_WITH_OPENCL
extern const struct hop_backend hop_backend_opencl;
#else
extern const struct hop_config_key hop_opencl_keys[];
#endif
#ifdef HOP_WITH_VIDEOCORE
extern const struct hop_backend hop_backend_videocore;
extern const struct hop_backend hop_backend_videocore_emu;
#else
extern const struct hop_config_key hop_videocore_keys[];
#endif
#ifdef HOP_WITH_TEST_ENGINE
extern const struct hop_backend hop_backend_test_wrong;
extern const struct hop_backend hop_backend_test_narrow;
#endif

const struct hop_backend *const hop_backends[] = {
#ifdef HOP_WITH_OPENCL
  &hop_backend_opencl,
#endif
#ifdef HOP_WITH_VIDEOCORE
  &hop_backend_videocore,
  &hop_backend_videocore_emu,
#endif
#ifdef HOP_WITH_TEST_ENGINE
  &hop_backend_test_wrong,
  &hop_backend_test_narrow,
#endif
  &hop_backend_cpu, /* always last: it never declines */
};

const size_t hop_backend_count = sizeof hop_backends / sizeof hop_backends[0];

/* The same engines when configured out: their names and keys stay known. */
const struct hop_backend_absent hop_backends_absent[] = {
#ifndef HOP_WITH_OPENCL
  {"opencl", hop_opencl_keys},
#endif
#ifndef HOP_WITH_VIDEOCORE
  {"videocore", hop_videocore_keys},
  {"videocore-emu", hop_videocore_keys},
#endif
#ifndef HOP_WITH_TEST_ENGINE
  {"test-wrong", NULL}, /* the `make check` library's engines */
  {"test-narrow", NULL},
#endif
  {NULL, NULL},
};
