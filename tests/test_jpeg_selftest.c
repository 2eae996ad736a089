/*
 * test_jpeg_selftest.c - the option jpeg_entropy, the worker's self-check of
 * libfeed's Huffman decoder (decode/jpeg_selftest.c) and what the stats say:
 *  - the built-in files are what the self-check says they are, and it passes
 *    with this build's libjpeg-turbo; made to fail (FEED_TEST_ENTROPY=differ
 *    changes one pixel of libfeed's side), it names the file and the pixel;
 *  - the pipeline's choice for each option value (feed__image_entropy), with
 *    the decoder compiled out too (FEED_TEST_ENTROPY=compiled_out);
 *  - end to end through the loader: jpeg_entropy=libjpeg and =libfeed give
 *    the same pixels on a generated dataset (with the self-check's files in
 *    it), each the in-process reference of its decoder, which differ on a
 *    file where libjpeg-turbo 2.1's fast path leaves stale coefficients; the
 *    stats name the decoder and the reason; a failed self-check falls back to
 *    libjpeg-turbo's, says so once on stderr for all workers, and the stats
 *    say "self-check failed"; jpeg_entropy=libfeed fails create where the
 *    decoder is compiled out.
 *
 * `test_jpeg_selftest --write-files FILE` writes the self-check's files as
 * the C arrays of src/decode/jpeg_selftest.c (how they were made).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>

#include "decode/jpeg.h"
#include "decode/jpeg_selftest.h"
#include "hooks/loader_test.h"
#include "pixels/pipeline.h"
#include "test_image_util.h"
#include "testutil.h"

/* ---- the files (the generator of jpeg_selftest.c's arrays) ----------------------------- */

static void *setup_seq(struct jpeg_compress_struct *ci, const void *arg)
{
    jpeg_set_quality(ci, 75, TRUE);
    ci->restart_interval = 2;
    return NULL;
}

static void *setup_full(struct jpeg_compress_struct *ci, const void *arg)
{
    jpeg_set_quality(ci, 75, TRUE);
    ci->restart_interval = 3;
    int n;
    jpeg_scan_info *s = ti_deep_scan_script(3, 0, &n);
    ci->scan_info = s;
    ci->num_scans = n;
    return s;
}

static void *setup_norefine(struct jpeg_compress_struct *ci, const void *arg)
{
    jpeg_set_quality(ci, 75, TRUE);
    jpeg_scan_info *s = calloc(8, sizeof *s);
    int n = 0;
    s[n++] = (jpeg_scan_info){3, {0, 1, 2}, 0, 0, 0, 1}; /* DC, 1 bit held back */
    s[n++] = (jpeg_scan_info){1, {0}, 1, 5, 0, 0};
    s[n++] = (jpeg_scan_info){1, {2}, 1, 63, 0, 2};
    s[n++] = (jpeg_scan_info){1, {1}, 1, 63, 0, 2};
    s[n++] = (jpeg_scan_info){1, {0}, 6, 20, 0, 1}; /* luma 21-63: never */
    ci->scan_info = s;
    ci->num_scans = n;
    return s;
}

static void *setup_simple(struct jpeg_compress_struct *ci, const void *arg)
{
    jpeg_set_quality(ci, 75, TRUE);
    jpeg_simple_progression(ci);
    return NULL;
}

/* Segment after segment: calls seen(marker, offset) for each; returns the
 * offset of the end of scan `cut` (1 = the first scan's entropy data's end), or
 * the file's length when cut is 0 or past the scans. */
static size_t walk(const uint8_t *d, size_t len, int cut, void (*seen)(uint8_t, const uint8_t *, void *),
                   void *arg)
{
    size_t i = 2;
    int scans = 0;
    while (i + 4 <= len && d[i] == 0xFF && d[i + 1] != 0xD9) {
        uint8_t m = d[i + 1];
        size_t seg = (size_t)d[i + 2] << 8 | d[i + 3];
        if (seen)
            seen(m, d + i + 4, arg);
        i += 2 + seg;
        if (m != 0xDA)
            continue;
        while (i + 1 < len && !(d[i] == 0xFF && d[i + 1] && (d[i + 1] < 0xD0 || d[i + 1] > 0xD7)))
            i++;
        if (++scans == cut)
            return i;
    }
    return len;
}

