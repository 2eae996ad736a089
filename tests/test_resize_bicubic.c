/*
 * test_resize_bicubic.c - the bicubic resize (src/pixels/resize_axis.c, the
 * kernels of resize_*.c): each axis's Q14 weights against a float64 reading
 * of the definition (Keys' cubic, a = -0.5, radius 2 stretched by the
 * downscale factor, renormalised inside the source), whole resizes against a
 * float64 reference of the same separable sum, every SIMD level (RGBX
 * and single plane) against the portable C path, byte for byte, and the
 * pipeline's use of the filter.
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

#include "feed.h"
#include "pixels/resize.h"
#include "test_image_util.h"

/* Keys' cubic convolution kernel with a = -0.5, in its textbook form. */
static double keys(double x)
{
    const double a = -0.5;
    x = fabs(x);
    if (x < 1)
        return (a + 2) * x * x * x - (a + 3) * x * x + 1;
    if (x < 2)
        return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
    return 0;
}

/* Output i's float64 weights of the box [b0, b1) of in pixels resized to out:
 * window [*lo, *lo + *n) of source pixels, w[k] for pixel *lo + k. */
static void ref_weights(uint32_t in, double b0, double b1, uint32_t out, uint32_t i, int64_t *lo,
                        uint32_t *n, double *w)
{
    double scale = (b1 - b0) / out, fs = scale > 1 ? scale : 1;
    double c = b0 + (i + 0.5) * scale; /* the output's centre in source coordinates */
    int64_t x0 = (int64_t)floor(c - 2 * fs + 0.5), x1 = (int64_t)floor(c + 2 * fs + 0.5);
    if (x0 < 0)
        x0 = 0;
    if (x1 > (int64_t)in)
        x1 = in;
    double sum = 0;
    for (int64_t x = x0; x < x1; x++) { /* pixel x's centre is x + 0.5 */
        w[x - x0] = keys((x + 0.5 - c) / fs);
        sum += w[x - x0];
    }
    for (int64_t x = x0; x < x1; x++)
        w[x - x0] /= sum;
    *lo = x0;
    *n = (uint32_t)(x1 - x0);
}

/* The axis's Q14 weight for source pixel x of output i (0 outside its window). */
static double axis_weight(const feed__axis *a, uint32_t i, int64_t x)
{
    int64_t k = x - a->first[i];
    return k >= 0 && k < (int64_t)a->taps ? a->coef[(size_t)i * a->taps + k] : 0;
}

/* Every output's weights: within rounding of the float64 ones (the largest
 * absorbs the rounding of the others so that they sum to exactly 1 << 14:
 * n/2 units at most), nothing outside the window, and the expected shape
 * (negative outer lobes when upscaling, where the kernel is sampled at
 * non-integer offsets). */
static void test_bicubic_weights(void **state)
{
    (void)state;
    feed__axis a = {0};
    uint32_t seed = 11;
    double *w = malloc(4096 * sizeof *w);
    int negatives = 0;
    for (int k = 0; k < 300; k++) {
        uint32_t in = 1 + ti_rnd(&seed) % 500, out = 1 + ti_rnd(&seed) % 300;
        double b0 = 0, b1 = in;
        if (k % 2) {
            b0 = ti_rndu(&seed) * in * 0.5;
            b1 = b0 + (in - b0) * (0.05 + 0.95 * ti_rndu(&seed));
        }
        assert_int_equal(feed__axis_build(&a, in, b0, b1, out, FEED__FILTER_BICUBIC), 0);
        assert_int_equal(a.filter, FEED__FILTER_BICUBIC);
        for (uint32_t i = 0; i < out; i++) {
            int64_t lo;
            uint32_t n;
            ref_weights(in, b0, b1, out, i, &lo, &n, w);
            int32_t sum = 0;
            for (uint32_t t = 0; t < a.taps; t++)
                sum += a.coef[(size_t)i * a.taps + t];
            assert_int_equal(sum, 1 << FEED_COEF_BITS);
            for (uint32_t t = 0; t < a.taps; t++) { /* nothing outside the window */
                int64_t x = a.first[i] + (int64_t)t;
                if ((x < lo || x >= lo + n) && a.coef[(size_t)i * a.taps + t] != 0)
                    fail_msg("in %u box (%g,%g) out %u: output %u has weight at %lld outside "
                             "[%lld,%lld)", in, b0, b1, out, i, (long long)x, (long long)lo,
                             (long long)(lo + n));
            }
            for (uint32_t t = 0; t < n; t++) {
                double got = axis_weight(&a, i, lo + t), want = w[t] * (1 << FEED_COEF_BITS);
                if (fabs(got - want) > 0.5 + n / 2.0 + 1e-9)
                    fail_msg("in %u box (%g,%g) out %u: output %u tap %u: %g != %g", in, b0, b1,
                             out, i, t, got, want);
                negatives += got < 0;
            }
        }
    }
    assert_true(negatives > 0);
    /* a 2x upscale: output 6's centre is 3.25, 0.25 from pixel 3's and 1.25
     * from pixel 4's; Keys(0.25) = 0.8671875 and Keys(1.25) = -0.0703125, and
     * the four weights sum to 1 exactly, so they are exact in Q14 */
    assert_int_equal(feed__axis_build(&a, 8, 0, 8, 16, FEED__FILTER_BICUBIC), 0);
    assert_int_equal((int)axis_weight(&a, 6, 3), 14208);
    assert_int_equal((int)axis_weight(&a, 6, 4), -1152);
    /* the same geometry bilinear is another build: no negative weight */
    assert_int_equal(feed__axis_build(&a, 8, 0, 8, 16, FEED__FILTER_BILINEAR), 0);
    for (size_t t = 0; t < (size_t)a.out * a.taps; t++)
        assert_true(a.coef[t] >= 0);
    assert_int_equal(feed__axis_build(&a, 8, 0, 8, 16, 2), FEED_E_INVALID);
    feed__axis_free(&a);
    free(w);
}

