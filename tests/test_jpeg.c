/*
 * test_jpeg.c - src/decode/jpeg.c: region + DCT-scaled decoding against TurboJPEG's
 * full decode, colour spaces, errors, EXIF parsing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <turbojpeg.h>

#include "decode/jpeg.h"
#include "feed.h"
#include "pixels/pipeline.h"
#include "test_image_util.h"

/* ---- helpers ---------------------------------------------------------------------- */

/* Decodes region (x0,y0)-(x1,y1) at scale m and checks it equals the
 * reference full decode at that scale, cropped. */
static void check_region(feed__jpeg *j, const uint8_t *jpg, size_t len, const uint8_t *ref,
                         uint32_t rw, int m, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                         const char *what)
{
    ti_plan_arg p = {.want = {.scale = (uint32_t)m, .x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1}};
    feed__decode_image img;
    char msg[200];
    int rc = feed__jpeg_decode(j, jpg, len, ti_plan_fixed, &p, &img, msg, sizeof msg);
    if (rc) {
        fprintf(stderr, "%s: rc %d %s\n", what, rc, msg);
        fail();
    }
    assert_int_equal(img.w, x1 - x0);
    assert_int_equal(img.h, y1 - y0);
    int bad = 0;
    for (uint32_t y = 0; y < img.h && !bad; y++)
        for (uint32_t x = 0; x < img.w; x++) {
            const uint8_t *a = img.pixels + y * img.stride + x * 4;
            const uint8_t *b = ref + ((size_t)(y0 + y) * rw + x0 + x) * 3;
            if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2]) {
                fprintf(stderr, "%s: m=%d region (%u,%u)-(%u,%u): pixel (%u,%u) %u,%u,%u != ref %u,%u,%u\n",
                        what, m, x0, y0, x1, y1, x0 + x, y0 + y, a[0], a[1], a[2], b[0], b[1], b[2]);
                bad = 1;
                break;
            }
        }
    assert_false(bad);
}

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xFFFFFF;
}

/* Checks full-image and many sub-regions, at every scale, against TurboJPEG. */
static void check_all_regions(const uint8_t *jpg, size_t len, const char *what)
{
    feed__jpeg *j = feed__jpeg_create();
    assert_non_null(j);
    static const int scales[] = {8, 1, 2, 3, 4, 6};
    uint32_t seed = 7;
    for (size_t si = 0; si < sizeof scales / sizeof *scales; si++) {
        int m = scales[si];
        uint32_t rw, rh;
        uint8_t *ref = ti_decode_ref(jpg, len, m, &rw, &rh);
        assert_non_null(ref);
        check_region(j, jpg, len, ref, rw, m, 0, 0, rw, rh, what);
        /* regions starting on, just before and just after iMCU boundaries,
         * touching each edge, one pixel wide, and random ones */
        static const uint32_t starts[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33};
        for (size_t k = 0; k < sizeof starts / sizeof *starts; k++) {
            uint32_t x0 = starts[k] < rw ? starts[k] : rw - 1;
            uint32_t y0 = starts[(k * 3) % 11] < rh ? starts[(k * 3) % 11] : rh - 1;
            uint32_t x1 = x0 + 1 + (rw - x0 - 1) / 2, y1 = y0 + 1 + (rh - y0 - 1) / 3;
            check_region(j, jpg, len, ref, rw, m, x0, y0, x1, y1, what);
            check_region(j, jpg, len, ref, rw, m, x0, y0, rw, rh, what);
            check_region(j, jpg, len, ref, rw, m, rw - 1 - x0 / 2, rh - 1 - y0 / 2, rw, rh, what);
            check_region(j, jpg, len, ref, rw, m, x0, y0, x0 + 1, y0 + 1, what);
        }
        for (int k = 0; k < 12; k++) {
            uint32_t x0 = rnd(&seed) % rw, y0 = rnd(&seed) % rh;
            uint32_t x1 = x0 + 1 + rnd(&seed) % (rw - x0), y1 = y0 + 1 + rnd(&seed) % (rh - y0);
            check_region(j, jpg, len, ref, rw, m, x0, y0, x1, y1, what);
        }
        free(ref);
    }
    feed__jpeg_destroy(j);
}

