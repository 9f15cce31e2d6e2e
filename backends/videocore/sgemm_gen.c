/* Our sgemm QPU program, generated from the assembler API in the manner of
 * seed 004: a 16x64 block of C lives in ra0..ra31/rb0..rb31 (column c in
 * ra[c/2] or rb[c/2], lanes = rows), column kk of the packed A panel comes
 * through TMU0 into r4, row kk of the packed B panel streams through the
 * uniforms cache, and every word does `fadd acc, acc, r0 ; fmul r0, r4, unif`.
 *
 * One k step is 65 words: W0 (accumulate the last product of the previous
 * step, first product), X (TMU request for the next column), W1 (advance the
 * TMU address), W2..W63, the last with ldtmu0.  A loop iteration runs
 * `unroll` steps plus one counter word C, then the branch.  The loop body is
 * rotated by P = 70 words so that its three delay slots are useful compute
 * words of the next iteration, and so that the whole first step lies in the
 * prologue, where the first write of each accumulator is a plain move: no
 * zeroing of the 64 registers is needed.  Hence k_pad >= 2 * unroll.
 *
 * Because the host packs B into 64-column panels, the uniform stream never
 * has to be re-pointed inside the loop, and because it packs A into 16-row
 * panels, one TMU request reads one 64-byte line.
 *
 * Registers: r0 product, r1 TMU address, r2 loop counter, r3 address of the
 * record's part 2, r4 A column, r5 = 64 (the A panel column stride). */
#include <stdlib.h>
#include <string.h>

#include "qpu_asm.h"
#include "vc.h"

#define STEP_WORDS 65
#define ROTATE 70 /* P: prologue words; must be >= 66 and leave W1..W3 as delay slots */

int hop_vc_acc(int column) { return column % 2 == 0 ? HOP_QPU_RA(column / 2) : HOP_QPU_RB(column / 2); }

static struct hop_qpu_op accumulate(int column, bool first_touch)
{
  int acc = hop_vc_acc(column);
  if (first_touch)
    return (struct hop_qpu_op){HOP_QPU_A_OR, acc, HOP_QPU_R0, HOP_QPU_R0, 0, false};
  return (struct hop_qpu_op){HOP_QPU_A_FADD, acc, acc, HOP_QPU_R0, 0, false};
}

static const struct hop_qpu_op fmul_b = {HOP_QPU_M_FMUL, HOP_QPU_R0, HOP_QPU_R4, HOP_QPU_UNIF, 0, false};

/* Word g of a loop iteration (0 <= g <= 65 * unroll; the last is C).  In
 * the prologue (first), step 0 and the W0 of step 1 write each accumulator
 * for the first time. */
static void emit_group_word(struct hop_qpu_prog *p, unsigned unroll, int g, bool first)
{
  struct hop_qpu_alu w = {0};
  if (g == STEP_WORDS * (int)unroll) { /* C: the loop counter sets the flags the branch tests */
    w.add = (struct hop_qpu_op){HOP_QPU_A_SUB, HOP_QPU_R2, HOP_QPU_R2, HOP_QPU_IMM(1), 0, true};
    hop_qpu_emit_alu(p, &w);
    return;
  }
  int step = g / STEP_WORDS, pos = g % STEP_WORDS;
  bool touch = first && (step == 0 || (step == 1 && pos == 0));
  if (pos == 0) {            /* W0 */
    if (!(first && step == 0))
      w.add = accumulate(63, touch);
    w.mul = fmul_b;
  } else if (pos == 1) {     /* X: request the next A column */
    w.add = accumulate(0, touch);
    w.mul = (struct hop_qpu_op){HOP_QPU_M_V8MIN, HOP_QPU_TMU0_S, HOP_QPU_R1, HOP_QPU_R1, 0, false};
  } else if (pos == 2) {     /* W1: the address of the column after */
    w.add = (struct hop_qpu_op){HOP_QPU_A_ADD, HOP_QPU_R1, HOP_QPU_R1, HOP_QPU_R5, 0, false};
    w.mul = fmul_b;
  } else {                   /* W2..W63 */
    int c = pos - 1;
    w.add = accumulate(c - 1, touch);
    w.mul = fmul_b;
    if (c == 63)
      w.sig = HOP_QPU_SIG_LDTMU0; /* this word still reads column kk; the next sees kk + 1 */
  }
  hop_qpu_emit_alu(p, &w);
}

/* Per block: read part 1 of the record, point the uniforms at the B panel,
 * lane addresses of the A panel, first TMU request. */