static uint8_t *make_file(int k, size_t *len)
{
    void *(*const setups[4])(struct jpeg_compress_struct *, const void *) = {setup_seq, setup_full,
                                                                              setup_norefine, setup_simple};
    uint8_t *rgb = ti_photo(48, 40, 7);
    uint8_t *d = ti_jpeg_lib(rgb, 48, 40, setups[k], NULL, len);
    free(rgb);
    if (k == 3) { /* cut after the 6th of 10 scans, EOI appended */
        size_t at = walk(d, *len, 6, NULL, NULL);
        d[at] = 0xFF, d[at + 1] = 0xD9;
        *len = at + 2;
    }
    return d;
}

static int write_files(const char *path)
{
    static const char *const names[4] = {"st_seq", "st_full", "st_norefine", "st_cut"};
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    for (int k = 0; k < 4; k++) {
        size_t n;
        uint8_t *d = make_file(k, &n);
        fprintf(f, "static const uint8_t %s[%zu] = {\n", names[k], n);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s0x%02x,%s", i % 16 ? "" : "    ", d[i], i % 16 == 15 || i + 1 == n ? "\n" : "");
        fprintf(f, "};\n");
        free(d);
    }
    return fclose(f) != 0;
}

/* What a file's markers say. */
typedef struct shape {
    int sof2, dri, scans, refine; /* refine: scans with Ah > 0 */
    int dc_al_max;                /* the largest Al of a first DC scan */
    uint8_t ac_seen[3][64];       /* AC coefficients some scan sent, per component */
} shape;

static void seen(uint8_t m, const uint8_t *seg, void *arg)
{
    shape *s = arg;
    s->sof2 |= m == 0xC2;
    s->dri |= m == 0xDD && (seg[0] << 8 | seg[1]) > 0;
    if (m != 0xDA)
        return;
    s->scans++;
    int nc = seg[0], ss = seg[1 + 2 * nc], se = seg[2 + 2 * nc], ah = seg[3 + 2 * nc] >> 4,
        al = seg[3 + 2 * nc] & 15;
    s->refine += ah > 0;
    if (ss == 0 && ah == 0 && al > s->dc_al_max)
        s->dc_al_max = al;
    for (int c = 0; c < nc; c++)
        for (int k = ss ? ss : 64; k <= se && k < 64; k++)
            s->ac_seen[(seg[1 + 2 * c] - 1) % 3][k] = 1;
}

static shape shape_of(const uint8_t *d, size_t len)
{
    shape s;
    memset(&s, 0, sizeof s);
    assert_true(len > 4 && d[0] == 0xFF && d[1] == 0xD8);
    assert_true(d[len - 2] == 0xFF && d[len - 1] == 0xD9);
    walk(d, len, 0, seen, &s);
    return s;
}

static int all_ac(const shape *s)
{
    for (int c = 0; c < 3; c++)
        for (int k = 1; k < 64; k++)
            if (!s->ac_seen[c][k])
                return 0;
    return 1;
}

/* ---- the self-check --------------------------------------------------------------------- */

static void test_files_are_what_they_say(void **state)
{
    const uint8_t *d;
    size_t len, total = 0;
    int k = 0;
    for (; feed__jpeg_selftest_file(k, &d, &len); k++)
        total += len;
    assert_int_equal(k, 4);
    assert_true(total < 6000); /* a few KB in all */
    assert_non_null(feed__jpeg_selftest_file(0, &d, &len));
    shape s = shape_of(d, len);
    assert_true(!s.sof2 && s.dri && s.scans == 1);
    assert_non_null(strstr(feed__jpeg_selftest_file(1, &d, &len), "full successive"));
    s = shape_of(d, len);
    assert_true(s.sof2 && s.dri && s.refine >= 3 && s.dc_al_max > 0 && all_ac(&s));
    assert_non_null(strstr(feed__jpeg_selftest_file(2, &d, &len), "without refinement"));
    s = shape_of(d, len);
    assert_true(s.sof2 && s.refine == 0 && s.dc_al_max > 0 && !all_ac(&s));
    assert_non_null(strstr(feed__jpeg_selftest_file(3, &d, &len), "cut at a scan"));
    s = shape_of(d, len);
    assert_true(s.sof2 && s.scans == 6 && s.refine == 1);
    /* and the generator still makes such files (the bytes may differ with the encoder) */
    for (k = 0; k < 4; k++) {
        uint8_t *g = make_file(k, &len);
        shape a = shape_of(g, len), b;
        feed__jpeg_selftest_file(k, &d, &len);
        b = shape_of(d, len);
        assert_memory_equal(&a, &b, sizeof a);
        free(g);
    }
}

