/*
 * test_multilabel.c - several labels a sample (multi_label=1): the file-list
 * and .cls parsers (separators, bad words, the limits, duplicates), the
 * index's memory (a single-label index unchanged), and through the loader:
 * every sample's label list and multi-hot row against the test's own record
 * of the lines it wrote, a replaced sample's labels its substitute's, MixUp
 * on multi-hot rows, rank shards, and 1 and 3 workers giving the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "dataset/index.h"
#include "dataset/tar.h"
#include "loader/mix.h"
#include "testutil.h"

#define NIMG 30
#define NCLASS 9 /* the labels the test writes: 0..8 */
#define MAXL 4
#define BATCH 7
#define SIDE 16

static char *data;
static feed__index folder; /* the generated images, by the folder scan */
static char list[4000], single[4000];
/* The record of what the test wrote: sample id -> its labels (the oracle). */
static int32_t want[NIMG + 1][MAXL];
static uint32_t nwant[NIMG + 1];
static uint64_t nsamples;

/* Line i's labels: 1..4 of them, distinct (4j mod 9 differ for j < 9),
 * every class 0..8 some line's first. */
static uint32_t line_labels(uint32_t i, int32_t *out)
{
    uint32_t k = 1 + (i * 7) % MAXL;
    for (uint32_t j = 0; j < k; j++)
        out[j] = (int32_t)((i * 5 + j * 4) % NCLASS);
    return k;
}

static void write_label_text(FILE *f, uint32_t i, const int32_t *l, uint32_t k)
{
    static const char *const seps[] = {" ", ",", " , ", "\t "};
    for (uint32_t j = 0; j < k; j++)
        fprintf(f, "%s%d", j ? seps[i % 4] : (i % 2 ? " " : "\t"), l[j]);
}

static int setup(void **state)
{
    data = tu_dataset("multilabel", NIMG, 5, 3, &folder);
    snprintf(list, sizeof list, "%s/multi.txt", data);
    snprintf(single, sizeof single, "%s/single.txt", data);
    FILE *f = fopen(list, "w"), *s = fopen(single, "w");
    fprintf(f, "# path label label ...\n\n");
    for (uint32_t i = 0; i < NIMG; i++) {
        nwant[i] = line_labels(i, want[i]);
        fprintf(f, "%s", feed__index_path(folder.hdr, i));
        write_label_text(f, i, want[i], nwant[i]);
        fprintf(f, "\n");
        fprintf(s, "%s %d\n", feed__index_path(folder.hdr, i), want[i][0]);
    }
    /* an image that does not decode: replaced by a substitute */
    char bad[4300];
    snprintf(bad, sizeof bad, "%s/bad.jpg", data);
    tu_write(bad, "not a jpeg at all", 17);
    fprintf(f, "bad.jpg 2 6\n");
    want[NIMG][0] = 2, want[NIMG][1] = 6, nwant[NIMG] = 2;
    nsamples = NIMG + 1;
    fclose(f);
    fclose(s);
    return 0;
}

static int teardown(void **state)
{
    feed__index_free(&folder);
    tu_rmtree(data);
    free(data);
    return 0;
}

static feed_status build(feed__index *ix, const char *path, uint32_t multi, char *err, size_t errlen)
{
    feed__index_spec s = {.source = path, .file_list = "", .multi_label = multi};
    return feed__index_build_spec(ix, &s, err, errlen);
}

