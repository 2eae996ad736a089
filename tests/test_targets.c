/*
 * test_targets.c - per-sample target vectors (the targets option): row i of a
 * .npy delivered with sample i, whatever the order, the worker count or a
 * replacement; the conversions at load; every malformed file refused at
 * create naming it. The expected rows come from the formula the test wrote
 * the file with, not from the loader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "dataset/tar.h"
#include "testutil.h"

#define NIMG 24
#define BASE "batch_size=5,height=24,width=24,resize_shorter=28,seed=9,workers=2,device=host,shuffle=1"

static char *data;
static feed__index ix;

static float f32_at(uint64_t i, uint32_t k)
{
    return k == 0 ? (float)i * 0.5f : k == 1 ? -(float)i : 1000.0f + (float)i;
}

static int64_t i64_at(uint64_t i, uint32_t k)
{
    return k == 0 ? (int64_t)i : -7 * (int64_t)i - 3000000000ll * (int64_t)(i % 2);
}

static char *path_of(const char *name)
{
    char *p = malloc(4200);
    snprintf(p, 4200, "%s/%s", data, name);
    return p;
}

static int setup(void **state)
{
    data = tu_dataset("targets", NIMG, 13, 3, &ix);
    return 0;
}

static int teardown(void **state)
{
    feed__index_free(&ix);
    tu_rmtree(data);
    free(data);
    return 0;
}

/* Runs epochs of a loader over source with targets=tpath and checks every
 * row against want(id, k), every sample once an epoch; returns the samples
 * seen replaced. */
static uint32_t run(const char *source, const char *tpath, const char *extra, uint32_t epochs, uint64_t n,
                    uint32_t dim, uint32_t dtype)
{
    char opts[5000], err[1024];
    snprintf(opts, sizeof opts, "targets=%s,epochs=%u%s%s", tpath, epochs, extra[0] ? "," : "", extra);
    feed_loader *L;
    if (tu_loader(&L, source, BASE, opts, err, sizeof err) != FEED_OK)
        fail_msg("create: %s", err);
    uint32_t replaced = 0;
    for (uint32_t e = 0; e < epochs; e++) {
        uint32_t seen = 0;
        feed_batch b = {.struct_size = sizeof b};
        feed_status s;
        while ((s = feed_loader_next(L, &b, 60000)) == FEED_OK) {
            assert_non_null(b.targets);
            assert_null(b.targets_device);
            assert_int_equal(b.target_dim, dim);
            assert_int_equal(b.target_dtype, dtype);
            for (uint32_t i = 0; i < b.count; i++) {
                uint64_t id = b.sample_ids[i];
                for (uint32_t k = 0; k < dim; k++) {
                    if (dtype == FEED_TARGET_FLOAT32) {
                        float got = ((const float *)b.targets)[i * dim + k];
                        if (dim == 1)
                            assert_true(got == (float)((double)id / 3.0));
                        else
                            assert_true(got == f32_at(id, k));
                    } else {
                        assert_int_equal(((const int64_t *)b.targets)[i * dim + k], i64_at(id, k));
                    }
                }
                replaced += (b.flags[i] & FEED_SAMPLE_REPLACED) != 0;
            }
            seen += b.count;
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
        }
        assert_int_equal(s, FEED_END_OF_EPOCH);
        assert_int_equal(seen, n);
    }
    feed_loader_destroy(L);
    return replaced;
}

static void test_float32_rows(void **state)
{
    float *v = malloc(NIMG * 3 * sizeof *v);
    for (uint32_t i = 0; i < NIMG; i++)
        for (uint32_t k = 0; k < 3; k++)
            v[i * 3 + k] = f32_at(i, k);
    char *p = path_of("t32.npy");
    char dict[128];
    snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 3), }", NIMG);
    tu_npy_write(p, dict, v, NIMG * 3 * sizeof *v);
    run(data, p, "", 2, NIMG, 3, FEED_TARGET_FLOAT32);
    run(data, p, "workers=1,shuffle=0", 1, NIMG, 3, FEED_TARGET_FLOAT32);
    free(v), free(p);
}

