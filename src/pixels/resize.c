/*
 * resize.c - the resize driver: PIL's antialiased bilinear or bicubic
 * (resize.h) as two separable integer passes over the coefficients of
 * resize_axis.c, by the kernels of the level this CPU runs (resize_c.c,
 * resize_sse2.c, resize_avx2.c, resize_avx512.c).
 *
 * Bilinear: vertical pass first (contiguous, vectorised over the row), then
 * the horizontal pass over out_h rows only, which is the smallest amount of
 * the strided work. Bicubic goes the other way round (resize.h says why),
 * with the same kernels: each source row widened to Q7 for the horizontal
 * pass, whose bytes are the vertical pass's input. Pixels stay RGBX
 * (libjpeg-turbo writes RGBX as fast as RGB) so each output pixel is one
 * 4-lane operation per tap. Bilinear's two passes run row by row (two rows
 * at a time with AVX2, which share the horizontal windows and coefficients)
 * through intermediate rows that stay in L1; bicubic's intermediate is the
 * image of the source rows used, horizontally resized.
 *
 * Why our own kernels (resize_kernels.h): GCC does not vectorise the
 * horizontal gather (each output reads its own window), so the portable C
 * passes are the slow path; SSE2's pmaddwd does two 16-bit taps per
 * instruction, and AVX2 does two rows a step with fixed block counts for the
 * common shrinks; AVX-512 BW widens the vertical pass to 64 bytes a step
 * (its horizontal pass is AVX2's). libswscale measured slower than both SIMD
 * levels even with a cached context (and a new crop size needs a new
 * context), and its fast bilinear mode is far from PIL's result. The level
 * is picked at run time.
 */
#include "pixels/resize.h"

#include <stdlib.h>
#include <string.h>

#include "common/pixel.h"
#include "feed.h"
#include "pixels/resize_kernels.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

/* ---- the portable passes ------------------------------------------------------------ */

void feed__resizer_free(feed__resizer *rz)
{
    if (!rz)
        return;
    free(rz->row);
    free(rz->mid);
    memset(rz, 0, sizeof *rz);
}

/* ---- the driver: level pick, row loop ------------------------------------------------ */

int feed__resize_simd = -1;

#if defined(__SSE2__)
static int feed__simd_level(void)
{
    if (feed__resize_simd >= 0)
        return feed__resize_simd;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
        return 3;
    return __builtin_cpu_supports("avx2") ? 2 : 1;
}
#else
static int feed__simd_level(void)
{
    return 0;
}
#endif

static void feed__resize_rows(int16_t *row, const feed__axis *xa, const feed__axis *ya,
                              const uint8_t *src, size_t src_stride, uint8_t *dst,
                              size_t dst_stride, int hflip)
{
    uint32_t n = (xa->hi - xa->lo) * 4;
    int32_t off = (int32_t)xa->lo;
    int level = feed__simd_level();
    int hsimd = level > 0 && !(xa->taps & 1); /* odd only for tiny sources */
#if defined(__SSE2__)
    void (*vpass)(int16_t *restrict, const uint8_t *restrict, size_t, const int16_t *restrict, uint32_t,
                  uint32_t) = level >= 3 ? feed__vpass_avx512 : feed__vpass_avx2;
#endif
    for (uint32_t y = 0; y < ya->out; y++) {
        const uint8_t *s = src + (size_t)(ya->first[y] - (int32_t)ya->lo) * src_stride;
        const int16_t *cv = ya->coef + (size_t)y * ya->taps;
        uint8_t *d = dst + (size_t)y * dst_stride;
#if defined(__SSE2__)
        if (level >= 2) {
            vpass(row, s, src_stride, cv, n, ya->taps);
            if (hsimd && y + 1 < ya->out) {
                int16_t *row2 = row + n + 8;
                const uint8_t *s2 = src + (size_t)(ya->first[y + 1] - (int32_t)ya->lo) * src_stride;
                vpass(row2, s2, src_stride, cv + ya->taps, n, ya->taps);
                feed__hpass_avx2(d, d + dst_stride, hflip, row, row2, xa, off);
                y++;
                continue;
            }
            if (hsimd) {
                feed__hpass_avx2(d, d, hflip, row, row, xa, off);
                continue;
            }
        } else if (level == 1) {
            feed__vpass_sse2(row, s, src_stride, cv, n, ya->taps);
            if (hsimd) {
                feed__hpass_sse2(d, hflip, row, xa, off);
                continue;
            }
        } else
#endif
        {
            feed__vpass_c(row, s, src_stride, cv, n, ya->taps);
        }
        (void)hsimd;
        feed__hpass_c(d, hflip, row, xa, off);
    }
}

