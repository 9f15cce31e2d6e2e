/* The mailbox launcher: property messages to the VideoCore firmware through
 * /dev/vcio, GPU memory mapped through /dev/mem, QPU programs started with
 * execute_qpu.  Message layout and allocation flags follow hello_fft (fact
 * sheet B.2-B.4); only a Raspberry Pi can confirm them end to end. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mailbox.h"

#define BUS_TO_PHYS(a) ((a) & ~0xc0000000u)

/* The /dev/mem offset is a physical address: a 32-bit userland needs the
 * 64-bit off_t that configure's AC_SYS_LARGEFILE asks for, and the tests'
 * fake system calls must be built with the same off_t. */
_Static_assert(sizeof(off_t) == 8, "off_t must have 64 bits (-D_FILE_OFFSET_BITS=64)");

unsigned long hop_vc_mbox_request(void) { return (unsigned long)_IOWR(100, 0, char *); }

/* ---- the real system calls ---------------------------------------------- */
static int sys_open(void *ctx, const char *path, int flags) { (void)ctx; return open(path, flags); }
static int sys_close(void *ctx, int fd) { (void)ctx; return close(fd); }
static int sys_ioctl(void *ctx, int fd, unsigned long req, void *arg) { (void)ctx; return ioctl(fd, req, arg); }
static void *sys_mmap(void *ctx, size_t len, int prot, int flags, int fd, off_t off)
{
  (void)ctx;
  return mmap(NULL, len, prot, flags, fd, off);
}
static int sys_munmap(void *ctx, void *addr, size_t len) { (void)ctx; return munmap(addr, len); }

const struct hop_vc_mbox_io hop_vc_mbox_sys = {sys_open, sys_close, sys_ioctl, sys_mmap, sys_munmap, NULL};

bool hop_vc_mbox_property(struct hop_vc_mbox *mb, uint32_t tag, const uint32_t *in, unsigned nin,
                          uint32_t *out, unsigned nout)
{
  uint32_t buf[32] __attribute__((aligned(16)));
  unsigned words = nin > nout ? nin : nout, i = 0;
  if (words > 24)
    return false;
  buf[i++] = 0;          /* total size, below */
  buf[i++] = 0;          /* process request */
  buf[i++] = tag;
  buf[i++] = 4 * words;  /* value buffer size */
  buf[i++] = 4 * nin;    /* request length */
  for (unsigned k = 0; k < words; k++)
    buf[i++] = k < nin ? in[k] : 0;
  buf[i++] = 0;          /* end tag */
  buf[0] = 4 * i;
  if (mb->io->ioctl(mb->io->ctx, mb->vcio, hop_vc_mbox_request(), buf) < 0)
    return false;
  if (buf[1] != 0x80000000u || !(buf[4] & 0x80000000u))
    return false;
  for (unsigned k = 0; k < nout; k++)
    out[k] = buf[5 + k];
  return true;
}

static bool call1(struct hop_vc_mbox *mb, uint32_t tag, uint32_t arg, uint32_t *result)
{
  return hop_vc_mbox_property(mb, tag, &arg, 1, result, 1);
}

/* ---- the board ----------------------------------------------------------- */

/* A device-tree property file; false if missing.  Strings are NUL-separated. */
static bool read_prop(const char *root, const char *name, char *buf, size_t len)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, name);
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return false;
  size_t n = fread(buf, 1, len - 1, f);
  fclose(f);
  buf[n] = '\0';
  for (size_t i = 0; i + 1 < n; i++) /* one string per NUL, so strstr sees them all */
    if (buf[i] == '\0')
      buf[i] = '\n';
  return true;
}

