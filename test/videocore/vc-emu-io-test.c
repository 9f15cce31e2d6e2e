/* Emulator unit tests, around the QPUs: TMU lookups, VPM generic reads and
 * writes, VDR/VDW DMA with pitch and stride, mutex, semaphores, host
 * interrupt, thread end, poisoned memory, bounds, hazards, the cycle cap,
 * deadlock detection, counters, 12 interleaved threads. */
#include "vc_emu_util.h"

static void emit_ldi(struct hop_qpu_prog *p, int dst, uint32_t v) { hop_qpu_emit_ldi(p, dst, v, false); }

/* r1 = T_DATA + 4 * element; TMU0 lookup; r2 = r4. */
static void emit_tmu_lookup(struct hop_qpu_prog *p)
{
  emit_ldi(p, HOP_QPU_R0, T_DATA);
  hop_qpu_emit_add(p, HOP_QPU_A_SHL, HOP_QPU_R1, HOP_QPU_ELEM_NUM, HOP_QPU_IMM(2), 0);
  hop_qpu_emit_add(p, HOP_QPU_A_ADD, HOP_QPU_R1, HOP_QPU_R1, HOP_QPU_R0, 0);
  hop_qpu_emit_mov(p, HOP_QPU_TMU0_S, HOP_QPU_R1, 0);
  hop_qpu_emit_nop(p, HOP_QPU_SIG_LDTMU0);
  hop_qpu_emit_mov(p, HOP_QPU_R2, HOP_QPU_R4, 0);
}

static void test_tmu(void)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  emit_tmu_lookup(&p);
  t_end(&p);
  struct hop_qpuemu *e = t_load(&p, 1, NULL, 0);
  uint32_t *data = hop_qpuemu_ptr(e, T_DATA, 64);
  for (int i = 0; i < 12; i++) /* lanes 12..15 read memory nobody wrote */
    data[i] = 100u + (uint32_t)i;
  enum hop_qpuemu_status st = hop_qpuemu_run(e, 100000);
  bool ok = st == HOP_QPUEMU_DONE;
  for (int i = 0; i < 16; i++)
    ok &= t_acc(e, 2, i) == (i < 12 ? 100u + (uint32_t)i : HOP_QPUEMU_POISON);
  struct hop_qpuemu_counters c;
  hop_qpuemu_counters(e, 0, &c);
  vc_ok(ok, "TMU0 gathers one word per lane; unwritten memory reads as poison");
  vc_ok(c.stall_tmu > 0 && c.tmu_requests == 1 && c.cycles == c.instructions + c.stall_tmu,
        "ldtmu waits for the TMU latency (%llu stall cycles)", (unsigned long long)c.stall_tmu);
  hop_qpuemu_free(e);
  hop_qpu_prog_free(&p);
}

/* TMU0 and TMU1 keep separate FIFOs, popped out of request order; on
 * QPUs 2 and 3 the units are swapped by default, which must not show. */
static void test_two_tmus(void)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  emit_ldi(&p, HOP_QPU_R0, T_DATA);
  hop_qpu_emit_add(&p, HOP_QPU_A_SHL, HOP_QPU_R1, HOP_QPU_ELEM_NUM, HOP_QPU_IMM(2), 0);
  hop_qpu_emit_add(&p, HOP_QPU_A_ADD, HOP_QPU_R1, HOP_QPU_R1, HOP_QPU_R0, 0);
  hop_qpu_emit_mov(&p, HOP_QPU_TMU0_S, HOP_QPU_R1, 0);                 /* words 0..15 */
  emit_ldi(&p, HOP_QPU_R0, 64);
  hop_qpu_emit_add(&p, HOP_QPU_A_ADD, HOP_QPU_R1, HOP_QPU_R1, HOP_QPU_R0, 0);
  hop_qpu_emit_mov(&p, HOP_QPU_OPND(HOP_QPU_K_IO, HOP_QPU_W_TMU1_S), HOP_QPU_R1, 0); /* words 16..31 */
  hop_qpu_emit_nop(&p, HOP_QPU_SIG_LDTMU1);
  hop_qpu_emit_mov(&p, HOP_QPU_R2, HOP_QPU_R4, HOP_QPU_SIG_LDTMU0);
  hop_qpu_emit_mov(&p, HOP_QPU_R3, HOP_QPU_R4, 0);
  t_end(&p);
  struct hop_qpuemu *e = t_load(&p, 4, NULL, 0);
  uint32_t *data = hop_qpuemu_ptr(e, T_DATA, 128);
  for (int i = 0; i < 32; i++)
    data[i] = 500u + (uint32_t)i;
  bool ok = hop_qpuemu_run(e, 100000) == HOP_QPUEMU_DONE;
  for (int t = 0; t < 4; t++) {
    uint32_t r2[16], r3[16];
    hop_qpuemu_read_reg(e, t, HOP_QPUEMU_REG_ACC, 2, r2);
    hop_qpuemu_read_reg(e, t, HOP_QPUEMU_REG_ACC, 3, r3);
    for (int i = 0; i < 16; i++)
      ok &= r2[i] == 516u + (uint32_t)i && r3[i] == 500u + (uint32_t)i;
  }
  vc_ok(ok, "TMU0 and TMU1 FIFOs are separate; default swapping on QPUs 2-3 is invisible %s", hop_qpuemu_error(e));
  hop_qpuemu_free(e);
  hop_qpu_prog_free(&p);
}

