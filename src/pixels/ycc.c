/*
 * ycc.c - YCbCr planes to RGB (ycc.h). libjpeg-turbo's own converters work
 * inside its decoder on whole rows of the image; the planar pipeline
 * converts only the resized output, which libjpeg-turbo has no entry point
 * for, so this is a small loop of our own: portable C, and SSSE3 (pmulhrsw
 * for the products, pshufb to pack RGB) where the CPU has it.
 */
#include "pixels/ycc.h"

#include "common/pixel.h"

/* The fractional parts in Q15, each term rounded as pmulhrsw does:
 * (v * k + 2^14) >> 15. 0.402 = 1.402 - 1, 0.772 = 1.772 - 1. */
#define KR 13173   /*  0.402    * 2^15 */
#define KGB -11277 /* -0.344136 * 2^15 */
#define KGR -23401 /* -0.714136 * 2^15 */
#define KB 25297   /*  0.772    * 2^15 */

int feed__ycc_simd = -1;

static inline int32_t mulhrs(int32_t v, int32_t k)
{
    return (v * k + (1 << 14)) >> 15;
}

static inline void ycc_pixel(uint32_t y, uint32_t cb, uint32_t cr, uint8_t *d)
{
    int32_t b = (int32_t)cb - 128, r = (int32_t)cr - 128, yy = (int32_t)y;
    d[0] = feed__clamp8(yy + r + mulhrs(r, KR));
    d[1] = feed__clamp8(yy + mulhrs(b, KGB) + mulhrs(r, KGR));
    d[2] = feed__clamp8(yy + b + mulhrs(b, KB));
}

static void ycc_row_c(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, uint32_t w, uint8_t *d)
{
    for (uint32_t x = 0; x < w; x++, d += 3)
        ycc_pixel(y[x], cb[x], cr[x], d);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define FEED_SSSE3 __attribute__((target("ssse3")))

/* 16 pixels from x: the last of its four 16-byte stores has 4 spare bytes,
 * which the caller keeps inside the row (x + 18 <= w). */
static inline FEED_SSSE3 void ycc16_ssse3(const uint8_t *y, const uint8_t *cb, const uint8_t *cr,
                                          uint32_t x, uint8_t *d)
{
    const __m128i z = _mm_setzero_si128(), c128 = _mm_set1_epi16(128);
    const __m128i pack = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    __m128i Y = _mm_loadu_si128((const __m128i *)(y + x));
    __m128i B = _mm_loadu_si128((const __m128i *)(cb + x));
    __m128i R = _mm_loadu_si128((const __m128i *)(cr + x));
    __m128i o[3][2];
    const __m128i kr = _mm_set1_epi16(KR), kgb = _mm_set1_epi16(KGB);
    const __m128i kgr = _mm_set1_epi16(KGR), kb = _mm_set1_epi16(KB);
    for (int h = 0; h < 2; h++) {
        __m128i y16 = h ? _mm_unpackhi_epi8(Y, z) : _mm_unpacklo_epi8(Y, z);
        __m128i b16 = _mm_sub_epi16(h ? _mm_unpackhi_epi8(B, z) : _mm_unpacklo_epi8(B, z), c128);
        __m128i r16 = _mm_sub_epi16(h ? _mm_unpackhi_epi8(R, z) : _mm_unpacklo_epi8(R, z), c128);
        o[0][h] = _mm_add_epi16(_mm_add_epi16(y16, r16), _mm_mulhrs_epi16(r16, kr));
        o[1][h] = _mm_add_epi16(y16, _mm_add_epi16(_mm_mulhrs_epi16(b16, kgb),
                                                   _mm_mulhrs_epi16(r16, kgr)));
        o[2][h] = _mm_add_epi16(_mm_add_epi16(y16, b16), _mm_mulhrs_epi16(b16, kb));
    }
    __m128i r8 = _mm_packus_epi16(o[0][0], o[0][1]);
    __m128i g8 = _mm_packus_epi16(o[1][0], o[1][1]);
    __m128i b8 = _mm_packus_epi16(o[2][0], o[2][1]);
    __m128i rg0 = _mm_unpacklo_epi8(r8, g8), rg1 = _mm_unpackhi_epi8(r8, g8);
    __m128i bz0 = _mm_unpacklo_epi8(b8, z), bz1 = _mm_unpackhi_epi8(b8, z);
    uint8_t *q = d + (size_t)x * 3;
    _mm_storeu_si128((__m128i *)q, _mm_shuffle_epi8(_mm_unpacklo_epi16(rg0, bz0), pack));
    _mm_storeu_si128((__m128i *)(q + 12), _mm_shuffle_epi8(_mm_unpackhi_epi16(rg0, bz0), pack));
    _mm_storeu_si128((__m128i *)(q + 24), _mm_shuffle_epi8(_mm_unpacklo_epi16(rg1, bz1), pack));
    _mm_storeu_si128((__m128i *)(q + 36), _mm_shuffle_epi8(_mm_unpackhi_epi16(rg1, bz1), pack));
}

/* Left to right, so each step's spare bytes are rewritten by the next; the
 * last step moves left to end 2 pixels before the row's end (pixels done
 * twice come out the same). Rows under 18 pixels go the portable way. */
static FEED_SSSE3 void ycc_row_ssse3(const uint8_t *y, const uint8_t *cb, const uint8_t *cr,
                                     uint32_t w, uint8_t *d)
{
    if (w < 18) {
        ycc_row_c(y, cb, cr, w, d);
        return;
    }
    uint32_t x = 0;
    for (; x + 18 <= w; x += 16)
        ycc16_ssse3(y, cb, cr, x, d);
    if (x < w) {
        ycc16_ssse3(y, cb, cr, w - 18, d);
        ycc_row_c(y + w - 2, cb + w - 2, cr + w - 2, 2, d + (size_t)(w - 2) * 3);
    }
}

static int ycc_level(void)
{
    if (feed__ycc_simd >= 0)
        return feed__ycc_simd;
    return __builtin_cpu_supports("ssse3") ? 1 : 0;
}
#else
static int ycc_level(void)
{
    return 0;
}
#endif

void feed__ycc_to_rgb(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, size_t stride,
                      uint32_t w, uint32_t h, uint8_t *dst, size_t dst_stride)
{
    int level = ycc_level();
    for (uint32_t r = 0; r < h; r++) {
        size_t o = (size_t)r * stride;
        uint8_t *d = dst + (size_t)r * dst_stride;
#if defined(__x86_64__) && defined(__GNUC__)
        if (level >= 1) {
            ycc_row_ssse3(y + o, cb + o, cr + o, w, d);
            continue;
        }
#endif
        (void)level;
        ycc_row_c(y + o, cb + o, cr + o, w, d);
    }
}

void feed__grey_to_rgb(const uint8_t *y, size_t stride, uint32_t w, uint32_t h, uint8_t *dst,
                       size_t dst_stride)
{
    for (uint32_t r = 0; r < h; r++) {
        const uint8_t *s = y + (size_t)r * stride;
        uint8_t *d = dst + (size_t)r * dst_stride;
        for (uint32_t x = 0; x < w; x++, d += 3)
            d[0] = d[1] = d[2] = s[x];
    }
}