/* float64 bicubic resize of the box of an RGB image in torchvision's order:
 * the horizontal pass first with its result clamped to 0..255 (not rounded:
 * torch's intermediate is uint8), then the vertical pass, clamped. *clamped
 * counts the intermediate values the clamp changed. */
static double *ref_resize(const uint8_t *rgb, uint32_t w, uint32_t h, const double b[4],
                          uint32_t dw, uint32_t dh, size_t *clamped)
{
    double *tmp = malloc(sizeof(double) * dw * h * 3), *out = malloc(sizeof(double) * dw * dh * 3);
    double *wt = malloc(sizeof(double) * (w > h ? w : h) + 64);
    for (uint32_t x = 0; x < dw; x++) {
        int64_t lo;
        uint32_t n;
        ref_weights(w, b[0], b[2], dw, x, &lo, &n, wt);
        for (uint32_t y = 0; y < h; y++)
            for (int c = 0; c < 3; c++) {
                double s = 0;
                for (uint32_t k = 0; k < n; k++)
                    s += wt[k] * rgb[((size_t)y * w + lo + k) * 3 + c];
                *clamped += s < 0 || s > 255;
                tmp[((size_t)y * dw + x) * 3 + c] = fmin(fmax(s, 0), 255);
            }
    }
    for (uint32_t y = 0; y < dh; y++) {
        int64_t lo;
        uint32_t n;
        ref_weights(h, b[1], b[3], dh, y, &lo, &n, wt);
        for (size_t i = 0; i < (size_t)dw * 3; i++) {
            double s = 0;
            for (uint32_t k = 0; k < n; k++)
                s += wt[k] * tmp[(size_t)(lo + k) * dw * 3 + i];
            out[(size_t)y * dw * 3 + i] = fmin(fmax(s, 0), 255);
        }
    }
    free(tmp);
    free(wt);
    return out;
}

/* Whole resizes at every level this CPU has: within 1 of the float64
 * reference, on images with sharp edges so that both clamps are exercised.
 * The intermediate rounded to bytes moves a result by at most 0.5 times the
 * vertical weights' absolute sum (under 1.3), the Q14 weights far less, so
 * the rounded results differ by at most 1. */
