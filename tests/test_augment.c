/*
 * test_augment.c - the pixel stages (src/pixels/resize.c, geometry.c, colour.c,
 * pixels/pipeline.c): each op against a float64 reference, RandomResizedCrop's
 * distribution against torchvision's definition, and feed__image_process()
 * end to end (modes, EXIF, ROI/DCT scaling bounds, determinism).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <turbojpeg.h>

#include "common/rng.h"
#include "decode/jpeg.h"
#include "feed.h"
#include "pixels/colour.h"
#include "pixels/geometry.h"
#include "pixels/pipeline.h"
#include "pixels/resize.h"
#include "test_image_util.h"


/* ---- resize ------------------------------------------------------------------------ */

static void check_resize(feed__resizer *rz, feed__axis *xa, feed__axis *ya, const uint8_t *rgb,
                         uint32_t w, uint32_t h, double bx0, double by0, double bx1, double by1,
                         uint32_t dw, uint32_t dh)
{
    uint8_t *rgbx = ti_rgbx(rgb, w, h);
    uint8_t *out = malloc((size_t)dw * dh * 3);
    assert_int_equal(feed__resize(rz, xa, ya, rgbx, (size_t)w * 4, w, h, bx0, by0, bx1, by1, out,
                                  (size_t)dw * 3, dw, dh, 0, FEED__FILTER_BILINEAR),
                     0);
    double *ref = ti_resize_ref(rgb, w, h, bx0, by0, bx1, by1, dw, dh);
    double e = ti_max_err(out, ref, (size_t)dw * dh * 3);
    if (e > 1)
        fprintf(stderr, "resize %ux%u box (%g,%g)-(%g,%g) -> %ux%u: max err %g\n", w, h, bx0, by0,
                bx1, by1, dw, dh, e);
    assert_true(e <= 1);
    /* hflip is the exact mirror of the unflipped result */
    uint8_t *fl = malloc((size_t)dw * dh * 3);
    assert_int_equal(feed__resize(rz, xa, ya, rgbx, (size_t)w * 4, w, h, bx0, by0, bx1, by1, fl,
                                  (size_t)dw * 3, dw, dh, 1, FEED__FILTER_BILINEAR),
                     0);
    for (uint32_t y = 0; y < dh; y++)
        for (uint32_t x = 0; x < dw; x++)
            assert_memory_equal(fl + ((size_t)y * dw + x) * 3,
                                out + ((size_t)y * dw + (dw - 1 - x)) * 3, 3);
    free(fl);
    free(ref);
    free(out);
    free(rgbx);
}

static void resize_reference_cases(void);


/* Separable fixed-point resize within 1 of the float64 reference: up, down
 * (antialiased, up to 20x, which takes the wide-filter path), fractional
 * boxes, 1-pixel sources and outputs. */
static void test_resize_reference(void **state)
{
    (void)state;
    /* every kernel set this machine has: portable C, SSE2, AVX2, AVX-512 */
    for (int level = 0; level <= 3; level++) {
#if defined(__x86_64__)
        if (!ti_cpu_has_level(level))
            continue;
#else
        if (level > 0)
            continue;
#endif
        feed__resize_simd = level;
        resize_reference_cases();
    }
    feed__resize_simd = -1;
}

static void resize_reference_cases(void)
{
    feed__resizer rz = {0};
    feed__axis xa = {0}, ya = {0};
    uint32_t seed = 5;
    static const uint32_t fixed[][4] = {
        {300, 200, 224, 224}, {224, 224, 224, 224}, {100, 80, 224, 224}, {500, 375, 224, 224},
        {640, 480, 32, 24},   {1, 1, 5, 3},         {7, 1, 3, 9},        {1, 9, 4, 2},
        {3, 3, 1, 1},         {97, 61, 1, 200},     {600, 50, 30, 49},
    };
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++) {
        uint32_t w = fixed[k][0], h = fixed[k][1];
        uint8_t *px = ti_pixels(w, h, (uint32_t)k);
        check_resize(&rz, &xa, &ya, px, w, h, 0, 0, w, h, fixed[k][2], fixed[k][3]);
        free(px);
    }
    for (int k = 0; k < 60; k++) {
        uint32_t w = 1 + ti_rnd(&seed) % 400, h = 1 + ti_rnd(&seed) % 300;
        uint8_t *px = ti_pixels(w, h, (uint32_t)k + 100);
        double bx0 = ti_rndu(&seed) * w * 0.6, by0 = ti_rndu(&seed) * h * 0.6;
        double bx1 = bx0 + (w - bx0) * (0.05 + 0.95 * ti_rndu(&seed));
        double by1 = by0 + (h - by0) * (0.05 + 0.95 * ti_rndu(&seed));
        if (k % 3 == 0) { /* integer boxes, as RandomResizedCrop makes */
            bx0 = floor(bx0);
            by0 = floor(by0);
            bx1 = fmax(ceil(bx1), bx0 + 1);
            by1 = fmax(ceil(by1), by0 + 1);
        }
        uint32_t dw = 1 + ti_rnd(&seed) % 260, dh = 1 + ti_rnd(&seed) % 260;
        check_resize(&rz, &xa, &ya, px, w, h, bx0, by0, bx1, by1, dw, dh);
        free(px);
    }
    feed__axis_free(&xa);
    feed__axis_free(&ya);
    feed__resizer_free(&rz);
}

