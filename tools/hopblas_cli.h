/* Subcommands of the `hopblas` command; each lives in its own file. */
#ifndef HOPBLAS_CLI_H
#define HOPBLAS_CLI_H

struct hop_cli_command {
  const char *name;
  int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
  const char *help;
};

int hop_cli_info(int argc, char **argv);
int hop_cli_bench(int argc, char **argv);
int hop_cli_tune(int argc, char **argv);

#endif
