/* VideoCore IV QPU instruction words: the fields of every format, an encoder
 * and decoder between fields and 64-bit words, a program builder that turns
 * operands into fields (register files, muxes, small immediates, labels), the
 * setup words of the VPM and its DMA, and a disassembler.
 *
 * Field names and codes follow ../shared/reference/vc4-qpu-facts.md; the
 * builder refuses what the hardware cannot do (two regfile-A reads in one
 * word, a small immediate beside a signal, ...) instead of guessing. */
#ifndef HOP_QPU_ASM_H
#define HOP_QPU_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- signals (bits 63:60) ------------------------------------------------ */
enum hop_qpu_sig {
  HOP_QPU_SIG_BREAK = 0,
  HOP_QPU_SIG_NONE = 1,
  HOP_QPU_SIG_THREAD_SWITCH = 2,
  HOP_QPU_SIG_THREAD_END = 3,
  HOP_QPU_SIG_WAIT_SCOREBOARD = 4,
  HOP_QPU_SIG_UNLOCK_SCOREBOARD = 5,
  HOP_QPU_SIG_LAST_THREAD_SWITCH = 6,
  HOP_QPU_SIG_LOAD_COVERAGE = 7,
  HOP_QPU_SIG_LOAD_COLOR = 8,
  HOP_QPU_SIG_LOAD_COLOR_END = 9,
  HOP_QPU_SIG_LDTMU0 = 10,
  HOP_QPU_SIG_LDTMU1 = 11,
  HOP_QPU_SIG_LOAD_ALPHA = 12,
  HOP_QPU_SIG_SMALL_IMM = 13,
  HOP_QPU_SIG_LOAD_IMM = 14,
  HOP_QPU_SIG_BRANCH = 15,
};

/* ---- add ALU opcodes (5 bits) -------------------------------------------- */
enum hop_qpu_add_op {
  HOP_QPU_A_NOP = 0, HOP_QPU_A_FADD = 1, HOP_QPU_A_FSUB = 2, HOP_QPU_A_FMIN = 3,
  HOP_QPU_A_FMAX = 4, HOP_QPU_A_FMINABS = 5, HOP_QPU_A_FMAXABS = 6, HOP_QPU_A_FTOI = 7,
  HOP_QPU_A_ITOF = 8, HOP_QPU_A_ADD = 12, HOP_QPU_A_SUB = 13, HOP_QPU_A_SHR = 14,
  HOP_QPU_A_ASR = 15, HOP_QPU_A_ROR = 16, HOP_QPU_A_SHL = 17, HOP_QPU_A_MIN = 18,
  HOP_QPU_A_MAX = 19, HOP_QPU_A_AND = 20, HOP_QPU_A_OR = 21, HOP_QPU_A_XOR = 22,
  HOP_QPU_A_NOT = 23, HOP_QPU_A_CLZ = 24, HOP_QPU_A_V8ADDS = 30, HOP_QPU_A_V8SUBS = 31,
};

/* ---- mul ALU opcodes (3 bits) -------------------------------------------- */
enum hop_qpu_mul_op {
  HOP_QPU_M_NOP = 0, HOP_QPU_M_FMUL = 1, HOP_QPU_M_MUL24 = 2, HOP_QPU_M_V8MULD = 3,
  HOP_QPU_M_V8MIN = 4, HOP_QPU_M_V8MAX = 5, HOP_QPU_M_V8ADDS = 6, HOP_QPU_M_V8SUBS = 7,
};

/* ---- write conditions and branch conditions ------------------------------ */
enum hop_qpu_cond {
  HOP_QPU_COND_NEVER = 0, HOP_QPU_COND_ALWAYS = 1, HOP_QPU_COND_ZS = 2, HOP_QPU_COND_ZC = 3,
  HOP_QPU_COND_NS = 4, HOP_QPU_COND_NC = 5, HOP_QPU_COND_CS = 6, HOP_QPU_COND_CC = 7,
};

enum hop_qpu_bcond {
  HOP_QPU_B_ALL_ZS = 0, HOP_QPU_B_ALL_ZC = 1, HOP_QPU_B_ANY_ZS = 2, HOP_QPU_B_ANY_ZC = 3,
  HOP_QPU_B_ALL_NS = 4, HOP_QPU_B_ALL_NC = 5, HOP_QPU_B_ANY_NS = 6, HOP_QPU_B_ANY_NC = 7,
  HOP_QPU_B_ALL_CS = 8, HOP_QPU_B_ALL_CC = 9, HOP_QPU_B_ANY_CS = 10, HOP_QPU_B_ANY_CC = 11,
  HOP_QPU_B_ALWAYS = 15,
};

