/* The mailbox launcher against a fake /dev/vcio: the ioctl number, the board
 * from the device tree (refusal on Pi 4/5 and elsewhere), every property
 * message word by word, the /dev/mem mapping, an sgemm run end to end
 * through the fake firmware (which runs the emulator) on 1 GiB and 512 MiB
 * boards in both bus aliases, every address checked against the board, the
 * failures, and the real mmap wrapper at a file offset beyond 2 GiB.  Built
 * for armhf (tools/cross-check.sh) it runs as the 32-bit process of a
 * Raspberry Pi OS userland.
 * Usage: vc-mbox-test WORKDIR */
#include <math.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "vc_fake_fw.h"
#include "vc_tap.h"

extern const struct hop_backend hop_backend_videocore;

static char work[400];

/* A device tree with compatible (NUL-separated) and model; its path. */
static const char *tree(const char *name, const char *compat, size_t compat_len, const char *model)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", work, name);
  mkdir(path, 0755);
  char file[600];
  snprintf(file, sizeof file, "%s/compatible", path);
  FILE *f = fopen(file, "wb");
  if (f) {
    fwrite(compat, 1, compat_len, f);
    fclose(f);
  }
  snprintf(file, sizeof file, "%s/model", path);
  f = fopen(file, "wb");
  if (f) {
    fwrite(model, 1, strlen(model) + 1, f);
    fclose(f);
  }
  return strdup(path); /* lives as long as the test */
}

#define TREE(name, compat, model) tree(name, compat, sizeof compat, model)

static struct hop_vc_mbox_io fake_io(struct fake_fw *f)
{
  return (struct hop_vc_mbox_io){fake_open, fake_close, fake_ioctl, fake_mmap, fake_munmap, f};
}

static bool msg_is(const struct fake_fw *f, int i, const uint32_t *want, int n)
{
  return i < f->nlog && memcmp(f->log[i], want, 4 * (size_t)n) == 0;
}

static int find_tag(const struct fake_fw *f, uint32_t tag, int from)
{
  for (int i = from; i < f->nlog; i++)
    if (f->log[i][2] == tag)
      return i;
  return -1;
}

static void test_boards(void)
{
  unsigned long want = sizeof(void *) == 8 ? 0xc0086400ul : 0xc0046400ul;
  vc_ok(hop_vc_mbox_request() == want && hop_vc_mbox_request() == (unsigned long)_IOWR(100, 0, char *),
        "ioctl number 0x%lx for %zu-bit pointers", hop_vc_mbox_request(), 8 * sizeof(void *));
  static const struct { const char *name, *compat; size_t len; const char *model; int soc; uint32_t flags; } ok[] = {
    {"pi1", "raspberrypi,model-b\0brcm,bcm2835", 32, "Raspberry Pi Model B Rev 2", HOP_VC_SOC_2835, 0xc},
    {"pi2", "raspberrypi,2-model-b\0brcm,bcm2836", 34, "Raspberry Pi 2 Model B", HOP_VC_SOC_2836, 0x4},
    {"pi3", "raspberrypi,3-model-b\0brcm,bcm2837", 34, "Raspberry Pi 3 Model B", HOP_VC_SOC_2837, 0x4},
    {"zero2", "raspberrypi,model-zero-2-w\0brcm,bcm2837", 39, "Raspberry Pi Zero 2 W", HOP_VC_SOC_2837, 0x4},
    {"oldpi3", "brcm,bcm2710\0brcm,bcm2709", 26, "Raspberry Pi 3 Model B (downstream)", HOP_VC_SOC_2837, 0x4},
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    struct hop_vc_board b;
    char why[256] = "";
    enum hop_status st = hop_vc_board_detect(tree(ok[i].name, ok[i].compat, ok[i].len, ok[i].model), &b,
                                             why, sizeof why);
    vc_ok(st == HOP_OK && (int)b.soc == ok[i].soc && b.alloc_flags == ok[i].flags &&
              strcmp(b.model, ok[i].model) == 0,
          "%s is VideoCore IV, mem_alloc flags 0x%x", ok[i].model, b.alloc_flags);
  }
  struct hop_vc_board b;
  char why[256] = "";
  enum hop_status st = hop_vc_board_detect(TREE("pi4", "raspberrypi,4-model-b\0brcm,bcm2711", "Raspberry Pi 4 Model B"),
                                           &b, why, sizeof why);
  vc_ok(st == HOP_UNAVAILABLE && strstr(why, "VideoCore VI") && strstr(why, "Pi 0-3"), "Pi 4 refused: %s", why);
  st = hop_vc_board_detect(TREE("pi5", "raspberrypi,5-model-b\0brcm,bcm2712", "Raspberry Pi 5 Model B"), &b, why,
                           sizeof why);
  vc_ok(st == HOP_UNAVAILABLE && strstr(why, "VideoCore VII"), "Pi 5 refused: %s", why);
  st = hop_vc_board_detect(TREE("rk", "radxa,rock-5b\0rockchip,rk3588", "Radxa ROCK 5B"), &b, why, sizeof why);
  vc_ok(st == HOP_UNAVAILABLE && strstr(why, "not a Raspberry Pi 0-3"), "another ARM board refused: %s", why);
  char none[460];
  snprintf(none, sizeof none, "%s/none", work);
  st = hop_vc_board_detect(none, &b, why, sizeof why);
  vc_ok(st == HOP_UNAVAILABLE && strstr(why, "no ") != NULL, "no device tree refused: %s", why);
}

