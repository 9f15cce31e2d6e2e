/* State shared by the emulator's files; not part of its interface. */
#ifndef HOP_EMU_INTERNAL_H
#define HOP_EMU_INTERNAL_H

#include "qpu_asm.h"
#include "qpu_emu.h"

#define EMU_LANES 16
#define EMU_VPM_ROWS 64
#define EMU_TMU_DEPTH 4 /* more outstanding requests are unreliable on hardware [HW] */
#define EMU_DCACHE 4096 /* decoded-instruction cache entries */

enum emu_qstate { EMU_Q_IDLE, EMU_Q_RUN, EMU_Q_ENDED };

/* Why an instruction could not issue this cycle. */
enum emu_stall {
  EMU_GO = 0,
  EMU_STALL_TMU,   /* ldtmu before the data is back */
  EMU_STALL_VPM,   /* VPM read before its setup is ready */
  EMU_STALL_DMA,   /* vpm_ld_wait/vpm_st_wait, or a DMA while the previous one runs */
  EMU_STALL_MUTEX, /* mutex held by another QPU */
  EMU_STALL_SEMA,  /* semaphore at 0 (acquire) or 15 (release) */
  EMU_STALL_SFU,   /* r4 read while an SFU result is on its way */
  EMU_FAULTED,     /* the step raised a fault */
};

struct emu_tmu_entry {
  uint32_t data[EMU_LANES];
  uint64_t ready;
};

struct emu_tmu_fifo {
  struct emu_tmu_entry e[EMU_TMU_DEPTH];
  int head, count;
};

struct emu_vpm_read {
  int left;        /* vectors still to read */
  unsigned addr, stride;
  bool horiz;
  uint64_t ready;  /* first cycle a read may happen */
};

/* One DMA transfer: memory rows of len 32-bit words, VPM start (y, x). */
struct emu_dma_shape {
  unsigned rows, len, y, x, vpitch; /* vpitch: VPM rows from one memory row to the next */
  uint32_t pitch; /* bytes from the start of one memory row to the next */
  bool horiz;
};

struct emu_dma {
  bool pending;
  uint64_t done; /* cycle at which the transfer lands */
  uint32_t addr; /* memory bus address */
  struct emu_dma_shape shape;
};

struct emu_qpu {
  enum emu_qstate state;
  int index;
  uint32_t ra[32][EMU_LANES], rb[32][EMU_LANES], acc[6][EMU_LANES];
  uint16_t fz, fn, fc; /* flags, one bit per lane */
  uint32_t pc;
  int br_left;         /* delay slots left before the jump */
  uint32_t br_target;
  int end_left;        /* thread-end delay slots left */
  uint64_t since_branch;
  uint32_t unif;       /* uniform stream pointer */
  uint64_t since_unif_write;
  uint64_t sfu_at;     /* instruction index of the SFU write; r4 lands 3 later */
  uint32_t sfu_value[EMU_LANES];
  bool sfu_pending;
  uint32_t wrote_a, wrote_b;  /* regfile registers written by the previous word */
  uint16_t wrote_acc[6];      /* lanes of r0..r5 written by the previous word */
  uint64_t noswap_at;         /* instruction count of the tmu_noswap write */
  bool noswap;
  struct emu_tmu_fifo tmu[2];
  struct emu_vpm_read vrd[2]; /* current generic read setup and one queued */
  unsigned vwr_addr, vwr_stride;
  bool vwr_horiz, vwr_valid;
  uint32_t vdr_setup, vdr_pitch, vdw_setup, vdw_stride;
  struct emu_dma load, store;
  struct hop_qpuemu_counters cnt;
  uint64_t issued_total; /* instruction index, for the hazard windows */
};

struct emu_dcache_entry {
  uint32_t pc;
  uint64_t raw;
  bool valid;
  struct hop_qpu_insn in;
};

