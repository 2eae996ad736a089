/*
 * colour.h - colour operations on RGB pixels in place (internal): the
 * adjustments of torchvision's ColorJitter, its random order, greyscale.
 *
 * The building blocks of feed__image_process() (pixels/pipeline.h), exposed so that the
 * tests can check each one against a float64 reference.
 */
#ifndef FEED_COLOUR_H
#define FEED_COLOUR_H

#include <stddef.h>
#include <stdint.h>

#include "common/rng.h"

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

/*
 * torchvision's ColorJitter on n RGB pixels in place: draws the order of the
 * four adjustments, then the factor of each one that is on (> 0: brightness,
 * contrast, saturation uniform in [max(0, 1 - v), 1 + v], hue in
 * [-min(v, 0.5), min(v, 0.5)]) from r, and applies them in that order. The
 * strengths are the transform's floats on purpose: 1 - v and 1 + v are float
 * sums, so a sample's factors (and bytes) are the ones earlier versions drew.
 */
void feed__colour_jitter(uint8_t *p, size_t n, feed__rng *r, float brightness, float contrast,
                         float saturation, float hue);

#endif /* FEED_COLOUR_H */
