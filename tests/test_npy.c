/*
 * test_npy.c - .npy arrays as a source (src/dataset/npy.c): the header parser on
 * every variant numpy writes and every malformed one; create's error for
 * each bad header or labels file, naming the file and what is wrong; the
 * array's pipeline against the decoded-image pipeline; and the loader end to
 * end, every byte of every sample against the array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dataset/index.h"
#include "dataset/npy.h"
#include "pixels/convert.h"
#include "pixels/pipeline.h"
#include "test_image_util.h"
#include "testutil.h"

static char *dir;

static int setup(void **state)
{
    dir = tu_mkdtemp("npy");
    return 0;
}

static int teardown(void **state)
{
    tu_rmtree(dir);
    free(dir);
    return 0;
}

/* A .npy file as numpy writes it: version major.0, the dict padded with
 * spaces to a multiple of 64 bytes, a newline, then data. dict == NULL:
 * only the preamble and raw. */
static size_t npy_bytes(uint8_t *out, int major, const char *dict, const void *data, size_t len)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t dl = strlen(dict);
    size_t hlen = ((pre + dl + 1 + 63) / 64) * 64 - pre;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (uint8_t)major;
    out[7] = 0;
    if (major == 1) {
        out[8] = (uint8_t)hlen, out[9] = (uint8_t)(hlen >> 8);
    } else {
        out[8] = (uint8_t)hlen, out[9] = (uint8_t)(hlen >> 8), out[10] = (uint8_t)(hlen >> 16), out[11] = 0;
    }
    memcpy(out + pre, dict, dl);
    memset(out + pre + dl, ' ', hlen - dl - 1);
    out[pre + hlen - 1] = '\n';
    if (len)
        memcpy(out + pre + hlen, data, len);
    return pre + hlen + len;
}

static char *write_npy(const char *name, int major, const char *dict, const void *data, size_t len)
{
    uint8_t *b = malloc(len + 4096);
    size_t n = npy_bytes(b, major, dict, data, len);
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/%s", dir, name);
    tu_write(p, b, n);
    free(b);
    return p;
}

static char *write_labels32(const char *name, const int32_t *v, size_t n)
{
    char dict[128];
    snprintf(dict, sizeof dict, "{'descr': '<i4', 'fortran_order': False, 'shape': (%zu,), }", n);
    return write_npy(name, 1, dict, v, n * 4);
}

/* ---- the header parser ------------------------------------------------------- */

static void test_parse_variants(void **state)
{
    static const struct {
        int major;
        const char *dict;
        uint32_t rank;
        uint64_t s0, s3;
        char kind, order;
        uint32_t item;
    } ok[] = {
        {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (7, 4, 5, 3), }", 4, 7, 3, 'u', '|', 1},
        {2, "{'descr': '|u1', 'fortran_order': False, 'shape': (7, 4, 5, 1), }", 4, 7, 1, 'u', '|', 1},
        {3, "{'descr': '<u1', 'fortran_order': False, 'shape': (2, 4, 5, 4), }", 4, 2, 4, 'u', '<', 1},
        {1, "{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (3, 4, 5)}", 3, 3, 0, 'u', '|', 1},
        {1, "{'shape': (9,), 'fortran_order': False, 'descr': '<i4'}", 1, 9, 0, 'i', '<', 4},
        {1, "{'descr': '>i8', 'fortran_order': True, 'shape': (9L,), }", 1, 9, 0, 'i', '>', 8},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 0, 0, 0, 'f', '<', 4},
    };
    uint8_t buf[512];
    char err[256];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        size_t n = npy_bytes(buf, ok[i].major, ok[i].dict, NULL, 0);
        feed__npy_header h;
        assert_int_equal(feed__npy_parse(buf, n, &h, err, sizeof err), FEED_OK);
        assert_int_equal(h.rank, ok[i].rank);
        assert_int_equal(h.data_off, n);
        assert_int_equal(h.data_off % 64, 0);
        if (h.rank)
            assert_int_equal(h.shape[0], ok[i].s0);
        if (h.rank == 4)
            assert_int_equal(h.shape[3], ok[i].s3);
        assert_int_equal(h.kind, ok[i].kind);
        assert_int_equal(h.order, ok[i].order);
        assert_int_equal(h.item, ok[i].item);
    }
}

