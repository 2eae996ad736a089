/*
 * resize_avx2.c - the resize kernels for AVX2, compiled per function with
 * target("avx2") (the rest of the library stays baseline x86-64) and called
 * only when the CPU has AVX2 (resize.c picks the level at run time). Same
 * integer arithmetic as the portable passes (resize_kernels.h).
 */
#include "resize_kernels.h"

#if defined(__SSE2__)
#include <immintrin.h>

#define FEED_AVX2 __attribute__((target("avx2")))
#define FEED_AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

FEED_AVX2 void feed__vpass_avx2(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
                                const int16_t *restrict c, uint32_t n, uint32_t T)
{
    feed__vrows v;
    if (!feed__vpass_setup(&v, s, stride, c, T)) {
        feed__vpass_c(d, s, stride, c, n, T);
        return;
    }
    const __m256i z = _mm256_setzero_si256(), rnd = _mm256_set1_epi32(1 << 6);
    uint32_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a0 = rnd, a1 = rnd, a2 = rnd, a3 = rnd;
        for (uint32_t k = 0; k < v.pairs; k++) {
            __m256i cc = _mm256_set1_epi32(v.cp[k]);
            __m256i x = _mm256_loadu_si256((const __m256i *)(v.r0[k] + i));
            __m256i y = _mm256_loadu_si256((const __m256i *)(v.r1[k] + i));
            __m256i lo = _mm256_unpacklo_epi8(x, y), hi = _mm256_unpackhi_epi8(x, y);
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi8(lo, z), cc));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi8(lo, z), cc));
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_unpacklo_epi8(hi, z), cc));
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_unpackhi_epi8(hi, z), cc));
        }
        /* lanes: a0 = e0..3 | e16..19, a1 = e4..7 | e20..23, a2 = e8..11 | ... */
        __m256i p01 = _mm256_packs_epi32(_mm256_srai_epi32(a0, 7), _mm256_srai_epi32(a1, 7));
        __m256i p23 = _mm256_packs_epi32(_mm256_srai_epi32(a2, 7), _mm256_srai_epi32(a3, 7));
        _mm256_storeu_si256((__m256i *)(d + i), _mm256_permute2x128_si256(p01, p23, 0x20));
        _mm256_storeu_si256((__m256i *)(d + i + 16), _mm256_permute2x128_si256(p01, p23, 0x31));
    }
    if (i < n)
        feed__vpass_sse2(d + i, s + i, stride, c, n - i, T);
}

/*
 * Horizontal pass, AVX2, two rows at a time (same axis: the same windows and
 * coefficients). An output pixel's window is read as whole 256-bit blocks of
 * 4 source pixels (two tap pairs; cvec pads the pairs to even): pshufb into
 * channel pairs, pmaddwd with the pixel's coefficients, the two lanes add up
 * to the pixel. One tap pair (upscaling) takes one 128-bit block a row. The
 * block counts of the 1x-2x shrinks of a typical crop (1, 2) are compiled as
 * their own loops. Four pixels of both rows pack into one register, and each
 * row's 12 RGB bytes go out in one 16-byte store.
 */

/* The 4 channel sums of one pixel, spread over two lanes (blocks >= 1). */
FEED_AVX2_INLINE __m256i hwin_avx2(const int16_t *p, const int16_t *c, uint32_t blocks)
{
    const __m256i shuf = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                          0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    __m256i a = _mm256_setzero_si256();
    for (uint32_t q = 0; q < blocks; q++)
        a = _mm256_add_epi32(
            a, _mm256_madd_epi16(
                   _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(p + 16 * q)), shuf),
                   _mm256_loadu_si256((const __m256i *)(c + 16 * q))));
    return a;
}

/* Pixel x of rows a and b (windows at sa, sb, coefficients at c), rounded and
 * shifted, one a lane: row a | row b. */
