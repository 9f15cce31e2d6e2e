/* The adreno family: A and B through image2d_t (kernels/gemm_adreno.cl),
 * 4x8 outputs per work-item and k stepped by 4 as in Qualcomm's matrix
 * multiply (seed 002), its 32x16 work-group.  Qualcomm extensions are used
 * only where the device reports them: cl_qcom_perf_hint asks the driver for
 * its high performance level on our context while it exists. */
#include <string.h>
#include <strings.h>

#include "image.h"
#include "tune.h"

/* cl_qcom_perf_hint (Qualcomm's cl_ext_qcom.h; not in the Khronos headers). */
typedef cl_uint hop_perf_hint_qcom;
#define HOP_PERF_HINT_HIGH_QCOM 0x40C3
typedef cl_int (*set_perf_hint_fn)(cl_context, hop_perf_hint_qcom);

static const char *const sources[] = {"gemm_image.cl", "gemm_adreno.cl", NULL};

static const char *kernel_name(enum hop_ocl_kernel k)
{
  static const char *const names[HOP_OCL_KERNELS] = {
    [HOP_OCL_SGEMM] = "sgemm_adreno",
    [HOP_OCL_HGEMM] = "hgemm_adreno",
    [HOP_OCL_SHGEMM] = "shgemm_adreno",
  };
  return names[k];
}

static void perf_hint(struct hop_ocl_state *st)
{
  const struct hop_ocl_device *d = hop_ocl_device(st);
  if (!hop_ocl_has_extension(d, "cl_qcom_perf_hint")) {
    snprintf(hop_ocl_img_of(st)->qcom, sizeof hop_ocl_img_of(st)->qcom, "none used (cl_qcom_perf_hint not reported)");
    return;
  }
  set_perf_hint_fn set = (set_perf_hint_fn)(uintptr_t)clGetExtensionFunctionAddressForPlatform(
    d->platform, "clSetPerfHintQCOM");
  cl_int err = set != NULL ? set(st->ctx, HOP_PERF_HINT_HIGH_QCOM) : CL_INVALID_OPERATION;
  if (err == CL_SUCCESS)
    snprintf(hop_ocl_img_of(st)->qcom, sizeof hop_ocl_img_of(st)->qcom, "cl_qcom_perf_hint: high performance level");
  else
    snprintf(hop_ocl_img_of(st)->qcom, sizeof hop_ocl_img_of(st)->qcom,
             "cl_qcom_perf_hint reported, but clSetPerfHintQCOM failed (error %d)", (int)err);
}

static void defaults(struct hop_ocl_state *st, struct hop_ocl_imgcfg *c)
{
  c->tm = 4, c->tn = 8, c->ku = 4;
  c->lx = 32, c->ly = 16;
  c->image[0] = c->image[1] = true;
  snprintf(c->tile_why, sizeof c->tile_why, "Qualcomm's micro-tile");
  snprintf(c->image_why, sizeof c->image_why, "texture processor and L1 for both");
  perf_hint(st);
}

static bool match(const struct hop_ocl_device *d, char *why, size_t len)
{
  if (strcasestr(d->name, "adreno") == NULL && strcasestr(d->vendor, "qualcomm") == NULL)
    return false;
  snprintf(why, len, "device \"%.50s\" (vendor %.24s) is an Adreno GPU", d->name, d->vendor);
  return true;
}

static bool setup(struct hop_ocl_state *st, char *why, size_t len)
{
  return hop_ocl_image_setup(st, defaults, why, len);
}

const struct hop_ocl_family hop_ocl_family_adreno = {
  .name = "adreno",
  .match = match,
  .setup = setup,
  .tuning = &hop_tune_space_adreno,
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