struct hop_qpuemu {
  uint32_t base;
  size_t size;
  uint8_t *mem;
  bool owns_mem;
  struct hop_qpuemu_timing timing;
  unsigned dma_pitch_bits; /* 13 or 16 */
  uint32_t vpm[EMU_VPM_ROWS][EMU_LANES];
  int mutex_owner; /* QPU index, -1 when free */
  int sem[16];
  struct emu_qpu q[HOP_QPUEMU_MAX_QPUS];
  unsigned nthreads;
  uint64_t cycle;
  uint64_t dma_free; /* cycle at which the shared DMA engine is free */
  struct emu_dcache_entry *dcache;
  char error[512];
  bool faulted;
  uint32_t prof_base;
  size_t prof_words;
  uint64_t *prof_issue, *prof_stall;
  FILE *trace;
};

/* emu_core.c */
void emu_fault(struct hop_qpuemu *e, const struct emu_qpu *q, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
bool emu_mem_ok(const struct hop_qpuemu *e, uint32_t bus, size_t len);
uint32_t emu_load32(struct hop_qpuemu *e, uint32_t bus);
void emu_store32(struct hop_qpuemu *e, uint32_t bus, uint32_t v);

/* emu_alu.c: one ALU op on 16 lanes, with its C flag per lane */
bool emu_add_op(unsigned op, const uint32_t *a, const uint32_t *b, uint32_t *r, uint16_t *carry);
bool emu_mul_op(unsigned op, const uint32_t *a, const uint32_t *b, uint32_t *r, uint16_t *carry);
bool emu_add_is_float_input(unsigned op);
bool emu_add_is_float_result(unsigned op);
void emu_unpack(unsigned code, bool float_op, bool r4_mode, uint32_t *v);
bool emu_pack(unsigned code, bool mul_mode, bool float_result, const uint32_t *res, uint32_t *dst,
              const uint16_t mask);
uint16_t emu_zero_mask(const uint32_t *r, bool float_result);
uint16_t emu_sign_mask(const uint32_t *r);
float emu_sfu(unsigned waddr, float x);

/* emu_io.c: the units around the QPUs */
enum emu_stall emu_tmu_write(struct hop_qpuemu *e, struct emu_qpu *q, unsigned unit,
                             const uint32_t *addr);
enum emu_stall emu_tmu_pop_ready(struct hop_qpuemu *e, struct emu_qpu *q, unsigned unit);
void emu_tmu_pop(struct emu_qpu *q, unsigned unit, uint32_t *r4);
enum emu_stall emu_vpm_read_ready(struct hop_qpuemu *e, struct emu_qpu *q);
void emu_vpm_read(struct hop_qpuemu *e, struct emu_qpu *q, uint32_t *out);
void emu_vpm_write(struct hop_qpuemu *e, struct emu_qpu *q, const uint32_t *v);
void emu_vpm_setup(struct hop_qpuemu *e, struct emu_qpu *q, bool write_side, uint32_t v);
enum emu_stall emu_dma_start_ready(struct hop_qpuemu *e, struct emu_qpu *q, bool store);
void emu_dma_start(struct hop_qpuemu *e, struct emu_qpu *q, bool store, uint32_t addr);
void emu_dma_complete(struct hop_qpuemu *e, struct emu_qpu *q);

/* What one instruction did, for the hazard bookkeeping of the next one. */
struct emu_effects {
  uint32_t wrote_a, wrote_b; /* physical regfile registers written */
  uint16_t wrote_acc[6];     /* lanes of r0..r5 written */
  int exclusive;             /* TMU write, ldtmu, SFU, mutex, semaphore: at most one */
  bool vpm_access;
  bool thread_end;
};

/* emu_step.c: an ALU word */
enum emu_stall emu_step_alu(struct hop_qpuemu *e, struct emu_qpu *q, const struct hop_qpu_insn *in,
                            struct emu_effects *fx);

/* emu_ctl.c: writes, flags, load immediate, semaphores, branches, the PC */
uint16_t emu_cond_mask(const struct emu_qpu *q, unsigned cond);
void emu_set_flags(struct emu_qpu *q, uint16_t lanes, uint16_t z, uint16_t n, uint16_t c);
bool emu_write(struct hop_qpuemu *e, struct emu_qpu *q, const struct hop_qpu_insn *in, bool mul,
               bool active, const uint32_t *val, uint16_t mask, bool float_result,
               struct emu_effects *fx);
enum emu_stall emu_step(struct hop_qpuemu *e, struct emu_qpu *q);

#endif