/* ---- register addresses (6 bits) ----------------------------------------- */
enum hop_qpu_raddr {
  HOP_QPU_R_UNIFORM = 32, HOP_QPU_R_VARYING = 35, HOP_QPU_R_ELEM_QPU = 38, /* A: element, B: QPU */
  HOP_QPU_R_NOP = 39, HOP_QPU_R_VPM = 48, HOP_QPU_R_DMA_BUSY = 49, HOP_QPU_R_DMA_WAIT = 50,
  HOP_QPU_R_MUTEX = 51,
};

enum hop_qpu_waddr {
  HOP_QPU_W_ACC0 = 32, HOP_QPU_W_ACC1 = 33, HOP_QPU_W_ACC2 = 34, HOP_QPU_W_ACC3 = 35,
  HOP_QPU_W_TMU_NOSWAP = 36, HOP_QPU_W_R5 = 37, /* A: per quad, B: broadcast */
  HOP_QPU_W_HOST_INT = 38, HOP_QPU_W_NOP = 39, HOP_QPU_W_UNIFORMS_ADDR = 40,
  HOP_QPU_W_VPM = 48, HOP_QPU_W_VPM_SETUP = 49, /* A: read/VDR setup, B: write/VDW setup */
  HOP_QPU_W_DMA_ADDR = 50,                      /* A: vpm_ld_addr, B: vpm_st_addr */
  HOP_QPU_W_MUTEX_RELEASE = 51, HOP_QPU_W_SFU_RECIP = 52, HOP_QPU_W_SFU_RECIPSQRT = 53,
  HOP_QPU_W_SFU_EXP = 54, HOP_QPU_W_SFU_LOG = 55, HOP_QPU_W_TMU0_S = 56, HOP_QPU_W_TMU0_T = 57,
  HOP_QPU_W_TMU0_R = 58, HOP_QPU_W_TMU0_B = 59, HOP_QPU_W_TMU1_S = 60, HOP_QPU_W_TMU1_T = 61,
  HOP_QPU_W_TMU1_R = 62, HOP_QPU_W_TMU1_B = 63,
};

/* Load-immediate types (bits 59:57 when sig = 14). */
enum hop_qpu_ldi_type {
  HOP_QPU_LDI_32 = 0, HOP_QPU_LDI_PER_ELEM_SIGNED = 1, HOP_QPU_LDI_PER_ELEM_UNSIGNED = 3,
  HOP_QPU_LDI_SEMAPHORE = 4,
};

/* ---- one instruction as fields ------------------------------------------- *
 * Every bit of the word lands in exactly one field, so decode + encode is the
 * identity on any 64-bit value (the don't-care bits of branch and semaphore
 * words included). */
struct hop_qpu_insn {
  unsigned sig;
  /* ALU words (sig 0..13); load immediate and semaphore share pm..waddr_mul */
  unsigned unpack, pm, pack, cond_add, cond_mul, sf, ws, waddr_add, waddr_mul;
  unsigned op_mul, op_add, raddr_a, raddr_b, add_a, add_b, mul_a, mul_b;
  /* load immediate / semaphore (sig 14): type = bits 59:57, imm = bits 31:0 */
  unsigned ldi_type;
  uint32_t imm;
  /* branch (sig 15): also uses raddr_a (5 bits), ws, waddr_add, waddr_mul, imm */
  unsigned cond_br, rel, reg, br_unused;
};

uint64_t hop_qpu_encode(const struct hop_qpu_insn *in);
void hop_qpu_decode(uint64_t word, struct hop_qpu_insn *out);

/* Small-immediate code (sig 13) for an integer -16..15 or a power of two
 * float 1/256..128; -1 when the value has no code. */
int hop_qpu_small_imm_int(int value);
int hop_qpu_small_imm_float(float value);
/* The 32-bit value a small-immediate code yields through mux 7. */
uint32_t hop_qpu_small_imm_value(unsigned code);

/* ---- VPM and DMA setup words (sec. 11 of the fact sheet) ----------------- */
enum hop_qpu_vpm_size { HOP_QPU_VPM_8 = 0, HOP_QPU_VPM_16 = 1, HOP_QPU_VPM_32 = 2 };
/* Generic read (num 1..16) or write (num ignored) of VPM by the QPU. */
uint32_t hop_qpu_vpm_read_setup(unsigned num, unsigned stride, bool horiz, unsigned size,
                                unsigned addr);
