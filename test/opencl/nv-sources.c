/* The nvidia family's program sources, assembled as the library builds
 * them (nvidia.c), written out so that nv-sources.test can build each one:
 *
 *   nv-sources DIR
 *
 * For every setting of the family (PTX or its emulation; FMA or 3xTF32
 * sgemm; tensor cores or fma.rn.f16x2 for hgemm), each program becomes
 * DIR/MODE-NAME.cl, and one line "MODE NAME OPTIONS" on stdout. */
#include <stdio.h>
#include <stdlib.h>

#include "nvidia.h"

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: nv-sources DIR\n");
    return 2;
  }
  for (int setting = 0; setting < 8; setting++) {
    struct hop_ocl_nv nv = {.emulate = setting & 1, .tf32 = setting >> 1 & 1,
                            .f16x2 = setting >> 2 & 1};
    const char *mode = nv.emulate ? "emu" : "ptx";
    struct hop_ocl_unit_spec spec[HOP_OCL_UNITS];
    int n = hop_ocl_nv_unit_specs(&nv, spec);
    for (int u = 0; u < n; u++) {
      char why[200] = "", path[512];
      char *src = hop_ocl_source_join(spec[u].sources, why, sizeof why);
      snprintf(path, sizeof path, "%s/%s-%s.cl", argv[1], mode, spec[u].name);
      FILE *f = src != NULL ? fopen(path, "w") : NULL;
      if (f == NULL || fputs(src, f) == EOF || fclose(f) != 0) {
        fprintf(stderr, "nv-sources: %s: %s\n", path, src == NULL ? why : "cannot write");
        return 1;
      }
      free(src);
      printf("%s %s %s\n", mode, spec[u].name, spec[u].options);
    }
  }
  return 0;
}
