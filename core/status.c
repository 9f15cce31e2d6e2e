/* Internal status codes and their messages: the second error channel
 * (argument errors go through xerbla instead). */
#include "hop.h"

static const char *const messages[HOP_STATUS_COUNT] = {
  [HOP_OK] = "success",
  [HOP_DECLINED] = "engine declined the call",
  [HOP_UNAVAILABLE] = "engine unavailable",
  [HOP_ERR_NOMEM] = "host memory allocation failed",
  [HOP_ERR_DEVICE] = "device operation failed",
  [HOP_ERR_BUILD] = "kernel build failed",
  [HOP_ERR_DEVMEM] = "device memory allocation failed",
  [HOP_ERR_CONFIG] = "invalid configuration value",
  [HOP_ERR_CACHE] = "cache content rejected",
  [HOP_ERR_INTERNAL] = "internal error",
};

const char *hop_status_message(enum hop_status st)
{
  if ((unsigned)st >= HOP_STATUS_COUNT || messages[st] == NULL)
    return "unknown status";
  return messages[st];
}
