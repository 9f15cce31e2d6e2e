/* The tuning cache (DESIGN §6): tuned kernel parameters and the router's
 * calibration, as text records (SCOPE, NAME) -> VALUE in one file of the
 * cache directory, tune.txt.  SCOPE names everything the value depends on
 * (device, driver, library version, kernel source hash, ...), so a record
 * that no longer applies is simply never looked up.
 *
 * The file is data from outside the process and never trusted: every
 * field is bounded, the whole file is checked (version line, record count
 * and hash in the last line) before any record is used, and a file that
 * fails any check is ignored with one log line and rebuilt by the next
 * write.  Values are text; their readers parse them with their own bounds.
 *
 *   hopblas-tune 1
 *   SCOPE NAME VALUE            one record per line, fields percent-escaped
 *   end COUNT HASH              records, FNV-1a 64 of every byte before this line
 */
#ifndef HOP_TUNE_CACHE_H
#define HOP_TUNE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hop_call;

#define HOP_TUNE_SCOPE_MAX 320   /* bytes of a field after unescaping, with the NUL */
#define HOP_TUNE_NAME_MAX 64
#define HOP_TUNE_VALUE_MAX 512
#define HOP_TUNE_ENTRIES_MAX 1024
#define HOP_TUNE_FILE_MAX (1024 * 1024)
#define HOP_TUNE_FILE_NAME "tune.txt"

struct hop_tune_entry {
  char scope[HOP_TUNE_SCOPE_MAX];
  char name[HOP_TUNE_NAME_MAX];
  char value[HOP_TUNE_VALUE_MAX];
};

/* A set of records; the parser and the writer work on one. */
struct hop_tune_store {
  size_t count, cap;
  struct hop_tune_entry *e;
};

void hop_tune_store_free(struct hop_tune_store *s);
/* Insert or replace; false when a field is too long or the store is full. */
bool hop_tune_store_put(struct hop_tune_store *s, const char *scope, const char *name,
                        const char *value);
const char *hop_tune_store_get(const struct hop_tune_store *s, const char *scope,
                               const char *name);
/* Parse a whole file image; all or nothing: on false, why says what was
 * wrong (line number included) and s is left empty. */
bool hop_tune_parse(const char *text, size_t len, struct hop_tune_store *s, char *why,
                    size_t why_len);
/* The file image of s (malloc'd, NUL-terminated); NULL when out of memory. */
char *hop_tune_format(const struct hop_tune_store *s, size_t *len);

/* ---- the process's view of the file (tune_cache.c) ----------------------
 * Loaded once, on first use; lookups never touch the disk again.  Puts
 * change the view and are remembered until hop_tune_flush() merges them
 * into the file under a lock (another process may have written since).
 * The copy out of get() keeps callers off the view's lock. */
bool hop_tune_get(const char *scope, const char *name, char *value, size_t len);
void hop_tune_put(const char *scope, const char *name, const char *value);
/* Write the puts of this process; false (one log line) when it cannot. */
bool hop_tune_flush(void);
/* Every record of a scope whose name starts with prefix, for reports:
 * calls fn(name, value, arg) under the view's lock. */
void hop_tune_each(const char *scope, const char *prefix,
                   void (*fn)(const char *name, const char *value, void *arg), void *arg);
/* The file's path, and what became of it ("12 records", "none yet", the reason it was ignored). */
void hop_tune_describe(char *path, size_t path_len, char *state, size_t state_len);
/* Free the view when the library is unloaded (puts not flushed are dropped, as at exit). */
void hop_tune_cache_release(void);

/* HOPBLAS_TUNE */
enum hop_tune_mode { HOP_TUNE_OFF, HOP_TUNE_CACHED, HOP_TUNE_QUICK };
enum hop_tune_mode hop_tune_mode(void);
const char *hop_tune_mode_name(enum hop_tune_mode m);

/* ---- curves: "SIZE:GFLOPS,SIZE:GFLOPS,..." (calibrate.c) ---------------- */
#define HOP_CURVE_POINTS 24
struct hop_curve {
  int n;
  double size[HOP_CURVE_POINTS]; /* cbrt(m n k), increasing */
  double gflops[HOP_CURVE_POINTS];
};
bool hop_curve_parse(const char *text, struct hop_curve *c);
void hop_curve_format(const struct hop_curve *c, char *buf, size_t len);
/* Rate at a size: linear in log(size) between points, flat beyond the ends. */
double hop_curve_gflops(const struct hop_curve *c, double size);



#endif
