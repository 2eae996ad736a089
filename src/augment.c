/*
 * augment.c - the per-sample pixel pipeline: plan the crop from the JPEG
 * header, decode only that region (DCT-scaled when it stays >= the output
 * size), resample, orient, flip, rotate, jitter.
 *
 * Geometry is planned in the *displayed* image (after EXIF orientation), as
 * torchvision sees it, then mapped back into the stored image, which is what
 * the decoder reads. The resize runs in stored orientation and a final exact
 * permutation (feed__orient_copy) turns the small output upright; a plain
 * horizontal flip is folded into the resize's horizontal pass.
 *
 * Resize: separable, vertical pass first (contiguous, vectorised over the
 * row), then the horizontal pass over out_h rows only, which is the smallest
 * amount of the strided work. Pixels stay RGBX (libjpeg-turbo writes RGBX as
 * fast as RGB) so each output pixel is one 4-lane operation per tap. The two
 * passes run row by row (two rows at a time with AVX2, which share the
 * horizontal windows and coefficients) through intermediate rows that stay in
 * L1.
 *
 * Why our own kernels: measured on the 2-core dev machine (350x350 RGBX ->
 * 224x224 RGB, antialiased, per call): portable C at -O2 ~1.6 ms (GCC does
 * not vectorise the horizontal gather), SSE2 pmaddwd ~285 us, AVX2 ~160-220
 * us with a horizontal pass of two pixels a step, ~85-110 us with the present
 * one (fixed block counts, two rows a step); libswscale 6 (FFmpeg 5.1)
 * SWS_BILINEAR ~920 us with a cached context (a new crop size needs a new
 * context: ~1.1 ms), SWS_AREA ~870 us, SWS_FAST_BILINEAR ~600 us but up to 60
 * levels off PIL's result.
 */
#include "augment.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feed.h"
#include "image.h"
#include "jpeg.h"


/* ---- coefficients ----------------------------------------------------------------- */

void feed__axis_free(feed__axis *a)
{
    if (!a)
        return;
    free(a->first);
    free(a->coef);
    free(a->cvec);
    free(a->wbuf);
    memset(a, 0, sizeof *a);
}

static int feed__grow(void **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n);
    if (!q)
        return FEED_E_NOMEM;
    *p = q;
    *cap = n;
    return 0;
}

/* Tap pairs per output in cvec: 1, or the pairs rounded up to even so that
 * the AVX2 horizontal pass reads whole 256-bit blocks (two pairs each). */
static uint32_t feed__cvec_pairs(uint32_t taps)
{
    uint32_t pairs = taps / 2;
    return pairs <= 1 ? pairs : (pairs + 1) & ~1u;
}

int feed__axis_build(feed__axis *a, uint32_t in, double b0, double b1, uint32_t out)
{
    if (a->built && a->in == in && a->out == out && a->b0 == b0 && a->b1 == b1)
        return 0;
    a->built = 0;
    if (in == 0 || out == 0 || !(b0 >= 0) || !(b1 > b0) || b1 > in + 1e-6)
        return FEED_E_INVALID;
    if (b1 > in)
        b1 = in;
    double scale = (b1 - b0) / out;
    double fs = scale > 1 ? scale : 1;
    double support = fs; /* triangle (bilinear) radius 1, stretched when shrinking */
    double maxk_d = ceil(support) * 2 + 2;
    uint32_t maxk = maxk_d < in ? (uint32_t)maxk_d : in;
    if (feed__grow((void **)&a->first, &a->cap_first, (size_t)out * sizeof *a->first) ||
        feed__grow((void **)&a->coef, &a->cap_coef, (size_t)out * maxk * sizeof *a->coef) ||
        feed__grow((void **)&a->wbuf, &a->cap_wbuf, (size_t)maxk * sizeof *a->wbuf))
        return FEED_E_NOMEM;

    const int32_t one = 1 << FEED_COEF_BITS;
    uint32_t taps = 1;
    /* Pass 1: each output's weights at stride maxk, zero-padded */
    for (uint32_t xx = 0; xx < out; xx++) {
        double center = b0 + (xx + 0.5) * scale;
        double lo = floor(center - support + 0.5), hi = floor(center + support + 0.5);
        int64_t xmin = lo < 0 ? 0 : (int64_t)lo;
        int64_t xmax = hi > in ? (int64_t)in : (int64_t)hi;
        if (xmax - xmin > (int64_t)maxk)
            xmax = xmin + maxk;
        if (xmax <= xmin) { /* cannot happen for a box inside the image; be safe */
            xmin = (int64_t)fmin(fmax(floor(center), 0), in - 1);
            xmax = xmin + 1;
        }
        uint32_t n = (uint32_t)(xmax - xmin);
        double *wp = a->wbuf, sum = 0;
        for (uint32_t k = 0; k < n; k++) {
            double t = fabs(((double)(xmin + k) - center + 0.5) / fs);
            wp[k] = t < 1 ? 1 - t : 0;
            sum += wp[k];
        }
        int16_t *q = a->coef + (size_t)xx * maxk;
        int32_t qs = 0;
        uint32_t big = 0;
        for (uint32_t k = 0; k < n; k++) {
            double v = sum > 0 ? wp[k] / sum : (k == 0);
            q[k] = (int16_t)lrint(v * one);
            qs += q[k];
            if (q[k] > q[big])
                big = k;
        }
        q[big] = (int16_t)(q[big] + (one - qs)); /* weights sum to exactly one */
        uint32_t s = 0;
        while (s < n - 1 && q[s] == 0)
            s++;
        while (n > s + 1 && q[n - 1] == 0)
            n--;
        if (s)
            memmove(q, q + s, (n - s) * sizeof *q);
        n -= s;
        xmin += s;
        for (uint32_t k = n; k < maxk; k++)
            q[k] = 0;
        a->first[xx] = (int32_t)xmin;
        if (n > taps)
            taps = n;
    }
    if ((taps & 1) && taps + 1 <= maxk) /* pairs of taps for pmaddwd */
        taps++;
    /* Pass 2: compact to stride taps (in place: dst <= src, and an entry never
     * reaches the next one's source); a window that would run past the end
     * moves left with leading zeros. */
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t xx = 0; xx < out; xx++) {
        int16_t *src = a->coef + (size_t)xx * maxk, *dst = a->coef + (size_t)xx * taps;
        int32_t f = a->first[xx];
        uint32_t sh = 0;
        if ((uint32_t)f + taps > in)
            sh = (uint32_t)f + taps - in;
        memmove(dst + sh, src, (taps - sh) * sizeof *dst);
        for (uint32_t k = 0; k < sh; k++)
            dst[k] = 0;
        f -= (int32_t)sh;
        a->first[xx] = f;
        if ((uint32_t)f < lo)
            lo = (uint32_t)f;
        if ((uint32_t)f + taps > hi)
            hi = (uint32_t)f + taps;
    }
    if (!(taps & 1)) {
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
    }
    a->in = in;
    a->out = out;
    a->taps = taps;
    a->lo = lo;
    a->hi = hi;
    a->b0 = b0;
    a->b1 = b1;
    a->built = 1;
    return 0;
}