/* The RGBX layout of the coefficients (feed__axis.cvec), once per build. */
static int feed__axis_cvec(feed__axis *a)
{
    if (a->cvec_built || (a->taps & 1))
        return 0;
    uint32_t taps = a->taps, out = a->out;
    size_t pairs = taps / 2, padded = feed__cvec_pairs(taps);
    if (feed__grow((void **)&a->cvec, &a->cap_cvec, padded * out * 8 * sizeof *a->cvec))
        return FEED_E_NOMEM;
    for (uint32_t xx = 0; xx < out; xx++) {
        int16_t *v = a->cvec + (size_t)xx * padded * 8;
        const int16_t *c = a->coef + (size_t)xx * taps;
        for (size_t k = 0; k < padded; k++, v += 8)
            for (int l = 0; l < 8; l += 2) {
                v[l] = k < pairs ? c[2 * k] : 0;
                v[l + 1] = k < pairs ? c[2 * k + 1] : 0;
            }
    }
    a->cvec_built = 1;
    return 0;
}

/* ---- bicubic: horizontal pass first, an intermediate image of bytes ------------------ */

typedef void (*feed__vpass_fn)(int16_t *restrict, const uint8_t *restrict, size_t,
                               const int16_t *restrict, uint32_t, uint32_t);

static feed__vpass_fn vpass_of(int level)
{
#if defined(__SSE2__)
    if (level >= 3)
        return feed__vpass_avx512;
    if (level == 2)
        return feed__vpass_avx2;
    if (level == 1)
        return feed__vpass_sse2;
#endif
    (void)level;
    return feed__vpass_c;
}

/* n source bytes as Q7, the horizontal passes' input. SSE2 by hand: GCC's
 * -O2 cost model leaves both loops here scalar. */
static void widen_q7(int16_t *restrict d, const uint8_t *restrict s, uint32_t n)
{
    uint32_t i = 0;
#if defined(__SSE2__)
    const __m128i z = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        _mm_storeu_si128((__m128i *)(d + i), _mm_slli_epi16(_mm_unpacklo_epi8(v, z), 7));
        _mm_storeu_si128((__m128i *)(d + i + 8), _mm_slli_epi16(_mm_unpackhi_epi8(v, z), 7));
    }
#endif
    for (; i < n; i++)
        d[i] = (int16_t)(s[i] << 7);
}

/* n Q7 values in 0..255 << 7 to bytes, rounded. */
static void narrow_q7(uint8_t *restrict d, const int16_t *restrict s, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i half = _mm_set1_epi16(64);
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 8));
        a = _mm_srai_epi16(_mm_add_epi16(a, half), 7);
        b = _mm_srai_epi16(_mm_add_epi16(b, half), 7);
        _mm_storeu_si128((__m128i *)(d + i), _mm_packus_epi16(a, b));
    }
#endif
    for (; i < n; i++)
        d[i] = (uint8_t)((s[i] + 64) >> 7);
}

/* The vertical pass over the intermediate image: output row y from mid's rows
 * (rs bytes each, mid's row 0 being ya->lo), through the Q7 row q, rounded to
 * bytes (the pass clamped it to 0..255). */
static void vertical_to_bytes(int level, int16_t *q, const uint8_t *mid, size_t rs,
                              const feed__axis *ya, uint8_t *dst, size_t dst_stride)
{
    feed__vpass_fn vpass = vpass_of(level);
    for (uint32_t y = 0; y < ya->out; y++) {
        const uint8_t *s = mid + (size_t)(ya->first[y] - (int32_t)ya->lo) * rs;
        vpass(q, s, rs, ya->coef + (size_t)y * ya->taps, (uint32_t)rs, ya->taps);
        narrow_q7(dst + (size_t)y * dst_stride, q, rs);
    }
}

/* RGBX source rows [ya->lo, ya->hi) -> out RGB bytes each, mirrored with
 * flip, into mid (rows of xa->out * 3 bytes); then the vertical pass.
 * rows: 2 * (n + 8) + rs int16: two widened rows (the AVX2 pass does two at
 * once, and reads windows padded to 4 pixels past hi) and the vertical
 * pass's row. */
