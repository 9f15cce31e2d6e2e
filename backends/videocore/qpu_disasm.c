/* QPU words as text, for debugging, the emulator's fault messages and the
 * tests.  The syntax is close to py-videocore's and Mesa's: "op dst, a, b"
 * for each ALU, conditions as ".ifz", flags as ".setf", signals as a
 * trailing "; ldtmu0". */
#include <stdio.h>
#include <string.h>

#include "qpu_asm.h"

static const char *const add_names[32] = {
  "nop", "fadd", "fsub", "fmin", "fmax", "fminabs", "fmaxabs", "ftoi", "itof", "add9", "add10",
  "add11", "iadd", "isub", "shr", "asr", "ror", "shl", "imin", "imax", "band", "bor", "bxor",
  "bnot", "clz", "add25", "add26", "add27", "add28", "add29", "v8adds", "v8subs",
};
static const char *const mul_names[8] = {"nop",   "fmul",  "mul24",  "v8muld",
                                         "v8min", "v8max", "v8adds", "v8subs"};
static const char *const cond_names[8] = {".never", "", ".ifz", ".ifnz", ".ifn", ".ifnn", ".ifc", ".ifnc"};
static const char *const bcond_names[16] = {
  "jzs", "jzc", "jzs_any", "jzc_any", "jns", "jnc", "jns_any", "jnc_any",
  "jcs", "jcc", "jcs_any", "jcc_any", "j?12", "j?13", "j?14", "jmp",
};
static const char *const sig_names[16] = {
  "bkpt", "", "thrsw", "thrend", "sbwait", "sbdone", "lthrsw", "loadcv",
  "loadc", "ldcend", "ldtmu0", "ldtmu1", "loadam", "", "", "",
};

static void waddr_name(unsigned addr, bool file_b, char *out, size_t len)
{
  static const char *const io[32] = {
    "r0", "r1", "r2", "r3", "tmu_noswap", NULL, "host_int", "-", "unif_addr", NULL, NULL,
    "tlb_z", "tlb_cms", "tlb_c", "tlb_cam", "tlb_am", "vpm", NULL, NULL, "mutex_release",
    "sfu_recip", "sfu_recipsqrt", "sfu_exp", "sfu_log", "tmu0_s", "tmu0_t", "tmu0_r", "tmu0_b",
    "tmu1_s", "tmu1_t", "tmu1_r", "tmu1_b",
  };
  if (addr < 32) {
    snprintf(out, len, "r%c%u", file_b ? 'b' : 'a', addr);
    return;
  }
  const char *n = io[addr - 32];
  if (addr == 37)
    n = file_b ? "broadcast" : "r5quad";
  else if (addr == 41)
    n = file_b ? "quad_y" : "quad_x";
  else if (addr == 42)
    n = file_b ? "rev_flag" : "ms_flags";
  else if (addr == 49)
    n = file_b ? "vpmvcd_wr_setup" : "vpmvcd_rd_setup";
  else if (addr == 50)
    n = file_b ? "vpm_st_addr" : "vpm_ld_addr";
  snprintf(out, len, "%s", n ? n : "w?");
}

static void raddr_name(unsigned addr, bool file_b, char *out, size_t len)
{
  const char *n = NULL;
  switch (addr) {
  case 32: n = "unif"; break;
  case 35: n = "vary"; break;
  case 38: n = file_b ? "qpu_num" : "elem_num"; break;
  case 39: n = "-"; break;
  case 48: n = "vpm"; break;
  case 49: n = file_b ? "vpm_st_busy" : "vpm_ld_busy"; break;
  case 50: n = file_b ? "vpm_st_wait" : "vpm_ld_wait"; break;
  case 51: n = "mutex"; break;
  default: break;
  }
  if (addr < 32)
    snprintf(out, len, "r%c%u", file_b ? 'b' : 'a', addr);
  else
    snprintf(out, len, "%s", n ? n : "r?");
}

static void mux_name(const struct hop_qpu_insn *in, unsigned mux, char *out, size_t len)
{
  if (mux < 6) {
    snprintf(out, len, "r%u", mux);
  } else if (mux == 6) {
    raddr_name(in->raddr_a, false, out, len);
  } else if (in->sig == HOP_QPU_SIG_SMALL_IMM) {
    unsigned c = in->raddr_b;
    if (c < 32)
      snprintf(out, len, "%d", (int)hop_qpu_small_imm_value(c));
    else if (c < 48)
      snprintf(out, len, "%gf", (double)(c < 40 ? (float)(1 << (c - 32)) : 1.0f / (float)(1 << (48 - c))));
    else
      snprintf(out, len, "%d", (int)hop_qpu_small_imm_value(c));
  } else {
    raddr_name(in->raddr_b, true, out, len);
  }
}