/* ---- resize ------------------------------------------------------------------------------ */

void feed__resizer_free(feed__resizer *rz)
{
    if (!rz)
        return;
    free(rz->row);
    memset(rz, 0, sizeof *rz);
}

/* Vertical pass, portable: T source rows -> one Q7 row of n int16. */
static void vpass_c(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
                    const int16_t *restrict c, uint32_t n, uint32_t T)
{
    for (uint32_t i = 0; i < n; i++) {
        int32_t a = 1 << 6;
        for (uint32_t k = 0; k < T; k++)
            a += c[k] * s[(size_t)k * stride + i];
        d[i] = (int16_t)(a >> 7);
    }
}

static inline uint8_t clamp8(int32_t v)
{
    return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
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
        d[0] = clamp8(a0 >> 21);
        d[1] = clamp8(a1 >> 21);
        d[2] = clamp8(a2 >> 21);
    }
}

int feed__resize_simd = -1;

static void hpass_c(uint8_t *restrict d, int flip, const int16_t *restrict s,
                    const feed__axis *xa, int32_t off)
{
    uint32_t out = xa->out;
    if (flip)
        hpass_c_dir(d + (size_t)(out - 1) * 3, -3, s, xa->first, off, xa->coef, out, xa->taps);
    else
        hpass_c_dir(d, 3, s, xa->first, off, xa->coef, out, xa->taps);
}

#if defined(__SSE2__)
/*
 * x86 kernels: SSE2 (baseline x86-64) and AVX2 (picked at run time). GCC does
 * not vectorise the horizontal pass (each output gathers its own window of
 * 4-channel pixels) and widens the vertical one to 32-bit multiplies; pmaddwd
 * does two taps of 16-bit products per instruction in both. Same integer
 * arithmetic as the portable code, so every path gives identical bytes
 * (tests/test_augment.c runs all of them).
 */
#include <immintrin.h>

#define FEED_VPASS_MAX_PAIRS 4

static inline __m128i coef_pair(int16_t a, int16_t b)
{
    return _mm_set1_epi32((int32_t)((uint32_t)(uint16_t)a | (uint32_t)(uint16_t)b << 16));
}

/* Row pointers and coefficient pairs of a vertical pass (odd T: the last
 * pair repeats its row with weight 0). */
static uint32_t vpass_setup(const uint8_t *s, size_t stride, const int16_t *c, uint32_t T,
                            const uint8_t **r0, const uint8_t **r1, int32_t *cp)
{
    uint32_t pairs = (T + 1) / 2;
    for (uint32_t k = 0; k < pairs; k++) {
        uint32_t t = 2 * k;
        r0[k] = s + (size_t)t * stride;
        r1[k] = t + 1 < T ? r0[k] + stride : r0[k];
        cp[k] = (int32_t)((uint32_t)(uint16_t)c[t] |
                          (uint32_t)(uint16_t)(t + 1 < T ? c[t + 1] : 0) << 16);
    }
    return pairs;
}

