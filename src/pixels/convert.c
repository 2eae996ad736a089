/*
 * convert.c - host-side normalize/convert, the same arithmetic as
 * src/device/cuda/convert.cu (both use the per-element functions of convert.h).
 *
 * float32: fmaf per element. Where the CPU has FMA (x86-64 with FMA3, picked
 * at run time; aarch64 always) the loops are written in fixed blocks of
 * FEED_CV_BLOCK pixels so the compiler vectorizes them even at -O2 (GCC's
 * "very cheap" cost model refuses loops that need a scalar epilogue); the
 * CHW layout on x86-64 (what a model takes) has its own AVX2 loop with
 * streaming stores (f32_chw_avx2: the convert stage 60 -> 40 us a 224 x 224
 * sample in feedbench --dtype float32, the same values). Without
 * hardware FMA, fmaf is a libm call, so a 3 x 256 table of the same fmaf
 * results is used instead: identical values, a load per element.
 * float16/bfloat16: always a 3 x 256 table of the converted bits, built with
 * the same functions the kernel uses (exact by construction, and cheaper than
 * the integer rounding per element).
 */
#include "pixels/convert.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#define FEED_CV_BLOCK 16

void feed__convert_params(const float mean[3], const float std[3], float scale[3], float bias[3])
{
    for (int c = 0; c < 3; c++) {
        scale[c] = 1.0f / (255.0f * std[c]);
        bias[c] = -mean[c] / std[c];
    }
}

size_t feed__dtype_size(uint32_t dtype)
{
    switch (dtype) {
    case FEED_DTYPE_UINT8:
        return 1;
    case FEED_DTYPE_FLOAT32:
        return 4;
    case FEED_DTYPE_FLOAT16:
    case FEED_DTYPE_BFLOAT16:
        return 2;
    }
    return 0;
}

/* ---- float32 by fmaf, blocked for the vectorizer ----------------------------- */

/* Always inlined into a caller compiled with or without FMA enabled, so the
 * fmaf builtin becomes vfmadd there. */