enum hop_status hop_vc_board_detect(const char *dt_root, struct hop_vc_board *b, char *why, size_t why_len)
{
  static const struct { const char *compat; enum hop_vc_soc soc; } socs[] = {
    {"brcm,bcm2712", HOP_VC_SOC_2712}, {"brcm,bcm2711", HOP_VC_SOC_2711},
    {"brcm,bcm2837", HOP_VC_SOC_2837}, {"brcm,bcm2710", HOP_VC_SOC_2837},
    {"brcm,bcm2836", HOP_VC_SOC_2836}, {"brcm,bcm2709", HOP_VC_SOC_2836},
    {"brcm,bcm2835", HOP_VC_SOC_2835}, {"brcm,bcm2708", HOP_VC_SOC_2835},
  };
  memset(b, 0, sizeof *b);
  char compat[1024];
  if (!read_prop(dt_root, "compatible", compat, sizeof compat)) {
    snprintf(why, why_len, "not a Raspberry Pi: no %s/compatible", dt_root);
    return HOP_UNAVAILABLE;
  }
  if (!read_prop(dt_root, "model", b->model, sizeof b->model))
    snprintf(b->model, sizeof b->model, "unknown model");
  for (size_t i = 0; i < sizeof socs / sizeof socs[0] && b->soc == HOP_VC_SOC_NONE; i++)
    if (strstr(compat, socs[i].compat) != NULL)
      b->soc = socs[i].soc;
  switch (b->soc) {
  case HOP_VC_SOC_NONE:
    snprintf(why, why_len, "not a Raspberry Pi 0-3 (%s): no brcm,bcm283x in the device tree", b->model);
    return HOP_UNAVAILABLE;
  case HOP_VC_SOC_2711:
  case HOP_VC_SOC_2712:
    snprintf(why, why_len, "%s: Raspberry Pi %s (BCM%s) has VideoCore %s, another QPU instruction set; "
             "this engine drives the VideoCore IV of Pi 0-3", b->model, b->soc == HOP_VC_SOC_2711 ? "4" : "5",
             b->soc == HOP_VC_SOC_2711 ? "2711" : "2712", b->soc == HOP_VC_SOC_2711 ? "VI" : "VII");
    return HOP_UNAVAILABLE;
  case HOP_VC_SOC_2835:
    b->alloc_flags = 0xc; /* L1 non-allocating, L2 cached: what hello_fft uses on Pi 1/Zero */
    return HOP_OK;
  default:
    b->alloc_flags = 0x4; /* direct: the ARM of Pi 2/3 cannot see the VC4 L2 */
    return HOP_OK;
  }
}

/* ---- the launcher -------------------------------------------------------- */

static enum hop_status mbox_alloc(struct hop_vc_launcher *base, size_t size, struct hop_vc_mem *out,
                                  char *why, size_t why_len)
{
  struct hop_vc_mbox *mb = (struct hop_vc_mbox *)base;
  memset(out, 0, sizeof *out);
  size = (size + 4095) & ~(size_t)4095;
  uint32_t req[3] = {(uint32_t)size, 4096, mb->board.alloc_flags}, handle = 0, bus = 0;
  if (!hop_vc_mbox_property(mb, HOP_VC_TAG_MEM_ALLOC, req, 3, &handle, 1) || handle == 0) {
    snprintf(why, why_len, "mem_alloc of %zu KiB failed (gpu_mem= in config.txt too small?)", size >> 10);
    return HOP_ERR_DEVMEM;
  }
  uint32_t status;
  if (!call1(mb, HOP_VC_TAG_MEM_LOCK, handle, &bus) || bus == 0) {
    call1(mb, HOP_VC_TAG_MEM_FREE, handle, &status);
    snprintf(why, why_len, "mem_lock of handle %u failed", handle);
    return HOP_ERR_DEVMEM;
  }
  void *host = mb->io->mmap(mb->io->ctx, size, PROT_READ | PROT_WRITE, MAP_SHARED, mb->mem,
                            (off_t)BUS_TO_PHYS(bus));
  if (host == MAP_FAILED || host == NULL) {
    call1(mb, HOP_VC_TAG_MEM_UNLOCK, handle, &status);
    call1(mb, HOP_VC_TAG_MEM_FREE, handle, &status);
    snprintf(why, why_len, "mapping bus 0x%08x through /dev/mem failed: %s", bus, strerror(errno));
    return HOP_ERR_DEVMEM;
  }
  out->bus = bus;
  out->host = host;
  out->size = size;
  out->handle = handle;
  return HOP_OK;
}

static void mbox_release(struct hop_vc_launcher *base, struct hop_vc_mem *m)
{
  struct hop_vc_mbox *mb = (struct hop_vc_mbox *)base;
  uint32_t status;
  if (m->host != NULL)
    mb->io->munmap(mb->io->ctx, m->host, m->size);
  if (m->handle) {
    call1(mb, HOP_VC_TAG_MEM_UNLOCK, m->handle, &status);
    call1(mb, HOP_VC_TAG_MEM_FREE, m->handle, &status);
  }
  memset(m, 0, sizeof *m);
}

