/* Where hopblas keeps its caches: $HOPBLAS_CACHE_DIR, else
 * $XDG_CACHE_HOME/hopblas, else $HOME/.cache/hopblas (path variables are
 * read through secure_getenv, so a set-uid program gets none). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hop.h"

bool hop_cache_dir(char *out, size_t len)
{
  const char *dir = hop_config_get("HOPBLAS_CACHE_DIR");
  if (dir != NULL && *dir != '\0')
    return snprintf(out, len, "%s", dir) < (int)len;
#ifdef HAVE_SECURE_GETENV
  const char *xdg = secure_getenv("XDG_CACHE_HOME"), *home = secure_getenv("HOME");
#else
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
#endif
  if (xdg != NULL && *xdg == '/')
    return snprintf(out, len, "%s/hopblas", xdg) < (int)len;
  if (home != NULL && *home == '/')
    return snprintf(out, len, "%s/.cache/hopblas", home) < (int)len;
  return false;
}

/* mkdir -p, new directories private (0700); errors show in the caller's lstat. */
void hop_mkdir_private(char *path)
{
  for (char *p = path + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    mkdir(path, 0700);
    *p = '/';
  }
  mkdir(path, 0700);
}

/* Ours, and nobody else may write to it: the caches trust nothing else. */
bool hop_stat_private(const struct stat *sb)
{
  return sb->st_uid == geteuid() && (sb->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* FNV-1a, 64 bits: the caches' fingerprint against corruption, not against
 * an attacker (their directories are private, see hop_stat_private). */
uint64_t hop_hash_fnv1a(const void *data, size_t len, uint64_t h)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* SIGPIPE and SIGXFSZ held back in this thread while hopblas (or a driver
 * inside a call: PoCL writes its kernel cache from clBuildProgram) writes:
 * a pipe whose reader left (EPIPE) or a file-size limit (EFBIG) is then an
 * error the writer reports, not a signal that kills the host program.  A
 * signal of the two that became pending meanwhile is taken off again.
 * Three system calls. */
void hop_sighold_begin(struct hop_sighold *h)
{
  sigset_t hold;
  sigemptyset(&hold);
  sigaddset(&hold, SIGPIPE);
  sigaddset(&hold, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &hold, &h->old);
}

/* A signal the thread did not block was not pending (it would have been
 * delivered): what is pending of those now was raised meanwhile.  One the
 * host program blocks itself is left to it. */
void hop_sighold_end(struct hop_sighold *h)
{
  int saved = errno;
  sigset_t raised;
  sigemptyset(&raised);
  if (!sigismember(&h->old, SIGPIPE))
    sigaddset(&raised, SIGPIPE);
  if (!sigismember(&h->old, SIGXFSZ))
    sigaddset(&raised, SIGXFSZ);
  const struct timespec zero = {0, 0};
  while (!sigisemptyset(&raised) && sigtimedwait(&raised, NULL, &zero) > 0)
    ;
  pthread_sigmask(SIG_SETMASK, &h->old, NULL);
  errno = saved;
}

/* write() until done, under hop_sighold.  A non-blocking descriptor that
 * cannot take more now gives HOP_WRITE_AGAIN: nothing waits.  *done: bytes
 * written. */
enum hop_write_result hop_write_nosignal(int fd, const void *buf, size_t len, size_t *done)
{
  struct hop_sighold hold;
  hop_sighold_begin(&hold);
  const unsigned char *p = buf;
  enum hop_write_result res = HOP_WRITE_OK;
  *done = 0;
  while (*done < len) {
    ssize_t w = write(fd, p + *done, len - *done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      res = HOP_WRITE_AGAIN;
      break;
    }
    if (w <= 0) {
      res = HOP_WRITE_FAILED;
      break;
    }
    *done += (size_t)w;
  }
  hop_sighold_end(&hold);
  return res;
}

bool hop_write_all(int fd, const void *buf, size_t len)
{
  size_t done;
  return hop_write_nosignal(fd, buf, len, &done) == HOP_WRITE_OK;
}

/* open() that never blocks on a FIFO or device and yields only regular
 * files: a cache or config path replaced by a FIFO, a directory or a
 * device node is refused (errno EINVAL for "not a regular file"). */
int hop_open_regular(const char *path, int flags, unsigned mode)
{
  int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, (mode_t)mode);
  if (fd < 0)
    return -1;
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
}
