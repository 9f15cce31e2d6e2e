/* A fake /dev/vcio, /dev/mem and VideoCore firmware for the mailbox tests:
 * it logs every property message, checks its layout, answers like the
 * firmware (handles, bus addresses in the alias the flags select) and runs
 * execute_qpu on the emulator over its own "GPU memory".
 *
 * The board: `ram` bytes of SDRAM (1 GiB on a Pi 2/3, 512 MiB on a Pi 1 or
 * Zero 2 W; 0 means 1 GiB), the GPU's share at its top as the firmware's
 * gpu_mem split puts it (FAKE_ARENA of it here), handed out from the top
 * down, so that the last allocation ends at the last byte of RAM and, in
 * the 0xC0000000 alias of a 1 GiB board, at bus address 0xFFFFFFFF.  Every
 * address the host hands the fake is checked against that: the /dev/mem
 * offset and length of a mapping, the control list of execute_qpu and each
 * {uniforms, code} pair in it (the alias bits the flags selected, inside
 * the GPU's memory), and the emulator, whose memory is exactly that range,
 * faults on any other address the QPUs use.  A wrong one is counted in
 * bad_addr with its description in bad_what. */
#ifndef HOP_VC_FAKE_FW_H
#define HOP_VC_FAKE_FW_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mailbox.h"

#define FAKE_VCIO 100
#define FAKE_MEM 101
#define FAKE_ARENA (8u << 20)

struct fake_fw {
  uint8_t *arena;         /* the GPU's memory: physical [gpu_base, ram) */
  uint32_t ram, gpu_base, top, alias;
  bool deny_vcio, refuse_enable, fail_alloc, time_out, bad_layout;
  int mem_flags, vcio_opens, mem_opens, closes, mmaps, munmaps;
  unsigned long bad_request;
  uint32_t log[64][12]; /* the messages, as sent */
  int nlog;
  size_t map_len;
  off_t map_off;
  int bad_addr;
  char bad_what[160];
};

/* Set the board up: RAM size (0: 1 GiB); the GPU's memory is its top FAKE_ARENA. */
static void fake_board(struct fake_fw *f, uint32_t ram)
{
  f->ram = ram ? ram : 1u << 30;
  f->gpu_base = f->ram - FAKE_ARENA;
  f->top = f->ram;
}

static void fake_bad(struct fake_fw *f, const char *what, uint64_t addr)
{
  if (f->bad_addr++ == 0)
    snprintf(f->bad_what, sizeof f->bad_what, "%s 0x%llx outside the GPU's memory [0x%x, 0x%x) of a %u MiB board",
             what, (unsigned long long)addr, f->gpu_base, f->ram, f->ram >> 20);
}

/* A bus address of [addr, addr + len) in the GPU's memory, in the alias
 * the allocation flags chose. */
static bool fake_bus_ok(struct fake_fw *f, const char *what, uint32_t bus, uint32_t len)
{
  uint32_t phys = bus & ~0xc0000000u;
  bool ok = (bus & 0xc0000000u) == f->alias && phys >= f->gpu_base && (uint64_t)phys + len <= f->ram;
  if (!ok)
    fake_bad(f, what, bus);
  return ok;
}

static uint32_t fake_alias(uint32_t flags) { return (flags & 0xc) == 0xc ? 0x40000000u : 0xc0000000u; }

static int fake_open(void *ctx, const char *path, int flags)
{
  struct fake_fw *f = ctx;
  if (strcmp(path, "/dev/vcio") == 0) {
    f->vcio_opens++;
    if (f->deny_vcio) {
      errno = EACCES;
      return -1;
    }
    return FAKE_VCIO;
  }
  if (strcmp(path, "/dev/mem") == 0) {
    f->mem_opens++;
    f->mem_flags = flags;
    return FAKE_MEM;
  }
  errno = ENOENT;
  return -1;
}

static int fake_close(void *ctx, int fd)
{
  ((struct fake_fw *)ctx)->closes++;
  return fd == FAKE_VCIO || fd == FAKE_MEM ? 0 : -1;
}