static void test_parse_malformed(void **state)
{
    static const struct {
        int major;
        const char *dict;
        const char *want;
    } bad[] = {
        {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (7, 4, 5, 3)", "malformed"},
        {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (7, -4, 5, 3), }", "malformed"},
        {1, "{'descr': '|u1', 'fortran_order': Flase, 'shape': (7, 4, 5, 3), }", "malformed"},
        {1, "{'descr': '|u1', 'shape': (7, 4, 5, 3), }", "lacks 'fortran_order'"},
        {1, "{'descr': '|u1', 'descr': '|u1', 'fortran_order': False, 'shape': (1,), }", "repeated key 'descr'"},
        {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), 'x': 1}", "key 'x'"},
        {1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", "structured dtype"},
        {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999,), }", "malformed"},
        {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }", "more than 8"},
        {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), } x", "malformed"},
    };
    uint8_t buf[512];
    char err[256];
    feed__npy_header h;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = npy_bytes(buf, bad[i].major, bad[i].dict, NULL, 0);
        assert_int_equal(feed__npy_parse(buf, n, &h, err, sizeof err), FEED_E_DATASET);
        if (!strstr(err, bad[i].want))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].want);
    }
    /* the preamble */
    size_t n = npy_bytes(buf, 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), }", NULL, 0);
    assert_int_equal(feed__npy_parse(buf, n - 1, &h, err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "truncated"));
    assert_int_equal(feed__npy_parse(buf, 8, &h, err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "truncated"));
    buf[6] = 4;
    assert_int_equal(feed__npy_parse(buf, n, &h, err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "version 4.0"));
    buf[6] = 1;
    buf[0] = 0x92;
    assert_int_equal(feed__npy_parse(buf, n, &h, err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "magic"));
    buf[0] = 0x93;
    buf[8] = 0xFF, buf[9] = 0xFF; /* 65535 bytes: more than there is */
    assert_int_equal(feed__npy_parse(buf, n, &h, err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "truncated"));
}

/* ---- create's errors, each naming the file ------------------------------------------ */

/* Default options reading an array source and its labels (NULL: none). */
static void array_options(feed_options *o, const char *source, const char *labels)
{
    feed_options_init(o, sizeof *o);
    snprintf(o->source, sizeof o->source, "%s", source);
    snprintf(o->labels, sizeof o->labels, "%s", labels ? labels : "");
}

static feed_status try_create(const char *source, const char *labels, char *err, size_t errlen)
{
    feed_options o;
    array_options(&o, source, labels);
    o.workers = 1;
    o.height = o.width = 8;
    feed_loader *L = NULL;
    feed_status st = feed_loader_create(&L, &o, err, errlen);
    feed_loader_destroy(L);
    return st;
}

/* create fails with FEED_E_DATASET and an error that names the file
 * (its last component) and says want. */
static void expect_bad(const char *source, const char *labels, const char *named, const char *want)
{
    char err[1024];
    assert_int_equal(try_create(source, labels, err, sizeof err), FEED_E_DATASET);
    const char *base = strrchr(named, '/');
    if (!strstr(err, base ? base + 1 : named) || !strstr(err, want))
        fail_msg("error '%s' does not name %s and say '%s'", err, named, want);
}

