/* Loading a CPU BLAS privately, for the engine's LP64 BLAS (cpu.c) and its
 * ILP64 one (blas64.c): dlopen RTLD_LOCAL and dlsym on the handle, never
 * hopblas itself, never a file that would block the load. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
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

void *hop_cpu_dlopen(const char *path, char *why, size_t why_len)
{
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
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL)
    snprintf(why, why_len, "%s: %s", path, dlerror());
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