/* Horizontal and vertical generic writes and reads of the VPM. */
static void test_vpm(void)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  emit_ldi(&p, HOP_QPU_VPM_WR_SETUP, hop_qpu_vpm_write_setup(1, true, HOP_QPU_VPM_32, 2));
  hop_qpu_emit_mov(&p, HOP_QPU_VPM_W, HOP_QPU_ELEM_NUM, 0);            /* row 2 = 0..15 */
  emit_ldi(&p, HOP_QPU_VPM_WR_SETUP, hop_qpu_vpm_write_setup(1, false, HOP_QPU_VPM_32, 0x13));
  hop_qpu_emit_add(&p, HOP_QPU_A_ADD, HOP_QPU_VPM_W, HOP_QPU_ELEM_NUM, HOP_QPU_IMM(-16), 0); /* col 3, rows 16..31 */
  emit_ldi(&p, HOP_QPU_VPM_RD_SETUP, hop_qpu_vpm_read_setup(2, 19, true, HOP_QPU_VPM_32, 2));
  hop_qpu_emit_mov(&p, HOP_QPU_R1, HOP_QPU_VPM, 0);                    /* row 2 */
  hop_qpu_emit_mov(&p, HOP_QPU_R2, HOP_QPU_VPM, 0);                    /* row 21 */
  emit_ldi(&p, HOP_QPU_VPM_RD_SETUP, hop_qpu_vpm_read_setup(1, 1, false, HOP_QPU_VPM_32, 0x13));
  hop_qpu_emit_mov(&p, HOP_QPU_R3, HOP_QPU_VPM, 0);                    /* column 3 of rows 16..31 */
  t_end(&p);
  enum hop_qpuemu_status st;
  struct hop_qpuemu *e = t_run(&p, 1, NULL, 0, &st);
  bool ok = st == HOP_QPUEMU_DONE;
  for (int i = 0; e && i < 16; i++)
    ok &= t_acc(e, 1, i) == (uint32_t)i && t_acc(e, 3, i) == (uint32_t)(i - 16);
  ok &= e && t_acc(e, 2, 3) == (uint32_t)(5 - 16);
  struct hop_qpuemu_counters c;
  hop_qpuemu_counters(e, 0, &c);
  vc_ok(ok && c.stall_vpm > 0, "VPM generic 32-bit writes and reads, horizontal and vertical");
  hop_qpuemu_free(e);
}

/* VDR 4 rows of 16 words with a 128-byte pitch, VDW them back with a
 * 64-byte stride between rows. */
