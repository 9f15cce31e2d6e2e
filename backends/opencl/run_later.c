/* Queue work held for the next host copy.  A staged call from host memory
 * is bound by the host's copies, and every millisecond the calling thread
 * spends in the driver's enqueue calls between them is a millisecond the
 * copy threads wait (on the H200, 1.0 to 1.5 ms of a dgemm 8192's 30 for
 * its 48 kernels and 32 read-backs).  So a tile's read-back, and in the
 * leading passes each kernel, is held here and queued on the calling
 * thread while the copy threads run the next copy (transfer.c calls
 * sg->later beside each pack and each write into C), or just before the
 * host would wait for the device, whichever comes first
 * (HOPBLAS_OPENCL_QUEUE_BESIDE).
 *
 * Held work goes to the queues in the order it was held.  A C slot whose
 * read-back is held is never waited for before it is queued (tile_finish
 * runs the held work first).  Kernels are held only where nothing queued
 * in between reads what they leave: the leading passes' kernels write the
 * call's sums and set no slot's last use, and their slabs go to parts of
 * the blocks no kernel is reading; not for complex planes, whose spreads
 * settle with each slot's next upload, nor for a part of a shared call. */
#include <stdlib.h>

#include "run.h"

/* HOPBLAS_OPENCL_QUEUE_BESIDE: 1 holds queue work for the next host copy. */
static bool queue_beside(void)
{
  return hop_config_int("HOPBLAS_OPENCL_QUEUE_BESIDE", 0, 1, 1) == 1;
}

static void run_held(void *arg) { hop_ocl_later_run(arg); }

void hop_ocl_later_start(struct hop_ocl_call *c)
{
  struct hop_ocl_later *h = &c->later;
  h->reads = queue_beside() && c->ops->c_pinned && c->st->shared == NULL;
  h->kernels = h->reads && c->g->planes == NULL;
  if (h->reads) {
    c->sg.later = run_held;
    c->sg.later_arg = c;
  }
}

static void item_drop(struct hop_ocl_later_item *it)
{
  hop_ocl_ev_put(&it->a_ready, NULL);
  hop_ocl_ev_put(&it->b_ready, NULL);
  hop_ocl_ev_put(&it->kev, NULL);
  if (it->cs != NULL)
    it->cs->held = false;
}

/* Queue one held item: its kernel (unless it holds one already done), then its read-back. */
static void item_run(struct hop_ocl_call *c, struct hop_ocl_later_item *it)
{
  struct hop_ocl_c_slot none = {0};
  bool ok = c->err == CL_SUCCESS;
  if (ok && it->kev == NULL)
    ok = hop_ocl_call_launch_part(c, it->cs != NULL ? it->cs : &none, &it->l, it->a, it->b,
                                  it->k0, it->kb, it->first, it->a_ready, it->b_ready, &it->kev);
  struct hop_ocl_c_slot *cs = it->cs;
  it->cs = NULL;
  if (cs != NULL) {
    cs->held = false;
    if (ok)
      hop_ocl_call_read_tile(c, cs, it->kev);
  }
  item_drop(it);
}

void hop_ocl_later_run(struct hop_ocl_call *c)
{
  struct hop_ocl_later *h = &c->later;
  if (h->n == 0 || h->running)
    return;
  h->running = true; /* what it queues never copies, but never twice at once */
  for (int i = 0; i < h->n; i++)
    item_run(c, &h->item[i]);
  h->n = 0;
  hop_ocl_call_flush(c);
  h->running = false;
}

/* A free place in the list (full: what it holds is queued now). */
static struct hop_ocl_later_item *item_new(struct hop_ocl_call *c)
{
  struct hop_ocl_later *h = &c->later;
  if (h->n == HOP_OCL_LATER_MAX)
    hop_ocl_later_run(c);
  struct hop_ocl_later_item *it = &h->item[h->n++];
  *it = (struct hop_ocl_later_item){0};
  return it;
}

static cl_event retained(cl_event ev)
{
  if (ev != NULL)
    clRetainEvent(ev);
  return ev;
}

bool hop_ocl_later_launch(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs,
                          const struct hop_ocl_launch *l, struct hop_ocl_op_slot *a,
                          struct hop_ocl_op_slot *b, int k0, int kb, bool first, cl_event a_ready,
                          cl_event b_ready)
{
  if (!c->later.kernels) {
    struct hop_ocl_c_slot none = {0};
    struct hop_ocl_launch now = *l;
    cl_event kev = NULL;
    if (!hop_ocl_call_launch_part(c, cs != NULL ? cs : &none, &now, a, b, k0, kb, first, a_ready,
                                  b_ready, &kev))
      return hop_ocl_ev_put(&kev, NULL), false;
    return cs == NULL ? (hop_ocl_ev_put(&kev, NULL), true) : hop_ocl_later_read(c, cs, kev);
  }
  struct hop_ocl_later_item *it = item_new(c);
  it->cs = cs, it->l = *l, it->a = a, it->b = b, it->k0 = k0, it->kb = kb, it->first = first;
  it->a_ready = retained(a_ready), it->b_ready = retained(b_ready);
  if (cs != NULL)
    cs->held = cs->busy = true;
  return true;
}

bool hop_ocl_later_read(struct hop_ocl_call *c, struct hop_ocl_c_slot *cs, cl_event kev)
{
  if (!c->later.reads) {
    bool ok = hop_ocl_call_read_tile(c, cs, kev);
    hop_ocl_ev_put(&kev, NULL);
    return ok;
  }
  struct hop_ocl_later_item *it = item_new(c);
  it->cs = cs, it->kev = kev;
  cs->held = cs->busy = true;
  return true;
}

void hop_ocl_later_end(struct hop_ocl_call *c)
{
  struct hop_ocl_later *h = &c->later;
  for (int i = 0; i < h->n; i++)
    item_drop(&h->item[i]);
  h->n = 0;
  c->sg.later = NULL;
}
