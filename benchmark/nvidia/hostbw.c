/* The host's memory bandwidth, the ceiling of a call that must copy
 * operands into staging buffers while the GPUs' DMA reads them: copies of
 * `mib` MiB (glibc's memcpy, which streams its stores at these sizes) and
 * reads, by 1, 2, 4, ... up to `threads` threads, each on its own share of
 * buffers that the same thread first touched.  Prints GB/s of bytes
 * copied and of memory traffic (a streamed copy reads and writes each byte
 * once), best and median of `reps`.  Then, at the widest, the copy as the
 * engine writes C back: in runs of `run` KiB (a tile's column), by
 * backends/opencl/copy_stream.c's 16-byte streaming stores, by memcpy, and
 * by its 32-byte ones where the CPU has AVX2.
 *   hostbw [mib=2048] [threads=all cores] [reps=5] [run=64] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* copy_stream.c: stores `width` bytes wide; returns the width it used */
int hop_ocl_copy_bytes_wide(void *dst, const void *src, size_t n, int width);

enum how { COPY, READ, RUNS_STREAM16, RUNS_MEMCPY, RUNS_STREAM32 };
static size_t run_bytes = 64 << 10;

struct share {
  unsigned char *src, *dst;
  size_t bytes;
  enum how how;
  pthread_barrier_t *start;
  double sum; /* what the reads add up, so they are not dropped */
};

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *run(void *arg)
{
  struct share *s = arg;
  pthread_barrier_wait(s->start);
  if (s->how == READ) {
    const uint64_t *p = (const uint64_t *)s->src;
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (size_t i = 0; i + 4 <= s->bytes / 8; i += 4)
      a += p[i], b += p[i + 1], c += p[i + 2], d += p[i + 3];
    s->sum = (double)(a + b + c + d);
  } else if (s->how == COPY) {
    memcpy(s->dst, s->src, s->bytes);
  } else {
    for (size_t at = 0; at < s->bytes; at += run_bytes) {
      size_t n = s->bytes - at < run_bytes ? s->bytes - at : run_bytes;
      if (s->how == RUNS_MEMCPY)
        memcpy(s->dst + at, s->src + at, n);
      else
        hop_ocl_copy_bytes_wide(s->dst + at, s->src + at, n, s->how == RUNS_STREAM32 ? 32 : 16);
    }
  }
  pthread_barrier_wait(s->start);
  return NULL;
}

static void *touch(void *arg)
{
  struct share *s = arg;
  memset(s->src, 1, s->bytes);
  memset(s->dst, 2, s->bytes);
  return NULL;
}

static int cmp(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* One timed pass of `threads` threads: seconds from the start to the last end. */
static double pass(unsigned char *src, unsigned char *dst, size_t bytes, int threads, enum how how,
                   double *sink)
{
  pthread_t tid[256];
  struct share sh[256];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
  size_t per = bytes / (size_t)threads / 4096 * 4096;
  for (int i = 0; i < threads; i++) {
    sh[i] = (struct share){src + (size_t)i * per, dst + (size_t)i * per, per, how, &start, 0};
    pthread_create(&tid[i], NULL, run, &sh[i]);
  }
  pthread_barrier_wait(&start);
  double t0 = now();
  pthread_barrier_wait(&start);
  double t = now() - t0;
  for (int i = 0; i < threads; i++) {
    pthread_join(tid[i], NULL);
    *sink += sh[i].sum;
  }
  pthread_barrier_destroy(&start);
  return t;
}

int main(int argc, char **argv)
{
  size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 2048;
  int most = argc > 2 ? atoi(argv[2]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  if (argc > 4)
    run_bytes = (size_t)atol(argv[4]) << 10;
  if (most < 1 || most > 256 || reps < 1 || mib < 1 || run_bytes < 4096) {
    fprintf(stderr, "usage: hostbw [mib] [threads 1-256] [reps] [run KiB >= 4]\n");
    return 2;
  }
  size_t bytes = mib << 20;
  unsigned char *src = aligned_alloc(4096, bytes), *dst = aligned_alloc(4096, bytes);
  if (src == NULL || dst == NULL) {
    fprintf(stderr, "hostbw: cannot allocate 2 x %zu MiB\n", mib);
    return 1;
  }
  /* first touch by the threads of the widest pass, each its own share */
  pthread_t tid[256];
  struct share sh[256];
  size_t per = bytes / (size_t)most / 4096 * 4096;
  for (int i = 0; i < most; i++) {
    sh[i] = (struct share){src + (size_t)i * per, dst + (size_t)i * per, per, COPY, NULL, 0};
    pthread_create(&tid[i], NULL, touch, &sh[i]);
  }
  for (int i = 0; i < most; i++)
    pthread_join(tid[i], NULL);
  double sink = 0.0;
  printf("# hostbw: %zu MiB, %d reps; GB/s best / median\n", mib, reps);
  for (int threads = 1;; threads = threads * 2 > most && threads < most ? most : threads * 2) {
    double t[2][64];
    for (int r = 0; r < reps && r < 64; r++)
      for (int ro = 0; ro < 2; ro++)
        t[ro][r] = pass(src, dst, bytes, threads, ro ? READ : COPY, &sink);
    double moved = (double)(bytes / (size_t)threads / 4096 * 4096) * threads;
    for (int ro = 0; ro < 2; ro++)
      qsort(t[ro], (size_t)reps, sizeof t[ro][0], cmp);
    printf("threads %3d  copy %7.1f / %7.1f (traffic %7.1f / %7.1f)  read %7.1f / %7.1f\n", threads,
           moved / t[0][0] / 1e9, moved / t[0][reps / 2] / 1e9, 2 * moved / t[0][0] / 1e9,
           2 * moved / t[0][reps / 2] / 1e9, moved / t[1][0] / 1e9, moved / t[1][reps / 2] / 1e9);
    fflush(stdout);
    if (threads >= most)
      break;
  }
  const char *name[] = {[RUNS_STREAM16] = "16-byte streaming", [RUNS_MEMCPY] = "memcpy",
                        [RUNS_STREAM32] = "32-byte streaming"};
  for (enum how how = RUNS_STREAM16; how <= RUNS_STREAM32; how++) {
    unsigned char probe[8192];
    if (how != RUNS_MEMCPY &&
        hop_ocl_copy_bytes_wide(probe, probe + 4096, 4096, how == RUNS_STREAM32 ? 32 : 16) !=
          (how == RUNS_STREAM32 ? 32 : 16))
      continue; /* no such stores here */
    double t[64];
    for (int r = 0; r < reps && r < 64; r++)
      t[r] = pass(src, dst, bytes, most, how, &sink);
    qsort(t, (size_t)reps, sizeof t[0], cmp);
    double moved = (double)(bytes / (size_t)most / 4096 * 4096) * most;
    printf("threads %3d  runs of %zu KiB by %-18s copy %7.1f / %7.1f\n", most, run_bytes >> 10,
           name[how], moved / t[0] / 1e9, moved / t[reps / 2] / 1e9);
  }
  return sink == -1.0; /* never: keeps the reads */
}
