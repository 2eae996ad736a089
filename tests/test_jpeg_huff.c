/*
 * test_jpeg_huff.c - src/decode/jpeg_huff.c, libfeed's Huffman decoder, against
 * libjpeg-turbo's own on the same files, through the same region decode
 * (feed__jpeg_decode with region.libjpeg_entropy 0, 1 and 2): the same bytes
 * out for every sampling, quality, table, restart interval, scale and
 * region; and on damaged files the same verdict, message and bytes as
 * libjpeg-turbo's exact path (2; its fast path, 1, decodes some damaged
 * streams differently, a code in no table among them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include <jerror.h>

#include "decode/jpeg.h"
#include "decode/jpeg_abi.h"
#include "decode/jpeg_huff.h"
#include "feed.h"
#include "test_image_util.h"

/* ---- making files ------------------------------------------------------------------ */

typedef struct enc_cfg {
    uint32_t w, h;
    int grey;
    int hs, vs; /* luma sampling factors (chroma 1x1) */
    int quality;
    int optimize;     /* optimised Huffman tables (long codes on busy images) */
    int restart;      /* restart interval in MCUs (0: none) */
    int restart_rows; /* or in MCU rows */
    int noise;        /* ti_pixels (sharp, noisy) rather than ti_photo */
    uint32_t seed;
    int progressive;  /* 1 jpeg_simple_progression, 2 and 3 ti_deep_scan_script (3: DC apart) */
} enc_cfg;

static void *setup_cfg(struct jpeg_compress_struct *ci, const void *arg)
{
    const enc_cfg *c = arg;
    if (c->grey)
        jpeg_set_colorspace(ci, JCS_GRAYSCALE);
    jpeg_set_quality(ci, c->quality, TRUE);
    ci->optimize_coding = c->optimize ? TRUE : FALSE;
    ci->restart_interval = (unsigned)c->restart;
    ci->restart_in_rows = c->restart_rows;
    if (!c->grey) {
        ci->comp_info[0].h_samp_factor = c->hs;
        ci->comp_info[0].v_samp_factor = c->vs;
        for (int k = 1; k < 3; k++)
            ci->comp_info[k].h_samp_factor = ci->comp_info[k].v_samp_factor = 1;
    }
    if (c->progressive == 1) {
        jpeg_simple_progression(ci);
    } else if (c->progressive >= 2) {
        int n;
        jpeg_scan_info *s = ti_deep_scan_script(ci->num_components, c->progressive == 3, &n);
        ci->scan_info = s;
        ci->num_scans = n;
        return s; /* freed by ti_jpeg_lib */
    }
    return NULL;
}

static uint8_t *encode(const enc_cfg *c, size_t *len)
{
    uint8_t *rgb = c->noise ? ti_pixels(c->w, c->h, c->seed) : ti_photo(c->w, c->h, c->seed);
    uint8_t *r = ti_jpeg_lib(rgb, c->w, c->h, setup_cfg, c, len);
    free(rgb);
    assert_non_null(r);
    return r;
}

/* Offset of the first byte of entropy-coded data (after the SOS segment). */
static size_t scan_start(const uint8_t *d, size_t len)
{
    size_t i = 2;
    while (i + 4 <= len) {
        assert_int_equal(d[i], 0xFF);
        uint8_t m = d[i + 1];
        size_t seg = (size_t)d[i + 2] << 8 | d[i + 3];
        if (m == 0xDA)
            return i + 2 + seg;
        i += 2 + seg;
    }
    fail();
    return 0;
}

/* The longest AC code the file's DHT segments define. */
static int longest_ac_code(const uint8_t *d, size_t len)
{
    int longest = 0;
    size_t i = 2;
    while (i + 4 <= len && d[i + 1] != 0xDA) {
        size_t seg = (size_t)d[i + 2] << 8 | d[i + 3];
        if (d[i + 1] == 0xC4) {
            size_t p = i + 4, end = i + 2 + seg;
            while (p + 17 <= end) {
                int ac = d[p] >> 4, n = 0;
                for (int l = 1; l <= 16; l++) {
                    n += d[p + l];
                    if (ac && d[p + l] && l > longest)
                        longest = l;
                }
                p += 17 + (size_t)n;
            }
        }
        i += 2 + seg;
    }
    return longest;
}

