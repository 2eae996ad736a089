/*
 * resize_kernels.h - the row kernels behind feed__resize_axes() (resize.c),
 * one file per instruction set: portable C in resize.c, resize_sse2.c,
 * resize_avx2.c, resize_avx512.c. Only the resize files include this.
 *
 * A vertical pass turns T source rows (RGBX bytes, coefficients c, Q14) into
 * one row of n Q7 int16, clamped to [0, FEED_Q7_MAX]; a horizontal pass turns
 * such a row into xa->out RGB pixels, mirrored with flip, reading pixel x's
 * window at (first[x] - off) * 4, clamped to 0..255. Every kernel does the
 * same integer arithmetic, so every level gives identical bytes
 * (tests/test_augment.c and tests/test_resize_bicubic.c run all of them).
 *
 * Ranges: bilinear weights are non-negative, so both passes stay in range on
 * their own. Bicubic's negative lobes take a sum to about [-0.125, 1.125] x
 * 255, past int16 in Q7: the vertical pass clamps (in the SIMD passes packs'
 * saturation, then min/max, only for rows with a negative weight), the
 * horizontal one clamps its bytes. The horizontal sums, Q7 values times Q14 weights
 * whose absolute values add up to under 1.3, stay far inside int32. (resize.c
 * runs bicubic's horizontal pass first, on rows widened to Q7, and the
 * vertical one on its bytes.)
 */
#ifndef FEED_RESIZE_KERNELS_H
#define FEED_RESIZE_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pixels/resize_axis.h"

/* Tap pairs per output in cvec: 1, or the pairs rounded up to even so that
 * the AVX2 horizontal pass reads whole 256-bit blocks (two pairs each). */
static inline uint32_t feed__cvec_pairs(uint32_t taps)
{
    uint32_t pairs = taps / 2;
    return pairs <= 1 ? pairs : (pairs + 1) & ~1u;
}

/* The largest intermediate value: 255 in Q7. */
#define FEED_Q7_MAX (255 << 7)

/* The SIMD vertical passes take at most this many tap pairs; more (a
 * bilinear shrink of over about 7x, a bicubic one of over about 3.5x) goes
 * to the portable one. */
#define FEED_VPASS_MAX_PAIRS 8

/* Row pointers and coefficient pairs of a SIMD vertical pass (odd T: the last
 * pair repeats its row with weight 0). */
typedef struct feed__vrows {
    const uint8_t *r0[FEED_VPASS_MAX_PAIRS], *r1[FEED_VPASS_MAX_PAIRS];
    int32_t cp[FEED_VPASS_MAX_PAIRS];
    uint32_t pairs;
    int neg; /* a negative coefficient: the sums may leave 0..255 (else clamping is a no-op) */
} feed__vrows;

/* Fills v for T taps; 0 if T needs more than FEED_VPASS_MAX_PAIRS pairs (the
 * caller then runs the portable pass). */
static inline int feed__vpass_setup(feed__vrows *v, const uint8_t *s, size_t stride,
                                    const int16_t *c, uint32_t T)
{
    v->pairs = (T + 1) / 2;
    if (v->pairs > FEED_VPASS_MAX_PAIRS)
        return 0;
    v->neg = 0;
    for (uint32_t t = 0; t < T; t++)
        v->neg |= c[t] < 0;
    for (uint32_t k = 0; k < v->pairs; k++) {
        uint32_t t = 2 * k;
        v->r0[k] = s + (size_t)t * stride;
        v->r1[k] = t + 1 < T ? v->r0[k] + stride : v->r0[k];
        v->cp[k] = (int32_t)((uint32_t)(uint16_t)c[t] |
                             (uint32_t)(uint16_t)(t + 1 < T ? c[t + 1] : 0) << 16);
    }
    return 1;
}

/* Stores one RGB pixel v (as 4 packed bytes) at d. Not last: all 4 bytes, the
 * 4th being the next pixel's, which the SIMD passes write after this one. */
static inline void feed__put_rgb(uint8_t *d, uint32_t v, int last)
{
    if (!last) {
        memcpy(d, &v, 4);
    } else {
        d[0] = (uint8_t)v;
        d[1] = (uint8_t)(v >> 8);
        d[2] = (uint8_t)(v >> 16);
    }
}

/* Portable C (resize_c.c); any taps. */
void feed__vpass_c(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
                   const int16_t *restrict c, uint32_t n, uint32_t T);
void feed__hpass_c(uint8_t *restrict d, int flip, const int16_t *restrict s,
                   const feed__axis *xa, int32_t off);
/* One plane's horizontal pass (a sample an output), outputs [from, out). */
void feed__hpass1_c(uint8_t *restrict d, int flip, const int16_t *restrict s, const feed__axis *xa,
                    int32_t off, uint32_t from);

#if defined(__SSE2__)
/* SSE2 (resize_sse2.c); the horizontal pass needs even taps. */
void feed__vpass_sse2(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
                      const int16_t *restrict c, uint32_t n, uint32_t T);
void feed__hpass_sse2(uint8_t *restrict d, int flip, const int16_t *restrict s,
                      const feed__axis *xa, int32_t off);
/* One plane's horizontal pass, four outputs a step; reads xa->t8 taps a
 * window (the c8 layout), so up to t8 - 1 samples past hi. */
void feed__hpass1_sse2(uint8_t *restrict d, int flip, const int16_t *restrict s,
                       const feed__axis *xa, int32_t off);

/* AVX2 (resize_avx2.c), only where the CPU has it; the horizontal pass needs
 * even taps and does rows a and b at once (da == db, sa == sb: one row). */
void feed__vpass_avx2(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
                      const int16_t *restrict c, uint32_t n, uint32_t T);
void feed__hpass_avx2(uint8_t *da, uint8_t *db, int flip, const int16_t *sa, const int16_t *sb,
                      const feed__axis *xa, int32_t off);
/* One plane's horizontal pass, AVX2, rows a and b at once (da == db, sa ==
 * sb: one row); reads t8 taps a window like the SSE2 one. */
void feed__hpass1_avx2(uint8_t *da, uint8_t *db, int flip, const int16_t *sa, const int16_t *sb,
                       const feed__axis *xa, int32_t off);

/* AVX-512 BW (resize_avx512.c), only where the CPU has it: the vertical pass
 * (the horizontal one is AVX2's). */
void feed__vpass_avx512(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
                        const int16_t *restrict c, uint32_t n, uint32_t T);
#endif

#endif /* FEED_RESIZE_KERNELS_H */