/* Every SIMD level gives the portable C path's bytes exactly: output widths
 * 1..40 and some wide ones (the AVX2 horizontal pass's groups of 4 pixels and
 * its tail), odd and even heights (it runs two rows at a time), flips, upscales
 * (one tap pair) and downscales up to 6x (2, 4, 6 and more pairs, which the
 * coefficient layout pads to even), noise in the unused 4th byte. Buffers are
 * allocated at their exact size, so a store past a row's end shows under ASan. */
static void test_resize_levels_identical(void **state)
{
    (void)state;
    feed__resizer rz = {0};
    feed__axis xa = {0}, ya = {0};
    uint32_t seed = 77;
    int levels = 0;
    for (int level = 1; level <= 3; level++) {
#if defined(__x86_64__)
        if (!ti_cpu_has_level(level))
            continue;
#else
        continue;
#endif
        levels++;
        for (int k = 0; k < 400; k++) {
            ti_resize_case c;
            ti_resize_case_make(&seed, k, &c);
            uint32_t dw = c.dw, dh = c.dh, w = c.w, h = c.h;
            double bx0 = c.b[0], by0 = c.b[1], bx1 = c.b[2], by1 = c.b[3];
            int flip = c.flip;
            uint8_t *src = malloc((size_t)w * h * 4);
            for (size_t i = 0; i < (size_t)w * h * 4; i++)
                src[i] = (uint8_t)ti_rnd(&seed);
            size_t n = (size_t)dw * dh * 3;
            uint8_t *ref = malloc(n), *out = malloc(n);
            feed__resize_simd = 0;
            assert_int_equal(feed__resize(&rz, &xa, &ya, src, (size_t)w * 4, w, h, bx0, by0, bx1,
                                          by1, ref, (size_t)dw * 3, dw, dh, flip, FEED__FILTER_BILINEAR),
                             0);
            feed__resize_simd = level;
            assert_int_equal(feed__resize(&rz, &xa, &ya, src, (size_t)w * 4, w, h, bx0, by0, bx1,
                                          by1, out, (size_t)dw * 3, dw, dh, flip, FEED__FILTER_BILINEAR),
                             0);
            if (memcmp(ref, out, n))
                fprintf(stderr, "level %d: %ux%u box (%g,%g)-(%g,%g) -> %ux%u flip %d taps %u\n",
                        level, w, h, bx0, by0, bx1, by1, dw, dh, flip, xa.taps);
            assert_memory_equal(ref, out, n);
            free(ref);
            free(out);
            free(src);
        }
    }
    feed__resize_simd = -1;
    if (!levels)
        fprintf(stderr, "no SIMD resize kernels on this CPU: nothing to compare\n");
    feed__axis_free(&xa);
    feed__axis_free(&ya);
    feed__resizer_free(&rz);
}

/* Same size, integer box: an exact copy. Coefficient tables are reused for the
 * same geometry and rebuilt for another. */
static void test_resize_identity_and_cache(void **state)
{
    (void)state;
    feed__resizer rz = {0};
    feed__axis xa = {0}, ya = {0};
    uint32_t w = 90, h = 70;
    uint8_t *px = ti_pixels(w, h, 1);
    uint8_t *rgbx = ti_rgbx(px, w, h);
    uint8_t *out = malloc(50 * 40 * 3);
    assert_int_equal(feed__resize(&rz, &xa, &ya, rgbx, w * 4, w, h, 10, 20, 60, 60, out, 50 * 3,
                                  50, 40, 0, FEED__FILTER_BILINEAR),
                     0);
    for (uint32_t y = 0; y < 40; y++)
        assert_memory_equal(out + y * 150, px + ((y + 20) * w + 10) * 3, 150);
    assert_true(xa.taps <= 2); /* one real tap, padded to a pair */
    int32_t *first = xa.first;
    /* different: rebuilt */
    assert_int_equal(feed__axis_build(&xa, w - 10, 0, 50, 50, FEED__FILTER_BILINEAR), 0);
    assert_int_equal(xa.in, w - 10);
    xa.first[0] = 12345; /* same again: kept as is */
    assert_int_equal(feed__axis_build(&xa, w - 10, 0, 50, 50, FEED__FILTER_BILINEAR), 0);
    assert_int_equal(xa.first[0], 12345);
    /* another filter: rebuilt */
    assert_int_equal(feed__axis_build(&xa, w - 10, 0, 50, 50, FEED__FILTER_BICUBIC), 0);
    assert_int_not_equal(xa.first[0], 12345);
    (void)first;
    assert_int_equal(feed__axis_build(&xa, 10, 5, 4, 3, FEED__FILTER_BILINEAR), FEED_E_INVALID);
    assert_int_equal(feed__axis_build(&xa, 10, 0, 11, 3, FEED__FILTER_BILINEAR), FEED_E_INVALID);
    free(out);
    free(rgbx);
    free(px);
    feed__axis_free(&xa);
    feed__axis_free(&ya);
    feed__resizer_free(&rz);
}

/* ---- orientation, rotation ------------------------------------------------------------- */

