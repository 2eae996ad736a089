/*
 * resize_avx512.c - the vertical resize pass for AVX-512 (BW), compiled per
 * function with target("avx512f,avx512bw") and called only when the CPU has
 * both (resize.c picks the level at run time); the horizontal pass stays
 * AVX2's. Same integer arithmetic as the portable pass (resize_kernels.h),
 * so the bytes are those of every other level.
 */
#include "pixels/resize_kernels.h"

#if defined(__SSE2__)
#include <immintrin.h>

#define FEED_AVX512 __attribute__((target("avx512f,avx512bw")))

/* 64 bytes a step (AVX2: 32). The unpacks and packs work within 128-bit
 * lanes as AVX2's do, so each lane L ends up holding elements 16L..16L+7
 * (p01) and 16L+8..16L+15 (p23); one two-source permute of 64-bit pieces a
 * store puts them back in order. */
FEED_AVX512 void feed__vpass_avx512(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
                                    const int16_t *restrict c, uint32_t n, uint32_t T)
{
    feed__vrows v;
    if (!feed__vpass_setup(&v, s, stride, c, T)) {
        feed__vpass_c(d, s, stride, c, n, T);
        return;
    }
    const __m512i z = _mm512_setzero_si512(), rnd = _mm512_set1_epi32(1 << 6);
    const __m512i top = _mm512_set1_epi16(FEED_Q7_MAX);
    const __m512i lo_idx = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i hi_idx = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    uint32_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i a0 = rnd, a1 = rnd, a2 = rnd, a3 = rnd;
        for (uint32_t k = 0; k < v.pairs; k++) {
            __m512i cc = _mm512_set1_epi32(v.cp[k]);
            __m512i x = _mm512_loadu_si512((const void *)(v.r0[k] + i));
            __m512i y = _mm512_loadu_si512((const void *)(v.r1[k] + i));
            __m512i lo = _mm512_unpacklo_epi8(x, y), hi = _mm512_unpackhi_epi8(x, y);
            a0 = _mm512_add_epi32(a0, _mm512_madd_epi16(_mm512_unpacklo_epi8(lo, z), cc));
            a1 = _mm512_add_epi32(a1, _mm512_madd_epi16(_mm512_unpackhi_epi8(lo, z), cc));
            a2 = _mm512_add_epi32(a2, _mm512_madd_epi16(_mm512_unpacklo_epi8(hi, z), cc));
            a3 = _mm512_add_epi32(a3, _mm512_madd_epi16(_mm512_unpackhi_epi8(hi, z), cc));
        }
        __m512i p01 = _mm512_packs_epi32(_mm512_srai_epi32(a0, 7), _mm512_srai_epi32(a1, 7));
        __m512i p23 = _mm512_packs_epi32(_mm512_srai_epi32(a2, 7), _mm512_srai_epi32(a3, 7));
        if (v.neg) {
            p01 = _mm512_min_epi16(_mm512_max_epi16(p01, z), top);
            p23 = _mm512_min_epi16(_mm512_max_epi16(p23, z), top);
        }
        _mm512_storeu_si512((void *)(d + i), _mm512_permutex2var_epi64(p01, lo_idx, p23));
        _mm512_storeu_si512((void *)(d + i + 32), _mm512_permutex2var_epi64(p01, hi_idx, p23));
    }
    if (i < n)
        feed__vpass_avx2(d + i, s + i, stride, c, n - i, T);
}

#endif /* __SSE2__ */
