/*
 * augops.c - the ops of the policy augmentations (augops.h).
 *
 * torchvision computes on a uint8 tensor in float32 and casts back by
 * truncation (colour ops) or rounding half to even (the grid sampler). This
 * file does the same float32 operations in the same order, compiled without
 * floating-point contraction (sources.cmake): a fused multiply-add where
 * torchvision has two roundings, or two roundings where its vector kernels
 * fuse, moves a value across an integer now and then. Where ATen's kernels
 * fuse (the alpha of add_, which _blend and adjust_sharpness use), fma_f
 * below does one rounding too.
 */
#include "pixels/augops.h"

#include <math.h>
#include <string.h>

#include "feed.h"

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

/* a * b + c rounded once to float32, as ATen's vector kernels (built with
 * FMA) round it. The product of two floats is exact in a double, and so is
 * the sum whenever it spans at most 53 bits: with 0..255 values, for every
 * factor whose magnitude is 0 or >= 2^-22 (the policies' are 0 or >= 0.03)
 * and for the sampler's weights >= 2^-22. Otherwise the double sum is
 * rounded first, and differs from the fused result only if that lands
 * exactly on a float midpoint (a chance under 2^-29). The colour ops form
 * the same sums from tables of the exact products. */
static inline float fma_f(float a, float b, float c)
{
    return (float)((double)a * b + c);
}

/* nearbyintf and floorf without a libm call (x86-64's baseline SSE2 has no
 * rounding instruction, and the calls dominated the sampler): adding and
 * taking away 1.5 * 2^23 rounds half to even in the default rounding mode,
 * exact for |v| < 2^22; the int conversion truncates, exact for |v| < 2^30 */
static inline float round_even(float v)
{
    return fabsf(v) < 0x1p22f ? (v + 0x1.8p23f) - 0x1.8p23f : nearbyintf(v);
}

static inline float floor_f(float v)
{
    if (!(fabsf(v) < 0x1p30f))
        return floorf(v);
    float t = (float)(int32_t)v;
    return t > v ? t - 1.0f : t;
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
    return trunc_u8(fma_f(other, alpha, (float)v * ratio));
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

void feed__aug_inverse_matrix(double cx, double cy, double angle, double tx, double ty, double shear_x,
                              double shear_y, double m[6])
{
    /* Python's math.radians: x * (pi / 180) */
    const double deg2rad = M_PI / 180.0;
    double rot = angle * deg2rad, sx = shear_x * deg2rad, sy = shear_y * deg2rad;
    double cos_sy = cos(sy), tan_sx = tan(sx);
    double rot_minus_sy = rot - sy, cx_plus_tx = cx + tx, cy_plus_ty = cy + ty;
    double a = cos(rot_minus_sy) / cos_sy;
    double b = -(a * tan_sx + sin(rot));
    double c = sin(rot_minus_sy) / cos_sy;
    double d = cos(rot) - c * tan_sx;
    m[0] = d, m[1] = -b, m[2] = 0.0, m[3] = -c, m[4] = a, m[5] = 0.0;
    m[2] += cx - m[0] * cx_plus_tx - m[1] * cy_plus_ty;
    m[5] += cy - m[3] * cx_plus_tx - m[4] * cy_plus_ty;
}

/* One output row of the grid sampler. The grid point of output (x, y) is
 * the float32 theta, divided by (w / 2, h / 2), applied to the centred
 * (x, y) as _affine_grid's bmm (x * a + y * b, then + c: the rounding MKL's
 * sgemm gives), unnormalised as grid_sample's vector kernel ((g + 1) *
 * (size / 2) - 0.5, fused). Nearest rounds half to even; bilinear sums the
 * four neighbours' value * weight in ATen's order, each fused onto the sum,
 * and the fill goes in through the mask channel torchvision appends (the
 * same sum over ones): (v - fill) * mask + fill, then rounded half to even. */
static void affine_row(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, uint32_t y,
                       const float R[6], uint32_t interp, const uint8_t fill[3])
{
    const float hw = (float)w * 0.5f, hh = (float)h * 0.5f;
    const float by = (float)y - (float)(((double)h - 1.0) * 0.5);
    const float yx = by * R[1], yy = by * R[4];
    const size_t stride = (size_t)w * 3;
    for (uint32_t x = 0; x < w; x++, out += 3) {
        float bx = (float)x - (float)(((double)w - 1.0) * 0.5);
        float gx = (bx * R[0] + yx) + R[2];
        float gy = (bx * R[3] + yy) + R[5];
        float ix = fma_f(gx + 1.0f, hw, -0.5f);
        float iy = fma_f(gy + 1.0f, hh, -0.5f);
        if (interp == FEED_INTERP_NEAREST) {
            float rx = round_even(ix), ry = round_even(iy);
            if (rx >= 0 && rx <= (float)(w - 1) && ry >= 0 && ry <= (float)(h - 1))
                memcpy(out, in + (size_t)(int32_t)ry * stride + (size_t)(int32_t)rx * 3, 3);
            else
                memcpy(out, fill, 3);
            continue;
        }
        if (!(fabsf(ix) < 0x1p30f && fabsf(iy) < 0x1p30f)) {
            memcpy(out, fill, 3); /* far outside: no neighbour in, mask 0 */
            continue;
        }
        float x0 = floor_f(ix), y0 = floor_f(iy);
        float we = ix - x0, ea = 1.0f - we, no = iy - y0, so = 1.0f - no;
        float wt[4] = {so * ea, so * we, no * ea, no * we}; /* nw, ne, sw, se */
        /* the four neighbours' (mask, r, g, b), 0 outside: four chains
         * side by side, so that their roundings overlap */
        float val[4][4];
        int64_t xi = (int64_t)x0, yi = (int64_t)y0;
        for (int k = 0; k < 4; k++) {
            int64_t cx = xi + (k & 1), cy = yi + (k >> 1);
            if (cx >= 0 && cx < (int64_t)w && cy >= 0 && cy < (int64_t)h) {
                const uint8_t *p = in + (size_t)cy * stride + (size_t)cx * 3;
                val[k][0] = 1.0f, val[k][1] = p[0], val[k][2] = p[1], val[k][3] = p[2];
            } else {
                val[k][0] = val[k][1] = val[k][2] = val[k][3] = 0.0f;
            }
        }
        float acc[4];
        for (int c = 0; c < 4; c++)
            acc[c] = val[0][c] * wt[0];
        for (int k = 1; k < 4; k++)
            for (int c = 0; c < 4; c++)
                acc[c] = fma_f(val[k][c], wt[k], acc[c]);
        for (int c = 0; c < 3; c++) {
            float f = fill[c];
            out[c] = (uint8_t)round_even((acc[c + 1] - f) * acc[0] + f);
        }
    }
}

void feed__aug_affine(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, const double m[6],
                      uint32_t interp, const uint8_t fill[3])
{
    float R[6];
    const float sw = (float)(0.5 * w), sh = (float)(0.5 * h);
    for (int k = 0; k < 3; k++) {
        R[k] = (float)m[k] / sw;
        R[3 + k] = (float)m[3 + k] / sh;
    }
    for (uint32_t y = 0; y < h; y++)
        affine_row(in, out + (size_t)y * w * 3, w, h, y, R, interp, fill);
}

/* torch.rot90 of the HWC image by k quarter turns counter-clockwise (k = 2
 * any shape; k = 1, 3 square only), from in to out */
static void rot90(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, int k)
{
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t sx = x, sy = y;
            if (k == 1)
                sx = w - 1 - y, sy = x;
            else if (k == 2)
                sx = w - 1 - x, sy = h - 1 - y;
            else
                sx = y, sy = h - 1 - x;
            memcpy(out + ((size_t)y * w + x) * 3, in + ((size_t)sy * w + sx) * 3, 3);
        }
}

