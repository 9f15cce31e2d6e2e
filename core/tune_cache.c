/* The process's view of the tuning cache file (core/tune_cache.h): read
 * once, on first use, from a directory only this user can write; written
 * back by merging under a lock, so that two processes tuning at once both
 * keep their results: flock() on tune.lock, re-read the file, lay this
 * process's records over it, write a temporary file and rename it over
 * tune.txt (a reader sees the old file or the new one, never half).
 *
 * A file that is not ours, writable by others, too large or that fails the
 * parser's checks is ignored with one log line; the next flush rebuilds it
 * from this process's records. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hop.h"
#include "tune_cache.h"

static struct {
  pthread_once_t once, mode_once;
  enum hop_tune_mode mode;       /* HOPBLAS_TUNE, read once */
  pthread_mutex_t lock;
  struct hop_tune_store view;    /* the file as read, plus this process's puts */
  struct hop_tune_store pending; /* this process's puts not yet written */
  char dir[4096];
  bool have_dir;                 /* a private cache directory exists */
  bool warned_write;             /* the one line about a failed write was logged */
  char state[200];               /* what became of the file, for `hopblas info` */
} tc = {.once = PTHREAD_ONCE_INIT, .mode_once = PTHREAD_ONCE_INIT, .mode = HOP_TUNE_CACHED,
      .lock = PTHREAD_MUTEX_INITIALIZER};

static bool find_dir(void)
{
  if (!hop_cache_dir(tc.dir, sizeof tc.dir) || tc.dir[0] == '\0') {
    tc.dir[0] = '\0';
    snprintf(tc.state, sizeof tc.state, "no cache directory (HOPBLAS_CACHE_DIR, XDG_CACHE_HOME "
                                        "and HOME unset): results are kept in memory");
    return false;
  }
  hop_mkdir_private(tc.dir);
  struct stat sb;
  if (lstat(tc.dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    snprintf(tc.state, sizeof tc.state, "%.80s is not a directory: results are kept in memory",
             tc.dir);
    hop_log(1, "tuning cache: %s", tc.state);
    return false;
  }
  if (!hop_stat_private(&sb)) {
    snprintf(tc.state, sizeof tc.state,
             "%.80s is not private to this user: refused, results are kept in memory", tc.dir);
    hop_log(1, "tuning cache: %s", tc.state);
    return false;
  }
  return true;
}

static void file_path(char *path, size_t len)
{
  snprintf(path, len, "%s/%s", tc.dir, HOP_TUNE_FILE_NAME);
}

/* Read and check the file into s.  Returns false with why set when it
 * exists but cannot be used; a missing file is an empty store. */
static bool read_file(struct hop_tune_store *s, char *why, size_t why_len)
{
  char path[4200];
  file_path(path, sizeof path);
  *s = (struct hop_tune_store){0};
  why[0] = '\0';
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT)
      return true;
    snprintf(why, why_len, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
    return false;
  }
  struct stat sb;
  char *text = NULL;
  bool ok = false;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
    snprintf(why, why_len, "not a regular file");
  else if (!hop_stat_private(&sb))
    snprintf(why, why_len, "not owned by this user or writable by others");
  else if (sb.st_size > HOP_TUNE_FILE_MAX)
    snprintf(why, why_len, "larger than 1 MiB");
  else if ((text = malloc((size_t)sb.st_size + 1)) == NULL)
    snprintf(why, why_len, "out of memory");
  else {
    size_t got = 0, want = (size_t)sb.st_size;
    ssize_t r = 1;
    while (got < want && (r = read(fd, text + got, want - got)) != 0)
      if (r > 0)
        got += (size_t)r;
      else if (errno != EINTR)
        break;
    if (got != want)
      snprintf(why, why_len, "read failed");
    else
      ok = hop_tune_parse(text, got, s, why, why_len);
  }
  free(text);
  close(fd);
  return ok;
}

/* A child forked while another thread held the lock must not inherit it held. */
static void child_after_fork(void) { pthread_mutex_init(&tc.lock, NULL); }

static void load(void)
{
  pthread_atfork(NULL, NULL, child_after_fork);
  tc.have_dir = find_dir();
  if (!tc.have_dir)
    return;
  char path[4200], why[160];
  file_path(path, sizeof path);
  if (read_file(&tc.view, why, sizeof why)) {
    snprintf(tc.state, sizeof tc.state, "%zu records", tc.view.count);
    if (tc.view.count == 0)
      snprintf(tc.state, sizeof tc.state, "no records yet");
    return;
  }
  /* The one line: the file is ignored now, and the next flush replaces it. */
  snprintf(tc.state, sizeof tc.state, "ignored (%.120s); rebuilt by the next tuning", why);
  hop_log(1, "tuning cache %s: %s; ignored, it will be rebuilt", path, why);
}

static void ensure_loaded(void) { pthread_once(&tc.once, load); }

bool hop_tune_get(const char *scope, const char *name, char *value, size_t len)
{
  ensure_loaded();
  pthread_mutex_lock(&tc.lock);
  const char *v = hop_tune_store_get(&tc.view, scope, name);
  bool found = v != NULL && snprintf(value, len, "%s", v) < (int)len;
  pthread_mutex_unlock(&tc.lock);
  return found;
}