static void resize_h_first(int16_t *rows, uint8_t *mid, const feed__axis *xa, const feed__axis *ya,
                           const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                           int hflip)
{
    uint32_t n = (xa->hi - xa->lo) * 4, h = ya->hi - ya->lo;
    size_t rs = (size_t)xa->out * 3;
    int16_t *ra = rows, *rb = rows + n + 8;
    int32_t off = (int32_t)xa->lo;
    int level = feed__simd_level();
    int hsimd = level > 0 && !(xa->taps & 1); /* odd only for tiny sources */
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *s = src + (size_t)y * src_stride;
        uint8_t *d = mid + (size_t)y * rs;
        widen_q7(ra, s, n);
#if defined(__SSE2__)
        if (level >= 2 && hsimd) {
            if (y + 1 < h) {
                widen_q7(rb, s + src_stride, n);
                feed__hpass_avx2(d, d + rs, hflip, ra, rb, xa, off);
                y++;
            } else {
                feed__hpass_avx2(d, d, hflip, ra, ra, xa, off);
            }
            continue;
        }
        if (level == 1 && hsimd) {
            feed__hpass_sse2(d, hflip, ra, xa, off);
            continue;
        }
#endif
        feed__hpass_c(d, hflip, ra, xa, off);
    }
    vertical_to_bytes(level, rows + 2 * ((size_t)n + 8), mid, rs, ya, dst, dst_stride);
}

/* The same for one plane: source rows of n samples -> xa->out bytes each.
 * rows: 2 * (n + t8 + 8) + out int16 (the SIMD passes read t8 taps a
 * window, up to t8 - 1 past hi). */
static void plane_h_first(int16_t *rows, uint8_t *mid, const feed__axis *xa, const feed__axis *ya,
                          const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                          int hflip)
{
    uint32_t n = xa->hi - xa->lo, h = ya->hi - ya->lo;
    size_t rs = xa->out, wq = (size_t)n + xa->t8 + 8;
    int16_t *ra = rows, *rb = rows + wq;
    int32_t off = (int32_t)xa->lo;
    int level = feed__simd_level();
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *s = src + (size_t)y * src_stride;
        uint8_t *d = mid + (size_t)y * rs;
        widen_q7(ra, s, n);
#if defined(__SSE2__)
        if (level >= 2) {
            if (y + 1 < h) {
                widen_q7(rb, s + src_stride, n);
                feed__hpass1_avx2(d, d + rs, hflip, ra, rb, xa, off);
                y++;
            } else {
                feed__hpass1_avx2(d, d, hflip, ra, ra, xa, off);
            }
            continue;
        }
        if (level == 1) {
            feed__hpass1_sse2(d, hflip, ra, xa, off);
            continue;
        }
#endif
        feed__hpass1_c(d, hflip, ra, xa, off, 0);
    }
    vertical_to_bytes(level, rows + 2 * wq, mid, rs, ya, dst, dst_stride);
}

/* Scratch of the horizontal-first passes: nq int16 (zeroed: the SIMD passes
 * read padding past the widened rows) and the intermediate image. */
static int h_first_scratch(feed__resizer *rz, size_t nq, size_t mid)
{
    if (feed__grow((void **)&rz->row, &rz->cap, nq * sizeof *rz->row) ||
        feed__grow((void **)&rz->mid, &rz->mid_cap, mid))
        return FEED_E_NOMEM;
    memset(rz->row, 0, nq * sizeof *rz->row);
    return 0;
}

int feed__resize_axes(feed__resizer *rz, feed__axis *xa, const feed__axis *ya,
                      const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                      int hflip)
{
    if (feed__axis_cvec(xa))
        return FEED_E_NOMEM;
    size_t n = (size_t)(xa->hi - xa->lo) * 4;
    if (xa->filter == FEED__FILTER_BICUBIC) {
        size_t rs = (size_t)xa->out * 3;
        if (h_first_scratch(rz, 2 * (n + 8) + rs, rs * (ya->hi - ya->lo)))
            return FEED_E_NOMEM;
        resize_h_first(rz->row, rz->mid, xa, ya, src, src_stride, dst, dst_stride, hflip);
        return 0;
    }
    /* two rows (AVX2 does two at a time), each + 2 pixels: the AVX2
     * horizontal pass reads windows padded to a multiple of 4 pixels, past hi
     * when the tap pairs are odd (weight 0 there) */
    if (feed__grow((void **)&rz->row, &rz->cap, 2 * (n + 8) * sizeof *rz->row))
        return FEED_E_NOMEM;
    memset(rz->row + n, 0, 8 * sizeof *rz->row);
    memset(rz->row + 2 * n + 8, 0, 8 * sizeof *rz->row);
    feed__resize_rows(rz->row, xa, ya, src, src_stride, dst, dst_stride, hflip);
    return 0;
}