/* ---- decoding with either entropy decoder ------------------------------------------- */

typedef struct result {
    int rc;
    char msg[256];
    uint8_t *bytes; /* the region's pixels or planes, flattened */
    size_t n;
    int own;
} result;

static void flatten(const feed__decode_image *img, result *r)
{
    size_t n = 0;
    if (img->nplanes == 0)
        n = (size_t)img->w * img->h * 4;
    for (uint32_t p = 0; p < img->nplanes; p++)
        n += (size_t)img->plane[p].w * img->plane[p].h;
    r->bytes = malloc(n ? n : 1);
    assert_non_null(r->bytes);
    r->n = n;
    uint8_t *o = r->bytes;
    if (img->nplanes == 0)
        for (uint32_t y = 0; y < img->h; y++, o += (size_t)img->w * 4)
            memcpy(o, img->pixels + y * img->stride, (size_t)img->w * 4);
    for (uint32_t p = 0; p < img->nplanes; p++) {
        const feed__decode_plane *pl = &img->plane[p];
        for (uint32_t y = 0; y < pl->h; y++, o += pl->w)
            memcpy(o, pl->pixels + y * pl->stride, pl->w);
    }
}

typedef struct region_want {
    int scale;  /* M/8 */
    double box[4]; /* x0, y0, x1, y1 as fractions of the scaled image */
    int planes;
} region_want;

typedef struct plan_arg {
    const region_want *want;
    int libjpeg;
} plan_arg;

static int plan(void *arg, const feed__decode_info *info, feed__decode_region *r, char *msg, size_t msglen)
{
    (void)msg, (void)msglen;
    const plan_arg *a = arg;
    uint32_t sw = feed__jpeg_scaled(info->width, (uint32_t)a->want->scale);
    uint32_t sh = feed__jpeg_scaled(info->height, (uint32_t)a->want->scale);
    r->scale = (uint32_t)a->want->scale;
    ti_region_from_box(r, a->want->box, sw, sh);
    r->planes = (uint32_t)a->want->planes;
    r->libjpeg_entropy = (uint32_t)a->libjpeg;
    return 0;
}

static void run(feed__jpeg *j, const uint8_t *d, size_t len, const region_want *w, int libjpeg,
                result *r)
{
    plan_arg a = {w, libjpeg};
    feed__decode_image img;
    memset(r, 0, sizeof *r);
    r->rc = feed__jpeg_decode(j, d, len, plan, &a, &img, r->msg, sizeof r->msg);
    r->own = feed__jpeg_own_entropy(j);
    if (r->rc == 0)
        flatten(&img, r);
}

static int same_bytes(const result *a, const result *b)
{
    return a->n == b->n && memcmp(a->bytes, b->bytes, a->n) == 0;
}

static const region_want g_regions[] = {
    {8, {0, 0, 1, 1}, 0},         {8, {0, 0, 1, 1}, 1},        {8, {0.3, 0.4, 0.9, 0.8}, 1},
    {8, {0.1, 0.5, 0.6, 1}, 0},   {4, {0, 0, 1, 1}, 1},        {4, {0.5, 0.2, 1, 0.7}, 0},
    {2, {0.2, 0.6, 0.5, 0.9}, 1}, {1, {0, 0, 1, 1}, 0},        {1, {0.4, 0.7, 1, 1}, 1},
    {3, {0.1, 0.1, 0.9, 0.9}, 0}, {8, {0.0, 0.95, 1, 1}, 1},
};
#define NREGIONS (sizeof g_regions / sizeof *g_regions)

/* a and b agree: status, message and bytes. */
static void expect_same(const result *a, const result *b, const char *what, size_t k, const char *whose)
{
    if (a->rc != b->rc || strcmp(a->msg, b->msg) != 0 || (a->rc == 0 && !same_bytes(a, b))) {
        fprintf(stderr, "%s region %zu: ours rc %d '%s', %s rc %d '%s'%s\n", what, k, a->rc, a->msg,
                whose, b->rc, b->msg, a->rc == b->rc && a->rc == 0 ? ", different bytes" : "");
        fail();
    }
}

/* Every region of g_regions, ours against libjpeg's exact path (and, on
 * clean files, its fast path too). Returns how many decodes ours ran. */