/* rotate_image(expand=False, center=None): the angle mod 360 as Python's %,
 * the exact fast paths torchvision takes (0, 180, and 90 / 270 on a square),
 * else the grid with the matrix of -angle */
static void rotate(uint8_t *img, uint32_t w, uint32_t h, double angle, uint32_t interp,
                   const uint8_t fill[3], uint8_t *scratch)
{
    angle = fmod(angle, 360.0);
    if (angle < 0)
        angle += 360.0;
    if (angle == 0)
        return;
    size_t n = (size_t)w * h * 3;
    memcpy(scratch, img, n);
    if (angle == 180 || (w == h && (angle == 90 || angle == 270))) {
        rot90(scratch, img, w, h, angle == 90 ? 1 : angle == 180 ? 2 : 3);
        return;
    }
    double m[6];
    feed__aug_inverse_matrix(0, 0, -angle, 0, 0, 0, 0, m);
    feed__aug_affine(scratch, img, w, h, m, interp, fill);
}

/* affine_image with angle 0 and scale 1: shear about the corner (torchvision
 * turns the factor into degrees(atan(s)) and back) or a translation about
 * the centre */
static void shear_translate(uint32_t op, double arg, uint8_t *img, uint32_t w, uint32_t h,
                            uint32_t interp, const uint8_t fill[3], uint8_t *scratch)
{
    double m[6];
    const double rad2deg = 180.0 / M_PI; /* Python's math.degrees */
    double shear = atan(arg) * rad2deg;
    if (op == FEED__AUG_SHEAR_X)
        feed__aug_inverse_matrix(0 - w * 0.5, 0 - h * 0.5, 0, 0, 0, shear, 0, m);
    else if (op == FEED__AUG_SHEAR_Y)
        feed__aug_inverse_matrix(0 - w * 0.5, 0 - h * 0.5, 0, 0, 0, 0, shear, m);
    else if (op == FEED__AUG_TRANSLATE_X)
        feed__aug_inverse_matrix(0, 0, 0, arg, 0, 0, 0, m);
    else
        feed__aug_inverse_matrix(0, 0, 0, 0, arg, 0, 0, m);
    memcpy(scratch, img, (size_t)w * h * 3);
    feed__aug_affine(scratch, img, w, h, m, interp, fill);
}

void feed__aug_apply(uint32_t op, double arg, uint8_t *img, uint32_t w, uint32_t h, uint32_t interp,
                     const uint8_t fill[3], uint8_t *scratch)
{
    size_t npx = (size_t)w * h, n = npx * 3;
    switch (op) {
    case FEED__AUG_SHEAR_X:
    case FEED__AUG_SHEAR_Y:
    case FEED__AUG_TRANSLATE_X:
    case FEED__AUG_TRANSLATE_Y:
        shear_translate(op, arg, img, w, h, interp, fill, scratch);
        break;
    case FEED__AUG_ROTATE:
        rotate(img, w, h, arg, interp, fill, scratch);
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