/* The eight EXIF orientations, with and without a flip: exact permutations. */
static void test_orient_copy(void **state)
{
    (void)state;
    uint32_t w = 13, h = 7;
    uint8_t *px = ti_pixels(w, h, 3);
    for (uint32_t o = 1; o <= 8; o++)
        for (int flip = 0; flip < 2; flip++) {
            uint32_t dw, dh;
            uint8_t *ref = ti_orient_ref(px, w, h, o, &dw, &dh);
            uint8_t *out = malloc((size_t)dw * dh * 3);
            feed__orient_copy(px, w * 3, w, h, o, flip, out, dw * 3);
            for (uint32_t y = 0; y < dh; y++)
                for (uint32_t x = 0; x < dw; x++) {
                    uint32_t rx = flip ? dw - 1 - x : x;
                    assert_memory_equal(out + (y * dw + x) * 3, ref + (y * dw + rx) * 3, 3);
                }
            free(out);
            free(ref);
        }
    free(px);
}

static double *rotate_ref(const uint8_t *src, uint32_t w, uint32_t h, double deg,
                          const uint8_t fill[3])
{
    double *o = malloc(sizeof(double) * w * h * 3);
    double a = deg * M_PI / 180, c = cos(a), s = sin(a);
    double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double dx = x - cx, dy = y - cy;
            double sx = cx + c * dx - s * dy, sy = cy + s * dx + c * dy;
            double x0 = floor(sx), y0 = floor(sy), fx = sx - x0, fy = sy - y0;
            for (int ch = 0; ch < 3; ch++) {
                double v = 0;
                for (int k = 0; k < 4; k++) {
                    double xi = x0 + (k & 1), yi = y0 + (k >> 1);
                    double wt = ((k & 1) ? fx : 1 - fx) * ((k >> 1) ? fy : 1 - fy);
                    double p = (xi < 0 || yi < 0 || xi >= w || yi >= h)
                                   ? fill[ch]
                                   : src[((size_t)yi * w + (size_t)xi) * 3 + ch];
                    v += wt * p;
                }
                o[((size_t)y * w + x) * 3 + ch] = v;
            }
        }
    return o;
}

/* Rotation: within 1 of the float64 bilinear reference (fill outside); 0 is a
 * copy, and +-90 / 180 / 270 on a square are exact permutations. */
static void test_rotate(void **state)
{
    (void)state;
    const uint8_t fill[3] = {10, 200, 77};
    static const uint32_t sizes[][2] = {{64, 64}, {57, 41}, {40, 63}};
    static const double angles[] = {0.5, -3, 10, 33.3, -45, 89.9, 137, -179};
    for (size_t s = 0; s < 3; s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        uint8_t *px = ti_pixels(w, h, (uint32_t)s);
        uint8_t *out = malloc((size_t)w * h * 3);
        for (size_t a = 0; a < sizeof angles / sizeof *angles; a++) {
            feed__rotate(px, out, w, h, angles[a], fill);
            double *ref = rotate_ref(px, w, h, angles[a], fill);
            double e = ti_max_err(out, ref, (size_t)w * h * 3);
            if (e > 1)
                fprintf(stderr, "rotate %ux%u by %g: max err %g\n", w, h, angles[a], e);
            assert_true(e <= 1);
            free(ref);
        }
        feed__rotate(px, out, w, h, 0, fill);
        assert_memory_equal(out, px, (size_t)w * h * 3);
        feed__rotate(px, out, w, h, 180, fill); /* orientation 3 */
        uint32_t dw, dh;
        uint8_t *ref = ti_orient_ref(px, w, h, 3, &dw, &dh);
        assert_memory_equal(out, ref, (size_t)w * h * 3);
        free(ref);
        if (w == h) {
            static const struct { double deg; uint32_t o; } q[] = {{90, 8}, {-90, 6}, {270, 6}};
            for (int k = 0; k < 3; k++) {
                feed__rotate(px, out, w, h, q[k].deg, fill);
                ref = ti_orient_ref(px, w, h, q[k].o, &dw, &dh);
                assert_memory_equal(out, ref, (size_t)w * h * 3);
                free(ref);
            }
        }
        /* a corner rotated away shows the fill exactly */
        feed__rotate(px, out, w, h, 45, fill);
        assert_memory_equal(out, fill, 3);
        free(out);
        free(px);
    }
}

/* ---- colour ------------------------------------------------------------------------------ */

static double luma_d(const uint8_t *p)
{
    return feed__luma(p[0], p[1], p[2]);
}

/* Brightness, contrast, saturation, hue and greyscale within 1 of float64
 * formulas (torchvision's definitions); factor 1 / shift 0 change nothing. */
