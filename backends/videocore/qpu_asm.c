/* qpu_asm.c, the program builder (encoding lives in qpu_encode.c, text in
 * qpu_disasm.c): operands to register-file addresses and muxes, the
 * write-swap bit, small immediates, labels and branch fix-ups.  A request
 * the hardware cannot encode is recorded as the program's first error; the
 * generator checks once at the end instead of after every word. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_asm.h"

#define KIND(o) ((unsigned)(o) >> 8)
#define NUM(o) ((unsigned)(o)&0xffu)

static void fail(struct hop_qpu_prog *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct hop_qpu_prog *p, const char *fmt, ...)
{
  if (p->error[0] != '\0')
    return;
  va_list ap;
  va_start(ap, fmt);
  int used = snprintf(p->error, sizeof p->error, "word %zu: ", p->n);
  vsnprintf(p->error + used, sizeof p->error - (size_t)used, fmt, ap);
  va_end(ap);
}

void hop_qpu_prog_init(struct hop_qpu_prog *p) { memset(p, 0, sizeof *p); }

void hop_qpu_prog_free(struct hop_qpu_prog *p)
{
  free(p->words);
  free(p->fixups);
  free(p->labels);
  memset(p, 0, sizeof *p);
}

bool hop_qpu_prog_failed(const struct hop_qpu_prog *p) { return p->error[0] != '\0'; }

static bool grow(void **buf, size_t *cap, size_t need, size_t elem)
{
  if (need <= *cap)
    return true;
  size_t ncap = *cap ? *cap * 2 : 256;
  while (ncap < need)
    ncap *= 2;
  void *nb = realloc(*buf, ncap * elem);
  if (nb == NULL)
    return false;
  *buf = nb;
  *cap = ncap;
  return true;
}

long hop_qpu_emit_raw(struct hop_qpu_prog *p, uint64_t word)
{
  if (hop_qpu_prog_failed(p))
    return -1;
  if (!grow((void **)&p->words, &p->cap, p->n + 1, sizeof *p->words)) {
    fail(p, "out of memory");
    return -1;
  }
  p->words[p->n] = word;
  return (long)p->n++;
}

int hop_qpu_label_new(struct hop_qpu_prog *p)
{
  size_t cap = (size_t)p->caplabels;
  if (!grow((void **)&p->labels, &cap, (size_t)p->nlabels + 1, sizeof *p->labels)) {
    fail(p, "out of memory");
    return 0;
  }
  p->caplabels = (int)cap;
  p->labels[p->nlabels] = -1;
  return p->nlabels++;
}

void hop_qpu_label_bind(struct hop_qpu_prog *p, int label)
{
  if (label < 0 || label >= p->nlabels || p->labels[label] >= 0)
    fail(p, "label %d bound twice or unknown", label);
  else
    p->labels[label] = (long)p->n;
}

/* ---- operand resolution -------------------------------------------------- */

struct word_state {
  struct hop_qpu_insn in;
  bool used_a, used_b, imm; /* raddr_a / raddr_b taken; raddr_b is a small immediate */
};

/* A source to a mux, claiming a read address; fixed-file operands first. */
static unsigned src_mux(struct hop_qpu_prog *p, struct word_state *s, int o, bool io_pass)
{
  unsigned k = KIND(o), n = NUM(o);
  if (k == HOP_QPU_K_ACC && n <= 5)
    return n;
  if (k == HOP_QPU_K_RA || (k == HOP_QPU_K_IO && io_pass && (!s->used_a || s->in.raddr_a == n))) {
    if (s->used_a && s->in.raddr_a != n)
      fail(p, "two regfile-A reads (%u and %u) in one word", s->in.raddr_a, n);
    s->used_a = true;
    s->in.raddr_a = n;
    return 6;
  }
  if (k == HOP_QPU_K_RB || k == HOP_QPU_K_IO || k == HOP_QPU_K_IMM) {
    bool imm = k == HOP_QPU_K_IMM;
    if (s->used_b && (s->in.raddr_b != n || s->imm != imm))
      fail(p, "two regfile-B reads or immediates (%u and %u) in one word", s->in.raddr_b, n);
    s->used_b = true;
    s->imm = imm;
    s->in.raddr_b = n;
    return 7;
  }
  fail(p, "bad source operand 0x%x", (unsigned)o);
  return 0;
}

