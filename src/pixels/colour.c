/*
 * colour.c - ColorJitter's adjustments and greyscale on RGB (colour.h).
 *
 * Brightness and contrast are a function of the byte value alone (contrast's
 * after one pass for the mean), so they go through a 256-entry table;
 * saturation blends with the luma in Q12; hue follows torchvision's float
 * HSV round trip.
 */
#include "pixels/colour.h"

#include <math.h>

#include "common/pixel.h"

static void feed__lut(uint8_t *p, size_t n, const uint8_t lut[256])
{
    for (size_t i = 0; i < n * 3; i++)
        p[i] = lut[p[i]];
}

void feed__adjust_brightness(uint8_t *p, size_t n, double f)
{
    uint8_t lut[256];
    for (int v = 0; v < 256; v++)
        lut[v] = feed__clamp8((int32_t)lrint(fmin(v * f, 255.0)));
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
        lut[v] = feed__clamp8((int32_t)lrint(fmax(fmin(f * v + (1 - f) * mean, 255.0), 0.0)));
    feed__lut(p, n, lut);
}

void feed__adjust_saturation(uint8_t *p, size_t n, double f)
{
    /* Past 1024 every pixel off the grey already saturates to 0 or 255 (and
     * grey ones stay grey): the same output, and fq * 255 fits an int32. */
    if (f > 1024)
        f = 1024;
    int32_t fq = (int32_t)lrint(f * 4096), gq = 4096 - fq;
    for (size_t i = 0; i < n; i++, p += 3) {
        int32_t g = feed__luma(p[0], p[1], p[2]) * gq + 2048;
        p[0] = feed__clamp8((fq * p[0] + g) >> 12);
        p[1] = feed__clamp8((fq * p[1] + g) >> 12);
        p[2] = feed__clamp8((fq * p[2] + g) >> 12);
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
            p[c] = feed__clamp8((int32_t)lrint(o[c] * 255.0));
    }
}

void feed__to_grayscale(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++, p += 3)
        p[0] = p[1] = p[2] = feed__luma(p[0], p[1], p[2]);
}

void feed__colour_jitter(uint8_t *p, size_t n, feed__rng *r, float brightness, float contrast,
                         float saturation, float hue)
{
    /* torchvision ColorJitter.get_params: a random order, then the factors */
    int order[4] = {0, 1, 2, 3};
    for (int k = 3; k > 0; k--) {
        int s = (int)feed__rng_below(r, (uint64_t)k + 1), t = order[k];
        order[k] = order[s];
        order[s] = t;
    }
    double fb = 1, fc = 1, fsat = 1, fh = 0;
    if (brightness > 0)
        fb = feed__rng_range(r, fmax(0, 1 - brightness), 1 + brightness);
    if (contrast > 0)
        fc = feed__rng_range(r, fmax(0, 1 - contrast), 1 + contrast);
    if (saturation > 0)
        fsat = feed__rng_range(r, fmax(0, 1 - saturation), 1 + saturation);
    if (hue > 0)
        fh = feed__rng_range(r, -fmin(hue, 0.5), fmin(hue, 0.5));
    for (int k = 0; k < 4; k++) {
        switch (order[k]) {
        case 0: if (brightness > 0) feed__adjust_brightness(p, n, fb); break;
        case 1: if (contrast > 0) feed__adjust_contrast(p, n, fc); break;
        case 2: if (saturation > 0) feed__adjust_saturation(p, n, fsat); break;
        default: if (hue > 0) feed__adjust_hue(p, n, fh); break;
        }
    }
}
