/* The mailbox launcher for a real Raspberry Pi 0-3: /dev/vcio property
 * messages (mem alloc/lock, execute_qpu, qpu_enable, clock), /dev/mem
 * mapping, the board from the device tree.  Every system call goes through
 * struct hop_vc_mbox_io so that the tests can put a fake /dev/vcio (and a
 * fake firmware running the emulator) behind it and check each message. */
#ifndef HOP_VC_MAILBOX_H
#define HOP_VC_MAILBOX_H

#include <pthread.h>
#include <sys/types.h>

#include "vc.h"

struct hop_vc_mbox_io {
  int (*open)(void *ctx, const char *path, int flags);
  int (*close)(void *ctx, int fd);
  int (*ioctl)(void *ctx, int fd, unsigned long request, void *arg);
  void *(*mmap)(void *ctx, size_t len, int prot, int flags, int fd, off_t offset);
  int (*munmap)(void *ctx, void *addr, size_t len);
  void *ctx;
};
extern const struct hop_vc_mbox_io hop_vc_mbox_sys; /* the real system calls */

/* Property tags (fact sheet B.2). */
#define HOP_VC_TAG_CLOCK_RATE 0x00030002u
#define HOP_VC_TAG_MEM_ALLOC 0x0003000cu
#define HOP_VC_TAG_MEM_LOCK 0x0003000du
#define HOP_VC_TAG_MEM_UNLOCK 0x0003000eu
#define HOP_VC_TAG_MEM_FREE 0x0003000fu
#define HOP_VC_TAG_EXECUTE_QPU 0x00030011u
#define HOP_VC_TAG_QPU_ENABLE 0x00030012u
#define HOP_VC_CLOCK_V3D 5u

enum hop_vc_soc { HOP_VC_SOC_NONE, HOP_VC_SOC_2835, HOP_VC_SOC_2836, HOP_VC_SOC_2837, HOP_VC_SOC_2711,
                  HOP_VC_SOC_2712 };

struct hop_vc_board {
  enum hop_vc_soc soc;
  char model[96];
  uint32_t alloc_flags; /* mem_alloc flags: hello_fft's choice per SoC */
};

/* Read DT_ROOT/compatible and DT_ROOT/model (normally /proc/device-tree).
 * HOP_OK only for a VideoCore IV board; otherwise HOP_UNAVAILABLE and why. */
enum hop_status hop_vc_board_detect(const char *dt_root, struct hop_vc_board *b, char *why,
                                    size_t why_len);

/* _IOWR(100, 0, char *): 0xC0046400 with 32-bit pointers, 0xC0086400 with 64. */
unsigned long hop_vc_mbox_request(void);

struct hop_vc_mbox {
  struct hop_vc_launcher base;
  const struct hop_vc_mbox_io *io;
  int vcio, mem;
  struct hop_vc_board board;
  unsigned clock_hz;
  pthread_mutex_t lock; /* one QPU program set at a time */
};

/* Detect the board, open /dev/vcio, power the QPUs, read the V3D clock,
 * open /dev/mem.  On failure nothing stays open. */
enum hop_status hop_vc_mbox_open(struct hop_vc_mbox *mb, const struct hop_vc_mbox_io *io,
                                 const char *dt_root, char *why, size_t why_len);
void hop_vc_mbox_close(struct hop_vc_mbox *mb);

/* One property call with one tag: nin request words, nout response words
 * (in out).  False when the ioctl or the firmware failed. */
bool hop_vc_mbox_property(struct hop_vc_mbox *mb, uint32_t tag, const uint32_t *in, unsigned nin,
                          uint32_t *out, unsigned nout);

#endif
