/* The QPU assembler against the words decoded in the fact sheet (sec. 2.6),
 * the setup words of py-videocore's sgemm, a decode/encode round trip over
 * every word of the golden binary, the disassembler and the builder's
 * refusals.  Usage: vc-asm-test GOLDEN_BIN */
#include <stdlib.h>
#include <string.h>

#include "qpu_asm.h"
#include "vc_tap.h"

static uint64_t one_word(void (*emit)(struct hop_qpu_prog *))
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  emit(&p);
  uint64_t w = (hop_qpu_prog_finish(&p) && p.n) ? p.words[p.n - 1] : 0;
  if (hop_qpu_prog_failed(&p))
    printf("# builder: %s\n", p.error);
  hop_qpu_prog_free(&p);
  return w;
}

static void e_mov_unif(struct hop_qpu_prog *p) { hop_qpu_emit_mov(p, HOP_QPU_R0, HOP_QPU_UNIF, 0); }
static void e_mov_imm(struct hop_qpu_prog *p) { hop_qpu_emit_mov(p, HOP_QPU_R2, HOP_QPU_IMM(1), 0); }
static void e_ldi_mask(struct hop_qpu_prog *p)
{
  int v[16];
  for (int i = 0; i < 16; i++)
    v[i] = i == 4 ? 0 : 1;
  hop_qpu_emit_ldi_elems(p, HOP_QPU_NULL, v, true);
}
static void e_ldi(struct hop_qpu_prog *p) { hop_qpu_emit_ldi(p, HOP_QPU_R1, 40, false); }
static void e_rotate(struct hop_qpu_prog *p)
{
  struct hop_qpu_alu w = {.mul = {HOP_QPU_M_V8MIN, HOP_QPU_BROADCAST, HOP_QPU_R2, HOP_QPU_R2, 0, false},
                          .rotate = 1};
  hop_qpu_emit_alu(p, &w);
}
static void e_fadd_ldtmu(struct hop_qpu_prog *p)
{
  struct hop_qpu_alu w = {.add = {HOP_QPU_A_FADD, HOP_QPU_RB(31), HOP_QPU_RB(31), HOP_QPU_R0, 0, true},
                          .mul = {HOP_QPU_M_V8MIN, HOP_QPU_UNIF_ADDR, HOP_QPU_R2, HOP_QPU_R2, 0, false},
                          .sig = HOP_QPU_SIG_LDTMU0};
  hop_qpu_emit_alu(p, &w);
}
static void e_iadd_fmul(struct hop_qpu_prog *p)
{
  struct hop_qpu_alu w = {.add = {HOP_QPU_A_ADD, HOP_QPU_R1, HOP_QPU_R1, HOP_QPU_IMM(4), 0, true},
                          .mul = {HOP_QPU_M_FMUL, HOP_QPU_R0, HOP_QPU_R4, HOP_QPU_UNIF, 0, false}};
  hop_qpu_emit_alu(p, &w);
}
static void e_branch(struct hop_qpu_prog *p)
{
  int l = hop_qpu_label_new(p);
  hop_qpu_label_bind(p, l);
  for (int i = 0; i < 63; i++)
    hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_branch(p, HOP_QPU_B_ALL_ZC, l);
}
static void e_srel(struct hop_qpu_prog *p) { hop_qpu_emit_sema(p, false, 0); }
static void e_sacq(struct hop_qpu_prog *p) { hop_qpu_emit_sema(p, true, 0); }
static void e_thrend(struct hop_qpu_prog *p)
{
  struct hop_qpu_alu w = {.add = {HOP_QPU_A_OR, HOP_QPU_R0, HOP_QPU_R0, HOP_QPU_R0, 0, false},
                          .mul = {HOP_QPU_M_V8MIN, HOP_QPU_R0, HOP_QPU_R0, HOP_QPU_R0, 0, false},
                          .sig = HOP_QPU_SIG_THREAD_END};
  hop_qpu_emit_alu(p, &w);
}

