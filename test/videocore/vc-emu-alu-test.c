/* Emulator unit tests, ALU side: every add and mul opcode with its C flag,
 * flags and write conditions, small immediates, rotation, load immediate,
 * branches, uniforms, pack/unpack and the SFU. */
#include <math.h>

#include "vc_emu_util.h"

/* r2 = r0 op r1 with flags, r0 and r1 from the uniforms. */
static void alu_case(const char *name, bool mul, unsigned op, uint32_t a, uint32_t b, uint32_t want,
                     int want_c)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  hop_qpu_emit_mov(&p, HOP_QPU_R0, HOP_QPU_UNIF, 0);
  hop_qpu_emit_mov(&p, HOP_QPU_R1, HOP_QPU_UNIF, 0);
  struct hop_qpu_op o = {op, HOP_QPU_R2, HOP_QPU_R0, HOP_QPU_R1, 0, true};
  struct hop_qpu_alu w = {.add = mul ? (struct hop_qpu_op){0} : o, .mul = mul ? o : (struct hop_qpu_op){0}};
  hop_qpu_emit_alu(&p, &w);
  t_end(&p);
  uint32_t unif[2] = {a, b};
  enum hop_qpuemu_status st;
  struct hop_qpuemu *e = t_run(&p, 1, unif, 2, &st);
  uint16_t z = 0, n = 0, c = 0;
  if (e)
    hop_qpuemu_read_flags(e, 0, &z, &n, &c);
  uint32_t got = e ? t_acc(e, 2, 5) : 0;
  bool float_result = mul ? op == HOP_QPU_M_FMUL : (op >= HOP_QPU_A_FADD && op <= HOP_QPU_A_FMAXABS);
  bool want_z = want == 0 || (float_result && (want & 0x7fffffffu) == 0);
  vc_ok(st == HOP_QPUEMU_DONE && got == want && (want_c < 0 || (c == 0xffff) == (want_c == 1)) &&
            (z == 0xffff) == want_z && (n == 0xffff) == (want >> 31 == 1),
        "%s: got 0x%08x want 0x%08x, C %s", name, got, want, c ? "set" : "clear");
  hop_qpuemu_free(e);
}

