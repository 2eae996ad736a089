/*
 * xform.c - the fixed transform of a loader (xform.h): made
 * from the options, and the one rule set for it. Apart from pipeline.c so that
 * the parent, which checks the options at create, does not carry the
 * decoders: libfeed.so links no codec, feed-worker does (ctest layers).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "feed.h"
#include "pixels/xform.h"

void feed__xform_from_options(feed__xform *x, const feed_options *o)
{
    memset(x, 0, sizeof *x);
    x->out_h = o->height;
    x->out_w = o->width;
    x->mode = o->augment;
    x->resize_shorter = o->resize_shorter;
    x->scale_min = o->scale_min, x->scale_max = o->scale_max;
    x->ratio_min = o->ratio_min, x->ratio_max = o->ratio_max;
    x->flip_p = o->augment == FEED_AUGMENT_TRAIN ? o->flip_p : 0;
    x->rotate_deg = o->rotate_deg;
    x->fill[0] = (uint8_t)(o->fill >> 16), x->fill[1] = (uint8_t)(o->fill >> 8);
    x->fill[2] = (uint8_t)o->fill;
    x->brightness = o->brightness, x->contrast = o->contrast;
    x->saturation = o->saturation, x->hue = o->hue;
    x->grayscale_p = o->grayscale_p;
    x->exif = o->exif;
    x->roi_decode = o->roi_decode;
    x->jpeg_entropy = o->jpeg_entropy;
    x->max_pixels = o->max_pixels;
    x->max_memory = o->max_worker_memory; /* resolved by feed__options_validate */
    x->bicubic = o->interpolation == FEED_INTERP_BICUBIC;
    x->policy = o->augment == FEED_AUGMENT_TRAIN ? o->auto_augment : FEED_POLICY_NONE;
    x->aa_num_ops = o->aa_num_ops;
    x->aa_num_bins = o->aa_num_bins;
    x->aa_inc = o->aa_inc;
    x->aa_interp = o->aa_interpolation;
    x->aa_magnitude = o->aa_magnitude;
    x->aa_mstd = o->aa_mstd;
    x->aa_fill[0] = (uint8_t)(o->aa_fill >> 16), x->aa_fill[1] = (uint8_t)(o->aa_fill >> 8);
    x->aa_fill[2] = (uint8_t)o->aa_fill;
    x->erase_p = o->augment == FEED_AUGMENT_TRAIN ? o->erase_p : 0;
    x->erase_scale_min = o->erase_scale_min, x->erase_scale_max = o->erase_scale_max;
    x->erase_ratio_min = o->erase_ratio_min, x->erase_ratio_max = o->erase_ratio_max;
    memcpy(x->erase_value, o->erase_value, sizeof x->erase_value);
    x->erase_random = o->erase_random;
}

#define XREQUIRE(cond, ...)                         \
    do {                                            \
        if (!(cond)) {                              \
            if (err && errlen)                      \
                snprintf(err, errlen, __VA_ARGS__); \
            return -1;                              \
        }                                           \
    } while (0)

