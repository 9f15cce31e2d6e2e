/* hopblas-qpu-emu: run QPU threads on the emulator over a flat memory image.
 *
 *   hopblas-qpu-emu [--base ADDR] [--max-cycles N] [--stats] IMAGE CODE_ADDR UNIFORMS_ADDR...
 *
 * IMAGE is loaded at bus address ADDR (default 0); one thread per
 * UNIFORMS_ADDR starts at CODE_ADDR; when every thread has ended the final
 * memory image goes to standard output.  A fault exits with status 1 and a
 * message; bad usage exits with status 2. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu_emu.h"

static int usage(const char *why)
{
  fprintf(stderr, "hopblas-qpu-emu: %s\n"
                  "usage: hopblas-qpu-emu [--base ADDR] [--max-cycles N] [--stats] IMAGE CODE_ADDR "
                  "UNIFORMS_ADDR...\n", why);
  return 2;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s || *end != '\0' || s[0] == '-' || v > max)
    return false;
  *out = v;
  return true;
}

/* The whole file, or NULL with a message. */
static unsigned char *read_image(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "hopblas-qpu-emu: %s: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc(cap);
  while (buf != NULL) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap)
      break;
    /* An image covers at most the 4 GiB bus space (and half the address space). */
    bool grow = (uint64_t)cap * 2 <= ((uint64_t)1 << 32) && cap <= SIZE_MAX / 2;
    unsigned char *nb = grow ? realloc(buf, cap * 2) : NULL;
    if (nb == NULL) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  bool bad = buf == NULL || ferror(f);
  fclose(f);
  if (bad) {
    fprintf(stderr, "hopblas-qpu-emu: %s: cannot read the image\n", path);
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

int main(int argc, char **argv)
{
  uint64_t base = 0, max_cycles = 4000000000ull;
  bool stats = false;
  int i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    if (strcmp(argv[i], "--stats") == 0)
      stats = true;
    else if (strcmp(argv[i], "--base") == 0 && i + 1 < argc) {
      if (!parse_u64(argv[++i], 0xffffffffull, &base))
        return usage("--base wants a 32-bit bus address");
    } else if (strcmp(argv[i], "--max-cycles") == 0 && i + 1 < argc) {
      if (!parse_u64(argv[++i], UINT64_MAX, &max_cycles) || max_cycles == 0)
        return usage("--max-cycles wants a positive number");
    } else {
      return usage("unknown option");
    }
  }
  if (argc - i < 3)
    return usage("IMAGE, CODE_ADDR and at least one UNIFORMS_ADDR are needed");
  if (argc - i - 2 > HOP_QPUEMU_MAX_QPUS)
    return usage("at most 12 threads (one per QPU)");
  uint64_t code;
  if (!parse_u64(argv[i + 1], 0xffffffffull, &code))
    return usage("CODE_ADDR is not a 32-bit address");
  size_t len;
  unsigned char *image = read_image(argv[i], &len);
  if (image == NULL)
    return 1;
  int status = 1;
  struct hop_qpuemu *e = len ? hop_qpuemu_new((uint32_t)base, len) : NULL;
  if (e == NULL) {
    fprintf(stderr, "hopblas-qpu-emu: the image (%zu bytes) does not fit at 0x%08llx or memory ran out\n",
            len, (unsigned long long)base);
    goto out;
  }
  memcpy(hop_qpuemu_ptr(e, (uint32_t)base, len), image, len);
  for (int t = i + 2; t < argc; t++) {
    uint64_t unif;
    if (!parse_u64(argv[t], 0xffffffffull, &unif)) {
      status = usage("UNIFORMS_ADDR is not a 32-bit address");
      goto out;
    }
    hop_qpuemu_launch(e, (uint32_t)code, (uint32_t)unif);
  }
  enum hop_qpuemu_status st = hop_qpuemu_run(e, max_cycles);
  if (stats)
    hop_qpuemu_print_stats(e, stderr);
  if (st != HOP_QPUEMU_DONE) {
    fprintf(stderr, "hopblas-qpu-emu: %s\n", hop_qpuemu_error(e));
    goto out;
  }
  if (fwrite(hop_qpuemu_ptr(e, (uint32_t)base, len), 1, len, stdout) != len || fflush(stdout) != 0) {
    fprintf(stderr, "hopblas-qpu-emu: cannot write the image to standard output\n");
    goto out;
  }
  status = 0;
out:
  hop_qpuemu_free(e);
  free(image);
  return status;
}
