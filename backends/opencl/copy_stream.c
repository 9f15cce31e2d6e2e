/* The host copy of a staged call's results into the caller's C: nothing
 * reads C again soon (the caller reads it later, after the whole call), so
 * on x86 the copy stores around the caches.  An ordinary store
 * first reads its line for ownership: streaming stores skip that read and
 * carry a copy's bytes once instead of twice (1.5x on one core of this
 * project's 2-core VM, in 32 KiB columns).  Where the CPU has AVX2 the
 * stores are 32 bytes wide: on a 16-core H200 host, 16 threads copying
 * 32 KiB columns (a dgemm tile's) moved 55 to 57 GB/s against 48 to 49
 * with 16-byte stores (benchmark/nvidia/hostbw.c). */
#include <string.h>

#include "ocl.h"

#if defined(__SSE2__)
#include <immintrin.h>

enum { STREAM_MIN = 4096 }; /* below this, memcpy (and the cache) wins */

/* n bytes from s to d, d aligned to 16, with 16-byte streaming stores;
 * returns how many it copied (a multiple of 64). */
static size_t stream16(unsigned char *d, const unsigned char *s, size_t n)
{
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
    __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
    _mm_stream_si128((__m128i *)(d + i), a);
    _mm_stream_si128((__m128i *)(d + i + 16), b);
    _mm_stream_si128((__m128i *)(d + i + 32), c);
    _mm_stream_si128((__m128i *)(d + i + 48), e);
  }
  return i;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with 32-byte stores, d aligned to 32 (a multiple of 128). */
__attribute__((target("avx2"))) static size_t stream32(unsigned char *d, const unsigned char *s,
                                                       size_t n)
{
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
    __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
    __m256i c = _mm256_loadu_si256((const __m256i *)(s + i + 64));
    __m256i e = _mm256_loadu_si256((const __m256i *)(s + i + 96));
    _mm256_stream_si256((__m256i *)(d + i), a);
    _mm256_stream_si256((__m256i *)(d + i + 32), b);
    _mm256_stream_si256((__m256i *)(d + i + 64), c);
    _mm256_stream_si256((__m256i *)(d + i + 96), e);
  }
  return i;
}

/* libgcc's constructor has read the CPU's features by the time anything copies. */
static bool has_avx2(void) { return __builtin_cpu_supports("avx2"); }
#else
static bool has_avx2(void) { return false; }
/* Never called: without AVX2 every copy takes 16-byte stores. */
static size_t stream32(unsigned char *d, const unsigned char *s, size_t n)
{
  return stream16(d, s, n);
}
#endif

int hop_ocl_copy_bytes_wide(void *dst, const void *src, size_t n, int width)
{
  unsigned char *d = dst;
  const unsigned char *s = src;
  width = width == 32 && !has_avx2() ? 16 : width;
  if (n < STREAM_MIN || (width != 16 && width != 32)) {
    memcpy(d, s, n);
    return 0;
  }
  size_t align = (size_t)width; /* streaming stores want their width's alignment */
  size_t head = (align - ((uintptr_t)d & (align - 1))) & (align - 1);
  memcpy(d, s, head);
  d += head, s += head, n -= head;
  size_t i = width == 32 ? stream32(d, s, n) : stream16(d, s, n);
  memcpy(d + i, s + i, n - i);
  /* Streaming stores are weakly ordered: make them visible before whoever
   * waits for this copy (the thread that hands out the shares) goes on. */
  _mm_sfence();
  return width;
}

void hop_ocl_copy_bytes(void *dst, const void *src, size_t n)
{
  hop_ocl_copy_bytes_wide(dst, src, n, 32); /* the widest this CPU has */
}
#else
int hop_ocl_copy_bytes_wide(void *dst, const void *src, size_t n, int width)
{
  (void)width;
  memcpy(dst, src, n);
  return 0;
}

void hop_ocl_copy_bytes(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
#endif
