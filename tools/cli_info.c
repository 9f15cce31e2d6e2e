/* `hopblas info`: what a program loading the library would get, and why. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hop.h"
#include "hopblas.h"
#include "hopblas_cli.h"

/* What the engine declares: "takes: gemm s,d; symm s,d; ...". */
static void print_takes(const struct hop_backend *be)
{
  printf("    takes:");
  const char *sep = " ";
  for (int op = 0; op < HOP_OP_COUNT; op++) {
    if (be->takes[op] == 0)
      continue;
    printf("%s%s ", sep, hop_op_name((enum hop_op)op));
    const char *comma = "";
    for (int dt = 0; dt < HOP_DTYPE_COUNT; dt++)
      if (be->takes[op] & HOP_DTYPE_BIT(dt)) {
        printf("%s%s", comma, hop_dtype_name((enum hop_dtype)dt));
        comma = ",";
      }
    sep = "; ";
  }
  printf("\n");
}

static void print_routing(const struct hop_config *cfg)
{
  if (strcmp(cfg->backend, "auto") != 0)
    printf("  routing            every call to %s (HOPBLAS_BACKEND); the CPU finishes it if %s fails\n",
           cfg->backend, cfg->backend);
  else if (cfg->min_flops >= 0)
    printf("  routing            calls of >= %.3g flops to the fastest device engine (HOPBLAS_MIN_FLOPS),\n"
           "                     smaller ones on the CPU\n", cfg->min_flops);
  else
    printf("  routing            auto: calls below %.3g flops stay on the CPU; larger ones go to the\n"
           "                     engine with the smallest predicted time\n", cfg->device_floor_flops);
}

static void print_env(void)
{
  printf("environment (doc/ENVIRONMENT.md):\n");
  struct hop_config_key_iter it = {0};
  for (const struct hop_config_key *k; (k = hop_config_key_next(&it)) != NULL;) {
    const char *v = hop_config_get(k->name);
    char help[256];
    hop_config_key_help(k, help, sizeof help);
    printf("  %-26s %-12s %s\n", k->name, v ? v : "(unset)", help);
  }
}

int hop_cli_info(int argc, char **argv)
{
  if (argc == 2 && strcmp(argv[1], "--env") == 0) {
    print_env();
    return 0;
  }
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    printf("usage: hopblas info [--env]\n"
           "  engines found, why others are off, routing thresholds, paths;\n"
           "  --env: every configuration variable and its current value\n");
    return 0;
  }
  if (argc > 1) {
    fprintf(stderr, "hopblas info: unknown argument '%s' (usage: hopblas info [--env])\n", argv[1]);
    return 2;
  }
  const struct hop_config *cfg = hop_config();
  char cache[4096];
  printf("%s\n\nconfiguration:\n", hopblas_version());
  print_routing(cfg);
  printf("  verify             %s\n", cfg->verify == HOP_VERIFY_OFF   ? "off"
                                      : cfg->verify == HOP_VERIFY_LOG ? "on (log errors)"
                                                                     : "on (log and replace)");
  printf("  trace              %s\n", cfg->trace_path[0] ? cfg->trace_path : "off");
  printf("  config file        %s\n", cfg->config_file[0] ? cfg->config_file : "none");
  printf("  cache directory    %s\n", hop_cache_dir(cache, sizeof cache) ? cache : "none");
  printf("\nengines (in registry order; the CPU is always last and never declines):\n");
  for (size_t i = 0; i < hop_backend_count; i++) {
    struct hop_engine_view v;
    hop_engine_get(i, &v);
    printf("  %-14s %-4s %s\n", v.be->name, v.status == HOP_OK ? "on" : "off", v.why);
    print_takes(v.be);
    if (v.status == HOP_OK && v.be->describe != NULL)
      v.be->describe(v.state, stdout);
  }
  return 0;
}