static void vpass_sse2(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
                       const int16_t *restrict c, uint32_t n, uint32_t T)
{
    const uint8_t *r0[FEED_VPASS_MAX_PAIRS], *r1[FEED_VPASS_MAX_PAIRS];
    int32_t cp[FEED_VPASS_MAX_PAIRS];
    if ((T + 1) / 2 > FEED_VPASS_MAX_PAIRS) {
        vpass_c(d, s, stride, c, n, T);
        return;
    }
    uint32_t pairs = vpass_setup(s, stride, c, T, r0, r1, cp);
    const __m128i z = _mm_setzero_si128(), rnd = _mm_set1_epi32(1 << 6);
    uint32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a0 = rnd, a1 = rnd, a2 = rnd, a3 = rnd;
        for (uint32_t k = 0; k < pairs; k++) {
            __m128i cc = _mm_set1_epi32(cp[k]);
            __m128i x = _mm_loadu_si128((const __m128i *)(r0[k] + i));
            __m128i y = _mm_loadu_si128((const __m128i *)(r1[k] + i));
            __m128i lo = _mm_unpacklo_epi8(x, y), hi = _mm_unpackhi_epi8(x, y);
            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi8(lo, z), cc));
            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi8(lo, z), cc));
            a2 = _mm_add_epi32(a2, _mm_madd_epi16(_mm_unpacklo_epi8(hi, z), cc));
            a3 = _mm_add_epi32(a3, _mm_madd_epi16(_mm_unpackhi_epi8(hi, z), cc));
        }
        _mm_storeu_si128((__m128i *)(d + i),
                         _mm_packs_epi32(_mm_srai_epi32(a0, 7), _mm_srai_epi32(a1, 7)));
        _mm_storeu_si128((__m128i *)(d + i + 8),
                         _mm_packs_epi32(_mm_srai_epi32(a2, 7), _mm_srai_epi32(a3, 7)));
    }
    if (i < n)
        vpass_c(d + i, s + i, stride, c, n - i, T);
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

static inline void put_rgb(uint8_t *d, uint32_t v, int last)
{
    if (!last) { /* 4 bytes: the 4th is the next pixel's, written after this one */
        memcpy(d, &v, 4);
    } else {
        d[0] = (uint8_t)v;
        d[1] = (uint8_t)(v >> 8);
        d[2] = (uint8_t)(v >> 16);
    }
}

/* Destination pixels are written left to right (flip reads the windows right
 * to left), so each 4-byte store's spare byte is overwritten next. */
static void hpass_sse2(uint8_t *restrict d, int flip, const int16_t *restrict s,
                       const feed__axis *xa, int32_t off)
{
    uint32_t out = xa->out, pairs = xa->taps / 2;
    size_t cs = (size_t)feed__cvec_pairs(xa->taps) * 8;
    for (uint32_t X = 0; X < out; X++) {
        uint32_t x = flip ? out - 1 - X : X;
        uint32_t v = hpixel_sse2(s + (size_t)(xa->first[x] - off) * 4, xa->cvec + (size_t)x * cs,
                                 pairs);
        put_rgb(d + (size_t)X * 3, v, X + 1 == out);
    }
}

__attribute__((target("avx2"))) static void
vpass_avx2(int16_t *restrict d, const uint8_t *restrict s, size_t stride,
           const int16_t *restrict c, uint32_t n, uint32_t T)
{
    const uint8_t *r0[FEED_VPASS_MAX_PAIRS], *r1[FEED_VPASS_MAX_PAIRS];
    int32_t cp[FEED_VPASS_MAX_PAIRS];
    if ((T + 1) / 2 > FEED_VPASS_MAX_PAIRS) {
        vpass_c(d, s, stride, c, n, T);
        return;
    }
    uint32_t pairs = vpass_setup(s, stride, c, T, r0, r1, cp);
    const __m256i z = _mm256_setzero_si256(), rnd = _mm256_set1_epi32(1 << 6);
    uint32_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a0 = rnd, a1 = rnd, a2 = rnd, a3 = rnd;
        for (uint32_t k = 0; k < pairs; k++) {
            __m256i cc = _mm256_set1_epi32(cp[k]);
            __m256i x = _mm256_loadu_si256((const __m256i *)(r0[k] + i));
            __m256i y = _mm256_loadu_si256((const __m256i *)(r1[k] + i));
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
        vpass_sse2(d + i, s + i, stride, c, n - i, T);
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
#define FEED_AVX2 __attribute__((target("avx2")))
#define FEED_AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

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
        put_rgb(da + (size_t)X * 3, (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(v)),
                X + 1 == out);
        put_rgb(db + (size_t)X * 3, (uint32_t)_mm_cvtsi128_si32(_mm256_extracti128_si256(v, 1)),
                X + 1 == out);
    }
#undef FEED_HPIX2
}

