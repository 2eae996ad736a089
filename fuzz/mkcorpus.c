/*
 * mkcorpus.c - writes the seed corpus of fuzz_image into DIR (run once; the
 * files are committed in fuzz/corpus/image/): small JPEGs of every kind the
 * decoder takes apart differently, PNGs (libspng: palette, tRNS, 16-bit,
 * interlaced) and WebPs (lossy, lossless, alpha), each after a header
 * (fuzz_image.c) that picks a different transform.
 *     fuzz_mkcorpus fuzz/corpus/image
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <spng.h>
#include <turbojpeg.h>
#include <webp/encode.h>

#include "test_image_util.h"

static void put(const char *dir, const char *name, const uint8_t hdr[16], const uint8_t *jpeg,
                size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(hdr, 1, 16, f) != 16 || fwrite(jpeg, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    printf("%s: %zu bytes\n", path, len + 16);
}

/* jpeg recoded losslessly (the same coefficients) with arithmetic coding,
 * which TurboJPEG 2.1 cannot write; malloc'ed. */
static uint8_t *to_arithmetic(const uint8_t *jpeg, size_t len, size_t *out_len)
{
    struct jpeg_decompress_struct d;
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr de, ce;
    d.err = jpeg_std_error(&de);
    c.err = jpeg_std_error(&ce);
    jpeg_create_decompress(&d);
    jpeg_create_compress(&c);
    jpeg_mem_src(&d, jpeg, (unsigned long)len);
    jpeg_read_header(&d, TRUE);
    jvirt_barray_ptr *coef = jpeg_read_coefficients(&d);
    unsigned char *out = NULL;
    unsigned long ol = 0;
    jpeg_mem_dest(&c, &out, &ol);
    jpeg_copy_critical_parameters(&d, &c);
    c.arith_code = TRUE;
    jpeg_write_coefficients(&c, coef);
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    *out_len = ol;
    return out;
}

/* A PNG of rgb (w x h) as colour type ct, depth 8 or 16, interlaced or not:
 * grey from the red channel, palette from the top bits, alpha from green,
 * tRNS on the palette's first entries; malloc'ed. */
