/* Assembly front doors for the GEMM entry points (x86-64, the LP64 names).
 *
 * The C entry points (cblas/cblas_gemm.c, lapack-shim/fortran_gemm.c) test
 * whether a call takes the tiny-call fast path and tail-call OpenBLAS.
 * Before such a tail call GCC and clang both load every argument the call
 * passed on the stack and store it back in place, saving the registers
 * that takes: about 35 of the 57 instructions hopblas added to a cblas_sgemm
 * of n = 2 (OpenBLAS's own: about 1000).  A front door makes the same test
 * without touching the stack: the exported name jumps to OpenBLAS's entry
 * point, or to its fork-guarded copy in a process with threads, with every
 * register and stack argument as the caller left them; any other call goes
 * to the C entry point, which then has the hidden name hop_entry_NAME,
 * tests again and goes through core/.
 *
 * The C entry points define what a front door does, and are the whole entry
 * point wherever there is none: other architectures, the ILP64 names (no
 * fast path), and the sanitizer builds (whose checks are in the C). */
#ifndef HOP_FAST_ENTRY_H
#define HOP_FAST_ENTRY_H

#include <stddef.h>

#include "hop.h"

#if defined(__has_feature) /* clang's sanitizers */
#define HOP_FE_SANITIZED                                                                           \
  (__has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                          \
   __has_feature(memory_sanitizer))
#else
#define HOP_FE_SANITIZED 0
#endif

/* The doors test glibc's __libc_single_threaded, as HOP_BLAS_GUARDED. */
#if defined(__x86_64__) && defined(__ELF__) && !defined(HOP_ILP64) &&                             \
  defined(HOP_BLAS_SINGLE_THREADED_FLAG) && !defined(__SANITIZE_ADDRESS__) &&                       \
  !defined(__SANITIZE_THREAD__) && !HOP_FE_SANITIZED
#define HOP_FAST_ENTRY_ASM 1
#else
#define HOP_FAST_ENTRY_ASM 0
#endif

#if HOP_FAST_ENTRY_ASM
/* struct hop_fast_path's layout, as the front doors read it. */
#define HOP_FE_MAX_S "0"
#define HOP_FE_MAX_D "8"
#define HOP_FE_MAX_C "16"
#define HOP_FE_MAX_Z "24"
#define HOP_FE_E 48       /* fast->e */
#define HOP_FE_GUARDED 112 /* fast->guarded */
_Static_assert(offsetof(struct hop_fast_path, max_mnk[HOP_DTYPE_S]) == 0 &&
                 offsetof(struct hop_fast_path, max_mnk[HOP_DTYPE_D]) == 8 &&
                 offsetof(struct hop_fast_path, max_mnk[HOP_DTYPE_C]) == 16 &&
                 offsetof(struct hop_fast_path, max_mnk[HOP_DTYPE_Z]) == 24 &&
                 offsetof(struct hop_fast_path, e) == HOP_FE_E &&
                 offsetof(struct hop_fast_path, guarded) == HOP_FE_GUARDED,
               "core/fast_entry.h: struct hop_fast_path's offsets");
/* Each field of struct hop_direct_entries, at 8 bytes apiece. */
#define HOP_FE_CBLAS_SGEMM "0"
#define HOP_FE_SGEMM "8"
#define HOP_FE_CBLAS_DGEMM "16"
#define HOP_FE_DGEMM "24"
#define HOP_FE_CBLAS_CGEMM "32"
#define HOP_FE_CBLAS_ZGEMM "40"
#define HOP_FE_CGEMM "48"
#define HOP_FE_ZGEMM "56"
_Static_assert(offsetof(struct hop_direct_entries, cblas_sgemm) == 0 &&
                 offsetof(struct hop_direct_entries, sgemm) == 8 &&
                 offsetof(struct hop_direct_entries, cblas_dgemm) == 16 &&
                 offsetof(struct hop_direct_entries, dgemm) == 24 &&
                 offsetof(struct hop_direct_entries, cblas_cgemm) == 32 &&
                 offsetof(struct hop_direct_entries, cblas_zgemm) == 40 &&
                 offsetof(struct hop_direct_entries, cgemm) == 48 &&
                 offsetof(struct hop_direct_entries, zgemm) == 56,
               "core/fast_entry.h: struct hop_direct_entries's offsets");
_Static_assert(HOP_FAST_PATH_LD_LIMIT == 2048u, "core/fast_entry.h: the leading dimensions' limit");

#if defined(__CET__) && (__CET__ & 1)
#define HOP_FE_ENDBR "  endbr64\n"
#else
#define HOP_FE_ENDBR ""
#endif

/* alpha != 0 (as hop_float_nonzero and the others: its bits but the sign
 * bits), else to 1f.  Scratch: %r10, %r11 (p may be %r10: read first);
 * %rax holds the fast path. */
#define HOP_FE_ALPHA_S_REG "  movd %xmm0, %r10d\n  add %r10d, %r10d\n  jz 1f\n"
#define HOP_FE_ALPHA_D_REG "  movq %xmm0, %r10\n  add %r10, %r10\n  jz 1f\n"
#define HOP_FE_ALPHA_S_AT(p) "  mov (" p "), %r10d\n  add %r10d, %r10d\n  jz 1f\n"
#define HOP_FE_ALPHA_D_AT(p) "  mov (" p "), %r10\n  add %r10, %r10\n  jz 1f\n"
#define HOP_FE_ALPHA_C_AT(p)                                                                       \
  "  mov (" p "), %r10\n  movabs $0x7fffffff7fffffff, %r11\n  test %r11, %r10\n  jz 1f\n"