static void test_open_failures(const char *pi3)
{
  struct fake_fw f = {0};
  struct hop_vc_mbox_io io = fake_io(&f);
  struct hop_vc_mbox mb;
  char why[256] = "";
  const char *pi4 = tree("pi4", "brcm,bcm2711", 13, "Raspberry Pi 4 Model B");
  enum hop_status st = hop_vc_mbox_open(&mb, &io, pi4, why, sizeof why);
  vc_ok(st == HOP_UNAVAILABLE && f.vcio_opens == 0, "Pi 4: /dev/vcio is never opened (%s)", why);
  f.deny_vcio = true;
  st = hop_vc_mbox_open(&mb, &io, pi3, why, sizeof why);
  vc_ok(st == HOP_UNAVAILABLE && strstr(why, "/dev/vcio") && strstr(why, "Permission denied"),
        "unreadable /dev/vcio: %s", why);
  f.deny_vcio = false;
  f.refuse_enable = true;
  st = hop_vc_mbox_open(&mb, &io, pi3, why, sizeof why);
  vc_ok(st == HOP_UNAVAILABLE && strstr(why, "vc4-kms-v3d") && f.closes == 1 && f.mem_opens == 0,
        "firmware refusing qpu_enable: %s", why);
}

/* Column-major C = alpha*A*B + beta*C through the launcher; worst error
 * relative to 2*k*eps*(|alpha||A||B| + |beta||C|). */