static void emit_block_start(struct hop_qpu_prog *p)
{
  hop_qpu_emit_mov(p, HOP_QPU_R3, HOP_QPU_UNIF, 0);
  hop_qpu_emit_mov(p, HOP_QPU_R1, HOP_QPU_UNIF, 0);
  hop_qpu_emit_mov(p, HOP_QPU_R0, HOP_QPU_UNIF, 0);
  hop_qpu_emit_mov(p, HOP_QPU_R2, HOP_QPU_UNIF, 0);
  hop_qpu_emit_mov(p, HOP_QPU_UNIF_ADDR, HOP_QPU_R0, 0);
  /* The next two words read no uniforms (the pointer is being reset). */
  hop_qpu_emit_add(p, HOP_QPU_A_SHL, HOP_QPU_R0, HOP_QPU_ELEM_NUM, HOP_QPU_IMM(2), 0);
  hop_qpu_emit_add(p, HOP_QPU_A_ADD, HOP_QPU_R1, HOP_QPU_R1, HOP_QPU_R0, 0);
  struct hop_qpu_alu req = {.add = {HOP_QPU_A_ADD, HOP_QPU_R1, HOP_QPU_R1, HOP_QPU_R5, 0, false},
                            .mul = {HOP_QPU_M_V8MIN, HOP_QPU_TMU0_S, HOP_QPU_R1, HOP_QPU_R1, 0, false}};
  hop_qpu_emit_alu(p, &req);
  hop_qpu_emit_nop(p, HOP_QPU_SIG_LDTMU0);
}

static void emit_kloop(struct hop_qpu_prog *p, struct hop_vc_program *out, unsigned unroll)
{
  int words = STEP_WORDS * (int)unroll + 1; /* with C */
  for (int g = 0; g < ROTATE; g++)
    emit_group_word(p, unroll, g, true);
  int loop = hop_qpu_label_new(p);
  hop_qpu_label_bind(p, loop);
  out->loop_first = p->n;
  for (int g = ROTATE; g < words; g++)
    emit_group_word(p, unroll, g, false);
  for (int g = 0; g < ROTATE; g++) {
    if (g == ROTATE - 3)
      hop_qpu_emit_branch(p, HOP_QPU_B_ALL_ZC, loop);
    emit_group_word(p, unroll, g, false);
  }
  out->loop_end = p->n;
  for (int g = ROTATE; g < words - 1; g++) /* the last iteration's tail, without C */
    emit_group_word(p, unroll, g, false);
}

/* Every thread: the join on semaphore 0, the master raises the interrupt. */
static void emit_finish(struct hop_qpu_prog *p)
{
  int end = hop_qpu_label_new(p), join = hop_qpu_label_new(p);
  hop_qpu_emit_sema(p, false, 0);
  struct hop_qpu_alu master = {.add = {HOP_QPU_A_OR, HOP_QPU_NULL, HOP_QPU_UNIF, HOP_QPU_UNIF, 0, true}};
  hop_qpu_emit_alu(p, &master);            /* thread index: Z set on the master */
  hop_qpu_emit_branch(p, HOP_QPU_B_ALL_ZC, end);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_mov(p, HOP_QPU_R0, HOP_QPU_UNIF, 0); /* threads */
  hop_qpu_label_bind(p, join);
  hop_qpu_emit_sema(p, true, 0);
  struct hop_qpu_alu dec = {.add = {HOP_QPU_A_SUB, HOP_QPU_R0, HOP_QPU_R0, HOP_QPU_IMM(1), 0, true}};
  hop_qpu_emit_alu(p, &dec);
  hop_qpu_emit_branch(p, HOP_QPU_B_ALL_ZC, join);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_mov(p, HOP_QPU_HOST_INT, HOP_QPU_IMM(1), 0);
  hop_qpu_label_bind(p, end);
  hop_qpu_emit_nop(p, HOP_QPU_SIG_THREAD_END);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_nop(p, 0);
}

enum hop_status hop_vc_program_build(struct hop_vc_program *out, unsigned unroll, bool beta_zero,
                                     char *why, size_t why_len)
{
  memset(out, 0, sizeof *out);
  if (unroll < 2 || unroll > 8) {
    snprintf(why, why_len, "k-loop unroll %u: 2..8 supported", unroll);
    return HOP_ERR_CONFIG;
  }
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  hop_qpu_emit_ldi(&p, HOP_QPU_BROADCAST, 64, false); /* r5: A panel column stride */
  /* TMU0 really is TMU0 on every QPU, as in py-videocore's kernel. */
  hop_qpu_emit_mov(&p, HOP_QPU_TMU_NOSWAP, HOP_QPU_IMM(1), 0);
  int block_loop = hop_qpu_label_new(&p);
  hop_qpu_label_bind(&p, block_loop);
  emit_block_start(&p);
  emit_kloop(&p, out, unroll);
  hop_vc_emit_cupdate(&p, beta_zero, block_loop);
  emit_finish(&p);
  if (!hop_qpu_prog_finish(&p)) {
    snprintf(why, why_len, "sgemm program: %s", p.error);
    hop_qpu_prog_free(&p);
    return HOP_ERR_BUILD;
  }
  out->words = p.words; /* ownership moves to out */
  out->n = p.n;
  out->unroll = unroll;
  out->beta_zero = beta_zero;
  p.words = NULL;
  hop_qpu_prog_free(&p);
  return HOP_OK;
}

void hop_vc_program_free(struct hop_vc_program *p)
{
  free(p->words);
  memset(p, 0, sizeof *p);
}