static void test_bicubic_reference(void **state)
{
    (void)state;
    feed__resizer rz = {0};
    feed__axis xa = {0}, ya = {0};
    size_t clamped = 0;
    for (int level = 0; level <= 3; level++) {
        if (!ti_cpu_has_level(level))
            continue;
        feed__resize_simd = level;
        uint32_t seed = 3;
        for (int k = 0; k < 40; k++) {
            uint32_t w = 1 + ti_rnd(&seed) % 300, h = 1 + ti_rnd(&seed) % 200;
            uint32_t dw = 1 + ti_rnd(&seed) % 200, dh = 1 + ti_rnd(&seed) % 200;
            double b[4] = {0, 0, w, h};
            if (k % 2) {
                b[0] = floor(ti_rndu(&seed) * w * 0.4);
                b[1] = floor(ti_rndu(&seed) * h * 0.4);
                b[2] = b[0] + fmax(1, floor((w - b[0]) * (0.2 + 0.8 * ti_rndu(&seed))));
                b[3] = b[1] + fmax(1, floor((h - b[1]) * (0.2 + 0.8 * ti_rndu(&seed))));
            }
            uint8_t *px = ti_pixels(w, h, (uint32_t)k), *rgbx = ti_rgbx(px, w, h);
            uint8_t *out = malloc((size_t)dw * dh * 3);
            assert_int_equal(feed__resize(&rz, &xa, &ya, rgbx, (size_t)w * 4, w, h, b[0], b[1],
                                          b[2], b[3], out, (size_t)dw * 3, dw, dh, 0,
                                          FEED__FILTER_BICUBIC),
                             0);
            double *ref = ref_resize(px, w, h, b, dw, dh, &clamped);
            double e = ti_max_err(out, ref, (size_t)dw * dh * 3);
            if (e > 1)
                fail_msg("level %d: %ux%u box (%g,%g)-(%g,%g) -> %ux%u: max err %g", level, w, h,
                         b[0], b[1], b[2], b[3], dw, dh, e);
            free(ref);
            free(out);
            free(rgbx);
            free(px);
        }
    }
    feed__resize_simd = -1;
    assert_true(clamped > 0);
    feed__axis_free(&xa);
    feed__axis_free(&ya);
    feed__resizer_free(&rz);
}

/* Every SIMD level gives the portable path's bytes with bicubic weights, on
 * noise (the most overshoot), with flips and odd sizes (ti_resize_case_make),
 * and shrinks of up to 6x, whose 20-odd taps take the vertical passes past
 * their widest SIMD step to the portable one. The single-plane resize (a JPEG
 * component) gives channel 0 of the RGBX one. */
static void test_bicubic_levels_identical(void **state)
{
    (void)state;
    feed__resizer rz = {0};
    feed__axis xa = {0}, ya = {0}, xb = {0}, yb = {0};
    int levels = 0;
    for (int level = 1; level <= 3; level++) {
        if (!ti_cpu_has_level(level))
            continue;
        levels++;
        uint32_t seed = 19;
        for (int k = 0; k < 300; k++) {
            ti_resize_case c;
            ti_resize_case_make(&seed, k, &c);
            uint32_t dw = c.dw, dh = c.dh, w = c.w, h = c.h;
            if (k % 7 == 0) /* a tall shrink as well: the vertical pass's taps */
                h = dh * (1 + ti_rnd(&seed) % 6) + ti_rnd(&seed) % 5;
            double b[4] = {c.b[0], c.b[1], c.b[2], k % 7 == 0 ? h : c.b[3]};
            size_t stride = w + 64;
            uint8_t *src = malloc((size_t)w * h * 4), *plane = calloc(stride * h + 64, 1);
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    uint32_t v = ti_rnd(&seed);
                    memcpy(src + ((size_t)y * w + x) * 4, &v, 4);
                    plane[y * stride + x] = (uint8_t)v;
                }
            size_t n = (size_t)dw * dh * 3;
            uint8_t *ref = malloc(n), *out = malloc(n), *pout = malloc((size_t)dw * dh);
            feed__resize_simd = 0;
            assert_int_equal(feed__resize(&rz, &xa, &ya, src, (size_t)w * 4, w, h, b[0], b[1],
                                          b[2], b[3], ref, (size_t)dw * 3, dw, dh, c.flip,
                                          FEED__FILTER_BICUBIC),
                             0);
            feed__resize_simd = level;
            assert_int_equal(feed__resize(&rz, &xa, &ya, src, (size_t)w * 4, w, h, b[0], b[1],
                                          b[2], b[3], out, (size_t)dw * 3, dw, dh, c.flip,
                                          FEED__FILTER_BICUBIC),
                             0);
            if (memcmp(ref, out, n))
                fail_msg("level %d: %ux%u box (%g,%g)-(%g,%g) -> %ux%u flip %d taps %u/%u", level,
                         w, h, b[0], b[1], b[2], b[3], dw, dh, c.flip, xa.taps, ya.taps);
            assert_int_equal(feed__axis_build(&xb, w, b[0], b[2], dw, FEED__FILTER_BICUBIC), 0);
            assert_int_equal(feed__axis_build(&yb, h, b[1], b[3], dh, FEED__FILTER_BICUBIC), 0);
            assert_int_equal(feed__resize_plane(&rz, &xb, &yb,
                                                plane + (size_t)yb.lo * stride + xb.lo, stride,
                                                pout, dw, c.flip),
                             0);
            for (size_t i = 0; i < (size_t)dw * dh; i++)
                if (pout[i] != ref[3 * i])
                    fail_msg("plane, level %d: %ux%u -> %ux%u sample %zu: %u != %u", level, w, h,
                             dw, dh, i, pout[i], ref[3 * i]);
            free(pout);
            free(ref);
            free(out);
            free(plane);
            free(src);
        }
    }
    feed__resize_simd = -1;
    if (!levels)
        fprintf(stderr, "no SIMD resize kernels on this CPU: nothing to compare\n");
    feed__axis_free(&xa);
    feed__axis_free(&ya);
    feed__axis_free(&xb);
    feed__axis_free(&yb);
    feed__resizer_free(&rz);
}

