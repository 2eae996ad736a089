/*
 * test_png.c - src/decode/png.c and the pipeline's PNG path: every colour type and
 * bit depth (grey 1/4/8/16, grey+alpha, palette, palette+tRNS, RGB, RGBA,
 * 16-bit, Adam7 interlaced) decoded to the RGB the test computes itself from
 * the samples it encoded (the reference shares no code with libspng's
 * decoder); the crop region; the pipeline after decode (identity, resize
 * against the float64 reference, the same bytes as a JPEG-free lossless
 * WebP of the same pixels under every augmentation); errors: truncated,
 * bad CRC, corrupt deflate data, max_pixels and max_worker_memory from the
 * header, unsupported formats named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spng.h>
#include <webp/encode.h>

#include "decode/jpeg.h"
#include "decode/png.h"
#include "feed.h"
#include "pixels/pipeline.h"
#include "test_image_util.h"

/* ---- encoding fixtures ----------------------------------------------------------------- */

typedef struct pngspec {
    const char *name;
    uint8_t color_type, depth, interlace;
    int trns;  /* palette: alpha for some entries; grey/RGB: a transparent colour */
} pngspec;

static uint32_t channels(uint8_t ct)
{
    return ct == SPNG_COLOR_TYPE_GRAYSCALE ? 1 : ct == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA ? 2
         : ct == SPNG_COLOR_TYPE_TRUECOLOR ? 3 : ct == SPNG_COLOR_TYPE_INDEXED ? 1 : 4;
}

/* A deterministic sample value in [0, 2^depth) for pixel (x, y), channel c. */
static uint32_t sample(uint32_t x, uint32_t y, uint32_t c, uint32_t depth, uint32_t seed)
{
    uint32_t v = (x * 2654435761u) ^ (y * 40503u + c * 977u + seed * 31u);
    v ^= v >> 13;
    v *= 0x5bd1e995u;
    v ^= v >> 15;
    return depth == 16 ? v & 0xFFFF : v & ((1u << depth) - 1);
}

/* Encodes the samples sample() gives with libspng's encoder (raw PNG layout,
 * 16-bit big-endian) and computes the RGB a decoder must give: grey
 * replicated, low depths scaled by bit replication (v * 255 / (2^d - 1)),
 * 16-bit to its high byte, palette looked up, alpha dropped. */