static void test_ops(void)
{
  alu_case("fadd 1.5 + 2.25", false, HOP_QPU_A_FADD, t_u(1.5f), t_u(2.25f), t_u(3.75f), 1);
  alu_case("fadd rounds toward zero", false, HOP_QPU_A_FADD, t_u(1.0f), t_u(0x1.8p-24f), t_u(1.0f), 1);
  alu_case("fadd flushes denormals", false, HOP_QPU_A_FADD, 0x00000100u, 0, 0, 0);
  alu_case("fsub 1 - 2", false, HOP_QPU_A_FSUB, t_u(1.0f), t_u(2.0f), t_u(-1.0f), 0);
  alu_case("fmin 3, -2", false, HOP_QPU_A_FMIN, t_u(3.0f), t_u(-2.0f), t_u(-2.0f), 1);
  alu_case("fmax 3, -2", false, HOP_QPU_A_FMAX, t_u(3.0f), t_u(-2.0f), t_u(3.0f), 1);
  alu_case("fminabs -3, 2", false, HOP_QPU_A_FMINABS, t_u(-3.0f), t_u(2.0f), t_u(2.0f), 1);
  alu_case("fmaxabs -3, 2", false, HOP_QPU_A_FMAXABS, t_u(-3.0f), t_u(2.0f), t_u(3.0f), 1);
  alu_case("ftoi -2.7 truncates", false, HOP_QPU_A_FTOI, t_u(-2.7f), 0, (uint32_t)-2, 0);
  alu_case("itof -5", false, HOP_QPU_A_ITOF, (uint32_t)-5, 0, t_u(-5.0f), 0);
  alu_case("add with carry out", false, HOP_QPU_A_ADD, 0xffffffffu, 1, 0, 1);
  alu_case("sub with borrow", false, HOP_QPU_A_SUB, 1, 2, 0xffffffffu, 1);
  alu_case("shr, last bit out", false, HOP_QPU_A_SHR, 0x80000003u, 1, 0x40000001u, 1);
  alu_case("asr keeps the sign", false, HOP_QPU_A_ASR, 0x80000000u, 4, 0xf8000000u, 0);
  alu_case("ror", false, HOP_QPU_A_ROR, 0x00000001u, 1, 0x80000000u, 0);
  alu_case("shl, last bit out", false, HOP_QPU_A_SHL, 0x80000001u, 1, 0x00000002u, 1);
  alu_case("min signed", false, HOP_QPU_A_MIN, (uint32_t)-3, 2, (uint32_t)-3, 0);
  alu_case("max signed", false, HOP_QPU_A_MAX, (uint32_t)-3, 2, 2, 0);
  alu_case("and", false, HOP_QPU_A_AND, 0xff00ff00u, 0x0ff00ff0u, 0x0f000f00u, 0);
  alu_case("or", false, HOP_QPU_A_OR, 0xff000000u, 0x000000ffu, 0xff0000ffu, 0);
  alu_case("xor", false, HOP_QPU_A_XOR, 0xffff0000u, 0xff00ff00u, 0x00ffff00u, 0);
  alu_case("not", false, HOP_QPU_A_NOT, 0x0000ffffu, 0, 0xffff0000u, 0);
  alu_case("clz", false, HOP_QPU_A_CLZ, 0x00010000u, 0, 15, 0);
  alu_case("v8adds saturates", false, HOP_QPU_A_V8ADDS, 0xf0100000u, 0x20200001u, 0xff300001u, 0);
  alu_case("v8subs saturates", false, HOP_QPU_A_V8SUBS, 0x10300001u, 0x20200000u, 0x00100001u, 0);
  alu_case("fmul 1.5 * -2", true, HOP_QPU_M_FMUL, t_u(1.5f), t_u(-2.0f), t_u(-3.0f), 0);
  alu_case("mul24 drops the top byte", true, HOP_QPU_M_MUL24, 0x01000003u, 5, 15, 0);
  alu_case("v8muld", true, HOP_QPU_M_V8MULD, 0xff80ff00u, 0xffff8000u, 0xff808000u, -1);
  alu_case("v8min", true, HOP_QPU_M_V8MIN, 0x10ff2000u, 0x20013000u, 0x10012000u, -1);
  alu_case("v8max", true, HOP_QPU_M_V8MAX, 0x10ff2000u, 0x20013000u, 0x20ff3000u, -1);
  alu_case("mul v8adds", true, HOP_QPU_M_V8ADDS, 0xf0000000u, 0x20000001u, 0xff000001u, -1);
  alu_case("mul v8subs", true, HOP_QPU_M_V8SUBS, 0x10000005u, 0x20000001u, 0x00000004u, -1);
}

/* Flags under a condition, conditional writes, per-element ldi. */
static void test_flags(void)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  hop_qpu_emit_ldi(&p, HOP_QPU_R1, 0, false);
  struct hop_qpu_alu sub3 = {.add = {HOP_QPU_A_SUB, HOP_QPU_NULL, HOP_QPU_ELEM_NUM, HOP_QPU_IMM(3), 0, true}};
  hop_qpu_emit_alu(&p, &sub3);                               /* Z in lane 3, N in lanes 0..2 */
  struct hop_qpu_alu ifz = {.add = {HOP_QPU_A_OR, HOP_QPU_R1, HOP_QPU_IMM(7), HOP_QPU_IMM(7), HOP_QPU_COND_ZS, false}};
  hop_qpu_emit_alu(&p, &ifz);
  struct hop_qpu_alu ifn = {.mul = {HOP_QPU_M_V8MIN, HOP_QPU_R2, HOP_QPU_IMM(9), HOP_QPU_IMM(9), HOP_QPU_COND_NS, false}};
  hop_qpu_emit_ldi(&p, HOP_QPU_R2, 1, false);
  hop_qpu_emit_alu(&p, &ifn);
  int v[16] = {-2, -1, 0, 1, -2, -1, 0, 1, -2, -1, 0, 1, -2, -1, 0, 1};
  hop_qpu_emit_ldi_elems(&p, HOP_QPU_R3, v, false);
  t_end(&p);
  enum hop_qpuemu_status st;
  struct hop_qpuemu *e = t_run(&p, 1, NULL, 0, &st);
  bool ok = st == HOP_QPUEMU_DONE;
  for (int i = 0; e && i < 16; i++)
    ok &= t_acc(e, 1, i) == (i == 3 ? 7u : 0u) && t_acc(e, 2, i) == (i < 3 ? 9u : 1u) &&
          t_acc(e, 3, i) == (uint32_t)v[i];
  vc_ok(ok, "flags from element_number - 3 steer .ifz/.ifn writes; signed per-element ldi");
  hop_qpuemu_free(e);
}