static void test_bad_headers_at_create(void **state)
{
    uint8_t px[2 * 4 * 5 * 3] = {0};
    int32_t lab[2] = {0, 1};
    char *labels = write_labels32("lab2.npy", lab, 2);
    static const struct {
        const char *dict;
        size_t len;
        const char *want;
    } bad[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 5, 3), }", 2 * 4 * 5 * 3 * 4, "dtype '<f4'"},
        {"{'descr': '<u2', 'fortran_order': False, 'shape': (2, 4, 5, 3), }", 2 * 4 * 5 * 3 * 2, "must be uint8"},
        {"{'descr': '|u1', 'fortran_order': True, 'shape': (2, 4, 5, 3), }", sizeof px, "Fortran order"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 60), }", sizeof px, "2 dimensions"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 4, 5, 3, 1), }", sizeof px, "5 dimensions"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 4, 5, 2), }", 2 * 4 * 5 * 2, "2 channels"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 4, 5, 3), }", sizeof px - 1, "truncated"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4, 5, 3), }", sizeof px, "truncated"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (1, 4, 5, 3), }", sizeof px, "60 more than"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (0, 4, 5, 3), }", 0, "no samples"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 0, 5, 3), }", 0, "H and W"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 4, 5, 3)", sizeof px, "malformed"},
    };
    uint8_t *big = calloc(1, 4096);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *p = write_npy("bad.npy", 1, bad[i].dict, big, bad[i].len);
        expect_bad(p, labels, p, bad[i].want);
        free(p);
    }
    /* no magic: named .npy, so the array's error, not a file list's */
    char p[4200];
    snprintf(p, sizeof p, "%s/nomagic.npy", dir);
    tu_write(p, "PK\3\4 not an array at all", 25);
    expect_bad(p, labels, p, "magic");
    /* a truncated header */
    char *t = write_npy("trunc.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 4, 5, 3), }", NULL, 0);
    truncate(t, 40);
    expect_bad(t, labels, t, "truncated .npy header");
    free(t);
    free(big);
    free(labels);
}

static void test_bad_labels_at_create(void **state)
{
    uint8_t px[3 * 4 * 5 * 3] = {0};
    char *img = write_npy("img3.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4, 5, 3), }", px,
                          sizeof px);
    int32_t two[2] = {0, 1}, neg[3] = {0, -1, 2};
    int64_t huge[3] = {0, 1, 1ll << 31};
    float fl[3] = {0, 1, 2};
    char *p;
    expect_bad(img, NULL, img, "labels=PATH");
    p = write_labels32("two.npy", two, 2);
    expect_bad(img, p, p, "2 labels for 3 images");
    free(p);
    p = write_labels32("neg.npy", neg, 3);
    expect_bad(img, p, p, "label -1 of sample 1 is out of range");
    free(p);
    p = write_npy("huge.npy", 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", huge, sizeof huge);
    expect_bad(img, p, p, "label 2147483648 of sample 2");
    free(p);
    p = write_npy("fl.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", fl, sizeof fl);
    expect_bad(img, p, p, "int32 or int64");
    free(p);
    p = write_npy("l2d.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 1), }", neg, sizeof neg);
    expect_bad(img, p, p, "shape (N,)");
    free(p);
    p = write_npy("short.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", neg, 8);
    expect_bad(img, p, p, "truncated");
    free(p);
    char missing[4200];
    snprintf(missing, sizeof missing, "%s/missing.npy", dir);
    expect_bad(img, missing, missing, "No such file");
    /* labels= for a folder */
    char folder[3000];
    snprintf(folder, sizeof folder, "%s/folder/cls", dir);
    tu_mkdirs(folder);
    snprintf(folder, sizeof folder, "%s/folder", dir);
    p = write_labels32("ok3.npy", two, 2);
    expect_bad(folder, p, folder, "is for a .npy array source");
    free(p);
    free(img);
}

/* ---- the index ---------------------------------------------------------------- */

static void test_index_of_array(void **state)
{
    enum { N = 5 };
    uint8_t px[N * 2 * 3] = {0};
    int64_t lab[N] = {4, 0, 2, 2, 7};
    uint8_t be[N * 8];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 8; k++)
            be[i * 8 + k] = (uint8_t)((uint64_t)lab[i] >> (8 * (7 - k)));
    char *img = write_npy("grey.npy", 2, "{'descr': '|u1', 'fortran_order': False, 'shape': (5, 2, 3), }", px,
                          sizeof px);
    char *lp = write_npy("be.npy", 1, "{'descr': '>i8', 'fortran_order': False, 'shape': (5,), }", be, sizeof be);
    feed__index ix;
    char err[512];
    feed__index_spec s = {.source = img, .labels = lp};
    assert_int_equal(feed__index_build_spec(&ix, &s, err, sizeof err), FEED_OK);
    assert_int_equal(feed__index_share(&ix, err, sizeof err), FEED_OK);
    feed__index ro;
    assert_int_equal(feed__index_attach(&ro, ix.fd, err, sizeof err), FEED_OK);
    const feed__index_hdr *h = ro.hdr;
    assert_int_equal(h->kind, FEED_INDEX_NPY);
    assert_int_equal(h->count, N);
    assert_int_equal(h->nclasses, 8);
    assert_int_equal(h->named_classes, 0);
    assert_int_equal(h->npy.h, 2);
    assert_int_equal(h->npy.w, 3);
    assert_int_equal(h->npy.c, 1);
    assert_int_equal(h->npy.sample_bytes, 6);
    assert_int_equal(h->npy.data_off, 128); /* version 2: 12 + 116 */
    for (int i = 0; i < N; i++) {
        assert_int_equal(feed__index_label(h, (uint64_t)i), lab[i]);
        assert_string_equal(feed__index_path(h, (uint64_t)i), "grey.npy");
    }
    feed__index_free(&ro);
    feed__index_free(&ix);
    free(img);
    free(lp);
}