static uint8_t *make_png(const pngspec *s, uint32_t w, uint32_t h, size_t *len, uint8_t **rgb_out)
{
    uint32_t ch = channels(s->color_type), d = s->depth;
    size_t row = ((size_t)w * ch * d + 7) / 8;
    uint8_t *raw = calloc(row * h, 1);
    uint8_t *rgb = malloc((size_t)w * h * 3);
    assert_non_null(raw);
    assert_non_null(rgb);
    struct spng_plte plte = {.n_entries = 1u << (d < 8 ? d : 8)};
    for (uint32_t i = 0; i < plte.n_entries; i++) {
        plte.entries[i].red = (uint8_t)(i * 37 + 11);
        plte.entries[i].green = (uint8_t)(255 - i * 13);
        plte.entries[i].blue = (uint8_t)(i * 101 + 7);
    }
    uint32_t maxv = d == 16 ? 0xFFFF : (1u << d) - 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t v[4];
            for (uint32_t c = 0; c < ch; c++) {
                v[c] = sample(x, y, c, d, 7);
                size_t bit = ((size_t)x * ch + c) * d;
                uint8_t *p = raw + (size_t)y * row + bit / 8;
                if (d == 16) {
                    p[0] = (uint8_t)(v[c] >> 8);
                    p[1] = (uint8_t)v[c];
                } else if (d == 8) {
                    p[0] = (uint8_t)v[c];
                } else {
                    p[0] |= (uint8_t)(v[c] << (8 - d - bit % 8));
                }
            }
            uint8_t *o = rgb + ((size_t)y * w + x) * 3;
            if (s->color_type == SPNG_COLOR_TYPE_INDEXED) {
                o[0] = plte.entries[v[0]].red;
                o[1] = plte.entries[v[0]].green;
                o[2] = plte.entries[v[0]].blue;
                continue;
            }
            uint32_t k = ch >= 3 ? 3 : 1;
            for (uint32_t c = 0; c < 3; c++) {
                uint32_t sv = v[k == 3 ? c : 0];
                o[c] = (uint8_t)(d == 16 ? sv >> 8 : sv * 255 / maxv);
            }
        }
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    assert_non_null(ctx);
    assert_int_equal(spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1), 0);
    struct spng_ihdr ihdr = {.width = w, .height = h, .bit_depth = (uint8_t)d,
                             .color_type = s->color_type, .interlace_method = s->interlace};
    assert_int_equal(spng_set_ihdr(ctx, &ihdr), 0);
    if (s->color_type == SPNG_COLOR_TYPE_INDEXED)
        assert_int_equal(spng_set_plte(ctx, &plte), 0);
    if (s->trns) {
        struct spng_trns t = {.gray = (uint16_t)sample(0, 0, 0, d, 7),
                              .red = (uint16_t)sample(1, 0, 0, d, 7),
                              .green = (uint16_t)sample(1, 0, 1, d, 7),
                              .blue = (uint16_t)sample(1, 0, 2, d, 7)};
        if (s->color_type == SPNG_COLOR_TYPE_INDEXED) {
            t.n_type3_entries = plte.n_entries / 2;
            for (uint32_t i = 0; i < t.n_type3_entries; i++)
                t.type3_alpha[i] = (uint8_t)(i * 50);
        }
        assert_int_equal(spng_set_trns(ctx, &t), 0);
    }
    int e = spng_encode_image(ctx, raw, row * h, SPNG_FMT_RAW, SPNG_ENCODE_FINALIZE);
    if (e)
        fprintf(stderr, "%s: encode: %s\n", s->name, spng_strerror(e));
    assert_int_equal(e, 0);
    uint8_t *png = spng_get_png_buffer(ctx, len, &e);
    assert_int_equal(e, 0);
    assert_non_null(png);
    spng_ctx_free(ctx);
    free(raw);
    *rgb_out = rgb;
    return png;
}

static const pngspec kinds[] = {
    {"grey 8", SPNG_COLOR_TYPE_GRAYSCALE, 8, 0, 0},
    {"grey 1", SPNG_COLOR_TYPE_GRAYSCALE, 1, 0, 0},
    {"grey 4", SPNG_COLOR_TYPE_GRAYSCALE, 4, 0, 0},
    {"grey 16", SPNG_COLOR_TYPE_GRAYSCALE, 16, 0, 0},
    {"grey 8 + tRNS", SPNG_COLOR_TYPE_GRAYSCALE, 8, 0, 1},
    {"grey+alpha 8", SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 8, 0, 0},
    {"grey+alpha 16", SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 16, 0, 0},
    {"palette 8", SPNG_COLOR_TYPE_INDEXED, 8, 0, 0},
    {"palette 2", SPNG_COLOR_TYPE_INDEXED, 2, 0, 0},
    {"palette 8 + tRNS", SPNG_COLOR_TYPE_INDEXED, 8, 0, 1},
    {"RGB 8", SPNG_COLOR_TYPE_TRUECOLOR, 8, 0, 0},
    {"RGB 8 + tRNS", SPNG_COLOR_TYPE_TRUECOLOR, 8, 0, 1},
    {"RGB 16", SPNG_COLOR_TYPE_TRUECOLOR, 16, 0, 0},
    {"RGBA 8", SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 8, 0, 0},
    {"RGBA 16", SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 16, 0, 0},
    {"RGB 8 interlaced", SPNG_COLOR_TYPE_TRUECOLOR, 8, 1, 0},
    {"RGBA 16 interlaced", SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 16, 1, 0},
    {"palette 4 interlaced", SPNG_COLOR_TYPE_INDEXED, 4, 1, 1},
    {"grey 2 interlaced", SPNG_COLOR_TYPE_GRAYSCALE, 2, 1, 0},
};
#define NKINDS (sizeof kinds / sizeof *kinds)