static void check_words(void)
{
  static const struct {
    const char *what;
    void (*emit)(struct hop_qpu_prog *);
    uint64_t want;
  } cases[] = {
    {"mov r0, unif", e_mov_unif, 0x1002082715827d80ull},
    {"mov r2, 1 (small immediate)", e_mov_imm, 0xd00208a7159c1fc0ull},
    {"ldi per-element unsigned with setf", e_ldi_mask, 0xe60269e70000ffefull},
    {"ldi r1, 40", e_ldi, 0xe002486700000028ull},
    {"rotate broadcast by 1", e_rotate, 0xd00049e5809f1012ull},
    {"fadd rb31 ; mov unif_addr ; ldtmu0 (write swap)", e_fadd_ldtmu, 0xa00277e8819dfe12ull},
    {"iadd r1, r1, 4 ; fmul r0, r4, unif", e_iadd_fmul, 0xd00268602c8043e6ull},
    {"brr.jzc -536", e_branch, 0xf01809e7fffffde8ull},
    {"srel 0", e_srel, 0xe80249e700000000ull},
    {"sacq 0", e_sacq, 0xe80249e700000010ull},
    {"thrend", e_thrend, 0x30024820959e7000ull},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint64_t got = one_word(cases[i].emit);
    vc_ok(got == cases[i].want, "encode %s: %016llx (want %016llx)", cases[i].what,
          (unsigned long long)got, (unsigned long long)cases[i].want);
  }
  /* An absolute branch through ra4 with the return address into rb7. */
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  struct hop_qpu_branch b = {.cond = HOP_QPU_B_ANY_NS, .label = -1, .address = 0x1234, .reg = 4,
                             .link = HOP_QPU_RB(7)};
  hop_qpu_emit_branch_full(&p, &b);
  struct hop_qpu_insn br;
  hop_qpu_decode(p.n ? p.words[0] : 0, &br);
  vc_ok(!hop_qpu_prog_failed(&p) && br.sig == 15 && br.cond_br == 6 && !br.rel && br.reg && br.raddr_a == 4 &&
            br.ws == 1 && br.waddr_add == 7 && br.waddr_mul == 39 && br.imm == 0x1234,
        "encode an absolute branch through ra4 linking rb7");
  hop_qpu_prog_free(&p);
  /* py-videocore's nop keeps cond always on the add side: only decodable. */
  struct hop_qpu_insn in;
  hop_qpu_decode(0x10020827009e7000ull, &in);
  vc_ok(in.sig == 1 && in.op_add == 0 && in.cond_add == 1 && in.waddr_add == 32 && in.cond_mul == 0 &&
            in.waddr_mul == 39 && in.raddr_a == 39 && in.raddr_b == 39,
        "decode py-videocore's nop fields");
}

static void check_setup_words(void)
{
  vc_ok(hop_qpu_vdw_setup(16, 16, true, 0, 0) == 0x88104000u, "VDW setup 16x16 at Y=0");
  vc_ok(hop_qpu_vdw_setup(16, 16, true, 48, 0) == 0x88105800u, "VDW setup 16x16 at Y=48");
  vc_ok(hop_qpu_vdr_setup(16, 16, 0, 1, false, 16, 0) == 0x80001100u, "VDR setup 16 rows at Y=16");
  vc_ok(hop_qpu_vpm_read_setup(16, 1, false, HOP_QPU_VPM_32, 0x30) == 0x00001230u,
        "VPM vertical read setup at Y=48");
  vc_ok(hop_qpu_vpm_write_setup(1, false, HOP_QPU_VPM_32, 0x10) == 0x00001210u,
        "VPM vertical write setup at Y=16");
  vc_ok(hop_qpu_vdr_pitch(4096) == 0x90001000u && hop_qpu_vdw_stride(4032, false) == 0xc0000fc0u,
        "DMA pitch and stride words");
  vc_ok(hop_qpu_small_imm_int(-1) == 31 && hop_qpu_small_imm_int(15) == 15 &&
            hop_qpu_small_imm_int(16) == -1 && hop_qpu_small_imm_float(0.5f) == 47 &&
            hop_qpu_small_imm_float(128.0f) == 39 && hop_qpu_small_imm_float(3.0f) == -1,
        "small-immediate codes");
  vc_ok(hop_qpu_small_imm_value(48) == (uint32_t)-16 && hop_qpu_small_imm_value(63) == (uint32_t)-1,
        "rotation codes read as -16..-1 through mux 7");
}