static int check_same(feed__jpeg *ours, feed__jpeg *theirs, const uint8_t *d, size_t len,
                      const char *what)
{
    int own = 0;
    for (size_t k = 0; k < NREGIONS; k++) {
        result a, b, c;
        run(ours, d, len, &g_regions[k], 0, &a);
        run(theirs, d, len, &g_regions[k], 2, &b);
        assert_false(b.own);
        own += a.own;
        expect_same(&a, &b, what, k, "libjpeg's exact path");
        run(theirs, d, len, &g_regions[k], 1, &c);
        expect_same(&a, &c, what, k, "libjpeg's decoder");
        free(a.bytes);
        free(b.bytes);
        free(c.bytes);
    }
    return own;
}

/* The i-th file of a sweep: the sizes, samplings (grey, h, v) and qualities
 * in turn; a restart interval of 1 + i % rmod MCUs on every fourth file and
 * of one MCU row on every fourth other; noise on every other pair. */
static enc_cfg sweep_cfg(int i, const uint32_t (*sizes)[2], int nsizes, const int (*samp)[3], int nsamp,
                         const int *quality, int nq, int rmod)
{
    enc_cfg c = {0};
    c.w = sizes[i % nsizes][0];
    c.h = sizes[i % nsizes][1];
    c.grey = samp[i % nsamp][0];
    c.hs = samp[i % nsamp][1];
    c.vs = samp[i % nsamp][2];
    c.quality = quality[(i / nsamp) % nq];
    c.restart = i % 4 == 1 ? 1 + i % rmod : 0;
    c.restart_rows = i % 4 == 3 ? 1 : 0;
    c.noise = (i / 2) % 2;
    return c;
}

static void describe(const enc_cfg *c, int i, char *what, size_t n)
{
    snprintf(what, n, "progressive %d opt%d file %d (%ux%u %s %dx%d q%d rst%d/%d %s)", c->progressive,
             c->optimize, i, c->w, c->h, c->grey ? "grey" : "ycc", c->hs, c->vs, c->quality, c->restart,
             c->restart_rows, c->noise ? "noise" : "photo");
}

/* ---- tests ------------------------------------------------------------------------- */

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xFFFFFF;
}

/* Clean files of every kind: the same bytes out as libjpeg-turbo's decoder,
 * and libfeed's decoder is the one that ran (for every sequential file). */
static void test_same_as_libjpeg(void **state)
{
    (void)state;
    feed__jpeg *ours = feed__jpeg_create(), *theirs = feed__jpeg_create();
    assert_non_null(ours);
    assert_non_null(theirs);
    static const int samp[][3] = {{0, 1, 1}, {1, 1, 1}, {0, 2, 1}, {0, 2, 2},
                                  {0, 1, 2}, {0, 4, 1}, {1, 1, 1}};
    static const uint32_t sizes[][2] = {{1, 1}, {17, 9}, {203, 157}, {64, 64}, {95, 333}};
    static const int quality[] = {100, 90, 30, 75, 98};
    int files = 0, longest = 0, restarts = 0;
    for (int i = 0; i < 70; i++) {
        enc_cfg c = sweep_cfg(i, sizes, 5, samp, 7, quality, 5, 9);
        c.optimize = (i / 3) % 2;
        c.seed = (uint32_t)i;
        size_t len;
        uint8_t *d = encode(&c, &len);
        char what[128];
        describe(&c, i, what, sizeof what);
        int own = check_same(ours, theirs, d, len, what);
        assert_int_equal(own, (int)NREGIONS); /* ours decoded every region */
        int l = longest_ac_code(d, len);
        longest = l > longest ? l : longest;
        restarts += c.restart || c.restart_rows;
        free(d);
        files++;
    }
    /* the set reaches codes past the lookahead (the length walk) */
    assert_true(longest > 10);
    assert_true(restarts >= 20);
    assert_int_equal(files, 70);
    feed__jpeg_destroy(ours);
    feed__jpeg_destroy(theirs);
}

/* A bigger busy image, optimised tables at quality 100: long codes and
 * values that do not fit the lookahead with their code. */