/* ---- the pipeline from pixels -------------------------------------------------------- */

/* val and train on an array mean what they mean on a decoded image: the
 * pixels of a JPEG's full decode, run through feed__image_process_pixels,
 * equal feed__image_process of the JPEG itself (no ROI, no EXIF), byte for
 * byte; grey and RGBA arrays equal the RGB array they expand to. */
static void test_pixels_match_decoded(void **state)
{
    const uint32_t W = 61, H = 47;
    uint8_t *rgb = ti_photo(W, H, 5);
    size_t jlen;
    uint8_t *jpg = ti_jpeg(rgb, W, H, TI_444, 90, 0, &jlen);
    uint32_t dw, dh;
    uint8_t *dec = ti_decode_ref(jpg, jlen, 8, &dw, &dh);
    assert_int_equal(dw, W);
    assert_int_equal(dh, H);
    feed__image_ctx *ctx = feed__image_ctx_create();
    feed_options o;
    feed_options_init(&o, sizeof o);
    o.height = 24, o.width = 32, o.resize_shorter = 30, o.exif = 0, o.roi_decode = 0;
    o.rotate_deg = 10, o.brightness = 0.3f, o.hue = 0.1f, o.grayscale_p = 0.3f;
    uint8_t a[24 * 32 * 3], b[24 * 32 * 3], g1[24 * 32 * 3], g3[24 * 32 * 3], g4[24 * 32 * 3];
    char msg[256];
    uint8_t *grey = malloc(W * H), *grey3 = malloc(W * H * 3), *rgba = malloc(W * H * 4);
    for (uint32_t i = 0; i < W * H; i++) {
        grey[i] = dec[i * 3 + 1];
        memset(grey3 + i * 3, grey[i], 3);
        memcpy(rgba + i * 4, dec + i * 3, 3);
        rgba[i * 4 + 3] = (uint8_t)i;
    }
    for (uint32_t mode = FEED_AUGMENT_NONE; mode <= FEED_AUGMENT_TRAIN; mode++) {
        o.augment = mode;
        feed__xform x;
        feed__xform_from_options(&x, &o);
        for (uint64_t id = 0; id < 6; id++) {
            assert_int_equal(feed__image_process(ctx, &x, jpg, jlen, 3, 1, id, a, NULL, msg, sizeof msg), 0);
            assert_int_equal(feed__image_process_pixels(ctx, &x, dec, W, H, 3, 3, 1, id, b, NULL, msg, sizeof msg), 0);
            assert_memory_equal(a, b, sizeof a);
            assert_int_equal(feed__image_process_pixels(ctx, &x, rgba, W, H, 4, 3, 1, id, g4, NULL, msg, sizeof msg), 0);
            assert_memory_equal(a, g4, sizeof a);
            assert_int_equal(feed__image_process_pixels(ctx, &x, grey, W, H, 1, 3, 1, id, g1, NULL, msg, sizeof msg), 0);
            assert_int_equal(feed__image_process_pixels(ctx, &x, grey3, W, H, 3, 3, 1, id, g3, NULL, msg, sizeof msg), 0);
            assert_memory_equal(g1, g3, sizeof g1);
        }
    }
    /* none at the array's own size: the bytes as they are */
    o.augment = FEED_AUGMENT_NONE, o.height = H, o.width = W;
    feed__xform x;
    feed__xform_from_options(&x, &o);
    uint8_t *same = malloc(W * H * 3);
    assert_int_equal(feed__image_process_pixels(ctx, &x, dec, W, H, 3, 0, 0, 0, same, NULL, msg, sizeof msg), 0);
    assert_memory_equal(same, dec, W * H * 3);
    assert_int_equal(feed__image_process_pixels(ctx, &x, grey, W, H, 1, 0, 0, 0, same, NULL, msg, sizeof msg), 0);
    assert_memory_equal(same, grey3, W * H * 3);
    /* over max_pixels: a bad sample, as a decoded one */
    x.max_pixels = W * H - 1;
    assert_int_equal(feed__image_process_pixels(ctx, &x, dec, W, H, 3, 0, 0, 0, same, NULL, msg, sizeof msg),
                     FEED_E_TOO_LARGE);
    assert_non_null(strstr(msg, "max_pixels"));
    free(same);
    free(grey), free(grey3), free(rgba);
    feed__image_ctx_destroy(ctx);
    free(dec), free(jpg), free(rgb);
}

