/* On-disk cache of OpenCL program binaries, so a process does not pay the
 * driver's compiler on every start.  One file per key; the key holds
 * everything that changes the binary (device, driver, library version,
 * source hash, build options) and is stored in the file, with the binary's
 * hash, and compared before use.  A file that does not match, is too large,
 * not ours, or writable by others is ignored and rewritten; a directory
 * writable by others is refused.  Writes go to a temporary file that is
 * renamed, so a reader never sees half a file.
 *
 * File: "hopblas-clbin 1 <key bytes> <binary bytes> <binary hash>\n" key binary */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdatomic.h>

#include "ocl.h"

enum { KEY_MAX = 64 * 1024, HEADER_MAX = 128 };
static const size_t binary_max = 256u << 20;

/* The cache directory, created if missing; false when there is none we
 * trust.  A load always comes first: it says why, the store stays quiet. */
static bool cache_dir(char *dir, size_t len, bool quiet)
{
  if (!hop_cache_dir(dir, len) || dir[0] == '\0')
    return false;
  hop_mkdir_private(dir);
  struct stat sb;
  if (lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    hop_log(quiet ? 3 : 2, "opencl: cache directory %s is not a directory; binaries are not cached",
            dir);
    return false;
  }
  if (!hop_stat_private(&sb)) {
    /* One line per process, however many programs (families of several,
     * the double program) look for their binaries. */
    static atomic_bool told;
    bool first = !quiet && !atomic_exchange(&told, true);
    hop_log(first ? 1 : 3, "opencl: cache directory %s is not private to this user; refused", dir);
    return false;
  }
  return true;
}

static bool file_path(const char *key, char *path, size_t len, bool quiet)
{
  char dir[4096];
  if (!cache_dir(dir, sizeof dir, quiet))
    return false;
  uint64_t h = hop_hash_fnv1a(key, strlen(key), HOP_HASH_SEED);
  return snprintf(path, len, "%s/opencl-%016" PRIx64 ".bin", dir, h) < (int)len;
}

static bool read_all(int fd, unsigned char *buf, size_t len)
{
  size_t got = 0;
  while (got < len) {
    ssize_t r = read(fd, buf + got, len - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return false;
    got += (size_t)r;
  }
  return true;
}

/* Check a whole file image against the key; the binary is at *bin. */
static bool image_valid(const unsigned char *img, size_t size, const char *key,
                        const unsigned char **bin, size_t *bin_len)
{
  const unsigned char *nl = memchr(img, '\n', size < HEADER_MAX ? size : HEADER_MAX);
  if (nl == NULL)
    return false;
  char header[HEADER_MAX + 1];
  memcpy(header, img, (size_t)(nl - img));
  header[nl - img] = '\0';
  size_t key_len, blen;
  uint64_t hash;
  int used = 0;
  if (sscanf(header, "hopblas-clbin 1 %zu %zu %" SCNx64 "%n", &key_len, &blen, &hash, &used) != 3 ||
      header[used] != '\0')
    return false;
  size_t head = (size_t)(nl - img) + 1;
  if (key_len != strlen(key) || key_len > KEY_MAX || blen == 0 || blen > binary_max ||
      size != head + key_len + blen)
    return false;
  if (memcmp(img + head, key, key_len) != 0)
    return false;
  *bin = img + head + key_len;
  *bin_len = blen;
  return hop_hash_fnv1a(*bin, blen, HOP_HASH_SEED) == hash;
}

bool hop_ocl_cache_load(const char *key, unsigned char **bin, size_t *len)
{
  char path[4200];
  if (!file_path(key, path, sizeof path, false))
    return false;
  int fd = hop_open_regular(path, O_RDONLY | O_NOFOLLOW, 0); /* a FIFO there must not hang us */
  if (fd < 0)
    return false;
  struct stat sb;
  unsigned char *img = NULL;
  bool ok = fstat(fd, &sb) == 0 && hop_stat_private(&sb) && /* regular: hop_open_regular */
            sb.st_size > 0 && (size_t)sb.st_size <= binary_max + KEY_MAX + HEADER_MAX &&
            (img = malloc((size_t)sb.st_size)) != NULL && read_all(fd, img, (size_t)sb.st_size);
  close(fd);
  const unsigned char *b;
  size_t blen;
  if (ok)
    ok = image_valid(img, (size_t)sb.st_size, key, &b, &blen);
  if (ok && (*bin = malloc(blen)) != NULL) {
    memcpy(*bin, b, blen);
    *len = blen;
  } else {
    if (img != NULL)
      hop_log(2, "opencl: cached program %s does not match; rebuilding it", path);
    ok = false;
  }
  free(img);
  return ok;
}

bool hop_ocl_cache_store(const char *key, const unsigned char *bin, size_t len)
{
  char path[4200], tmp[4220];
  if (len == 0 || len > binary_max || strlen(key) > KEY_MAX || !file_path(key, path, sizeof path, true))
    return false;
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0)
    return false;
  char header[HEADER_MAX];
  int hl = snprintf(header, sizeof header, "hopblas-clbin 1 %zu %zu %016" PRIx64 "\n", strlen(key),
                    len, hop_hash_fnv1a(bin, len, HOP_HASH_SEED));
  bool ok = fchmod(fd, 0600) == 0 && hop_write_all(fd, header, (size_t)hl) &&
            hop_write_all(fd, key, strlen(key)) && hop_write_all(fd, bin, len);
  ok = close(fd) == 0 && ok;
  if (ok && rename(tmp, path) == 0)
    return true;
  unlink(tmp);
  hop_log(2, "opencl: could not write the program cache %s", path);
  return false;
}
