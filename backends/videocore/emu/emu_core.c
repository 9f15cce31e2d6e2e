/* The emulator's life: memory, launching threads, the cycle loop that
 * interleaves the QPUs, deadlock and cycle-cap detection, faults, counters. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the emulator keeps QPU memory in host byte order, which must be little-endian like the QPU's"
#endif

void hop_qpuemu_timing_default(struct hop_qpuemu_timing *t)
{
  /* Memory latency ~20 clocks [HW] = 5 cycles; a VPM setup takes 3
   * instructions [HW]; DMA at 16 bytes per cycle (4 bytes per clock). */
  t->tmu_latency = 5;
  t->vpm_setup_latency = 3;
  t->dma_latency = 8;
  t->dma_bytes_per_cycle = 16;
  t->sfu_latency = 3;
}

static struct hop_qpuemu *create(uint32_t base, size_t size)
{
  if (size == 0 || (uint64_t)base + size > 0x100000000ull)
    return NULL;
  struct hop_qpuemu *e = calloc(1, sizeof *e);
  if (e == NULL)
    return NULL;
  e->dcache = calloc(EMU_DCACHE, sizeof *e->dcache);
  if (e->dcache == NULL) {
    free(e);
    return NULL;
  }
  e->base = base;
  e->size = size;
  e->mutex_owner = -1;
  e->dma_pitch_bits = 13;
  hop_qpuemu_timing_default(&e->timing);
  for (unsigned r = 0; r < EMU_VPM_ROWS; r++)
    for (unsigned i = 0; i < EMU_LANES; i++)
      e->vpm[r][i] = HOP_QPUEMU_POISON;
  return e;
}

struct hop_qpuemu *hop_qpuemu_new(uint32_t base, size_t size)
{
  struct hop_qpuemu *e = create(base, size);
  if (e == NULL)
    return NULL;
  e->mem = malloc(size);
  if (e->mem == NULL) {
    hop_qpuemu_free(e);
    return NULL;
  }
  e->owns_mem = true;
  uint32_t p = HOP_QPUEMU_POISON;
  size_t whole = size & ~(size_t)3;
  for (size_t i = 0; i < whole; i += 4)
    memcpy(e->mem + i, &p, 4);
  memset(e->mem + whole, 0xbd, size - whole);
  return e;
}

struct hop_qpuemu *hop_qpuemu_new_shared(uint32_t base, void *mem, size_t size)
{
  struct hop_qpuemu *e = mem ? create(base, size) : NULL;
  if (e != NULL)
    e->mem = mem;
  return e;
}

void hop_qpuemu_free(struct hop_qpuemu *e)
{
  if (e == NULL)
    return;
  if (e->owns_mem)
    free(e->mem);
  free(e->dcache);
  free(e->prof_issue);
  free(e->prof_stall);
  free(e);
}

void hop_qpuemu_set_timing(struct hop_qpuemu *e, const struct hop_qpuemu_timing *t) { e->timing = *t; }
void hop_qpuemu_set_dma_pitch_bits(struct hop_qpuemu *e, unsigned bits)
{
  if (bits == 13 || bits == 16)
    e->dma_pitch_bits = bits;
}

uint32_t hop_qpuemu_base(const struct hop_qpuemu *e) { return e->base; }
size_t hop_qpuemu_size(const struct hop_qpuemu *e) { return e->size; }

bool emu_mem_ok(const struct hop_qpuemu *e, uint32_t bus, size_t len)
{
  return bus >= e->base && (uint64_t)(bus - e->base) + len <= e->size;
}

void *hop_qpuemu_ptr(struct hop_qpuemu *e, uint32_t bus, size_t len)
{
  return emu_mem_ok(e, bus, len) ? e->mem + (bus - e->base) : NULL;
}

uint32_t emu_load32(struct hop_qpuemu *e, uint32_t bus)
{
  uint32_t v;
  memcpy(&v, e->mem + (bus - e->base), 4);
  return v;
}

void emu_store32(struct hop_qpuemu *e, uint32_t bus, uint32_t v) { memcpy(e->mem + (bus - e->base), &v, 4); }

void emu_fault(struct hop_qpuemu *e, const struct emu_qpu *q, const char *fmt, ...)
{
  if (e->faulted)
    return;
  e->faulted = true;
  int used = 0;
  if (q != NULL) {
    char text[160] = "?";
    if (emu_mem_ok(e, q->pc, 8)) {
      uint64_t raw = (uint64_t)emu_load32(e, q->pc) | (uint64_t)emu_load32(e, q->pc + 4) << 32;
      hop_qpu_disasm(raw, text, sizeof text);
    }
    used = snprintf(e->error, sizeof e->error, "QPU %d at 0x%08x [%s], cycle %llu: ", q->index, q->pc,
                    text, (unsigned long long)e->cycle);
    if (used < 0 || (size_t)used >= sizeof e->error)
      used = 0;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->error + used, sizeof e->error - (size_t)used, fmt, ap);
  va_end(ap);
}

