/*
 * resize.h - separable antialiased resampling of RGBX pixels to RGB (internal).
 *
 * The resize step of feed__image_process() (image.h), exposed so that the
 * tests can check it against a float64 reference.
 *
 * Resampling follows PIL's (and torchvision's antialias=True) separable
 * "bilinear": output pixel i of an axis has its centre at
 * b0 + (i + 0.5) * (b1 - b0) / out in source pixel coordinates; the filter is
 * a triangle of radius max(1, scale) (so downscaling is antialiased like an
 * area filter), its weights renormalised over the source pixels that exist.
 * Weights are Q14 fixed point summing to exactly 1 << 14; the vertical pass
 * keeps 7 extra bits, so results are within 1 of the exact float result.
 */
#ifndef FEED_RESIZE_H
#define FEED_RESIZE_H

#include <stddef.h>
#include <stdint.h>

#define FEED_COEF_BITS 14

/* The coefficients of one axis. */
typedef struct feed__axis {
    uint32_t in, out; /* source pixels that exist, outputs */
    uint32_t taps;    /* coefficients per output, padded with zeros */
    uint32_t lo, hi;  /* source pixels used: [lo, hi) */
    int32_t *first;   /* out entries: first source pixel of each output */
    int16_t *coef;    /* out * taps, Q14 */
    int16_t *cvec;    /* RGBX SIMD layout when taps is even (feed__resize_axes builds it
                         on first use): output x's P tap pairs (P = 1, or taps / 2
                         rounded up to even, the extra pairs zero), pair k as 8 int16
                         (c[2k], c[2k+1]) x 4 at (x * P + k) * 8 */
    int cvec_built;
    int16_t *c8;      /* single-channel layout (feed__resize_plane): output x's taps
                         at x * t8, zero-padded to t8 (4, or taps rounded up to 8) */
    uint32_t t8;
    int c8_built;
    double *wbuf;     /* scratch: one output's float weights */
    size_t cap_first, cap_coef, cap_cvec, cap_wbuf, cap_c8;
    double b0, b1;    /* the box these were built for (cache key with in, out) */
    int built;
} feed__axis;

/* Builds (or keeps, if already built for the same arguments) the
 * coefficients for resampling the box [b0, b1) of a source of in pixels to
 * out pixels. 0 <= b0 < b1 <= in. Returns 0 or FEED_E_NOMEM / FEED_E_INVALID. */
int feed__axis_build(feed__axis *a, uint32_t in, double b0, double b1, uint32_t out);
void feed__axis_free(feed__axis *a);

/* Scratch of the separable resize: one intermediate row. */
typedef struct feed__resizer {
    int16_t *row;
    size_t cap;
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
 * src_w x src_h to dst_w x dst_h RGB (builds the axes in xa/ya). */
int feed__resize(feed__resizer *rz, feed__axis *xa, feed__axis *ya, const uint8_t *src,
                 size_t src_stride, uint32_t src_w, uint32_t src_h, double bx0, double by0,
                 double bx1, double by1, uint8_t *dst, size_t dst_stride, uint32_t dst_w,
                 uint32_t dst_h, int hflip);

#endif /* FEED_RESIZE_H */