static uint32_t fake_execute(struct fake_fw *f, const uint32_t *v)
{
  if (f->time_out)
    return 0x80000000u;
  if (v[0] == 0 || v[0] > 12 || !fake_bus_ok(f, "execute_qpu control list at bus", v[1], 8 * v[0]))
    return 0x80000000u;
  /* The QPUs see the GPU's memory at the alias, and nothing else. */
  struct hop_qpuemu *e = hop_qpuemu_new_shared(f->alias | f->gpu_base, f->arena, FAKE_ARENA);
  const uint32_t *list = e ? hop_qpuemu_ptr(e, v[1], 8 * (size_t)v[0]) : NULL;
  for (unsigned t = 0; list != NULL && t < v[0]; t++) {
    if (!fake_bus_ok(f, "uniforms at bus", list[2 * t], 4) || !fake_bus_ok(f, "code at bus", list[2 * t + 1], 8))
      list = NULL;
    else
      hop_qpuemu_launch(e, list[2 * t + 1], list[2 * t]);
  }
  enum hop_qpuemu_status st = list ? hop_qpuemu_run(e, 62500ull * v[3]) : HOP_QPUEMU_FAULT;
  struct hop_qpuemu_counters c;
  hop_qpuemu_counters(e, -1, &c);
  if (st != HOP_QPUEMU_DONE) {
    printf("# fake firmware: %s\n", e ? hop_qpuemu_error(e) : "no emulator");
    if (e != NULL && strstr(hop_qpuemu_error(e), "outside memory") != NULL)
      fake_bad(f, "a QPU access (the emulator faulted) in the program at bus", list ? list[1] : 0);
  }
  hop_qpuemu_free(e);
  return st == HOP_QPUEMU_DONE && c.host_interrupts > 0 ? 0 : 0x80000000u;
}

static int fake_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
  struct fake_fw *f = ctx;
  uint32_t *b = arg;
  if (fd != FAKE_VCIO || req != hop_vc_mbox_request()) {
    f->bad_request = req;
    errno = ENOTTY;
    return -1;
  }
  unsigned words = b[0] / 4;
  if (f->nlog < 64)
    memcpy(f->log[f->nlog++], b, 4 * (words < 12 ? words : 12));
  /* One tag: size, code, tag, value size, request length, values, end tag. */
  if (words < 6 || words > 32 || b[1] != 0 || b[3] % 4 || words != 6 + b[3] / 4 || b[words - 1] != 0) {
    f->bad_layout = true;
    b[1] = 0x80000001u;
    return 0;
  }
  uint32_t *v = b + 5, resp = 4;
  switch (b[2]) {
  case HOP_VC_TAG_QPU_ENABLE: v[0] = f->refuse_enable ? 1 : 0; break;
  case HOP_VC_TAG_CLOCK_RATE: v[1] = 300000000u; resp = 8; break;
  case HOP_VC_TAG_MEM_ALLOC: {
    uint32_t size = v[0], align = v[1], flags = v[2], pages = (size + 4095) & ~4095u;
    v[0] = 0;
    if (!f->fail_alloc && align == 4096 && size > 0 && pages <= f->top - f->gpu_base) {
      f->alias = fake_alias(flags);
      f->top -= pages;
      v[0] = 1000 + (f->top - f->gpu_base) / 4096; /* handle: the page it starts at */
    }
    break;
  }
  case HOP_VC_TAG_MEM_LOCK: v[0] = f->alias | (f->gpu_base + (v[0] - 1000) * 4096); break;
  case HOP_VC_TAG_MEM_UNLOCK: case HOP_VC_TAG_MEM_FREE: v[0] = 0; break;
  case HOP_VC_TAG_EXECUTE_QPU: v[0] = fake_execute(f, v); break;
  default: return 0; /* unknown tag: not processed */
  }
  b[1] = 0x80000000u;
  b[4] = 0x80000000u | resp;
  return 0;
}

static void *fake_mmap(void *ctx, size_t len, int prot, int flags, int fd, off_t off)
{
  struct fake_fw *f = ctx;
  f->mmaps++;
  f->map_len = len;
  f->map_off = off;
  if (fd != FAKE_MEM || prot != (PROT_READ | PROT_WRITE) || flags != MAP_SHARED || off % 4096)
    return MAP_FAILED;
  if (off < (off_t)f->gpu_base || (uint64_t)off + len > f->ram) {
    fake_bad(f, "/dev/mem offset", (uint64_t)off);
    return MAP_FAILED;
  }
  return f->arena + (off - f->gpu_base);
}

static int fake_munmap(void *ctx, void *addr, size_t len)
{
  (void)addr;
  (void)len;
  ((struct fake_fw *)ctx)->munmaps++;
  return 0;
}

#endif