/* float64 (N,) rounded to float32, K = 1; big-endian int32 (N, 2) widened to int64. */
static void test_conversions(void **state)
{
    double *d = malloc(NIMG * sizeof *d);
    for (uint32_t i = 0; i < NIMG; i++)
        d[i] = (double)i / 3.0;
    char *p = path_of("t64.npy"), dict[128];
    snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }", NIMG);
    tu_npy_write(p, dict, d, NIMG * sizeof *d);
    run(data, p, "", 1, NIMG, 1, FEED_TARGET_FLOAT32);
    free(p), free(d);

    uint8_t *be = malloc(NIMG * 2 * 4);
    for (uint32_t i = 0; i < NIMG; i++)
        for (uint32_t k = 0; k < 2; k++) {
            uint32_t u = (uint32_t)(int32_t)(k == 0 ? (int64_t)i : -7 * (int64_t)i);
            for (int q = 0; q < 4; q++)
                be[(i * 2 + k) * 4 + q] = (uint8_t)(u >> (24 - 8 * q));
        }
    p = path_of("ti32.npy");
    snprintf(dict, sizeof dict, "{'descr': '>i4', 'fortran_order': False, 'shape': (%d, 2), }", NIMG);
    tu_npy_write(p, dict, be, NIMG * 2 * 4);
    /* i64_at's second column has -3e9 on odd ids, which no int32 holds: check the first
     * column, and the second by hand below */
    char opts[5000], err[1024];
    snprintf(opts, sizeof opts, "targets=%s", p);
    feed_loader *L;
    assert_int_equal(tu_loader(&L, data, BASE, opts, err, sizeof err), FEED_OK);
    feed_batch b = {.struct_size = sizeof b};
    uint32_t seen = 0;
    while (feed_loader_next(L, &b, 60000) == FEED_OK) {
        assert_int_equal(b.target_dtype, FEED_TARGET_INT64);
        assert_int_equal(b.target_dim, 2);
        for (uint32_t i = 0; i < b.count; i++) {
            const int64_t *row = (const int64_t *)b.targets + i * 2;
            assert_int_equal(row[0], (int64_t)b.sample_ids[i]);
            assert_int_equal(row[1], -7 * (int64_t)b.sample_ids[i]);
        }
        seen += b.count;
        feed_batch_release(L, &b, NULL);
    }
    assert_int_equal(seen, NIMG);
    feed_loader_destroy(L);
    free(p), free(be);

    /* int64 as it is, values beyond int32 */
    int64_t *w = malloc(NIMG * 2 * sizeof *w);
    for (uint32_t i = 0; i < NIMG; i++)
        for (uint32_t k = 0; k < 2; k++)
            w[i * 2 + k] = i64_at(i, k);
    p = path_of("ti64.npy");
    snprintf(dict, sizeof dict, "{'descr': '<i8', 'fortran_order': False, 'shape': (%d, 2), }", NIMG);
    tu_npy_write(p, dict, w, NIMG * 2 * sizeof *w);
    run(data, p, "", 1, NIMG, 2, FEED_TARGET_INT64);
    free(p), free(w);
}

/* A sample that does not decode is replaced; it carries its substitute's
 * row (the delivered id's), never its own. */
static void test_substitute_keeps_its_row(void **state)
{
    feed__index bix;
    char *dir = tu_dataset("targetsbad", NIMG, 13, 3, &bix);
    feed__index_free(&bix);
    char bad[8700], first[4300];
    snprintf(first, sizeof first, "%s", feed__index_path(ix.hdr, 0));
    *strrchr(first, '/') = 0;
    snprintf(bad, sizeof bad, "%s/%s/zz_broken.jpg", dir, first);
    tu_write(bad, "\xff\xd8\xff not a jpeg", 14);
    float *v = malloc((NIMG + 1) * 3 * sizeof *v);
    for (uint32_t i = 0; i <= NIMG; i++)
        for (uint32_t k = 0; k < 3; k++)
            v[i * 3 + k] = f32_at(i, k);
    char p[4300], dict[128];
    snprintf(p, sizeof p, "%s/t.npy", dir);
    snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 3), }", NIMG + 1);
    tu_npy_write(p, dict, v, (NIMG + 1) * 3 * sizeof *v);
    assert_int_equal(run(dir, p, "report_bad=0", 2, NIMG + 1, 3, FEED_TARGET_FLOAT32), 2);
    tu_rmtree(dir);
    free(dir), free(v);
}