/* ---- tests ------------------------------------------------------------------------- */

/* ROI decode at 8/8 and at every DCT scale equals a full decode of the same
 * box, exactly, for every chroma subsampling, grey and CMYK, baseline and
 * progressive, at sizes that are not multiples of the MCU. */
static void test_region_exact(void **state)
{
    (void)state;
    static const char *names[TI_KINDS] = {"444", "422", "420", "440", "411", "gray", "cmyk"};
    static const uint32_t sizes[][2] = {{203, 157}, {96, 64}, {61, 250}};
    for (int kind = 0; kind < TI_KINDS; kind++)
        for (int prog = 0; prog < 2; prog++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                uint32_t w = sizes[s][0], h = sizes[s][1];
                uint8_t *px = ti_pixels(w, h, (uint32_t)(kind * 10 + s));
                size_t len;
                uint8_t *jpg = ti_jpeg(px, w, h, kind, 88, prog ? TJFLAG_PROGRESSIVE : 0, &len);
                char what[64];
                snprintf(what, sizeof what, "%s%s %ux%u", names[kind], prog ? " progressive" : "",
                         w, h);
                check_all_regions(jpg, len, what);
                free(jpg);
                free(px);
            }
}

/* TurboJPEG's decode to YUV planes (the file's own components, no
 * upsampling) at scale m/8: plane c, *pw samples a row. */
static uint8_t *yuv_ref(tjhandle tj, const uint8_t *jpg, size_t len, int m, int c, int *pw, int *ph)
{
    int w, h, ss, cs;
    assert_int_equal(tjDecompressHeader3(tj, jpg, (unsigned long)len, &w, &h, &ss, &cs), 0);
    int sw = (w * m + 7) / 8, sh = (h * m + 7) / 8, np = ss == TJSAMP_GRAY ? 1 : 3;
    uint8_t *pl[3] = {NULL, NULL, NULL};
    int ws[3] = {0, 0, 0};
    for (int k = 0; k < np; k++) {
        ws[k] = tjPlaneWidth(k, sw, ss);
        pl[k] = malloc((size_t)ws[k] * tjPlaneHeight(k, sh, ss));
        assert_non_null(pl[k]);
    }
    assert_int_equal(tjDecompressToYUVPlanes(tj, jpg, (unsigned long)len, pl, sw, ws, sh, 0), 0);
    *pw = ws[c];
    *ph = tjPlaneHeight(c, sh, ss);
    for (int k = 0; k < np; k++)
        if (k != c)
            free(pl[k]);
    return pl[c];
}

/* The planar decode of region (x0,y0)-(x1,y1) at scale m: a YCbCr or grey
 * file comes as its planes, and every sample they hold equals TurboJPEG's
 * YUV decode at the scale libjpeg inverse-transforms that component at (the
 * chroma of a DCT-scaled 4:2:0 file at twice the luma's, so it needs no
 * upsampling); the luma plane covers the region and a margin within the
 * image; other files come as RGBX. */