static void test_rotation(void)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  hop_qpu_emit_mov(&p, HOP_QPU_R0, HOP_QPU_ELEM_NUM, 0);
  hop_qpu_emit_mov(&p, HOP_QPU_RA(0), HOP_QPU_ELEM_NUM, 0);
  hop_qpu_emit_ldi(&p, HOP_QPU_BROADCAST, 5, false);         /* r5 = 5 for rotate-by-r5 */
  struct hop_qpu_alu full = {.mul = {HOP_QPU_M_V8MIN, HOP_QPU_R1, HOP_QPU_R0, HOP_QPU_R0, 0, false}, .rotate = 3};
  struct hop_qpu_alu quad = {.mul = {HOP_QPU_M_V8MIN, HOP_QPU_R2, HOP_QPU_RA(0), HOP_QPU_RA(0), 0, false}, .rotate = 1};
  struct hop_qpu_alu by5 = {.mul = {HOP_QPU_M_V8MIN, HOP_QPU_R3, HOP_QPU_R0, HOP_QPU_R0, 0, false}, .rotate = 16};
  hop_qpu_emit_alu(&p, &full);
  hop_qpu_emit_alu(&p, &quad);
  hop_qpu_emit_alu(&p, &by5);
  struct hop_qpu_alu bc = {.mul = {HOP_QPU_M_V8MIN, HOP_QPU_BROADCAST, HOP_QPU_R0, HOP_QPU_R0, 0, false}, .rotate = 14};
  hop_qpu_emit_alu(&p, &bc);                                 /* r5 = lane 2 of r0 everywhere */
  hop_qpu_emit_mov(&p, HOP_QPU_R0, HOP_QPU_R5, 0);
  hop_qpu_emit_mov(&p, HOP_QPU_R5_QUAD, HOP_QPU_ELEM_NUM, 0);
  t_end(&p);
  enum hop_qpuemu_status st;
  struct hop_qpuemu *e = t_run(&p, 1, NULL, 0, &st);
  bool f = st == HOP_QPUEMU_DONE, q = f, r5 = f, b = f, pq = f;
  for (int i = 0; e && i < 16; i++) {
    f &= t_acc(e, 1, i) == (uint32_t)((i - 3) & 15);
    q &= t_acc(e, 2, i) == (uint32_t)((i & ~3) | ((i - 1) & 3));
    r5 &= t_acc(e, 3, i) == (uint32_t)((i - 5) & 15);
    b &= t_acc(e, 0, i) == 2u;
    pq &= t_acc(e, 5, i) == (uint32_t)(i & ~3);
  }
  vc_ok(f, "full 16-lane rotation of an accumulator");
  vc_ok(q, "rotation inside quads when the input is regfile A");
  vc_ok(r5, "rotation by r5");
  vc_ok(b && pq, "r5 broadcast (B) and per-quad replicate (A) writes");
  hop_qpuemu_free(e);
}

/* A counted loop: three delay slots run every time, the branch falls
 * through when the counter reaches zero. */
static void test_branch(void)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  hop_qpu_emit_ldi(&p, HOP_QPU_R0, 5, false);
  hop_qpu_emit_ldi(&p, HOP_QPU_R1, 0, false);
  int top = hop_qpu_label_new(&p);
  hop_qpu_label_bind(&p, top);
  struct hop_qpu_alu dec = {.add = {HOP_QPU_A_SUB, HOP_QPU_R0, HOP_QPU_R0, HOP_QPU_IMM(1), 0, true}};
  hop_qpu_emit_alu(&p, &dec);
  hop_qpu_emit_branch(&p, HOP_QPU_B_ALL_ZC, top);
  for (int i = 0; i < 3; i++)
    hop_qpu_emit_add(&p, HOP_QPU_A_ADD, HOP_QPU_R1, HOP_QPU_R1, HOP_QPU_IMM(1), 0);
  /* An absolute branch linking r2, then a branch to the address in ra2;
   * each jumps over an ldi that would spoil r1. */
  long at = (long)p.n;
  struct hop_qpu_branch abs = {.cond = HOP_QPU_B_ALWAYS, .label = -1, .address = T_BASE + 8u * (uint32_t)(at + 5),
                               .reg = -1, .link = HOP_QPU_R2};
  hop_qpu_emit_branch_full(&p, &abs);
  for (int i = 0; i < 3; i++)
    hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_ldi(&p, HOP_QPU_R1, 99, false);
  hop_qpu_emit_ldi(&p, HOP_QPU_RA(2), T_BASE + 8u * (uint32_t)(at + 12), false);
  hop_qpu_emit_nop(&p, 0);
  struct hop_qpu_branch viareg = {.cond = HOP_QPU_B_ALWAYS, .label = -1, .reg = 2};
  hop_qpu_emit_branch_full(&p, &viareg);
  for (int i = 0; i < 3; i++)
    hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_ldi(&p, HOP_QPU_R1, 77, false);
  t_end(&p);
  enum hop_qpuemu_status st;
  struct hop_qpuemu *e = t_run(&p, 1, NULL, 0, &st);
  vc_ok(st == HOP_QPUEMU_DONE && e && t_acc(e, 1, 0) == 15,
        "counted loop: 5 iterations x 3 delay slots = %u", e ? t_acc(e, 1, 0) : 0);
  vc_ok(e && t_acc(e, 2, 7) == T_BASE + 8u * (uint32_t)at + 32u,
        "absolute branch links its return address; a branch through ra2 lands");
  hop_qpuemu_free(e);
}

