/* An instruction-level emulator of the VideoCore IV QPUs: up to 12 QPU
 * threads interleaved one instruction per cycle each, over a flat memory of
 * bus addresses.  It runs the exact 64-bit words the hardware would; what it
 * cannot model, or what the hardware forbids (hazards, out-of-bounds
 * accesses, deadlocks), stops the run with a message instead of guessing.
 *
 * Timing is a model (see hop_qpuemu_timing), good for counting issued
 * instructions, ALU slots and stalls, not a cycle-exact simulation. */
#ifndef HOP_QPU_EMU_H
#define HOP_QPU_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HOP_QPUEMU_MAX_QPUS 12
/* Memory the emulator owns starts filled with this signalling-NaN word, so
 * that data nobody wrote shows up in results instead of passing as zeros. */
#define HOP_QPUEMU_POISON 0x7fbadbadu

/* Latencies in QPU instruction cycles (one cycle = 4 clocks = one 16-lane
 * instruction). */
struct hop_qpuemu_timing {
  unsigned tmu_latency;         /* TMU request to data ready */
  unsigned vpm_setup_latency;   /* generic VPM read setup to first readable vector */
  unsigned dma_latency;         /* fixed cost of one VDR/VDW transfer */
  unsigned dma_bytes_per_cycle; /* shared VCD DMA bandwidth */
  unsigned sfu_latency;         /* SFU write to r4 ready */
};
void hop_qpuemu_timing_default(struct hop_qpuemu_timing *t);

struct hop_qpuemu_counters {
  uint64_t instructions;   /* words issued */
  uint64_t cycles;         /* launch to end (issued + stalled) */
  uint64_t add_ops, mul_ops;     /* ALU slots doing something (not nop) */
  uint64_t fadd_ops, fmul_ops;   /* of which float add/sub and float multiply */
  uint64_t stall_tmu, stall_vpm, stall_dma, stall_mutex, stall_sema, stall_sfu;
  uint64_t uniforms, tmu_requests, dma_loads, dma_stores, host_interrupts;
};

enum hop_qpuemu_status {
  HOP_QPUEMU_DONE = 0,  /* every thread ended */
  HOP_QPUEMU_FAULT,     /* a program error or an unmodelled feature: see error */
  HOP_QPUEMU_CYCLE_CAP, /* max_cycles reached */
  HOP_QPUEMU_DEADLOCK,  /* every live thread waits on something no one will give */
};

struct hop_qpuemu;

/* Memory owned by the emulator, poisoned.  NULL when out of memory or when
 * [base, base + size) does not fit in 32 bits. */
struct hop_qpuemu *hop_qpuemu_new(uint32_t base, size_t size);
/* Memory owned by the caller (the fake mailbox firmware of the tests). */
struct hop_qpuemu *hop_qpuemu_new_shared(uint32_t base, void *mem, size_t size);
void hop_qpuemu_free(struct hop_qpuemu *e);

void hop_qpuemu_set_timing(struct hop_qpuemu *e, const struct hop_qpuemu_timing *t);
/* Width of the DMA pitch/stride fields: 13 bits as the reference guide says
 * (the default: what runs with 13 runs everywhere), or 16 as reported from
 * hardware (maazl's addendum).  Other values are ignored. */
void hop_qpuemu_set_dma_pitch_bits(struct hop_qpuemu *e, unsigned bits);

/* Host view of bus addresses [bus, bus + len); NULL if outside memory. */
void *hop_qpuemu_ptr(struct hop_qpuemu *e, uint32_t bus, size_t len);
uint32_t hop_qpuemu_base(const struct hop_qpuemu *e);
size_t hop_qpuemu_size(const struct hop_qpuemu *e);

/* Queue one thread (a user program): PC and uniforms pointer.  Thread i runs
 * on QPU i.  Returns i, or -1 with the error set. */
int hop_qpuemu_launch(struct hop_qpuemu *e, uint32_t code, uint32_t uniforms);
enum hop_qpuemu_status hop_qpuemu_run(struct hop_qpuemu *e, uint64_t max_cycles);
const char *hop_qpuemu_error(const struct hop_qpuemu *e);

unsigned hop_qpuemu_threads(const struct hop_qpuemu *e);
/* Counters of one thread, or of all together (thread < 0; cycles = the
 * longest thread's, i.e. the run's elapsed cycles). */
void hop_qpuemu_counters(const struct hop_qpuemu *e, int thread, struct hop_qpuemu_counters *out);
void hop_qpuemu_print_stats(const struct hop_qpuemu *e, FILE *out);

/* Per-word profile of [code, code + 8 * nwords): issues and stall cycles,
 * summed over threads.  Call before run; false when out of memory. */
bool hop_qpuemu_profile(struct hop_qpuemu *e, uint32_t code, size_t nwords);
const uint64_t *hop_qpuemu_profile_issues(const struct hop_qpuemu *e);
const uint64_t *hop_qpuemu_profile_stalls(const struct hop_qpuemu *e);

/* Print every issued word (QPU, address, text) to out; NULL stops. */
void hop_qpuemu_trace(struct hop_qpuemu *e, FILE *out);

/* Inspection for unit tests: a register of a thread after the run. */
enum hop_qpuemu_reg { HOP_QPUEMU_REG_ACC, HOP_QPUEMU_REG_RA, HOP_QPUEMU_REG_RB };
bool hop_qpuemu_read_reg(const struct hop_qpuemu *e, int thread, enum hop_qpuemu_reg file,
                         unsigned index, uint32_t out[16]);
/* Flags of a thread: bit i of *z / *n / *c = lane i. */
bool hop_qpuemu_read_flags(const struct hop_qpuemu *e, int thread, uint16_t *z, uint16_t *n,
                           uint16_t *c);
/* VPM row (0..63) for unit tests. */
bool hop_qpuemu_read_vpm(const struct hop_qpuemu *e, unsigned row, uint32_t out[16]);
int hop_qpuemu_semaphore(const struct hop_qpuemu *e, unsigned sem);

#endif