static void test_index_labels_and_memory(void **state)
{
    char err[1024];
    feed__index m, s0, s1;
    assert_int_equal(build(&m, list, 1, err, sizeof err), FEED_OK);
    assert_int_equal(m.hdr->count, nsamples);
    assert_int_equal(m.hdr->nclasses, NCLASS);
    assert_int_equal(m.hdr->max_labels, MAXL);
    uint64_t extra = 0;
    for (uint64_t i = 0; i < nsamples; i++) {
        const int32_t *x;
        uint32_t n = feed__index_labels(m.hdr, i, &x);
        assert_int_equal(n, nwant[i]);
        assert_int_equal(feed__index_label(m.hdr, i), want[i][0]);
        for (uint32_t j = 1; j < n; j++)
            assert_int_equal(x[j - 1], want[i][j]);
        extra += n - 1;
    }
    assert_int_equal(m.hdr->nextra, extra);
    /* 4 bytes a sample (+1) and 4 an extra label past a single-label index */
    assert_int_equal(m.hdr->xlabels_off - m.hdr->xstarts_off, (nsamples + 1) * 4);
    /* A single-label list: the same index bytes with multi_label 0 and 1,
     * no label pool, 16 bytes a sample. */
    assert_int_equal(build(&s0, single, 0, err, sizeof err), FEED_OK);
    assert_int_equal(build(&s1, single, 1, err, sizeof err), FEED_OK);
    assert_int_equal(s0.hdr->total_bytes, s1.hdr->total_bytes);
    assert_memory_equal(s0.hdr, s1.hdr, s0.hdr->total_bytes);
    assert_int_equal(s0.hdr->nextra, 0);
    assert_int_equal(s0.hdr->max_labels, 1);
    assert_int_equal(s0.hdr->classes_off - s0.hdr->entries_off, (NIMG * 16 + 63) / 64 * 64);
    for (uint64_t i = 0; i < NIMG; i++) {
        const int32_t *x;
        assert_int_equal(feed__index_labels(s0.hdr, i, &x), 1);
        assert_null(x);
    }
    feed__index_free(&m);
    feed__index_free(&s0);
    feed__index_free(&s1);
}

/* The list "a.jpg <labels>" (one line) fails with multi_label, naming
 * line 1 and saying what. */
static void expect_list_error(const char *labels, uint32_t multi, const char *what)
{
    char p[4300], text[8192], err[1024];
    snprintf(p, sizeof p, "%s/bad-list.txt", data);
    snprintf(text, sizeof text, "a.jpg %s\n", labels);
    tu_write(p, text, strlen(text));
    feed__index ix;
    assert_int_equal(build(&ix, p, multi, err, sizeof err), FEED_E_DATASET);
    if (!strstr(err, "bad-list.txt:1: ") || !strstr(err, what))
        fail_msg("labels '%.60s': '%s' does not say '%s'", labels, err, what);
}

static void test_list_errors(void **state)
{
    expect_list_error("3 17", 0, "2 labels on one line: several labels a sample need multi_label=1");
    expect_list_error("3,17,42", 0, "3 labels on one line");
    expect_list_error("3 x7", 1, "label 'x7' is not a non-negative integer"); /* the path: "a.jpg 3" */
    expect_list_error("3,x7", 1, "label 'x7' is not a non-negative integer");
    expect_list_error("3 -1", 1, "label '-1' is not a non-negative integer");
    expect_list_error("3 2147483648", 1, "label 2147483648 is out of range: labels are 0..2147483647");
    expect_list_error("3 17 3", 1, "label 3 appears twice");
    expect_list_error("3,,4", 1, "an empty label between commas");
    expect_list_error("3,", 1, "an empty label between commas or at the end");
    expect_list_error(",3", 1, "an empty label before a comma");
    /* the limit: FEED_MAX_SAMPLE_LABELS labels pass, one more fails */
    char *many = malloc(8 * (FEED_MAX_SAMPLE_LABELS + 1) + 1), p[4300], err[1024];
    size_t o = 0;
    for (uint32_t i = 0; i < FEED_MAX_SAMPLE_LABELS; i++)
        o += (size_t)sprintf(many + o, "%s%u", i ? " " : "", i);
    snprintf(p, sizeof p, "%s/many.txt", data);
    FILE *f = fopen(p, "w");
    fprintf(f, "a.jpg %s\n", many);
    fclose(f);
    feed__index ix;
    assert_int_equal(build(&ix, p, 1, err, sizeof err), FEED_OK);
    assert_int_equal(ix.hdr->max_labels, FEED_MAX_SAMPLE_LABELS);
    assert_int_equal(ix.hdr->nclasses, FEED_MAX_SAMPLE_LABELS);
    assert_string_equal(feed__index_path(ix.hdr, 0), "a.jpg");
    feed__index_free(&ix);
    sprintf(many + o, " %u", FEED_MAX_SAMPLE_LABELS);
    char msg[64];
    snprintf(msg, sizeof msg, "more than %u labels", FEED_MAX_SAMPLE_LABELS);
    expect_list_error(many, 1, msg);
    free(many);
}

/* A shard: a.jpg + a.cls of several labels, b single, c with a duplicate,
 * d with a bad word; scanned with multi_label 0 and 1. */