static void test_colour(void **state)
{
    (void)state;
    uint32_t w = 50, h = 40;
    size_t n = (size_t)w * h;
    uint8_t *px = ti_pixels(w, h, 8);
    uint8_t *a = malloc(n * 3);
    double *ref = malloc(sizeof(double) * n * 3);
    static const double fs[] = {0, 0.3, 0.9, 1.0, 1.4, 2.5};
    for (size_t k = 0; k < sizeof fs / sizeof *fs; k++) {
        double f = fs[k];
        memcpy(a, px, n * 3);
        feed__adjust_brightness(a, n, f);
        for (size_t i = 0; i < n * 3; i++)
            ref[i] = px[i] * f;
        assert_true(ti_max_err(a, ref, n * 3) <= 1);

        memcpy(a, px, n * 3);
        feed__adjust_contrast(a, n, f);
        double mean = 0;
        for (size_t i = 0; i < n; i++)
            mean += luma_d(px + 3 * i);
        mean /= n;
        for (size_t i = 0; i < n * 3; i++)
            ref[i] = f * px[i] + (1 - f) * mean;
        assert_true(ti_max_err(a, ref, n * 3) <= 1);

        memcpy(a, px, n * 3);
        feed__adjust_saturation(a, n, f);
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++)
                ref[3 * i + c] = f * px[3 * i + c] + (1 - f) * luma_d(px + 3 * i);
        assert_true(ti_max_err(a, ref, n * 3) <= 1);
        if (f == 1.0) {
            memcpy(a, px, n * 3);
            feed__adjust_brightness(a, n, 1);
            feed__adjust_contrast(a, n, 1);
            feed__adjust_saturation(a, n, 1);
            assert_memory_equal(a, px, n * 3);
        }
    }
    /* hue: 0 is (within rounding) nothing; +1/3 turn sends red to green */
    memcpy(a, px, n * 3);
    feed__adjust_hue(a, n, 0);
    assert_true(ti_max_err_u8(a, px, n * 3) <= 1);
    uint8_t red[6] = {255, 0, 0, 200, 40, 40};
    feed__adjust_hue(red, 2, 1.0 / 3.0);
    assert_int_equal(red[0], 0);
    assert_int_equal(red[1], 255);
    assert_int_equal(red[2], 0);
    assert_int_equal(red[3], 40);
    assert_int_equal(red[4], 200);
    assert_int_equal(red[5], 40);
    feed__adjust_hue(red, 2, -1.0 / 3.0);
    assert_int_equal(red[0], 255);
    assert_int_equal(red[4], 40);
    /* greyscale */
    memcpy(a, px, n * 3);
    feed__to_grayscale(a, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(a[3 * i], a[3 * i + 1]);
        assert_int_equal(a[3 * i], a[3 * i + 2]);
        assert_true(fabs(a[3 * i] - (0.299 * px[3 * i] + 0.587 * px[3 * i + 1] +
                                     0.114 * px[3 * i + 2])) <= 1);
    }
    free(ref);
    free(a);
    free(px);
}

/* ---- RandomResizedCrop -------------------------------------------------------------------------- */

/* torchvision.transforms.RandomResizedCrop.get_params, transcribed, with
 * uniform draws from any source. */
typedef double (*unif_fn)(void *s);
static int rrc_torchvision(unif_fn u, void *s, uint32_t W, uint32_t H, double smin, double smax,
                           double rmin, double rmax, uint32_t *i, uint32_t *j, uint32_t *h,
                           uint32_t *w)
{
    double area = (double)H * W;
    for (int k = 0; k < 10; k++) {
        double target_area = area * (smin + (smax - smin) * u(s));
        double aspect = exp(log(rmin) + (log(rmax) - log(rmin)) * u(s));
        long ww = lrint(sqrt(target_area * aspect)), hh = lrint(sqrt(target_area / aspect));
        if (0 < ww && ww <= (long)W && 0 < hh && hh <= (long)H) {
            *i = (uint32_t)floor(u(s) * (H - hh + 1));
            *j = (uint32_t)floor(u(s) * (W - ww + 1));
            *h = (uint32_t)hh;
            *w = (uint32_t)ww;
            return 1;
        }
    }
    double in_ratio = (double)W / H;
    long ww, hh;
    if (in_ratio < rmin) {
        ww = W;
        hh = lrint(ww / rmin);
    } else if (in_ratio > rmax) {
        hh = H;
        ww = lrint(hh * rmax);
    } else {
        ww = W;
        hh = H;
    }
    *i = (uint32_t)((H - hh) / 2);
    *j = (uint32_t)((W - ww) / 2);
    *h = (uint32_t)hh;
    *w = (uint32_t)ww;
    return 0;
}

static double unif_lcg(void *s)
{
    uint64_t *x = s;
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return (double)(*x >> 11) * 0x1.0p-53;
}

typedef struct {
    double area, logr, fallback, ci, cj, small;
} rrc_stats;

static void rrc_accumulate(rrc_stats *st, uint32_t W, uint32_t H, int ok, uint32_t i, uint32_t j,
                           uint32_t h, uint32_t w)
{
    st->area += (double)w * h / ((double)W * H);
    st->logr += log((double)w / h);
    st->fallback += !ok;
    st->ci += (H > h) ? (double)i / (H - h) : 0.5;
    st->cj += (W > w) ? (double)j / (W - w) : 0.5;
    st->small += (double)w * h / ((double)W * H) < 0.3;
}

/* The crop box distribution is torchvision's: box inside the image, area
 * fraction and log aspect ratio in range, the same moments as the definition
 * driven by an unrelated generator, the center-crop fallback when no attempt
 * fits, and a box that depends only on (seed, epoch, id). */