static void test_dma(void)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  emit_ldi(&p, HOP_QPU_VPM_RD_SETUP, hop_qpu_vdr_pitch(128));
  emit_ldi(&p, HOP_QPU_VPM_RD_SETUP, hop_qpu_vdr_setup(4, 16, 0, 1, false, 8, 0));
  emit_ldi(&p, HOP_QPU_VPM_LD_ADDR, T_DATA);
  hop_qpu_emit_mov(&p, HOP_QPU_NULL, HOP_QPU_LD_WAIT, 0);
  emit_ldi(&p, HOP_QPU_VPM_WR_SETUP, hop_qpu_vdw_setup(4, 16, true, 8, 0));
  emit_ldi(&p, HOP_QPU_VPM_WR_SETUP, hop_qpu_vdw_stride(64, false));
  emit_ldi(&p, HOP_QPU_VPM_ST_ADDR, T_DATA + 0x1000);
  hop_qpu_emit_mov(&p, HOP_QPU_NULL, HOP_QPU_ST_WAIT, 0);
  t_end(&p);
  struct hop_qpuemu *e = t_load(&p, 1, NULL, 0);
  uint32_t *src = hop_qpuemu_ptr(e, T_DATA, 512), *dst = hop_qpuemu_ptr(e, T_DATA + 0x1000, 512);
  for (int i = 0; i < 128; i++)
    src[i] = 1000u + (uint32_t)i;
  enum hop_qpuemu_status st = hop_qpuemu_run(e, 100000);
  bool ok = st == HOP_QPUEMU_DONE;
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < 32; i++)
      ok &= dst[32 * r + i] == (i < 16 ? 1000u + 32u * (unsigned)r + (unsigned)i : HOP_QPUEMU_POISON);
  uint32_t row[16];
  hop_qpuemu_read_vpm(e, 9, row);
  struct hop_qpuemu_counters c;
  hop_qpuemu_counters(e, 0, &c);
  vc_ok(ok && row[0] == 1032u && c.stall_dma > 0 && c.dma_loads == 1 && c.dma_stores == 1,
        "VDR with an extended pitch and VDW with a stride move the rows and wait %s",
        hop_qpuemu_error(e));
  hop_qpuemu_free(e);
  hop_qpu_prog_free(&p);
}

/* n threads add 1 to VPM row 0 under the mutex; thread 0 zeroes it first
 * and lets the others in through semaphore 1; thread 0 joins them through
 * semaphore 0 and raises the host interrupt. */
static void test_sync(int threads, bool mutex)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  int others = hop_qpu_label_new(&p), work = hop_qpu_label_new(&p), done = hop_qpu_label_new(&p);
  hop_qpu_emit_mov(&p, HOP_QPU_R3, HOP_QPU_UNIF, 0);                   /* n - 1 */
  struct hop_qpu_alu isq0 = {.add = {HOP_QPU_A_OR, HOP_QPU_NULL, HOP_QPU_QPU_NUM, HOP_QPU_QPU_NUM, 0, true}};
  hop_qpu_emit_alu(&p, &isq0);
  hop_qpu_emit_branch(&p, HOP_QPU_B_ALL_ZC, others);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_nop(&p, 0);
  emit_ldi(&p, HOP_QPU_VPM_WR_SETUP, hop_qpu_vpm_write_setup(1, true, HOP_QPU_VPM_32, 0));
  hop_qpu_emit_mov(&p, HOP_QPU_VPM_W, HOP_QPU_IMM(0), 0);
  for (int t = 1; t < threads; t++)
    hop_qpu_emit_sema(&p, false, 1);
  hop_qpu_emit_branch(&p, HOP_QPU_B_ALWAYS, work);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_label_bind(&p, others);
  hop_qpu_emit_sema(&p, true, 1);
  hop_qpu_label_bind(&p, work);
  if (mutex)
    hop_qpu_emit_mov(&p, HOP_QPU_NULL, HOP_QPU_MUTEX_ACQ, 0);
  emit_ldi(&p, HOP_QPU_VPM_RD_SETUP, hop_qpu_vpm_read_setup(1, 1, true, HOP_QPU_VPM_32, 0));
  emit_ldi(&p, HOP_QPU_VPM_WR_SETUP, hop_qpu_vpm_write_setup(1, true, HOP_QPU_VPM_32, 0));
  hop_qpu_emit_mov(&p, HOP_QPU_R0, HOP_QPU_VPM, 0);
  hop_qpu_emit_add(&p, HOP_QPU_A_ADD, HOP_QPU_VPM_W, HOP_QPU_R0, HOP_QPU_IMM(1), 0);
  if (mutex)
    hop_qpu_emit_mov(&p, HOP_QPU_MUTEX_REL, HOP_QPU_R0, 0);
  hop_qpu_emit_sema(&p, false, 0);
  hop_qpu_emit_alu(&p, &isq0);
  hop_qpu_emit_branch(&p, HOP_QPU_B_ALL_ZC, done);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_nop(&p, 0);
  hop_qpu_emit_nop(&p, 0);
  for (int t = 0; t < threads; t++)
    hop_qpu_emit_sema(&p, true, 0);
  hop_qpu_emit_mov(&p, HOP_QPU_HOST_INT, HOP_QPU_IMM(1), 0);
  hop_qpu_label_bind(&p, done);
  t_end(&p);
  uint32_t unif[1] = {(uint32_t)threads - 1};
  enum hop_qpuemu_status st;
  struct hop_qpuemu *e = t_run(&p, threads, unif, 1, &st);
  uint32_t row[16] = {0};
  hop_qpuemu_read_vpm(e, 0, row);
  struct hop_qpuemu_counters all, t0;
  hop_qpuemu_counters(e, -1, &all);
  hop_qpuemu_counters(e, 0, &t0);
  if (mutex)
    vc_ok(st == HOP_QPUEMU_DONE && row[7] == (uint32_t)threads && all.host_interrupts == 1 &&
              t0.host_interrupts == 1 && hop_qpuemu_semaphore(e, 0) == 0 && hop_qpuemu_semaphore(e, 1) == 0,
          "%d threads: mutex-protected VPM counter = %u, one host interrupt, semaphores back at 0",
          threads, row[7]);
  else
    vc_ok(st == HOP_QPUEMU_DONE && row[7] < (uint32_t)threads,
          "without the mutex interleaved threads lose updates (%u of %d)", row[7], threads);
  hop_qpuemu_free(e);
}