static void check_planes(feed__jpeg *j, tjhandle tj, const uint8_t *jpg, size_t len, int m,
                         uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, const char *what)
{
    int w, h, ss, cs;
    assert_int_equal(tjDecompressHeader3(tj, jpg, (unsigned long)len, &w, &h, &ss, &cs), 0);
    ti_plan_arg p = {.want = {.scale = (uint32_t)m, .x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1, .planes = 1}};
    feed__decode_image img;
    char msg[200];
    int rc = feed__jpeg_decode(j, jpg, len, ti_plan_fixed, &p, &img, msg, sizeof msg);
    if (rc)
        fprintf(stderr, "%s: rc %d %s\n", what, rc, msg);
    assert_int_equal(rc, 0);
    assert_int_equal((int)img.nplanes, cs == TJCS_CMYK || cs == TJCS_YCCK ? 0 : ss == TJSAMP_GRAY ? 1 : 3);
    for (uint32_t c = 0; c < img.nplanes; c++) {
        const feed__decode_plane *pl = &img.plane[c];
        if (c == 0) { /* luma: the region, within a margin */
            assert_int_equal(pl->num_x, pl->den_x);
            assert_int_equal(pl->num_y, pl->den_y);
            assert_true(pl->x0 <= x0 && pl->x0 + pl->w >= x1);
            assert_true(pl->y0 <= y0 && pl->y0 + pl->h >= y1);
            assert_true(pl->y0 + 8 >= y0 && pl->y0 + pl->h <= y1 + 8);
        }
        /* chroma has factor 1 in TurboJPEG's files: its IDCT size is num_x */
        int mc = c == 0 ? m : (int)pl->num_x, pw, ph;
        uint8_t *ref = yuv_ref(tj, jpg, len, mc, (int)c, &pw, &ph);
        if (!(pl->x0 + pl->w <= (uint32_t)pw && pl->y0 + pl->h <= (uint32_t)ph))
            fprintf(stderr, "%s m=%d (%u,%u)-(%u,%u) plane %u: x %u+%u of %d, y %u+%u of %d\n", what,
                    m, x0, y0, x1, y1, c, pl->x0, pl->w, pw, pl->y0, pl->h, ph);
        assert_true(pl->x0 + pl->w <= (uint32_t)pw && pl->y0 + pl->h <= (uint32_t)ph);
        for (uint32_t y = 0; y < pl->h; y++)
            for (uint32_t x = 0; x < pl->w; x++) {
                uint8_t a = pl->pixels[(size_t)y * pl->stride + x];
                uint8_t b = ref[(size_t)(pl->y0 + y) * pw + pl->x0 + x];
                if (a != b) {
                    fprintf(stderr, "%s: m=%d region (%u,%u)-(%u,%u): plane %u sample (%u,%u) %u != %u\n",
                            what, m, x0, y0, x1, y1, c, pl->x0 + x, pl->y0 + y, a, b);
                    fail();
                }
            }
        free(ref);
    }
}

/* Planar output: the planes of many regions (on, before and after iMCU
 * boundaries, at each edge, random), of every sampling, baseline and
 * progressive, equal TurboJPEG's YUV decode of the whole file. */
static void test_region_planes(void **state)
{
    (void)state;
    static const char *names[TI_KINDS] = {"444", "422", "420", "440", "411", "gray", "cmyk"};
    tjhandle tj = tjInitDecompress();
    feed__jpeg *j = feed__jpeg_create();
    uint32_t seed = 3;
    for (int kind = 0; kind < TI_KINDS; kind++)
        for (int prog = 0; prog < 2; prog++) {
            uint32_t w = 203 + 40 * (uint32_t)prog, h = 157;
            uint8_t *px = ti_pixels(w, h, (uint32_t)kind);
            size_t len;
            uint8_t *jpg = ti_jpeg(px, w, h, kind, 88, prog ? TJFLAG_PROGRESSIVE : 0, &len);
            char what[64];
            snprintf(what, sizeof what, "planes %s%s", names[kind], prog ? " progressive" : "");
            static const int scales[] = {8, 4, 2};
            for (size_t si = 0; si < 3; si++) {
                int m = scales[si];
                uint32_t rw = (w * (uint32_t)m + 7) / 8, rh = (h * (uint32_t)m + 7) / 8;
                check_planes(j, tj, jpg, len, m, 0, 0, rw, rh, what);
                static const uint32_t starts[] = {0, 1, 7, 8, 9, 15, 16, 17, 33};
                for (size_t k = 0; k < sizeof starts / sizeof *starts; k++) {
                    uint32_t x0 = starts[k] < rw ? starts[k] : rw - 1;
                    uint32_t y0 = starts[(k * 4) % 9] < rh ? starts[(k * 4) % 9] : rh - 1;
                    check_planes(j, tj, jpg, len, m, x0, y0, x0 + 1 + (rw - x0 - 1) / 2,
                                 y0 + 1 + (rh - y0 - 1) / 3, what);
                    check_planes(j, tj, jpg, len, m, x0, y0, rw, rh, what);
                    check_planes(j, tj, jpg, len, m, x0, y0, x0 + 1, y0 + 1, what);
                }
                for (int k = 0; k < 6; k++) {
                    uint32_t x0 = rnd(&seed) % rw, y0 = rnd(&seed) % rh;
                    uint32_t x1 = x0 + 1 + rnd(&seed) % (rw - x0), y1 = y0 + 1 + rnd(&seed) % (rh - y0);
                    check_planes(j, tj, jpg, len, m, x0, y0, x1, y1, what);
                }
            }
            free(jpg);
            free(px);
        }
    feed__jpeg_destroy(j);
    tjDestroy(tj);
}

