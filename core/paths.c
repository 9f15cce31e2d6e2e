/* Where hopblas keeps its caches: $HOPBLAS_CACHE_DIR, else
 * $XDG_CACHE_HOME/hopblas, else $HOME/.cache/hopblas (path variables are
 * read through secure_getenv, so a set-uid program gets none). */
#include <errno.h>
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

/* write() until done: a short write or EINTR is not an error; false on a real one. */
bool hop_write_all(int fd, const void *buf, size_t len)
{
  const unsigned char *p = buf;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w;
    len -= (size_t)w;
  }
  return true;
}