int feed__resize(feed__resizer *rz, feed__axis *xa, feed__axis *ya, const uint8_t *src,
                 size_t src_stride, uint32_t src_w, uint32_t src_h, double bx0, double by0,
                 double bx1, double by1, uint8_t *dst, size_t dst_stride, uint32_t dst_w,
                 uint32_t dst_h, int hflip, uint32_t filter)
{
    int rc = feed__axis_build(xa, src_w, bx0, bx1, dst_w, filter);
    if (!rc)
        rc = feed__axis_build(ya, src_h, by0, by1, dst_h, filter);
    if (rc)
        return rc;
    return feed__resize_axes(rz, xa, ya, src + (size_t)ya->lo * src_stride + (size_t)xa->lo * 4,
                             src_stride, dst, dst_stride, hflip);
}

/* The single-channel coefficient layout (feed__axis.c8), once per build. */
static int feed__axis_c8(feed__axis *a)
{
    if (a->c8_built)
        return 0;
    uint32_t t8 = a->taps <= 4 ? 4 : (a->taps + 7) & ~7u;
    if (feed__grow((void **)&a->c8, &a->cap_c8, (size_t)a->out * t8 * sizeof *a->c8))
        return FEED_E_NOMEM;
    for (uint32_t x = 0; x < a->out; x++) {
        int16_t *d = a->c8 + (size_t)x * t8;
        memcpy(d, a->coef + (size_t)x * a->taps, a->taps * sizeof *d);
        memset(d + a->taps, 0, (t8 - a->taps) * sizeof *d);
    }
    a->t8 = t8;
    a->c8_built = 1;
    return 0;
}

int feed__resize_plane(feed__resizer *rz, feed__axis *xa, const feed__axis *ya,
                       const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                       int hflip)
{
    if (feed__axis_c8(xa))
        return FEED_E_NOMEM;
    uint32_t n = xa->hi - xa->lo;
    if (xa->filter == FEED__FILTER_BICUBIC) {
        size_t wq = (size_t)n + xa->t8 + 8;
        if (h_first_scratch(rz, 2 * wq + xa->out, (size_t)xa->out * (ya->hi - ya->lo)))
            return FEED_E_NOMEM;
        plane_h_first(rz->row, rz->mid, xa, ya, src, src_stride, dst, dst_stride, hflip);
        return 0;
    }
    int level = feed__simd_level();
    /* the vertical pass in whole blocks of its width (no scalar tail) */
    uint32_t blk = level >= 3 ? 64 : level == 2 ? 32 : level == 1 ? 16 : 1;
    uint32_t nv = (n + blk - 1) / blk * blk;
    /* two rows (AVX2 does two at once); the SIMD horizontal passes read t8
     * taps from each window: up to t8 - 1 past hi */
    size_t rs = (size_t)nv + xa->t8 + 8;
    if (feed__grow((void **)&rz->row, &rz->cap, 2 * rs * sizeof *rz->row))
        return FEED_E_NOMEM;
    int16_t *row = rz->row, *row2 = rz->row + rs;
    memset(row + nv, 0, (rs - nv) * sizeof *row);
    memset(row2 + nv, 0, (rs - nv) * sizeof *row);
    int32_t off = (int32_t)xa->lo;
    for (uint32_t y = 0; y < ya->out; y++) {
        const uint8_t *s = src + (size_t)(ya->first[y] - (int32_t)ya->lo) * src_stride;
        const int16_t *cv = ya->coef + (size_t)y * ya->taps;
        uint8_t *d = dst + (size_t)y * dst_stride;
#if defined(__SSE2__)
        if (level >= 2) {
            void (*vpass)(int16_t *restrict, const uint8_t *restrict, size_t, const int16_t *restrict,
                          uint32_t, uint32_t) = level >= 3 ? feed__vpass_avx512 : feed__vpass_avx2;
            vpass(row, s, src_stride, cv, nv, ya->taps);
            if (y + 1 < ya->out) {
                const uint8_t *s2 = src + (size_t)(ya->first[y + 1] - (int32_t)ya->lo) * src_stride;
                vpass(row2, s2, src_stride, cv + ya->taps, nv, ya->taps);
                feed__hpass1_avx2(d, d + dst_stride, hflip, row, row2, xa, off);
                y++;
            } else {
                feed__hpass1_avx2(d, d, hflip, row, row, xa, off);
            }
            continue;
        }
        if (level == 1) {
            feed__vpass_sse2(row, s, src_stride, cv, nv, ya->taps);
            feed__hpass1_sse2(d, hflip, row, xa, off);
            continue;
        }
#endif
        (void)level;
        feed__vpass_c(row, s, src_stride, cv, n, ya->taps);
        feed__hpass1_c(d, hflip, row, xa, off, 0);
    }
    return 0;
}