static bool is_io_dst(unsigned waddr) { return waddr >= 36 && waddr != 37 && waddr != 39; }

/* Which file side a destination needs: 'A', 'B' or 0 for either. */
static char dst_side(struct hop_qpu_prog *p, int o, unsigned *waddr)
{
  unsigned k = KIND(o), n = NUM(o);
  *waddr = n;
  if (k == HOP_QPU_K_ACC && n <= 3) {
    *waddr = 32 + n;
    return 0;
  }
  if (k == HOP_QPU_K_RA && n < 64)
    return 'A';
  if (k == HOP_QPU_K_RB && n < 64)
    return 'B';
  if (k == HOP_QPU_K_IO && n < 64)
    return 0;
  fail(p, "bad destination operand 0x%x", (unsigned)o);
  *waddr = 39;
  return 0;
}

static void resolve_sources(struct hop_qpu_prog *p, struct word_state *s, const struct hop_qpu_op *op,
                            unsigned *ma, unsigned *mb, bool io_pass)
{
  if (op->op == 0)
    return;
  unsigned ka = KIND(op->a), kb = KIND(op->b);
  if ((ka == HOP_QPU_K_IO) == io_pass)
    *ma = src_mux(p, s, op->a, io_pass);
  if ((kb == HOP_QPU_K_IO) == io_pass)
    *mb = src_mux(p, s, op->b, io_pass);
}

long hop_qpu_emit_alu(struct hop_qpu_prog *p, const struct hop_qpu_alu *w)
{
  struct word_state s;
  memset(&s, 0, sizeof s);
  s.in.sig = w->sig ? w->sig : HOP_QPU_SIG_NONE;
  s.in.raddr_a = s.in.raddr_b = HOP_QPU_R_NOP;
  s.in.pack = w->pack;
  s.in.unpack = w->unpack;
  s.in.pm = w->pm;
  unsigned am = 0, bm = 0, ma = 0, mb = 0;
  /* Fixed registers and immediates claim their file first, then I/O reads
   * go wherever a read address is still free. */
  resolve_sources(p, &s, &w->add, &am, &bm, false);
  resolve_sources(p, &s, &w->mul, &ma, &mb, false);
  resolve_sources(p, &s, &w->add, &am, &bm, true);
  resolve_sources(p, &s, &w->mul, &ma, &mb, true);
  if (w->rotate) {
    unsigned code = w->rotate >= 16 ? 48 : 48 + w->rotate;
    if (w->mul.op == 0 || (s.used_b && (!s.imm || s.in.raddr_b != code)))
      fail(p, "rotation needs a mul op and a free regfile-B read address");
    s.used_b = s.imm = true;
    s.in.raddr_b = code;
  }
  if (s.imm) {
    if (w->sig && w->sig != HOP_QPU_SIG_SMALL_IMM)
      fail(p, "a small immediate or rotation cannot carry signal %u", w->sig);
    s.in.sig = HOP_QPU_SIG_SMALL_IMM;
  }
  s.in.op_add = w->add.op;
  s.in.op_mul = w->mul.op;
  s.in.add_a = am;
  s.in.add_b = bm;
  s.in.mul_a = ma;
  s.in.mul_b = mb;
  /* Destinations decide the write-swap bit. */
  unsigned wa = 39, wm = 39;
  char sa = w->add.op ? dst_side(p, w->add.dst, &wa) : 0;
  char sm = w->mul.op ? dst_side(p, w->mul.dst, &wm) : 0;
  bool swap = sa == 'B' || sm == 'A';
  if ((sa && sm && sa == sm) || (swap && (sa == 'A' || sm == 'B')))
    fail(p, "both ALUs write through the same register file");
  if (wa == wm && is_io_dst(wa) && w->add.op && w->mul.op)
    fail(p, "both ALUs write I/O register %u", wa);
  s.in.ws = swap;
  s.in.waddr_add = wa;
  s.in.waddr_mul = wm;
  s.in.cond_add = w->add.op ? (w->add.cond ? w->add.cond : HOP_QPU_COND_ALWAYS) : 0;
  s.in.cond_mul = w->mul.op ? (w->mul.cond ? w->mul.cond : HOP_QPU_COND_ALWAYS) : 0;
  if ((w->add.op && is_io_dst(wa) && s.in.cond_add != HOP_QPU_COND_ALWAYS) ||
      (w->mul.op && is_io_dst(wm) && s.in.cond_mul != HOP_QPU_COND_ALWAYS))
    fail(p, "conditional write to an I/O register");
  if (w->mul.sf && w->add.op)
    fail(p, "flags come from the add ALU when it has an op");
  s.in.sf = (w->add.op ? w->add.sf : w->mul.sf) ? 1 : 0;
  bool tmu_write = (w->add.op && wa >= 56) || (w->mul.op && wm >= 56);
  bool ldtmu = s.in.sig == HOP_QPU_SIG_LDTMU0 || s.in.sig == HOP_QPU_SIG_LDTMU1;
  if (tmu_write && ldtmu)
    fail(p, "TMU write and ldtmu in one word");
  return hop_qpu_emit_raw(p, hop_qpu_encode(&s.in));
}

