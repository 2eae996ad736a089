/*
 * test_planar.c - the planar JPEG pipeline (src/decode/jpeg_planes.c, the plane
 * resize in resize.c, ycc.c, pipeline.c): the plane resize is an RGBX channel's
 * arithmetic at every SIMD level, the YCbCr conversion is identical at every
 * level and within 1 of the exact one, and feed__image_process() on planes
 * matches its float64 definition (TurboJPEG's planes, each resized on its own
 * grid, converted exactly) and stays close to the interleaved RGB decode
 * that torchvision's pipeline is.
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
#include "feed.h"
#include "pixels/geometry.h"
#include "pixels/pipeline.h"
#include "pixels/resize.h"
#include "pixels/ycc.h"
#include "test_image_util.h"



/* A plane resized at each level equals channel 0 of the RGBX resize of the
 * same samples in all four channels, at the portable level: any output
 * width (the AVX2 pass's groups of 8 and its tail), odd and even heights
 * (two rows at a time), flips, upscales (the 4-tap windows) and shrinks up
 * to 6x (8- and 16-tap windows). The plane's rows are 64 bytes longer than
 * its samples, as jpeg_planes.c makes them; outputs are exact-size buffers,
 * so a store past a row shows under ASan. */
static void test_plane_resize_is_a_channel(void **state)
{
    (void)state;
    feed__resizer rz = {0};
    feed__axis xa = {0}, ya = {0}, xb = {0}, yb = {0};
    uint32_t seed = 5;
    for (int level = 0; level <= 3; level++) {
        if (!ti_cpu_has_level(level))
            continue;
        for (int k = 0; k < 300; k++) {
            ti_resize_case c;
            ti_resize_case_make(&seed, k, &c);
            uint32_t dw = c.dw, dh = c.dh, w = c.w, h = c.h;
            double bx0 = c.b[0], by0 = c.b[1], bx1 = c.b[2], by1 = c.b[3];
            int flip = c.flip;
            size_t stride = w + 64;
            uint8_t *plane = calloc(stride * h + 64, 1), *rgbx = malloc((size_t)w * h * 4);
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    uint8_t v = (uint8_t)ti_rnd(&seed);
                    plane[y * stride + x] = v;
                    memset(rgbx + ((size_t)y * w + x) * 4, v, 4);
                }
            uint8_t *ref = malloc((size_t)dw * dh * 3), *out = malloc((size_t)dw * dh);
            feed__resize_simd = 0;
            assert_int_equal(feed__resize(&rz, &xb, &yb, rgbx, (size_t)w * 4, w, h, bx0, by0, bx1,
                                          by1, ref, (size_t)dw * 3, dw, dh, flip, FEED__FILTER_BILINEAR),
                             0);
            feed__resize_simd = level;
            assert_int_equal(feed__axis_build(&xa, w, bx0, bx1, dw, FEED__FILTER_BILINEAR), 0);
            assert_int_equal(feed__axis_build(&ya, h, by0, by1, dh, FEED__FILTER_BILINEAR), 0);
            assert_int_equal(feed__resize_plane(&rz, &xa, &ya, plane + (size_t)ya.lo * stride + xa.lo,
                                                stride, out, dw, flip),
                             0);
            for (size_t i = 0; i < (size_t)dw * dh; i++)
                if (out[i] != ref[3 * i]) {
                    fprintf(stderr, "level %d: %ux%u box (%g,%g)-(%g,%g) -> %ux%u flip %d taps %u: "
                            "sample %zu %u != %u\n", level, w, h, bx0, by0, bx1, by1, dw, dh, flip,
                            xa.taps, i, out[i], ref[3 * i]);
                    fail();
                }
            free(ref);
            free(out);
            free(rgbx);
            free(plane);
        }
    }
    feed__resize_simd = -1;
    feed__axis_free(&xa);
    feed__axis_free(&ya);
    feed__axis_free(&xb);
    feed__axis_free(&yb);
    feed__resizer_free(&rz);
}

/* Every YCbCr triple at both levels: the same bytes, within 1 of the exact
 * (float) JFIF conversion, clamped. Rows of 1..70 pixels (the SIMD loop's
 * steps, its moved last step and its portable short rows) in exact-size
 * buffers. */