/* ---- the loader, end to end --------------------------------------------------------- */

#define EN 37
#define EH 20
#define EW 28

/* Every sample of two epochs, every byte, with C channels; labels from the
 * labels file; each sample exactly once an epoch. */
static void run_exact(uint32_t c, const char *extra)
{
    size_t sb = (size_t)EH * EW * c;
    uint8_t *px = malloc(EN * sb);
    for (size_t i = 0; i < EN * sb; i++)
        px[i] = (uint8_t)(i * 2654435761u >> 13);
    int32_t lab[EN];
    for (int i = 0; i < EN; i++)
        lab[i] = (i * 7) % 5;
    char dict[160], name[32];
    snprintf(dict, sizeof dict, "{'descr': '|u1', 'fortran_order': False, 'shape': (%d, %d, %d, %u), }", EN, EH,
             EW, c);
    snprintf(name, sizeof name, "e2e%u.npy", c);
    char *img = write_npy(name, 1, dict, px, EN * sb);
    char *lp = write_labels32("e2e_labels.npy", lab, EN);
    feed_options o;
    char err[1024];
    array_options(&o, img, lp);
    o.batch_size = 8, o.workers = 2, o.height = EH, o.width = EW, o.augment = FEED_AUGMENT_NONE;
    o.epochs = 2;
    if (extra)
        assert_int_equal(feed_options_parse(&o, extra, err, sizeof err), FEED_OK);
    feed_loader *L;
    if (feed_loader_create(&L, &o, err, sizeof err) != FEED_OK)
        fail_msg("create: %s", err);
    assert_int_equal(feed_loader_num_samples(L), EN);
    assert_int_equal(feed_loader_num_classes(L), 5);
    assert_null(feed_loader_class_name(L, 0));
    char path[8400];
    int32_t l;
    assert_int_equal(feed_loader_sample_info(L, 3, path, sizeof path, &l), FEED_OK);
    char want[8400];
    snprintf(want, sizeof want, "%s[3]", img);
    assert_string_equal(path, want);
    assert_int_equal(l, lab[3]);
    assert_int_equal(feed_loader_sample_info(L, EN, path, sizeof path, &l), FEED_E_INVALID);
    feed_batch b = {.struct_size = sizeof b};
    for (int e = 0; e < 2; e++) {
        int seen[EN] = {0};
        feed_status st;
        while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
            assert_int_equal(b.sample_bytes, (size_t)EH * EW * 3);
            for (uint32_t i = 0; i < b.count; i++) {
                uint64_t id = b.sample_ids[i];
                assert_true(id < EN);
                seen[id]++;
                assert_int_equal(b.labels[i], lab[id]);
                assert_int_equal(b.flags[i] & FEED_SAMPLE_REPLACED, 0);
                const uint8_t *got = (const uint8_t *)b.data + i * b.sample_bytes;
                const uint8_t *src = px + id * sb;
                for (size_t p = 0; p < (size_t)EH * EW; p++)
                    for (int k = 0; k < 3; k++) {
                        uint8_t w = src[p * c + (c == 1 ? 0 : k)];
                        if (got[p * 3 + k] != w)
                            fail_msg("C=%u sample %llu pixel %zu channel %d: %u, the array has %u", c,
                                     (unsigned long long)id, p, k, got[p * 3 + k], w);
                    }
            }
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
        }
        assert_int_equal(st, e == 0 ? FEED_END_OF_EPOCH : FEED_END_OF_EPOCH);
        for (int i = 0; i < EN; i++)
            assert_int_equal(seen[i], 1);
    }
    feed_stats s = {.struct_size = sizeof s};
    assert_int_equal(feed_loader_stats(L, &s), FEED_OK);
    assert_int_equal(s.read_bytes, 2ull * EN * sb);
    assert_string_equal(s.readahead, "off");
    feed_loader_destroy(L);
    free(img), free(lp), free(px);
}