static void test_long_codes(void **state)
{
    (void)state;
    feed__jpeg *ours = feed__jpeg_create(), *theirs = feed__jpeg_create();
    enc_cfg c = {.w = 700, .h = 500, .hs = 2, .vs = 2, .quality = 100, .optimize = 1, .noise = 1,
                 .seed = 5};
    size_t len;
    uint8_t *d = encode(&c, &len);
    assert_true(longest_ac_code(d, len) >= 14);
    assert_int_equal(check_same(ours, theirs, d, len, "700x500 q100 optimised"), (int)NREGIONS);
    free(d);
    feed__jpeg_destroy(ours);
    feed__jpeg_destroy(theirs);
}

/* Progressive files of every kind (libjpeg's simple progression, and deep
 * successive approximation with the DC interleaved or not; restart
 * intervals; grey and every sampling): the same bytes out as libjpeg-turbo's
 * decoder, and libfeed's decoder ran every scan. */
static void test_progressive_same_as_libjpeg(void **state)
{
    (void)state;
    feed__jpeg *ours = feed__jpeg_create(), *theirs = feed__jpeg_create();
    static const int samp[][3] = {{0, 2, 2}, {1, 1, 1}, {0, 1, 1}, {0, 2, 1}, {0, 1, 2}, {0, 4, 1}};
    static const uint32_t sizes[][2] = {{203, 157}, {1, 1}, {64, 64}, {95, 333}, {17, 9}};
    static const int quality[] = {90, 100, 40, 75};
    int files = 0, restarts = 0, levels = 0;
    /* every refinement kernel this CPU has (feed__huff_refine_level) */
    for (int lv = 0; feed__huff_refine_level(lv) == lv; lv++, levels++)
    for (int i = 0; i < 36; i++) {
        enc_cfg c = sweep_cfg(i, sizes, 5, samp, 6, quality, 4, 7);
        c.progressive = 1 + i % 3;
        c.seed = (uint32_t)(100 + i);
        size_t len;
        uint8_t *d = encode(&c, &len);
        char what[128];
        describe(&c, i, what, sizeof what);
        assert_int_equal(check_same(ours, theirs, d, len, what), (int)NREGIONS);
        restarts += c.restart || c.restart_rows;
        free(d);
        files++;
    }
    feed__huff_refine_level(-1);
    assert_true(levels >= 1);
    assert_true(restarts >= 15 * levels);
    assert_int_equal(files, 36 * levels);
    /* a bigger busy one: long EOB runs and long codes in every kind of scan */
    enc_cfg big = {.w = 700, .h = 500, .hs = 2, .vs = 2, .quality = 97, .noise = 1, .seed = 7,
                   .progressive = 2};
    size_t len;
    uint8_t *d = encode(&big, &len);
    assert_int_equal(check_same(ours, theirs, d, len, "700x500 q97 progressive"), (int)NREGIONS);
    free(d);
    feed__jpeg_destroy(ours);
    feed__jpeg_destroy(theirs);
}

/* A grey progressive file of one DC scan, w x h, every block's difference
 * +32767 (a table of one code, "0", for size 15), made byte by byte. */
static uint8_t *dc_ramp(uint32_t w, uint32_t h, size_t *len)
{
    const uint32_t blocks = ((w + 7) / 8) * ((h + 7) / 8);
    size_t cap = 256 + (size_t)blocks * 3, n = 0;
    uint8_t *d = malloc(cap);
    assert_non_null(d);
    static const uint8_t dqt[] = {0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00}; /* SOI, DQT 0 */
    memcpy(d, dqt, sizeof dqt), n = sizeof dqt;
    memset(d + n, 1, 64), n += 64;
    const uint8_t sof[] = {0xFF, 0xC2, 0x00, 0x0B, 0x08, (uint8_t)(h >> 8), (uint8_t)h,
                           (uint8_t)(w >> 8), (uint8_t)w, 0x01, 0x01, 0x11, 0x00};
    memcpy(d + n, sof, sizeof sof), n += sizeof sof;
    static const uint8_t dht[] = {0xFF, 0xC4, 0x00, 0x14, 0x00, 1, 0, 0, 0, 0, 0, 0,
                                  0,    0,    0,    0,    0,    0, 0, 0, 0, 15};
    memcpy(d + n, dht, sizeof dht), n += sizeof dht;
    static const uint8_t sos[] = {0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00};
    memcpy(d + n, sos, sizeof sos), n += sizeof sos;
    for (uint32_t b = 0; b < blocks; b++) /* the code 0, then 15 one bits; FF stuffed */
        d[n++] = 0x7F, d[n++] = 0xFF, d[n++] = 0x00;
    d[n++] = 0xFF, d[n++] = 0xD9;
    assert_true(n <= cap);
    *len = n;
    return d;
}

