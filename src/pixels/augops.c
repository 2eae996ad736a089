/*
 * augops.c - the ops of the policy augmentations (augops.h).
 *
 * torchvision computes on a uint8 tensor in float32 and casts back by
 * truncation (colour ops) or rounding half to even (the grid sampler). This
 * file does the same float32 operations in the same order, compiled without
 * floating-point contraction (sources.cmake): a fused multiply-add where
 * torchvision has two roundings, or two roundings where its vector kernels
 * fuse, moves a value across an integer now and then. Where ATen's kernels
 * fuse (the alpha of add_, which _blend and adjust_sharpness use),
 * feed__fma_f (augops_geom.h) does one rounding too.
 */
#include "pixels/augops.h"

#include <math.h>
#include <string.h>

#include "feed.h"
#include "pixels/augops_geom.h"

int feed__aug_simd = -1;

int feed__aug_level(void)
{
    if (feed__aug_simd >= 0)
        return feed__aug_simd;
#if defined(__x86_64__) && defined(__GNUC__)
    if (!__builtin_cpu_supports("avx2"))
        return 0;
    /* level 2's copies are built for these five (augops_geom.h) */
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
                   __builtin_cpu_supports("avx512vbmi")
               ? 2
               : 1;
#else
    return 0;
#endif
}

static const char *const names[FEED__AUG_OPS] = {
    "Identity", "ShearX",   "ShearY",    "TranslateX", "TranslateY",   "Rotate",
    "Brightness", "Color",  "Contrast",  "Sharpness",  "Posterize",    "Solarize",
    "AutoContrast", "Equalize", "Invert", "SolarizeAdd"};

const char *feed__aug_name(uint32_t op)
{
    return op < FEED__AUG_OPS ? names[op] : NULL;
}

uint32_t feed__aug_by_name(const char *name)
{
    for (uint32_t k = 0; k < FEED__AUG_OPS; k++)
        if (!strcmp(names[k], name))
            return k;
    return FEED__AUG_OPS;
}

/* float32 in [0, 255] (clamped) to uint8 by truncation, as .to(torch.uint8) */
static FEED__AUG_INLINE uint8_t trunc_u8(float v)
{
    v = v < 0 ? 0 : v > 255 ? 255 : v;
    return (uint8_t)v;
}

/* _rgb_to_grayscale_image(preserve_dtype=False) then floor_: r.mul(0.2989)
 * then add_ with alpha, which ATen fuses: r's product rounded to float32,
 * g's and b's exact in double, each sum rounded once (feed__fma_f). */
static FEED__AUG_INLINE int grey_floor(const uint8_t *p)
{
    float l = (float)((double)p[1] * (double)0.587f + (double)((float)p[0] * 0.2989f));
    l = (float)((double)p[2] * (double)0.114f + (double)l);
    return (int)l; /* l >= 0: truncation is floor */
}

/* _blend(image, other, ratio): image.mul(ratio).add_(other, alpha=1 - ratio), clamp, truncate */
static FEED__AUG_INLINE uint8_t blend(uint8_t v, float other, float ratio, float alpha)
{
    return trunc_u8(feed__fma_f(other, alpha, (float)v * ratio));
}

static void brightness(uint8_t *img, size_t n, double factor)
{
    float f = (float)factor;
    uint8_t lut[256];
    for (int v = 0; v < 256; v++)
        lut[v] = trunc_u8((float)v * f);
    feed__aug_map_lut(img, n, lut);
}

/* _blend(image, grey, ratio) per pixel */
static FEED__AUG_INLINE void saturation_px_c(uint8_t *img, size_t npx, double factor)
{
    float r = (float)factor, a = (float)(1.0 - factor);
    for (size_t i = 0; i < npx; i++, img += 3) {
        float g = (float)grey_floor(img);
        img[0] = blend(img[0], g, r, a);
        img[1] = blend(img[1], g, r, a);
        img[2] = blend(img[2], g, r, a);
    }
}

FEED__AUG_LEVELS(saturation_px, 1, (uint8_t *img, size_t npx, double factor), (img, npx, factor))

/* The same blends, the greys' products grey * (1 - ratio) (exact in
 * double) of 64 pixels first: AVX-512 runs it faster than the loop above,
 * AVX2 slower. */
static FEED__AUG_INLINE void saturation_rows_c(uint8_t *img, size_t npx, double factor)
{
    const float r = (float)factor;
    const double a = (float)(1.0 - factor);
    double ga[64];
    for (size_t i0 = 0; i0 < npx; i0 += 64) {
        size_t n = npx - i0 < 64 ? npx - i0 : 64;
        uint8_t *p = img + i0 * 3;
        for (size_t i = 0; i < n; i++)
            ga[i] = (double)grey_floor(p + i * 3) * a;
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++)
                p[i * 3 + c] = trunc_u8((float)(ga[i] + (double)((float)p[i * 3 + c] * r)));
    }
}

