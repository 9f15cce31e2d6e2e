/* The built-in table: what the lookup chain gives a device nobody has
 * tuned on, after the user cache (tune_select.c).  Entries are data, tried
 * in the order device -> family -> vendor; the first whose family matches
 * and whose parameters parse and fit the device wins, laid over the
 * family's default.  An entry without parameters names the device and
 * keeps the default: it says, in `hopblas info`, that this is known.
 *
 * Device entries match a substring of "CL_DEVICE_NAME CL_DEVICE_VERSION"
 * (Qualcomm reports "Adreno(TM) 640" in the version), vendor entries one
 * of CL_DEVICE_VENDOR, both without regard to case.  Values come from the
 * seeds or from measurements on the device; nothing here is a guess. */
#include <string.h>
#include <strings.h>

#include "tune.h"

enum level { DEVICE, FAMILY, VENDOR };

static const struct entry {
  enum level level;
  const char *family;
  const char *match;  /* device or vendor substring; NULL at the family level */
  const char *params; /* NAME=V,... over the family's default; NULL: the default */
  const char *note;
} table[] = {
  /* Adreno 6xx and 7xx: Qualcomm's matrix multiply keeps a 4 x 8 block of C
   * per work-item and reads both operands through the texture path (seed 002). */
  {DEVICE, "adreno", "Adreno(TM) 6", "TM=4,TN=8", "Adreno 6xx: Qualcomm's 4x8 micro-tile (seed 002)"},
  {DEVICE, "adreno", "Adreno (TM) 6", "TM=4,TN=8", "Adreno 6xx: Qualcomm's 4x8 micro-tile (seed 002)"},
  {DEVICE, "adreno", "Adreno(TM) 7", "TM=4,TN=8", "Adreno 7xx: Qualcomm's 4x8 micro-tile (seed 002)"},
  {DEVICE, "adreno", "Adreno (TM) 7", "TM=4,TN=8", "Adreno 7xx: Qualcomm's 4x8 micro-tile (seed 002)"},
  /* Mali Valhall (G57, G68, G77, G78, G310 ... G715): a 4 x 4 block per item
   * with fma, k by 2, A as a texture and B as a buffer; the FMA unit does 16
   * lanes per cycle, so 16 items along x fill one warp (seed 000). */
  {DEVICE, "mali", "Mali-G57", "TM=4,TN=4,LX=16", "Mali Valhall: 4x4 fma tile, a 16-wide warp (seed 000)"},
  {DEVICE, "mali", "Mali-G68", "TM=4,TN=4,LX=16", "Mali Valhall: 4x4 fma tile, a 16-wide warp (seed 000)"},
  {DEVICE, "mali", "Mali-G77", "TM=4,TN=4,LX=16", "Mali Valhall: 4x4 fma tile, a 16-wide warp (seed 000)"},
  {DEVICE, "mali", "Mali-G78", "TM=4,TN=4,LX=16", "Mali Valhall: 4x4 fma tile, a 16-wide warp (seed 000)"},
  {DEVICE, "mali", "Mali-G310", "TM=4,TN=4,LX=16", "Mali Valhall: 4x4 fma tile, a 16-wide warp (seed 000)"},
  {DEVICE, "mali", "Mali-G510", "TM=4,TN=4,LX=16", "Mali Valhall: 4x4 fma tile, a 16-wide warp (seed 000)"},
  {DEVICE, "mali", "Mali-G610", "TM=4,TN=4,LX=16", "Mali Valhall: 4x4 fma tile, a 16-wide warp (seed 000)"},
  {DEVICE, "mali", "Mali-G710", "TM=4,TN=4,LX=16", "Mali Valhall: 4x4 fma tile, a 16-wide warp (seed 000)"},
  {DEVICE, "mali", "Mali-G615", "TM=4,TN=4,LX=16", "Mali Valhall: 4x4 fma tile, a 16-wide warp (seed 000)"},
  {DEVICE, "mali", "Mali-G715", "TM=4,TN=4,LX=16", "Mali Valhall: 4x4 fma tile, a 16-wide warp (seed 000)"},
  /* NVIDIA H200, driver 580.159.04: the winner of `hopblas tune` (240 s) at
   * n = 8192 and, with VWN=2, at 4096: 25.0 TFLOPS against the GPU default's
   * 15.3 at 8192, kernel alone on resident operands (doc/PERFORMANCE.md). */
  {DEVICE, "generic", "H200", "MWG=64,NWG=128,KWG=32,MDIMC=8,NDIMC=16,VWM=8,VWN=4,VWL=4",
   "NVIDIA H200: measured by hopblas tune (25.0 vs 15.3 TFLOPS at n=8192)"},
};

static bool matches(const struct hop_ocl_state *st, const struct entry *e)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  if (strcmp(e->family, st->family->name) != 0)
    return false;
  if (e->level == FAMILY)
    return true;
  if (e->level == VENDOR)
    return strcasestr(d->vendor, e->match) != NULL;
  return strcasestr(d->name, e->match) != NULL || strcasestr(d->version, e->match) != NULL;
}

bool hop_tune_table_lookup(const struct hop_ocl_state *st, const struct hop_tune_space *s,
                           struct hop_tune_point *p, char *note, size_t len)
{
  for (enum level lv = DEVICE; lv <= VENDOR; lv++)
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
      const struct entry *e = &table[i];
      if (e->level != lv || !matches(st, e))
        continue;
      struct hop_tune_point q = *p;
      char why[120] = "";
      if (e->params != NULL &&
          (!hop_tune_point_parse(s, e->params, &q) || !s->fits(st, &q, why, sizeof why))) {
        hop_log(2, "opencl: built-in entry \"%s\" does not apply here (%s)", e->note,
                why[0] ? why : "unknown parameter");
        continue;
      }
      *p = q;
      snprintf(note, len, "built-in table: %s", e->note);
      return true;
    }
  return false;
}
