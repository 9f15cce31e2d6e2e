/* HOPBLAS_TRACE: one CSV row per call, in the caller's terms (row-major
 * calls are shown as the caller made them, not as core/ ran them), for
 * every call: routed ones, quick returns and argument errors too.
 *
 * Rows are formatted without printf and kept in a process buffer: a row is
 * written at once when the last write is more than FLUSH_AFTER old (a slow
 * stream of calls loses nothing to a crash), else it waits for the buffer
 * to fill or for that age (a call-heavy program pays one write per few
 * thousand rows).  The buffer is written before fork() (the child starts
 * empty and, with %p in the path, opens its own file), at exit and when
 * the library is unloaded.  A forked child writes each row at once: it
 * may well end in _exit() (Python's multiprocessing workers do).  The file is opened non-blocking and written
 * with SIGPIPE and SIGXFSZ held back: a FIFO without reader, a reader that
 * left, a full pipe or a file-size limit turn tracing off (or drop rows)
 * with one log line, never block the program or kill it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hop.h"

enum { TRACE_BUF = 64 * 1024, ROW_MAX = 1024 };
#define FLUSH_AFTER 0.01 /* seconds */
enum { WAIT_MS = 100 };

enum trace_state { TRACE_UNOPENED, TRACE_OPEN, TRACE_OFF };

static struct {
  pthread_mutex_t lock;
  enum trace_state state;
  int fd;
  bool per_process; /* the path holds %p: a forked child opens its own file */
  bool hooks;       /* atexit and atfork handlers registered */
  bool write_through; /* every row written at once: exit() has begun, or a
                       * forked child (children often end in _exit()) */
  double last_write;
  size_t len;
  unsigned long dropped; /* rows since the last whole write; 0: the reader keeps up */
  bool said_dropped;
  char buf[TRACE_BUF];
} tr = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static double now_realtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the file ------------------------------------------------------------ */

/* HOPBLAS_TRACE with %p replaced by the process id, %r by the MPI rank
 * (0 outside an MPI job: core/rank.c) and %% by %. */
static bool expand_path(const char *in, char *out, size_t len, bool *per_process)
{
  size_t o = 0;
  *per_process = false;
  for (const char *p = in; *p != '\0'; p++) {
    char pid[24] = "";
    const char *piece = pid;
    long rank = 0;
    if (p[0] == '%' && p[1] == 'p') {
      snprintf(pid, sizeof pid, "%ld", (long)getpid());
      *per_process = true;
      p++;
    } else if (p[0] == '%' && p[1] == 'r') {
      hop_mpi_rank(false, &rank, NULL);
      snprintf(pid, sizeof pid, "%ld", rank);
      p++;
    } else if (p[0] == '%' && p[1] == '%') {
      pid[0] = '%';
      p++;
    } else {
      pid[0] = *p;
    }
    size_t n = strlen(piece);
    if (o + n >= len)
      return false;
    memcpy(out + o, piece, n);
    o += n;
  }
  out[o] = '\0';
  return true;
}

static void flush_locked(void);
static void at_exit_flush(void)
{
  pthread_mutex_lock(&tr.lock);
  flush_locked();
  tr.write_through = true; /* threads still calling write their rows themselves */
  pthread_mutex_unlock(&tr.lock);
}

static void before_fork(void)
{
  pthread_mutex_lock(&tr.lock);
  flush_locked();
}

static void after_fork_parent(void) { pthread_mutex_unlock(&tr.lock); }

/* getpid and gettid are system calls: asked once per process and thread. */
static long cached_pid;
static unsigned fork_generation = 1;
static __thread struct {
  unsigned generation;
  long tid;
} cached_tid;

static long trace_pid(void)
{
  if (__atomic_load_n(&cached_pid, __ATOMIC_RELAXED) == 0)
    __atomic_store_n(&cached_pid, (long)getpid(), __ATOMIC_RELAXED);
  return __atomic_load_n(&cached_pid, __ATOMIC_RELAXED);
}

static long trace_tid(void)
{
  unsigned gen = __atomic_load_n(&fork_generation, __ATOMIC_RELAXED);
  if (cached_tid.generation != gen) {
    cached_tid.tid = (long)syscall(SYS_gettid);
    cached_tid.generation = gen;
  }
  return cached_tid.tid;
}