static void test_ycc(void **state)
{
    (void)state;
    enum { N = 256 * 256 };
    uint8_t *y = malloc(N), *cb = malloc(N), *cr = malloc(N);
    uint8_t *a = malloc(3 * N), *b = malloc(3 * N);
    for (int yy = 0; yy < 256; yy++) {
        for (int i = 0; i < N; i++) {
            y[i] = (uint8_t)yy;
            cb[i] = (uint8_t)(i >> 8);
            cr[i] = (uint8_t)i;
        }
        feed__ycc_simd = 0;
        feed__ycc_to_rgb(y, cb, cr, 256, 256, 256, a, 256 * 3);
        feed__ycc_simd = 1;
        feed__ycc_to_rgb(y, cb, cr, 256, 256, 256, b, 256 * 3);
        assert_memory_equal(a, b, 3 * N);
        for (int i = 0; i < N; i++) {
            double c = cb[i] - 128.0, r = cr[i] - 128.0;
            double e[3] = {yy + 1.402 * r, yy - 0.344136 * c - 0.714136 * r, yy + 1.772 * c};
            for (int k = 0; k < 3; k++) {
                double v = e[k] < 0 ? 0 : e[k] > 255 ? 255 : e[k];
                if (fabs(a[3 * i + k] - v) > 1) {
                    fprintf(stderr, "ycc %d %d %d channel %d: %u vs %g\n", yy, cb[i], cr[i], k,
                            a[3 * i + k], v);
                    fail();
                }
            }
        }
    }
    uint32_t seed = 9;
    for (uint32_t w = 1; w <= 70; w++) {
        uint32_t h = 3;
        uint8_t *p[3], *o[2];
        for (int k = 0; k < 3; k++) {
            p[k] = malloc((size_t)w * h);
            for (uint32_t i = 0; i < w * h; i++)
                p[k][i] = (uint8_t)ti_rnd(&seed);
        }
        for (int l = 0; l < 2; l++) {
            o[l] = malloc((size_t)w * h * 3);
            feed__ycc_simd = l;
            feed__ycc_to_rgb(p[0], p[1], p[2], w, w, h, o[l], (size_t)w * 3);
        }
        assert_memory_equal(o[0], o[1], (size_t)w * h * 3);
        for (int k = 0; k < 3; k++)
            free(p[k]);
        free(o[0]);
        free(o[1]);
    }
    feed__ycc_simd = -1;
    free(y);
    free(cb);
    free(cr);
    free(a);
    free(b);
}

/* ---- the pipeline against its float64 definition ------------------------------------ */

/* TurboJPEG's YUV planes at 8/8 (the file's own samples) */
typedef struct yuv {
    uint8_t *p[3];
    int w[3], h[3], n;
    double fx[3], fy[3]; /* the plane's grid over the image's */
} yuv;

static void yuv_decode(const uint8_t *jpg, size_t len, yuv *v, int *W, int *H)
{
    tjhandle tj = tjInitDecompress();
    int ss, cs;
    assert_int_equal(tjDecompressHeader3(tj, jpg, (unsigned long)len, W, H, &ss, &cs), 0);
    v->n = ss == TJSAMP_GRAY ? 1 : 3;
    for (int c = 0; c < v->n; c++) {
        v->w[c] = tjPlaneWidth(c, *W, ss);
        v->h[c] = tjPlaneHeight(c, *H, ss);
        v->fx[c] = c ? 8.0 / tjMCUWidth[ss] : 1;
        v->fy[c] = c ? 8.0 / tjMCUHeight[ss] : 1;
        v->p[c] = malloc((size_t)v->w[c] * v->h[c]);
    }
    assert_int_equal(tjDecompressToYUVPlanes(tj, jpg, (unsigned long)len, v->p, *W, v->w, *H, 0), 0);
    tjDestroy(tj);
}

/* One plane of pw x ph samples resampled the planar way: its grid is fx
 * times the image's across, fy down; the valid region [v0, v1) of the
 * image becomes the samples it touches, the box [b0, b1) maps by the same
 * factors, and the float64 reference resize of that sub-plane gives dw x dh
 * doubles. */
static double *plane_ref(const uint8_t *p, int pw, int ph, double fx, double fy, const double v[4],
                         const double b[4], uint32_t dw, uint32_t dh)
{
    int x0 = (int)floor(v[0] * fx), x1 = (int)ceil(v[1] * fx);
    int y0 = (int)floor(v[2] * fy), y1 = (int)ceil(v[3] * fy);
    if (x1 > pw)
        x1 = pw;
    if (y1 > ph)
        y1 = ph;
    int sw = x1 - x0, sh = y1 - y0;
    uint8_t *rgb = malloc((size_t)sw * sh * 3);
    for (int y = 0; y < sh; y++)
        for (int x = 0; x < sw; x++)
            memset(rgb + ((size_t)y * sw + x) * 3, p[(size_t)(y0 + y) * pw + x0 + x], 3);
    double bx0 = fmax(b[0] * fx - x0, 0), bx1 = fmin(b[1] * fx - x0, sw);
    double by0 = fmax(b[2] * fy - y0, 0), by1 = fmin(b[3] * fy - y0, sh);
    double *r = ti_resize_ref(rgb, (uint32_t)sw, (uint32_t)sh, bx0, by0, bx1, by1, dw, dh);
    free(rgb);
    double *out = malloc(sizeof(double) * dw * dh);
    for (size_t i = 0; i < (size_t)dw * dh; i++)
        out[i] = r[3 * i];
    free(r);
    return out;
}