static void test_rrc_distribution(void **state)
{
    (void)state;
    static const uint32_t dims[][2] = {{500, 375}, {375, 500}, {1000, 1000}, {300, 80}};
    const int N = 40000;
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
        uint32_t W = dims[d][0], H = dims[d][1];
        rrc_stats a = {0}, b = {0};
        uint64_t xs = 0x9E3779B97F4A7C15ull + d;
        for (int k = 0; k < N; k++) {
            feed__rng r;
            feed__rng_init(&r, 42, 3, (uint64_t)k, FEED_RNG_CROP);
            uint32_t i, j, h, w;
            int ok = feed__rrc_box(&r, W, H, 0.08, 1.0, 3.0 / 4, 4.0 / 3, &i, &j, &h, &w);
            assert_true(w >= 1 && h >= 1 && j + w <= W && i + h <= H);
            if (ok) {
                double frac = (double)w * h / ((double)W * H);
                /* rounding w and h moves the area by at most ~1/w + 1/h */
                double slack = 1.0 / w + 1.0 / h + 1.0 / ((double)w * h);
                assert_true(frac >= 0.08 * (1 - slack) - 1e-9 && frac <= 1.0);
                double lr = log((double)w / h), lslack = 1.0 / w + 1.0 / h;
                assert_true(lr >= log(3.0 / 4) - lslack && lr <= log(4.0 / 3) + lslack);
            }
            rrc_accumulate(&a, W, H, ok, i, j, h, w);
            /* same sample, same box */
            feed__rng r2;
            feed__rng_init(&r2, 42, 3, (uint64_t)k, FEED_RNG_CROP);
            uint32_t i2, j2, h2, w2;
            feed__rrc_box(&r2, W, H, 0.08, 1.0, 3.0 / 4, 4.0 / 3, &i2, &j2, &h2, &w2);
            assert_true(i == i2 && j == j2 && h == h2 && w == w2);

            ok = rrc_torchvision(unif_lcg, &xs, W, H, 0.08, 1.0, 3.0 / 4, 4.0 / 3, &i, &j, &h, &w);
            rrc_accumulate(&b, W, H, ok, i, j, h, w);
        }
        double tol = 0.012;
        if (fabs(a.area - b.area) / N > tol || fabs(a.logr - b.logr) / N > tol ||
            fabs(a.fallback - b.fallback) / N > tol || fabs(a.ci - b.ci) / N > tol ||
            fabs(a.cj - b.cj) / N > tol || fabs(a.small - b.small) / N > tol) {
            fprintf(stderr, "%ux%u: area %g/%g logr %g/%g fallback %g/%g ci %g/%g cj %g/%g small %g/%g\n",
                    W, H, a.area / N, b.area / N, a.logr / N, b.logr / N, a.fallback / N,
                    b.fallback / N, a.ci / N, b.ci / N, a.cj / N, b.cj / N, a.small / N, b.small / N);
            fail();
        }
    }
    /* the fallback: nothing of area >= 8% with ratio in [3/4, 4/3] fits 1000x10 */
    for (int k = 0; k < 20; k++) {
        feed__rng r;
        feed__rng_init(&r, 1, 0, (uint64_t)k, FEED_RNG_CROP);
        uint32_t i, j, h, w;
        assert_int_equal(feed__rrc_box(&r, 1000, 10, 0.08, 1, 3.0 / 4, 4.0 / 3, &i, &j, &h, &w), 0);
        assert_int_equal(h, 10);
        assert_int_equal(w, 13); /* round(10 * 4/3) */
        assert_int_equal(i, 0);
        assert_int_equal(j, (1000 - 13) / 2);
        assert_int_equal(feed__rrc_box(&r, 10, 1000, 0.08, 1, 3.0 / 4, 4.0 / 3, &i, &j, &h, &w), 0);
        assert_int_equal(w, 10);
        assert_int_equal(h, 13); /* round(10 / (3/4)) */
        assert_int_equal(i, (1000 - 13) / 2);
    }
    /* scale (1, 1) and ratio (1, 1) on a square: the whole image */
    feed__rng r;
    feed__rng_init(&r, 1, 0, 0, FEED_RNG_CROP);
    uint32_t i, j, h, w;
    assert_int_equal(feed__rrc_box(&r, 64, 64, 1, 1, 1, 1, &i, &j, &h, &w), 1);
    assert_true(i == 0 && j == 0 && h == 64 && w == 64);
}

/* ---- the pipeline ------------------------------------------------------------------------------ */

static feed__xform xform(uint32_t mode, uint32_t oh, uint32_t ow)
{
    return ti_xform(mode, oh, ow, 256);
}


static uint8_t *run(feed__image_ctx *ctx, const feed__xform *x, const uint8_t *jpg, size_t len,
                    uint64_t seed, uint64_t epoch, uint64_t id, feed__image_info *info)
{
    uint8_t *out = malloc((size_t)x->out_h * x->out_w * 3);
    char msg[256];
    int rc = feed__image_process(ctx, x, jpg, len, seed, epoch, id, out, info, msg, sizeof msg);
    if (rc)
        fprintf(stderr, "process: %d %s\n", rc, msg);
    assert_int_equal(rc, 0);
    return out;
}

/* NONE / VAL / TRAIN against the reference pipeline: within 1 everywhere when
 * decoding at 8/8 (roi_decode=0, or 1 on images too small for DCT scaling,
 * which must then give the very same bytes as roi_decode=0). */