/* Load immediate: the value goes to one destination, like py-videocore. */
static long emit_load(struct hop_qpu_prog *p, int dst, unsigned type, uint32_t imm, bool sf)
{
  struct hop_qpu_insn in;
  memset(&in, 0, sizeof in);
  in.sig = HOP_QPU_SIG_LOAD_IMM;
  in.ldi_type = type;
  in.imm = imm;
  in.sf = sf;
  in.cond_add = in.cond_mul = HOP_QPU_COND_ALWAYS;
  unsigned waddr;
  char side = dst_side(p, dst, &waddr);
  in.ws = side == 'B';
  in.waddr_add = waddr;
  in.waddr_mul = HOP_QPU_W_NOP;
  return hop_qpu_emit_raw(p, hop_qpu_encode(&in));
}

long hop_qpu_emit_ldi(struct hop_qpu_prog *p, int dst, uint32_t value, bool sf)
{
  return emit_load(p, dst, HOP_QPU_LDI_32, value, sf);
}

long hop_qpu_emit_ldi_elems(struct hop_qpu_prog *p, int dst, const int vals[16], bool sf)
{
  bool any_negative = false;
  for (int i = 0; i < 16; i++) {
    if (vals[i] < -2 || vals[i] > 3)
      fail(p, "per-element immediate %d out of range", vals[i]);
    any_negative |= vals[i] < 0;
  }
  uint32_t imm = 0;
  for (int i = 0; i < 16; i++) {
    if (any_negative && vals[i] > 1)
      fail(p, "per-element values mix %d with negatives", vals[i]);
    unsigned v = (unsigned)vals[i] & 3u;
    imm |= (uint32_t)(v & 1u) << i | (uint32_t)(v >> 1) << (16 + i);
  }
  return emit_load(p, dst, any_negative ? HOP_QPU_LDI_PER_ELEM_SIGNED : HOP_QPU_LDI_PER_ELEM_UNSIGNED,
                   imm, sf);
}

long hop_qpu_emit_sema(struct hop_qpu_prog *p, bool acquire, unsigned sem)
{
  if (sem > 15)
    fail(p, "semaphore %u out of range", sem);
  return emit_load(p, HOP_QPU_NULL, HOP_QPU_LDI_SEMAPHORE, (acquire ? 16u : 0u) | (sem & 15u), false);
}