static void test_selftest_passes_here(void **state)
{
    unsetenv("FEED_TEST_ENTROPY");
    if (!feed__jpeg_entropy_built()) {
        fprintf(stderr, "libfeed's Huffman decoder is compiled out of this build: nothing to check\n");
        return;
    }
    feed__jpeg *j = feed__jpeg_create();
    char what[256] = "x";
    int rc = feed__jpeg_selftest(j, what, sizeof what);
    if (rc)
        fail_msg("self-check failed with this build's libjpeg-turbo: %s", what);
    assert_string_equal(what, "");
    /* not vacuous: each file is decoded by libfeed's decoder, to real pixels */
    const uint8_t *d;
    size_t len;
    for (int k = 0; feed__jpeg_selftest_file(k, &d, &len); k++) {
        ti_plan_arg a = {.want = {.scale = 8, .x1 = 48, .y1 = 40}};
        feed__decode_image img;
        char msg[200];
        assert_int_equal(feed__jpeg_decode(j, d, len, ti_plan_fixed, &a, &img, msg, sizeof msg), 0);
        assert_int_equal(feed__jpeg_own_entropy(j), 1);
        int lo = 255, hi = 0;
        for (uint32_t y = 0; y < img.h; y++)
            for (uint32_t x = 0; x < img.w * 4; x++) {
                int v = img.pixels[y * img.stride + x];
                lo = v < lo ? v : lo, hi = v > hi ? v : hi;
            }
        assert_true(hi - lo > 60);
    }
    feed__jpeg_destroy(j);
}

static void test_selftest_differ(void **state)
{
    setenv("FEED_TEST_ENTROPY", "differ", 1);
    feed__jpeg *j = feed__jpeg_create();
    char what[256] = "";
    int rc = feed__jpeg_selftest(j, what, sizeof what);
    unsetenv("FEED_TEST_ENTROPY");
    feed__jpeg_destroy(j);
    if (!feed__jpeg_entropy_built()) {
        assert_int_equal(rc, 1);
        return;
    }
    assert_int_equal(rc, 1);
    assert_string_equal(what, "the progressive file without refinement scans: 1 of 1920 pixels differ, "
                              "the first at (5, 7)");
}

/* ---- the pipeline's choice ----------------------------------------------------------------- */