static inline __attribute__((always_inline)) void
f32_fma(const uint8_t *restrict hwc, uint32_t h, uint32_t w, uint32_t layout,
        const float *restrict s, const float *restrict b, int flip, float *restrict out)
{
    const float s0 = s[0], s1 = s[1], s2 = s[2], b0 = b[0], b1 = b[1], b2 = b[2];
    const size_t hw = (size_t)h * w, nblk = flip ? 0 : w / FEED_CV_BLOCK;
    for (size_t y = 0; y < h; y++) {
        const uint8_t *restrict row = hwc + y * w * 3;
        const uint8_t *restrict p = row;
        size_t x = nblk * FEED_CV_BLOCK;
        if (layout == FEED_LAYOUT_CHW) {
            float *restrict o0 = out + y * w;
            float *restrict o1 = o0 + hw;
            float *restrict o2 = o1 + hw;
            float *restrict q0 = o0, *restrict q1 = o1, *restrict q2 = o2;
            for (size_t i = 0; i < nblk; i++) {
                /* deinterleave first: the strided byte loads defeat the vectorizer */
                uint8_t t0[FEED_CV_BLOCK], t1[FEED_CV_BLOCK], t2[FEED_CV_BLOCK];
                for (int k = 0; k < FEED_CV_BLOCK; k++) {
                    t0[k] = p[3 * k + 0];
                    t1[k] = p[3 * k + 1];
                    t2[k] = p[3 * k + 2];
                }
                for (int k = 0; k < FEED_CV_BLOCK; k++)
                    q0[k] = fmaf((float)t0[k], s0, b0);
                for (int k = 0; k < FEED_CV_BLOCK; k++)
                    q1[k] = fmaf((float)t1[k], s1, b1);
                for (int k = 0; k < FEED_CV_BLOCK; k++)
                    q2[k] = fmaf((float)t2[k], s2, b2);
                p += 3 * FEED_CV_BLOCK;
                q0 += FEED_CV_BLOCK;
                q1 += FEED_CV_BLOCK;
                q2 += FEED_CV_BLOCK;
            }
            for (; x < w; x++) {
                const uint8_t *px = row + (flip ? w - 1 - x : x) * 3;
                o0[x] = fmaf((float)px[0], s0, b0);
                o1[x] = fmaf((float)px[1], s1, b1);
                o2[x] = fmaf((float)px[2], s2, b2);
            }
        } else {
            float *restrict o = out + y * w * 3;
            float *restrict q = o;
            for (size_t i = 0; i < nblk; i++) {
                for (int k = 0; k < 3 * FEED_CV_BLOCK; k += 3) {
                    q[k + 0] = fmaf((float)p[k + 0], s0, b0);
                    q[k + 1] = fmaf((float)p[k + 1], s1, b1);
                    q[k + 2] = fmaf((float)p[k + 2], s2, b2);
                }
                p += 3 * FEED_CV_BLOCK;
                q += 3 * FEED_CV_BLOCK;
            }
            for (; x < w; x++) {
                const uint8_t *px = row + (flip ? w - 1 - x : x) * 3;
                o[3 * x + 0] = fmaf((float)px[0], s0, b0);
                o[3 * x + 1] = fmaf((float)px[1], s1, b1);
                o[3 * x + 2] = fmaf((float)px[2], s2, b2);
            }
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__FMA__)
#define FEED_CV_DISPATCH 1
__attribute__((target("avx2,fma"))) static void
f32_fma_avx2(const uint8_t *hwc, uint32_t h, uint32_t w, uint32_t layout, const float *s,
             const float *b, int flip, float *out)
{
    f32_fma(hwc, h, w, layout, s, b, flip, out);
}

/* CHW float32 with the intrinsics, 16 pixels a step: pshufb splits the 48
 * RGB bytes into three 16-byte channel vectors, each widened to floats and
 * fma'd (the same single rounding as fmaf). Planes 32-byte aligned (a slot's
 * are: 224 x 4 bytes a row) are written with streaming stores: the batch is
 * read later by another process or a DMA, not from this core's cache, and a
 * streaming store does not first read the line it fills. The sfence at the
 * end orders them before the worker's release of the sample. */
__attribute__((target("avx2,fma"))) static void
f32_chw_avx2(const uint8_t *hwc, uint32_t h, uint32_t w, const float *s, const float *b, float *out)
{
    const __m128i mr[3] = {_mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
                           _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14, -1, -1, -1, -1, -1),
                           _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 4, 7, 10, 13)};
    const __m128i mg[3] = {_mm_setr_epi8(1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
                           _mm_setr_epi8(-1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1),
                           _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14)};
    const __m128i mb[3] = {_mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
                           _mm_setr_epi8(-1, -1, -1, -1, -1, 1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1),
                           _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15)};
    const __m256 sv[3] = {_mm256_set1_ps(s[0]), _mm256_set1_ps(s[1]), _mm256_set1_ps(s[2])};
    const __m256 bv[3] = {_mm256_set1_ps(b[0]), _mm256_set1_ps(b[1]), _mm256_set1_ps(b[2])};
    const size_t hw = (size_t)h * w;
    int stream = !((uintptr_t)out & 31) && !(hw & 7) && !(w & 7);
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *row = hwc + (size_t)y * w * 3;
        float *o[3] = {out + (size_t)y * w, out + hw + (size_t)y * w, out + 2 * hw + (size_t)y * w};
        uint32_t x = 0;
        for (; x + 16 <= w; x += 16) {
            const uint8_t *p = row + (size_t)x * 3;
            __m128i a = _mm_loadu_si128((const __m128i *)p);
            __m128i bb = _mm_loadu_si128((const __m128i *)(p + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(p + 32));
            __m128i ch[3];
            ch[0] = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(a, mr[0]), _mm_shuffle_epi8(bb, mr[1])),
                                 _mm_shuffle_epi8(c, mr[2]));
            ch[1] = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(a, mg[0]), _mm_shuffle_epi8(bb, mg[1])),
                                 _mm_shuffle_epi8(c, mg[2]));
            ch[2] = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(a, mb[0]), _mm_shuffle_epi8(bb, mb[1])),
                                 _mm_shuffle_epi8(c, mb[2]));
            for (int k = 0; k < 3; k++) {
                __m256 lo = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(ch[k])), sv[k], bv[k]);
                __m256 hi = _mm256_fmadd_ps(
                    _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(ch[k], 8))), sv[k], bv[k]);
                if (stream) {
                    _mm256_stream_ps(o[k] + x, lo);
                    _mm256_stream_ps(o[k] + x + 8, hi);
                } else {
                    _mm256_storeu_ps(o[k] + x, lo);
                    _mm256_storeu_ps(o[k] + x + 8, hi);
                }
            }
        }
        for (; x < w; x++) {
            const uint8_t *px = row + (size_t)x * 3;
            for (int k = 0; k < 3; k++)
                o[k][x] = fmaf((float)px[k], s[k], b[k]);
        }
    }
    if (stream)
        _mm_sfence();
}

static int cpu_has_fma(void)
{
    static int cached = -1; /* benign race: every thread computes the same answer */
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}
#elif defined(__FMA__) || defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
#define FEED_CV_NATIVE_FMA 1
#endif

/* ---- table paths ---------------------------------------------------------------- */