static void test_process_modes_exact(void **state)
{
    (void)state;
    feed__image_ctx *ctx = feed__image_ctx_create();
    static const uint32_t dims[][2] = {{400, 300}, {300, 400}, {333, 251}, {223, 170}, {120, 90}};
    static const int kinds[] = {TI_420, TI_444, TI_GRAY, TI_CMYK, TI_422};
    static const uint32_t outs[][2] = {{224, 224}, {64, 48}, {160, 200}};
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
        uint32_t w = dims[d][0], h = dims[d][1];
        uint8_t *px = ti_pixels(w, h, (uint32_t)d);
        size_t len;
        uint8_t *jpg = ti_jpeg(px, w, h, kinds[d], 90, d == 2 ? TJFLAG_PROGRESSIVE : 0, &len);
        for (uint32_t mode = 0; mode <= 2; mode++)
            for (size_t oi = 0; oi < 3; oi++) {
                feed__xform x = xform(mode, outs[oi][0], outs[oi][1]);
                if (oi == 2)
                    x.resize_shorter = 100; /* VAL crop larger than the image: padding */
                for (uint64_t id = 0; id < (mode == 2 ? 6u : 1u); id++) {
                    feed__image_info info;
                    x.roi_decode = 0;
                    uint8_t *a = run(ctx, &x, jpg, len, 7, 1, id, &info);
                    assert_int_equal(info.src_w, w);
                    assert_int_equal(info.src_h, h);
                    double *ref = ti_process_ref(jpg, len, &x, 7, 1, id, (int)info.flipped);
                    size_t n = (size_t)x.out_h * x.out_w * 3;
                    double e = ti_max_err(a, ref, n);
                    if (e > 1)
                        fprintf(stderr, "mode %u %ux%u -> %ux%u id %llu: max err %g\n", mode, w,
                                h, x.out_w, x.out_h, (unsigned long long)id, e);
                    assert_true(e <= 1);
                    x.roi_decode = 1;
                    /* no DCT scale fits (the padded VAL case resizes to less than out);
                     * the interleaved region decode (the planar one: test_planar.c) */
                    int small = (w < 2 * x.out_w || h < 2 * x.out_h) &&
                                !(mode == FEED_AUGMENT_VAL && oi == 2);
                    feed__image_planar = 0;
                    uint8_t *b = run(ctx, &x, jpg, len, 7, 1, id, &info);
                    feed__image_planar = 1;
                    if (small && memcmp(a, b, n) != 0) {
                        fprintf(stderr, "roi != full: mode %u %ux%u kind %d -> %ux%u id %llu\n",
                                mode, w, h, kinds[d], x.out_w, x.out_h, (unsigned long long)id);
                        fail();
                    }
                    free(b);
                    free(ref);
                    free(a);
                }
            }
        free(jpg);
        free(px);
    }
    feed__image_ctx_destroy(ctx);
}

/* ROI + DCT-scaled decode (roi_decode=1 on large images, where 1/8..4/8 get
 * used) against the full-decode reference: mean abs difference <= 2 levels
 * (the documented bound; DCT-domain reduction is a slightly different
 * low-pass than the triangle filter). */
static void test_process_scaled_bound(void **state)
{
    (void)state;
    feed__image_ctx *ctx = feed__image_ctx_create();
    static const uint32_t dims[][2] = {{1200, 900}, {901, 1377}, {2000, 600}};
    for (int content = 0; content < 2; content++) {
        double worst = 0, sum = 0;
        int count = 0;
        for (size_t d = 0; d < 3; d++) {
            uint32_t w = dims[d][0], h = dims[d][1];
            uint8_t *px = content ? ti_pixels(w, h, (uint32_t)d + 20) : ti_photo(w, h, (uint32_t)d);
            size_t len;
            uint8_t *jpg = ti_jpeg(px, w, h, d == 1 ? TI_444 : TI_420, 90, 0, &len);
            for (uint32_t mode = 0; mode <= 2; mode++)
                for (uint64_t id = 0; id < (mode == 2 ? 8u : 1u); id++) {
                    feed__xform x = xform(mode, 224, 224);
                    feed__image_info info;
                    uint8_t *a = run(ctx, &x, jpg, len, 3, 0, id, &info);
                    double *ref = ti_process_ref(jpg, len, &x, 3, 0, id, (int)info.flipped);
                    size_t n = (size_t)224 * 224 * 3;
                    double s = 0;
                    for (size_t i = 0; i < n; i++)
                        s += fabs(a[i] - ref[i]);
                    s /= n;
                    sum += s;
                    count++;
                    if (s > worst)
                        worst = s;
                    /* photo-like content: the documented bound; the hard-edged,
                     * noisy test pattern: a bound that still catches any
                     * misplaced crop (those give tens of levels) */
                    double bound = content ? 6.0 : 2.0;
                    if (s > bound)
                        fprintf(stderr, "scaled %s mode %u %ux%u id %llu: mean abs diff %g\n",
                                content ? "pattern" : "photo", mode, w, h,
                                (unsigned long long)id, s);
                    assert_true(s <= bound);
                    free(ref);
                    free(a);
                }
            free(jpg);
            free(px);
        }
        print_message("ROI/DCT-scaled vs full decode, %s content: mean abs diff %.3f avg, %.3f worst\n",
                      content ? "pattern" : "photo-like", sum / count, worst);
    }
    feed__image_ctx_destroy(ctx);
}