static double run_sgemm(struct hop_vc_launcher *l, int m, int n, int k, float beta, enum hop_status *st, bool *untouched)
{
  float *a = malloc(sizeof(float) * (size_t)m * k), *b = malloc(sizeof(float) * (size_t)k * n);
  float *c = malloc(sizeof(float) * (size_t)m * n), *c0 = malloc(sizeof(float) * (size_t)m * n);
  for (int i = 0; i < m * k; i++)
    a[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
  for (int i = 0; i < k * n; i++)
    b[i] = (float)((i * 53) % 97) / 48.0f - 1.0f;
  for (int i = 0; i < m * n; i++)
    c[i] = c0[i] = (float)((i * 29) % 89) / 44.0f - 1.0f;
  struct hop_call g = {.dtype = HOP_DTYPE_S, .m = m, .n = n, .k = k, .alpha = {1.25, 0.0}, .beta = {beta, 0.0},
                       .a = a, .lda = m, .b = b, .ldb = k, .c = c, .ldc = m};
  struct hop_vc_program prog;
  char why[320] = "";
  hop_vc_program_build(&prog, 2, beta == 0.0f, why, sizeof why);
  *st = hop_vc_gemm_run(l, &g, &prog, 12, 64u << 20, NULL, why, sizeof why);
  if (*st != HOP_OK)
    printf("# %s\n", why);
  *untouched = memcmp(c, c0, sizeof(float) * (size_t)m * n) == 0;
  double worst = 0.0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double s = 0.0, abs_s = 0.0;
      for (int kk = 0; kk < k; kk++) {
        s += (double)a[i + kk * m] * b[kk + j * k];
        abs_s += fabs((double)a[i + kk * m] * b[kk + j * k]);
      }
      double ref = 1.25 * s + beta * (double)c0[i + j * m];
      double bound = 2.0 * k * 1.2e-7 * (1.25 * abs_s + fabs(beta * c0[i + j * m])) + 1e-30;
      double e = fabs(c[i + j * m] - ref) / bound;
      if (!(e <= worst))
        worst = e;
    }
  hop_vc_program_free(&prog);
  free(a);
  free(b);
  free(c);
  free(c0);
  return worst;
}