/* A progressive DC scan whose differences add up past INT_MAX (65539 blocks
 * of +32767): libjpeg-turbo refuses it (JERR_BAD_DCT_COEF, worded as the
 * version in use words it: 3.0 added "(lossy) or spatial difference
 * (lossless)") and so does ours; 65280 blocks decode, the same bytes from
 * both. */
static void test_dc_sum_overflow_refused(void **state)
{
    (void)state;
    feed__jpeg *ours = feed__jpeg_create(), *theirs = feed__jpeg_create();
    static const region_want corner = {1, {0, 0, 0.05, 0.05}, 0};
    static const uint32_t heights[] = {2040, 2056}; /* 256 x 255 and 256 x 257 blocks */
    for (int i = 0; i < 2; i++) {
        size_t len;
        uint8_t *d = dc_ramp(2048, heights[i], &len);
        result a, x;
        run(ours, d, len, &corner, 0, &a);
        run(theirs, d, len, &corner, 2, &x);
        assert_true(a.own);
        expect_same(&a, &x, "DC ramp", (size_t)i, "libjpeg's exact path");
        if (i == 0) {
            assert_int_equal(a.rc, 0);
        } else {
            assert_int_equal(a.rc, FEED_E_DECODE);
            struct jpeg_error_mgr em;
            jpeg_std_error(&em);
            assert_string_equal(a.msg, em.jpeg_message_table[JERR_BAD_DCT_COEF]);
        }
        free(a.bytes);
        free(x.bytes);
        free(d);
    }
    feed__jpeg_destroy(ours);
    feed__jpeg_destroy(theirs);
}

/* A flat picture but for a few busy blocks at the top: the AC scans'
 * end-of-band runs grow to thousands of blocks (up to EOB14, 14 run bits,
 * libjpeg's longest: seen with a counting build), and refinement scans carry
 * correction bits for the busy blocks between runs. Both progressions, with and
 * without restart intervals (a run ends at each restart). */
static void test_progressive_long_eob_runs(void **state)
{
    (void)state;
    feed__jpeg *ours = feed__jpeg_create(), *theirs = feed__jpeg_create();
    const uint32_t w = 1536, h = 1024;
    uint8_t *px = malloc((size_t)w * h * 3);
    assert_non_null(px);
    memset(px, 128, (size_t)w * h * 3);
    uint32_t seed = 77;
    for (int b = 0; b < 40; b++) { /* 40 busy 8x8 blocks in the top eighth, the rest flat */
        uint32_t bx = rnd(&seed) % (w / 8), by = rnd(&seed) % (h / 64);
        for (uint32_t y = 0; y < 8; y++)
            for (uint32_t x = 0; x < 24; x++)
                px[((size_t)(by * 8 + y) * w + bx * 8) * 3 + x] = (uint8_t)rnd(&seed);
    }
    static const int prog[] = {1, 2, 3, 1};
    static const int restart[] = {0, 0, 0, 500};
    for (int i = 0; i < 4; i++) {
        enc_cfg c = {.w = w, .h = h, .hs = 2, .vs = 2, .quality = 95, .progressive = prog[i],
                     .restart = restart[i]};
        size_t len;
        uint8_t *d = ti_jpeg_lib(px, w, h, setup_cfg, &c, &len);
        assert_non_null(d);
        /* 24576 luma blocks in this few bytes: most of them in runs */
        assert_true(len < 40000);
        char what[64];
        snprintf(what, sizeof what, "long EOB runs, progression %d, restart %d", prog[i], restart[i]);
        assert_int_equal(check_same(ours, theirs, d, len, what), (int)NREGIONS);
        free(d);
    }
    free(px);
    feed__jpeg_destroy(ours);
    feed__jpeg_destroy(theirs);
}

static void *setup_arith(struct jpeg_compress_struct *ci, const void *arg)
{
    (void)arg;
    ci->arith_code = TRUE;
    jpeg_simple_progression(ci);
    return NULL;
}

/* Arithmetic-coded files (progressive or not) stay with libjpeg's decoder,
 * and decode. */
