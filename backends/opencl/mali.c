/* The mali family: one operand through image2d_t, the other through a
 * buffer, fma() and k stepped by 2 (kernels/gemm_mali.cl, seed 000's
 * Valhall kernel).  Which operand is the image is HOPBLAS_OPENCL_MALI_IMAGE
 * (a, b or both): the seed found that Mali models differ. */
#include <string.h>
#include <strings.h>

#include "image.h"
#include "tune.h"

static const char *const sources[] = {"gemm_image.cl", "gemm_mali.cl", NULL};

static const char *kernel_name(enum hop_ocl_kernel k)
{
  static const char *const names[HOP_OCL_KERNELS] = {
    [HOP_OCL_SGEMM] = "sgemm_mali",
    [HOP_OCL_HGEMM] = "hgemm_mali",
    [HOP_OCL_SHGEMM] = "shgemm_mali",
  };
  return names[k];
}

static void defaults(struct hop_ocl_state *st, struct hop_ocl_imgcfg *c)
{
  (void)st;
  c->tm = 4, c->tn = 4, c->ku = 2;
  c->lx = 16, c->ly = 8;
  c->image[0] = true, c->image[1] = false;
  snprintf(c->tile_why, sizeof c->tile_why, "the seed's micro-tile");
  snprintf(c->image_why, sizeof c->image_why, "texture and load/store units in parallel");
  const char *v = hop_config_get("HOPBLAS_OPENCL_MALI_IMAGE");
  if (v == NULL || *v == '\0' || strcmp(v, "a") == 0)
    return;
  if (strcmp(v, "b") == 0 || strcmp(v, "both") == 0) {
    c->image[0] = strcmp(v, "both") == 0;
    c->image[1] = true;
    snprintf(c->image_why, sizeof c->image_why, "HOPBLAS_OPENCL_MALI_IMAGE=%s", v);
  } else {
    hop_log(1, "HOPBLAS_OPENCL_MALI_IMAGE=%.40s is not a|b|both; using a", v);
  }
}

static bool match(const struct hop_ocl_device *d, char *why, size_t len)
{
  if (strcasestr(d->name, "mali") == NULL && strcasecmp(d->vendor, "arm") != 0)
    return false;
  snprintf(why, len, "device \"%.50s\" (vendor %.24s) is a Mali GPU", d->name, d->vendor);
  return true;
}

static bool setup(struct hop_ocl_state *st, char *why, size_t len)
{
  return hop_ocl_image_setup(st, defaults, why, len);
}

const struct hop_ocl_family hop_ocl_family_mali = {
  .name = "mali",
  .match = match,
  .setup = setup,
  .tuning = &hop_tune_space_mali,
  .sources = sources,
  .options = hop_ocl_image_options,
  .kernel_name = kernel_name,
  .group_items = hop_ocl_image_group_items,
  .enqueue = hop_ocl_image_enqueue,
  .col_grain = hop_ocl_image_col_grain,
  .provide = hop_ocl_image_provide,
  .limits = hop_ocl_image_limits,
  .describe = hop_ocl_image_describe,
  .call_begin = hop_ocl_image_call_begin,
  .note = hop_ocl_image_note,
  .release = hop_ocl_image_release,
};