static void test_session(const char *dt, const char *label, uint32_t flags, uint32_t alias, uint32_t ram)
{
  struct fake_fw f = {0};
  fake_board(&f, ram);
  f.arena = calloc(1, FAKE_ARENA);
  struct hop_vc_mbox_io io = fake_io(&f);
  struct hop_vc_mbox mb;
  char why[256] = "";
  enum hop_status st = hop_vc_mbox_open(&mb, &io, dt, why, sizeof why);
  static const uint32_t enable[] = {28, 0, HOP_VC_TAG_QPU_ENABLE, 4, 4, 1, 0};
  static const uint32_t clock[] = {32, 0, HOP_VC_TAG_CLOCK_RATE, 8, 4, HOP_VC_CLOCK_V3D, 0, 0};
  vc_ok(st == HOP_OK && msg_is(&f, 0, enable, 7) && msg_is(&f, 1, clock, 8) && mb.clock_hz == 300000000u &&
            f.mem_flags == (O_RDWR | O_SYNC),
        "%s: open sends qpu_enable(1), reads the V3D clock, opens /dev/mem O_SYNC %s", label, why);
  int first = f.nlog;
  bool untouched;
  double err = run_sgemm(&mb.base, 40, 70, 9, 0.5f, &st, &untouched);
  vc_ok(st == HOP_OK && err <= 1.0, "%s: 40x70x9 sgemm through the mailbox and the fake firmware: error %.3g of the bound",
        label, err);
  int ia = find_tag(&f, HOP_VC_TAG_MEM_ALLOC, first), il = find_tag(&f, HOP_VC_TAG_MEM_LOCK, first);
  int ix = find_tag(&f, HOP_VC_TAG_EXECUTE_QPU, first), iu = find_tag(&f, HOP_VC_TAG_MEM_UNLOCK, first);
  int ifr = find_tag(&f, HOP_VC_TAG_MEM_FREE, first);
  /* The first allocation ends at the top of RAM. */
  uint32_t size = ia >= 0 ? f.log[ia][5] : 0, handle = 1000 + (FAKE_ARENA - size) / 4096;
  uint32_t bus = alias | (ram - size);
  uint32_t alloc[] = {36, 0, HOP_VC_TAG_MEM_ALLOC, 12, 12, size, 4096, flags, 0};
  uint32_t lock[] = {28, 0, HOP_VC_TAG_MEM_LOCK, 4, 4, handle, 0};
  vc_ok(ia >= 0 && size % 4096 == 0 && msg_is(&f, ia, alloc, 9), "%s: mem_alloc(%u bytes, 4096, 0x%x)", label, size, flags);
  vc_ok(il == ia + 1 && msg_is(&f, il, lock, 7), "%s: mem_lock(handle) next", label);
  vc_ok(f.mmaps == 1 && f.map_off == (off_t)(bus & ~0xc0000000u) && f.map_len == size,
        "%s: /dev/mem mapped at the bus address 0x%08x without its alias bits (offset 0x%llx, the top of %u MiB)",
        label, bus, (unsigned long long)f.map_off, ram >> 20);
  /* 40 x 70 pads less as C^T (80 x 64: five 16x64 blocks) than as C (48 x 128: six). */
  uint32_t exec[] = {40, 0, HOP_VC_TAG_EXECUTE_QPU, 16, 16, 5};
  vc_ok(ix > il && msg_is(&f, ix, exec, 6) && f.log[ix][6] > bus && f.log[ix][6] < (uint64_t)bus + size && f.log[ix][7] == 0 &&
            f.log[ix][8] >= 1000,
        "%s: execute_qpu(5 QPUs, control list inside the allocation, noflush 0, timeout %u ms)", label,
        ix >= 0 ? f.log[ix][8] : 0);
  uint32_t unlock[] = {28, 0, HOP_VC_TAG_MEM_UNLOCK, 4, 4, handle, 0}, mfree[] = {28, 0, HOP_VC_TAG_MEM_FREE, 4, 4, handle, 0};
  vc_ok(iu > ix && ifr == iu + 1 && msg_is(&f, iu, unlock, 7) && msg_is(&f, ifr, mfree, 7) && f.munmaps == 1,
        "%s: unmapped, mem_unlock and mem_free of the same handle", label);
  vc_ok(!f.bad_layout && f.bad_request == 0, "%s: every message had the property layout and the ioctl number", label);
  vc_ok(f.bad_addr == 0, "%s: every address handed over (mapping, control list, uniforms, code, the QPUs' "
        "accesses) lay in the GPU's memory in alias 0x%08x%s%s", label, alias, f.bad_addr ? ": " : "", f.bad_what);
  /* A timed-out program and a failed allocation: errors, C untouched. */
  f.time_out = true;
  run_sgemm(&mb.base, 20, 64, 4, 1.0f, &st, &untouched);
  vc_ok(st == HOP_ERR_DEVICE && untouched, "%s: execute_qpu timing out is an error and C is untouched", label);
  f.time_out = false;
  f.fail_alloc = true;
  int before = f.nlog;
  run_sgemm(&mb.base, 20, 64, 4, 1.0f, &st, &untouched);
  vc_ok(st == HOP_ERR_DEVMEM && untouched && find_tag(&f, HOP_VC_TAG_EXECUTE_QPU, before) < 0,
        "%s: a failed mem_alloc is an error, nothing runs, C untouched", label);
  before = f.nlog;
  hop_vc_mbox_close(&mb);
  static const uint32_t disable[] = {28, 0, HOP_VC_TAG_QPU_ENABLE, 4, 4, 0, 0};
  vc_ok(msg_is(&f, before, disable, 7) && f.closes == 2, "%s: close sends qpu_enable(0) and closes both devices", label);
  free(f.arena);
}

/* The fake's address checks can fail: an offset in the ARM's part of RAM,
 * a control list without the alias bits, one past the top. */
static void test_fake_checks(void)
{
  struct fake_fw f = {0};
  fake_board(&f, 512u << 20);
  f.arena = calloc(1, FAKE_ARENA);
  f.alias = 0xc0000000u;
  void *p = fake_mmap(&f, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, FAKE_MEM, (off_t)(f.gpu_base - 4096));
  vc_ok(p == MAP_FAILED && f.bad_addr == 1 && strstr(f.bad_what, "/dev/mem offset"),
        "the fake refuses a /dev/mem offset below the GPU's memory: %s", f.bad_what);
  uint32_t exec[4] = {1, f.gpu_base, 0, 100};
  vc_ok(fake_execute(&f, exec) != 0 && f.bad_addr == 2, "the fake refuses a control list without the alias bits");
  exec[1] = f.alias | (f.ram - 4);
  vc_ok(fake_execute(&f, exec) != 0 && f.bad_addr == 3, "the fake refuses a control list running past the top of RAM");
  free(f.arena);
}