/* Every malformed file fails create, naming the file and what is wrong. */
static void test_refused(void **state)
{
    static const struct {
        const char *dict;
        size_t len;
        const char *says;
    } bad[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (23, 3), }", 23 * 12, "23 rows of targets for 24 samples"},
        {"{'descr': '|u1', 'fortran_order': False, 'shape': (24, 3), }", 24 * 3, "targets must be float32, float64"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (24, 3), }", 24 * 12, "Fortran order"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (24, 3, 2), }", 24 * 24, "shape (N,) or (N, K)"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (24, 0), }", 0, "K must be in 1.."},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (24, 3), }", 24 * 12 - 4, "truncated"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (24, 3), }", 24 * 12 + 4, "more than its header"},
    };
    uint8_t *zeros = calloc(1, 24 * 24 + 64);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *p = path_of("bad.npy"), opts[5000], err[1024];
        tu_npy_write(p, bad[i].dict, zeros, bad[i].len);
        snprintf(opts, sizeof opts, "targets=%s", p);
        feed_loader *L;
        assert_int_equal(tu_loader(&L, data, BASE, opts, err, sizeof err), FEED_E_DATASET);
        assert_null(L);
        print_message("%s\n", err);
        assert_non_null(strstr(err, p));
        assert_non_null(strstr(err, bad[i].says));
        free(p);
    }
    free(zeros);
    char opts[5000], err[1024];
    snprintf(opts, sizeof opts, "targets=%s/missing.npy", data);
    feed_loader *L;
    assert_int_equal(tu_loader(&L, data, BASE, opts, err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "missing.npy"));
    /* without the option: nothing */
    assert_int_equal(tu_loader(&L, data, BASE, "", err, sizeof err), FEED_OK);
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_null(b.targets);
    assert_int_equal(b.target_dim, 0);
    assert_int_equal(b.target_dtype, FEED_TARGET_NONE);
    feed_batch_release(L, &b, NULL);
    feed_loader_destroy(L);
}

/* A .csv or .tsv list with a header: the path and label columns found by
 * name, target_columns' values as float32 rows, quoted fields, a BOM. */
static void write_csv(const char *path, const char *head, const char *fmt_row)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "%s\n", head);
    for (uint32_t i = 0; i < NIMG; i++) {
        int32_t l = feed__index_label(ix.hdr, i);
        fprintf(f, fmt_row, feed__index_path(ix.hdr, i), l, (double)f32_at(i, 0), (double)f32_at(i, 2));
        fputc('\n', f);
    }
    fclose(f);
}

static void csv_run(const char *list, const char *extra, int labelled, int multi)
{
    char opts[5000], err[1024];
    snprintf(opts, sizeof opts, "epochs=1%s%s", extra[0] ? "," : "", extra);
    feed_loader *L;
    if (tu_loader(&L, list, BASE, opts, err, sizeof err) != FEED_OK)
        fail_msg("create: %s", err);
    feed_batch b = {.struct_size = sizeof b};
    uint32_t seen = 0;
    while (feed_loader_next(L, &b, 60000) == FEED_OK) {
        assert_int_equal(b.target_dim, 2);
        assert_int_equal(b.target_dtype, FEED_TARGET_FLOAT32);
        for (uint32_t i = 0; i < b.count; i++) {
            uint64_t id = b.sample_ids[i]; /* line order: sample i is data's sample i */
            const float *row = (const float *)b.targets + i * 2;
            assert_true(row[0] == f32_at(id, 0) && row[1] == f32_at(id, 2));
            assert_int_equal(b.labels[i], labelled ? feed__index_label(ix.hdr, id) : 0);
            if (multi) {
                int32_t l = feed__index_label(ix.hdr, id);
                assert_int_equal(b.label_offsets[i + 1] - b.label_offsets[i], 2);
                assert_int_equal(b.label_list[b.label_offsets[i] + 1], (l + 1) % 3);
            }
        }
        seen += b.count;
        feed_batch_release(L, &b, NULL);
    }
    assert_int_equal(seen, NIMG);
    feed_loader_destroy(L);
}

