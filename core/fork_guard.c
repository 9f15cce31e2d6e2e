/* fork() while other threads run inside the CPU BLAS (see hop_blas_enter
 * in core/hop.h).  OpenBLAS 0.3.21 takes a process-wide lock in
 * blas_memory_alloc() on the way into every GEMM and does not release it
 * in a forked child: a child forked while another thread held it hangs in
 * its first BLAS call.  So fork() waits, in a prepare handler, until no
 * thread is inside the BLAS through hopblas, and new entries wait until it
 * is done.  The wait is bounded: past WAIT_LIMIT_S (a call that long holds
 * no such lock most of its time; or a program's xerbla_ forked from inside
 * the BLAS) the fork goes on, with one log line.
 *
 * The handlers are registered again after each BLAS is loaded: prepare
 * handlers run in the reverse order of registration, and ours must run
 * before the BLAS's own (OpenBLAS stops its worker threads there). */
#include <pthread.h>
#include <time.h>

#include "hop.h"

#define WAIT_LIMIT_S 10.0

struct hop_blas_stripe hop_blas_stripes[HOP_BLAS_STRIPES];
atomic_bool hop_blas_forking;

static void pause_briefly(void) { nanosleep(&(struct timespec){0, 20000}, NULL); }

static int threads_inside(void)
{
  int n = 0;
  for (int i = 0; i < HOP_BLAS_STRIPES; i++)
    n += atomic_load(&hop_blas_stripes[i].inside);
  return n;
}

void hop_blas_wait_fork(atomic_int *stripe)
{
  do {
    atomic_fetch_sub(stripe, 1); /* back out, so that the fork can go on */
    while (atomic_load(&hop_blas_forking))
      pause_briefly();
    atomic_fetch_add(stripe, 1);
  } while (atomic_load(&hop_blas_forking));
}

static void before_fork(void)
{
  if (atomic_exchange(&hop_blas_forking, true))
    return; /* the same handler, registered earlier, has waited already */
  double t0 = hop_now();
  while (threads_inside() > 0) {
    if (hop_now() - t0 > WAIT_LIMIT_S) {
      hop_log(1, "fork(): %d calls were still inside the CPU BLAS after %.0f s; the fork goes on "
                 "(the child may find the BLAS's locks held)", threads_inside(), WAIT_LIMIT_S);
      return;
    }
    pause_briefly();
  }
}

static void after_fork_parent(void) { atomic_store(&hop_blas_forking, false); }

static void after_fork_child(void)
{
  for (int i = 0; i < HOP_BLAS_STRIPES; i++) /* the other threads are not in the child */
    atomic_store(&hop_blas_stripes[i].inside, 0);
  atomic_store(&hop_blas_forking, false);
}

void hop_blas_fork_guard_install(void)
{
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}