static void test_choice(void **state)
{
    char msg[256];
    unsetenv("FEED_TEST_ENTROPY");
    int built = feed__jpeg_entropy_built();
    feed__image_ctx *c = feed__image_ctx_create();
    assert_int_equal(feed__image_entropy(c, FEED_JPEG_ENTROPY_LIBJPEG, msg, sizeof msg),
                     FEED__ENTROPY_OPTION_LIBJPEG);
    assert_int_equal(feed__image_entropy(c, FEED_JPEG_ENTROPY_LIBFEED, msg, sizeof msg),
                     built ? FEED__ENTROPY_OPTION_LIBFEED : -1);
    assert_int_equal(feed__image_entropy(c, FEED_JPEG_ENTROPY_AUTO, msg, sizeof msg),
                     built ? FEED__ENTROPY_CHECK_PASSED : FEED__ENTROPY_COMPILED_OUT);
    assert_string_equal(msg, "");
    feed__image_ctx_destroy(c);

    setenv("FEED_TEST_ENTROPY", "differ", 1);
    c = feed__image_ctx_create();
    assert_int_equal(feed__image_entropy(c, FEED_JPEG_ENTROPY_AUTO, msg, sizeof msg),
                     built ? FEED__ENTROPY_CHECK_FAILED : FEED__ENTROPY_COMPILED_OUT);
    if (built)
        assert_non_null(strstr(msg, "without refinement scans"));
    assert_int_equal(feed__image_entropy(c, FEED_JPEG_ENTROPY_LIBFEED, msg, sizeof msg),
                     built ? FEED__ENTROPY_OPTION_LIBFEED : -1); /* the option is obeyed */
    feed__image_ctx_destroy(c);

    setenv("FEED_TEST_ENTROPY", "compiled_out", 1);
    c = feed__image_ctx_create();
    assert_int_equal(feed__image_entropy(c, FEED_JPEG_ENTROPY_AUTO, msg, sizeof msg), FEED__ENTROPY_COMPILED_OUT);
    assert_int_equal(feed__image_entropy(c, FEED_JPEG_ENTROPY_LIBFEED, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "jpeg_entropy=libfeed: this build has libfeed's Huffman decoder compiled out"));
    /* and a JPEG through the pipeline with it: refused, never decoded by the other */
    const uint8_t *d;
    size_t len;
    feed__jpeg_selftest_file(0, &d, &len);
    feed__xform x = ti_xform(FEED_AUGMENT_NONE, 40, 48, 0);
    x.jpeg_entropy = FEED_JPEG_ENTROPY_LIBFEED;
    uint8_t out[48 * 40 * 3];
    feed__image_info info;
    assert_int_equal(feed__image_process(c, &x, d, len, 0, 0, 0, out, &info, msg, sizeof msg), FEED_E_UNSUPPORTED);
    x.jpeg_entropy = FEED_JPEG_ENTROPY_AUTO;
    assert_int_equal(feed__image_process(c, &x, d, len, 0, 0, 0, out, &info, msg, sizeof msg), FEED_OK);
    feed__image_ctx_destroy(c);
    unsetenv("FEED_TEST_ENTROPY");
}

/* ---- end to end ----------------------------------------------------------------------- */

#define SIDE_W 48
#define SIDE_H 40

static char *data;
static feed__index ix;
static uint64_t id_fastpath = UINT64_MAX; /* the sample libjpeg-turbo 2.1's fast path decodes otherwise */

static int setup(void **state)
{
    data = tu_mkdtemp("entropy");
    char p[4600], err[512] = "feed-mkdata failed";
    if (tu_mkdata(data, 30, 5, 3) != 0)
        return -1;
    /* the self-check's files and the fast-path file as samples of class 0 */
    const uint8_t *d;
    size_t len;
    for (int k = 0; feed__jpeg_selftest_file(k, &d, &len); k++) {
        snprintf(p, sizeof p, "%s/class_000/st_%d.jpg", data, k);
        tu_write(p, d, len);
    }
    snprintf(p, sizeof p, "%s/fuzz/corpus/jpeghuff/crash-fast-path-stale-coefficients", FEED_SOURCE_DIR);
    uint8_t *fp = tu_read_file(p, &len);
    snprintf(p, sizeof p, "%s/class_000/zz_fastpath.jpg", data);
    tu_write(p, fp + 1, len - 1); /* the fuzzer's first byte is its selector */
    free(fp);
    if (feed__index_build(&ix, data, "", err, sizeof err) != FEED_OK) {
        fprintf(stderr, "index: %s\n", err);
        return -1;
    }
    for (uint64_t i = 0; i < ix.hdr->count; i++)
        if (strstr(feed__index_path(ix.hdr, i), "zz_fastpath"))
            id_fastpath = i;
    return id_fastpath == UINT64_MAX ? -1 : 0;
}

static int teardown(void **state)
{
    feed__index_free(&ix);
    tu_rmtree(data);
    free(data);
    return 0;
}

static feed_status make(const char *extra, feed_loader **L, char *err, size_t errlen)
{
    feed_options o;
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", data);
    o.batch_size = 8;
    o.height = SIDE_H;
    o.width = SIDE_W;
    o.augment = FEED_AUGMENT_NONE;
    o.shuffle = 0;
    o.epochs = 1;
    if (feed_options_parse(&o, extra, err, errlen) != FEED_OK)
        fail_msg("%s", err);
    return feed_loader_create(L, &o, err, errlen);
}

/* One epoch: every sample's pixels by id into px (count * SIDE_H * SIDE_W * 3),
 * each checked against the in-process reference of the loader's transform;
 * the stats into *s. */