static void test_tar_cls(void **state)
{
    static const struct {
        const char *name, *text;
    } m[] = {{"a.jpg", "img"}, {"a.cls", "3 17,42\n"}, {"b.jpg", "img"}, {"b.cls", "5"},
             {"c.jpg", "img"}, {"c.cls", "1 1"},       {"d.jpg", "img"}, {"d.cls", "4 x"}};
    char p[4300], err[1024];
    snprintf(p, sizeof p, "%s/s.tar", data);
    FILE *f = fopen(p, "w");
    for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
        uint8_t h[512], body[512] = {0};
        size_t n = strlen(m[i].text);
        assert_int_equal(feed__tar_header(h, m[i].name, n, 0), 0);
        memcpy(body, m[i].text, n);
        fwrite(h, 1, 512, f);
        fwrite(body, 1, 512, f);
    }
    uint8_t end[1024] = {0};
    fwrite(end, 1, sizeof end, f);
    fclose(f);
    char log[4400];
    snprintf(log, sizeof log, "%s/stderr.txt", data);
    for (uint32_t multi = 0; multi < 2; multi++) {
        feed__index ix;
        int saved = tu_stderr_to(log);
        feed_status st = build(&ix, p, multi, err, sizeof err);
        tu_stderr_back(saved);
        assert_int_equal(st, FEED_OK);
        size_t len;
        char *said = (char *)tu_read_file(log, &len);
        if (!multi) { /* a: several labels, skipped and reported naming its member */
            assert_int_equal(ix.hdr->count, 1);
            assert_int_equal(feed__index_label(ix.hdr, 0), 5);
            assert_non_null(strstr(said, "member 'a.cls' at offset 1024: 3 labels: several labels a sample need "
                                         "multi_label=1; sample 'a' skipped"));
        } else {
            assert_int_equal(ix.hdr->count, 2);
            const int32_t *x;
            assert_int_equal(feed__index_labels(ix.hdr, 0, &x), 3);
            assert_int_equal(feed__index_label(ix.hdr, 0), 3);
            assert_int_equal(x[0], 17);
            assert_int_equal(x[1], 42);
            assert_int_equal(feed__index_labels(ix.hdr, 1, &x), 1);
            assert_int_equal(feed__index_label(ix.hdr, 1), 5);
            assert_int_equal(ix.hdr->nclasses, 43);
            assert_non_null(strstr(said, "member 'c.cls' at offset 5120: label 1 appears twice; sample 'c' skipped"));
            assert_non_null(strstr(said, "member 'd.cls' at offset 7168: label 'x' is not a non-negative integer"));
        }
        assert_int_equal(ix.hdr->problems, multi ? 2 : 3);
        free(said);
        feed__index_free(&ix);
    }
}

static feed_loader *make(const char *extra)
{
    char base[160], err[1024];
    feed_loader *L;
    snprintf(base, sizeof base, "batch_size=%d,height=%d,width=%d,resize_shorter=20,seed=77,max_bad_fraction=1",
             BATCH, SIDE, SIDE);
    if (tu_loader(&L, list, base, extra, err, sizeof err) != FEED_OK)
        fail_msg("create (%s): %s", extra, err);
    return L;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
    return h;
}

/* Sample i's row by the definition: on at its labels, off elsewhere. */
static double own_value(uint64_t id, uint32_t k, double on, double off)
{
    for (uint32_t j = 0; j < nwant[id]; j++)
        if (want[id][j] == (int32_t)k)
            return on;
    return off;
}

/* One epoch: every batch's lists and rows against the record; returns a
 * hash of all it delivered; seen[id] counts each sample. */
