/*
 * resize_axis.h - the coefficients of one axis of the resize (resize.h):
 * which source pixels each output reads, with which weights (internal;
 * resize_kernels.h reads them too).
 *
 * Output pixel i of an axis has its centre at b0 + (i + 0.5) * (b1 - b0) / out
 * in source pixel coordinates. The filter is PIL's (and torchvision's
 * antialias=True): a triangle of radius 1 (bilinear) or Keys' cubic with
 * a = -0.5 and radius 2 (bicubic), stretched by scale = (b1 - b0) / out when
 * that is over 1 (so downscaling is antialiased), its weights renormalised
 * over the source pixels that exist. Weights are Q14 fixed point summing to
 * exactly 1 << FEED_COEF_BITS; bicubic's outer lobes are negative.
 */
#ifndef FEED_RESIZE_AXIS_H
#define FEED_RESIZE_AXIS_H

#include <stddef.h>
#include <stdint.h>

#define FEED_COEF_BITS 14

/* The resize filters (feed__xform.bicubic is the filter's number). */
enum { FEED__FILTER_BILINEAR = 0, FEED__FILTER_BICUBIC = 1 };

/* The coefficients of one axis. */
typedef struct feed__axis {
    uint32_t in, out; /* source pixels that exist, outputs */
    uint32_t taps;    /* coefficients per output, padded with zeros */
    uint32_t filter;  /* FEED__FILTER_* */
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
    double b0, b1;    /* the box these were built for (cache key with in, out, filter) */
    int built;
} feed__axis;

/* Builds (or keeps, if already built for the same arguments) the
 * coefficients for resampling the box [b0, b1) of a source of in pixels to
 * out pixels with filter (FEED__FILTER_*). 0 <= b0 < b1 <= in. Returns 0 or
 * FEED_E_NOMEM / FEED_E_INVALID. */
int feed__axis_build(feed__axis *a, uint32_t in, double b0, double b1, uint32_t out,
                     uint32_t filter);
void feed__axis_free(feed__axis *a);

#endif /* FEED_RESIZE_AXIS_H */