long hop_qpu_emit_branch_full(struct hop_qpu_prog *p, const struct hop_qpu_branch *b)
{
  struct hop_qpu_insn in;
  memset(&in, 0, sizeof in);
  in.sig = HOP_QPU_SIG_BRANCH;
  in.cond_br = b->cond;
  in.rel = b->label >= 0 || b->relative;
  in.imm = b->label >= 0 ? 0 : b->address;
  if (b->reg >= 0) {
    if (b->reg > 31 || (b->reg & 1))
      fail(p, "branch register ra%d: only even ra0..ra30 (bit 0 doubles as set-flags)", b->reg);
    in.reg = 1;
    in.raddr_a = (unsigned)b->reg & 31u;
  }
  in.waddr_add = in.waddr_mul = HOP_QPU_W_NOP;
  if (b->link) {
    unsigned waddr;
    char side = dst_side(p, b->link, &waddr);
    if (waddr > HOP_QPU_W_ACC3 && waddr != HOP_QPU_W_NOP && !(waddr < 32))
      fail(p, "branch link to I/O address %u", waddr);
    in.ws = side == 'B';
    in.waddr_add = waddr;
  }
  long at = hop_qpu_emit_raw(p, hop_qpu_encode(&in));
  if (at < 0 || b->label < 0)
    return at;
  size_t cap = p->capfix;
  if (!grow((void **)&p->fixups, &cap, p->nfix + 1, sizeof *p->fixups)) {
    fail(p, "out of memory");
    return -1;
  }
  p->capfix = cap;
  p->fixups[p->nfix++] = (struct hop_qpu_fixup){.at = (size_t)at, .label = b->label};
  return at;
}

long hop_qpu_emit_branch(struct hop_qpu_prog *p, unsigned bcond, int label)
{
  struct hop_qpu_branch b = {.cond = bcond, .label = label, .reg = -1};
  return hop_qpu_emit_branch_full(p, &b);
}

bool hop_qpu_prog_finish(struct hop_qpu_prog *p)
{
  for (size_t i = 0; i < p->nfix && !hop_qpu_prog_failed(p); i++) {
    const struct hop_qpu_fixup *f = &p->fixups[i];
    if (f->label < 0 || f->label >= p->nlabels || p->labels[f->label] < 0) {
      fail(p, "branch at word %zu to an unbound label", f->at);
      break;
    }
    /* Relative targets count from the word after the three delay slots. */
    int64_t off = 8 * ((int64_t)p->labels[f->label] - ((int64_t)f->at + 4));
    p->words[f->at] = (p->words[f->at] & ~0xffffffffull) | (uint32_t)(int32_t)off;
  }
  return !hop_qpu_prog_failed(p);
}

long hop_qpu_emit_nop(struct hop_qpu_prog *p, unsigned sig)
{
  struct hop_qpu_alu w = {.sig = sig};
  return hop_qpu_emit_alu(p, &w);
}

long hop_qpu_emit_add(struct hop_qpu_prog *p, unsigned op, int dst, int a, int b, unsigned sig)
{
  struct hop_qpu_alu w = {.add = {.op = op, .dst = dst, .a = a, .b = b}, .sig = sig};
  return hop_qpu_emit_alu(p, &w);
}

long hop_qpu_emit_mul(struct hop_qpu_prog *p, unsigned op, int dst, int a, int b, unsigned sig)
{
  struct hop_qpu_alu w = {.mul = {.op = op, .dst = dst, .a = a, .b = b}, .sig = sig};
  return hop_qpu_emit_alu(p, &w);
}

long hop_qpu_emit_mov(struct hop_qpu_prog *p, int dst, int src, unsigned sig)
{
  return hop_qpu_emit_add(p, HOP_QPU_A_OR, dst, src, src, sig);
}