int feed__xform_check(const feed__xform *x, char *err, size_t errlen)
{
    XREQUIRE(x, "no transform");
    XREQUIRE(x->out_h >= 1 && x->out_w >= 1 && x->out_h <= FEED_MAX_SIDE && x->out_w <= FEED_MAX_SIDE,
             "height=%u width=%u must be in 1..%u", x->out_h, x->out_w, FEED_MAX_SIDE);
    XREQUIRE(x->mode <= FEED_AUGMENT_TRAIN, "augment=%u unknown (none|val|train, 0..2)", x->mode);
    /* A shorter side below the crop is fine: the crop is padded with fill,
     * as torchvision's CenterCrop pads. */
    XREQUIRE(x->mode != FEED_AUGMENT_VAL || x->resize_shorter >= 1,
             "resize_shorter=0 must be >= 1 with augment=val (the shorter side before the crop)");
    if (x->mode == FEED_AUGMENT_TRAIN) { /* what only RandomResizedCrop and the jitter use */
        XREQUIRE(x->scale_min > 0 && x->scale_min <= x->scale_max && x->scale_max <= 1.0f,
                 "need 0 < scale_min <= scale_max <= 1 (got scale_min=%g, scale_max=%g)", x->scale_min,
                 x->scale_max);
        XREQUIRE(x->ratio_min > 0 && x->ratio_min <= x->ratio_max && isfinite(x->ratio_max),
                 "need 0 < ratio_min <= ratio_max, both finite (got ratio_min=%g, ratio_max=%g)",
                 x->ratio_min, x->ratio_max);
        XREQUIRE(x->flip_p >= 0 && x->flip_p <= 1, "flip_p=%g must be in [0, 1]", x->flip_p);
        XREQUIRE(x->grayscale_p >= 0 && x->grayscale_p <= 1, "grayscale_p=%g must be in [0, 1]",
                 x->grayscale_p);
        XREQUIRE(x->rotate_deg >= 0 && x->rotate_deg <= 180, "rotate_deg=%g must be in [0, 180]",
                 x->rotate_deg);
        const float jit[3] = {x->brightness, x->contrast, x->saturation};
        static const char *const jname[3] = {"brightness", "contrast", "saturation"};
        for (int k = 0; k < 3; k++)
            XREQUIRE(jit[k] >= 0 && isfinite(jit[k]), "%s=%g must be a finite number >= 0 (0 = off)",
                     jname[k], jit[k]);
        XREQUIRE(x->hue >= 0 && x->hue <= 0.5f, "hue=%g must be in [0, 0.5]", x->hue);
        XREQUIRE(x->policy <= FEED_POLICY_AUTO,
                 "auto_augment=%u unknown (none|trivialaugment|randaugment|autoaugment, 0..3)", x->policy);
        if (x->policy != FEED_POLICY_NONE) {
            XREQUIRE(x->aa_num_ops >= 1 && x->aa_num_ops <= 16, "aa_num_ops=%u must be in 1..16",
                     x->aa_num_ops);
            XREQUIRE(x->aa_num_bins >= 2 && x->aa_num_bins <= 1000, "aa_num_bins=%u must be in 2..1000",
                     x->aa_num_bins);
            XREQUIRE(x->aa_magnitude >= 0 && x->aa_magnitude <= (float)(x->aa_num_bins - 1),
                     "aa_magnitude=%g must be in [0, aa_num_bins - 1 = %u]", x->aa_magnitude,
                     x->aa_num_bins - 1);
            XREQUIRE(x->aa_mstd >= 0 && x->aa_mstd <= 100, "aa_mstd=%g must be in [0, 100] (0 = no noise)",
                     x->aa_mstd);
            XREQUIRE(x->aa_inc <= 1, "aa_inc=%u must be 0 or 1", x->aa_inc);
            XREQUIRE(x->aa_interp == FEED_INTERP_NEAREST || x->aa_interp == FEED_INTERP_BILINEAR,
                     "aa_interpolation=%u unknown (nearest|bilinear)", x->aa_interp);
        }
        XREQUIRE(x->erase_p >= 0 && x->erase_p <= 1, "erase_p=%g must be in [0, 1]", x->erase_p);
        if (x->erase_p > 0) {
            XREQUIRE(x->erase_scale_min > 0 && x->erase_scale_min <= x->erase_scale_max &&
                         x->erase_scale_max <= 1.0f,
                     "need 0 < erase_scale_min <= erase_scale_max <= 1 (got %g, %g)", x->erase_scale_min,
                     x->erase_scale_max);
            XREQUIRE(x->erase_ratio_min > 0 && x->erase_ratio_min <= x->erase_ratio_max &&
                         isfinite(x->erase_ratio_max),
                     "need 0 < erase_ratio_min <= erase_ratio_max, both finite (got %g, %g)",
                     x->erase_ratio_min, x->erase_ratio_max);
            for (int k = 0; k < 3; k++)
                XREQUIRE(isfinite(x->erase_value[k]), "erase_value: %g must be a finite number",
                         x->erase_value[k]);
            XREQUIRE(x->erase_random <= 1, "erase_random=%u must be 0 or 1", x->erase_random);
        }
    }
    XREQUIRE(x->bicubic <= 1, "bicubic=%u must be 0 or 1", x->bicubic);
    XREQUIRE(x->exif <= 1 && x->roi_decode <= 1, "exif=%u roi_decode=%u must be 0 or 1", x->exif,
             x->roi_decode);
    XREQUIRE(x->jpeg_entropy <= FEED_JPEG_ENTROPY_LIBJPEG,
             "jpeg_entropy=%u unknown (auto|libfeed|libjpeg, 0..2)", x->jpeg_entropy);
    /* FEED_OWN_ENTROPY: the build's verdict on libjpeg-turbo's private ABI
     * (third_party/libjpeg-turbo.cmake, decode/jpeg_abi.h), on every object. */
    XREQUIRE(FEED_OWN_ENTROPY || x->jpeg_entropy != FEED_JPEG_ENTROPY_LIBFEED,
             "%s", FEED__ENTROPY_COMPILED_OUT_MSG);
    XREQUIRE(x->max_pixels >= 1, "max_pixels=0 must be >= 1 (width*height)");
    return 0;
}
#undef XREQUIRE