FEED_AVX2 static void hpass_avx2(uint8_t *da, uint8_t *db, int flip, const int16_t *sa,
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

static int feed__simd_level(void)
{
    if (feed__resize_simd >= 0)
        return feed__resize_simd;
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
    for (uint32_t y = 0; y < ya->out; y++) {
        const uint8_t *s = src + (size_t)(ya->first[y] - (int32_t)ya->lo) * src_stride;
        const int16_t *cv = ya->coef + (size_t)y * ya->taps;
        uint8_t *d = dst + (size_t)y * dst_stride;
#if defined(__SSE2__)
        if (level >= 2) {
            vpass_avx2(row, s, src_stride, cv, n, ya->taps);
            if (hsimd && y + 1 < ya->out) {
                int16_t *row2 = row + n + 8;
                const uint8_t *s2 = src + (size_t)(ya->first[y + 1] - (int32_t)ya->lo) * src_stride;
                vpass_avx2(row2, s2, src_stride, cv + ya->taps, n, ya->taps);
                hpass_avx2(d, d + dst_stride, hflip, row, row2, xa, off);
                y++;
                continue;
            }
            if (hsimd) {
                hpass_avx2(d, d, hflip, row, row, xa, off);
                continue;
            }
        } else if (level == 1) {
            vpass_sse2(row, s, src_stride, cv, n, ya->taps);
            if (hsimd) {
                hpass_sse2(d, hflip, row, xa, off);
                continue;
            }
        } else
#endif
        {
            vpass_c(row, s, src_stride, cv, n, ya->taps);
        }
        (void)hsimd;
        hpass_c(d, hflip, row, xa, off);
    }
}

int feed__resize_axes(feed__resizer *rz, const feed__axis *xa, const feed__axis *ya,
                      const uint8_t *src, size_t src_stride, uint8_t *dst, size_t dst_stride,
                      int hflip)
{
    size_t n = (size_t)(xa->hi - xa->lo) * 4;
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
                 uint32_t dst_h, int hflip)
{
    int rc = feed__axis_build(xa, src_w, bx0, bx1, dst_w);
    if (!rc)
        rc = feed__axis_build(ya, src_h, by0, by1, dst_h);
    if (rc)
        return rc;
    return feed__resize_axes(rz, xa, ya, src + (size_t)ya->lo * src_stride + (size_t)xa->lo * 4,
                             src_stride, dst, dst_stride, hflip);
}

/* ---- orientation, flip, rotation ------------------------------------------------------ */

void feed__orient_copy(const uint8_t *src, size_t src_stride, uint32_t sw, uint32_t sh,
                       uint32_t o, int hflip, uint8_t *dst, size_t dst_stride)
{
    uint32_t dw = o >= 5 ? sh : sw, dh = o >= 5 ? sw : sh;
    /* displayed (x, y) <- stored (u, v); u = u0 + x*ux + y*uy, v likewise */
    int64_t u0 = 0, v0 = 0, ux = 0, uy = 0, vx = 0, vy = 0;
    int64_t W1 = (int64_t)sw - 1, H1 = (int64_t)sh - 1;
    switch (o) {
    default:
    case 1: ux = 1; vy = 1; break;
    case 2: u0 = W1; ux = -1; vy = 1; break;
    case 3: u0 = W1; ux = -1; v0 = H1; vy = -1; break;
    case 4: ux = 1; v0 = H1; vy = -1; break;
    case 5: uy = 1; vx = 1; break;
    case 6: uy = 1; v0 = H1; vx = -1; break;
    case 7: u0 = W1; uy = -1; v0 = H1; vx = -1; break;
    case 8: u0 = W1; uy = -1; vx = 1; break;
    }
    if (hflip) { /* x -> dw-1-x before the orientation */
        u0 += ux * ((int64_t)dw - 1);
        v0 += vx * ((int64_t)dw - 1);
        ux = -ux;
        vx = -vx;
    }
    ptrdiff_t step = (ptrdiff_t)(ux * 3 + vx * (int64_t)src_stride);
    for (uint32_t y = 0; y < dh; y++) {
        const uint8_t *s = src + (u0 + uy * y) * 3 + (v0 + vy * y) * (int64_t)src_stride;
        uint8_t *d = dst + (size_t)y * dst_stride;
        for (uint32_t x = 0; x < dw; x++, s += step, d += 3) {
            d[0] = s[0];
            d[1] = s[1];
            d[2] = s[2];
        }
    }
}

void feed__rotate(const uint8_t *src, uint8_t *dst, uint32_t w, uint32_t h, double deg,
                  const uint8_t fill[3])
{
    double rad = deg * (M_PI / 180.0);
    int64_t ca = llrint(cos(rad) * 65536.0), sa = llrint(sin(rad) * 65536.0);
    int64_t cxq = ((int64_t)w - 1) << 15, cyq = ((int64_t)h - 1) << 15;
    size_t stride = (size_t)w * 3;
    for (uint32_t y = 0; y < h; y++) {
        int64_t dy2 = 2 * (int64_t)y - ((int64_t)h - 1);
        uint8_t *d = dst + (size_t)y * stride;
        for (uint32_t x = 0; x < w; x++, d += 3) {
            int64_t dx2 = 2 * (int64_t)x - ((int64_t)w - 1);
            int64_t sx = cxq + ((ca * dx2 - sa * dy2) >> 1);
            int64_t sy = cyq + ((sa * dx2 + ca * dy2) >> 1);
            int64_t x0 = sx >> 16, y0 = sy >> 16;
            int64_t fx = sx & 0xFFFF, fy = sy & 0xFFFF;
            if (x0 < -1 || y0 < -1 || x0 >= (int64_t)w || y0 >= (int64_t)h) {
                d[0] = fill[0];
                d[1] = fill[1];
                d[2] = fill[2];
                continue;
            }
            int64_t wt[4] = {(65536 - fx) * (65536 - fy), fx * (65536 - fy), (65536 - fx) * fy,
                             fx * fy};
            int64_t acc[3] = {1ll << 31, 1ll << 31, 1ll << 31};
            for (int k = 0; k < 4; k++) {
                if (!wt[k])
                    continue;
                int64_t xi = x0 + (k & 1), yi = y0 + (k >> 1);
                const uint8_t *p = (xi < 0 || yi < 0 || xi >= (int64_t)w || yi >= (int64_t)h)
                                       ? fill
                                       : src + (size_t)yi * stride + (size_t)xi * 3;
                acc[0] += wt[k] * p[0];
                acc[1] += wt[k] * p[1];
                acc[2] += wt[k] * p[2];
            }
            d[0] = clamp8((int32_t)(acc[0] >> 32));
            d[1] = clamp8((int32_t)(acc[1] >> 32));
            d[2] = clamp8((int32_t)(acc[2] >> 32));
        }
    }
}

/* ---- colour ------------------------------------------------------------------------------ */

static void feed__lut(uint8_t *p, size_t n, const uint8_t lut[256])
{
    for (size_t i = 0; i < n * 3; i++)
        p[i] = lut[p[i]];
}

void feed__adjust_brightness(uint8_t *p, size_t n, double f)
{
    uint8_t lut[256];
    for (int v = 0; v < 256; v++)
        lut[v] = clamp8((int32_t)lrint(fmin(v * f, 255.0)));
    feed__lut(p, n, lut);
}

void feed__adjust_contrast(uint8_t *p, size_t n, double f)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += feed__luma(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
    double mean = n ? (double)sum / (double)n : 0;
    uint8_t lut[256];
    for (int v = 0; v < 256; v++)
        lut[v] = clamp8((int32_t)lrint(fmax(fmin(f * v + (1 - f) * mean, 255.0), 0.0)));
    feed__lut(p, n, lut);
}

void feed__adjust_saturation(uint8_t *p, size_t n, double f)
{
    int32_t fq = (int32_t)lrint(f * 4096), gq = 4096 - fq;
    for (size_t i = 0; i < n; i++, p += 3) {
        int32_t g = feed__luma(p[0], p[1], p[2]) * gq + 2048;
        p[0] = clamp8((fq * p[0] + g) >> 12);
        p[1] = clamp8((fq * p[1] + g) >> 12);
        p[2] = clamp8((fq * p[2] + g) >> 12);
    }
}

void feed__adjust_hue(uint8_t *p, size_t n, double hshift)
{
    /* torchvision's _rgb2hsv / _hsv2rgb on [0, 1] floats */
    for (size_t i = 0; i < n; i++, p += 3) {
        double r = p[0] / 255.0, g = p[1] / 255.0, b = p[2] / 255.0;
        double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b)), cr = mx - mn;
        double h = 0, s = mx > 0 ? cr / mx : 0, v = mx;
        if (cr > 0) {
            if (mx == r)
                h = fmod((g - b) / cr, 6.0);
            else if (mx == g)
                h = (b - r) / cr + 2.0;
            else
                h = (r - g) / cr + 4.0;
            h /= 6.0;
        }
        h = fmod(h + hshift + 2.0, 1.0);
        double h6 = h * 6.0;
        int sec = (int)floor(h6) % 6;
        double f = h6 - floor(h6);
        double pp = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
        double o[3];
        switch (sec) {
        case 0: o[0] = v; o[1] = t; o[2] = pp; break;
        case 1: o[0] = q; o[1] = v; o[2] = pp; break;
        case 2: o[0] = pp; o[1] = v; o[2] = t; break;
        case 3: o[0] = pp; o[1] = q; o[2] = v; break;
        case 4: o[0] = t; o[1] = pp; o[2] = v; break;
        default: o[0] = v; o[1] = pp; o[2] = q; break;
        }
        for (int c = 0; c < 3; c++)
            p[c] = clamp8((int32_t)lrint(o[c] * 255.0));
    }
}

