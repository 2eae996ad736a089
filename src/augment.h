/*
 * augment.h - geometric and colour operations on decoded pixels (internal).
 *
 * The building blocks of feed__image_process() (image.h), exposed so that the
 * tests can check each one against a float64 reference. The resize is in
 * resize.h.
 */
#ifndef FEED_AUGMENT_H
#define FEED_AUGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "resize.h"
#include "rng.h"

/*
 * EXIF orientation o (1..8) plus an optional horizontal flip applied after
 * it, as one copy. src is the image as stored (sw x sh, RGB); dst is
 * dw x dh = the displayed size (sh x sw for o >= 5). Exact (a permutation).
 */
void feed__orient_copy(const uint8_t *src, size_t src_stride, uint32_t sw, uint32_t sh,
                       uint32_t o, int hflip, uint8_t *dst, size_t dst_stride);

/*
 * Rotates an RGB image of w x h by deg degrees counter-clockwise about its
 * centre ((w-1)/2, (h-1)/2), same size out, bilinear, source pixels outside
 * the image taken as fill[3] (torchvision's rotate with a fill). Output pixel
 * (x, y) samples source (cx + c*dx - s*dy, cy + s*dx + c*dy) with dx = x - cx,
 * dy = y - cy, c = cos, s = sin; sampling positions are Q16 fixed point, so
 * multiples of 90 degrees are exact permutations. src and dst must not overlap.
 */
void feed__rotate(const uint8_t *src, uint8_t *dst, uint32_t w, uint32_t h, double deg,
                  const uint8_t fill[3]);

/* Colour operations on RGB in place, n pixels. Factors as in torchvision's
 * ColorJitter: 1 = unchanged; hue is a shift in turns, in [-0.5, 0.5]. */
void feed__adjust_brightness(uint8_t *p, size_t n, double f);
void feed__adjust_contrast(uint8_t *p, size_t n, double f);
void feed__adjust_saturation(uint8_t *p, size_t n, double f);
void feed__adjust_hue(uint8_t *p, size_t n, double h);
void feed__to_grayscale(uint8_t *p, size_t n);
/* ITU-R 601 luma of one pixel, as PIL's convert("L"). */
static inline uint8_t feed__luma(uint32_t r, uint32_t g, uint32_t b)
{
    return (uint8_t)((r * 19595u + g * 38470u + b * 7471u + 0x8000u) >> 16);
}

/* RandomResizedCrop's box, exactly as torchvision's get_params defines it,
 * drawing from r: top i, left j, size h x w, all inside H x W. Returns 1 if
 * one of the 10 attempts succeeded, 0 for the center-crop fallback. */
int feed__rrc_box(feed__rng *r, uint32_t W, uint32_t H, double scale_min, double scale_max,
                  double ratio_min, double ratio_max, uint32_t *i, uint32_t *j, uint32_t *h,
                  uint32_t *w);

#endif /* FEED_AUGMENT_H */