void hop_tune_put(const char *scope, const char *name, const char *value)
{
  ensure_loaded();
  pthread_mutex_lock(&tc.lock);
  if (!hop_tune_store_put(&tc.view, scope, name, value) ||
      !hop_tune_store_put(&tc.pending, scope, name, value))
    hop_log(1, "tuning cache: record %.40s not kept (too long, or %d records already)", name,
            HOP_TUNE_ENTRIES_MAX);
  pthread_mutex_unlock(&tc.lock);
}

void hop_tune_each(const char *scope, const char *prefix,
                   void (*fn)(const char *name, const char *value, void *arg), void *arg)
{
  ensure_loaded();
  pthread_mutex_lock(&tc.lock);
  for (size_t i = 0; i < tc.view.count; i++)
    if (strcmp(tc.view.e[i].scope, scope) == 0 &&
        strncmp(tc.view.e[i].name, prefix, strlen(prefix)) == 0)
      fn(tc.view.e[i].name, tc.view.e[i].value, arg);
  pthread_mutex_unlock(&tc.lock);
}

/* Under the file lock: the file as it is now, our records over it, renamed into place. */
static bool merge_and_write(char *why, size_t why_len)
{
  struct hop_tune_store merged;
  char ignored[160];
  if (!read_file(&merged, ignored, sizeof ignored))
    merged = (struct hop_tune_store){0}; /* reported at load or by whoever wrote it: rebuilt */
  for (size_t i = 0; i < tc.pending.count; i++)
    hop_tune_store_put(&merged, tc.pending.e[i].scope, tc.pending.e[i].name,
                       tc.pending.e[i].value);
  size_t len;
  char *text = hop_tune_format(&merged, &len);
  hop_tune_store_free(&merged);
  if (text == NULL) {
    snprintf(why, why_len, "out of memory");
    return false;
  }
  char path[4200], tmp[4220];
  file_path(path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
  int fd = mkstemp(tmp);
  bool ok = fd >= 0 && fchmod(fd, 0600) == 0 && hop_write_all(fd, text, len) && fsync(fd) == 0;
  int err = errno;
  if (fd >= 0 && close(fd) != 0 && ok)
    ok = false, err = errno;
  if (ok && rename(tmp, path) != 0)
    ok = false, err = errno;
  if (!ok) {
    snprintf(why, why_len, "%s", strerror(err));
    if (fd >= 0)
      unlink(tmp);
  }
  free(text);
  return ok;
}

bool hop_tune_flush(void)
{
  ensure_loaded();
  pthread_mutex_lock(&tc.lock);
  char why[200] = "no private cache directory";
  bool ok = tc.pending.count == 0;
  if (!ok && tc.have_dir) {
    char lock_path[4200];
    snprintf(lock_path, sizeof lock_path, "%s/tune.lock", tc.dir);
    int fd = hop_open_regular(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
    if (fd < 0) {
      snprintf(why, sizeof why, "%.120s: %s", lock_path, strerror(errno));
    } else {
      while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
        ;
      ok = merge_and_write(why, sizeof why);
      close(fd); /* releases the lock */
    }
  }
  if (ok && tc.pending.count > 0) {
    hop_tune_store_free(&tc.pending);
    snprintf(tc.state, sizeof tc.state, "%zu records", tc.view.count);
  } else if (!ok && !tc.warned_write && tc.have_dir) { /* no directory: load() said why */
    tc.warned_write = true;
    hop_log(1, "tuning cache: results cannot be stored in %s (%s); they are kept for this "
               "process only", tc.have_dir ? tc.dir : "the cache directory", why);
  }
  pthread_mutex_unlock(&tc.lock);
  return ok;
}

void hop_tune_describe(char *path, size_t path_len, char *state, size_t state_len)
{
  ensure_loaded();
  pthread_mutex_lock(&tc.lock);
  if (tc.dir[0] != '\0')
    snprintf(path, path_len, "%s/%s", tc.dir, HOP_TUNE_FILE_NAME);
  else
    snprintf(path, path_len, "none");
  snprintf(state, state_len, "%s", tc.state[0] ? tc.state : "no records yet");
  pthread_mutex_unlock(&tc.lock);
}

void hop_tune_cache_release(void)
{
  hop_tune_store_free(&tc.view);
  hop_tune_store_free(&tc.pending);
}

static void mode_read(void)
{
  const char *v = hop_config_get("HOPBLAS_TUNE");
  tc.mode = HOP_TUNE_CACHED;
  if (v != NULL && strcmp(v, "off") == 0)
    tc.mode = HOP_TUNE_OFF;
  else if (v != NULL && strcmp(v, "quick") == 0)
    tc.mode = HOP_TUNE_QUICK;
  else if (v != NULL && *v != '\0' && strcmp(v, "cached") != 0)
    hop_log(1, "HOPBLAS_TUNE=%.40s is not off|cached|quick; using cached", v);
}

enum hop_tune_mode hop_tune_mode(void)
{
  pthread_once(&tc.mode_once, mode_read);
  return tc.mode;
}

const char *hop_tune_mode_name(enum hop_tune_mode m)
{
  return m == HOP_TUNE_OFF ? "off" : m == HOP_TUNE_QUICK ? "quick" : "cached";
}