void feed__to_grayscale(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++, p += 3)
        p[0] = p[1] = p[2] = feed__luma(p[0], p[1], p[2]);
}

/* ---- RandomResizedCrop --------------------------------------------------------------------- */

int feed__rrc_box(feed__rng *r, uint32_t W, uint32_t H, double scale_min, double scale_max,
                  double ratio_min, double ratio_max, uint32_t *i, uint32_t *j, uint32_t *h,
                  uint32_t *w)
{
    double area = (double)W * (double)H;
    double lr0 = log(ratio_min), lr1 = log(ratio_max);
    for (int attempt = 0; attempt < 10; attempt++) {
        double target = area * feed__rng_range(r, scale_min, scale_max);
        double aspect = exp(feed__rng_range(r, lr0, lr1));
        double ww = nearbyint(sqrt(target * aspect)); /* Python round(): half to even */
        double hh = nearbyint(sqrt(target / aspect));
        if (ww > 0 && ww <= W && hh > 0 && hh <= H) {
            *w = (uint32_t)ww;
            *h = (uint32_t)hh;
            *i = (uint32_t)feed__rng_below(r, (uint64_t)H - *h + 1);
            *j = (uint32_t)feed__rng_below(r, (uint64_t)W - *w + 1);
            return 1;
        }
    }
    double in_ratio = (double)W / (double)H;
    double ww, hh;
    if (in_ratio < ratio_min) {
        ww = W;
        hh = nearbyint(ww / ratio_min);
    } else if (in_ratio > ratio_max) {
        hh = H;
        ww = nearbyint(hh * ratio_max);
    } else {
        ww = W;
        hh = H;
    }
    *w = (uint32_t)fmin(fmax(ww, 1), W);
    *h = (uint32_t)fmin(fmax(hh, 1), H);
    *i = (H - *h) / 2;
    *j = (W - *w) / 2;
    return 0;
}