uint32_t hop_qpu_vpm_write_setup(unsigned stride, bool horiz, unsigned size, unsigned addr);
/* VDR (memory -> VPM), 32-bit: rows of rowlen words; mpitch 0 = use the
 * extended pitch word, else pitch = 8 << mpitch bytes. */
uint32_t hop_qpu_vdr_setup(unsigned nrows, unsigned rowlen, unsigned mpitch, unsigned vpitch,
                           bool vert, unsigned y, unsigned x);
uint32_t hop_qpu_vdr_pitch(unsigned pitch_bytes); /* 0..8191 start to start */
/* VDW (VPM -> memory), 32-bit: units memory rows of depth words. */
uint32_t hop_qpu_vdw_setup(unsigned units, unsigned depth, bool horiz, unsigned y, unsigned x);
uint32_t hop_qpu_vdw_stride(unsigned stride_bytes, bool blockmode); /* end to start */

/* ---- operands for the builder -------------------------------------------- *
 * A source or a destination is one int: kind in bits 15:8, number in 7:0. */
enum hop_qpu_operand_kind {
  HOP_QPU_K_ACC = 1,  /* r0..r5 (source), r0..r3 (destination) */
  HOP_QPU_K_RA = 2,   /* regfile A address 0..63 (registers and I/O) */
  HOP_QPU_K_RB = 3,   /* regfile B address 0..63 */
  HOP_QPU_K_IMM = 4,  /* small-immediate code 0..47 (sources only) */
  HOP_QPU_K_IO = 5,   /* address valid in either file; the builder picks one */
};
#define HOP_QPU_OPND(kind, n) (((kind) << 8) | (n))
#define HOP_QPU_R0 HOP_QPU_OPND(HOP_QPU_K_ACC, 0)
#define HOP_QPU_R1 HOP_QPU_OPND(HOP_QPU_K_ACC, 1)
#define HOP_QPU_R2 HOP_QPU_OPND(HOP_QPU_K_ACC, 2)
#define HOP_QPU_R3 HOP_QPU_OPND(HOP_QPU_K_ACC, 3)
#define HOP_QPU_R4 HOP_QPU_OPND(HOP_QPU_K_ACC, 4)
#define HOP_QPU_R5 HOP_QPU_OPND(HOP_QPU_K_ACC, 5)
#define HOP_QPU_RA(n) HOP_QPU_OPND(HOP_QPU_K_RA, (n))
#define HOP_QPU_RB(n) HOP_QPU_OPND(HOP_QPU_K_RB, (n))
/* Small immediates: an integer -16..15, or any code (floats, see above). */
#define HOP_QPU_IMM(v) HOP_QPU_OPND(HOP_QPU_K_IMM, (unsigned)(v)&31u)
#define HOP_QPU_IMM_CODE(code) HOP_QPU_OPND(HOP_QPU_K_IMM, (code))
#define HOP_QPU_UNIF HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_R_UNIFORM)
#define HOP_QPU_VPM HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_R_VPM)
#define HOP_QPU_ELEM_NUM HOP_QPU_RA(HOP_QPU_R_ELEM_QPU)
#define HOP_QPU_QPU_NUM HOP_QPU_RB(HOP_QPU_R_ELEM_QPU)
#define HOP_QPU_LD_WAIT HOP_QPU_RA(HOP_QPU_R_DMA_WAIT)
#define HOP_QPU_ST_WAIT HOP_QPU_RB(HOP_QPU_R_DMA_WAIT)
#define HOP_QPU_MUTEX_ACQ HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_R_MUTEX)
/* destinations */
#define HOP_QPU_NULL HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_W_NOP)
#define HOP_QPU_TMU0_S HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_W_TMU0_S)
#define HOP_QPU_TMU_NOSWAP HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_W_TMU_NOSWAP)
#define HOP_QPU_UNIF_ADDR HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_W_UNIFORMS_ADDR)
#define HOP_QPU_VPM_W HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_W_VPM)
#define HOP_QPU_HOST_INT HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_W_HOST_INT)
#define HOP_QPU_MUTEX_REL HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_W_MUTEX_RELEASE)
#define HOP_QPU_BROADCAST HOP_QPU_RB(HOP_QPU_W_R5)
#define HOP_QPU_R5_QUAD HOP_QPU_RA(HOP_QPU_W_R5)
#define HOP_QPU_VPM_RD_SETUP HOP_QPU_RA(HOP_QPU_W_VPM_SETUP)
#define HOP_QPU_VPM_WR_SETUP HOP_QPU_RB(HOP_QPU_W_VPM_SETUP)
#define HOP_QPU_VPM_LD_ADDR HOP_QPU_RA(HOP_QPU_W_DMA_ADDR)
#define HOP_QPU_VPM_ST_ADDR HOP_QPU_RB(HOP_QPU_W_DMA_ADDR)