static void test_arithmetic_left_to_libjpeg(void **state)
{
    (void)state;
    feed__jpeg *j = feed__jpeg_create();
    uint8_t *px = ti_photo(80, 60, 1);
    size_t len;
    uint8_t *d = ti_jpeg_lib(px, 80, 60, setup_arith, NULL, &len);
    result r;
    run(j, d, len, &g_regions[0], 0, &r);
    assert_int_equal(r.rc, 0);
    assert_false(r.own);
    assert_int_equal(r.n, 80u * 60u * 4u);
    free(r.bytes);
    free(d);
    free(px);
    feed__jpeg_destroy(j);
}

/* d without its segments of marker m (all of them). */
static uint8_t *strip_segments(const uint8_t *d, size_t len, uint8_t m, size_t *out_len)
{
    uint8_t *o = malloc(len);
    assert_non_null(o);
    size_t i = 2, n = 2, s0 = scan_start(d, len);
    memcpy(o, d, 2);
    while (i + 4 <= s0) {
        size_t seg = 2 + ((size_t)d[i + 2] << 8 | d[i + 3]);
        if (d[i + 1] != m) {
            memcpy(o + n, d + i, seg);
            n += seg;
        }
        i += seg;
    }
    memcpy(o + n, d + i, len - i);
    *out_len = n + len - i;
    return o;
}

/* Each file is decoded with its own tables: a file without its DQT fails
 * and one without its DHT takes the standard tables, as each does alone,
 * even right after a file whose tables libjpeg would have kept. */
static void test_tables_not_kept(void **state)
{
    (void)state;
    enc_cfg ca = {.w = 64, .h = 48, .hs = 2, .vs = 2, .quality = 97, .optimize = 1, .noise = 1, .seed = 21};
    enc_cfg cb = {.w = 64, .h = 48, .hs = 2, .vs = 2, .quality = 60, .seed = 22}; /* standard tables */
    size_t la, lb, lq, lh;
    uint8_t *a = encode(&ca, &la), *b = encode(&cb, &lb);
    uint8_t *no_dqt = strip_segments(b, lb, 0xDB, &lq), *no_dht = strip_segments(b, lb, 0xC4, &lh);
    assert_true(lq < lb && lh < lb);
    for (int mode = 0; mode <= 2; mode += 2) {
        feed__jpeg *j = feed__jpeg_create();
        result alone_q, alone_h, full, after_q, after_h, first;
        run(j, no_dqt, lq, &g_regions[1], mode, &alone_q);
        run(j, no_dht, lh, &g_regions[1], mode, &alone_h);
        run(j, b, lb, &g_regions[1], mode, &full);
        assert_int_equal(alone_q.rc, FEED_E_DECODE);
        assert_non_null(strstr(alone_q.msg, "Quantization table 0x00 was not defined"));
        assert_int_equal(alone_h.rc, 0);
        expect_same(&alone_h, &full, "no DHT alone (standard tables)", 1, "the file with them");
        run(j, a, la, &g_regions[1], mode, &first); /* other tables now */
        run(j, no_dqt, lq, &g_regions[1], mode, &after_q);
        free(first.bytes);
        run(j, a, la, &g_regions[1], mode, &first);
        run(j, no_dht, lh, &g_regions[1], mode, &after_h);
        expect_same(&after_q, &alone_q, "no DQT after another file", 1, "alone");
        expect_same(&after_h, &alone_h, "no DHT after another file", 1, "alone");
        result *all[] = {&alone_q, &alone_h, &full, &after_q, &after_h, &first};
        for (size_t k = 0; k < sizeof all / sizeof *all; k++)
            free(all[k]->bytes);
        feed__jpeg_destroy(j);
    }
    free(a), free(b), free(no_dqt), free(no_dht);
}

/* Damaged copies of clean files (bytes flipped, the scan cut short before
 * its EOI, stray and wrong markers, runs of FF): ours and libjpeg-turbo's
 * exact path give the same verdict, message and, where they decode, bytes.
 * Run under ASan and UBSan in CI: no read outside the file. */