/* ---- the pipeline ------------------------------------------------------------------------------ */

struct feed__image_ctx {
    feed__jpeg *jpeg;
    feed__axis xa, ya;
    feed__resizer rz;
    uint8_t *buf1, *buf2; /* stored-orientation resize output; pre-rotation image */
    size_t cap1, cap2;
};

feed__image_ctx *feed__image_ctx_create(void)
{
    feed__image_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->jpeg = feed__jpeg_create();
    if (!c->jpeg) {
        free(c);
        return NULL;
    }
    return c;
}

void feed__image_ctx_destroy(feed__image_ctx *c)
{
    if (!c)
        return;
    feed__jpeg_destroy(c->jpeg);
    feed__axis_free(&c->xa);
    feed__axis_free(&c->ya);
    feed__resizer_free(&c->rz);
    free(c->buf1);
    free(c->buf2);
    free(c);
}

/* Everything the plan decides, for the steps after decoding. */
typedef struct feed__plan {
    feed__image_ctx *ctx;
    const feed__xform *x;
    uint64_t seed, epoch, id;
    uint32_t o;              /* orientation applied (1 = none) */
    uint32_t wd, hd;         /* displayed size */
    uint32_t sub_x, sub_y;   /* output sub-rectangle (VAL when the crop overhangs) */
    uint32_t sub_w, sub_h;
    uint32_t rw, rh;         /* resize output, stored orientation */
    uint32_t vx0, vy0;       /* scaled valid region origin */
    uint32_t scale;
} feed__plan;

/* A displayed rectangle [x0, x1) x [y0, y1) in stored coordinates. */
static void feed__map_rect(uint32_t o, double ws, double hs, double x0, double x1, double y0,
                           double y1, double r[4])
{
    switch (o) {
    default:
    case 1: r[0] = x0; r[1] = x1; r[2] = y0; r[3] = y1; break;
    case 2: r[0] = ws - x1; r[1] = ws - x0; r[2] = y0; r[3] = y1; break;
    case 3: r[0] = ws - x1; r[1] = ws - x0; r[2] = hs - y1; r[3] = hs - y0; break;
    case 4: r[0] = x0; r[1] = x1; r[2] = hs - y1; r[3] = hs - y0; break;
    case 5: r[0] = y0; r[1] = y1; r[2] = x0; r[3] = x1; break;
    case 6: r[0] = y0; r[1] = y1; r[2] = hs - x1; r[3] = hs - x0; break;
    case 7: r[0] = ws - y1; r[1] = ws - y0; r[2] = hs - x1; r[3] = hs - x0; break;
    case 8: r[0] = ws - y1; r[1] = ws - y0; r[2] = x0; r[3] = x1; break;
    }
}