/* The planar pipeline's definition for a file without EXIF orientation,
 * decoded at 8/8: box and valid region as the library plans them (train:
 * the RandomResizedCrop box, which is its own valid region; val and none:
 * the whole image, the box the centre crop's or the whole), each plane
 * resampled on its grid, converted exactly, flipped. out_w x out_h x 3. */
static double *planar_ref(const uint8_t *jpg, size_t len, const feed__xform *x, uint64_t seed,
                          uint64_t epoch, uint64_t id, int flipped)
{
    yuv v;
    int W, H;
    yuv_decode(jpg, len, &v, &W, &H);
    double vr[4] = {0, W, 0, H}, b[4] = {0, W, 0, H};
    if (x->mode == FEED_AUGMENT_TRAIN) {
        feed__rng r;
        feed__rng_init(&r, seed, epoch, id, FEED_RNG_CROP);
        uint32_t i, j, h, w;
        feed__rrc_box(&r, (uint32_t)W, (uint32_t)H, x->scale_min, x->scale_max, x->ratio_min,
                      x->ratio_max, &i, &j, &h, &w);
        vr[0] = b[0] = j;
        vr[1] = b[1] = j + w;
        vr[2] = b[2] = i;
        vr[3] = b[3] = i + h;
    } else if (x->mode == FEED_AUGMENT_VAL) {
        /* resize so the shorter side is s, crop out_w x out_h at the centre */
        uint32_t rw, rh;
        ti_resize_shorter((uint32_t)W, (uint32_t)H, x->resize_shorter, &rw, &rh);
        double top = (double)lrint((rh - x->out_h) / 2.0), left = (double)lrint((rw - x->out_w) / 2.0);
        b[0] = left * W / rw;
        b[1] = (left + x->out_w) * W / rw;
        b[2] = top * H / rh;
        b[3] = (top + x->out_h) * H / rh;
    }
    uint32_t ow = x->out_w, oh = x->out_h;
    double *pl[3] = {NULL, NULL, NULL};
    for (int c = 0; c < v.n; c++)
        pl[c] = plane_ref(v.p[c], v.w[c], v.h[c], v.fx[c], v.fy[c], vr, b, ow, oh);
    double *out = malloc(sizeof(double) * ow * oh * 3);
    for (uint32_t yy = 0; yy < oh; yy++)
        for (uint32_t xx = 0; xx < ow; xx++) {
            size_t i = (size_t)yy * ow + (flipped ? ow - 1 - xx : xx);
            double Y = pl[0][i], cb = v.n == 3 ? pl[1][i] - 128 : 0, cr = v.n == 3 ? pl[2][i] - 128 : 0;
            double e[3] = {Y + 1.402 * cr, Y - 0.344136 * cb - 0.714136 * cr, Y + 1.772 * cb};
            for (int k = 0; k < 3; k++)
                out[((size_t)yy * ow + xx) * 3 + k] = e[k] < 0 ? 0 : e[k] > 255 ? 255 : e[k];
        }
    for (int c = 0; c < v.n; c++) {
        free(pl[c]);
        free(v.p[c]);
    }
    return out;
}

/* Each sampling (4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1, grey), baseline and
 * progressive, sizes that are not MCU multiples, none / val / train with
 * flips: the bytes are within 3 of the planar definition (two fixed-point
 * passes a plane, then the conversion) and within 1 on average. A chroma
 * plane misplaced by half a sample shows as tens of levels on these
 * hard-edged pictures. */
