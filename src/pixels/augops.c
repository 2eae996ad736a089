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
static inline uint8_t trunc_u8(float v)
{
    v = v < 0 ? 0 : v > 255 ? 255 : v;
    return (uint8_t)v;
}

/* _rgb_to_grayscale_image(preserve_dtype=False) then floor_: r.mul(0.2989)
 * then add_ with alpha, which ATen fuses. The products by value, in tables:
 * r's as float32, g's and b's exact in double, as fma_f forms them. */
typedef struct grey_tables {
    float r[256];
    double g[256], b[256];
} grey_tables;

static void grey_tables_init(grey_tables *t)
{
    for (int v = 0; v < 256; v++) {
        t->r[v] = (float)v * 0.2989f;
        t->g[v] = (double)v * 0.587f;
        t->b[v] = (double)v * 0.114f;
    }
}

static inline int grey_floor(const grey_tables *t, const uint8_t *p)
{
    float l = (float)(t->g[p[1]] + t->r[p[0]]);
    l = (float)(t->b[p[2]] + l);
    return (int)l; /* l >= 0: truncation is floor */
}

/* _blend(image, other, ratio): image.mul(ratio).add_(other, alpha=1 - ratio), clamp, truncate */
static inline uint8_t blend(uint8_t v, float other, float ratio, float alpha)
{
    return trunc_u8(feed__fma_f(other, alpha, (float)v * ratio));
}

/* A per-value op through a table of its 256 results. */
static void map_lut(uint8_t *img, size_t n, const uint8_t lut[256])
{
    for (size_t i = 0; i < n; i++)
        img[i] = lut[img[i]];
}

static void brightness(uint8_t *img, size_t n, double factor)
{
    float f = (float)factor;
    uint8_t lut[256];
    for (int v = 0; v < 256; v++)
        lut[v] = trunc_u8((float)v * f);
    map_lut(img, n, lut);
}

/* _blend(image, grey, ratio) per pixel, with the products v * ratio
 * (float32) and grey * (1 - ratio) (exact, double) from tables */
static void saturation(uint8_t *img, size_t npx, double factor)
{
    float r = (float)factor, a = (float)(1.0 - factor);
    grey_tables t;
    grey_tables_init(&t);
    float vr[256];
    double ga[256];
    for (int v = 0; v < 256; v++)
        vr[v] = (float)v * r, ga[v] = (double)v * a;
    for (size_t i = 0; i < npx; i++, img += 3) {
        double g = ga[grey_floor(&t, img)];
        img[0] = trunc_u8((float)(g + vr[img[0]]));
        img[1] = trunc_u8((float)(g + vr[img[1]]));
        img[2] = trunc_u8((float)(g + vr[img[2]]));
    }
}

static void contrast(uint8_t *img, size_t npx, double factor)
{
    /* torch.mean of the floored greys: an exact integer sum here, divided
     * once; torch's float32 cascade sum can differ in its last bit */
    grey_tables t;
    grey_tables_init(&t);
    uint64_t sum = 0;
    for (size_t i = 0; i < npx; i++)
        sum += (uint64_t)grey_floor(&t, img + i * 3);
    float mean = (float)((double)sum / (double)npx);
    float r = (float)factor, a = (float)(1.0 - factor);
    uint8_t lut[256];
    for (int v = 0; v < 256; v++)
        lut[v] = blend((uint8_t)v, mean, r, a);
    map_lut(img, npx * 3, lut);
}

/* adjust_sharpness: the interior blends with the 3x3 [1 1 1; 1 5 1; 1 1 1] / 13
 * blur, rounded; the border rows and columns stay. The blur's sum is an
 * integer S / 13, never a tie, so float32 conv2d rounds it as the exact
 * (2S + 13) / 26 does. One row of scratch is the row above, unblended. */
static void sharpness(uint8_t *img, uint32_t w, uint32_t h, double factor, uint8_t *scratch)
{
    if (w <= 2 || h <= 2)
        return;
    /* (blur - v) * (1 - factor), exact in double, for every difference */
    double da[511];
    for (int d = -255; d <= 255; d++)
        da[d + 255] = (double)d * (float)(1.0 - factor);
    size_t stride = (size_t)w * 3;
    uint8_t *above = scratch, *cur = scratch + stride;
    memcpy(above, img, stride);
    for (uint32_t y = 1; y + 1 < h; y++) {
        uint8_t *row = img + (size_t)y * stride;
        const uint8_t *below = row + stride;
        memcpy(cur, row, stride);
        for (uint32_t x = 1; x + 1 < w; x++) {
            for (int c = 0; c < 3; c++) {
                size_t l = (size_t)(x - 1) * 3 + c, m = l + 3, r = m + 3;
                uint32_t s = above[l] + above[m] + above[r] + cur[l] + 5u * cur[m] + cur[r] +
                             below[l] + below[m] + below[r];
                int blur = (int)((2 * s + 13) / 26);
                row[m] = trunc_u8((float)(da[blur - cur[m] + 255] + cur[m]));
            }
        }
        uint8_t *t = above;
        above = cur;
        cur = t;
    }
}

/* autocontrast_image: per channel, (v - min) / ((max - min) * (1 / 255)) in
 * float32, truncated; a flat channel stays */
static void autocontrast(uint8_t *img, size_t npx)
{
    for (int c = 0; c < 3; c++) {
        uint8_t lo = 255, hi = 0;
        for (size_t i = 0; i < npx; i++) {
            uint8_t v = img[i * 3 + c];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        float mn = lo, inv = (float)(hi - lo) * (float)(1.0 / 255.0);
        if (hi == lo)
            mn = 0, inv = 1;
        uint8_t lut[256];
        for (int v = 0; v < 256; v++)
            lut[v] = trunc_u8(((float)v - mn) / inv);
        for (size_t i = 0; i < npx; i++)
            img[i * 3 + c] = lut[img[i * 3 + c]];
    }
}

/* equalize_image (PIL's scheme): per channel, step = (pixels not of the
 * highest value present) / 255; lut[0] = 0, lut[k] = (cum[k-1] + step / 2)
 * / step, at most 255; step 0 leaves the channel */
static void equalize(uint8_t *img, size_t npx)
{
    for (int c = 0; c < 3; c++) {
        uint64_t hist[256] = {0};
        for (size_t i = 0; i < npx; i++)
            hist[img[i * 3 + c]]++;
        int top = 255;
        while (top > 0 && !hist[top])
            top--;
        uint64_t step = (npx - hist[top]) / 255;
        if (!step)
            continue;
        uint8_t lut[256];
        uint64_t cum = 0;
        lut[0] = 0;
        for (int k = 1; k < 256; k++) {
            cum += hist[k - 1];
            uint64_t v = (cum + step / 2) / step;
            lut[k] = (uint8_t)(v > 255 ? 255 : v);
        }
        for (size_t i = 0; i < npx; i++)
            img[i * 3 + c] = lut[img[i * 3 + c]];
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
    case FEED__AUG_SOLARIZE: {
        /* torch compares the uint8 tensor with the Python float as float32 */
        float t = (float)arg;
        for (size_t i = 0; i < n; i++)
            img[i] = (float)img[i] >= t ? (uint8_t)(255 - img[i]) : img[i];
        break;
    }
    case FEED__AUG_SOLARIZE_ADD: {
        int add = (int)arg;
        for (size_t i = 0; i < n; i++)
            if (img[i] < 128) {
                int v = img[i] + add;
                img[i] = (uint8_t)(v > 255 ? 255 : v < 0 ? 0 : v);
            }
        break;
    }
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
