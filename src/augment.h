/*
 * augment.h - colour operations on decoded pixels (internal).
 *
 * The building blocks of feed__image_process() (image.h), exposed so that the
 * tests can check each one against a float64 reference. The resize is in
 * resize.h, the geometry in geometry.h.
 */
#ifndef FEED_AUGMENT_H
#define FEED_AUGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "geometry.h"
#include "resize.h"
#include "rng.h"

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

#endif /* FEED_AUGMENT_H */