/* EXIF orientation is applied (every value, every mode) and can be ignored. */
static void test_process_exif(void **state)
{
    (void)state;
    feed__image_ctx *ctx = feed__image_ctx_create();
    uint32_t w = 320, h = 200;
    uint8_t *px = ti_pixels(w, h, 31);
    size_t len;
    uint8_t *jpg = ti_jpeg(px, w, h, TI_420, 90, 0, &len);
    for (uint32_t o = 1; o <= 8; o++) {
        size_t n;
        uint8_t *e = ti_with_exif(jpg, len, o, o & 1, &n);
        for (uint32_t mode = 0; mode <= 2; mode++)
            for (uint64_t id = 0; id < (mode == 2 ? 4u : 1u); id++) {
                feed__xform x = xform(mode, 96, 128);
                x.resize_shorter = 110;
                x.roi_decode = id & 1;
                feed__image_info info;
                feed__image_planar = 0; /* the interleaved decode: within 1 */
                uint8_t *a = run(ctx, &x, e, n, 5, 2, id, &info);
                feed__image_planar = 1;
                assert_int_equal(info.src_w, o >= 5 ? h : w);
                assert_int_equal(info.src_h, o >= 5 ? w : h);
                double *ref = ti_process_ref(e, n, &x, 5, 2, id, (int)info.flipped);
                double err = ti_max_err(a, ref, (size_t)96 * 128 * 3);
                if (err > 1)
                    fprintf(stderr, "exif %u mode %u id %llu: max err %g\n", o, mode,
                            (unsigned long long)id, err);
                assert_true(err <= 1);
                if (x.roi_decode) {
                    /* the planar decode, oriented the same: a wrong orientation or
                     * flip is tens of levels off on average on this picture */
                    uint8_t *pl = run(ctx, &x, e, n, 5, 2, id, &info);
                    double mean = 0;
                    for (size_t i = 0; i < (size_t)96 * 128 * 3; i++)
                        mean += fabs(pl[i] - ref[i]);
                    mean /= (size_t)96 * 128 * 3;
                    if (mean > 4)
                        fprintf(stderr, "exif %u mode %u id %llu planar: mean err %g\n", o, mode,
                                (unsigned long long)id, mean);
                    assert_true(mean <= 4);
                    free(pl);
                }
                free(ref);
                /* exif=0: the same as the file without the tag */
                x.exif = 0;
                uint8_t *b = run(ctx, &x, e, n, 5, 2, id, &info);
                uint8_t *c = run(ctx, &x, jpg, len, 5, 2, id, &info);
                assert_memory_equal(b, c, (size_t)96 * 128 * 3);
                free(c);
                free(b);
                free(a);
            }
        free(e);
    }
    free(jpg);
    free(px);
    feed__image_ctx_destroy(ctx);
}

/* A pure function of (bytes, seed, epoch, id): the same output from fresh
 * contexts, in any order, interleaved with other images; another epoch or id
 * gives another crop. Flip: the flipped output is the exact mirror of the
 * unflipped one (the crop stream does not depend on the flip), and the flip
 * rate follows flip_p. */
static void test_process_determinism(void **state)
{
    (void)state;
    uint32_t w = 500, h = 375;
    uint8_t *px = ti_pixels(w, h, 2);
    size_t len, len2;
    uint8_t *jpg = ti_jpeg(px, w, h, TI_420, 90, 0, &len);
    uint8_t *other = ti_jpeg(px, 200, 100, TI_444, 70, 0, &len2); /* a top-left slice */
    feed__xform x = xform(FEED_AUGMENT_TRAIN, 224, 224);
    x.rotate_deg = 10;
    x.brightness = 0.4f;
    x.contrast = 0.4f;
    x.saturation = 0.4f;
    x.hue = 0.1f;
    x.grayscale_p = 0.2f;
    enum { N = 12 };
    size_t n = (size_t)224 * 224 * 3;
    uint8_t *first[N];
    feed__image_ctx *c1 = feed__image_ctx_create();
    for (int k = 0; k < N; k++)
        first[k] = run(c1, &x, jpg, len, 99, 4, (uint64_t)k, NULL);
    feed__image_ctx *c2 = feed__image_ctx_create();
    for (int k = N - 1; k >= 0; k--) {
        free(run(c2, &x, other, len2, 1, 1, (uint64_t)k, NULL));
        uint8_t *b = run(c2, &x, jpg, len, 99, 4, (uint64_t)k, NULL);
        assert_memory_equal(first[k], b, n);
        free(b);
    }
    int differ = 0;
    for (int k = 0; k < N; k++) {
        uint8_t *b = run(c1, &x, jpg, len, 99, 5, (uint64_t)k, NULL);
        differ += memcmp(first[k], b, n) != 0;
        free(b);
        differ += k > 0 && memcmp(first[k], first[k - 1], n) != 0;
    }
    assert_true(differ >= 2 * N - 3);
    for (int k = 0; k < N; k++)
        free(first[k]);

    /* flips */
    feed__xform f0 = xform(FEED_AUGMENT_TRAIN, 100, 120), f1 = f0;
    f0.flip_p = 0;
    f1.flip_p = 1;
    feed__xform fh = f0;
    fh.flip_p = 0.5f;
    int flips = 0;
    for (uint64_t id = 0; id < 400; id++) {
        feed__image_info ih;
        free(run(c1, &fh, jpg, len, 8, 0, id, &ih));
        flips += (int)ih.flipped;
        if (id >= 24)
            continue;
        feed__image_info i0, i1;
        uint8_t *a = run(c1, &f0, jpg, len, 8, 0, id, &i0);
        uint8_t *b = run(c1, &f1, jpg, len, 8, 0, id, &i1);
        assert_int_equal(i0.flipped, 0);
        assert_int_equal(i1.flipped, 1);
        for (uint32_t y = 0; y < 100; y++)
            for (uint32_t xx = 0; xx < 120; xx++)
                assert_memory_equal(b + (y * 120 + xx) * 3, a + (y * 120 + 119 - xx) * 3, 3);
        free(b);
        free(a);
    }
    assert_true(flips > 150 && flips < 250);
    feed__image_ctx_destroy(c2);
    feed__image_ctx_destroy(c1);
    free(other);
    free(jpg);
    free(px);
}

/* Rotation, jitter and greyscale in the pipeline: greyscale_p = 1 gives
 * R = G = B; jitter and rotation change the pixels but keep them a pure
 * function of the sample; decode and augment times are reported. */
