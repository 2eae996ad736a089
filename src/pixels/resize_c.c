/*
 * resize_c.c - the portable passes of the resize (resize_kernels.h): the
 * reference every SIMD level must equal bit for bit (test_augment's
 * test_resize_levels_identical), the path where no SIMD level is there
 * (feed__resize_simd 0), and the tails the SIMD kernels hand back to C.
 */
#include <stddef.h>
#include <stdint.h>

#include "common/pixel.h"
#include "pixels/resize_kernels.h"

/* Vertical pass, portable: T source rows -> one Q7 row of n int16. */
void feed__vpass_c(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
                   const int16_t *restrict c, uint32_t n, uint32_t T)
{
    for (uint32_t i = 0; i < n; i++) {
        int32_t a = 1 << 6;
        for (uint32_t k = 0; k < T; k++)
            a += c[k] * s[(size_t)k * stride + i];
        a >>= 7;
        d[i] = (int16_t)(a < 0 ? 0 : a > FEED_Q7_MAX ? FEED_Q7_MAX : a);
    }
}

/* Horizontal pass, portable: a Q7 RGBX row -> out RGB pixels, dir = +-3. */
static void hpass_c_dir(uint8_t *restrict d, ptrdiff_t dir, const int16_t *restrict s,
                        const int32_t *restrict first, int32_t off, const int16_t *restrict c,
                        uint32_t out, uint32_t T)
{
    for (uint32_t x = 0; x < out; x++, d += dir) {
        const int16_t *p = s + (size_t)(first[x] - off) * 4;
        const int16_t *w = c + (size_t)x * T;
        int32_t a0 = 1 << 20, a1 = 1 << 20, a2 = 1 << 20;
        for (uint32_t k = 0; k < T; k++) {
            a0 += w[k] * p[k * 4 + 0];
            a1 += w[k] * p[k * 4 + 1];
            a2 += w[k] * p[k * 4 + 2];
        }
        d[0] = feed__clamp8(a0 >> 21);
        d[1] = feed__clamp8(a1 >> 21);
        d[2] = feed__clamp8(a2 >> 21);
    }
}

void feed__hpass_c(uint8_t *restrict d, int flip, const int16_t *restrict s,
                   const feed__axis *xa, int32_t off)
{
    uint32_t out = xa->out;
    if (flip)
        hpass_c_dir(d + (size_t)(out - 1) * 3, -3, s, xa->first, off, xa->coef, out, xa->taps);
    else
        hpass_c_dir(d, 3, s, xa->first, off, xa->coef, out, xa->taps);
}

/* Horizontal pass of one plane, portable: a Q7 row -> out samples. */
void feed__hpass1_c(uint8_t *restrict d, int flip, const int16_t *restrict s, const feed__axis *xa,
                    int32_t off, uint32_t from)
{
    uint32_t out = xa->out, T = xa->taps;
    for (uint32_t X = from; X < out; X++) {
        uint32_t x = flip ? out - 1 - X : X;
        const int16_t *p = s + (xa->first[x] - off);
        const int16_t *w = xa->coef + (size_t)x * T;
        int32_t a = 1 << 20;
        for (uint32_t k = 0; k < T; k++)
            a += w[k] * p[k];
        d[X] = feed__clamp8(a >> 21);
    }
}
