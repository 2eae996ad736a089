/*
 * resize.h - separable antialiased resampling of RGBX pixels to RGB (internal).
 *
 * The resize step of feed__image_process() (pixels/pipeline.h), exposed so
 * that the tests can check it against a float64 reference.
 *
 * Resampling follows PIL's (and torchvision's antialias=True) separable
 * "bilinear" or "bicubic", with each axis's Q14 weights from resize_axis.h
 * (the axes' filter).
 *
 * Bilinear: the vertical pass first, keeping 7 extra bits, so results are
 * within 1 of the exact float result (its weights are non-negative: no sum
 * leaves 0..255, and the order of the passes does not matter).
 *
 * Bicubic: torchvision's order, because its negative lobes overshoot 0..255
 * on sharp edges and torchvision clamps the intermediate: the horizontal
 * pass first, over every source row used, into an intermediate image of
 * bytes (rounded and clamped to 0..255, as torch's uint8 one), then the
 * vertical pass (clamped, rounded to bytes). Within 2 levels of torchvision,
 * more than 1 for under 1e-4 of the values: the two quantise the weights
 * differently, so an intermediate byte can round the other way
 * (python/tests/test_torchvision_resize.py).
 */
#ifndef FEED_RESIZE_H
#define FEED_RESIZE_H

#include <stddef.h>
#include <stdint.h>

#include "pixels/resize_axis.h"

/* Scratch of the separable resize: intermediate rows (Q7), and bicubic's
 * intermediate image (bytes). */
typedef struct feed__resizer {
    int16_t *row;
    size_t cap;
    uint8_t *mid;
    size_t mid_cap;
} feed__resizer;

void feed__resizer_free(feed__resizer *rz);

/* Which resize kernels run: -1 (default) the best this CPU has, 0 portable C,
 * 1 SSE2, 2 AVX2 (x86-64 only). All give identical bytes; for tests. */
extern int feed__resize_simd;

/*
 * Resamples with prebuilt axes (xa's RGBX coefficient layout is built on
 * first use): src is RGBX (4 bytes a pixel); its pixel
 * (0, 0) is source pixel (xa->lo, ya->lo) of the axes, and it holds at least
 * [lo, hi) of each. Writes ya->out rows of xa->out RGB pixels to dst; with
 * hflip each row is written mirrored. Returns 0 or FEED_E_NOMEM.
 */
int feed__resize_axes(feed__resizer *rz, feed__axis *xa, const feed__axis *ya,
                      const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                      int hflip);

/*
 * One plane (a byte a sample: a JPEG component) with prebuilt axes: src is
 * sample (xa->lo, ya->lo), and each row it reads must be readable up to 64
 * bytes past hi (the SIMD vertical passes take whole blocks; what they read
 * there gets weight 0); writes ya->out rows of xa->out samples to dst,
 * mirrored with hflip. Each sample gets the arithmetic of one RGBX channel
 * in feed__resize_axes(). Builds xa's single-channel coefficients on first
 * use. Returns 0 or FEED_E_NOMEM.
 */
int feed__resize_plane(feed__resizer *rz, feed__axis *xa, const feed__axis *ya,
                       const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                       int hflip);

/* One-shot resize of the box [bx0, bx1) x [by0, by1) of an RGBX image of
 * src_w x src_h to dst_w x dst_h RGB with filter (FEED__FILTER_*; builds the
 * axes in xa/ya). */
int feed__resize(feed__resizer *rz, feed__axis *xa, feed__axis *ya, const uint8_t *src,
                 size_t src_stride, uint32_t src_w, uint32_t src_h, double bx0, double by0,
                 double bx1, double by1, uint8_t *dst, size_t dst_stride, uint32_t dst_w,
                 uint32_t dst_h, int hflip, uint32_t filter);

#endif /* FEED_RESIZE_H */