static void epoch(const char *opts, uint8_t *px, feed_stats *s)
{
    feed_loader *L;
    char err[1024];
    if (make(opts, &L, err, sizeof err) != FEED_OK)
        fail_msg("create (%s): %s", opts, err);
    const size_t one = SIDE_H * SIDE_W * 3;
    uint8_t *ref = malloc(one);
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    uint64_t n = 0;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        assert_int_equal(b.bad, 0);
        for (uint32_t i = 0; i < b.count; i++, n++) {
            uint64_t id = b.sample_ids[i];
            memcpy(px + id * one, (uint8_t *)b.data + i * b.sample_bytes, one);
            char msg[256];
            assert_int_equal(tu_reference(ix.hdr, feed__loader_xform(L), 0, 0, id, ref, msg, sizeof msg), FEED_OK);
            assert_memory_equal(px + id * one, ref, one);
        }
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    assert_int_equal(st, FEED_END_OF_EPOCH);
    assert_int_equal(n, ix.hdr->count);
    s->struct_size = sizeof *s;
    assert_int_equal(feed_loader_stats(L, s), FEED_OK);
    free(ref);
    feed_loader_destroy(L);
}

static void test_loader_libjpeg_same_pixels(void **state)
{
    unsetenv("FEED_TEST_ENTROPY");
    int built = feed__jpeg_entropy_built();
    const size_t one = SIDE_H * SIDE_W * 3, all = one * ix.hdr->count;
    uint8_t *a = malloc(all), *b = malloc(all), *c = malloc(all);
    feed_stats s;
    epoch("workers=2,jpeg_entropy=libjpeg", a, &s);
    assert_string_equal(s.jpeg_entropy, "libjpeg");
    assert_string_equal(s.jpeg_entropy_reason, "option");
    epoch("workers=2,jpeg_entropy=auto", c, &s);
    assert_string_equal(s.jpeg_entropy, built ? "libfeed" : "libjpeg");
    assert_string_equal(s.jpeg_entropy_reason, built ? "self-check passed" : "compiled out");
    if (built) {
        epoch("workers=2,jpeg_entropy=libfeed", b, &s);
        assert_string_equal(s.jpeg_entropy, "libfeed");
        assert_string_equal(s.jpeg_entropy_reason, "option");
        assert_memory_equal(b, c, all);
        /* every sample the same, but the one whose decoders differ */
        for (uint64_t id = 0; id < ix.hdr->count; id++)
            if (id != id_fastpath && memcmp(a + id * one, b + id * one, one))
                fail_msg("sample %s: libjpeg's and libfeed's decoders differ", feed__index_path(ix.hdr, id));
        /* each option's pixels were its decoder's (epoch() checked them against
         * the in-process reference of its transform); on libjpeg-turbo 2.1 that
         * file tells the two apart, so the option did change the decoder */
        if (memcmp(a + id_fastpath * one, b + id_fastpath * one, one))
            fprintf(stderr, "the fast-path file tells the decoders apart: the option took effect\n");
        else
            fprintf(stderr, "note: this libjpeg-turbo's fast path decodes the fast-path file as libfeed does\n");
    }
    free(a);
    free(b);
    free(c);
}

