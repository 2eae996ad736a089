/*
 * ycc.h - JPEG (JFIF) YCbCr planes to RGB pixels, and greyscale to RGB
 * (internal): the last step of the planar pipeline (pipeline.c), run on the
 * resized output only.
 *
 * R = Y + 1.402 (Cr - 128), G = Y - 0.344136 (Cb - 128) - 0.714136 (Cr - 128),
 * B = Y + 1.772 (Cb - 128): each fractional factor in Q15 and its product
 * rounded as pmulhrsw rounds ((c * k + 2^14) >> 15), then clamped to 0..255;
 * within 1 of the exact conversion. The portable loop and the SSSE3 one
 * (picked at run time) do the same integer arithmetic, so they give
 * identical bytes (tests/test_augment.c checks both).
 */
#ifndef FEED_YCC_H
#define FEED_YCC_H

#include <stddef.h>
#include <stdint.h>

/* w x h samples of each plane (rows stride apart) to RGB rows of dst. */
void feed__ycc_to_rgb(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, size_t stride,
                      uint32_t w, uint32_t h, uint8_t *dst, size_t dst_stride);

/* w x h grey samples to RGB (R = G = B). */
void feed__grey_to_rgb(const uint8_t *y, size_t stride, uint32_t w, uint32_t h, uint8_t *dst,
                       size_t dst_stride);

/* Which loop runs: -1 (default) the best this CPU has, 0 portable, 1 SSSE3.
 * For tests and side-by-side runs. */
extern int feed__ycc_simd;

#endif /* FEED_YCC_H */
