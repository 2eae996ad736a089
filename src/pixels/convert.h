/*
 * convert.h - uint8 HWC (RGB) pixels -> the caller's dtype and layout.
 *
 *     value = (x / 255 - mean[c]) / std[c]
 *
 * computed as fmaf(x, scale[c], bias[c]) with scale = 1 / (255 * std) and
 * bias = -mean / std precomputed in float by feed__convert_params(). The same
 * per-element functions below (FEED_HD: __host__ __device__ under nvcc,
 * nothing in plain C) run in the workers (src/pixels/convert.c, host backend) and in
 * the CUDA kernel (src/device/cuda/convert.cu), so host and device give bitwise-identical
 * float32, and hence identical float16/bfloat16 (round to nearest even, done
 * with integer code, not with compiler or hardware conversions).
 *
 * Not a pure "1 ulp of (x/255 - mean)/std" function: scale and bias are
 * rounded to float once, so the absolute error is at most about
 * 2^-23 * (|x * scale| + |bias|) + half an ulp of the result. That is what
 * makes the fused multiply-add possible and the GPU path exact to the CPU's.
 */
#ifndef FEED_CONVERT_H
#define FEED_CONVERT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "feed.h"

#if defined(__CUDACC__)
#define FEED_HD __host__ __device__
#else
#define FEED_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* scale[c] = 1 / (255 * std[c]), bias[c] = -mean[c] / std[c], in float. */
void feed__convert_params(const float mean[3], const float std[3], float scale[3], float bias[3]);

/* Bytes of one element of dtype (FEED_DTYPE_*); 0 for an unknown dtype. */
size_t feed__dtype_size(uint32_t dtype);

/*
 * Converts one h x w RGB sample, uint8 HWC at hwc, into out as dtype in
 * layout (FEED_LAYOUT_HWC: [h][w][3]; FEED_LAYOUT_CHW: [3][h][w]).
 * FEED_DTYPE_UINT8 copies the pixels unchanged (only layout and flip apply).
 * flip != 0 mirrors the sample horizontally (output column x takes input
 * column w - 1 - x). out must not overlap hwc and must be aligned to
 * feed__dtype_size(dtype). scale/bias come from feed__convert_params().
 */
void feed__convert_sample(const uint8_t *hwc, uint32_t h, uint32_t w, uint32_t dtype,
                          uint32_t layout, const float scale[3], const float bias[3], int flip,
                          void *out);

#ifdef __cplusplus
}
#endif

/* ---- per-element functions, shared with the CUDA kernel ---------------------- */

static inline FEED_HD uint32_t feed__f32_bits(float f)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}

/* One channel value: (x/255 - mean)/std as a single fused multiply-add. */
static inline FEED_HD float feed__px_norm(uint32_t x, float scale, float bias)
{
    return fmaf((float)x, scale, bias);
}

/* float -> IEEE binary16 bits, round to nearest even. Overflow (|f| >= 65520)
 * gives infinity, values below half the smallest subnormal give signed zero,
 * NaN stays NaN (quiet, sign and top payload bits kept). */
static inline FEED_HD uint16_t feed__f32_to_f16(float f)
{
    uint32_t x = feed__f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u | ((a >> 13) & 0x3ffu) : 0u));
    if (a >= 0x477ff000u) /* >= 65520: rounds past the largest half (65504) */
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) { /* >= 2^-14: a normal half; rebias the exponent 127 -> 15 */
        uint32_t m = a - 0x38000000u;
        return (uint16_t)(sign | ((m + 0xfffu + ((m >> 13) & 1u)) >> 13));
    }
    if (a < 0x33000000u) /* < 2^-25: rounds to zero (2^-25 itself ties to even zero) */
        return (uint16_t)sign;
    /* subnormal half: mantissa with its implicit bit, shifted by 14..24 */
    uint32_t e = a >> 23;
    uint32_t mant = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e;
    uint32_t q = (mant + (1u << (shift - 1)) - 1u + ((mant >> shift) & 1u)) >> shift;
    return (uint16_t)(sign | q); /* q == 0x400 is the smallest normal: still right */
}

/* float -> bfloat16 bits, round to nearest even; NaN stays a quiet NaN. */
static inline FEED_HD uint16_t feed__f32_to_bf16(float f)
{
    uint32_t x = feed__f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

#endif /* FEED_CONVERT_H */