/* Runs create .. destroy with fd 2 into a file; returns what was written there. */
static char *with_stderr(const char *opts, feed_stats *s, feed_status *st, char *err, size_t errlen)
{
    char path[4200];
    char *dir = tu_mkdtemp("entropy-err");
    snprintf(path, sizeof path, "%s/stderr", dir);
    int saved = tu_stderr_to(path);
    assert_true(saved >= 0);
    feed_loader *L = NULL;
    *st = make(opts, &L, err, errlen);
    if (*st == FEED_OK) {
        feed_batch b = {.struct_size = sizeof b};
        assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
        s->struct_size = sizeof *s;
        assert_int_equal(feed_loader_stats(L, s), FEED_OK);
    }
    feed_loader_destroy(L);
    tu_stderr_back(saved);
    size_t len;
    uint8_t *text = tu_read_file(path, &len);
    char *r = malloc(len + 1);
    memcpy(r, text, len);
    r[len] = 0;
    free(text);
    tu_rmtree(dir);
    free(dir);
    return r;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static void test_loader_selftest_fails(void **state)
{
    int built = feed__jpeg_entropy_built();
    feed_stats s;
    feed_status st;
    char err[1024];
    setenv("FEED_TEST_ENTROPY", "differ", 1); /* the workers inherit it */
    char *said = with_stderr("workers=3", &s, &st, err, sizeof err);
    unsetenv("FEED_TEST_ENTROPY");
    assert_int_equal(st, FEED_OK);
    fprintf(stderr, "%s", said);
    assert_string_equal(s.jpeg_entropy, "libjpeg");
    if (!built) {
        assert_string_equal(s.jpeg_entropy_reason, "compiled out");
        free(said);
        return;
    }
    assert_string_equal(s.jpeg_entropy_reason, "self-check failed");
    /* one line for the three workers, naming the library and what differed */
    assert_int_equal(count(said, "feed-worker: jpeg_entropy=auto:"), 1);
    assert_non_null(strstr(said, "libfeed's Huffman decoder and libjpeg-turbo's disagree on the progressive "
                                 "file without refinement scans: 1 of 1920 pixels differ, the first at (5, 7)"));
    assert_non_null(strstr(said, "libjpeg-turbo "));
    assert_non_null(strstr(said, " at build, loaded from "));
    assert_non_null(strstr(said, "the workers decode with libjpeg-turbo's\n"));
    free(said);

    /* the same with the self-check passing: libfeed's, nothing said */
    said = with_stderr("workers=3", &s, &st, err, sizeof err);
    assert_int_equal(st, FEED_OK);
    assert_string_equal(s.jpeg_entropy, "libfeed");
    assert_string_equal(s.jpeg_entropy_reason, "self-check passed");
    assert_int_equal(count(said, "jpeg_entropy"), 0);
    free(said);
}

static void test_loader_compiled_out(void **state)
{
    feed_stats s;
    feed_status st;
    char err[1024] = "";
    setenv("FEED_TEST_ENTROPY", "compiled_out", 1);
    char *said = with_stderr("workers=2,jpeg_entropy=libfeed", &s, &st, err, sizeof err);
    free(said);
    assert_int_not_equal(st, FEED_OK);
    if (!strstr(err, "jpeg_entropy=libfeed: this build has libfeed's Huffman decoder compiled out"))
        fail_msg("create's error: %s", err);
    said = with_stderr("workers=2", &s, &st, err, sizeof err);
    free(said);
    unsetenv("FEED_TEST_ENTROPY");
    assert_int_equal(st, FEED_OK);
    assert_string_equal(s.jpeg_entropy, "libjpeg");
    assert_string_equal(s.jpeg_entropy_reason, "compiled out");
}

static void test_option_refused_at_create(void **state)
{
    feed_options o;
    char err[512] = "";
    feed_options_init(&o, sizeof o);
    assert_int_equal(o.jpeg_entropy, FEED_JPEG_ENTROPY_AUTO);
    snprintf(o.source, sizeof o.source, "%s", data);
    o.jpeg_entropy = 3;
    feed_loader *L = (feed_loader *)1;
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_E_INVALID);
    assert_null(L);
    assert_non_null(strstr(err, "jpeg_entropy=3 unknown (auto|libfeed|libjpeg, 0..2)"));
    assert_int_equal(feed_options_set(&o, "jpeg_entropy", "fast", err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "jpeg_entropy='fast': expected one of auto|libfeed|libjpeg"));
}

/* ---- auto against the libjpeg-turbo loaded now -------------------------------------------- */

/* Whatever libjpeg-turbo this process loaded, jpeg_entropy=auto decodes as that
 * library's own decoder does: libfeed's decoder where the self-check passed,
 * libjpeg-turbo's where it failed. The files are not the self-check's own
 * (another picture and size, cuts after other scans). FEED_EXPECT_SELFTEST=pass
 * or fail says which way the check must have gone: scripts/test runs this
 * test with a libjpeg-turbo 3.1 swapped in under the build on 2.1, where it
 * must fail, so that the swap is known to have happened. */
