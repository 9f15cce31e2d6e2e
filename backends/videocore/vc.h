/* The VideoCore IV engine's own interfaces: the sgemm QPU program, the
 * memory layout one call uses, and the launchers (emulator or mailbox)
 * that run the same code and uniform bytes. */
#ifndef HOP_VC_H
#define HOP_VC_H

#include "hop.h"
#include "qpu_emu.h"

#define HOP_VC_BLOCK_M 16   /* rows of a C block: the 16 SIMD lanes */
#define HOP_VC_BLOCK_N 64   /* columns of a C block: ra0..ra31, rb0..rb31 */
#define HOP_VC_MAX_THREADS 12
#define HOP_VC_DEFAULT_UNROLL 2 /* k steps per loop iteration; 2 or 4 */

/* Both engines' configuration keys (keys.c, built with or without them). */
extern const struct hop_config_key hop_videocore_keys[];

/* ---- the QPU program (sgemm_gen.c, sgemm_cupdate.c) --------------------- */
/* Uniforms of one block, in stream order; part 2 starts at HOP_VC_U_C and is
 * re-read through uniforms_address after the k-loop has streamed B. */
enum hop_vc_unif {
  HOP_VC_U_PART2 = 0, /* bus address of this record's HOP_VC_U_C word */
  HOP_VC_U_A,         /* A panel: column kk of the 16-row block at +64*kk */
  HOP_VC_U_B,         /* B panel: row kk of the 64 columns at +256*kk */
  HOP_VC_U_ITERS,     /* k-loop iterations: k_pad / unroll - 1 (>= 1) */
  HOP_VC_U_C,         /* C tile: column c of the block at +64*c */
  HOP_VC_U_ALPHA,
  HOP_VC_U_BETA,
  HOP_VC_U_MORE,      /* nonzero when another record follows */
  HOP_VC_U_RECORD     /* words per block; after the last: thread index, threads */
};

struct hop_vc_program {
  uint64_t *words;
  size_t n;
  unsigned unroll;
  bool beta_zero;          /* C is never read: no VDR */
  size_t loop_first, loop_end; /* word range [first, end) of the k-loop body */
};

enum hop_status hop_vc_program_build(struct hop_vc_program *out, unsigned unroll, bool beta_zero,
                                     char *why, size_t why_len);
void hop_vc_program_free(struct hop_vc_program *p);

struct hop_qpu_prog;
/* The C update after the k-loop (sgemm_cupdate.c): alpha*acc + beta*C
 * through VPM and DMA under the mutex; block_loop is the label to return to. */
void hop_vc_emit_cupdate(struct hop_qpu_prog *p, bool beta_zero, int block_loop);
int hop_vc_acc(int column); /* the regfile register of C column 0..63 */

/* ---- launchers ----------------------------------------------------------- */
/* One GPU allocation: bus address for the QPUs, host pointer for the ARM. */
struct hop_vc_mem {
  uint32_t bus;
  void *host;
  size_t size;
  uint32_t handle; /* mailbox handle; 0 for the emulator */
  void *priv;      /* launcher-private (the emulator instance) */
};

struct hop_vc_launcher {
  const char *name;
  enum hop_status (*alloc)(struct hop_vc_launcher *l, size_t size, struct hop_vc_mem *out, char *why,
                           size_t why_len);
  void (*release)(struct hop_vc_launcher *l, struct hop_vc_mem *m);
  /* Run nqpus programs from the control list at bus address `control`
   * ({uniforms, code} pairs); HOP_OK only when they all ended. */
  enum hop_status (*execute)(struct hop_vc_launcher *l, struct hop_vc_mem *m, uint32_t control,
                             unsigned nqpus, unsigned timeout_ms, char *why, size_t why_len);
};

/* The emulator launcher (launch_emu.c).  keep: the emulator survives the
 * call for its counters (the benchmark); max_mb bounds one allocation. */
#define HOP_VC_EMU_BUS_BASE 0xc0000000u /* where the emulator launcher's allocation starts */

struct hop_vc_emu_launcher {
  struct hop_vc_launcher base;
  size_t max_bytes;
  uint64_t max_cycles;     /* 0: from the timeout (at 250 MHz) */
  bool keep;
  struct hop_qpuemu *last; /* with keep: the last run, freed by the caller */
  const struct hop_qpuemu_timing *timing; /* NULL: defaults */
  uint32_t profile_code;   /* nonzero: profile the program at this address */
  size_t profile_words;
  uint64_t last_cycles;    /* elapsed QPU cycles of the last run */
};
void hop_vc_emu_launcher_init(struct hop_vc_emu_launcher *l, size_t max_bytes);

/* ---- one call (vc_gemm.c, vc_pack.c) ------------------------------------ */
struct hop_vc_plan {
  bool swap;              /* the QPUs compute C^T = op(B)^T op(A)^T: less padding */
  int m, n;               /* the QPUs' problem: g's, or n and m when swapped */
  int mb, nb, k_pad;      /* 16-row blocks, 64-column blocks, padded depth */
  unsigned threads;
  size_t off_code, off_control, off_unif, off_a, off_b, off_c, total;
  size_t unif_stride;     /* bytes of one thread's uniform stream */
};

/* Layout of a call; HOP_DECLINED (with why) when it cannot be laid out. */
enum hop_status hop_vc_plan_make(const struct hop_call *g, const struct hop_vc_program *prog,
                                 unsigned max_threads, struct hop_vc_plan *plan, char *why,
                                 size_t why_len);
/* Fill the allocation: code, control list, uniforms, packed A, B (and C). */
void hop_vc_pack(const struct hop_call *g, const struct hop_vc_program *prog,
                 const struct hop_vc_plan *plan, const struct hop_vc_mem *mem);
/* Copy the C tiles back into the caller's C, recomputing on the CPU the
 * results a flush could have changed; returns how many. */
size_t hop_vc_unpack(const struct hop_call *g, const struct hop_vc_plan *plan, const struct hop_vc_mem *mem);

/* The whole call on a launcher: plan, allocate, pack, run, unpack.  C is
 * written only after a successful run; *redone (may be NULL) is then
 * how many results hop_vc_unpack recomputed. */
enum hop_status hop_vc_gemm_run(struct hop_vc_launcher *l, const struct hop_call *g,
                                const struct hop_vc_program *prog, unsigned max_threads,
                                size_t max_bytes, size_t *redone, char *why, size_t why_len);

#endif
