/*
 * resize_avx2.c - the resize kernels for AVX2, compiled per function with
 * target("avx2") (the rest of the library stays baseline x86-64) and called
 * only when the CPU has AVX2 (resize.c picks the level at run time). Same
 * integer arithmetic as the portable passes (resize_kernels.h).
 */
#include "pixels/resize_kernels.h"

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
    const __m256i top = _mm256_set1_epi16(FEED_Q7_MAX);
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
        if (v.neg) {
            p01 = _mm256_min_epi16(_mm256_max_epi16(p01, z), top);
            p23 = _mm256_min_epi16(_mm256_max_epi16(p23, z), top);
        }
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

/*
 * One plane's horizontal pass, AVX2, two rows at a time: an output's window
 * of rows a and b (t8 taps each, the c8 layout) in the two lanes of one
 * pmaddwd with the coefficients broadcast, eight outputs reduced together by
 * three rounds of phaddd, eight bytes a row stored at once.
 */
/* Output sums of rows a and b (lanes: row a | row b), 4 in lo and 4 in hi
 * each: rounded, shifted, saturated, 8 bytes stored to each row. */
FEED_AVX2_INLINE void put8_avx2(uint8_t *da, uint8_t *db, __m256i lo, __m256i hi)
{
    const __m256i rnd = _mm256_set1_epi32(1 << 20);
    lo = _mm256_srai_epi32(_mm256_add_epi32(lo, rnd), 21);
    hi = _mm256_srai_epi32(_mm256_add_epi32(hi, rnd), 21);
    __m256i v = _mm256_packs_epi32(lo, hi);
    v = _mm256_packus_epi16(v, v);
    _mm_storel_epi64((__m128i *)da, _mm256_castsi256_si128(v));
    _mm_storel_epi64((__m128i *)db, _mm256_extracti128_si256(v, 1));
}

/* Outputs [X, out) of both rows (one when da == db), the portable way. */
static void hpass1_tail(uint8_t *da, uint8_t *db, int flip, const int16_t *sa, const int16_t *sb,
                        const feed__axis *xa, int32_t off, uint32_t X)
{
    if (X >= xa->out)
        return;
    feed__hpass1_c(da, flip, sa, xa, off, X);
    if (db != da)
        feed__hpass1_c(db, flip, sb, xa, off, X);
}

FEED_AVX2_INLINE __m256i hwin1_avx2(const int16_t *pa, const int16_t *pb, const int16_t *c,
                                    uint32_t t8)
{
    if (t8 == 4) {
        __m256i w = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadl_epi64((const __m128i *)pa)),
            _mm_loadl_epi64((const __m128i *)pb), 1);
        return _mm256_madd_epi16(w, _mm256_broadcastsi128_si256(_mm_loadl_epi64((const __m128i *)c)));
    }
    __m256i a = _mm256_setzero_si256();
    for (uint32_t k = 0; k < t8; k += 8) {
        __m256i w = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(pa + k))),
            _mm_loadu_si128((const __m128i *)(pb + k)), 1);
        a = _mm256_add_epi32(a, _mm256_madd_epi16(w, _mm256_broadcastsi128_si256(
                                                         _mm_loadu_si128((const __m128i *)(c + k)))));
    }
    return a;
}

FEED_AVX2_INLINE void hpass1_avx2_n(uint8_t *da, uint8_t *db, int flip, const int16_t *sa,
                                    const int16_t *sb, const feed__axis *xa, int32_t off,
                                    uint32_t t8)
{
    const int32_t *first = xa->first;
    const int16_t *c8 = xa->c8;
    uint32_t out = xa->out;
    uint32_t X = 0;
    for (; X + 8 <= out; X += 8) {
        __m256i m[8];
        for (uint32_t j = 0; j < 8; j++) {
            uint32_t x = flip ? out - 1 - (X + j) : X + j;
            int32_t f = first[x] - off;
            m[j] = hwin1_avx2(sa + f, sb + f, c8 + (size_t)x * t8, t8);
        }
        /* each lane: the 8 outputs' sums, in order */
        put8_avx2(da + X, db + X,
                  _mm256_hadd_epi32(_mm256_hadd_epi32(m[0], m[1]), _mm256_hadd_epi32(m[2], m[3])),
                  _mm256_hadd_epi32(_mm256_hadd_epi32(m[4], m[5]), _mm256_hadd_epi32(m[6], m[7])));
    }
    hpass1_tail(da, db, flip, sa, sb, xa, off, X);
}

/* Windows of 4 taps (upscaling, and shrinks under about 1.5x): two outputs
 * share a lane, (x, x+1) of row a | of row b, one pmaddwd and one phaddd
 * round for 4 outputs. */
FEED_AVX2_INLINE __m256i hwin4_avx2(const int16_t *sa, const int16_t *sb, int32_t f0, int32_t f1,
                                    const int16_t *c)
{
    __m128i a = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(sa + f0)),
                                   _mm_loadl_epi64((const __m128i *)(sa + f1)));
    __m128i b = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(sb + f0)),
                                   _mm_loadl_epi64((const __m128i *)(sb + f1)));
    __m256i w = _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
    return _mm256_madd_epi16(w, _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)c)));
}

FEED_AVX2_INLINE void hpass1_avx2_4(uint8_t *da, uint8_t *db, int flip, const int16_t *sa,
                                    const int16_t *sb, const feed__axis *xa, int32_t off)
{
    const int32_t *first = xa->first;
    const int16_t *c8 = xa->c8;
    uint32_t out = xa->out;
    uint32_t X = 0;
    for (; X + 8 <= out; X += 8) {
        __m256i m[4];
        if (!flip) {
            const int32_t *f = first + X;
            const int16_t *c = c8 + (size_t)X * 4; /* outputs X, X+1 are adjacent there */
            for (int k = 0; k < 4; k++)
                m[k] = hwin4_avx2(sa, sb, f[2 * k] - off, f[2 * k + 1] - off, c + 8 * k);
        } else { /* outputs X, X+1 are x, x-1: load the pair as (x-1, x), swap after */
            for (int k = 0; k < 4; k++) {
                uint32_t x = out - 2 - X - 2 * (uint32_t)k;
                m[k] = hwin4_avx2(sa, sb, first[x] - off, first[x + 1] - off, c8 + (size_t)x * 4);
            }
        }
        __m256i lo = _mm256_hadd_epi32(m[0], m[1]), hi = _mm256_hadd_epi32(m[2], m[3]);
        if (flip) {
            lo = _mm256_shuffle_epi32(lo, 0xB1);
            hi = _mm256_shuffle_epi32(hi, 0xB1);
        }
        put8_avx2(da + X, db + X, lo, hi);
    }
    hpass1_tail(da, db, flip, sa, sb, xa, off, X);
}

FEED_AVX2 void feed__hpass1_avx2(uint8_t *da, uint8_t *db, int flip, const int16_t *sa,
                                const int16_t *sb, const feed__axis *xa, int32_t off)
{
    if (xa->t8 == 4)
        hpass1_avx2_4(da, db, flip, sa, sb, xa, off);
    else if (xa->t8 == 8)
        hpass1_avx2_n(da, db, flip, sa, sb, xa, off, 8);
    else if (xa->t8 == 16)
        hpass1_avx2_n(da, db, flip, sa, sb, xa, off, 16);
    else
        hpass1_avx2_n(da, db, flip, sa, sb, xa, off, xa->t8);
}

#endif /* __SSE2__ */