static void test_loader_exact_rgb(void **state)
{
    run_exact(3, NULL);
}

static void test_loader_exact_grey_rgba(void **state)
{
    run_exact(1, NULL);
    run_exact(4, "reader=pread");
}

/* Augmented: the workers' pixels equal the in-process pipeline's. */
static void test_loader_train(void **state)
{
    enum { N = 19, H = 40, W = 33 };
    uint8_t *px = malloc((size_t)N * H * W * 3);
    for (int i = 0; i < N; i++) {
        uint8_t *p = ti_photo(W, H, (uint32_t)i + 1);
        memcpy(px + (size_t)i * H * W * 3, p, (size_t)H * W * 3);
        free(p);
    }
    int32_t lab[N] = {0};
    char *img = write_npy("train.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (19, 40, 33, 3), }",
                          px, (size_t)N * H * W * 3);
    char *lp = write_labels32("train_labels.npy", lab, N);
    feed_options o;
    char err[1024];
    array_options(&o, img, lp);
    o.batch_size = 4, o.workers = 2, o.height = 24, o.width = 20, o.augment = FEED_AUGMENT_TRAIN, o.seed = 9;
    o.dtype = FEED_DTYPE_FLOAT32; /* the workers convert too */
    feed_loader *L;
    if (feed_loader_create(&L, &o, err, sizeof err) != FEED_OK)
        fail_msg("create: %s", err);
    feed__xform x;
    feed__xform_from_options(&x, &o);
    feed__image_ctx *ctx = feed__image_ctx_create();
    uint8_t ref[24 * 20 * 3];
    float conv[24 * 20 * 3], scale[3], bias[3];
    feed__convert_params(o.mean, o.std, scale, bias);
    feed_batch b = {.struct_size = sizeof b};
    int n = 0;
    char msg[256];
    while (feed_loader_next(L, &b, 60000) == FEED_OK) {
        for (uint32_t i = 0; i < b.count; i++, n++) {
            uint64_t id = b.sample_ids[i];
            assert_int_equal(feed__image_process_pixels(ctx, &x, px + id * H * W * 3, W, H, 3, 9, b.epoch, id, ref,
                                                        NULL, msg, sizeof msg),
                             0);
            feed__convert_sample(ref, 24, 20, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, scale, bias, 0, conv);
            assert_memory_equal((const uint8_t *)b.data + i * b.sample_bytes, conv, sizeof conv);
        }
        feed_batch_release(L, &b, NULL);
    }
    assert_int_equal(n, N);
    feed__image_ctx_destroy(ctx);
    feed_loader_destroy(L);
    free(img), free(lp), free(px);
}