static void test_corrupt_same_verdict(void **state)
{
    (void)state;
    feed__jpeg *ours = feed__jpeg_create(), *theirs = feed__jpeg_create();
    static const enc_cfg base[] = {
        {.w = 120, .h = 90, .hs = 2, .vs = 2, .quality = 90, .seed = 1},
        {.w = 120, .h = 90, .hs = 2, .vs = 2, .quality = 95, .restart = 3, .noise = 1, .seed = 2},
        {.w = 77, .h = 51, .grey = 1, .quality = 80, .optimize = 1, .restart_rows = 1, .seed = 3},
        {.w = 64, .h = 48, .hs = 1, .vs = 1, .quality = 100, .optimize = 1, .noise = 1, .seed = 4},
        {.w = 120, .h = 90, .hs = 2, .vs = 2, .quality = 90, .seed = 5, .progressive = 1},
        {.w = 96, .h = 72, .hs = 2, .vs = 1, .quality = 95, .noise = 1, .restart = 2, .seed = 6,
         .progressive = 2},
        {.w = 77, .h = 51, .grey = 1, .quality = 85, .restart_rows = 1, .seed = 7, .progressive = 3},
        {.w = 64, .h = 64, .hs = 1, .vs = 1, .quality = 100, .noise = 1, .seed = 8, .progressive = 3},
    };
    uint32_t seed = 12345;
    int agree_ok = 0, agree_fail = 0, bad_code = 0, prog_ok = 0, prog_fail = 0;
    for (size_t b = 0; b < sizeof base / sizeof *base; b++) {
        size_t len;
        uint8_t *clean = encode(&base[b], &len);
        size_t s0 = scan_start(clean, len), s1 = len - 2; /* the entropy-coded bytes */
        uint8_t *d = malloc(len + 64);
        for (int v = 0; v < 150; v++) {
            memcpy(d, clean, len);
            size_t n = len;
            size_t at = s0 + rnd(&seed) % (s1 - s0);
            switch (v % 6) {
            case 0: /* a flipped byte or three */
                for (int k = 0; k < 1 + v % 3; k++)
                    d[s0 + rnd(&seed) % (s1 - s0)] ^= (uint8_t)(1 + rnd(&seed) % 255);
                break;
            case 1: /* the scan cut short, then EOI */
                d[at] = 0xFF, d[at + 1] = 0xD9, n = at + 2;
                break;
            case 2: /* a stray marker in the scan: RSTn, or another one */
                memmove(d + at + 2, d + at, len - at);
                d[at] = 0xFF, d[at + 1] = (uint8_t)(v % 12 < 6 ? 0xD0 + v % 8 : 0xC4 + v % 3);
                n = len + 2;
                break;
            case 3: /* a run of stuffed FF bytes: all-ones bits, codes in no table */
                for (int k = 0; k < 4 && at + 1 < s1; k++, at += 2)
                    d[at] = 0xFF, d[at + 1] = 0x00;
                break;
            case 4: /* FF FF ... fill bytes before the data goes on */
                memmove(d + at + 3, d + at, len - at);
                d[at] = d[at + 1] = d[at + 2] = 0xFF;
                n = len + 3;
                break;
            default: /* one bit */
                d[at] ^= (uint8_t)(1u << (v % 8));
                break;
            }
            if (base[b].progressive) /* every refinement kernel in turn */
                feed__huff_refine_level(v % (feed__huff_refine_level(-1) + 1));
            for (size_t k = 0; k < NREGIONS; k += 3) {
                result a, r;
                run(ours, d, n, &g_regions[k], 0, &a);
                run(theirs, d, n, &g_regions[k], 2, &r);
                char what[64];
                snprintf(what, sizeof what, "base %zu variant %d", b, v);
                expect_same(&a, &r, what, k, "libjpeg's exact path");
                if (a.rc == 0)
                    agree_ok++;
                else
                    agree_fail++;
                if (base[b].progressive) {
                    assert_true(a.own || a.rc); /* ours ran (or the header was refused first) */
                    prog_ok += a.rc == 0;
                    prog_fail += a.rc != 0;
                }
                if (strstr(a.msg, "bad Huffman code"))
                    bad_code++;
                free(a.bytes);
                free(r.bytes);
            }
        }
        free(d);
        free(clean);
    }
    feed__huff_refine_level(-1);
    fprintf(stderr, "damaged variants: both decode %d, both refuse %d (a bad code: %d; progressive: %d, %d)\n",
            agree_ok, agree_fail, bad_code, prog_ok, prog_fail);
    assert_true(prog_ok > 50);
    assert_true(prog_fail > 50);
    assert_true(agree_ok > 100);
    assert_true(agree_fail > 100);
    assert_true(bad_code > 10);
    feed__jpeg_destroy(ours);
    feed__jpeg_destroy(theirs);
}