static void test_auto_same_as_loaded(void **state)
{
    unsetenv("FEED_TEST_ENTROPY");
    char msg[256] = "";
    feed__image_ctx *c = feed__image_ctx_create();
    int why = feed__image_entropy(c, FEED_JPEG_ENTROPY_AUTO, msg, sizeof msg);
    feed__image_ctx_destroy(c);
    char lib[256];
    feed__jpeg_lib_version(lib, sizeof lib);
    fprintf(stderr, "%s: self-check %s%s%s\n", lib,
            why == FEED__ENTROPY_CHECK_PASSED   ? "passed"
            : why == FEED__ENTROPY_CHECK_FAILED ? "failed"
                                                : "not run (compiled out)",
            msg[0] ? ": " : "", msg);
    const char *expect = getenv("FEED_EXPECT_SELFTEST");
    if (expect && !strcmp(expect, "fail"))
        assert_int_equal(why, FEED__ENTROPY_CHECK_FAILED);
    else if (expect && !strcmp(expect, "pass"))
        assert_int_equal(why, FEED__ENTROPY_CHECK_PASSED);
    uint32_t chosen = why == FEED__ENTROPY_CHECK_PASSED ? 0 : 1; /* libjpeg_entropy of auto's choice */

    void *(*const setups[4])(struct jpeg_compress_struct *, const void *) = {setup_seq, setup_full,
                                                                              setup_norefine, setup_simple};
    uint8_t *rgb = ti_photo(88, 72, 11);
    feed__jpeg *j = feed__jpeg_create(), *ref = feed__jpeg_create();
    int compared = 0;
    for (int k = 0; k < 4; k++) {
        size_t len;
        uint8_t *d = ti_jpeg_lib(rgb, 88, 72, setups[k], NULL, &len);
        for (int cut = 0; cut <= (k == 3 ? 9 : 0); cut += (k == 3 ? 2 : 1)) {
            size_t n = len;
            if (cut) { /* after scan `cut`, EOI appended: an incomplete progression */
                n = walk(d, len, cut, NULL, NULL);
                if (n + 2 > len)
                    continue;
                d[n] = 0xFF, d[n + 1] = 0xD9;
                n += 2;
            }
            uint8_t *copy = malloc(n);
            memcpy(copy, d, n);
            ti_plan_arg a = {.want = {.scale = 8, .x1 = 88, .y1 = 72, .libjpeg_entropy = chosen}};
            ti_plan_arg b = {.want = {.scale = 8, .x1 = 88, .y1 = 72, .libjpeg_entropy = 2}};
            feed__decode_image ia, ib;
            char ma[200] = "", mb[200] = "";
            int ra = feed__jpeg_decode(j, copy, n, ti_plan_fixed, &a, &ia, ma, sizeof ma);
            int rb = feed__jpeg_decode(ref, copy, n, ti_plan_fixed, &b, &ib, mb, sizeof mb);
            if (ra != rb)
                fail_msg("file %d cut %d: auto says %d (%s), libjpeg-turbo %d (%s)", k, cut, ra, ma, rb, mb);
            if (ra == 0) {
                for (uint32_t y = 0; y < ia.h; y++)
                    if (memcmp(ia.pixels + y * ia.stride, ib.pixels + y * ib.stride, (size_t)ia.w * 4))
                        fail_msg("file %d cut %d: auto's pixels differ from libjpeg-turbo's in row %u", k, cut, y);
                compared++;
            }
            free(copy);
            if (cut) { /* the next cut starts from the whole file again */
                free(d);
                d = ti_jpeg_lib(rgb, 88, 72, setups[k], NULL, &len);
            }
        }
        free(d);
    }
    assert_true(compared >= 6);
    feed__jpeg_destroy(j);
    feed__jpeg_destroy(ref);
    free(rgb);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--write-files"))
        return write_files(argv[2]);
    if (argc == 2) /* one test by name (scripts/test's swapped-library run) */
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files_are_what_they_say),
        cmocka_unit_test(test_selftest_passes_here),
        cmocka_unit_test(test_selftest_differ),
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_auto_same_as_loaded),
        cmocka_unit_test(test_option_refused_at_create),
        cmocka_unit_test(test_loader_libjpeg_same_pixels),
        cmocka_unit_test(test_loader_selftest_fails),
        cmocka_unit_test(test_loader_compiled_out),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