/* Programs that must stop with a clear error, not crash or hang. */
static void expect(enum hop_qpuemu_status want, const char *needle, const char *what,
                   void (*emit)(struct hop_qpu_prog *))
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  emit(&p);
  enum hop_qpuemu_status st;
  struct hop_qpuemu *e = t_run(&p, 1, NULL, 0, &st);
  const char *msg = e ? hop_qpuemu_error(e) : "";
  vc_ok(st == want && strstr(msg, needle) != NULL, "%s: %s", what, msg);
  hop_qpuemu_free(e);
}

static void f_oob(struct hop_qpu_prog *p)
{
  emit_ldi(p, HOP_QPU_R1, T_BASE + T_SIZE);
  hop_qpu_emit_mov(p, HOP_QPU_TMU0_S, HOP_QPU_R1, 0);
  t_end(p);
}
static void f_raw(struct hop_qpu_prog *p)
{
  emit_ldi(p, HOP_QPU_RA(3), 1);
  hop_qpu_emit_mov(p, HOP_QPU_R0, HOP_QPU_RA(3), 0);
  t_end(p);
}
static void f_unif(struct hop_qpu_prog *p)
{
  emit_ldi(p, HOP_QPU_UNIF_ADDR, T_UNIF);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_mov(p, HOP_QPU_R0, HOP_QPU_UNIF, 0);
  t_end(p);
}
static void f_rot(struct hop_qpu_prog *p)
{
  hop_qpu_emit_mov(p, HOP_QPU_R0, HOP_QPU_ELEM_NUM, 0);
  struct hop_qpu_alu w = {.mul = {HOP_QPU_M_V8MIN, HOP_QPU_R1, HOP_QPU_R0, HOP_QPU_R0, 0, false}, .rotate = 2};
  hop_qpu_emit_alu(p, &w);
  t_end(p);
}
static void f_ldtmu_empty(struct hop_qpu_prog *p)
{
  hop_qpu_emit_nop(p, HOP_QPU_SIG_LDTMU0);
  t_end(p);
}
static void f_leftover(struct hop_qpu_prog *p)
{
  emit_ldi(p, HOP_QPU_R1, T_DATA);
  hop_qpu_emit_mov(p, HOP_QPU_TMU0_S, HOP_QPU_R1, 0);
  t_end(p);
}
static void f_condio(struct hop_qpu_prog *p)
{
  struct hop_qpu_insn in = {.sig = HOP_QPU_SIG_NONE, .cond_add = HOP_QPU_COND_ZS, .waddr_add = HOP_QPU_W_HOST_INT,
                            .waddr_mul = 39, .op_add = HOP_QPU_A_OR, .raddr_a = 39, .raddr_b = 39};
  hop_qpu_emit_raw(p, hop_qpu_encode(&in));
  t_end(p);
}
static void f_loop(struct hop_qpu_prog *p)
{
  int l = hop_qpu_label_new(p);
  hop_qpu_label_bind(p, l);
  hop_qpu_emit_branch(p, HOP_QPU_B_ALWAYS, l);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_nop(p, 0);
  hop_qpu_emit_nop(p, 0);
}
static void f_deadlock(struct hop_qpu_prog *p)
{
  hop_qpu_emit_sema(p, true, 5);
  t_end(p);
}
static void f_fetch(struct hop_qpu_prog *p)
{
  struct hop_qpu_insn br = {.sig = HOP_QPU_SIG_BRANCH, .cond_br = HOP_QPU_B_ALWAYS, .imm = 0x100,
                            .waddr_add = 39, .waddr_mul = 39};
  hop_qpu_emit_raw(p, hop_qpu_encode(&br));
  for (int i = 0; i < 3; i++)
    hop_qpu_emit_nop(p, 0);
}