static enum hop_status mbox_execute(struct hop_vc_launcher *base, struct hop_vc_mem *m, uint32_t control,
                                    unsigned nqpus, unsigned timeout_ms, char *why, size_t why_len)
{
  struct hop_vc_mbox *mb = (struct hop_vc_mbox *)base;
  (void)m;
  /* noflush = 0: the firmware flushes the GPU caches, so the QPUs see what
   * the ARM just wrote (the uniforms cache and TMU are not coherent). */
  uint32_t req[4] = {nqpus, control, 0, timeout_ms}, result = 0xffffffffu;
  pthread_mutex_lock(&mb->lock);
  bool ok = hop_vc_mbox_property(mb, HOP_VC_TAG_EXECUTE_QPU, req, 4, &result, 1);
  pthread_mutex_unlock(&mb->lock);
  if (!ok || result != 0) {
    snprintf(why, why_len, "execute_qpu of %u programs: %s", nqpus,
             !ok ? "mailbox call failed" : result == 0x80000000u ? "timed out" : "the firmware refused");
    return HOP_ERR_DEVICE;
  }
  return HOP_OK;
}

enum hop_status hop_vc_mbox_open(struct hop_vc_mbox *mb, const struct hop_vc_mbox_io *io,
                                 const char *dt_root, char *why, size_t why_len)
{
  memset(mb, 0, sizeof *mb);
  mb->io = io;
  mb->vcio = mb->mem = -1;
  enum hop_status st = hop_vc_board_detect(dt_root, &mb->board, why, why_len);
  if (st != HOP_OK)
    return st;
  mb->vcio = io->open(io->ctx, "/dev/vcio", O_RDWR);
  if (mb->vcio < 0) {
    snprintf(why, why_len, "%s: cannot open /dev/vcio: %s (root or the video group is needed)",
             mb->board.model, strerror(errno));
    return HOP_UNAVAILABLE;
  }
  uint32_t status = 1;
  if (!call1(mb, HOP_VC_TAG_QPU_ENABLE, 1, &status) || status != 0) {
    snprintf(why, why_len, "%s: the firmware would not power the QPUs (vc4-kms-v3d owns the V3D? "
             "see doc/VIDEOCORE.md)", mb->board.model);
    io->close(io->ctx, mb->vcio);
    mb->vcio = -1;
    return HOP_UNAVAILABLE;
  }
  uint32_t clock[2] = {0, 0}, id = HOP_VC_CLOCK_V3D;
  if (hop_vc_mbox_property(mb, HOP_VC_TAG_CLOCK_RATE, &id, 1, clock, 2) && clock[0] == HOP_VC_CLOCK_V3D)
    mb->clock_hz = clock[1];
  mb->mem = io->open(io->ctx, "/dev/mem", O_RDWR | O_SYNC);
  if (mb->mem < 0) {
    snprintf(why, why_len, "%s: cannot open /dev/mem: %s (root is needed to map GPU memory)",
             mb->board.model, strerror(errno));
    call1(mb, HOP_VC_TAG_QPU_ENABLE, 0, &status);
    io->close(io->ctx, mb->vcio);
    mb->vcio = -1;
    return HOP_UNAVAILABLE;
  }
  pthread_mutex_init(&mb->lock, NULL);
  mb->base.name = "mailbox";
  mb->base.alloc = mbox_alloc;
  mb->base.release = mbox_release;
  mb->base.execute = mbox_execute;
  return HOP_OK;
}

void hop_vc_mbox_close(struct hop_vc_mbox *mb)
{
  uint32_t status;
  if (mb->vcio >= 0)
    call1(mb, HOP_VC_TAG_QPU_ENABLE, 0, &status);
  if (mb->mem >= 0)
    mb->io->close(mb->io->ctx, mb->mem);
  if (mb->vcio >= 0)
    mb->io->close(mb->io->ctx, mb->vcio);
  mb->vcio = mb->mem = -1;
  pthread_mutex_destroy(&mb->lock);
}
