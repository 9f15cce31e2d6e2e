/* Where hopblas keeps its caches: $HOPBLAS_CACHE_DIR, else
 * $XDG_CACHE_HOME/hopblas, else $HOME/.cache/hopblas (path variables are
 * read through secure_getenv, so a set-uid program gets none). */
#include <stdlib.h>

#include "hop.h"

bool hop_cache_dir(char *out, size_t len)
{
  const char *dir = hop_config_get("HOPBLAS_CACHE_DIR");
  if (dir != NULL && *dir != '\0')
    return snprintf(out, len, "%s", dir) < (int)len;
#ifdef HAVE_SECURE_GETENV
  const char *xdg = secure_getenv("XDG_CACHE_HOME"), *home = secure_getenv("HOME");
#else
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
#endif
  if (xdg != NULL && *xdg == '/')
    return snprintf(out, len, "%s/hopblas", xdg) < (int)len;
  if (home != NULL && *home == '/')
    return snprintf(out, len, "%s/.cache/hopblas", home) < (int)len;
  return false;
}