static void test_csv_columns(void **state)
{
    char *csv = path_of("list.csv"), *tsv = path_of("list.tsv"), *multi = path_of("multi.csv");
    write_csv(csv, "filename,label,x,ignored,y", "%s,%d,%.9g,zz,%.9g");
    csv_run(csv, "target_columns=x:y", 1, 0);
    /* a BOM, a tab, names in another order and case, the path quoted */
    FILE *f = fopen(tsv, "w");
    fputs("\xef\xbb\xbfx\ty\tPath\n", f);
    for (uint32_t i = 0; i < NIMG; i++)
        fprintf(f, "%.9g\t%.9g\t\"%s\"\n", (double)f32_at(i, 0), (double)f32_at(i, 2), feed__index_path(ix.hdr, i));
    fclose(f);
    csv_run(tsv, "target_columns=x:y", 0, 0); /* no label column: 0 */
    f = fopen(multi, "w");
    fputs("path,labels,x,y\n", f);
    for (uint32_t i = 0; i < NIMG; i++) {
        int32_t l = feed__index_label(ix.hdr, i);
        fprintf(f, "%s,\"%d,%d\",%.9g,%.9g\n", feed__index_path(ix.hdr, i), l, (l + 1) % 3, (double)f32_at(i, 0),
                (double)f32_at(i, 2));
    }
    fclose(f);
    csv_run(multi, "target_columns=x:y,multi_label=1", 1, 1);
    free(csv), free(tsv), free(multi);
}

/* Each broken list, or option, fails create naming the file, line and column. */
static void test_csv_refused(void **state)
{
    static const struct {
        const char *text, *opts, *says;
    } bad[] = {
        {"file_x,label\na.jpg,1\n", "", "no path column in the header ('file_x', 'label')"},
        {"path,label,x\na.jpg,1,0.5\n", "target_columns=x:w", "target_columns names 'w', which the header"},
        {"path,label,x\na.jpg,1,0.5\nb.jpg,2\n", "target_columns=x", "list.csv:3: another number of fields"},
        {"path,label,x\na.jpg,1,abc\n", "target_columns=x", "list.csv:2: target column 0 holds 'abc'"},
        {"path,label\n\"a.jpg,1\n", "", "list.csv:2: malformed fields"},
        {"path,label\na.jpg,\"1,2\"\n", "", "2 labels in one cell: several labels a sample need multi_label=1"},
        {"path,label,x\na.jpg,1,2\n", "target_columns=x,targets=/nonexistent.npy", "set one of them"},
    };
    char *csv = path_of("list.csv");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tu_write(csv, bad[i].text, strlen(bad[i].text));
        feed_loader *L;
        char err[1024];
        assert_int_not_equal(tu_loader(&L, csv, BASE, bad[i].opts, err, sizeof err), FEED_OK);
        print_message("%s\n", err);
        assert_non_null(strstr(err, bad[i].says));
    }
    /* named columns need a header */
    char *txt = path_of("list.txt");
    tu_write(txt, "a.jpg 1\n", 8);
    feed_loader *L;
    char err[1024];
    assert_int_equal(tu_loader(&L, txt, BASE, "target_columns=x", err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "only a .csv or .tsv file list has named columns"));
    assert_int_equal(tu_loader(&L, data, BASE, "target_columns=x", err, sizeof err), FEED_E_INVALID);
    free(csv), free(txt);
}

/* One member into a tar being written: header, data, padding. */
/* A .npy of k values in memory (version 1.0), as numpy writes one. */
static size_t npy_bytes(uint8_t *out, const char *descr, uint32_t k, const void *data, size_t n)
{
    char dict[128];
    int dl = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%u,), }", descr, k);
    size_t hlen = (10 + (size_t)dl + 1 + 63) / 64 * 64 - 10;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (uint8_t)hlen, out[9] = (uint8_t)(hlen >> 8);
    memset(out + 10, ' ', hlen - 1);
    memcpy(out + 10, dict, (size_t)dl);
    out[10 + hlen - 1] = '\n';
    memcpy(out + 10 + hlen, data, n);
    return 10 + hlen + n;
}

/* target_member=npy: each sample's KEY.npy of a tar shard is its row; a
 * sample without one, or with another K or kind, is reported and skipped. */