/* Each of 12 threads writes its QPU number into its own VPM row. */
static void test_twelve(void)
{
  struct hop_qpu_prog p;
  hop_qpu_prog_init(&p);
  hop_qpu_emit_add(&p, HOP_QPU_A_OR, HOP_QPU_R0, HOP_QPU_QPU_NUM, HOP_QPU_QPU_NUM, 0);
  emit_ldi(&p, HOP_QPU_R1, hop_qpu_vpm_write_setup(1, true, HOP_QPU_VPM_32, 0));
  hop_qpu_emit_add(&p, HOP_QPU_A_OR, HOP_QPU_VPM_WR_SETUP, HOP_QPU_R1, HOP_QPU_R0, 0);
  hop_qpu_emit_add(&p, HOP_QPU_A_ADD, HOP_QPU_VPM_W, HOP_QPU_R0, HOP_QPU_ELEM_NUM, 0);
  t_end(&p);
  long words = (long)p.n;
  enum hop_qpuemu_status st;
  struct hop_qpuemu *e = t_run(&p, 12, NULL, 0, &st);
  bool ok = st == HOP_QPUEMU_DONE;
  for (unsigned r = 0; r < 12; r++) {
    uint32_t row[16];
    hop_qpuemu_read_vpm(e, r, row);
    ok &= row[0] == r && row[15] == r + 15;
  }
  struct hop_qpuemu_counters all;
  hop_qpuemu_counters(e, -1, &all);
  vc_ok(ok && all.instructions == 12u * (uint64_t)words && all.add_ops == 12u * 3u && all.mul_ops == 0,
        "12 threads run interleaved; counters add up (%llu words)", (unsigned long long)all.instructions);
  hop_qpuemu_free(e);
}

int main(void)
{
  test_tmu();
  test_two_tmus();
  test_vpm();
  test_dma();
  test_sync(4, true);
  test_sync(12, true);
  test_sync(4, false);
  test_twelve();
  expect(HOP_QPUEMU_FAULT, "outside memory", "TMU lookup out of bounds", f_oob);
  expect(HOP_QPUEMU_FAULT, "right after it was written", "regfile read-after-write hazard", f_raw);
  expect(HOP_QPUEMU_FAULT, "uniforms_address", "uniform read too soon after uniforms_address", f_unif);
  expect(HOP_QPUEMU_FAULT, "rotation reads lane", "rotation right after the accumulator write", f_rot);
  expect(HOP_QPUEMU_FAULT, "no TMU request", "ldtmu with an empty FIFO", f_ldtmu_empty);
  expect(HOP_QPUEMU_FAULT, "TMU results not read", "thread end with a TMU result pending", f_leftover);
  expect(HOP_QPUEMU_FAULT, "conditional write to I/O", "conditional I/O write", f_condio);
  expect(HOP_QPUEMU_CYCLE_CAP, "cycle cap", "endless loop stops at the cycle cap", f_loop);
  expect(HOP_QPUEMU_DEADLOCK, "deadlock", "semaphore nobody releases", f_deadlock);
  expect(HOP_QPUEMU_FAULT, "instruction fetch", "jump outside memory", f_fetch);
  return vc_tap_done();
}