static void after_fork_child(void)
{
  cached_pid = 0;
  fork_generation++;
  pthread_mutex_init(&tr.lock, NULL);
  tr.len = 0; /* written before the fork, by the parent */
  tr.write_through = true;
  if (tr.per_process && tr.state == TRACE_OPEN) {
    close(tr.fd);
    tr.fd = -1;
    tr.state = TRACE_UNOPENED;
  }
}

static void open_locked(void)
{
  char path[4096];
  const char *asked = hop_config()->trace_path;
  tr.state = TRACE_OFF;
  if (!expand_path(asked, path, sizeof path, &tr.per_process)) {
    hop_log(1, "trace file %s: path too long with %%p expanded; tracing is off", asked);
    return;
  }
  /* Non-blocking: a FIFO without reader fails (ENXIO) instead of waiting. */
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    hop_log(1, "trace file %s: %s; tracing is off", path,
            errno == ENXIO ? "a FIFO with no reader" : strerror(errno));
    if (fd >= 0)
      close(fd);
    return;
  }
  if (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode) && !S_ISCHR(sb.st_mode) &&
      !S_ISSOCK(sb.st_mode)) {
    hop_log(1, "trace file %s: not a file, FIFO or character device; tracing is off", path);
    close(fd);
    return;
  }
  tr.fd = fd;
  tr.state = TRACE_OPEN;
  if (!tr.hooks) {
    /* Registered by this library: glibc runs them at dlclose too. */
    atexit(at_exit_flush);
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    tr.hooks = true;
  }
  static const char header[] =
    "time,symbol,dtype,m,n,k,transa,transb,engine,why,seconds,gflops,verify,side,uplo,diag,pid,"
    "tid\n";
  if (!S_ISREG(sb.st_mode)) {
    memcpy(tr.buf + tr.len, header, sizeof header - 1);
    tr.len += sizeof header - 1;
    return;
  }
  /* Processes that share one file: the first to hold the lock finds it
   * empty and writes the header at once, so no other one sees it empty too
   * and every row comes after it.  A lock someone else keeps is waited for
   * WAIT_MS at most, then done without. */
  bool locked = false;
  for (int waited = 0; !(locked = flock(fd, LOCK_EX | LOCK_NB) == 0) && errno == EWOULDBLOCK &&
                       waited < WAIT_MS;
       waited++)
    poll(NULL, 0, 1);
  if (fstat(fd, &sb) == 0 && sb.st_size == 0)
    hop_write_all(fd, header, sizeof header - 1);
  if (locked)
    flock(fd, LOCK_UN);
}

/* Write the buffer; what cannot be written now is dropped, never waited for. */
static void flush_locked(void)
{
  if (tr.state != TRACE_OPEN || tr.len == 0) {
    tr.len = 0;
    return;
  }
  size_t done = 0, part;
  enum hop_write_result wr = hop_write_nosignal(tr.fd, tr.buf, tr.len, &done);
  /* A pipe reader slower than the calls gets a moment (the program waits at
   * most WAIT_MS per write); one that does not read at all, none again
   * until it catches up. */
  for (int waited = 0; wr == HOP_WRITE_AGAIN && tr.dropped == 0 && waited < WAIT_MS; waited++) {
    poll(&(struct pollfd){.fd = tr.fd, .events = POLLOUT}, 1, 1);
    wr = hop_write_nosignal(tr.fd, tr.buf + done, tr.len - done, &part);
    done += part;
  }
  tr.last_write = now_realtime();
  if (wr == HOP_WRITE_OK)
    tr.dropped = 0;
  if (wr == HOP_WRITE_AGAIN) {
    /* A pipe whose reader is slow: count whole rows lost, say so once. */
    unsigned long rows = 0;
    for (size_t i = done; i < tr.len; i++)
      rows += tr.buf[i] == '\n';
    if (!tr.said_dropped)
      hop_log(1, "trace: the reader of %s is not keeping up; rows are dropped",
              hop_config()->trace_path);
    tr.said_dropped = true;
    tr.dropped += rows;
  } else if (wr == HOP_WRITE_FAILED) {
    hop_log(1, "trace file %s: %s; tracing is off", hop_config()->trace_path,
            errno == EPIPE ? "the reader has gone" : strerror(errno));
    close(tr.fd);
    tr.fd = -1;
    tr.state = TRACE_OFF;
  }
  tr.len = 0;
}