FEED__AUG_LEVELS(saturation_rows, 2, (uint8_t *img, size_t npx, double factor), (img, npx, factor))

static void saturation(uint8_t *img, size_t npx, double factor)
{
    if (feed__aug_level() >= 2)
        saturation_rows(img, npx, factor);
    else
        saturation_px(img, npx, factor);
}

/* torch.mean of the floored greys: an exact integer sum here, divided
 * once; torch's float32 cascade sum can differ in its last bit */
static FEED__AUG_INLINE void grey_sum_c(const uint8_t *img, size_t npx, uint64_t *sum)
{
    uint64_t s = 0;
    for (size_t i = 0; i < npx; i++)
        s += (uint32_t)grey_floor(img + i * 3);
    *sum = s;
}
FEED__AUG_LEVELS(grey_sum, 2, (const uint8_t *img, size_t npx, uint64_t *sum), (img, npx, sum))

/* The same sum for level 0, whose vectors convert to double slowly: the
 * products by value from tables, scalar. */
static uint64_t grey_sum_tables(const uint8_t *img, size_t npx)
{
    float r[256];
    double g[256], b[256];
    for (int v = 0; v < 256; v++) {
        r[v] = (float)v * 0.2989f;
        g[v] = (double)v * (double)0.587f;
        b[v] = (double)v * (double)0.114f;
    }
    uint64_t s = 0;
    for (size_t i = 0; i < npx; i++, img += 3) {
        float l = (float)(g[img[1]] + (double)r[img[0]]);
        l = (float)(b[img[2]] + (double)l);
        s += (uint32_t)(int)l;
    }
    return s;
}

static void contrast(uint8_t *img, size_t npx, double factor)
{
    uint64_t sum;
    if (feed__aug_level() == 0)
        sum = grey_sum_tables(img, npx);
    else
        grey_sum(img, npx, &sum);
    float mean = (float)((double)sum / (double)npx);
    float r = (float)factor, a = (float)(1.0 - factor);
    uint8_t lut[256];
    for (int v = 0; v < 256; v++)
        lut[v] = blend((uint8_t)v, mean, r, a);
    feed__aug_map_lut(img, npx * 3, lut);
}

/* adjust_sharpness: the interior blends with the 3x3 [1 1 1; 1 5 1; 1 1 1] / 13
 * blur, rounded; the border rows and columns stay. The blur's sum is an
 * integer S / 13, never a tie, so float32 conv2d rounds it as the exact
 * (2S + 13) / 26 does. The blend is (blur - v) * (1 - factor) + v with
 * one rounding (exact in double, then to float32). One row of scratch is
 * the row above, unblended. The row goes in pieces of 192 bytes, the
 * blurs' differences (integer lanes) first, then the blends (double
 * lanes): two loops without branches, which vectorise. */
static FEED__AUG_INLINE void sharpness_c(uint8_t *img, uint32_t w, uint32_t h, double factor, uint8_t *scratch)
{
    if (w <= 2 || h <= 2)
        return;
    const double a = (float)(1.0 - factor);
    size_t stride = (size_t)w * 3;
    uint8_t *above = scratch, *cur = scratch + stride;
    memcpy(above, img, stride);
    for (uint32_t y = 1; y + 1 < h; y++) {
        uint8_t *row = img + (size_t)y * stride;
        const uint8_t *below = row + stride;
        memcpy(cur, row, stride);
        for (size_t i0 = 3; i0 + 3 < stride; i0 += 192) {
            size_t n = stride - 3 - i0 < 192 ? stride - 3 - i0 : 192;
            int16_t d[192];
            for (size_t j = 0; j < n; j++) {
                size_t i = i0 + j;
                uint32_t s = above[i - 3] + above[i] + above[i + 3] + cur[i - 3] + 5u * cur[i] + cur[i + 3] +
                             below[i - 3] + below[i] + below[i + 3];
                d[j] = (int16_t)((int32_t)((2 * s + 13) / 26) - cur[i]);
            }
            for (size_t j = 0; j < n; j++)
                row[i0 + j] = trunc_u8((float)((double)d[j] * a + (double)cur[i0 + j]));
        }
        uint8_t *t = above;
        above = cur;
        cur = t;
    }
}

FEED__AUG_LEVELS(sharpness, 2, (uint8_t *img, uint32_t w, uint32_t h, double factor, uint8_t *scratch),
                 (img, w, h, factor, scratch))

/* autocontrast_image: per channel, (v - min) / ((max - min) * (1 / 255)) in
 * float32, truncated; a flat channel stays */