static void test_process_ops(void **state)
{
    (void)state;
    uint32_t w = 300, h = 240;
    uint8_t *px = ti_pixels(w, h, 12);
    size_t len;
    uint8_t *jpg = ti_jpeg(px, w, h, TI_420, 90, 0, &len);
    feed__image_ctx *ctx = feed__image_ctx_create();
    feed__xform base = xform(FEED_AUGMENT_TRAIN, 64, 64);
    feed__xform g = base;
    g.grayscale_p = 1;
    feed__image_info info;
    uint8_t *a = run(ctx, &g, jpg, len, 1, 0, 3, &info);
    for (size_t i = 0; i < 64 * 64; i++) {
        assert_int_equal(a[3 * i], a[3 * i + 1]);
        assert_int_equal(a[3 * i], a[3 * i + 2]);
    }
    assert_true(info.decode_ns > 0);
    free(a);
    uint8_t *plain = run(ctx, &base, jpg, len, 1, 0, 3, &info);
    feed__xform j = base;
    j.brightness = 0.5f;
    j.saturation = 0.5f;
    uint8_t *b = run(ctx, &j, jpg, len, 1, 0, 3, &info);
    assert_true(memcmp(b, plain, 64 * 64 * 3) != 0);
    free(b);
    feed__xform r = base;
    r.rotate_deg = 30;
    r.fill[0] = 1;
    r.fill[1] = 2;
    r.fill[2] = 3;
    b = run(ctx, &r, jpg, len, 1, 0, 3, &info);
    assert_true(memcmp(b, plain, 64 * 64 * 3) != 0);
    uint8_t *b2 = run(ctx, &r, jpg, len, 1, 0, 3, &info);
    assert_memory_equal(b, b2, 64 * 64 * 3);
    free(b2);
    free(b);
    free(plain);
    feed__image_ctx_destroy(ctx);
    free(jpg);
    free(px);
}

/* Errors from the pipeline: bad data, too large, bad arguments. */
static void test_process_errors(void **state)
{
    (void)state;
    uint32_t w = 120, h = 80;
    uint8_t *px = ti_pixels(w, h, 1);
    size_t len;
    uint8_t *jpg = ti_jpeg(px, w, h, TI_420, 90, 0, &len);
    feed__image_ctx *ctx = feed__image_ctx_create();
    feed__xform x = xform(FEED_AUGMENT_VAL, 32, 32);
    uint8_t out[32 * 32 * 3];
    char msg[256];
    feed__image_info info;
    assert_int_equal(feed__image_process(ctx, &x, jpg, len / 2, 0, 0, 0, out, &info, msg, sizeof msg),
                     FEED_E_DECODE);
    assert_true(strlen(msg) > 0);
    assert_int_equal(feed__image_process(ctx, &x, (const uint8_t *)"GIF89a", 6, 0, 0, 0, out,
                                         &info, msg, sizeof msg),
                     FEED_E_DECODE);
    assert_non_null(strstr(msg, "GIF"));
    x.max_pixels = (uint64_t)w * h - 1;
    assert_int_equal(feed__image_process(ctx, &x, jpg, len, 0, 0, 0, out, &info, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    x.max_pixels = (uint64_t)w * h;
    assert_int_equal(feed__image_process(ctx, &x, jpg, len, 0, 0, 0, out, &info, msg, sizeof msg), 0);
    assert_string_equal(msg, "");
    feed__xform bad = x;
    bad.out_h = 0;
    assert_int_equal(feed__image_process(ctx, &bad, jpg, len, 0, 0, 0, out, &info, msg, sizeof msg),
                     FEED_E_INVALID);
    bad = xform(FEED_AUGMENT_TRAIN, 32, 32);
    bad.ratio_min = 0;
    assert_int_equal(feed__image_process(ctx, &bad, jpg, len, 0, 0, 0, out, &info, msg, sizeof msg),
                     FEED_E_INVALID);
    bad.mode = 9;
    assert_int_equal(feed__image_process(ctx, &bad, jpg, len, 0, 0, 0, out, &info, msg, sizeof msg),
                     FEED_E_INVALID);
    assert_int_equal(feed__image_process(ctx, NULL, jpg, len, 0, 0, 0, out, &info, msg, sizeof msg),
                     FEED_E_INVALID);
    /* NULL info and msg are allowed */
    assert_int_equal(feed__image_process(ctx, &x, jpg, len, 0, 0, 0, out, NULL, NULL, 0), 0);
    assert_int_equal(feed__image_process(ctx, &x, jpg, 10, 0, 0, 0, out, NULL, NULL, 0),
                     FEED_E_DECODE);
    feed__image_ctx_destroy(ctx);
    feed__image_ctx_destroy(NULL);
    free(jpg);
    free(px);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resize_reference),
        cmocka_unit_test(test_resize_levels_identical),
        cmocka_unit_test(test_resize_identity_and_cache),
        cmocka_unit_test(test_orient_copy),
        cmocka_unit_test(test_rotate),
        cmocka_unit_test(test_colour),
        cmocka_unit_test(test_rrc_distribution),
        cmocka_unit_test(test_process_modes_exact),
        cmocka_unit_test(test_process_scaled_bound),
        cmocka_unit_test(test_process_exif),
        cmocka_unit_test(test_process_determinism),
        cmocka_unit_test(test_process_ops),
        cmocka_unit_test(test_process_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