static int feed__plan_region(void *arg, const feed__jpeg_info *info, feed__jpeg_region *reg,
                             char *msg, size_t msglen)
{
    feed__plan *p = arg;
    const feed__xform *x = p->x;
    uint32_t ws = info->width, hs = info->height;
    uint64_t px = (uint64_t)ws * hs;
    if (x->max_pixels && px > x->max_pixels) {
        snprintf(msg, msglen, "image %ux%u = %llu pixels is over max_pixels %llu", ws, hs,
                 (unsigned long long)px, (unsigned long long)x->max_pixels);
        return FEED_E_TOO_LARGE;
    }
    p->o = x->exif ? info->orientation : 1;
    p->wd = p->o >= 5 ? hs : ws;
    p->hd = p->o >= 5 ? ws : hs;
    uint32_t wd = p->wd, hd = p->hd, oh = x->out_h, ow = x->out_w;

    /* box (continuous) and valid region (integer) in displayed coordinates */
    double bx0 = 0, bx1 = wd, by0 = 0, by1 = hd;
    uint32_t vx0 = 0, vx1 = wd, vy0 = 0, vy1 = hd;
    p->sub_x = p->sub_y = 0;
    p->sub_w = ow;
    p->sub_h = oh;
    if (x->mode == FEED_AUGMENT_VAL) {
        uint32_t s = x->resize_shorter;
        uint64_t rw, rh;
        if (wd <= hd) {
            rw = s;
            rh = (uint64_t)s * hd / wd;
        } else {
            rh = s;
            rw = (uint64_t)s * wd / hd;
        }
        if (rw == 0)
            rw = 1;
        if (rh == 0)
            rh = 1;
        /* torchvision CenterCrop: top = round((rh - oh) / 2) (half to even);
         * a crop larger than the image pads with zeros, (oh - rh) // 2 on top */
        uint64_t ry, rx;
        if (rh >= oh) {
            ry = (uint64_t)nearbyint((double)(rh - oh) / 2.0);
        } else {
            ry = 0;
            p->sub_y = (uint32_t)((oh - rh) / 2);
            p->sub_h = (uint32_t)rh;
        }
        if (rw >= ow) {
            rx = (uint64_t)nearbyint((double)(rw - ow) / 2.0);
        } else {
            rx = 0;
            p->sub_x = (uint32_t)((ow - rw) / 2);
            p->sub_w = (uint32_t)rw;
        }
        double sx = (double)wd / (double)rw, sy = (double)hd / (double)rh;
        bx0 = rx * sx;
        bx1 = fmin((rx + p->sub_w) * sx, wd);
        by0 = ry * sy;
        by1 = fmin((ry + p->sub_h) * sy, hd);
    } else if (x->mode == FEED_AUGMENT_TRAIN) {
        feed__rng r;
        feed__rng_init(&r, p->seed, p->epoch, p->id, FEED_RNG_CROP);
        uint32_t i, j, h, w;
        feed__rrc_box(&r, wd, hd, x->scale_min, x->scale_max, x->ratio_min, x->ratio_max, &i,
                      &j, &h, &w);
        bx0 = vx0 = j;
        bx1 = vx1 = j + w;
        by0 = vy0 = i;
        by1 = vy1 = i + h;
    }
    p->rw = p->o >= 5 ? p->sub_h : p->sub_w;
    p->rh = p->o >= 5 ? p->sub_w : p->sub_h;

    double b[4], v[4];
    feed__map_rect(p->o, ws, hs, bx0, bx1, by0, by1, b);
    feed__map_rect(p->o, ws, hs, vx0, vx1, vy0, vy1, v);

    /* DCT scale: the smallest fast one (1/8..4/8; 5/8..7/8 fall back to slow
     * C IDCTs in libjpeg-turbo 2.1) whose scaled box still covers the output */
    uint32_t m = 8;
    if (x->roi_decode) {
        static const uint32_t fast[4] = {1, 2, 3, 4};
        for (int k = 0; k < 4; k++) {
            if ((b[1] - b[0]) * fast[k] >= 8.0 * p->rw && (b[3] - b[2]) * fast[k] >= 8.0 * p->rh) {
                m = fast[k];
                break;
            }
        }
    }
    uint32_t sw = feed__jpeg_scaled(ws, m), sh = feed__jpeg_scaled(hs, m);
    double f = m / 8.0;
    uint32_t svx0 = (uint32_t)floor(v[0] * f), svx1 = (uint32_t)ceil(v[1] * f);
    uint32_t svy0 = (uint32_t)floor(v[2] * f), svy1 = (uint32_t)ceil(v[3] * f);
    if (svx1 > sw)
        svx1 = sw;
    if (svy1 > sh)
        svy1 = sh;
    double in_w = svx1 - svx0, in_h = svy1 - svy0;
    int rc = feed__axis_build(&p->ctx->xa, svx1 - svx0, fmin(fmax(b[0] * f - svx0, 0), in_w),
                              fmin(b[1] * f - svx0, in_w), p->rw);
    if (!rc)
        rc = feed__axis_build(&p->ctx->ya, svy1 - svy0, fmin(fmax(b[2] * f - svy0, 0), in_h),
                              fmin(b[3] * f - svy0, in_h), p->rh);
    if (rc) {
        snprintf(msg, msglen, "%s", rc == FEED_E_NOMEM ? "out of memory" : "bad resize geometry");
        return rc;
    }
    p->scale = m;
    p->vx0 = svx0;
    p->vy0 = svy0;
    reg->scale = m;
    if (x->roi_decode) {
        reg->x0 = svx0 + p->ctx->xa.lo;
        reg->x1 = svx0 + p->ctx->xa.hi;
        reg->y0 = svy0 + p->ctx->ya.lo;
        reg->y1 = svy0 + p->ctx->ya.hi;
    } else {
        reg->x0 = reg->y0 = 0;
        reg->x1 = sw;
        reg->y1 = sh;
    }
    return 0;
}

static uint64_t feed__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int feed__check_xform(const feed__xform *x)
{
    if (!x || x->out_h == 0 || x->out_w == 0 || x->out_h > 65535 || x->out_w > 65535)
        return 0;
    if (x->mode == FEED_AUGMENT_VAL && x->resize_shorter == 0)
        return 0;
    if (x->mode == FEED_AUGMENT_TRAIN &&
        !(x->scale_min >= 0 && x->scale_min <= x->scale_max && x->ratio_min > 0 &&
          x->ratio_min <= x->ratio_max))
        return 0;
    return x->mode <= FEED_AUGMENT_TRAIN;
}