/* One ALU operation: op, destination, two sources, write condition, set
 * flags.  A zero op is a nop. */
struct hop_qpu_op {
  unsigned op;
  int dst, a, b;
  unsigned cond; /* 0 here means "always" unless never is asked by a nop */
  bool sf;
};

/* An ALU word to assemble: both operations plus the word-wide modifiers. */
struct hop_qpu_alu {
  struct hop_qpu_op add, mul;
  unsigned sig;    /* 0 = none (sig 1); use HOP_QPU_SIG_* for a signal */
  unsigned rotate; /* mul-output rotation: 0 none, 1..15, 16 = by r5 */
  unsigned pack, unpack, pm;
};

/* ---- program builder ----------------------------------------------------- */
struct hop_qpu_prog {
  uint64_t *words;
  size_t n, cap;
  struct hop_qpu_fixup { size_t at; int label; } *fixups;
  size_t nfix, capfix;
  long *labels; /* word index per label, -1 while unbound */
  int nlabels, caplabels;
  char error[160]; /* first error; later emits are ignored */
};

void hop_qpu_prog_init(struct hop_qpu_prog *p);
void hop_qpu_prog_free(struct hop_qpu_prog *p);
/* Resolve branches; false (with p->error) on any error so far. */
bool hop_qpu_prog_finish(struct hop_qpu_prog *p);
bool hop_qpu_prog_failed(const struct hop_qpu_prog *p);

int hop_qpu_label_new(struct hop_qpu_prog *p);
void hop_qpu_label_bind(struct hop_qpu_prog *p, int label);

/* Emit words; each returns the word index (or -1 after an error). */
long hop_qpu_emit_raw(struct hop_qpu_prog *p, uint64_t word);
long hop_qpu_emit_alu(struct hop_qpu_prog *p, const struct hop_qpu_alu *w);
long hop_qpu_emit_ldi(struct hop_qpu_prog *p, int dst, uint32_t value, bool sf);
/* Per-element 2-bit values (-2..1 signed or 0..3 unsigned, chosen from them). */
long hop_qpu_emit_ldi_elems(struct hop_qpu_prog *p, int dst, const int vals[16], bool sf);
long hop_qpu_emit_sema(struct hop_qpu_prog *p, bool acquire, unsigned sem);
/* PC-relative branch to a label, no link. */
long hop_qpu_emit_branch(struct hop_qpu_prog *p, unsigned bcond, int label);
/* A branch in full: to a label (PC-relative), or to `address` (absolute,
 * or a byte offset when relative), plus a regfile-A register (lane 15 on
 * hardware; even numbers only: bit 0 of the field also sets flags), and a
 * destination for the return address (branch + 32). */
struct hop_qpu_branch {
  unsigned cond;
  int label;        /* >= 0: a label; < 0: use address */
  uint32_t address;
  bool relative;    /* with label < 0: address is an offset from branch + 32 */
  int reg;          /* -1 none, else 0..31: add raN */
  int link;         /* 0 none, else r0..r3, raN or rbN */
};
long hop_qpu_emit_branch_full(struct hop_qpu_prog *p, const struct hop_qpu_branch *b);
long hop_qpu_emit_nop(struct hop_qpu_prog *p, unsigned sig);

/* Convenience: one add-ALU op alone, one mul-ALU op alone. */
long hop_qpu_emit_add(struct hop_qpu_prog *p, unsigned op, int dst, int a, int b, unsigned sig);
long hop_qpu_emit_mul(struct hop_qpu_prog *p, unsigned op, int dst, int a, int b, unsigned sig);
/* mov through the add ALU (or) */
long hop_qpu_emit_mov(struct hop_qpu_prog *p, int dst, int src, unsigned sig);

/* ---- disassembler -------------------------------------------------------- */
/* One word as text ("fadd ra1, ra1, r0 ; fmul r0, r4, unif"); returns buf. */
const char *hop_qpu_disasm(uint64_t word, char *buf, size_t len);

#endif