static void autocontrast(uint8_t *img, size_t npx)
{
    uint8_t lo[3], hi[3], lut[3][256];
    feed__aug_range3(img, npx, lo, hi);
    for (int c = 0; c < 3; c++) {
        float mn = lo[c], inv = (float)(hi[c] - lo[c]) * (float)(1.0 / 255.0);
        if (hi[c] == lo[c])
            mn = 0, inv = 1;
        for (int v = 0; v < 256; v++)
            lut[c][v] = trunc_u8(((float)v - mn) / inv);
    }
    feed__aug_map_lut3(img, npx, lut);
}

/* equalize_image (PIL's scheme): per channel, step = (pixels not of the
 * highest value present) / 255; lut[0] = 0, lut[k] = (cum[k-1] + step / 2)
 * / step, at most 255; step 0 leaves the channel (an identity table) */
static void equalize(uint8_t *img, size_t npx)
{
    uint64_t hist[3][256];
    uint8_t lut[3][256];
    feed__aug_hist3(img, npx, hist);
    for (int c = 0; c < 3; c++) {
        int top = 255;
        while (top > 0 && !hist[c][top])
            top--;
        uint64_t step = (npx - hist[c][top]) / 255, cum = 0;
        lut[c][0] = 0;
        for (int k = 1; k < 256; k++) {
            cum += hist[c][k - 1];
            uint64_t v = step ? (cum + step / 2) / step : (uint64_t)k;
            lut[c][k] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
    feed__aug_map_lut3(img, npx, lut);
}

/* solarize_image: torch compares the uint8 tensor with the Python float
 * as float32. (float)v >= t holds from some k on (256: never), so the
 * test is v >= k, in a byte loop that vectorises. */
static void solarize(uint8_t *img, size_t n, double threshold)
{
    float t = (float)threshold;
    int k = 0;
    while (k < 256 && !((float)k >= t))
        k++;
    if (k == 256)
        return;
    /* bytes against a byte: the loop stays in byte lanes */
    const uint8_t kb = (uint8_t)k;
    for (size_t i = 0; i < n; i++)
        img[i] = img[i] >= kb ? (uint8_t)(255 - img[i]) : img[i];
}

/* timm's solarize_add: add to the values below 128, saturating */
static void solarize_add(uint8_t *img, size_t n, int add)
{
    for (size_t i = 0; i < n; i++) {
        int v = img[i], s = v + add;
        s = s > 255 ? 255 : s < 0 ? 0 : s;
        img[i] = (uint8_t)(v < 128 ? s : v);
    }
}

void feed__aug_apply(uint32_t op, double arg, uint8_t *img, uint32_t w, uint32_t h, uint32_t interp,
                     const uint8_t fill[3], uint8_t *scratch)
{
    size_t npx = (size_t)w * h, n = npx * 3;
    switch (op) {
    case FEED__AUG_SHEAR_X:
    case FEED__AUG_SHEAR_Y:
        feed__aug_shear(op == FEED__AUG_SHEAR_Y, arg, img, w, h, interp, fill, scratch);
        break;
    case FEED__AUG_TRANSLATE_X:
        feed__aug_translate(arg, 0, img, w, h, interp, fill, scratch);
        break;
    case FEED__AUG_TRANSLATE_Y:
        feed__aug_translate(0, arg, img, w, h, interp, fill, scratch);
        break;
    case FEED__AUG_ROTATE:
        feed__aug_rotate(arg, img, w, h, interp, fill, scratch);
        break;
    case FEED__AUG_BRIGHTNESS:
        brightness(img, n, arg);
        break;
    case FEED__AUG_COLOR:
        saturation(img, npx, arg);
        break;
    case FEED__AUG_CONTRAST:
        contrast(img, npx, arg);
        break;
    case FEED__AUG_SHARPNESS:
        sharpness(img, w, h, arg, scratch);
        break;
    case FEED__AUG_POSTERIZE: {
        int bits = (int)arg;
        uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - (bits < 0 ? 0 : bits)));
        for (size_t i = 0; i < n; i++)
            img[i] &= mask;
        break;
    }
    case FEED__AUG_SOLARIZE:
        solarize(img, n, arg);
        break;
    case FEED__AUG_SOLARIZE_ADD:
        solarize_add(img, n, (int)arg);
        break;
    case FEED__AUG_AUTOCONTRAST:
        autocontrast(img, npx);
        break;
    case FEED__AUG_EQUALIZE:
        equalize(img, npx);
        break;
    case FEED__AUG_INVERT:
        for (size_t i = 0; i < n; i++)
            img[i] = (uint8_t)~img[i];
        break;
    default: /* Identity */
        break;
    }
}
