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
    }
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