static uint64_t check_epochs(const char *opts, uint32_t *seen, float smoothing, float mixup)
{
    feed_loader *L = make(opts);
    feed_batch b = {.struct_size = sizeof b};
    uint64_t h = 0xcbf29ce484222325ull;
    feed_status st;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK || st == FEED_END_OF_EPOCH) {
        if (st == FEED_END_OF_EPOCH)
            continue;
        assert_non_null(b.label_offsets);
        assert_non_null(b.label_list);
        assert_non_null(b.soft_labels);
        assert_int_equal(b.num_classes, NCLASS);
        assert_int_equal(b.label_offsets[0], 0);
        feed__mix_cfg c = {.seed = 77, .mode = FEED_MIX_BATCH, .mixup_alpha = mixup, .mix_p = 1,
                           .switch_p = 0.5f, .smoothing = smoothing, .num_classes = NCLASS, .h = SIDE, .w = SIDE};
        feed__mix_draw d[BATCH];
        if (mixup > 0)
            feed__mix_draw_batch(&c, b.epoch, b.index, b.count, d);
        double off = (double)smoothing / NCLASS, on = 1.0 - smoothing + off;
        for (uint32_t i = 0; i < b.count; i++) {
            uint64_t id = b.sample_ids[i];
            assert_true(id < nsamples);
            seen[id]++;
            uint32_t o0 = b.label_offsets[i], o1 = b.label_offsets[i + 1];
            assert_int_equal(o1 - o0, nwant[id]);
            assert_memory_equal(b.label_list + o0, want[id], 4 * nwant[id]);
            assert_int_equal(b.labels[i], want[id][0]);
            uint64_t pid = b.sample_ids[b.count - 1 - i];
            double lam = mixup > 0 ? d[i].lam : 1.0;
            for (uint32_t k = 0; k < NCLASS; k++) {
                double v = lam * own_value(id, k, on, off) + (1 - lam) * own_value(pid, k, on, off);
                /* the loader adds no terms for a class in both rows (on, exactly):
                 * lam * on + (1 - lam) * on may differ from on in the last bit */
                if (fabs(b.soft_labels[i * NCLASS + k] - v) > 1e-6)
                    fail_msg("sample %llu class %u: %.9g, want %.9g", (unsigned long long)id, k,
                             b.soft_labels[i * NCLASS + k], v);
            }
        }
        h = fnv(h, b.data, b.count * b.sample_bytes);
        h = fnv(h, b.soft_labels, 4ull * b.count * NCLASS);
        h = fnv(h, b.label_offsets, 4ull * (b.count + 1));
        h = fnv(h, b.label_list, 4ull * b.label_offsets[b.count]);
        h = fnv(h, b.sample_ids, 8ull * b.count);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    assert_int_equal(st, FEED_END_OF_DATA);
    feed_loader_destroy(L);
    return h;
}

/* The bad line's sample is replaced by another sample, whose labels it
 * brings: the record's list for the substitute's id, never the bad one's. */
static void test_rows_and_lists_workers(void **state)
{
    uint32_t seen1[NIMG + 1] = {0}, seen3[NIMG + 1] = {0};
    uint64_t a = check_epochs("workers=1,epochs=1,multi_label=1,shuffle=0", seen1, 0, 0);
    uint64_t b = check_epochs("workers=3,epochs=1,multi_label=1,shuffle=0", seen3, 0, 0);
    assert_int_equal(a, b);
    assert_memory_equal(seen1, seen3, sizeof seen1);
    assert_int_equal(seen1[NIMG], 0); /* the bad sample never delivered as itself */
    uint32_t total = 0, twice = 0;
    for (uint32_t i = 0; i < NIMG; i++) {
        assert_true(seen1[i] >= 1); /* every good sample, once, and the substitute's once more */
        total += seen1[i];
        twice += seen1[i] == 2;
    }
    assert_int_equal(total, nsamples);
    assert_int_equal(twice, 1);
}