int feed__image_process(feed__image_ctx *ctx, const feed__xform *x, const uint8_t *data,
                        size_t len, uint64_t seed, uint64_t epoch, uint64_t sample_id,
                        uint8_t *out, feed__image_info *info, char *msg, size_t msglen)
{
    feed__image_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (msg && msglen)
        msg[0] = '\0';
    if (!ctx || !out || !feed__check_xform(x)) {
        if (msg && msglen)
            snprintf(msg, msglen, "invalid transform or arguments");
        return FEED_E_INVALID;
    }
    feed__plan p = {.ctx = ctx, .x = x, .seed = seed, .epoch = epoch, .id = sample_id};
    feed__jpeg_image img;
    uint64_t t0 = feed__now_ns();
    int rc = feed__jpeg_decode(ctx->jpeg, data, len, feed__plan_region, &p, &img, msg, msglen);
    uint64_t t1 = feed__now_ns();
    info->decode_ns = t1 - t0;
    if (rc)
        return rc;
    info->src_w = p.wd;
    info->src_h = p.hd;

    const int train = x->mode == FEED_AUGMENT_TRAIN;
    int flip = 0;
    double angle = 0;
    if (train && x->flip_p > 0) {
        feed__rng r;
        feed__rng_init(&r, seed, epoch, sample_id, FEED_RNG_FLIP);
        flip = feed__rng_uniform(&r) < x->flip_p;
    }
    if (train && x->rotate_deg > 0) {
        feed__rng r;
        feed__rng_init(&r, seed, epoch, sample_id, FEED_RNG_ROTATE);
        angle = feed__rng_range(&r, -x->rotate_deg, x->rotate_deg);
    }
    info->flipped = (uint32_t)flip;

    size_t ostride = (size_t)x->out_w * 3;
    size_t osize = ostride * x->out_h;
    /* where the upright, flipped image goes: out, or buf2 when rotating */
    uint8_t *up = out;
    if (angle != 0) {
        if (feed__grow((void **)&ctx->buf2, &ctx->cap2, osize))
            goto nomem;
        up = ctx->buf2;
    }
    if (p.sub_w != x->out_w || p.sub_h != x->out_h)
        memset(up, 0, osize);
    uint8_t *sub = up + (size_t)p.sub_y * ostride + (size_t)p.sub_x * 3;

    const feed__axis *xa = &ctx->xa, *ya = &ctx->ya;
    const uint8_t *src = img.pixels;
    if (!x->roi_decode) /* full decode: find the used region in the whole image */
        src += (size_t)(p.vy0 + ya->lo) * img.stride + (size_t)(p.vx0 + xa->lo) * 4;
    if (p.o == 1) {
        if (feed__resize_axes(&ctx->rz, xa, ya, src, img.stride, sub, ostride, flip))
            goto nomem;
    } else {
        size_t rstride = (size_t)p.rw * 3;
        if (feed__grow((void **)&ctx->buf1, &ctx->cap1, rstride * p.rh) ||
            feed__resize_axes(&ctx->rz, xa, ya, src, img.stride, ctx->buf1, rstride, 0))
            goto nomem;
        feed__orient_copy(ctx->buf1, rstride, p.rw, p.rh, p.o, flip, sub, ostride);
    }
    if (angle != 0)
        feed__rotate(up, out, x->out_w, x->out_h, angle, x->fill);

    size_t npx = (size_t)x->out_w * x->out_h;
    if (train && (x->brightness > 0 || x->contrast > 0 || x->saturation > 0 || x->hue > 0)) {
        /* torchvision ColorJitter.get_params: a random order, then the factors */
        feed__rng r;
        feed__rng_init(&r, seed, epoch, sample_id, FEED_RNG_JITTER);
        int order[4] = {0, 1, 2, 3};
        for (int k = 3; k > 0; k--) {
            int s = (int)feed__rng_below(&r, (uint64_t)k + 1), t = order[k];
            order[k] = order[s];
            order[s] = t;
        }
        double fb = 1, fc = 1, fsat = 1, fh = 0;
        if (x->brightness > 0)
            fb = feed__rng_range(&r, fmax(0, 1 - x->brightness), 1 + x->brightness);
        if (x->contrast > 0)
            fc = feed__rng_range(&r, fmax(0, 1 - x->contrast), 1 + x->contrast);
        if (x->saturation > 0)
            fsat = feed__rng_range(&r, fmax(0, 1 - x->saturation), 1 + x->saturation);
        if (x->hue > 0)
            fh = feed__rng_range(&r, -fmin(x->hue, 0.5), fmin(x->hue, 0.5));
        for (int k = 0; k < 4; k++) {
            switch (order[k]) {
            case 0: if (x->brightness > 0) feed__adjust_brightness(out, npx, fb); break;
            case 1: if (x->contrast > 0) feed__adjust_contrast(out, npx, fc); break;
            case 2: if (x->saturation > 0) feed__adjust_saturation(out, npx, fsat); break;
            default: if (x->hue > 0) feed__adjust_hue(out, npx, fh); break;
            }
        }
    }
    if (train && x->grayscale_p > 0) {
        feed__rng r;
        feed__rng_init(&r, seed, epoch, sample_id, FEED_RNG_GRAY);
        if (feed__rng_uniform(&r) < x->grayscale_p)
            feed__to_grayscale(out, npx);
    }
    info->augment_ns = feed__now_ns() - t1;
    return 0;
nomem:
    if (msg && msglen)
        snprintf(msg, msglen, "out of memory for image buffers");
    info->augment_ns = feed__now_ns() - t1;
    return FEED_E_NOMEM;
}
