/*
 * augops_lut.c - the per-value passes of the colour ops (augops.c): a
 * table of 256 results applied to every byte, one table for the image or
 * one per channel, and the per-channel statistics (range, histogram) that
 * autocontrast and equalize build their tables from.
 *
 * A table is exact for an op that is a function of the byte alone. With
 * AVX-512 VBMI (level 2) a table sits in four registers and vpermi2b
 * looks 64 bytes up at once; elsewhere the lookups are scalar.
 */
#include "pixels/augops_geom.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FEED__AUG_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

/* The table t (64 bytes each in t[0..3]) at the 64 bytes v */
FEED__AUG_VBMI static inline __m512i lut64(__m512i v, const __m512i t[4])
{
    __m512i lo = _mm512_permutex2var_epi8(t[0], v, t[1]); /* index bit 6 picks t[1] */
    __m512i hi = _mm512_permutex2var_epi8(t[2], v, t[3]);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi); /* bit 7 picks hi */
}

FEED__AUG_VBMI static void load_lut(const uint8_t lut[256], __m512i t[4])
{
    for (int k = 0; k < 4; k++)
        t[k] = _mm512_loadu_si512(lut + 64 * k);
}

/* The whole 64-byte blocks of img; returns how many bytes it did. */
FEED__AUG_VBMI static size_t map_lut_vbmi(uint8_t *img, size_t n, const uint8_t lut[256])
{
    __m512i t[4];
    load_lut(lut, t);
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        _mm512_storeu_si512(img + i, lut64(_mm512_loadu_si512(img + i), t));
    return i;
}

/* The same with a table per channel: byte j of a block starting at a byte
 * of channel p is of channel (p + j) % 3, and as 64 = 1 (mod 3) the next
 * block starts one channel on. Whole groups of 3 blocks (64 pixels) only,
 * so that the rest starts at a pixel. */
FEED__AUG_VBMI static size_t map_lut3_vbmi(uint8_t *img, size_t n, const uint8_t lut[3][256])
{
    __m512i t[3][4];
    __mmask64 mask[3][3] = {{0}}; /* [phase][channel] */
    for (int c = 0; c < 3; c++)
        load_lut(lut[c], t[c]);
    for (int p = 0; p < 3; p++)
        for (int j = 0; j < 64; j++)
            mask[p][(p + j) % 3] |= (__mmask64)1 << j;
    size_t i = 0, end = n - n % 192;
    for (int p = 0; i < end; i += 64, p = p == 2 ? 0 : p + 1) {
        __m512i v = _mm512_loadu_si512(img + i);
        __m512i r = lut64(v, t[0]);
        r = _mm512_mask_blend_epi8(mask[p][1], r, lut64(v, t[1]));
        r = _mm512_mask_blend_epi8(mask[p][2], r, lut64(v, t[2]));
        _mm512_storeu_si512(img + i, r);
    }
    return i;
}
#endif

void feed__aug_map_lut(uint8_t *img, size_t n, const uint8_t lut[256])
{
    size_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (feed__aug_level() >= 2)
        i = map_lut_vbmi(img, n, lut);
#endif
    /* 8 bytes at a time through a register: a byte loop here gets
     * vectorised into lane-by-lane lookups, slower than plain scalar */
    for (; i + 8 <= n; i += 8) {
        uint64_t v, r = 0;
        memcpy(&v, img + i, 8);
        for (int k = 0; k < 64; k += 8)
            r |= (uint64_t)lut[(v >> k) & 255] << k;
        memcpy(img + i, &r, 8);
    }
    for (; i < n; i++)
        img[i] = lut[img[i]];
}

void feed__aug_map_lut3(uint8_t *img, size_t npx, const uint8_t lut[3][256])
{
    size_t i = 0, n = npx * 3;
#if defined(__x86_64__) && defined(__GNUC__)
    if (feed__aug_level() >= 2)
        i = map_lut3_vbmi(img, n, lut);
#endif
    for (; i < n; i += 3) {
        img[i] = lut[0][img[i]];
        img[i + 1] = lut[1][img[i + 1]];
        img[i + 2] = lut[2][img[i + 2]];
    }
}

/* Each channel's least and greatest value: minima and maxima of the 48
 * bytes at each offset of 48-byte blocks (16 pixels, a loop that
 * vectorises), then of the rest. */
static FEED__AUG_INLINE void range3_c(const uint8_t *img, size_t npx, uint8_t lo[3], uint8_t hi[3])
{
    uint8_t l[48], h[48];
    memset(l, 255, sizeof l);
    memset(h, 0, sizeof h);
    size_t i = 0, n = npx * 3;
    for (; i + 48 <= n; i += 48)
        for (int k = 0; k < 48; k++) {
            l[k] = img[i + k] < l[k] ? img[i + k] : l[k];
            h[k] = img[i + k] > h[k] ? img[i + k] : h[k];
        }
    for (int k = 0; i + (size_t)k < n && k < 48; k++) {
        l[k] = img[i + k] < l[k] ? img[i + k] : l[k];
        h[k] = img[i + k] > h[k] ? img[i + k] : h[k];
    }
    lo[0] = lo[1] = lo[2] = 255;
    hi[0] = hi[1] = hi[2] = 0;
    for (int k = 0; k < 48; k++) {
        lo[k % 3] = l[k] < lo[k % 3] ? l[k] : lo[k % 3];
        hi[k % 3] = h[k] > hi[k % 3] ? h[k] : hi[k % 3];
    }
}
FEED__AUG_LEVELS(range3, 2, (const uint8_t *img, size_t npx, uint8_t lo[3], uint8_t hi[3]), (img, npx, lo, hi))

void feed__aug_range3(const uint8_t *img, size_t npx, uint8_t lo[3], uint8_t hi[3])
{
    range3(img, npx, lo, hi);
}

/* Each channel's histogram: odd and even pixels count in two tables, so
 * that a run of one value does not wait on its own increments. */
void feed__aug_hist3(const uint8_t *img, size_t npx, uint64_t hist[3][256])
{
    uint32_t part[2][3][256];
    memset(part, 0, sizeof part);
    memset(hist, 0, sizeof(uint64_t) * 3 * 256);
    size_t i = 0;
    while (i < npx) {
        /* flushed every 2^31 pixels, so that a part never overflows */
        size_t end = npx - i > ((size_t)1 << 31) ? i + ((size_t)1 << 31) : npx;
        for (; i + 1 < end; i += 2) {
            const uint8_t *p = img + i * 3;
            part[0][0][p[0]]++, part[0][1][p[1]]++, part[0][2][p[2]]++;
            part[1][0][p[3]]++, part[1][1][p[4]]++, part[1][2][p[5]]++;
        }
        if (i < end) {
            const uint8_t *p = img + i * 3;
            part[0][0][p[0]]++, part[0][1][p[1]]++, part[0][2][p[2]]++;
            i++;
        }
        for (int c = 0; c < 3; c++)
            for (int v = 0; v < 256; v++)
                hist[c][v] += (uint64_t)part[0][c][v] + part[1][c][v];
        memset(part, 0, sizeof part);
    }
}