static uint8_t *to_png(const uint8_t *rgb, uint32_t w, uint32_t h, uint8_t ct, uint8_t depth,
                       uint8_t interlace, size_t *len)
{
    uint32_t ch = ct == SPNG_COLOR_TYPE_GRAYSCALE || ct == SPNG_COLOR_TYPE_INDEXED ? 1
                : ct == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA ? 2 : ct == SPNG_COLOR_TYPE_TRUECOLOR ? 3 : 4;
    uint32_t bps = depth / 8;
    uint8_t *raw = malloc((size_t)w * h * ch * bps);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        const uint8_t *p = rgb + i * 3;
        uint8_t v[4] = {p[0], p[1], p[2], (uint8_t)(p[1] | 1)};
        if (ct == SPNG_COLOR_TYPE_INDEXED)
            v[0] = (uint8_t)((p[0] >> 5) << 3 | (p[1] >> 5));
        else if (ct == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA)
            v[1] = v[3];
        for (uint32_t c = 0; c < ch; c++)
            for (uint32_t b = 0; b < bps; b++)
                raw[(i * ch + c) * bps + b] = (uint8_t)(v[c] ^ (b * 0x5A));
    }
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    struct spng_ihdr ihdr = {.width = w, .height = h, .bit_depth = depth, .color_type = ct,
                             .interlace_method = interlace};
    spng_set_ihdr(ctx, &ihdr);
    if (ct == SPNG_COLOR_TYPE_INDEXED) {
        struct spng_plte plte = {.n_entries = 64};
        for (uint32_t i = 0; i < 64; i++) {
            plte.entries[i].red = (uint8_t)((i >> 3) << 5);
            plte.entries[i].green = (uint8_t)((i & 7) << 5);
            plte.entries[i].blue = (uint8_t)(i * 4);
        }
        spng_set_plte(ctx, &plte);
        struct spng_trns t = {.n_type3_entries = 16};
        for (uint32_t i = 0; i < 16; i++)
            t.type3_alpha[i] = (uint8_t)(i * 16);
        spng_set_trns(ctx, &t);
    }
    int e = spng_encode_image(ctx, raw, (size_t)w * h * ch * bps, SPNG_FMT_RAW, SPNG_ENCODE_FINALIZE);
    uint8_t *out = e ? NULL : spng_get_png_buffer(ctx, len, &e);
    spng_ctx_free(ctx);
    free(raw);
    if (!out || e) {
        fprintf(stderr, "PNG encode: %s\n", spng_strerror(e));
        exit(1);
    }
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    /* header: mode/exif/roi/dtype/layout/again, w-1, h-1, resize, scale x2,
     * ratio x2, flip, rotate, fill, jitter x2, grey, max_pixels, seed */
    static const uint8_t val[16] = {0x09, 63, 47, 8, 20, 255, 118, 37, 128, 0, 0, 0, 0, 0, 255, 1};
    static const uint8_t train[16] = {0x8e, 47, 63, 0, 20, 255, 118, 37, 128, 200, 7, 0x33, 0x53, 40, 255, 0x21};
    static const uint8_t none_f16[16] = {0x24, 31, 31, 0, 0, 0, 128, 0, 0, 0, 0, 0, 0, 0, 255, 2};
    static const uint8_t full_f32[16] = {0x55, 99, 74, 3, 100, 50, 100, 60, 255, 130, 9, 0, 0, 0, 255, 3};
    static const uint8_t bf16[16] = {0xbe, 255, 255, 0, 0, 255, 128, 0, 128, 255, 0, 0xff, 0xff, 255, 255, 0x44};
    static const uint8_t tiny_limit[16] = {0x01, 15, 15, 0, 0, 0, 128, 0, 0, 0, 0, 0, 0, 0, 3, 5};
    size_t len, len2;
    uint8_t *rgb = ti_pixels(48, 40, 1), *odd = ti_pixels(37, 19, 2), *j, *e;

    j = ti_jpeg(rgb, 48, 40, TI_444, 90, 0, &len);
    put(dir, "baseline-444", val, j, len);
    put(dir, "baseline-444-limit", tiny_limit, j, len);
    e = ti_with_exif(j, len, 6, 1, &len2);
    put(dir, "exif6-be-444", train, e, len2);
    free(e);
    free(j);
    j = ti_jpeg(rgb, 48, 40, TI_420, 75, 0, &len);
    put(dir, "baseline-420", train, j, len);
    e = ti_with_exif(j, len, 8, 0, &len2);
    put(dir, "exif8-le-420", val, e, len2);
    free(e);
    free(j);
    static const struct {
        const char *name;
        const uint8_t *hdr;
        int odd, kind, quality, flags;
    } plain[] = {
        {"odd-422", full_f32, 1, TI_422, 80, 0},
        {"odd-411", none_f16, 1, TI_411, 80, 0},
        {"baseline-440", bf16, 0, TI_440, 80, 0},
        {"grey", train, 0, TI_GRAY, 85, 0},
        {"cmyk-adobe", val, 0, TI_CMYK, 85, 0},
        {"progressive-420", train, 0, TI_420, 80, TJFLAG_PROGRESSIVE},
        {"progressive-grey", full_f32, 1, TI_GRAY, 80, TJFLAG_PROGRESSIVE},
    };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        j = plain[i].odd ? ti_jpeg(odd, 37, 19, plain[i].kind, plain[i].quality, plain[i].flags, &len)
                         : ti_jpeg(rgb, 48, 40, plain[i].kind, plain[i].quality, plain[i].flags, &len);
        put(dir, plain[i].name, plain[i].hdr, j, len);
        free(j);
    }
    j = ti_jpeg(rgb, 48, 40, TI_420, 80, 0, &len);
    e = to_arithmetic(j, len, &len2);
    put(dir, "arithmetic-420", none_f16, e, len2);
    free(e);
    free(j);
    j = ti_jpeg_restart(rgb, 48, 40, 1, 1, &len);
    put(dir, "restart-rows-420", val, j, len);
    free(j);
    j = ti_jpeg_restart(odd, 37, 19, 2, 0, &len);
    put(dir, "restart-mcus-420", train, j, len);
    free(j);
    /* successive approximation in depth (ti_deep_scan_script): every kind of
     * refinement scan, bands that end inside the block, EOB runs */
    j = ti_jpeg_progressive_deep(rgb, 48, 40, 0, 0, 0, &len);
    put(dir, "progressive-deep-420", val, j, len);
    free(j);
    j = ti_jpeg_progressive_deep(odd, 37, 19, 0, 1, 2, &len);
    put(dir, "progressive-deep-dc-apart-restart", train, j, len);
    free(j);
    j = ti_jpeg_progressive_deep(rgb, 48, 40, 1, 0, 3, &len);
    put(dir, "progressive-deep-grey-restart", full_f32, j, len);
    free(j);
    /* PNG and WebP: the same dispatch (image.c picks the decoder from the bytes) */
    static const struct {
        const char *name;
        const uint8_t *hdr;
        int odd;
        uint8_t ct, depth, interlace;
    } pngs[] = {
        {"png-rgb", val, 0, SPNG_COLOR_TYPE_TRUECOLOR, 8, 0},
        {"png-rgba16-adam7", train, 1, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 16, 1},
        {"png-palette-trns", full_f32, 0, SPNG_COLOR_TYPE_INDEXED, 8, 0},
        {"png-grey16", none_f16, 1, SPNG_COLOR_TYPE_GRAYSCALE, 16, 0},
        {"png-grey-alpha-adam7", bf16, 0, SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 8, 1},
        {"png-rgb-limit", tiny_limit, 0, SPNG_COLOR_TYPE_TRUECOLOR, 8, 0},
    };
    for (size_t i = 0; i < sizeof pngs / sizeof *pngs; i++) {
        j = pngs[i].odd ? to_png(odd, 37, 19, pngs[i].ct, pngs[i].depth, pngs[i].interlace, &len)
                        : to_png(rgb, 48, 40, pngs[i].ct, pngs[i].depth, pngs[i].interlace, &len);
        put(dir, pngs[i].name, pngs[i].hdr, j, len);
        free(j);
    }
    uint8_t *rgba = malloc(48 * 40 * 4);
    for (size_t i = 0; i < 48 * 40; i++) {
        memcpy(rgba + i * 4, rgb + i * 3, 3);
        rgba[i * 4 + 3] = (uint8_t)(i * 5);
    }
    len = WebPEncodeRGB(rgb, 48, 40, 48 * 3, 80, &j);
    put(dir, "webp-lossy", train, j, len);
    WebPFree(j);
    len = WebPEncodeRGBA(rgba, 48, 40, 48 * 4, 70, &j);
    put(dir, "webp-lossy-alpha", val, j, len);
    WebPFree(j);
    len = WebPEncodeLosslessRGBA(rgba, 48, 40, 48 * 4, &j);
    put(dir, "webp-lossless-alpha", full_f32, j, len);
    WebPFree(j);
    len = WebPEncodeLosslessRGB(odd, 37, 19, 37 * 3, &j);
    put(dir, "webp-lossless-odd", none_f16, j, len);
    WebPFree(j);
    free(rgba);
    free(rgb);
    free(odd);
    return 0;
}