static void append(const char *row, size_t n, double t)
{
  pthread_mutex_lock(&tr.lock);
  if (tr.state == TRACE_UNOPENED)
    open_locked();
  if (tr.state == TRACE_OPEN) {
    if (tr.len + n > sizeof tr.buf)
      flush_locked();
    memcpy(tr.buf + tr.len, row, n);
    tr.len += n;
    if (tr.write_through || t - tr.last_write >= FLUSH_AFTER || tr.len > sizeof tr.buf - ROW_MAX)
      flush_locked();
  }
  pthread_mutex_unlock(&tr.lock);
}

void hop_trace_flush(void)
{
  pthread_mutex_lock(&tr.lock);
  flush_locked();
  pthread_mutex_unlock(&tr.lock);
}

void hop_trace_release(void)
{
  pthread_mutex_lock(&tr.lock);
  flush_locked();
  if (tr.fd >= 0)
    close(tr.fd);
  tr.fd = -1;
  tr.state = TRACE_UNOPENED;
  pthread_mutex_unlock(&tr.lock);
}

bool hop_trace_on(void) { return hop_config()->trace_path[0] != '\0'; }

/* ---- formatting ------------------------------------------------------------ */

struct row {
  char s[ROW_MAX];
  size_t n;
};

/* Bytes left in the row when `reserve` are kept for the columns after. */
static size_t room(const struct row *r, size_t reserve)
{
  return r->n + reserve < sizeof r->s ? sizeof r->s - r->n - reserve : 0;
}

static void put_str(struct row *r, const char *s)
{
  size_t n = strlen(s), left = room(r, 64); /* the fixed columns after it */
  n = n < left ? n : left;
  memcpy(r->s + r->n, s, n);
  r->n += n;
}

/* The row's last byte is kept for its newline (emit). */
static void put_char(struct row *r, char c)
{
  if (r->n < sizeof r->s - 1)
    r->s[r->n++] = c;
}

static void put_uint(struct row *r, unsigned long long v)
{
  char digits[24];
  int d = 0;
  do
    digits[d++] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  while (d > 0)
    put_char(r, digits[--d]);
}

static void put_int(struct row *r, long long v)
{
  if (v < 0)
    put_char(r, '-');
  put_uint(r, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);
}

/* v >= 0 with a fixed number of decimals (rounded). */
static void put_fixed(struct row *r, double v, int decimals)
{
  double scale = 1.0;
  for (int i = 0; i < decimals; i++)
    scale *= 10.0;
  if (!(v >= 0.0) || v * scale >= 1.8e19) {
    put_str(r, v >= 0.0 ? "inf" : "0");
    return;
  }
  unsigned long long units = (unsigned long long)(v * scale + 0.5);
  unsigned long long div = (unsigned long long)scale, whole = units / div, frac = units % div;
  put_uint(r, whole);
  put_char(r, '.');
  for (unsigned long long p = div / 10; p > 0; p /= 10)
    put_char(r, (char)('0' + frac / p % 10));
}

/* The why text may hold commas and quotes: CSV-quoted. */
static void put_quoted(struct row *r, const char *s)
{
  put_char(r, '"');
  for (; *s != '\0' && room(r, 72) > 0; s++) {
    if (*s == '"')
      put_char(r, '"');
    put_char(r, *s == '\n' ? ' ' : *s);
  }
  put_char(r, '"');
}