static void check_golden(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!vc_ok(f != NULL, "golden binary %s is readable", path))
    return;
  uint64_t w[600];
  size_t n = fread(w, 8, 600, f);
  fclose(f);
  vc_ok(n == 485, "golden binary has 485 words (%zu)", n);
  size_t bad = 0, empty = 0;
  char text[160];
  for (size_t i = 0; i < n; i++) {
    struct hop_qpu_insn in;
    hop_qpu_decode(w[i], &in);
    bad += hop_qpu_encode(&in) != w[i];
    empty += hop_qpu_disasm(w[i], text, sizeof text)[0] == '\0';
  }
  vc_ok(bad == 0 && n > 0, "decode/encode round trip of every golden word (%zu differ)", bad);
  vc_ok(empty == 0, "every golden word disassembles");
  hop_qpu_disasm(w[129], text, sizeof text);
  vc_ok(strcmp(text, "iadd.setf r1, r1, 4 ; fmul r0, r4, unif") == 0, "disassemble word 129: %s", text);
  hop_qpu_disasm(w[195], text, sizeof text);
  vc_ok(strcmp(text, "brr.jzc -536 ; link -, -") == 0, "disassemble the k-loop branch: %s", text);
  hop_qpu_disasm(w[2], text, sizeof text);
  vc_ok(strstr(text, "[1,1,1,1,0,1") != NULL, "disassemble a per-element ldi: %s", text);
}

/* The builder refuses what the hardware cannot encode. */
static bool refused(void (*emit)(struct hop_qpu_prog *))
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  emit(&p);
  bool failed = !hop_qpu_prog_finish(&p);
  hop_qpu_prog_free(&p);
  return failed;
}

static void r_two_a(struct hop_qpu_prog *p) { hop_qpu_emit_add(p, HOP_QPU_A_FADD, HOP_QPU_R0, HOP_QPU_RA(1), HOP_QPU_RA(2), 0); }
static void r_imm_sig(struct hop_qpu_prog *p) { hop_qpu_emit_add(p, HOP_QPU_A_ADD, HOP_QPU_R0, HOP_QPU_R0, HOP_QPU_IMM(1), HOP_QPU_SIG_LDTMU0); }
static void r_cond_io(struct hop_qpu_prog *p)
{
  struct hop_qpu_alu w = {.add = {HOP_QPU_A_OR, HOP_QPU_TMU0_S, HOP_QPU_R1, HOP_QPU_R1, HOP_QPU_COND_ZS, false}};
  hop_qpu_emit_alu(p, &w);
}
static void r_same_file(struct hop_qpu_prog *p)
{
  struct hop_qpu_alu w = {.add = {HOP_QPU_A_OR, HOP_QPU_RA(1), HOP_QPU_R1, HOP_QPU_R1, 0, false},
                          .mul = {HOP_QPU_M_V8MIN, HOP_QPU_RA(2), HOP_QPU_R1, HOP_QPU_R1, 0, false}};
  hop_qpu_emit_alu(p, &w);
}
static void r_unbound(struct hop_qpu_prog *p) { hop_qpu_emit_branch(p, HOP_QPU_B_ALWAYS, hop_qpu_label_new(p)); }
static void r_odd_reg(struct hop_qpu_prog *p)
{
  struct hop_qpu_branch b = {.cond = HOP_QPU_B_ALWAYS, .label = -1, .reg = 3};
  hop_qpu_emit_branch_full(p, &b);
}
static void r_tmu_ldtmu(struct hop_qpu_prog *p) { hop_qpu_emit_mov(p, HOP_QPU_TMU0_S, HOP_QPU_R1, HOP_QPU_SIG_LDTMU0); }

int main(int argc, char **argv)
{
  check_words();
  check_setup_words();
  check_golden(argc > 1 ? argv[1] : "py-videocore-sgemm.bin");
  vc_ok(refused(r_two_a), "refuse two regfile-A reads in one word");
  vc_ok(refused(r_imm_sig), "refuse a small immediate beside a signal");
  vc_ok(refused(r_cond_io), "refuse a conditional I/O write");
  vc_ok(refused(r_same_file), "refuse both ALUs writing regfile A");
  vc_ok(refused(r_unbound), "refuse a branch to an unbound label");
  vc_ok(refused(r_odd_reg), "refuse a branch through an odd regfile-A register");
  vc_ok(refused(r_tmu_ldtmu), "refuse a TMU write and ldtmu in one word");
  return vc_tap_done();
}