static void test_shard_members(void **state)
{
    char *shard = path_of("t-000000.tar");
    FILE *f = fopen(shard, "wb");
    for (uint32_t i = 0; i < NIMG; i++) {
        char name[64], src[8700], cls[16];
        size_t n;
        snprintf(src, sizeof src, "%s/%s", data, feed__index_path(ix.hdr, i));
        uint8_t *img = tu_read_file(src, &n), npy[256];
        snprintf(name, sizeof name, "s%03u.jpg", i);
        assert_int_equal(tu_tar_member(f, name, img, n), 0);
        free(img);
        snprintf(name, sizeof name, "s%03u.cls", i);
        snprintf(cls, sizeof cls, "%d", feed__index_label(ix.hdr, i));
        assert_int_equal(tu_tar_member(f, name, cls, strlen(cls)), 0);
        float v[3] = {f32_at(i, 0), f32_at(i, 2), 9.0f};
        int64_t w[2] = {1, 2};
        snprintf(name, sizeof name, "s%03u.npy", i);
        if (i == 5)
            continue; /* no target: skipped */
        if (i == 7)
            n = npy_bytes(npy, "<f4", 3, v, sizeof v); /* K = 3, the others 2: skipped */
        else if (i == 9)
            n = npy_bytes(npy, "<i8", 2, w, sizeof w); /* int where the first was float: skipped */
        else
            n = npy_bytes(npy, "<f4", 2, v, 2 * sizeof *v);
        assert_int_equal(tu_tar_member(f, name, npy, n), 0);
    }
    uint8_t end[1024] = {0};
    fwrite(end, 1, sizeof end, f);
    fclose(f);

    char opts[5000], err[1024];
    snprintf(opts, sizeof opts, "target_member=npy,epochs=1,report_bad=0");
    feed_loader *L;
    char *said = path_of("stderr.txt");
    int saved = tu_stderr_to(said);
    feed_status st = tu_loader(&L, shard, BASE, opts, err, sizeof err);
    tu_stderr_back(saved);
    if (st != FEED_OK)
        fail_msg("create: %s", err);
    size_t len;
    char *text = (char *)tu_read_file(said, &len);
    text = realloc(text, len + 1);
    text[len] = 0;
    assert_non_null(strstr(text, "sample 's005' has no target member (s005.npy); skipped"));
    assert_non_null(strstr(text, "member 's007.npy'"));
    assert_non_null(strstr(text, "a target '<i8' of 2 values"));
    free(text), free(said);
    assert_int_equal(feed_loader_num_samples(L), NIMG - 3);
    feed_batch b = {.struct_size = sizeof b};
    uint32_t seen = 0;
    while (feed_loader_next(L, &b, 60000) == FEED_OK) {
        assert_int_equal(b.target_dim, 2);
        assert_int_equal(b.target_dtype, FEED_TARGET_FLOAT32);
        for (uint32_t i = 0; i < b.count; i++) {
            char path[8700];
            int32_t label;
            assert_int_equal(feed_loader_sample_info(L, b.sample_ids[i], path, sizeof path, &label), FEED_OK);
            const char *key = strrchr(path, ':'); /* SHARD.tar:KEY */
            assert_non_null(key);
            unsigned k = (unsigned)atoi(key + 2);
            assert_true(k != 5 && k != 7 && k != 9);
            const float *row = (const float *)b.targets + i * 2;
            assert_true(row[0] == f32_at(k, 0) && row[1] == f32_at(k, 2));
            assert_int_equal(label, feed__index_label(ix.hdr, k));
        }
        seen += b.count;
        feed_batch_release(L, &b, NULL);
    }
    assert_int_equal(seen, NIMG - 3);
    feed_loader_destroy(L);
    /* on a folder: refused, naming why */
    assert_int_equal(tu_loader(&L, data, BASE, "target_member=npy", err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "only tar shards have members"));
    snprintf(opts, sizeof opts, "target_member=npy,targets=%s/x.npy", data);
    assert_int_equal(tu_loader(&L, shard, BASE, opts, err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "set one of them"));
    free(shard);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float32_rows),
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_substitute_keeps_its_row),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_csv_columns),
        cmocka_unit_test(test_csv_refused),
        cmocka_unit_test(test_shard_members),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