const char *hop_qpuemu_error(const struct hop_qpuemu *e) { return e->error; }
unsigned hop_qpuemu_threads(const struct hop_qpuemu *e) { return e->nthreads; }

int hop_qpuemu_launch(struct hop_qpuemu *e, uint32_t code, uint32_t uniforms)
{
  if (e->nthreads >= HOP_QPUEMU_MAX_QPUS) {
    emu_fault(e, NULL, "more than %d threads launched", HOP_QPUEMU_MAX_QPUS);
    return -1;
  }
  struct emu_qpu *q = &e->q[e->nthreads];
  memset(q, 0, sizeof *q);
  q->index = (int)e->nthreads;
  q->state = EMU_Q_RUN;
  q->pc = code;
  q->unif = uniforms;
  q->since_unif_write = 1000;
  q->since_branch = 1000;
  /* Registers start undefined on hardware: poison them. */
  for (int r = 0; r < 32; r++)
    for (int i = 0; i < EMU_LANES; i++)
      q->ra[r][i] = q->rb[r][i] = HOP_QPUEMU_POISON;
  for (int r = 0; r < 6; r++)
    for (int i = 0; i < EMU_LANES; i++)
      q->acc[r][i] = HOP_QPUEMU_POISON;
  return (int)e->nthreads++;
}

void hop_qpuemu_trace(struct hop_qpuemu *e, FILE *out) { e->trace = out; }

static void trace_word(struct hop_qpuemu *e, int qpu, uint32_t pc)
{
  char text[160];
  uint64_t raw = (uint64_t)emu_load32(e, pc) | (uint64_t)emu_load32(e, pc + 4) << 32;
  fprintf(e->trace, "%llu q%d %08x %s\n", (unsigned long long)e->cycle, qpu, pc,
          hop_qpu_disasm(raw, text, sizeof text));
}

static void count_stall(struct hop_qpuemu *e, struct emu_qpu *q, enum emu_stall st)
{
  switch (st) {
  case EMU_STALL_TMU: q->cnt.stall_tmu++; break;
  case EMU_STALL_VPM: q->cnt.stall_vpm++; break;
  case EMU_STALL_DMA: q->cnt.stall_dma++; break;
  case EMU_STALL_MUTEX: q->cnt.stall_mutex++; break;
  case EMU_STALL_SEMA: q->cnt.stall_sema++; break;
  default: q->cnt.stall_sfu++; break;
  }
  if (e->prof_stall && q->pc >= e->prof_base && (q->pc - e->prof_base) / 8 < e->prof_words)
    e->prof_stall[(q->pc - e->prof_base) / 8]++;
}

enum hop_qpuemu_status hop_qpuemu_run(struct hop_qpuemu *e, uint64_t max_cycles)
{
  if (e->faulted)
    return HOP_QPUEMU_FAULT;
  unsigned first = 0;
  for (;;) {
    bool live = false, progress = false, timed_wait = false;
    for (unsigned k = 0; k < e->nthreads; k++) {
      struct emu_qpu *q = &e->q[(first + k) % e->nthreads];
      if (q->state != EMU_Q_RUN)
        continue;
      emu_dma_complete(e, q);
      live = true;
      uint32_t pc = q->pc;
      enum emu_stall st = emu_step(e, q);
      if (st == EMU_FAULTED || e->faulted)
        return HOP_QPUEMU_FAULT;
      q->cnt.cycles++;
      if (st == EMU_GO) {
        progress = true;
        if (e->trace)
          trace_word(e, q->index, pc);
        if (e->prof_issue && pc >= e->prof_base && (pc - e->prof_base) / 8 < e->prof_words)
          e->prof_issue[(pc - e->prof_base) / 8]++;
      } else {
        count_stall(e, q, st);
        /* These waits end by themselves as the cycles go by. */
        timed_wait |= st == EMU_STALL_TMU || st == EMU_STALL_VPM || st == EMU_STALL_DMA;
      }
    }
    /* DMA of threads that ended still lands. */
    for (unsigned k = 0; k < e->nthreads; k++)
      if (e->q[k].state != EMU_Q_RUN)
        emu_dma_complete(e, &e->q[k]);
    if (!live)
      return HOP_QPUEMU_DONE;
    e->cycle++;
    first = (first + 1) % e->nthreads; /* fair turns for the mutex and semaphores */
    if (!progress && !timed_wait) {
      int used = snprintf(e->error, sizeof e->error, "deadlock at cycle %llu:",
                          (unsigned long long)e->cycle);
      for (unsigned k = 0; k < e->nthreads && used > 0 && (size_t)used < sizeof e->error; k++)
        if (e->q[k].state == EMU_Q_RUN)
          used += snprintf(e->error + used, sizeof e->error - (size_t)used, " QPU %u waits at 0x%08x;",
                           k, e->q[k].pc);
      e->faulted = true;
      return HOP_QPUEMU_DEADLOCK;
    }
    if (e->cycle >= max_cycles) {
      snprintf(e->error, sizeof e->error, "cycle cap of %llu reached", (unsigned long long)max_cycles);
      e->faulted = true;
      return HOP_QPUEMU_CYCLE_CAP;
    }
  }
}