/* A code in no table is an error that says so, wherever it falls, as on
 * libjpeg-turbo's exact path; its fast path decodes it as a zero and
 * delivers the image (the difference docs/design.md names). */
static void test_bad_code_reported(void **state)
{
    (void)state;
    feed__jpeg *j = feed__jpeg_create();
    enc_cfg c = {.w = 256, .h = 256, .hs = 2, .vs = 2, .quality = 90, .seed = 9};
    size_t len;
    uint8_t *d = encode(&c, &len);
    size_t s0 = scan_start(d, len);
    /* 48 one bits early in the scan: no code of the standard tables is all
     * ones, and a code and its value take 26 bits at most, so a code starts
     * in the run with 16 ones ahead of it: in no table */
    size_t at = s0 + 40;
    for (int k = 0; k < 6; k++)
        d[at + 2 * k] = 0xFF, d[at + 2 * k + 1] = 0x00;
    result r, x, f;
    run(j, d, len, &g_regions[0], 0, &r);
    assert_true(r.own);
    assert_int_equal(r.rc, FEED_E_DECODE);
    assert_non_null(strstr(r.msg, "bad Huffman code"));
    run(j, d, len, &g_regions[0], 2, &x);
    expect_same(&r, &x, "bad code", 0, "libjpeg's exact path");
    run(j, d, len, &g_regions[0], 1, &f);
    assert_int_equal(f.rc, 0); /* libjpeg-turbo 2.1's fast path */
    free(f.bytes);
    free(d);
    feed__jpeg_destroy(j);
}

/* The stream fuzz_jpeghuff found (fuzz/corpus/jpeghuff/crash-fast-path-
 * stale-coefficients, made here): a scan followed, within the 512 bytes a
 * block that libjpeg-turbo's fast path wants ahead, by another scan's
 * marker. The fast path decodes into the marker, gives up and has the exact
 * path decode the MCU again, over coefficients it left behind: -1 where
 * zeros belong. Ours decodes what the exact path does. */
static void test_marker_ahead_of_fast_path(void **state)
{
    (void)state;
    feed__jpeg *ours = feed__jpeg_create(), *theirs = feed__jpeg_create();
    FILE *f = fopen(FEED_SOURCE_DIR "/fuzz/corpus/jpeghuff/crash-fast-path-stale-coefficients", "rb");
    assert_non_null(f);
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 100);
    static const region_want whole = {8, {0, 0, 1, 1}, 0};
    result a, x, fp;
    run(ours, buf + 1, n - 1, &whole, 0, &a);
    run(theirs, buf + 1, n - 1, &whole, 2, &x);
    run(theirs, buf + 1, n - 1, &whole, 1, &fp);
    assert_int_equal(a.rc, 0);
    expect_same(&a, &x, "marker ahead", 0, "libjpeg's exact path");
    assert_int_equal(fp.rc, 0);
    assert_false(same_bytes(&a, &fp)); /* libjpeg-turbo 2.1's fast path: stale -1s */
    free(a.bytes);
    free(x.bytes);
    free(fp.bytes);
    feed__jpeg_destroy(ours);
    feed__jpeg_destroy(theirs);
}

int main(void)
{
#if !FEED_OWN_ENTROPY
    printf("skip: libfeed's Huffman decoder is compiled out (the libjpeg-turbo gate, FEED_OWN_ENTROPY=0)\n");
    return 77;
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_libjpeg),
        cmocka_unit_test(test_long_codes),
        cmocka_unit_test(test_progressive_same_as_libjpeg),
        cmocka_unit_test(test_arithmetic_left_to_libjpeg),
        cmocka_unit_test(test_dc_sum_overflow_refused),
        cmocka_unit_test(test_progressive_long_eob_runs),
        cmocka_unit_test(test_tables_not_kept),
        cmocka_unit_test(test_corrupt_same_verdict),
        cmocka_unit_test(test_bad_code_reported),
        cmocka_unit_test(test_marker_ahead_of_fast_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