/* The array shrinks under a running loader: the samples past its end are
 * bad samples with a report naming the array and the reader's words ("the
 * file ended at byte ...: it changed since it was indexed"), replaced by
 * samples that can still be read; none is an image of zeros. */
static void test_loader_file_shrinks(void **state)
{
    enum { N = 24, H = 6, W = 5 };
    uint8_t px[N * H * W * 3];
    for (size_t i = 0; i < sizeof px; i++)
        px[i] = (uint8_t)(1 + i % 251);
    int32_t lab[N];
    for (int i = 0; i < N; i++)
        lab[i] = i;
    char *img = write_npy("shrink.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (24, 6, 5, 3), }", px,
                          sizeof px);
    char *lp = write_labels32("shrink_labels.npy", lab, N);
    feed_options o;
    char err[1024];
    array_options(&o, img, lp);
    o.batch_size = 4, o.workers = 1, o.prefetch = 2, o.height = H, o.width = W, o.augment = FEED_AUGMENT_NONE;
    o.max_bad_fraction = 1, o.report_bad = 0, o.epochs = 2;
    feed_loader *L;
    if (feed_loader_create(&L, &o, err, sizeof err) != FEED_OK)
        fail_msg("create: %s", err);
    size_t flen;
    uint8_t *file = tu_read_file(img, &flen);
    feed__npy_header nh;
    assert_int_equal(feed__npy_parse(file, flen, &nh, err, sizeof err), FEED_OK);
    free(file);
    assert_int_equal(truncate(img, (off_t)(nh.data_off + (N / 2) * H * W * 3)), 0); /* samples 12.. are gone */
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    uint64_t replaced_e1 = 0;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK || st == FEED_END_OF_EPOCH) {
        if (st == FEED_END_OF_EPOCH)
            continue;
        for (uint32_t i = 0; i < b.count; i++) {
            uint64_t id = b.sample_ids[i];
            assert_true(id < N / 2 || !(b.flags[i] & FEED_SAMPLE_REPLACED)); /* a substitute can be read */
            assert_memory_equal((const uint8_t *)b.data + i * b.sample_bytes, px + id * H * W * 3, H * W * 3);
            assert_int_equal(b.labels[i], lab[id]);
            replaced_e1 += b.epoch == 1 && (b.flags[i] & FEED_SAMPLE_REPLACED);
        }
        feed_batch_release(L, &b, NULL);
    }
    assert_int_equal(st, FEED_END_OF_DATA);
    assert_int_equal(replaced_e1, N / 2); /* every read of epoch 1 came after the truncation */
    feed_bad_sample r = {.struct_size = sizeof r};
    assert_int_equal(feed_loader_bad_sample(L, feed_loader_bad_count(L) - 1, &r), FEED_OK);
    assert_non_null(strstr(r.path, "shrink.npy"));
    assert_non_null(strstr(r.message, "changed since it was indexed"));
    assert_int_equal(r.status, FEED_E_IO);
    feed_loader_destroy(L);
    free(img), free(lp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_variants),
        cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_bad_headers_at_create),
        cmocka_unit_test(test_bad_labels_at_create),
        cmocka_unit_test(test_index_of_array),
        cmocka_unit_test(test_pixels_match_decoded),
        cmocka_unit_test(test_loader_exact_rgb),
        cmocka_unit_test(test_loader_exact_grey_rgba),
        cmocka_unit_test(test_loader_train),
        cmocka_unit_test(test_loader_file_shrinks),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