static void test_process_planes_definition(void **state)
{
    (void)state;
    static const int kinds[] = {TI_444, TI_422, TI_420, TI_440, TI_411, TI_GRAY};
    static const char *names[] = {"444", "422", "420", "440", "411", "grey"};
    static const uint32_t dims[][2] = {{333, 251}, {251, 333}, {400, 300}};
    feed__image_ctx *ctx = feed__image_ctx_create();
    double worst_max = 0, worst_mean = 0;
    for (size_t kd = 0; kd < sizeof kinds / sizeof *kinds; kd++)
        for (size_t d = 0; d < 3; d++) {
            uint32_t w = dims[d][0], h = dims[d][1];
            uint8_t *px = ti_pixels(w, h, (uint32_t)(kd * 3 + d));
            size_t len;
            uint8_t *jpg = ti_jpeg(px, w, h, kinds[kd], 90, d == 1 ? TJFLAG_PROGRESSIVE : 0, &len);
            for (uint32_t mode = 0; mode <= 2; mode++)
                for (uint64_t id = 0; id < (mode == 2 ? 6u : 1u); id++) {
                    /* outputs over half the image: decoded at 8/8 */
                    feed__xform x = ti_xform(mode, 160, 192, 200);
                    uint8_t *a = malloc((size_t)160 * 192 * 3);
                    feed__image_info info;
                    char msg[256];
                    assert_int_equal(feed__image_process(ctx, &x, jpg, len, 4, 1, id, a, &info, msg,
                                                         sizeof msg),
                                     0);
                    double *ref = planar_ref(jpg, len, &x, 4, 1, id, (int)info.flipped);
                    size_t n = (size_t)160 * 192 * 3;
                    double mx = 0, mean = 0;
                    for (size_t i = 0; i < n; i++) {
                        double e = fabs(a[i] - ref[i]);
                        mean += e;
                        if (e > mx)
                            mx = e;
                    }
                    mean /= n;
                    if (mx > 3 || mean > 1)
                        fprintf(stderr, "planes %s %ux%u mode %u id %llu: max %g mean %g\n",
                                names[kd], w, h, mode, (unsigned long long)id, mx, mean);
                    assert_true(mx <= 3 && mean <= 1);
                    worst_max = fmax(worst_max, mx);
                    worst_mean = fmax(worst_mean, mean);
                    free(ref);
                    free(a);
                }
            free(jpg);
            free(px);
        }
    print_message("planar pipeline vs its float64 definition: max %g, worst mean %.3f\n", worst_max,
                  worst_mean);
    feed__image_ctx_destroy(ctx);
}

/* The planar decode against the interleaved one (libjpeg's upsampled,
 * converted RGB: what torchvision's pipeline decodes) on photo-like
 * pictures, at 8/8 and DCT-scaled: within 1 level on average, a few at
 * most; greyscale files give the same bytes either way. */
static void test_process_planes_near_rgb(void **state)
{
    (void)state;
    static const int kinds[] = {TI_420, TI_422, TI_444, TI_GRAY};
    static const uint32_t dims[][2] = {{477, 456}, {1200, 900}};
    feed__image_ctx *ctx = feed__image_ctx_create();
    double worst_mean = 0, worst_max = 0;
    for (size_t kd = 0; kd < 4; kd++)
        for (size_t d = 0; d < 2; d++) {
            uint32_t w = dims[d][0], h = dims[d][1];
            uint8_t *px = ti_photo(w, h, (uint32_t)(kd + 10 * d));
            size_t len;
            uint8_t *jpg = ti_jpeg(px, w, h, kinds[kd], 90, 0, &len);
            for (uint32_t mode = 0; mode <= 2; mode++)
                for (uint64_t id = 0; id < (mode == 2 ? 8u : 1u); id++) {
                    feed__xform x = ti_xform(mode, 224, 224, 256);
                    size_t n = (size_t)224 * 224 * 3;
                    uint8_t *a = malloc(n), *b = malloc(n);
                    feed__image_planar = 1;
                    assert_int_equal(feed__image_process(ctx, &x, jpg, len, 2, 0, id, a, NULL, NULL, 0), 0);
                    feed__image_planar = 0;
                    assert_int_equal(feed__image_process(ctx, &x, jpg, len, 2, 0, id, b, NULL, NULL, 0), 0);
                    feed__image_planar = 1;
                    double mean = 0, mx = 0;
                    for (size_t i = 0; i < n; i++) {
                        double e = fabs((double)a[i] - b[i]);
                        mean += e;
                        mx = fmax(mx, e);
                    }
                    mean /= n;
                    if (kinds[kd] == TI_GRAY)
                        assert_memory_equal(a, b, n);
                    if (mean > 1 || mx > 12)
                        fprintf(stderr, "planes vs rgb kind %d %ux%u mode %u id %llu: mean %g max %g\n",
                                kinds[kd], w, h, mode, (unsigned long long)id, mean, mx);
                    assert_true(mean <= 1 && mx <= 12);
                    worst_mean = fmax(worst_mean, mean);
                    worst_max = fmax(worst_max, mx);
                    free(a);
                    free(b);
                }
            free(jpg);
            free(px);
        }
    print_message("planar vs interleaved decode, photo-like: worst mean %.3f, max %g\n", worst_mean,
                  worst_max);
    feed__image_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane_resize_is_a_channel),
        cmocka_unit_test(test_ycc),
        cmocka_unit_test(test_process_planes_definition),
        cmocka_unit_test(test_process_planes_near_rgb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