static feed__xform xform(uint32_t mode, uint32_t oh, uint32_t ow)
{
    return ti_xform(mode, oh, ow, oh > ow ? oh + 9 : ow + 9);
}

/* ---- tests ------------------------------------------------------------------------------- */

/* Every kind, whole image and a region: the RGB computed from the samples. */
static void test_kinds(void **state)
{
    (void)state;
    feed__png *dec = feed__png_create();
    assert_non_null(dec);
    uint32_t w = 37, h = 29; /* odd sizes: every Adam7 pass partial, sub-byte rows padded */
    for (size_t k = 0; k < NKINDS; k++) {
        size_t len;
        uint8_t *rgb;
        uint8_t *png = make_png(&kinds[k], w, h, &len, &rgb);
        ti_plan_arg p = {.want = {.scale = 8, .x0 = 0, .y0 = 0, .x1 = w, .y1 = h}};
        feed__decode_image img;
        char msg[256];
        int rc = feed__png_decode(dec, png, len, ti_plan_fixed, &p, &img, msg, sizeof msg);
        if (rc)
            fprintf(stderr, "%s: %d %s\n", kinds[k].name, rc, msg);
        assert_int_equal(rc, 0);
        assert_int_equal(p.seen.width, w);
        assert_int_equal(p.seen.height, h);
        assert_int_equal(p.seen.progressive, kinds[k].interlace);
        int bad = 0;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++)
                for (int c = 0; c < 3; c++)
                    if (img.pixels[y * img.stride + x * 4 + c] != rgb[((size_t)y * w + x) * 3 + c] &&
                        bad++ < 3)
                        fprintf(stderr, "%s: (%u,%u,%d) got %u want %u\n", kinds[k].name, x, y, c,
                                img.pixels[y * img.stride + x * 4 + c], rgb[((size_t)y * w + x) * 3 + c]);
        assert_int_equal(bad, 0);
        /* a region is the same pixels */
        p.want = (feed__decode_region){.scale = 8, .x0 = 5, .y0 = 7, .x1 = 30, .y1 = 20};
        assert_int_equal(feed__png_decode(dec, png, len, ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
        assert_int_equal(img.w, 25);
        assert_int_equal(img.h, 13);
        for (uint32_t y = 0; y < img.h; y++)
            for (uint32_t x = 0; x < img.w; x++)
                assert_memory_equal(img.pixels + y * img.stride + x * 4,
                                    rgb + ((size_t)(y + 7) * w + x + 5) * 3, 3);
        /* through the pipeline: NONE at the image's own size is the identity */
        feed__image_ctx *ctx = feed__image_ctx_create();
        feed__xform xf = xform(FEED_AUGMENT_NONE, h, w);
        uint8_t *out = malloc((size_t)w * h * 3);
        feed__image_info info;
        assert_int_equal(feed__image_process(ctx, &xf, png, len, 0, 0, 0, out, &info, msg, sizeof msg), 0);
        assert_memory_equal(out, rgb, (size_t)w * h * 3);
        assert_int_equal(info.src_w, w);
        assert_int_equal(info.src_h, h);
        feed__image_ctx_destroy(ctx);
        free(out);
        free(png);
        free(rgb);
    }
    feed__png_destroy(dec);
}

/* A resize of a PNG against the float64 reference of test_image_util. */
static void test_resize_reference(void **state)
{
    (void)state;
    uint32_t w = 90, h = 70;
    size_t len;
    uint8_t *rgb;
    uint8_t *png = make_png(&kinds[10], w, h, &len, &rgb); /* RGB 8 */
    feed__image_ctx *ctx = feed__image_ctx_create();
    feed__xform x = xform(FEED_AUGMENT_NONE, 31, 40);
    uint8_t out[31 * 40 * 3];
    char msg[256];
    assert_int_equal(feed__image_process(ctx, &x, png, len, 0, 0, 0, out, NULL, msg, sizeof msg), 0);
    double *ref = ti_resize_ref(rgb, w, h, 0, 0, w, h, 40, 31);
    assert_true(ti_max_err(out, ref, sizeof out) <= 1.0);
    free(ref);
    feed__image_ctx_destroy(ctx);
    free(png);
    free(rgb);
}

/* The steps after the decode do not depend on the format: a PNG and a
 * lossless WebP of the same pixels give the same bytes under every mode
 * and augmentation, with and without roi_decode. */
static void test_same_as_webp(void **state)
{
    (void)state;
    uint32_t w = 160, h = 120;
    uint8_t *rgb = ti_photo(w, h, 3);
    spng_ctx *ec = spng_ctx_new(SPNG_CTX_ENCODER);
    spng_set_option(ec, SPNG_ENCODE_TO_BUFFER, 1);
    struct spng_ihdr ihdr = {.width = w, .height = h, .bit_depth = 8,
                             .color_type = SPNG_COLOR_TYPE_TRUECOLOR};
    spng_set_ihdr(ec, &ihdr);
    assert_int_equal(spng_encode_image(ec, rgb, (size_t)w * h * 3, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE), 0);
    size_t plen;
    int e;
    uint8_t *png = spng_get_png_buffer(ec, &plen, &e);
    assert_non_null(png);
    spng_ctx_free(ec);
    uint8_t *webp = NULL;
    size_t wlen = WebPEncodeLosslessRGB(rgb, (int)w, (int)h, (int)w * 3, &webp);
    assert_true(wlen > 0);

    feed__image_ctx *ctx = feed__image_ctx_create();
    uint8_t a[64 * 48 * 3], b[64 * 48 * 3], c[64 * 48 * 3];
    char msg[256];
    for (uint32_t mode = 0; mode <= FEED_AUGMENT_TRAIN; mode++)
        for (uint64_t id = 0; id < 12; id++) {
            feed__xform x = xform(mode, 48, 64);
            if (mode == FEED_AUGMENT_TRAIN) {
                x.rotate_deg = 20;
                x.brightness = x.contrast = x.saturation = 0.4f;
                x.hue = 0.1f;
                x.grayscale_p = 0.2f;
            }
            assert_int_equal(feed__image_process(ctx, &x, png, plen, 5, 1, id, a, NULL, msg, sizeof msg), 0);
            assert_int_equal(feed__image_process(ctx, &x, webp, wlen, 5, 1, id, b, NULL, msg, sizeof msg), 0);
            assert_memory_equal(a, b, sizeof a);
            x.roi_decode = 0;
            assert_int_equal(feed__image_process(ctx, &x, png, plen, 5, 1, id, c, NULL, msg, sizeof msg), 0);
            assert_memory_equal(a, c, sizeof a);
        }
    feed__image_ctx_destroy(ctx);
    WebPFree(webp);
    free(png);
    free(rgb);
}

/* CRC-32 of PNG chunks (ISO 3309), to forge headers that still pass it. */
static uint32_t crc32_png(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void test_errors(void **state)
{
    (void)state;
    uint32_t w = 64, h = 48;
    size_t len;
    uint8_t *rgb;
    uint8_t *png = make_png(&kinds[10], w, h, &len, &rgb);
    feed__image_ctx *ctx = feed__image_ctx_create();
    feed__xform x = xform(FEED_AUGMENT_VAL, 32, 32);
    uint8_t out[32 * 32 * 3];
    char msg[256];
    /* truncated: in the header, in the image data, before IEND */
    size_t cuts[] = {8, 20, 40, len / 2, len - 20};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        assert_int_equal(feed__image_process(ctx, &x, png, cuts[i], 0, 0, 0, out, NULL, msg, sizeof msg),
                         FEED_E_DECODE);
        assert_non_null(strstr(msg, "PNG"));
        assert_null(strstr(msg, "non-recoverable")); /* the first error, not a later one */
    }
    /* a flipped bit in the image data: the chunk's CRC says so */
    uint8_t *bad = malloc(len);
    memcpy(bad, png, len);
    bad[len / 2] ^= 0x10;
    assert_int_equal(feed__image_process(ctx, &x, bad, len, 0, 0, 0, out, NULL, msg, sizeof msg),
                     FEED_E_DECODE);
    assert_non_null(strstr(msg, "PNG"));
    /* the same with the CRC made right: the deflate stream or the filter is wrong */
    memcpy(bad, png, len);
    size_t pos = 8;
    while (pos + 12 <= len && memcmp(bad + pos + 4, "IDAT", 4))
        pos += 12 + (((size_t)bad[pos] << 24) | ((size_t)bad[pos + 1] << 16) | ((size_t)bad[pos + 2] << 8) | bad[pos + 3]);
    assert_true(pos + 12 <= len);
    uint32_t clen = ((uint32_t)bad[pos] << 24) | ((uint32_t)bad[pos + 1] << 16) | ((uint32_t)bad[pos + 2] << 8) | bad[pos + 3];
    for (uint32_t i = 2; i < clen; i += 3)
        bad[pos + 8 + i] ^= 0x5A;
    put32(bad + pos + 8 + clen, crc32_png(bad + pos + 4, clen + 4));
    assert_int_equal(feed__image_process(ctx, &x, bad, len, 0, 0, 0, out, NULL, msg, sizeof msg),
                     FEED_E_DECODE);
    assert_non_null(strstr(msg, "PNG"));

    /* max_pixels from the header: a 30000x30000 IHDR (CRC fixed) over a tiny image */
    memcpy(bad, png, len);
    put32(bad + 16, 30000);
    put32(bad + 20, 30000);
    put32(bad + 29, crc32_png(bad + 12, 17));
    assert_int_equal(feed__image_process(ctx, &x, bad, len, 0, 0, 0, out, NULL, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    assert_non_null(strstr(msg, "30000x30000"));
    assert_non_null(strstr(msg, "max_pixels"));
    x.max_pixels = (uint64_t)w * h - 1;
    assert_int_equal(feed__image_process(ctx, &x, png, len, 0, 0, 0, out, NULL, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    x.max_pixels = (uint64_t)w * h;
    assert_int_equal(feed__image_process(ctx, &x, png, len, 0, 0, 0, out, NULL, msg, sizeof msg), 0);
    /* max_worker_memory from the header: 20000x20000 is within max_pixels,
     * its 1.6 GB of RGBA is not within 1 GB */
    memcpy(bad, png, len);
    put32(bad + 16, 20000);
    put32(bad + 20, 20000);
    put32(bad + 29, crc32_png(bad + 12, 17));
    x.max_pixels = 400000000;
    x.max_memory = 1ull << 30;
    assert_int_equal(feed__image_process(ctx, &x, bad, len, 0, 0, 0, out, NULL, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    assert_non_null(strstr(msg, "max_worker_memory"));
    x.max_memory = 64ull << 20; /* and a real decode fits a small cap */
    assert_int_equal(feed__image_process(ctx, &x, png, len, 0, 0, 0, out, NULL, msg, sizeof msg), 0);

    /* formats with no decoder are named */
    static const struct { const char *bytes; size_t n; const char *name; } other[] = {
        {"GIF89a\x01\x00\x01\x00\x00\x00", 12, "GIF"},
        {"BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00", 12, "BMP"},
        {"II*\x00\x08\x00\x00\x00", 8, "TIFF"},
    };
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        assert_int_equal(feed__image_process(ctx, &x, (const uint8_t *)other[i].bytes, other[i].n, 0, 0,
                                             0, out, NULL, msg, sizeof msg),
                         FEED_E_DECODE);
        assert_non_null(strstr(msg, other[i].name));
        assert_non_null(strstr(msg, "not a supported image format"));
    }
    /* a PNG signature alone, and nothing */
    assert_int_equal(feed__image_process(ctx, &x, png, 8, 0, 0, 0, out, NULL, msg, sizeof msg), FEED_E_DECODE);
    assert_int_equal(feed__image_process(ctx, &x, png, 0, 0, 0, 0, out, NULL, msg, sizeof msg), FEED_E_DECODE);
    feed__image_ctx_destroy(ctx);
    free(bad);
    free(png);
    free(rgb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_resize_reference),
        cmocka_unit_test(test_same_as_webp),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
