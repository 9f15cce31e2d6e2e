/* Run a command and report its peak resident memory: "maxrss_kib N" on
 * stderr, then the command's own exit status.  The stress test runs the
 * same load for R and 4R rounds: a leak per call shows as a higher peak.
 * Usage: maxrss CMD [ARG...] */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: maxrss CMD [ARG...]\n");
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("maxrss: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[1], argv + 1);
    perror("maxrss: exec");
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) {
    perror("maxrss: wait4");
    return 2;
  }
  fprintf(stderr, "maxrss_kib %ld\n", ru.ru_maxrss);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