static void test_uniforms(void)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  hop_qpu_emit_mov(&p, HOP_QPU_R0, HOP_QPU_UNIF, 0);         /* 11 */
  hop_qpu_emit_mov(&p, HOP_QPU_R1, HOP_QPU_UNIF, 0);         /* the address of word 4 */
  hop_qpu_emit_mov(&p, HOP_QPU_UNIF_ADDR, HOP_QPU_R1, 0);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_mov(&p, HOP_QPU_R2, HOP_QPU_UNIF, 0);         /* 44 */
  t_end(&p);
  uint32_t unif[5] = {11, T_UNIF + 16, 22, 33, 44};
  enum hop_qpuemu_status st;
  struct hop_qpuemu *e = t_run(&p, 1, unif, 5, &st);
  struct hop_qpuemu_counters c;
  hop_qpuemu_counters(e, 0, &c);
  vc_ok(st == HOP_QPUEMU_DONE && t_acc(e, 0, 0) == 11 && t_acc(e, 2, 9) == 44 && c.uniforms == 3,
        "uniform stream and uniforms_address");
  hop_qpuemu_free(e);
}

static void test_pack_sfu(void)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  hop_qpu_emit_ldi(&p, HOP_QPU_RA(1), 0, false);
  hop_qpu_emit_ldi(&p, HOP_QPU_R0, t_u(1.5f), false);
  /* pm 0, pack 16b: 1.5 as a half into the high half of ra1. */
  struct hop_qpu_alu pk = {.add = {HOP_QPU_A_FADD, HOP_QPU_RA(1), HOP_QPU_R0, HOP_QPU_IMM(0), 0, false}, .pack = 2};
  hop_qpu_emit_alu(&p, &pk);
  hop_qpu_emit_nop(&p, 0);
  struct hop_qpu_alu up = {.add = {HOP_QPU_A_FADD, HOP_QPU_R1, HOP_QPU_RA(1), HOP_QPU_IMM(0), 0, false}, .unpack = 2};
  hop_qpu_emit_alu(&p, &up);                                  /* r1 = float(high half) */
  hop_qpu_emit_ldi(&p, HOP_QPU_R0, t_u(4.0f), false);
  hop_qpu_emit_mov(&p, HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_W_SFU_RECIP), HOP_QPU_R0, 0);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_mov(&p, HOP_QPU_R2, HOP_QPU_R4, 0);
  t_end(&p);
  enum hop_qpuemu_status st;
  struct hop_qpuemu *e = t_run(&p, 1, NULL, 0, &st);
  uint32_t ra1[16] = {0};
  if (e)
    hop_qpuemu_read_reg(e, 0, HOP_QPUEMU_REG_RA, 1, ra1);
  vc_ok(st == HOP_QPUEMU_DONE && ra1[0] == 0x3e000000u && t_f(t_acc(e, 1, 0)) == 1.5f,
        "pack 16b of a float result and unpack it back (ra1 = 0x%08x)", ra1[0]);
  vc_ok(e && t_f(t_acc(e, 2, 3)) == 0.25f, "SFU reciprocal lands in r4 three words later");
  hop_qpuemu_free(e);
}

int main(void)
{
  test_ops();
  test_flags();
  test_rotation();
  test_branch();
  test_uniforms();
  test_pack_sfu();
  return vc_tap_done();
}
