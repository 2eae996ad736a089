/*
 * augops.h - the ops of the policy augmentations (pixels/policy.h) on a uint8
 * HWC RGB image, in place, each as torchvision.transforms.v2.functional
 * defines it for a uint8 tensor: the same float32 arithmetic in the same
 * order, so that the pixel functions (posterize, solarize, autocontrast,
 * equalize, invert) are exact and the others within the bounds that
 * python/tests/test_torchvision_ops.py states and checks.
 *
 * Each op takes the argument of torchvision's functional (a factor, a bit
 * count, a threshold, an angle), not a policy's magnitude bin: the policy
 * turns a bin into that argument (policy.c).
 */
#ifndef FEED_PIXELS_AUGOPS_H
#define FEED_PIXELS_AUGOPS_H

#include <stddef.h>
#include <stdint.h>

/* The ops; their order is the policies' tables' (policy.c) and the test
 * tool's names (feed__aug_name). */
enum {
    FEED__AUG_IDENTITY = 0,
    FEED__AUG_SHEAR_X,      /* arg: shear factor s (x' = x + s * y about the top-left corner) */
    FEED__AUG_SHEAR_Y,      /* arg: shear factor s (y' = y + s * x about the top-left corner) */
    FEED__AUG_TRANSLATE_X,  /* arg: pixels, + moves the content right */
    FEED__AUG_TRANSLATE_Y,  /* arg: pixels, + moves the content down */
    FEED__AUG_ROTATE,       /* arg: degrees counter-clockwise about the centre */
    FEED__AUG_BRIGHTNESS,   /* arg: factor (adjust_brightness) */
    FEED__AUG_COLOR,        /* arg: factor (adjust_saturation) */
    FEED__AUG_CONTRAST,     /* arg: factor (adjust_contrast) */
    FEED__AUG_SHARPNESS,    /* arg: factor (adjust_sharpness) */
    FEED__AUG_POSTERIZE,    /* arg: bits kept, 0..8 */
    FEED__AUG_SOLARIZE,     /* arg: threshold in 0..255: values >= it are inverted */
    FEED__AUG_AUTOCONTRAST, /* no arg */
    FEED__AUG_EQUALIZE,     /* no arg */
    FEED__AUG_INVERT,       /* no arg */
    FEED__AUG_SOLARIZE_ADD, /* arg: added to values < 128, saturating (timm's SolarizeAdd) */
    FEED__AUG_OPS
};

/* The op's name ("ShearX", torchvision's transform id), or NULL. */
const char *feed__aug_name(uint32_t op);
/* The op named name, or FEED__AUG_OPS. */
uint32_t feed__aug_by_name(const char *name);

/*
 * Applies op with argument arg to img (h rows of w RGB pixels, w, h >= 1).
 * The geometric ops sample with interp (FEED_INTERP_NEAREST or
 * FEED_INTERP_BILINEAR) and fill what they uncover with fill, as
 * torchvision's fill=[r, g, b]; they need scratch of w * h * 3 bytes (the
 * others do not touch it). No allocation.
 */
void feed__aug_apply(uint32_t op, double arg, uint8_t *img, uint32_t w, uint32_t h, uint32_t interp,
                     const uint8_t fill[3], uint8_t *scratch);

#endif