/* Restart markers (every MCU, every 3 MCUs, every MCU row). */
static void test_region_restart(void **state)
{
    (void)state;
    uint32_t w = 181, h = 133;
    uint8_t *px = ti_pixels(w, h, 3);
    static const int cfg[][2] = {{1, 0}, {3, 0}, {1, 1}};
    for (int c = 0; c < 3; c++) {
        size_t len;
        uint8_t *jpg = ti_jpeg_restart(px, w, h, cfg[c][0], cfg[c][1], &len);
        /* the file really has RST markers */
        int rst = 0;
        for (size_t i = 0; i + 1 < len; i++)
            if (jpg[i] == 0xFF && jpg[i + 1] >= 0xD0 && jpg[i + 1] <= 0xD7)
                rst++;
        assert_true(rst > 3);
        check_all_regions(jpg, len, "restart");
        free(jpg);
    }
    free(px);
}

/* Header facts reach the plan; greyscale comes out as R = G = B. */
static void test_info_and_grey(void **state)
{
    (void)state;
    uint32_t w = 77, h = 45;
    uint8_t *px = ti_pixels(w, h, 1);
    size_t len;
    uint8_t *jpg = ti_jpeg(px, w, h, TI_GRAY, 90, TJFLAG_PROGRESSIVE, &len);
    feed__jpeg *j = feed__jpeg_create();
    ti_plan_arg p = {.want = {.scale = 8, .x0 = 0, .y0 = 0, .x1 = w, .y1 = h}};
    feed__decode_image img;
    char msg[128];
    assert_int_equal(feed__jpeg_decode(j, jpg, len, ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
    assert_int_equal(p.calls, 1);
    assert_int_equal(p.seen.width, w);
    assert_int_equal(p.seen.height, h);
    assert_int_equal(p.seen.components, 1);
    assert_int_equal(p.seen.progressive, 1);
    assert_int_equal(p.seen.orientation, 1);
    assert_int_equal(img.scaled_w, w);
    assert_int_equal(img.scaled_h, h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *q = img.pixels + y * img.stride + x * 4;
            assert_int_equal(q[0], q[1]);
            assert_int_equal(q[1], q[2]);
        }
    free(jpg);
    free(px);
    feed__jpeg_destroy(j);
}

/* CMYK: inverted (Adobe) files give R = C*K/255; without the Adobe marker the
 * values are taken as plain ink. And the inverted path round-trips RGB. */
static void test_cmyk(void **state)
{
    (void)state;
    uint32_t w = 120, h = 90;
    uint8_t *px = ti_pixels(w, h, 5);
    size_t len;
    uint8_t *jpg = ti_jpeg(px, w, h, TI_CMYK, 95, 0, &len);
    feed__jpeg *j = feed__jpeg_create();
    ti_plan_arg p = {.want = {.scale = 8, .x0 = 0, .y0 = 0, .x1 = w, .y1 = h}};
    feed__decode_image img;
    char msg[128];
    assert_int_equal(feed__jpeg_decode(j, jpg, len, ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
    assert_int_equal(p.seen.components, 4);
    assert_int_equal(p.seen.cmyk_inverted, 1);
    uint8_t *rgb = malloc((size_t)w * h * 3);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            memcpy(rgb + ((size_t)y * w + x) * 3, img.pixels + y * img.stride + x * 4, 3);
    /* lossy (4:2:0 YCCK of noisy pixels), but the right convention: the other
     * reading of the same values is far off */
    double mean = ti_mean_err_u8(rgb, px, (size_t)w * h * 3);
    uint8_t *other = malloc((size_t)w * h * 3);
    uint32_t rw, rh;
    tjhandle d = tjInitDecompress();
    uint8_t *cmyk = malloc((size_t)w * h * 4);
    assert_int_equal(tjDecompress2(d, jpg, len, cmyk, w, 0, h, TJPF_CMYK, 0), 0);
    tjDestroy(d);
    for (size_t i = 0; i < (size_t)w * h; i++)
        for (int c = 0; c < 3; c++)
            other[3 * i + c] = (uint8_t)((255 - cmyk[4 * i + c]) * (255 - cmyk[4 * i + 3]) / 255);
    double wrong = ti_mean_err_u8(other, px, (size_t)w * h * 3);
    assert_true(mean < 16.0);
    assert_true(wrong > 4 * mean);
    uint8_t *ref = ti_decode_ref(jpg, len, 8, &rw, &rh);
    assert_int_equal(ti_max_err_u8(rgb, ref, (size_t)w * h * 3), 0);
    free(ref);
    free(cmyk);
    free(other);

    /* strip the Adobe APP14 segment: now plain (non-inverted) CMYK */
    size_t pos = 2;
    while (pos + 4 <= len && !(jpg[pos] == 0xFF && jpg[pos + 1] == 0xEE))
        pos += 2 + (((size_t)jpg[pos + 2] << 8) | jpg[pos + 3]);
    assert_true(pos + 4 <= len);
    size_t seg = 2 + (((size_t)jpg[pos + 2] << 8) | jpg[pos + 3]);
    memmove(jpg + pos, jpg + pos + seg, len - pos - seg);
    len -= seg;
    check_all_regions(jpg, len, "cmyk without Adobe marker");
    p.calls = 0;
    assert_int_equal(feed__jpeg_decode(j, jpg, len, ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
    assert_int_equal(p.seen.cmyk_inverted, 0);
    free(rgb);
    free(jpg);
    free(px);
    feed__jpeg_destroy(j);
}

/* Corrupt, truncated, empty and non-JPEG input: FEED_E_DECODE with libjpeg's
 * message, never a crash; the decoder works normally afterwards. */
static void test_errors(void **state)
{
    (void)state;
    uint32_t w = 150, h = 100;
    uint8_t *px = ti_pixels(w, h, 9);
    size_t len;
    uint8_t *jpg = ti_jpeg(px, w, h, TI_420, 90, 0, &len);
    uint32_t rw, rh;
    uint8_t *ref = ti_decode_ref(jpg, len, 8, &rw, &rh);
    feed__jpeg *j = feed__jpeg_create();
    ti_plan_arg p = {.want = {.scale = 8, .x0 = 0, .y0 = 0, .x1 = w, .y1 = h}};
    feed__decode_image img;
    char msg[200];

    assert_int_equal(feed__jpeg_decode(j, NULL, 0, ti_plan_fixed, &p, &img, msg, sizeof msg),
                     FEED_E_DECODE);
    assert_string_equal(msg, "Empty input file");
    assert_int_equal(feed__jpeg_decode(j, jpg, 0, ti_plan_fixed, &p, &img, msg, sizeof msg),
                     FEED_E_DECODE);
    static const uint8_t png[] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13};
    assert_int_equal(feed__jpeg_decode(j, png, sizeof png, ti_plan_fixed, &p, &img, msg, sizeof msg),
                     FEED_E_DECODE);
    assert_non_null(strstr(msg, "Not a JPEG file"));
    assert_non_null(strstr(msg, "starts with 0x89 0x50 (PNG data, not JPEG"));
    static const uint8_t soi[] = {0xFF, 0xD8};
    assert_int_equal(feed__jpeg_decode(j, soi, sizeof soi, ti_plan_fixed, &p, &img, msg, sizeof msg),
                     FEED_E_DECODE);
    assert_true(strlen(msg) > 0);
    assert_int_equal(p.calls, 0); /* the plan never saw a header */

    /* truncated anywhere: an error, even when the cut lies below the region */
    static const double cuts[] = {0.02, 0.1, 0.3, 0.5, 0.8, 0.95, 0.999};
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        size_t n = (size_t)(len * cuts[k]);
        int rc = feed__jpeg_decode(j, jpg, n, ti_plan_fixed, &p, &img, msg, sizeof msg);
        assert_int_equal(rc, FEED_E_DECODE);
        assert_true(strlen(msg) > 0);
        p.want.y1 = 8; /* only the top rows */
        rc = feed__jpeg_decode(j, jpg, n, ti_plan_fixed, &p, &img, msg, sizeof msg);
        assert_int_equal(rc, FEED_E_DECODE);
        p.want.y1 = h;
    }
    /* EOI missing only */
    assert_int_equal(feed__jpeg_decode(j, jpg, len - 2, ti_plan_fixed, &p, &img, msg, sizeof msg),
                     FEED_E_DECODE);

    /* corrupted bytes in the entropy-coded data: an error or some pixels, never
     * a crash (ASan/UBSan builds check the "never") */
    uint8_t *bad = malloc(len);
    uint32_t seed = 1;
    int errors = 0;
    for (int k = 0; k < 200; k++) {
        memcpy(bad, jpg, len);
        for (int b = 0; b < 1 + k % 8; b++) {
            size_t at = 200 + rnd(&seed) % (len - 202);
            bad[at] = (uint8_t)rnd(&seed);
        }
        int rc = feed__jpeg_decode(j, bad, len, ti_plan_fixed, &p, &img, msg, sizeof msg);
        assert_true(rc == 0 || rc == FEED_E_DECODE);
        if (rc)
            errors++;
    }
    assert_true(errors > 0);
    /* header fields smashed (the first 200 bytes: tables, SOF) */
    for (int k = 0; k < 300; k++) {
        memcpy(bad, jpg, len);
        size_t at = 2 + rnd(&seed) % 200;
        bad[at] = (uint8_t)rnd(&seed);
        p.calls = 0;
        int rc = feed__jpeg_decode(j, bad, len, ti_plan_fixed, &p, &img, msg, sizeof msg);
        (void)rc; /* a changed size makes the fixed region invalid: INTERNAL is fine here */
    }
    free(bad);

    /* the same decoder still decodes correctly */
    p.want = (feed__decode_region){.scale = 8, .x0 = 0, .y0 = 0, .x1 = w, .y1 = h};
    assert_int_equal(feed__jpeg_decode(j, jpg, len, ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
    assert_string_equal(msg, "");
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            assert_memory_equal(img.pixels + y * img.stride + x * 4, ref + (y * rw + x) * 3, 3);
    free(ref);
    free(jpg);
    free(px);
    feed__jpeg_destroy(j);
}

/* "Not a JPEG file" names the format the bytes are, by magic; bytes of no
 * known format get libjpeg's message alone. */
static void test_not_jpeg_names_format(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t n;
        const char *name; /* NULL: no format named */
    } cases[] = {
        {"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR", 16, "PNG"},
        {"GIF89a\x01\0\x01\0\0\0", 12, "GIF"},
        {"RIFF\x24\0\0\0WEBPVP8 ", 16, "WebP"},
        {"BM\x36\0\x0c\0\0\0\0\0\x36\0", 12, "BMP"},
        {"II*\0\x08\0\0\0", 8, "TIFF"},
        {"MM\0*\0\0\0\x08", 8, "TIFF"},
        {"\0\0\0\x18" "ftypheic\0\0\0\0", 16, "HEIF"},
        {"\0\0\0\x1c" "ftypavif\0\0\0\0", 16, "AVIF"},
        {"\xff\x0a\xfa\x7f", 4, "JPEG XL"},
        {"\x01\x02\x03\x04\x05\x06", 6, NULL},
        {"\xff\xd9\x00\x00", 4, NULL},
    };
    feed__jpeg *j = feed__jpeg_create();
    ti_plan_arg p = {.want = {.scale = 8, .x1 = 1, .y1 = 1}};
    feed__decode_image img;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char msg[256] = "";
        int rc = feed__jpeg_decode(j, (const uint8_t *)cases[i].bytes, cases[i].n, ti_plan_fixed, &p,
                                   &img, msg, sizeof msg);
        assert_int_equal(rc, FEED_E_DECODE);
        if (!strstr(msg, "Not a JPEG file: starts with"))
            fail_msg("case %zu: '%s'", i, msg);
        char want[64];
        snprintf(want, sizeof want, "(%s data, not JPEG", cases[i].name ? cases[i].name : "");
        if (cases[i].name ? !strstr(msg, want) : strstr(msg, "data, not JPEG") != NULL)
            fail_msg("case %zu: '%s' (want %s)", i, msg, cases[i].name ? want : "no format");
    }
    assert_int_equal(p.calls, 0);
    feed__jpeg_destroy(j);
}

/* The plan's status stops decoding (this is how max_pixels is enforced, from
 * the header); a bad region is refused, not decoded. */
static void test_plan_status(void **state)
{
    (void)state;
    uint32_t w = 64, h = 48;
    uint8_t *px = ti_pixels(w, h, 2);
    size_t len;
    uint8_t *jpg = ti_jpeg(px, w, h, TI_444, 90, 0, &len);
    feed__jpeg *j = feed__jpeg_create();
    feed__decode_image img;
    char msg[200];
    ti_plan_arg p = {.status = FEED_E_TOO_LARGE};
    assert_int_equal(feed__jpeg_decode(j, jpg, len, ti_plan_fixed, &p, &img, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    assert_string_equal(msg, "plan says no");
    p.status = 0;
    p.want = (feed__decode_region){.scale = 8, .x0 = 0, .y0 = 0, .x1 = w + 1, .y1 = h};
    assert_int_equal(feed__jpeg_decode(j, jpg, len, ti_plan_fixed, &p, &img, msg, sizeof msg),
                     FEED_E_INTERNAL);
    p.want = (feed__decode_region){.scale = 4, .x0 = 0, .y0 = 0, .x1 = w / 2 + 1, .y1 = h / 2};
    assert_int_equal(feed__jpeg_decode(j, jpg, len, ti_plan_fixed, &p, &img, msg, sizeof msg),
                     FEED_E_INTERNAL);
    p.want = (feed__decode_region){.scale = 4, .x0 = 0, .y0 = 0, .x1 = w / 2, .y1 = h / 2};
    assert_int_equal(feed__jpeg_decode(j, jpg, len, ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
    assert_int_equal(img.scaled_w, w / 2);
    free(jpg);
    free(px);
    feed__jpeg_destroy(j);
}

/* max_pixels is checked from the header: a JPEG whose SOF claims 30000 x 30000
 * (the data could never fill it) is FEED_E_TOO_LARGE, not a decode error. */
static void test_too_large_from_header(void **state)
{
    (void)state;
    uint32_t w = 64, h = 48;
    uint8_t *px = ti_pixels(w, h, 2);
    size_t len;
    uint8_t *jpg = ti_jpeg(px, w, h, TI_420, 90, 0, &len);
    size_t pos = 2;
    while (pos + 9 <= len && !(jpg[pos] == 0xFF && jpg[pos + 1] == 0xC0))
        pos += 2 + (((size_t)jpg[pos + 2] << 8) | jpg[pos + 3]);
    assert_true(pos + 9 <= len);
    jpg[pos + 5] = 30000 >> 8; /* height */
    jpg[pos + 6] = 30000 & 0xFF;
    jpg[pos + 7] = 30000 >> 8; /* width */
    jpg[pos + 8] = 30000 & 0xFF;
    feed__image_ctx *ctx = feed__image_ctx_create();
    feed__xform x = {.out_h = 32, .out_w = 32, .mode = FEED_AUGMENT_NONE, .exif = 1,
                     .roi_decode = 1, .max_pixels = 100000000};
    uint8_t out[32 * 32 * 3];
    char msg[200];
    feed__image_info info;
    assert_int_equal(feed__image_process(ctx, &x, jpg, len, 0, 0, 0, out, &info, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    assert_non_null(strstr(msg, "30000x30000"));
    /* and a copy cut 10 bytes into the scan data (the header alone decides) */
    size_t sos = 2;
    while (sos + 4 <= len && !(jpg[sos] == 0xFF && jpg[sos + 1] == 0xDA))
        sos += 2 + (((size_t)jpg[sos + 2] << 8) | jpg[sos + 3]);
    size_t cut = sos + 2 + (((size_t)jpg[sos + 2] << 8) | jpg[sos + 3]) + 10;
    assert_true(cut < len);
    assert_int_equal(feed__image_process(ctx, &x, jpg, cut, 0, 0, 0, out, &info, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    feed__image_ctx_destroy(ctx);
    free(jpg);
    free(px);
}

/* EXIF orientation parsing: every value in both byte orders; malformed,
 * truncated and fuzzed segments give 1 and never read out of bounds. */
static void test_exif_parse(void **state)
{
    (void)state;
    uint32_t w = 40, h = 24;
    uint8_t *px = ti_pixels(w, h, 4);
    size_t len;
    uint8_t *jpg = ti_jpeg(px, w, h, TI_420, 80, 0, &len);
    assert_int_equal(feed__jpeg_exif_orientation(jpg, len), 1);
    assert_int_equal(feed__jpeg_exif_orientation(NULL, 0), 1);
    for (uint32_t o = 0; o <= 9; o++)
        for (int big = 0; big < 2; big++) {
            size_t n;
            uint8_t *e = ti_with_exif(jpg, len, o, big, &n);
            uint32_t want = o >= 1 && o <= 8 ? o : 1;
            assert_int_equal(feed__jpeg_exif_orientation(e, n), want);
            /* every truncation of the file inside the segment */
            for (size_t cut = 0; cut < 70; cut++)
                assert_true(feed__jpeg_exif_orientation(e, cut) >= 1);
            /* the decoder reports it too, and still decodes */
            feed__jpeg *j = feed__jpeg_create();
            ti_plan_arg p = {.want = {.scale = 8, .x0 = 0, .y0 = 0, .x1 = w, .y1 = h}};
            feed__decode_image img;
            char msg[128];
            assert_int_equal(feed__jpeg_decode(j, e, n, ti_plan_fixed, &p, &img, msg, sizeof msg), 0);
            assert_int_equal(p.seen.orientation, want);
            feed__jpeg_destroy(j);
            free(e);
        }
    /* fuzz the segment: any byte of it, any value */
    size_t n;
    uint8_t *e = ti_with_exif(jpg, len, 6, 0, &n);
    uint8_t *f = malloc(n);
    uint32_t seed = 11;
    int changed = 0;
    for (int k = 0; k < 5000; k++) {
        memcpy(f, e, n);
        for (int b = 0; b < 1 + k % 3; b++)
            f[2 + rnd(&seed) % 48] = (uint8_t)rnd(&seed);
        uint32_t o = feed__jpeg_exif_orientation(f, n);
        assert_true(o >= 1 && o <= 8);
        changed += o != 6;
    }
    assert_true(changed > 0);
    /* an IFD offset pointing past the end, a huge entry count */
    memcpy(f, e, n);
    f[2 + 10 + 4] = 0xF0; /* IFD offset (II) low byte */
    assert_int_equal(feed__jpeg_exif_orientation(f, n), 1);
    memcpy(f, e, n);
    f[2 + 10 + 8] = 0xFF;
    f[2 + 10 + 9] = 0xFF; /* 65535 entries */
    assert_int_equal(feed__jpeg_exif_orientation(f, n), 6);
    free(f);
    free(e);
    free(jpg);
    free(px);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_region_exact),
        cmocka_unit_test(test_region_planes),
        cmocka_unit_test(test_region_restart),
        cmocka_unit_test(test_info_and_grey),
        cmocka_unit_test(test_cmyk),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_not_jpeg_names_format),
        cmocka_unit_test(test_plan_status),
        cmocka_unit_test(test_too_large_from_header),
        cmocka_unit_test(test_exif_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