/* The pipeline resizes with the transform's filter: a whole-image decode
 * (roi_decode off) resized with augment=none is feed__resize's bicubic of
 * the decoded pixels, byte for byte; bicubic is not bilinear's result; the
 * planar JPEG path (each plane resized bicubic on its grid) stays near the
 * interleaved one, as it does for bilinear (test_planar). */
static void test_pipeline_filter(void **state)
{
    (void)state;
    static const int kinds[] = {TI_420, TI_GRAY};
    feed__image_ctx *ctx = feed__image_ctx_create();
    feed__resizer rz = {0};
    feed__axis xa = {0}, ya = {0};
    const uint32_t W = 477, H = 356, S = 224;
    const size_t n = (size_t)S * S * 3;
    uint8_t *a = malloc(n), *b = malloc(n), *c = malloc(n);
    for (size_t kd = 0; kd < 2; kd++) {
        uint8_t *px = ti_photo(W, H, (uint32_t)kd);
        size_t len;
        uint8_t *jpg = ti_jpeg(px, W, H, kinds[kd], 90, 0, &len);
        /* whole decode, augment none: the decoded image resized */
        feed__xform x = ti_xform(FEED_AUGMENT_NONE, S, S, 256);
        x.bicubic = 1;
        x.roi_decode = 0;
        assert_int_equal(feed__image_process(ctx, &x, jpg, len, 2, 0, 0, a, NULL, NULL, 0), 0);
        uint32_t dw, dh;
        uint8_t *rgb = ti_decode_ref(jpg, len, 8, &dw, &dh), *rgbx = ti_rgbx(rgb, dw, dh);
        assert_int_equal(feed__resize(&rz, &xa, &ya, rgbx, (size_t)dw * 4, dw, dh, 0, 0, dw, dh, b,
                                      (size_t)S * 3, S, S, 0, FEED__FILTER_BICUBIC),
                         0);
        assert_memory_equal(a, b, n);
        x.bicubic = 0;
        assert_int_equal(feed__image_process(ctx, &x, jpg, len, 2, 0, 0, c, NULL, NULL, 0), 0);
        assert_true(ti_max_err_u8(a, c, n) > 1);
        free(rgbx);
        free(rgb);
        /* region decode (planes for a YCbCr file) against the whole decode */
        for (uint32_t mode = 0; mode <= 2; mode++)
            for (uint64_t id = 0; id < (mode == 2 ? 4u : 1u); id++) {
                x = ti_xform(mode, S, S, 256);
                x.bicubic = 1;
                assert_int_equal(feed__image_process(ctx, &x, jpg, len, 2, 0, id, a, NULL, NULL, 0), 0);
                x.roi_decode = 0;
                assert_int_equal(feed__image_process(ctx, &x, jpg, len, 2, 0, id, b, NULL, NULL, 0), 0);
                double mean = ti_mean_err_u8(a, b, n);
                int mx = ti_max_err_u8(a, b, n);
                if (mean > 1 || mx > 12)
                    fail_msg("kind %d mode %u id %llu: region vs whole decode mean %g max %d",
                             kinds[kd], mode, (unsigned long long)id, mean, mx);
            }
        free(jpg);
        free(px);
    }
    free(a);
    free(b);
    free(c);
    feed__axis_free(&xa);
    feed__axis_free(&ya);
    feed__resizer_free(&rz);
    feed__image_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bicubic_weights),
        cmocka_unit_test(test_bicubic_reference),
        cmocka_unit_test(test_bicubic_levels_identical),
        cmocka_unit_test(test_pipeline_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
