/* backends/opencl/copy_stream.c, the copy that writes a staged call's
 * results into C: with 16- and 32-byte streaming stores and with memcpy,
 * every length around the streaming threshold and the stores' block, every
 * misalignment of either end, the bytes right and those around them
 * untouched.  Prints TAP. */
#include <stdlib.h>
#include <string.h>

#include "ocl.h"
#include "test/tap.h"

enum { GUARD = 64, MOST = 70000 };

static int cases;

/* One width over every case: the number of wrong cases, and the widths used. */
static int sweep(int width, int *used)
{
  cases = 0;
  static const size_t lengths[] = {0,    1,    15,   63,   64,   4095,  4096,  4097,
                                   4159, 4223, 5000, 8191, 32771, 65536, MOST};
  unsigned char *src = malloc(MOST + 2 * GUARD), *dst = malloc(MOST + 2 * GUARD);
  int wrong = 0;
  for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
    for (int ds = 0; ds < 40; ds += 3)
      for (int ss = 0; ss < 9; ss += 4) {
        size_t n = lengths[l];
        for (size_t i = 0; i < MOST + 2 * GUARD; i++)
          src[i] = (unsigned char)(i * 131 + 7), dst[i] = 0xee;
        *used |= 1 << hop_ocl_copy_bytes_wide(dst + GUARD + ds, src + GUARD + ss, n, width) / 16;
        bool ok = memcmp(dst + GUARD + ds, src + GUARD + ss, n) == 0;
        for (size_t i = 0; i < GUARD + (size_t)ds && ok; i++)
          ok = dst[i] == 0xee;
        for (size_t i = GUARD + ds + n; i < MOST + 2 * GUARD && ok; i++)
          ok = dst[i] == 0xee;
        wrong += !ok;
        cases++;
      }
  free(src);
  free(dst);
  return wrong;
}

int main(void)
{
  int used16 = 0, used32 = 0, used0 = 0;
  int w16 = sweep(16, &used16), w32 = sweep(32, &used32), w0 = sweep(0, &used0);
#if defined(__SSE2__)
  tap(w16 == 0 && used16 == (1 | 2), "16-byte streaming stores: %d of %d cases wrong", w16, cases);
#else
  tap(w16 == 0 && used16 == 1, "no streaming stores in this build, memcpy: %d of %d wrong", w16, cases);
#endif
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx2"))
    tap(w32 == 0 && used32 == (1 | 4), "32-byte streaming stores (AVX2): %d of %d cases wrong",
        w32, cases);
  else
    tap(w32 == 0 && used32 == (1 | 2), "32 bytes asked of a CPU without AVX2: 16-byte stores, "
        "%d of %d cases wrong", w32, cases);
#else
  tap(w32 == 0, "32 bytes asked of a build without them: %d of %d cases wrong", w32, cases);
#endif
  tap(w0 == 0 && used0 == 1, "memcpy: %d of %d cases wrong", w0, cases);
  unsigned char a[8192], b[8192];
  memset(a, 3, sizeof a);
  hop_ocl_copy_bytes(b, a, sizeof b);
  tap(memcmp(a, b, sizeof a) == 0, "hop_ocl_copy_bytes, the width this CPU takes");
  printf("1..%d\n", tap_n);
  return tap_failed != 0;
}
