/* The `hopblas` command: one table of subcommands.  It carries its own copy
 * of the engines (libhopcore + the registry), so `hopblas info` reports
 * exactly what a program that loads the library would get. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hop.h"
#include "hopblas.h"
#include "hopblas_cli.h"

static int cli_version(int argc, char **argv)
{
  if (argc > 1) {
    fprintf(stderr, "hopblas version: unknown argument '%s' (it takes none)\n", argv[1]);
    return 2;
  }
  printf("%s\n", hopblas_version());
  return 0;
}

static int cli_help(int argc, char **argv);

static const struct hop_cli_command commands[] = {
  {"info", hop_cli_info, "engines found, why others are off, routing thresholds, paths"},
  {"tune", hop_cli_tune, "tune the OpenCL kernels and calibrate the router (see --help)"},
#ifdef HOP_CLI_BENCH
  {"bench", hop_cli_bench, "measure engines against OpenBLAS and CLBlast (see --help)"},
#endif
  {"version", cli_version, "print the version"},
  {"help", cli_help, "this list"},
  {NULL, NULL, NULL},
};

static int cli_help(int argc, char **argv)
{
  printf("usage: hopblas COMMAND [OPTIONS]\n\ncommands:\n");
  for (const struct hop_cli_command *c = commands; c->name != NULL; c++)
    printf("  %-10s %s\n", c->name, c->help);
  printf("\nEnvironment variables are listed by `hopblas info --env` and in doc/ENVIRONMENT.md.\n");
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return cli_help(argc, argv), 2;
  for (const struct hop_cli_command *c = commands; c->name != NULL; c++)
    if (strcmp(argv[1], c->name) == 0)
      return c->run(argc - 1, argv + 1);
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
    return cli_help(argc, argv);
  if (strcmp(argv[1], "--version") == 0)
    return cli_version(argc - 1, argv + 1);
  fprintf(stderr, "hopblas: unknown command '%s' (try `hopblas help`)\n", argv[1]);
  return 2;
}
