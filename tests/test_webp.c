/*
 * test_webp.c - src/decode/webp.c: lossless WebP (RGB and RGBA) decoded to exactly
 * the pixels encoded; lossy close to them and equal to libwebp's own
 * one-call decode (our buffer, stride and region plumbing); random regions
 * (libwebp's cropping) against a full decode;
 * errors: truncated, corrupt, animated, max_pixels and max_worker_memory
 * from the header.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include "decode/jpeg.h"
#include "decode/webp.h"
#include "feed.h"
#include "pixels/pipeline.h"
#include "test_image_util.h"


/* The whole image resized to oh x ow (none: the crop and jitter fields unused). */
static feed__xform xform(uint32_t oh, uint32_t ow)
{
    return ti_xform(FEED_AUGMENT_NONE, oh, ow, 0);
}

/* RGBA with alpha in 1..255 (lossless WebP may rewrite the colour under
 * alpha 0 unless told to keep it exact). */
static uint8_t *rgba_of(const uint8_t *rgb, uint32_t w, uint32_t h)
{
    uint8_t *p = malloc((size_t)w * h * 4);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        memcpy(p + i * 4, rgb + i * 3, 3);
        p[i * 4 + 3] = (uint8_t)(1 + i * 7 % 255);
    }
    return p;
}

static void check_rgb(const feed__decode_image *img, const uint8_t *rgb, uint32_t w, uint32_t x0,
                      uint32_t y0)
{
    for (uint32_t y = 0; y < img->h; y++)
        for (uint32_t x = 0; x < img->w; x++)
            assert_memory_equal(img->pixels + y * img->stride + x * 4,
                                rgb + ((size_t)(y + y0) * w + x + x0) * 3, 3);
}