#define FEED_CV_TABLE(T, NAME)                                                                 \
    static void NAME(const uint8_t *restrict hwc, uint32_t h, uint32_t w, uint32_t layout,     \
                     const T lut[3][256], int flip, T *restrict out)                           \
    {                                                                                          \
        const size_t hw = (size_t)h * w;                                                       \
        for (uint32_t y = 0; y < h; y++) {                                                     \
            const uint8_t *restrict row = hwc + (size_t)y * w * 3;                             \
            if (layout == FEED_LAYOUT_CHW) {                                                   \
                T *restrict o0 = out + (size_t)y * w;                                          \
                T *restrict o1 = o0 + hw;                                                      \
                T *restrict o2 = o1 + hw;                                                      \
                for (uint32_t x = 0; x < w; x++) {                                             \
                    const uint8_t *p = row + (size_t)(flip ? w - 1 - x : x) * 3;               \
                    o0[x] = lut[0][p[0]];                                                      \
                    o1[x] = lut[1][p[1]];                                                      \
                    o2[x] = lut[2][p[2]];                                                      \
                }                                                                              \
            } else {                                                                           \
                T *restrict o = out + (size_t)y * w * 3;                                       \
                for (uint32_t x = 0; x < w; x++) {                                             \
                    const uint8_t *p = row + (size_t)(flip ? w - 1 - x : x) * 3;               \
                    o[3 * x + 0] = lut[0][p[0]];                                               \
                    o[3 * x + 1] = lut[1][p[1]];                                               \
                    o[3 * x + 2] = lut[2][p[2]];                                               \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }

FEED_CV_TABLE(float, f32_table)
FEED_CV_TABLE(uint16_t, u16_table)

static void u8_copy(const uint8_t *restrict hwc, uint32_t h, uint32_t w, uint32_t layout,
                    int flip, uint8_t *restrict out)
{
    const size_t hw = (size_t)h * w;
    if (layout == FEED_LAYOUT_HWC && !flip) {
        memcpy(out, hwc, hw * 3);
        return;
    }
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *restrict row = hwc + (size_t)y * w * 3;
        if (layout == FEED_LAYOUT_CHW) {
            uint8_t *restrict o0 = out + (size_t)y * w;
            uint8_t *restrict o1 = o0 + hw;
            uint8_t *restrict o2 = o1 + hw;
            for (uint32_t x = 0; x < w; x++) {
                const uint8_t *p = row + (size_t)(flip ? w - 1 - x : x) * 3;
                o0[x] = p[0];
                o1[x] = p[1];
                o2[x] = p[2];
            }
        } else {
            uint8_t *restrict o = out + (size_t)y * w * 3;
            for (uint32_t x = 0; x < w; x++) {
                const uint8_t *p = row + (size_t)(w - 1 - x) * 3; /* flip: else memcpy */
                o[3 * x + 0] = p[0];
                o[3 * x + 1] = p[1];
                o[3 * x + 2] = p[2];
            }
        }
    }
}

void feed__convert_sample(const uint8_t *hwc, uint32_t h, uint32_t w, uint32_t dtype,
                          uint32_t layout, const float scale[3], const float bias[3], int flip,
                          void *out)
{
    switch (dtype) {
    case FEED_DTYPE_UINT8:
        u8_copy(hwc, h, w, layout, flip, out);
        return;
    case FEED_DTYPE_FLOAT32: {
#if defined(FEED_CV_DISPATCH)
        if (cpu_has_fma()) {
            if (layout == FEED_LAYOUT_CHW && !flip)
                f32_chw_avx2(hwc, h, w, scale, bias, out);
            else
                f32_fma_avx2(hwc, h, w, layout, scale, bias, flip, out);
            return;
        }
#elif defined(FEED_CV_NATIVE_FMA)
        f32_fma(hwc, h, w, layout, scale, bias, flip, out);
        return;
#endif
        float lut[3][256];
        for (int c = 0; c < 3; c++)
            for (uint32_t x = 0; x < 256; x++)
                lut[c][x] = feed__px_norm(x, scale[c], bias[c]);
        f32_table(hwc, h, w, layout, (const float(*)[256])lut, flip, out);
        return;
    }
    case FEED_DTYPE_FLOAT16:
    case FEED_DTYPE_BFLOAT16: {
        uint16_t lut[3][256];
        for (int c = 0; c < 3; c++)
            for (uint32_t x = 0; x < 256; x++) {
                float v = feed__px_norm(x, scale[c], bias[c]);
                lut[c][x] = dtype == FEED_DTYPE_FLOAT16 ? feed__f32_to_f16(v) : feed__f32_to_bf16(v);
            }
        u16_table(hwc, h, w, layout, (const uint16_t(*)[256])lut, flip, out);
        return;
    }
    }
}