/* The real mmap wrapper at a file offset of 3 GiB: what /dev/mem needs on a
 * 32-bit userland (a 32-bit off_t stops at 2 GiB). */
static void test_large_offset(void)
{
  char path[460];
  snprintf(path, sizeof path, "%s/sparse", work);
  const off_t off = (off_t)3 << 30;
  const uint32_t mark = 0x51a7c0deu;
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  bool wrote = fd >= 0 && pwrite(fd, &mark, sizeof mark, off) == (ssize_t)sizeof mark;
  void *p = wrote ? hop_vc_mbox_sys.mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off) : MAP_FAILED;
  uint32_t seen = 0;
  if (p != MAP_FAILED) {
    memcpy(&seen, p, sizeof seen);
    hop_vc_mbox_sys.munmap(NULL, p, 4096);
  }
  vc_ok(seen == mark, "the mailbox's mmap reaches offset 3 GiB of a file (%zu-bit pointers, %zu-bit off_t)%s",
        8 * sizeof(void *), 8 * sizeof(off_t), wrote ? "" : ": could not write the sparse file");
  if (fd >= 0)
    close(fd);
  unlink(path);
}

/* The emulator launcher's failures: a run past its cycle cap is an error,
 * a call over its memory is declined; C stays untouched both times. */
static void test_emu_failures(void)
{
  struct hop_vc_emu_launcher l;
  hop_vc_emu_launcher_init(&l, 64u << 20);
  l.max_cycles = 500;
  enum hop_status st;
  bool untouched;
  run_sgemm(&l.base, 32, 64, 30, 1.0f, &st, &untouched);
  vc_ok(st == HOP_ERR_DEVICE && untouched, "emulator launcher: the cycle cap is an error, C untouched");
  hop_vc_emu_launcher_init(&l, 4096);
  run_sgemm(&l.base, 32, 64, 30, 1.0f, &st, &untouched);
  vc_ok(st == HOP_DECLINED && untouched, "emulator launcher: a call over its memory is declined, C untouched");
}

int main(int argc, char **argv)
{
  snprintf(work, sizeof work, "%s", argc > 1 ? argv[1] : ".");
  test_boards();
  const char *pi3 = TREE("pi3s", "raspberrypi,3-model-b\0brcm,bcm2837", "Raspberry Pi 3 Model B");
  test_open_failures(pi3);
  test_emu_failures();
  test_fake_checks();
  test_large_offset();
  /* Pi 3 (1 GiB, the uncached alias: the allocation ends at bus 0xFFFFFFFF),
   * Pi 1 B (512 MiB, the L2-cached alias), Zero 2 W (512 MiB, uncached). */
  test_session(pi3, "Pi 3", 0x4, 0xc0000000u, 1u << 30);
  test_session(TREE("pi1s", "raspberrypi,model-b\0brcm,bcm2835", "Raspberry Pi Model B"), "Pi 1", 0xc, 0x40000000u,
               512u << 20);
  test_session(TREE("zero2s", "raspberrypi,model-zero-2-w\0brcm,bcm2837", "Raspberry Pi Zero 2 W"), "Zero 2 W", 0x4,
               0xc0000000u, 512u << 20);
  /* The real engine on this machine: off, with a reason, never a crash. */
  void *state = NULL;
  char why[256] = "";
  enum hop_status st = hop_backend_videocore.init(&state, why, sizeof why);
  vc_ok(st == HOP_UNAVAILABLE && why[0] != '\0' && state == NULL, "the videocore engine here: off (%s)", why);
  return vc_tap_done();
}
