/*
 * mkcorpus.c - writes the seed corpus of fuzz_image into DIR (run once; the
 * files are committed in fuzz/corpus/image/): small JPEGs of every kind the
 * decoder takes apart differently, each after a header (fuzz_image.c) that
 * picks a different transform.
 *     fuzz_mkcorpus fuzz/corpus/image
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <turbojpeg.h>

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
    free(rgb);
    free(odd);
    return 0;
}
