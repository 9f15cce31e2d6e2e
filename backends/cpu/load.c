/* Loading a CPU BLAS privately, for the engine's LP64 BLAS (cpu.c) and its
 * ILP64 one (blas64.c): dlopen RTLD_LOCAL and dlsym on the handle, never
 * hopblas itself, never a file that would block the load. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpu.h"

const char *hop_cpu_asked_path(const char *key)
{
  const char *v = hop_config_get(key);
  if (v == NULL)
    return "";
  if (strlen(v) >= PATH_MAX) {
    hop_log(1, "%s=%.64s is not a path of reasonable length; using the default", key, v);
    return "";
  }
  return v;
}

/* OpenBLAS's idle workers spin for 2^OPENBLAS_THREAD_TIMEOUT TSC cycles
 * after each call before they sleep: 2^28 by default, about 0.1 s.  Between
 * LAPACK's CPU calls and the OpenCL engine's calls that is every core
 * spinning while the engine's copy threads pack operands (Debian's dpotrf
 * at n = 16384 on a 32-core host ran 7x slower).  A copy that this load
 * brings into the process reads a shorter spin, under a millisecond (calls
 * back to back still find the workers awake), unless the user set one; the
 * environment is as it was once the load returns.  OpenBLAS counts x86's
 * time-stamp counter (GHz), elsewhere a timer of tens of MHz. */
#if defined(__x86_64__) || defined(__i386__)
#define SPIN_LOG2_CYCLES "20"
#else
#define SPIN_LOG2_CYCLES "14"
#endif

const char *hop_cpu_spin_text(enum hop_cpu_spin spin)
{
  switch (spin) {
  case HOP_CPU_SPIN_SHORT:
    return "idle workers spin 2^" SPIN_LOG2_CYCLES " cycles, then sleep (OPENBLAS_THREAD_TIMEOUT "
           "set for hopblas's private copy)";
  case HOP_CPU_SPIN_USER: return "idle workers spin as OPENBLAS_THREAD_TIMEOUT says (the user's)";
  case HOP_CPU_SPIN_SHARED:
    return "shared with the program, which loaded it first: its workers spin as it set them";
  case HOP_CPU_SPIN_UNKNOWN: break;
  }
  return "";
}

void *hop_cpu_dlopen(const char *path, char *why, size_t why_len, enum hop_cpu_spin *spin)
{
  enum hop_cpu_spin ignored;
  spin = spin != NULL ? spin : &ignored;
  *spin = HOP_CPU_SPIN_UNKNOWN;
  /* dlopen() reads a FIFO or a device node and may wait forever there. */
  struct stat sb;
  if (strchr(path, '/') != NULL) {
    const char *bad = stat(path, &sb) != 0 ? strerror(errno)
                      : !S_ISREG(sb.st_mode) ? "not a regular file" : NULL;
    if (bad != NULL) {
      snprintf(why, why_len, "%s: %s", path, bad);
      return NULL;
    }
  }
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (h != NULL) {
    *spin = HOP_CPU_SPIN_SHARED;
    hop_blas_fork_guard_install();
    return h;
  }
  bool user = getenv("OPENBLAS_THREAD_TIMEOUT") != NULL || getenv("GOTO_THREAD_TIMEOUT") != NULL;
  bool set = !user && setenv("OPENBLAS_THREAD_TIMEOUT", SPIN_LOG2_CYCLES, 0) == 0;
  h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (set)
    unsetenv("OPENBLAS_THREAD_TIMEOUT");
  if (h == NULL)
    snprintf(why, why_len, "%s: %s", path, dlerror());
  else
    hop_blas_fork_guard_install(); /* after the BLAS's own handlers (core/fork_guard.c) */
  *spin = user ? HOP_CPU_SPIN_USER : set ? HOP_CPU_SPIN_SHORT : HOP_CPU_SPIN_UNKNOWN;
  return h;
}

bool hop_cpu_is_self(void *fn)
{
  Dl_info theirs, ours;
  return dladdr(fn, &theirs) && dladdr((void *)hop_cpu_is_self, &ours) &&
         theirs.dli_fbase == ours.dli_fbase;
}

void hop_cpu_lib_name(void *h, const char *path, char *out, size_t len)
{
  /* The file really loaded, not the soname asked for. */
  struct link_map *lm = NULL;
  if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL && lm->l_name[0] != '\0')
    snprintf(out, len, "OpenBLAS %s", lm->l_name);
  else
    snprintf(out, len, "OpenBLAS %s", path);
}