FEED_AVX2_INLINE __m256i hpix2_avx2(const int16_t *sa, const int16_t *sb, const int16_t *c,
                                    uint32_t blocks)
{
    __m256i a;
    if (blocks == 0) {
        const __m256i shuf = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14,
                                              15, 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7,
                                              14, 15);
        __m256i w = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)sa)),
            _mm_loadu_si128((const __m128i *)sb), 1);
        a = _mm256_madd_epi16(_mm256_shuffle_epi8(w, shuf),
                              _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)c)));
    } else { /* (a.lo + a.hi | b.lo + b.hi) */
        __m256i wa = hwin_avx2(sa, c, blocks), wb = hwin_avx2(sb, c, blocks);
        a = _mm256_add_epi32(_mm256_blend_epi32(wa, wb, 0xF0),
                             _mm256_permute2x128_si256(wa, wb, 0x21));
    }
    return _mm256_srai_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(1 << 20)), 21);
}

/* Destination pixels left to right (flip reads the windows right to left);
 * each 16-byte store's last 4 bytes belong to the next two pixels, written
 * later, and the last few pixels go one at a time. da == db (sa == sb) does
 * one row. */
FEED_AVX2_INLINE void hpass_avx2_n(uint8_t *da, uint8_t *db, int flip, const int16_t *sa,
                                   const int16_t *sb, const feed__axis *xa, int32_t off,
                                   uint32_t blocks)
{
    const __m256i rgb = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                         0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    const int32_t *first = xa->first;
    const int16_t *cv = xa->cvec;
    uint32_t out = xa->out;
    ptrdiff_t cs = blocks ? (ptrdiff_t)blocks * 16 : 8;
    ptrdiff_t dx = flip ? -1 : 1, x0 = flip ? (ptrdiff_t)out - 1 : 0;
    uint32_t X = 0;
#define FEED_HPIX2(x)                                                                         \
    hpix2_avx2(sa + (ptrdiff_t)(first[x] - off) * 4, sb + (ptrdiff_t)(first[x] - off) * 4,   \
               cv + (x) * cs, blocks)
    for (; X + 6 <= out; X += 4) {
        ptrdiff_t x = x0 + (ptrdiff_t)X * dx;
        __m256i v0 = FEED_HPIX2(x), v1 = FEED_HPIX2(x + dx);
        __m256i v2 = FEED_HPIX2(x + 2 * dx), v3 = FEED_HPIX2(x + 3 * dx);
        /* lanes: row a pixels 0..3 | row b pixels 0..3 */
        __m256i r = _mm256_packus_epi16(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, v3));
        r = _mm256_shuffle_epi8(r, rgb);
        _mm_storeu_si128((__m128i *)(da + (size_t)X * 3), _mm256_castsi256_si128(r));
        _mm_storeu_si128((__m128i *)(db + (size_t)X * 3), _mm256_extracti128_si256(r, 1));
    }
    for (; X < out; X++) {
        ptrdiff_t x = x0 + (ptrdiff_t)X * dx;
        __m256i v = _mm256_packs_epi32(FEED_HPIX2(x), _mm256_setzero_si256());
        v = _mm256_packus_epi16(v, v);
        feed__put_rgb(da + (size_t)X * 3,
                      (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(v)), X + 1 == out);
        feed__put_rgb(db + (size_t)X * 3,
                      (uint32_t)_mm_cvtsi128_si32(_mm256_extracti128_si256(v, 1)), X + 1 == out);
    }
#undef FEED_HPIX2
}

FEED_AVX2 void feed__hpass_avx2(uint8_t *da, uint8_t *db, int flip, const int16_t *sa,
                               const int16_t *sb, const feed__axis *xa, int32_t off)
{
    uint32_t pairs = feed__cvec_pairs(xa->taps);
    if (pairs == 1)
        hpass_avx2_n(da, db, flip, sa, sb, xa, off, 0);
    else if (pairs == 2)
        hpass_avx2_n(da, db, flip, sa, sb, xa, off, 1);
    else if (pairs == 4)
        hpass_avx2_n(da, db, flip, sa, sb, xa, off, 2);
    else
        hpass_avx2_n(da, db, flip, sa, sb, xa, off, pairs / 2);
}

#endif /* __SSE2__ */