static void add_counters(struct hop_qpuemu_counters *t, const struct hop_qpuemu_counters *c)
{
  uint64_t *dst = (uint64_t *)t;
  const uint64_t *src = (const uint64_t *)c;
  for (size_t i = 0; i < sizeof *t / sizeof(uint64_t); i++)
    dst[i] += src[i];
}

void hop_qpuemu_counters(const struct hop_qpuemu *e, int thread, struct hop_qpuemu_counters *out)
{
  memset(out, 0, sizeof *out);
  if (thread >= 0) {
    if ((unsigned)thread < e->nthreads)
      *out = e->q[thread].cnt;
    return;
  }
  uint64_t longest = 0;
  for (unsigned k = 0; k < e->nthreads; k++) {
    add_counters(out, &e->q[k].cnt);
    if (e->q[k].cnt.cycles > longest)
      longest = e->q[k].cnt.cycles;
  }
  out->cycles = longest;
}

void hop_qpuemu_print_stats(const struct hop_qpuemu *e, FILE *out)
{
  fprintf(out, "qpu  instructions       cycles   add_ops   mul_ops  fadd_ops  fmul_ops  "
               "stall_tmu stall_vpm stall_dma stall_mutex stall_sema uniforms tmu_req dma_ld dma_st irq\n");
  for (int k = -1; k < (int)e->nthreads; k++) {
    struct hop_qpuemu_counters c;
    hop_qpuemu_counters(e, k, &c);
    if (k < 0)
      continue;
    fprintf(out, "%3d %13llu %12llu %9llu %9llu %9llu %9llu %10llu %9llu %9llu %11llu %10llu %8llu %7llu %6llu %6llu %3llu\n",
            k, (unsigned long long)c.instructions, (unsigned long long)c.cycles,
            (unsigned long long)c.add_ops, (unsigned long long)c.mul_ops, (unsigned long long)c.fadd_ops,
            (unsigned long long)c.fmul_ops, (unsigned long long)c.stall_tmu, (unsigned long long)c.stall_vpm,
            (unsigned long long)c.stall_dma, (unsigned long long)c.stall_mutex,
            (unsigned long long)c.stall_sema, (unsigned long long)c.uniforms,
            (unsigned long long)c.tmu_requests, (unsigned long long)c.dma_loads,
            (unsigned long long)c.dma_stores, (unsigned long long)c.host_interrupts);
  }
  fprintf(out, "elapsed cycles: %llu\n", (unsigned long long)e->cycle);
}

bool hop_qpuemu_profile(struct hop_qpuemu *e, uint32_t code, size_t nwords)
{
  free(e->prof_issue);
  free(e->prof_stall);
  e->prof_issue = calloc(nwords ? nwords : 1, sizeof *e->prof_issue);
  e->prof_stall = calloc(nwords ? nwords : 1, sizeof *e->prof_stall);
  e->prof_base = code;
  e->prof_words = nwords;
  return e->prof_issue != NULL && e->prof_stall != NULL;
}

const uint64_t *hop_qpuemu_profile_issues(const struct hop_qpuemu *e) { return e->prof_issue; }
const uint64_t *hop_qpuemu_profile_stalls(const struct hop_qpuemu *e) { return e->prof_stall; }

bool hop_qpuemu_read_reg(const struct hop_qpuemu *e, int thread, enum hop_qpuemu_reg file,
                         unsigned index, uint32_t out[16])
{
  if (thread < 0 || (unsigned)thread >= e->nthreads || index >= (file == HOP_QPUEMU_REG_ACC ? 6u : 32u))
    return false;
  const struct emu_qpu *q = &e->q[thread];
  const uint32_t *src = file == HOP_QPUEMU_REG_ACC ? q->acc[index]
                        : file == HOP_QPUEMU_REG_RA ? q->ra[index] : q->rb[index];
  memcpy(out, src, 4 * EMU_LANES);
  return true;
}

bool hop_qpuemu_read_flags(const struct hop_qpuemu *e, int thread, uint16_t *z, uint16_t *n, uint16_t *c)
{
  if (thread < 0 || (unsigned)thread >= e->nthreads)
    return false;
  *z = e->q[thread].fz;
  *n = e->q[thread].fn;
  *c = e->q[thread].fc;
  return true;
}

bool hop_qpuemu_read_vpm(const struct hop_qpuemu *e, unsigned row, uint32_t out[16])
{
  if (row >= EMU_VPM_ROWS)
    return false;
  memcpy(out, e->vpm[row], 4 * EMU_LANES);
  return true;
}

int hop_qpuemu_semaphore(const struct hop_qpuemu *e, unsigned sem) { return sem < 16 ? e->sem[sem] : -1; }