#define HOP_FE_ALPHA_Z_AT(p)                                                                       \
  "  mov (" p "), %r11\n  add %r11, %r11\n  mov 8(" p "), %r10\n  add %r10, %r10\n"              \
  "  or %r10, %r11\n  jz 1f\n"

/* lda | ldb | ldc below 2048 as unsigned (a negative one fails), then
 * m * n * k below the dtype's max_mnk, as hop_fast_path_takes.  On entry
 * (%rsp) is the return address and the 7th integer or pointer argument
 * lies at 8(%rsp), each next one 8 bytes on (an int in a slot's low half);
 * m, n, k are the 4th to 6th (%ecx, %r8d, %r9d, or pointers there). */
#define HOP_FE_SIZES_BY_VALUE(lda, ldb, ldc, max)                                                  \
  "  mov " lda "(%rsp), %r10d\n  or " ldb "(%rsp), %r10d\n  or " ldc "(%rsp), %r10d\n"             \
  "  cmp $2047, %r10d\n  ja 1f\n"                                                                \
  "  movslq %ecx, %r11\n  movslq %r8d, %r10\n  imul %r10, %r11\n  movslq %r9d, %r10\n"            \
  "  imul %r10, %r11\n  cmp " max "(%rax), %r11\n  jae 1f\n"
#define HOP_FE_SIZES_BY_REF(lda, ldb, ldc, max)                                                    \
  "  mov " lda "(%rsp), %r10\n  mov (%r10), %r10d\n  mov " ldb "(%rsp), %r11\n"                  \
  "  or (%r11), %r10d\n  mov " ldc "(%rsp), %r11\n  or (%r11), %r10d\n"                          \
  "  cmp $2047, %r10d\n  ja 1f\n"                                                                \
  "  movslq (%rdx), %r11\n  movslq (%rcx), %r10\n  imul %r10, %r11\n  movslq (%r8), %r10\n"       \
  "  imul %r10, %r11\n  cmp " max "(%rax), %r11\n  jae 1f\n"

/* The front door NAME (and its ALIASES, each a global of the same address):
 * TESTS, then OpenBLAS's entry (FIELD of fast->e) in a process that has never
 * started a thread, its guarded copy (of fast->guarded) otherwise; every
 * other call to SLOW.  Only %rax, %r10 and %r11 are written: neither an
 * argument register nor the stack.  In a section of its own push: the
 * compiler does not know where in its output a top-level asm lands. */
#define HOP_FE_ALIAS(alias, name)                                                                  \
  "  .globl " alias "\n  .type " alias ", @function\n  .set " alias ", " name "\n"
#define HOP_FRONT_DOOR(name, aliases, slow, tests, field, e_off, g_off)                            \
  __asm__("  .pushsection .text\n  .p2align 4\n  .globl " name "\n  .type " name ", @function\n" \
          name ":\n"                                                                              \
          "  .cfi_startproc\n" HOP_FE_ENDBR "  mov hop_fast_path_ready(%rip), %rax\n" tests       \
          "  mov __libc_single_threaded@GOTPCREL(%rip), %r10\n  cmpb $0, (%r10)\n  je 2f\n"        \
          "  jmp *" e_off "+" field "(%rax)\n2:\n  jmp *" g_off "+" field "(%rax)\n"              \
          "1:\n  jmp " slow "\n  .cfi_endproc\n  .size " name ", .-" name "\n" aliases        \
          "  .popsection\n")
#define HOP_FE_STR(x) #x
#define HOP_FE_XSTR(x) HOP_FE_STR(x)

/* The CBLAS GEMM of dtype letter x: alpha in %xmm0 (s, d) or by pointer,
 * the 7th argument, on the stack (c, z); lda, ldb and ldc on the stack. */
#define HOP_FRONT_DOOR_CBLAS(x, tests, field)                                                      \
  HOP_FRONT_DOOR("cblas_" #x "gemm", HOP_FE_ALIAS("scipy_cblas_" #x "gemm", "cblas_" #x "gemm"),  \
                 "hop_entry_cblas_" #x "gemm", tests, field, HOP_FE_XSTR(HOP_FE_E),              \
                 HOP_FE_XSTR(HOP_FE_GUARDED))
#define HOP_FE_CBLAS_REAL(alpha, max) alpha HOP_FE_SIZES_BY_VALUE("16", "32", "48", max)
#define HOP_FE_CBLAS_COMPLEX(alpha_at, max)                                                        \
  "  mov 8(%rsp), %r10\n" alpha_at("%r10") HOP_FE_SIZES_BY_VALUE("24", "40", "64", max)

/* The Fortran GEMM of dtype letter x: every argument by reference, alpha
 * in %r9; lda, ldb and ldc by pointers on the stack.  Its aliases: the
 * scipy-openblas name and the bare name. */
#define HOP_FRONT_DOOR_F77(x, alpha, max, field)                                                   \
  HOP_FRONT_DOOR(#x "gemm_",                                                                     \
                 HOP_FE_ALIAS("scipy_" #x "gemm_", #x "gemm_") HOP_FE_ALIAS(#x "gemm", #x "gemm_"), \
                 "hop_entry_" #x "gemm_",                                                        \
                 alpha HOP_FE_SIZES_BY_REF("16", "32", "56", max), field,                        \
                 HOP_FE_XSTR(HOP_FE_E), HOP_FE_XSTR(HOP_FE_GUARDED))

#endif /* HOP_FAST_ENTRY_ASM */
#endif
