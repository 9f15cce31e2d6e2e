/* 8 threads call cblas_sgemm, sgemm_, cblas_hgemm, hgemm_ and cblas_shgemm
 * at once, with mixed sizes, on shared read-only A and B and private C;
 * every result must equal, bit for bit, the single-threaded result of the
 * same call on the same engine (which is first checked against the
 * reference).  The engine is whatever the environment selects.
 *
 *   threads [--threads T] [--rounds R] [--max-dim N]      prints TAP */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { MAX_JOBS = 32, MAX_THREADS = 64 };

struct job {
  struct ht_call call;     /* shared A and B; C holds the inputs */
  unsigned char *expected; /* C buffer after the single-threaded call */
};

struct worker {
  pthread_t tid;
  int id, rounds, njobs, mismatches;
  struct job *jobs;
  pthread_barrier_t *start;
  char first[512];
};

static void *work(void *arg)
{
  struct worker *w = arg;
  pthread_barrier_wait(w->start);
  for (int r = 0; r < w->rounds; r++)
    for (int q = 0; q < w->njobs; q++) {
      struct job *j = &w->jobs[(q + w->id + r) % w->njobs]; /* threads meet on different jobs */
      struct ht_call mine = j->call;
      size_t bytes = j->call.c.cells * j->call.c.esize;
      unsigned char *cbuf = malloc(bytes);
      if (cbuf == NULL) {
        w->mismatches++;
        snprintf(w->first, sizeof w->first, "out of memory");
        continue;
      }
      memcpy(cbuf, j->call.c.saved, bytes); /* C as it was before the serial call */
      mine.c.buf = cbuf;
      mine.c.p = cbuf + ((unsigned char *)j->call.c.p - j->call.c.buf);
      ht_call_invoke(&mine);
      if (memcmp(cbuf, j->expected, bytes) != 0 && w->mismatches++ == 0)
        ht_call_describe(&j->call, w->first, sizeof w->first);
      free(cbuf);
    }
  return NULL;
}

int main(int argc, char **argv)
{
  int nthreads = 8, rounds = 4, max_dim = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--threads") == 0)
      nthreads = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--rounds") == 0)
      rounds = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--max-dim") == 0)
      max_dim = atoi(argv[i + 1]);
  }
  if (nthreads < 1 || nthreads > MAX_THREADS || rounds < 1 || max_dim < 1) {
    fprintf(stderr, "usage: threads [--threads 1..64] [--rounds R] [--max-dim N]\n");
    return 2;
  }
  static const int sizes[][3] = {{3, 5, 7}, {64, 64, 64}, {100, 37, 129}, {1, 200, 3}, {257, 129, 65}, {17, 300, 33}};
  static const struct {
    enum ht_dtype dt;
    enum ht_entry e;
    int order, ta, tb;
  } kinds[] = {{HT_S, HT_CBLAS, HT_ROW, HT_N, HT_T}, {HT_S, HT_FORTRAN, HT_COL, HT_T, HT_N},
               {HT_H, HT_CBLAS, HT_COL, HT_N, HT_N}, {HT_H, HT_FORTRAN, HT_COL, HT_T, HT_T},
               {HT_SH, HT_CBLAS, HT_ROW, HT_T, HT_N}};
  struct job jobs[MAX_JOBS];
  int njobs = 0, bad_serial = 0;
  char why[512] = "", first_serial[512] = "";
  struct ht_rng rng = {4242};
  printf("1..2\n");
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t q = 0; q < sizeof kinds / sizeof kinds[0] && njobs < MAX_JOBS; q++) {
      if ((s + q) % 2) /* every kind at three sizes: 15 jobs */
        continue;
      struct job *j = &jobs[njobs];
      j->call = (struct ht_call){.dtype = kinds[q].dt, .entry = kinds[q].e, .order = kinds[q].order,
                                 .ta = kinds[q].ta, .tb = kinds[q].tb,
                                 .m = sizes[s][0] < max_dim ? sizes[s][0] : max_dim,
                                 .n = sizes[s][1] < max_dim ? sizes[s][1] : max_dim,
                                 .k = sizes[s][2] < max_dim ? sizes[s][2] : max_dim,
                                 .alpha = 0.5, .beta = s % 3 == 0 ? 0.0 : -1.0};
      static const int pad[3] = {1, 0, 2}, off[3] = {1, 3, 0};
      if (!ht_call_alloc(&j->call, pad, off)) {
        printf("Bail out! out of memory\n");
        return 1;
      }
      ht_call_fill(&j->call, &rng);
      ht_call_run(&j->call);
      if (!ht_call_check(&j->call, 2.0, why, sizeof why) && bad_serial++ == 0) {
        ht_call_describe(&j->call, first_serial, sizeof first_serial);
        strncat(first_serial, ": ", sizeof first_serial - strlen(first_serial) - 1);
        strncat(first_serial, why, sizeof first_serial - strlen(first_serial) - 1);
      }
      size_t bytes = j->call.c.cells * j->call.c.esize;
      j->expected = malloc(bytes);
      if (j->expected == NULL) {
        printf("Bail out! out of memory\n");
        return 1;
      }
      memcpy(j->expected, j->call.c.buf, bytes);
      njobs++;
    }
  printf("%s 1 - %d single-threaded calls match the reference\n", bad_serial ? "not ok" : "ok", njobs);
  if (bad_serial)
    printf("# %d wrong; first: %s\n", bad_serial, first_serial);

  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)nthreads);
  struct worker workers[MAX_THREADS];
  for (int t = 0; t < nthreads; t++) {
    workers[t] = (struct worker){.id = t, .rounds = rounds, .njobs = njobs, .jobs = jobs, .start = &start};
    if (pthread_create(&workers[t].tid, NULL, work, &workers[t]) != 0) {
      printf("Bail out! pthread_create failed\n");
      return 1;
    }
  }
  int mismatches = 0;
  const char *first = NULL;
  for (int t = 0; t < nthreads; t++) {
    pthread_join(workers[t].tid, NULL);
    mismatches += workers[t].mismatches;
    if (workers[t].mismatches && first == NULL)
      first = workers[t].first;
  }
  printf("%s 2 - %d threads x %d rounds x %d calls equal the single-threaded results bitwise\n",
         mismatches ? "not ok" : "ok", nthreads, rounds, njobs);
  if (mismatches)
    printf("# %d mismatches; first: %s\n", mismatches, first);
  for (int q = 0; q < njobs; q++)
    ht_call_free(&jobs[q].call), free(jobs[q].expected);
  return bad_serial || mismatches ? 1 : 0;
}