static void test_lossless(void **state)
{
    (void)state;
    uint32_t w = 53, h = 41;
    uint8_t *rgb = ti_pixels(w, h, 4);
    uint8_t *rgba = rgba_of(rgb, w, h);
    uint8_t *f[2];
    size_t n[2];
    n[0] = WebPEncodeLosslessRGB(rgb, (int)w, (int)h, (int)w * 3, &f[0]);
    n[1] = WebPEncodeLosslessRGBA(rgba, (int)w, (int)h, (int)w * 4, &f[1]);
    feed__webp *dec = feed__webp_create();
    for (int k = 0; k < 2; k++) {
        assert_true(n[k] > 0);
        ti_plan_arg p = {.want = {.scale = 8, .x1 = w, .y1 = h}};
        feed__decode_image img;
        char msg[256];
        assert_int_equal(feed__webp_decode(dec, f[k], n[k], ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
        assert_int_equal(p.seen.width, w);
        assert_int_equal(p.seen.height, h);
        assert_int_equal(p.seen.components, k ? 4 : 3);
        check_rgb(&img, rgb, w, 0, 0);
        p.want = (feed__decode_region){.scale = 8, .x0 = 3, .y0 = 9, .x1 = 50, .y1 = 40};
        assert_int_equal(feed__webp_decode(dec, f[k], n[k], ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
        assert_int_equal(img.w, 47);
        assert_int_equal(img.h, 31);
        check_rgb(&img, rgb, w, 3, 9);
        /* the pipeline at the image's own size is the identity */
        feed__image_ctx *ctx = feed__image_ctx_create();
        feed__xform x = xform(h, w);
        uint8_t *out = malloc((size_t)w * h * 3);
        assert_int_equal(feed__image_process(ctx, &x, f[k], n[k], 0, 0, 0, out, NULL, msg, sizeof msg), 0);
        assert_memory_equal(out, rgb, (size_t)w * h * 3);
        free(out);
        feed__image_ctx_destroy(ctx);
        WebPFree(f[k]);
    }
    feed__webp_destroy(dec);
    free(rgba);
    free(rgb);
}

static void test_lossy(void **state)
{
    (void)state;
    uint32_t w = 96, h = 64;
    uint8_t *rgb = ti_photo(w, h, 5);
    uint8_t *rgba = rgba_of(rgb, w, h);
    uint8_t *f[2];
    size_t n[2];
    n[0] = WebPEncodeRGB(rgb, (int)w, (int)h, (int)w * 3, 90, &f[0]);
    n[1] = WebPEncodeRGBA(rgba, (int)w, (int)h, (int)w * 4, 90, &f[1]);
    feed__webp *dec = feed__webp_create();
    for (int k = 0; k < 2; k++) {
        assert_true(n[k] > 0);
        int rw, rh;
        uint8_t *ref = WebPDecodeRGB(f[k], n[k], &rw, &rh);
        assert_non_null(ref);
        assert_true((uint32_t)rw == w && (uint32_t)rh == h);
        ti_plan_arg p = {.want = {.scale = 8, .x0 = 10, .y0 = 4, .x1 = w, .y1 = 60}};
        feed__decode_image img;
        char msg[256];
        assert_int_equal(feed__webp_decode(dec, f[k], n[k], ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
        check_rgb(&img, ref, w, 10, 4);
        /* and near what was encoded */
        double sum = 0;
        for (uint32_t y = 0; y < img.h; y++)
            for (uint32_t x = 0; x < img.w; x++)
                for (int c = 0; c < 3; c++)
                    sum += abs((int)img.pixels[y * img.stride + x * 4 + c] -
                               (int)rgb[((size_t)(y + 4) * w + x + 10) * 3 + c]);
        assert_true(sum / (img.w * img.h * 3.0) < 4.0);
        WebPFree(ref);
        WebPFree(f[k]);
    }
    feed__webp_destroy(dec);
    free(rgba);
    free(rgb);
}

/* Random regions (libwebp's cropping, widened by a margin) equal a full
 * decode's pixels, for lossy, lossy with alpha and lossless files of odd
 * sizes; a file cut short is an error whatever region is asked for. */
static void test_regions(void **state)
{
    (void)state;
    uint32_t w = 203, h = 151;
    uint8_t *rgb = ti_photo(w, h, 9);
    uint8_t *rgba = rgba_of(rgb, w, h);
    uint8_t *f[3];
    size_t n[3];
    n[0] = WebPEncodeRGB(rgb, (int)w, (int)h, (int)w * 3, 85, &f[0]);
    n[1] = WebPEncodeRGBA(rgba, (int)w, (int)h, (int)w * 4, 85, &f[1]);
    n[2] = WebPEncodeLosslessRGBA(rgba, (int)w, (int)h, (int)w * 4, &f[2]);
    feed__webp *dec = feed__webp_create();
    uint64_t x = 88172645463325252ull;
    for (int k = 0; k < 3; k++) {
        assert_true(n[k] > 0);
        int rw, rh;
        uint8_t *ref = WebPDecodeRGBA(f[k], n[k], &rw, &rh);
        assert_non_null(ref);
        for (int t = 0; t < 150; t++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint32_t cw = 1 + (uint32_t)(x % w), ch = 1 + (uint32_t)((x >> 20) % h);
            uint32_t x0 = (uint32_t)((x >> 40) % (w - cw + 1)), y0 = (uint32_t)((x >> 50) % (h - ch + 1));
            ti_plan_arg p = {.want = {.scale = 8, .x0 = x0, .y0 = y0, .x1 = x0 + cw, .y1 = y0 + ch}};
            feed__decode_image img;
            char msg[256];
            assert_int_equal(feed__webp_decode(dec, f[k], n[k], ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
            assert_int_equal(img.w, cw);
            assert_int_equal(img.h, ch);
            for (uint32_t y = 0; y < ch; y++)
                for (uint32_t i = 0; i < cw; i++)
                    if (memcmp(img.pixels + y * img.stride + i * 4, ref + ((size_t)(y + y0) * w + x0 + i) * 4, 3))
                        fail_msg("file %d, region (%u,%u) %ux%u: pixel (%u,%u) differs from a full decode", k,
                                 x0, y0, cw, ch, x0 + i, y0 + y);
            /* cut short below the region: still an error */
            size_t cuts[2] = {n[k] - 1, n[k] * 3 / 4};
            for (int c = 0; c < 2 && t % 10 == 0; c++) {
                int rc = feed__webp_decode(dec, f[k], cuts[c], ti_plan_fixed, &p, &img, msg, sizeof msg);
                if (rc != FEED_E_DECODE)
                    fail_msg("file %d cut at %zu of %zu, region (%u,%u) %ux%u: rc %d", k, cuts[c], n[k],
                             x0, y0, cw, ch, rc);
            }
        }
        WebPFree(ref);
        WebPFree(f[k]);
    }
    feed__webp_destroy(dec);
    free(rgba);
    free(rgb);
}

/* A two-frame animation (libwebpmux's encoder). */
static uint8_t *make_animation(const uint8_t *rgba, uint32_t w, uint32_t h, size_t *len)
{
    WebPAnimEncoderOptions ao;
    assert_true(WebPAnimEncoderOptionsInit(&ao));
    WebPAnimEncoder *enc = WebPAnimEncoderNew((int)w, (int)h, &ao);
    assert_non_null(enc);
    WebPConfig cfg;
    assert_true(WebPConfigInit(&cfg));
    cfg.lossless = 1;
    WebPPicture pic;
    assert_true(WebPPictureInit(&pic));
    pic.use_argb = 1;
    pic.width = (int)w;
    pic.height = (int)h;
    assert_true(WebPPictureImportRGBA(&pic, rgba, (int)w * 4));
    assert_true(WebPAnimEncoderAdd(enc, &pic, 0, &cfg));
    for (size_t i = 0; i < (size_t)w * h; i++)
        pic.argb[i] ^= 0x00FFFFFFu;
    assert_true(WebPAnimEncoderAdd(enc, &pic, 100, &cfg));
    assert_true(WebPAnimEncoderAdd(enc, NULL, 200, NULL));
    WebPData data;
    WebPDataInit(&data);
    assert_true(WebPAnimEncoderAssemble(enc, &data));
    WebPPictureFree(&pic);
    WebPAnimEncoderDelete(enc);
    uint8_t *out = malloc(data.size);
    memcpy(out, data.bytes, data.size);
    *len = data.size;
    WebPDataClear(&data);
    return out;
}

static void put32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static void test_errors(void **state)
{
    (void)state;
    uint32_t w = 64, h = 48;
    uint8_t *rgb = ti_photo(w, h, 6);
    uint8_t *rgba = rgba_of(rgb, w, h);
    uint8_t *lossy, *lossless;
    size_t nl = WebPEncodeRGB(rgb, (int)w, (int)h, (int)w * 3, 80, &lossy);
    size_t nll = WebPEncodeLosslessRGBA(rgba, (int)w, (int)h, (int)w * 4, &lossless);
    assert_true(nl > 0 && nll > 0);
    feed__image_ctx *ctx = feed__image_ctx_create();
    feed__xform x = xform(32, 32);
    uint8_t out[32 * 32 * 3];
    char msg[256];
    const uint8_t *files[2] = {lossy, lossless};
    size_t lens[2] = {nl, nll};
    for (int k = 0; k < 2; k++) {
        size_t cuts[] = {12, 20, 30, lens[k] / 2, lens[k] - 1};
        for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
            int rc = feed__image_process(ctx, &x, files[k], cuts[i], 0, 0, 0, out, NULL, msg, sizeof msg);
            if (rc != FEED_E_DECODE)
                fprintf(stderr, "%s cut at %zu of %zu: rc %d %s\n", k ? "lossless" : "lossy", cuts[i],
                        lens[k], rc, msg);
            assert_int_equal(rc, FEED_E_DECODE);
            assert_non_null(strstr(msg, "WebP"));
        }
        /* garbage after the headers */
        uint8_t *bad = malloc(lens[k]);
        memcpy(bad, files[k], lens[k]);
        for (size_t i = 40; i < lens[k]; i += 2)
            bad[i] = (uint8_t)(i * 31);
        int rc = feed__image_process(ctx, &x, bad, lens[k], 0, 0, 0, out, NULL, msg, sizeof msg);
        /* a lossy stream may decode garbage as pixels (no checksum): no crash, no hang,
         * and if it fails, the message says WebP */
        assert_true(rc == 0 || (rc == FEED_E_DECODE && strstr(msg, "WebP")));
        free(bad);
    }
    /* max_pixels and max_worker_memory, from the header */
    x.max_pixels = (uint64_t)w * h - 1;
    assert_int_equal(feed__image_process(ctx, &x, lossy, nl, 0, 0, 0, out, NULL, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    assert_non_null(strstr(msg, "max_pixels"));
    x.max_pixels = (uint64_t)w * h;
    x.max_memory = 16384; /* less than the image */
    assert_int_equal(feed__image_process(ctx, &x, lossy, nl, 0, 0, 0, out, NULL, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    assert_non_null(strstr(msg, "max_worker_memory"));
    x.max_memory = 0;
    assert_int_equal(feed__image_process(ctx, &x, lossy, nl, 0, 0, 0, out, NULL, msg, sizeof msg), 0);
    /* a VP8L header claiming 16384x16384 over a small stream: refused from the header */
    uint8_t *big = malloc(nll);
    memcpy(big, lossless, nll);
    assert_memory_equal(big + 12, "VP8L", 4);
    uint32_t bits = 16383u | (16383u << 14) | ((uint32_t)(big[24] >> 4 & 1) << 28);
    put32le(big + 21, bits);
    x.max_pixels = 100000000;
    assert_int_equal(feed__image_process(ctx, &x, big, nll, 0, 0, 0, out, NULL, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    assert_non_null(strstr(msg, "16384x16384"));
    free(big);
    /* animated */
    size_t na;
    uint8_t *anim = make_animation(rgba, w, h, &na);
    assert_int_equal(feed__image_process(ctx, &x, anim, na, 0, 0, 0, out, NULL, msg, sizeof msg),
                     FEED_E_DECODE);
    assert_non_null(strstr(msg, "animated"));
    free(anim);
    feed__image_ctx_destroy(ctx);
    WebPFree(lossy);
    WebPFree(lossless);
    free(rgba);
    free(rgb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lossless),
        cmocka_unit_test(test_lossy),
        cmocka_unit_test(test_regions),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