static size_t put_alu(const struct hop_qpu_insn *in, bool is_add, char *buf, size_t len)
{
  unsigned op = is_add ? in->op_add : in->op_mul;
  unsigned cond = is_add ? in->cond_add : in->cond_mul;
  unsigned waddr = is_add ? in->waddr_add : in->waddr_mul;
  bool file_b = is_add ? in->ws : !in->ws;
  unsigned a = is_add ? in->add_a : in->mul_a, b = is_add ? in->add_b : in->mul_b;
  bool flags = in->sf && (is_add ? in->op_add != 0 : in->op_add == 0);
  char d[24], sa[24], sb[24];
  if (op == 0 && cond == 0 && waddr == 39)
    return (size_t)snprintf(buf, len, "nop");
  waddr_name(waddr, file_b, d, sizeof d);
  mux_name(in, a, sa, sizeof sa);
  mux_name(in, b, sb, sizeof sb);
  return (size_t)snprintf(buf, len, "%s%s%s %s, %s, %s", is_add ? add_names[op] : mul_names[op],
                          cond_names[cond], flags ? ".setf" : "", d, sa, sb);
}

static void put_ldi(const struct hop_qpu_insn *in, char *buf, size_t len)
{
  char da[24], dm[24];
  waddr_name(in->waddr_add, in->ws, da, sizeof da);
  waddr_name(in->waddr_mul, !in->ws, dm, sizeof dm);
  const char *sf = in->sf ? ".setf" : "";
  if (in->ldi_type == HOP_QPU_LDI_SEMAPHORE) {
    snprintf(buf, len, "%s %u", (in->imm & 16u) ? "sacq" : "srel", in->imm & 15u);
    return;
  }
  if (in->ldi_type == HOP_QPU_LDI_32) {
    snprintf(buf, len, "ldi%s%s %s, %s, 0x%08x", cond_names[in->cond_add], sf, da, dm, in->imm);
    return;
  }
  bool sgn = in->ldi_type == HOP_QPU_LDI_PER_ELEM_SIGNED;
  int used = snprintf(buf, len, "ldi%s%s %s, %s, [", sgn ? ".s" : ".u", sf, da, dm);
  for (int i = 0; i < 16 && used > 0 && (size_t)used < len; i++) {
    int v = (int)(((in->imm >> i) & 1u) | (((in->imm >> (16 + i)) & 1u) << 1));
    if (sgn && v >= 2)
      v -= 4;
    used += snprintf(buf + used, len - (size_t)used, "%s%d", i ? "," : "", v);
  }
  if (used > 0 && (size_t)used < len)
    snprintf(buf + used, len - (size_t)used, "]");
}

const char *hop_qpu_disasm(uint64_t word, char *buf, size_t len)
{
  struct hop_qpu_insn in;
  hop_qpu_decode(word, &in);
  if (len == 0)
    return buf;
  if (in.sig == HOP_QPU_SIG_BRANCH) {
    char la[24], lm[24], reg[16] = "";
    waddr_name(in.waddr_add, in.ws, la, sizeof la);
    waddr_name(in.waddr_mul, !in.ws, lm, sizeof lm);
    if (in.reg)
      snprintf(reg, sizeof reg, " + ra%u", in.raddr_a);
    snprintf(buf, len, "%s.%s %d%s ; link %s, %s", in.rel ? "brr" : "bra", bcond_names[in.cond_br],
             (int)(int32_t)in.imm, reg, la, lm);
    return buf;
  }
  if (in.sig == HOP_QPU_SIG_LOAD_IMM) {
    put_ldi(&in, buf, len);
    return buf;
  }
  size_t used = put_alu(&in, true, buf, len);
  if (used < len)
    used += (size_t)snprintf(buf + used, len - used, " ; ");
  if (used < len)
    used += put_alu(&in, false, buf + used, len - used);
  if (in.sig == HOP_QPU_SIG_SMALL_IMM && in.raddr_b >= 48 && in.op_mul != 0 && used < len)
    used += in.raddr_b == 48 ? (size_t)snprintf(buf + used, len - used, " ; rot r5")
                             : (size_t)snprintf(buf + used, len - used, " ; rot %u", in.raddr_b - 48);
  if (sig_names[in.sig][0] != '\0' && used < len)
    used += (size_t)snprintf(buf + used, len - used, " ; %s", sig_names[in.sig]);
  if ((in.pack || in.unpack || in.pm) && used < len)
    snprintf(buf + used, len - used, " ; pm%u pack%u unpack%u", in.pm, in.pack, in.unpack);
  return buf;
}
