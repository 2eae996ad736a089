/*
 * resize_sse2.c - the resize kernels for SSE2 (baseline x86-64). GCC widens
 * the portable vertical pass to 32-bit multiplies and does not vectorise the
 * horizontal one; pmaddwd does two taps of 16-bit products per instruction in
 * both. Same integer arithmetic as the portable passes (resize_kernels.h).
 */
#include "pixels/resize_kernels.h"

#if defined(__SSE2__)
#include <immintrin.h>

void feed__vpass_sse2(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
                      const int16_t *restrict c, uint32_t n, uint32_t T)
{
    feed__vrows v;
    if (!feed__vpass_setup(&v, s, stride, c, T)) {
        feed__vpass_c(d, s, stride, c, n, T);
        return;
    }
    const __m128i z = _mm_setzero_si128(), rnd = _mm_set1_epi32(1 << 6);
    const __m128i top = _mm_set1_epi16(FEED_Q7_MAX);
    uint32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a0 = rnd, a1 = rnd, a2 = rnd, a3 = rnd;
        for (uint32_t k = 0; k < v.pairs; k++) {
            __m128i cc = _mm_set1_epi32(v.cp[k]);
            __m128i x = _mm_loadu_si128((const __m128i *)(v.r0[k] + i));
            __m128i y = _mm_loadu_si128((const __m128i *)(v.r1[k] + i));
            __m128i lo = _mm_unpacklo_epi8(x, y), hi = _mm_unpackhi_epi8(x, y);
            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi8(lo, z), cc));
            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi8(lo, z), cc));
            a2 = _mm_add_epi32(a2, _mm_madd_epi16(_mm_unpacklo_epi8(hi, z), cc));
            a3 = _mm_add_epi32(a3, _mm_madd_epi16(_mm_unpackhi_epi8(hi, z), cc));
        }
        __m128i p01 = _mm_packs_epi32(_mm_srai_epi32(a0, 7), _mm_srai_epi32(a1, 7));
        __m128i p23 = _mm_packs_epi32(_mm_srai_epi32(a2, 7), _mm_srai_epi32(a3, 7));
        if (v.neg) {
            p01 = _mm_min_epi16(_mm_max_epi16(p01, z), top);
            p23 = _mm_min_epi16(_mm_max_epi16(p23, z), top);
        }
        _mm_storeu_si128((__m128i *)(d + i), p01);
        _mm_storeu_si128((__m128i *)(d + i + 8), p23);
    }
    if (i < n)
        feed__vpass_c(d + i, s + i, stride, c, n - i, T);
}

/* One output pixel of the horizontal pass (even taps), as 4 packed bytes. */
static inline uint32_t hpixel_sse2(const int16_t *p, const int16_t *cv, uint32_t pairs)
{
    __m128i a = _mm_set1_epi32(1 << 20);
    for (uint32_t k = 0; k < pairs; k++) {
        __m128i v = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(p + 8 * k)),
                                       _mm_loadl_epi64((const __m128i *)(p + 8 * k + 4)));
        a = _mm_add_epi32(a, _mm_madd_epi16(v, _mm_loadu_si128((const __m128i *)(cv + 8 * k))));
    }
    a = _mm_srai_epi32(a, 21);
    a = _mm_packs_epi32(a, a);
    a = _mm_packus_epi16(a, a);
    return (uint32_t)_mm_cvtsi128_si32(a);
}

/* Destination pixels are written left to right (flip reads the windows right
 * to left), so each 4-byte store's spare byte is overwritten next. */
void feed__hpass_sse2(uint8_t *restrict d, int flip, const int16_t *restrict s,
                      const feed__axis *xa, int32_t off)
{
    uint32_t out = xa->out, pairs = xa->taps / 2;
    size_t cs = (size_t)feed__cvec_pairs(xa->taps) * 8;
    for (uint32_t X = 0; X < out; X++) {
        uint32_t x = flip ? out - 1 - X : X;
        uint32_t v = hpixel_sse2(s + (size_t)(xa->first[x] - off) * 4, xa->cvec + (size_t)x * cs,
                                 pairs);
        feed__put_rgb(d + (size_t)X * 3, v, X + 1 == out);
    }
}

/* Output x's dot product as 4 partial int32 sums. */
static inline __m128i dot1_sse2(const int16_t *p, const int16_t *c, uint32_t t8)
{
    if (t8 == 4)
        return _mm_madd_epi16(_mm_loadl_epi64((const __m128i *)p), _mm_loadl_epi64((const __m128i *)c));
    __m128i a = _mm_madd_epi16(_mm_loadu_si128((const __m128i *)p), _mm_loadu_si128((const __m128i *)c));
    for (uint32_t k = 8; k < t8; k += 8)
        a = _mm_add_epi32(a, _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(p + k)),
                                            _mm_loadu_si128((const __m128i *)(c + k))));
    return a;
}

void feed__hpass1_sse2(uint8_t *restrict d, int flip, const int16_t *restrict s,
                       const feed__axis *xa, int32_t off)
{
    uint32_t out = xa->out, t8 = xa->t8;
    const int32_t *first = xa->first;
    const int16_t *c8 = xa->c8;
    const __m128i rnd = _mm_set1_epi32(1 << 20);
    uint32_t X = 0;
    for (; X + 4 <= out; X += 4) {
        __m128i a[4];
        for (uint32_t j = 0; j < 4; j++) {
            uint32_t x = flip ? out - 1 - (X + j) : X + j;
            a[j] = dot1_sse2(s + (first[x] - off), c8 + (size_t)x * t8, t8);
        }
        /* transpose-add: lane j of the sum is output X + j's whole dot product */
        __m128i t0 = _mm_add_epi32(_mm_unpacklo_epi32(a[0], a[1]), _mm_unpackhi_epi32(a[0], a[1]));
        __m128i t1 = _mm_add_epi32(_mm_unpacklo_epi32(a[2], a[3]), _mm_unpackhi_epi32(a[2], a[3]));
        __m128i v = _mm_add_epi32(_mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1));
        v = _mm_srai_epi32(_mm_add_epi32(v, rnd), 21);
        v = _mm_packs_epi32(v, v);
        v = _mm_packus_epi16(v, v);
        uint32_t px = (uint32_t)_mm_cvtsi128_si32(v);
        memcpy(d + X, &px, 4);
    }
    if (X < out)
        feed__hpass1_c(d, flip, s, xa, off, X);
}

#endif /* __SSE2__ */
