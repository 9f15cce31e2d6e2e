/* Random programs on the emulator: whatever the words, a run ends (done,
 * fault, deadlock or cycle cap) with a message, never a crash.  Fields are
 * drawn from plausible values so the runs get past their first word.
 * Usage: vc-emu-fuzz [PROGRAMS] (default 400). */
#include <stdlib.h>

#include "vc_emu_util.h"

static uint32_t seed = 12345;
static unsigned rnd(unsigned n)
{
  seed = seed * 1103515245u + 12345u;
  return (seed >> 8) % n;
}

static unsigned pick(const unsigned *v, size_t n) { return v[rnd((unsigned)n)]; }

static const unsigned raddrs[] = {0, 1, 2, 3, 5, 8, 13, 21, 31, 32, 32, 38, 39, 39, 39, 48, 49, 50, 51};
static const unsigned waddrs[] = {0, 1, 2, 3, 7, 31, 32, 33, 34, 35, 37, 39, 39, 39, 36, 38, 40, 48, 49,
                                  50, 51, 52, 53, 54, 55, 56, 60};
static const unsigned addops[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                  23, 24, 30, 31};

static bool io(unsigned waddr) { return waddr >= 36 && waddr != 37 && waddr != 39; }

static uint64_t random_word(void)
{
  struct hop_qpu_insn in = {0};
  unsigned r = rnd(100);
  if (r < 3) {
    in.sig = HOP_QPU_SIG_BRANCH;
    in.cond_br = rnd(16) == 0 ? 15 : rnd(12);
    in.rel = rnd(4) != 0;
    in.reg = rnd(8) == 0;
    in.raddr_a = 2 * rnd(4);
    in.waddr_add = rnd(4) == 0 ? 32 + rnd(4) : 39;
    in.waddr_mul = 39;
    in.imm = (uint32_t)(8 * ((int)rnd(40) - 20));
  } else if (r < 15) {
    in.sig = HOP_QPU_SIG_LOAD_IMM;
    unsigned t = rnd(10);
    in.ldi_type = t < 6 ? 0 : t < 8 ? 1 : t < 9 ? 3 : 4;
    in.imm = in.ldi_type == 4 ? (rnd(2) << 4 | rnd(3)) : seed;
    in.waddr_add = pick(waddrs, sizeof waddrs / sizeof *waddrs);
    in.waddr_mul = 39;
    in.ws = rnd(2);
    in.cond_add = io(in.waddr_add) ? 1 : rnd(8);
    in.cond_mul = 1;
    in.sf = rnd(2);
    if (in.waddr_add == 49)
      in.imm = rnd(2) ? hop_qpu_vpm_read_setup(1 + rnd(16), 1, rnd(2), 2, rnd(64))
                      : hop_qpu_vdr_setup(rnd(17), rnd(17), rnd(4), 1, false, rnd(64), 0);
    if (in.waddr_add == 50 || in.waddr_add == 56 || in.waddr_add == 40)
      in.imm = T_BASE + 4 * rnd(4096);
  } else {
    in.sig = r < 70 ? HOP_QPU_SIG_NONE : r < 90 ? HOP_QPU_SIG_SMALL_IMM : r < 95 ? HOP_QPU_SIG_LDTMU0 : HOP_QPU_SIG_THREAD_END;
    in.op_add = pick(addops, sizeof addops / sizeof *addops);
    in.op_mul = rnd(8);
    in.raddr_a = pick(raddrs, sizeof raddrs / sizeof *raddrs);
    in.raddr_b = in.sig == HOP_QPU_SIG_SMALL_IMM ? rnd(64) : pick(raddrs, sizeof raddrs / sizeof *raddrs);
    in.waddr_add = pick(waddrs, sizeof waddrs / sizeof *waddrs);
    in.waddr_mul = pick(waddrs, sizeof waddrs / sizeof *waddrs);
    in.ws = rnd(2);
    in.cond_add = io(in.waddr_add) ? 1 : rnd(8);
    in.cond_mul = io(in.waddr_mul) ? 1 : rnd(8);
    in.sf = rnd(2);
    in.add_a = rnd(8), in.add_b = rnd(8), in.mul_a = rnd(8), in.mul_b = rnd(8);
    if (rnd(10) == 0)
      in.pm = rnd(2), in.pack = rnd(16), in.unpack = rnd(8);
  }
  return hop_qpu_encode(&in);
}

int main(int argc, char **argv)
{
  int programs = argc > 1 ? atoi(argv[1]) : 400, ended[4] = {0}, silent = 0;
  for (int it = 0; it < programs; it++) {
    struct hop_qpuemu *e = hop_qpuemu_new(T_BASE, T_SIZE);
    uint64_t *w = hop_qpuemu_ptr(e, T_BASE, 8 * 256);
    for (int i = 0; i < 256; i++)
      w[i] = random_word();
    unsigned threads = 1 + rnd(12);
    for (unsigned t = 0; t < threads; t++)
      hop_qpuemu_launch(e, T_BASE + 8 * rnd(16), T_BASE + 4 * rnd(4096));
    enum hop_qpuemu_status st = hop_qpuemu_run(e, 3000);
    ended[st]++;
    silent += st != HOP_QPUEMU_DONE && hop_qpuemu_error(e)[0] == '\0';
    hop_qpuemu_free(e);
  }
  vc_ok(ended[0] + ended[1] + ended[2] + ended[3] == programs && silent == 0,
        "%d random programs all ended: %d done, %d faults, %d at the cycle cap, %d deadlocks, each with a message",
        programs, ended[0], ended[1], ended[2], ended[3]);
  return vc_tap_done();
}