static void emit(const struct hop_trace_call *c, const char *engine, const char *why,
                 double seconds, double gflops, const char *verify)
{
  struct row r = {.n = 0};
  double t = now_realtime();
  put_fixed(&r, t, 6);
  put_char(&r, ',');
  put_str(&r, c->symbol);
  put_char(&r, ',');
  put_str(&r, hop_dtype_name(c->dtype));
  put_char(&r, ',');
  put_int(&r, c->m);
  put_char(&r, ',');
  put_int(&r, c->n);
  put_char(&r, ',');
  put_int(&r, c->k);
  put_char(&r, ',');
  put_char(&r, c->transa);
  put_char(&r, ',');
  put_char(&r, c->transb);
  put_char(&r, ',');
  put_str(&r, engine);
  put_char(&r, ',');
  put_quoted(&r, why);
  put_char(&r, ',');
  put_fixed(&r, seconds, 9);
  put_char(&r, ',');
  put_fixed(&r, gflops, 3);
  put_char(&r, ',');
  put_str(&r, verify ? verify : "");
  put_char(&r, ',');
  put_char(&r, c->side ? c->side : '-');
  put_char(&r, ',');
  put_char(&r, c->uplo ? c->uplo : '-');
  put_char(&r, ',');
  put_char(&r, c->diag ? c->diag : '-');
  put_char(&r, ',');
  put_int(&r, trace_pid());
  put_char(&r, ',');
  put_int(&r, trace_tid());
  r.s[r.n++] = '\n'; /* put_char kept this byte free */
  append(r.s, r.n, t);
}

/* The call as the caller made it: core/ holds the column-major form, and a
 * row-major call had its dimensions, sides, triangles and transposes swapped. */
static struct hop_trace_call caller_view(const struct hop_call *g)
{
  struct hop_trace_call c = {.symbol = g->symbol, .dtype = g->dtype, .m = g->m, .n = g->n,
                             .k = g->k, .transa = hop_trans_letter(g->ta), .transb = '-'};
  hop_call_letters(g, &c.side, &c.uplo, &c.diag);
  bool swap = g->row_major;
  switch (g->op) {
  case HOP_OP_GEMM:
  case HOP_OP_GEMM_BATCH: /* its first group's shape and transposes (hop_batch_call) */
    c.transb = hop_trans_letter(g->tb);
    if (swap)
      c.transa = hop_trans_letter(g->tb), c.transb = hop_trans_letter(g->ta);
    break;
  case HOP_OP_SYMM:
  case HOP_OP_HEMM: c.transa = '-'; /* fall through */
  case HOP_OP_TRMM:
  case HOP_OP_TRSM:
    if (swap) {
      c.side = c.side == 'L' ? 'R' : 'L';
      c.uplo = c.uplo == 'U' ? 'L' : 'U';
    }
    break;
  case HOP_OP_GEMMT: /* GEMM's swap, and the mirrored triangle */
    c.transb = hop_trans_letter(g->tb);
    if (swap) {
      c.transa = hop_trans_letter(g->tb), c.transb = hop_trans_letter(g->ta);
      c.uplo = c.uplo == 'U' ? 'L' : 'U';
    }
    return c;
  case HOP_OP_SYRK:
  case HOP_OP_HERK:
  case HOP_OP_SYR2K:
  case HOP_OP_HER2K:
    if (swap) { /* the caller's transpose is the other one of the pair */
      c.transa = hop_trans_letter(g->tb);
      c.uplo = c.uplo == 'U' ? 'L' : 'U';
    }
    return c; /* m == n: nothing to swap */
  case HOP_OP_COUNT: break;
  }
  if (swap)
    c.m = g->n, c.n = g->m;
  return c;
}

void hop_trace_row(const struct hop_call *g, const char *engine, const char *why, double seconds,
                   const char *verify)
{
  struct hop_trace_call c = caller_view(g);
  double gflops = seconds > 0.0 ? hop_call_flops(g) / seconds * 1e-9 : 0.0;
  emit(&c, engine, why, seconds, gflops, verify);
}

void hop_trace_unrouted(const struct hop_trace_call *c, const char *engine, const char *why)
{
  emit(c, engine, why, 0.0, 0.0, "");
}

char hop_trace_cblas_trans(int t)
{
  return t == 111 ? 'N' : t == 112 ? 'T' : t == 113 ? 'C' : t == 114 ? 'R' : '?';
}

char hop_trace_fortran_trans(char t) { return t > ' ' && t < 127 && t != ',' ? t : '?'; }