static void test_replaced_flag(void **state)
{
    feed_loader *L = make("workers=2,epochs=1,multi_label=1,shuffle=0");
    feed_batch b = {.struct_size = sizeof b};
    uint32_t replaced = 0;
    while (feed_loader_next(L, &b, 60000) == FEED_OK) {
        for (uint32_t i = 0; i < b.count; i++)
            if (b.flags[i] & FEED_SAMPLE_REPLACED) {
                replaced++;
                uint64_t id = b.sample_ids[i];
                assert_true(id < NIMG);
                assert_int_equal(b.label_offsets[i + 1] - b.label_offsets[i], nwant[id]);
                assert_memory_equal(b.label_list + b.label_offsets[i], want[id], 4 * nwant[id]);
            }
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    feed_loader_destroy(L);
    assert_int_equal(replaced, 1);
}

static void test_mixup_smoothing_ranks(void **state)
{
    uint32_t seen[NIMG + 1] = {0}, seen0[NIMG + 1] = {0}, seen1[NIMG + 1] = {0};
    check_epochs("workers=2,epochs=1,multi_label=1,augment=train,mixup_alpha=0.4,label_smoothing=0.1", seen, 0.1f,
                 0.4f);
    check_epochs("workers=2,epochs=1,multi_label=1,world_size=2,rank=0,drop_last=0", seen0, 0, 0);
    check_epochs("workers=2,epochs=1,multi_label=1,world_size=2,rank=1,drop_last=0", seen1, 0, 0);
    uint32_t n0 = 0, n1 = 0;
    for (uint32_t i = 0; i < NIMG; i++)
        n0 += seen0[i], n1 += seen1[i];
    assert_int_equal(n0 + n1 >= nsamples, 1); /* the ranks together: every sample */
    for (uint32_t i = 0; i < NIMG; i++)
        assert_true(seen0[i] + seen1[i] >= 1);
}

/* The multi-hot rows of one-label lists are the one-hot rows, bit for bit. */
static void test_multi_hot_is_one_hot_for_one_label(void **state)
{
    enum { N = 7 };
    feed__mix_cfg c = {.seed = 3, .mode = FEED_MIX_ELEM, .mixup_alpha = 0.5f, .cutmix_alpha = 0.5f, .mix_p = 1,
                       .switch_p = 0.5f, .smoothing = 0.1f, .num_classes = 10, .h = 8, .w = 8};
    int32_t labels[N] = {0, 3, 9, 3, 5, 1, 0};
    uint32_t offs[N + 1];
    for (uint32_t i = 0; i <= N; i++)
        offs[i] = i;
    feed__mix_draw d[N];
    feed__mix_draw_batch(&c, 2, 1, N, d);
    float a[N * 10], b[N * 10];
    uint32_t bad = 99;
    for (int with = 0; with < 2; with++) {
        assert_int_equal(feed__mix_soft_labels(&c, with ? d : NULL, labels, N, a, &bad), 0);
        assert_int_equal(feed__mix_multi_hot(&c, with ? d : NULL, offs, labels, N, b, &bad), 0);
        assert_memory_equal(a, b, sizeof a);
    }
    int32_t two[] = {1, 2, 10};
    uint32_t o2[] = {0, 2, 3};
    assert_int_equal(feed__mix_multi_hot(&c, NULL, o2, two, 2, b, &bad), -1);
    assert_int_equal(bad, 1);
}

static void test_create_refuses(void **state)
{
    feed_options o;
    char err[1024];
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", list);
    o.height = o.width = SIDE;
    feed_loader *L = NULL;
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_E_DATASET);
    uint32_t first = 0; /* the first line with several labels: after a comment and a blank line */
    while (nwant[first] < 2)
        first++;
    char msg[128];
    snprintf(msg, sizeof msg, "multi.txt:%u: %u labels on one line", first + 3, nwant[first]);
    if (!strstr(err, msg))
        fail_msg("'%s' does not say '%s'", err, msg);
    assert_int_equal(feed_options_set(&o, "multi_label", "2", err, sizeof err), FEED_E_INVALID);
    o.multi_label = 2;
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "multi_label=2 must be 0 or 1"));
    o.multi_label = 1;
    o.num_classes = 5;
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "num_classes=5: sample"));
}

/* A caller whose feed_batch ends before label_offsets (struct_size says so)
 * gets the multi-hot rows and nothing written past its struct; without
 * multi_label the lists are NULL. */
static void test_struct_size_and_off(void **state)
{
    feed_loader *L = make("workers=1,epochs=1,multi_label=1");
    union {
        feed_batch b;
        unsigned char bytes[sizeof(feed_batch) + 64];
    } u;
    memset(&u, 0xA5, sizeof u);
    size_t short_size = offsetof(feed_batch, label_offsets);
    u.b.struct_size = (uint32_t)short_size;
    assert_int_equal(feed_loader_next(L, &u.b, 60000), FEED_OK);
    assert_non_null(u.b.soft_labels);
    assert_int_equal(u.b.num_classes, NCLASS);
    for (size_t i = short_size; i < sizeof u; i++)
        assert_int_equal(u.bytes[i], 0xA5);
    assert_int_equal(feed_batch_release(L, &u.b, NULL), FEED_OK);
    feed_loader_destroy(L);

    feed_options o;
    char err[1024];
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", single);
    o.batch_size = BATCH;
    o.height = o.width = SIDE;
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_OK);
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_null(b.label_offsets);
    assert_null(b.label_list);
    assert_null(b.soft_labels);
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    feed_loader_destroy(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_labels_and_memory),
        cmocka_unit_test(test_list_errors),
        cmocka_unit_test(test_tar_cls),
        cmocka_unit_test(test_multi_hot_is_one_hot_for_one_label),
        cmocka_unit_test(test_create_refuses),
        cmocka_unit_test(test_rows_and_lists_workers),
        cmocka_unit_test(test_replaced_flag),
        cmocka_unit_test(test_mixup_smoothing_ranks),
        cmocka_unit_test(test_struct_size_and_off),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
