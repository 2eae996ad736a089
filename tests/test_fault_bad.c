/*
 * test_fault_bad.c - bad samples never crash anything and are reported.
 *
 * A corpus of bad files sits among good ones: a JPEG truncated at many
 * offsets, zero bytes, a PNG named .jpg, random bytes (with and without a
 * JPEG start marker), a header declaring 60000x60000 pixels, a file over
 * max_file_bytes, and (file-list datasets) a missing file and a directory.
 *
 * bad_policy=replace: every position of every epoch holds either its own
 * sample or, for a bad one, the first good sample of its deterministic
 * substitute sequence, flagged; pixels within 1 of the reference pipeline
 * (test_image_util.c: TurboJPEG, float64 resample; no pixel code of the
 * library) for what is there; one report per bad sample and epoch with its
 * path, status, reason, epoch and batch; counters agree. The ids are checked
 * by properties, not by the sampler or the substitute search themselves (their
 * own tests, test_sampler and test_substitute, hold their golden values):
 * every id once per epoch, a good stand-in that changes with the epoch, the
 * same stand-ins whatever the worker count.
 * bad_policy=fail: next() returns the first bad sample's status for each
 * batch holding one, with path and reason in last_error; the next call
 * delivers that batch, replaced and flagged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "faultutil.h"
#include "test_image_util.h"

#define NGOOD 24

typedef struct bad_kind {
    char name[64];
    int status;         /* what the report must say */
    const char *needle; /* in the report's message */
    int sys_errno;
} bad_kind;

static bad_kind kinds[64];
static int nkinds;
static uint8_t is_bad[FU_MAX_N];
static uint64_t max_file_bytes;
/* What the first run_replace saw (have_seen): the stand-in of each bad id per
 * epoch and each epoch's order of the original ids, for the runs after it. */
static uint64_t seen_sub[2][FU_MAX_N];
static uint64_t seen_order[2][FU_MAX_N];
static int have_seen;

static void add_kind(const char *name, int status, const char *needle)
{
    bad_kind *k = &kinds[nkinds++];
    snprintf(k->name, sizeof k->name, "%s", name);
    k->status = status;
    k->needle = needle;
}

static void write_bad(const char *name, const void *data, size_t len, int status, const char *needle)
{
    char p[4200];
    /* spread over the class folders */
    snprintf(p, sizeof p, "%s/class_%03d/%s", fu_data, nkinds % 3, name);
    tu_write(p, data, len);
    add_kind(name, status, needle);
}

static int setup(void **state)
{
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    fu_data = tu_mkdtemp("fbad");
    if (tu_mkdata(fu_data, NGOOD, 5, 3) != 0) {
        fprintf(stderr, "feed-mkdata failed\n");
        exit(1);
    }
    char p[4200];
    snprintf(p, sizeof p, "%s/class_000/img_000000.jpg", fu_data);
    size_t len;
    uint8_t *good = fu_read(p, &len);
    /* the largest good file sets the size limit */
    uint64_t maxlen = 0;
    for (int i = 0; i < NGOOD; i++) {
        struct stat sb;
        snprintf(p, sizeof p, "%s/class_%03d/img_%06d.jpg", fu_data, i % 3, i);
        if (stat(p, &sb) != 0)
            exit(1);
        if ((uint64_t)sb.st_size > maxlen)
            maxlen = (uint64_t)sb.st_size;
    }
    max_file_bytes = maxlen + 4096;

    static const size_t cuts[] = {1, 2, 3, 11, 60, 200, 623, 1500, 4000};
    char name[64];
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        snprintf(name, sizeof name, "bad_trunc_%zu.jpg", cuts[i]);
        write_bad(name, good, cuts[i], FEED_E_DECODE, "Premature end");
    }
    static const size_t tail_cuts[] = {2, 1, 100, 0};
    for (size_t i = 0; i < sizeof tail_cuts / sizeof tail_cuts[0]; i++) {
        size_t n = tail_cuts[i] ? len - tail_cuts[i] : len / 2;
        snprintf(name, sizeof name, "bad_trunc_end%zu.jpg", tail_cuts[i]);
        write_bad(name, good, n, FEED_E_DECODE, "Premature end");
    }
    write_bad("bad_zero.jpg", "", 0, FEED_E_DECODE, "Empty input");
    static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D',
                                  'R', 0, 0, 0, 16, 0, 0, 0, 16, 8, 2, 0, 0, 0, 0x90, 0x91, 0x68, 0x36};
    /* PNG bytes called .jpg decode as PNG (the bytes decide): this one ends
     * after its header, and the report says so, through the worker and the arena */
    write_bad("bad_png.jpg", png, sizeof png, FEED_E_DECODE, "PNG: end of stream");
    uint8_t rnd[3000];
    uint64_t x = 12345;
    for (size_t i = 0; i < sizeof rnd; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        rnd[i] = (uint8_t)(x >> 56);
    }
    rnd[0] = 0x12;
    write_bad("bad_random.jpg", rnd, sizeof rnd, FEED_E_DECODE, "Not a JPEG");
    rnd[0] = 0xff, rnd[1] = 0xd8; /* SOI, then noise */
    write_bad("bad_soi_random.jpg", rnd, sizeof rnd, FEED_E_DECODE, "marker");
    /* 60000 x 60000 declared in the frame header */
    uint8_t *huge = malloc(len);
    memcpy(huge, good, len);
    size_t sof = 0;
    for (size_t i = 2; i + 9 < len; i++)
        if (huge[i] == 0xff && (huge[i + 1] == 0xc0 || huge[i + 1] == 0xc2)) {
            sof = i;
            break;
        }
    if (!sof)
        exit(1);
    huge[sof + 5] = 0xea, huge[sof + 6] = 0x60, huge[sof + 7] = 0xea, huge[sof + 8] = 0x60;
    write_bad("bad_huge.jpg", huge, len, FEED_E_TOO_LARGE, "max_pixels");
    free(huge);
    /* a good image, padded past max_file_bytes */
    uint8_t *big = calloc(1, max_file_bytes + 100);
    memcpy(big, good, len);
    write_bad("bad_big.jpg", big, max_file_bytes + 100, FEED_E_TOO_LARGE, "over the limit");
    free(big);
    free(good);

    char err[512];
    if (feed__index_build(&fu_ix, fu_data, "", err, sizeof err) != FEED_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    for (int k = 0; k < nkinds; k++)
        is_bad[fu_id_of(kinds[k].name)] = 1;
    return 0;
}

static int teardown(void **state)
{
    fu_teardown_data();
    return 0;
}

static const bad_kind *kind_of(uint64_t id)
{
    const char *n = fu_name(id);
    for (int k = 0; k < nkinds; k++)
        if (!strcmp(kinds[k].name, n))
            return &kinds[k];
    return NULL;
}

/* The pixels of id in epoch against the reference pipeline: the loaders
 * here decode at 8/8 (roi_decode=0), where the library is within 1 of it.
 * Counts the flips seen (the reference tries both orientations). */
static void check_pixels(feed_loader *L, uint64_t epoch, uint64_t id, const uint8_t *got, uint32_t *flips)
{
    char p[8400];
    snprintf(p, sizeof p, "%s/%s", fu_ix.hdr->root, feed__index_path(fu_ix.hdr, id));
    size_t len;
    uint8_t *b = fu_read(p, &len);
    double mean;
    int flipped = 0;
    double mx = ti_compare_ref(got, b, len, feed__loader_xform(L), FU_SEED, epoch, id, &mean, &flipped);
    free(b);
    if (mx > 1)
        fail_msg("%s, epoch %llu: max err %g (mean %g) against the reference", fu_name(id),
                 (unsigned long long)epoch, mx, mean);
    *flips += (uint32_t)flipped;
}

static void check_report(const feed_bad_sample *r, uint64_t epoch, uint64_t batch)
{
    const bad_kind *k = kind_of(r->sample_id);
    if (getenv("FU_VERBOSE"))
        print_message("%s: %s: %s\n", fu_name(r->sample_id), feed_status_name(r->status), r->message);
    if (!k)
        fail_msg("report for good sample %s", fu_name(r->sample_id));
    char want[8400];
    snprintf(want, sizeof want, "%s/%s", fu_ix.hdr->root, feed__index_path(fu_ix.hdr, r->sample_id));
    assert_string_equal(r->path, want);
    assert_int_equal(r->epoch, epoch);
    assert_int_equal(r->batch, batch);
    if (r->status != k->status || !r->message[0] || !strstr(r->message, k->needle))
        fail_msg("%s: report %s '%s', want %s with '%s'", k->name, feed_status_name(r->status), r->message,
                 feed_status_name(k->status), k->needle);
    assert_int_equal(r->sys_errno, k->sys_errno);
}

static void run_replace(uint32_t workers)
{
    char opts[256];
    const uint32_t epochs = 2;
    snprintf(opts, sizeof opts, "workers=%u,max_file_bytes=%llu,epochs=%u,max_bad_fraction=0.5,roi_decode=0",
             workers, (unsigned long long)max_file_bytes, epochs);
    feed_loader *L = fu_make(opts, NULL);
    uint64_t n = fu_nsamples(), nbad = (uint64_t)nkinds;
    assert_int_equal(feed_loader_samples_per_epoch(L), n); /* epoch length is fixed */
    uint64_t ids[FU_BATCH], sub[2][FU_MAX_N] = {{0}}, order[2][FU_MAX_N] = {{0}};
    uint64_t seen_reports = 0, replaced = 0, checked = 0;
    uint32_t flips = 0;
    for (uint32_t e = 0; e < epochs; e++) {
        feed_batch b = {.struct_size = sizeof b};
        feed_status st;
        uint64_t nb = 0, pos = 0;
        uint8_t once[FU_MAX_N] = {0};
        while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
            assert_int_equal(b.count, pos + FU_BATCH <= n ? FU_BATCH : n - pos); /* the shape stays */
            /* The reports of this batch are in the list now, in the order of
             * the replaced positions: they name the original ids there. */
            uint32_t bad_here = 0;
            for (uint32_t i = 0; i < b.count; i++)
                bad_here += !!(b.flags[i] & FEED_SAMPLE_REPLACED);
            assert_int_equal(b.bad, bad_here);
            uint64_t have = feed_loader_bad_count(L);
            assert_int_equal(have, seen_reports + bad_here);
            for (uint32_t i = 0; i < b.count; i++) {
                uint64_t got = b.sample_ids[i];
                assert_true(got < n);
                assert_false(is_bad[got]); /* never a bad one, as itself or as a stand-in */
                ids[i] = got;
                if (b.flags[i] & FEED_SAMPLE_REPLACED) {
                    feed_bad_sample r = {.struct_size = sizeof r};
                    assert_int_equal(feed_loader_bad_sample(L, seen_reports, &r), FEED_OK);
                    check_report(&r, e, nb);
                    assert_true(is_bad[r.sample_id]);
                    ids[i] = r.sample_id;
                    sub[e][r.sample_id] = got;
                    seen_reports++;
                }
                assert_int_equal(once[ids[i]], 0); /* every id once an epoch */
                once[ids[i]] = 1;
                order[e][pos + i] = ids[i];
                assert_int_equal(b.labels[i], feed__index_label(fu_ix.hdr, got));
                check_pixels(L, e, got, (uint8_t *)b.data + i * b.sample_bytes, &flips);
                checked++;
            }
            replaced += bad_here;
            if (bad_here) { /* last_error names the batch's first bad file */
                uint32_t f = 0;
                while (!is_bad[ids[f]])
                    f++;
                const char *le = feed_loader_last_error(L);
                char sid[64];
                snprintf(sid, sizeof sid, "sample %llu,", (unsigned long long)ids[f]);
                if (!strstr(le, fu_name(ids[f])) || !strstr(le, sid))
                    fail_msg("last error '%s' does not name %s", le, fu_name(ids[f]));
            }
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
            pos += b.count;
            nb++;
        }
        assert_int_equal(st, FEED_END_OF_EPOCH);
        assert_int_equal(pos, n);
    }
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 1000), FEED_END_OF_DATA);
    assert_int_equal(replaced, epochs * nbad);
    assert_int_equal(feed_loader_bad_count(L), epochs * nbad);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.samples_bad, epochs * nbad);
    assert_int_equal(s.samples_delivered, epochs * n);
    assert_int_equal(s.worker_restarts, 0); /* bad files crash nothing */
    fu_destroy(L);
    fu_assert_no_children();
    /* Shuffled: the epochs' orders differ, and neither is the identity. */
    assert_true(memcmp(order[0], order[1], n * sizeof order[0][0]) != 0);
    uint64_t in_place = 0;
    for (uint64_t i = 0; i < n; i++)
        in_place += order[0][i] == i;
    assert_true(in_place < n / 2);
    /* The stand-in is drawn per epoch: with 24 good samples to draw from, a
     * bad sample keeps its stand-in in the next epoch by chance one time in
     * 24; most must change. */
    uint64_t kept = 0;
    for (uint64_t id = 0; id < n; id++)
        if (is_bad[id])
            kept += sub[0][id] == sub[1][id];
    if (kept > nbad / 2)
        fail_msg("%llu of %llu bad samples have the same stand-in in both epochs", (unsigned long long)kept,
                 (unsigned long long)nbad);
    /* flip_p = 0.5: both orientations come (the reference accepts either) */
    if (flips < checked / 5 || flips > checked - checked / 5)
        fail_msg("%u of %llu samples flipped", flips, (unsigned long long)checked);
    /* Whatever the worker count: the same order, the same stand-ins. */
    if (have_seen) {
        assert_memory_equal(order, seen_order, sizeof order);
        for (uint64_t id = 0; id < n; id++)
            if (is_bad[id])
                assert_true(sub[0][id] == seen_sub[0][id] && sub[1][id] == seen_sub[1][id]);
    } else {
        memcpy(seen_order, order, sizeof order);
        memcpy(seen_sub, sub, sizeof sub);
        have_seen = 1;
    }
}

static void test_replace_1_worker(void **state)
{
    run_replace(1);
}

static void test_replace_3_workers(void **state)
{
    run_replace(3);
}

static void test_fail_policy(void **state)
{
    char opts[256];
    snprintf(opts, sizeof opts, "workers=2,max_file_bytes=%llu,shuffle=false,bad_policy=fail,max_bad_fraction=0.5",
             (unsigned long long)max_file_bytes);
    feed_loader *L = fu_make(opts, NULL);
    uint64_t n = fu_nsamples(), errors = 0, batches = 0, replaced = 0;
    for (uint64_t nb = 0; nb < feed_loader_batches_per_epoch(L); nb++) {
        uint64_t first_bad = UINT64_MAX;
        uint32_t bad_here = 0;
        for (uint64_t id = nb * FU_BATCH; id < n && id < (nb + 1) * FU_BATCH; id++)
            if (is_bad[id]) {
                bad_here++;
                if (first_bad == UINT64_MAX)
                    first_bad = id;
            }
        feed_batch b = {.struct_size = sizeof b};
        feed_status st = feed_loader_next(L, &b, 60000);
        if (bad_here) {
            const bad_kind *k = kind_of(first_bad);
            if ((int)st != k->status)
                fail_msg("batch %llu: next returned %s, want %s for %s", (unsigned long long)nb,
                         feed_status_name(st), feed_status_name(k->status), k->name);
            const char *le = feed_loader_last_error(L);
            if (!strstr(le, fu_ix.hdr->root) || !strstr(le, fu_name(first_bad)) || !strstr(le, k->needle))
                fail_msg("last error '%s' should name %s and say '%s'", le, k->name, k->needle);
            errors++;
            uint64_t e, pos;
            assert_int_equal(feed_loader_position(L, &e, &pos), FEED_OK);
            assert_int_equal(pos, nb); /* the failed batch is still next */
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_E_INVALID); /* not delivered yet */
            if (errors == 1) { /* a seek drops the failed batch: nothing is held */
                assert_int_equal(feed_loader_seek(L, 0, nb), FEED_OK);
                assert_int_equal(feed_loader_next(L, &b, 60000), k->status); /* the same batch, again */
            }
            st = feed_loader_next(L, &b, 60000);
        }
        assert_int_equal(st, FEED_OK);
        assert_int_equal(b.index, nb);
        assert_int_equal(b.bad, bad_here);
        for (uint32_t i = 0; i < b.count; i++) {
            uint64_t orig = nb * FU_BATCH + i;
            assert_int_equal(!!(b.flags[i] & FEED_SAMPLE_REPLACED), is_bad[orig]);
            if (!is_bad[orig]) {
                assert_int_equal(b.sample_ids[i], orig);
                continue;
            }
            uint64_t got = b.sample_ids[i]; /* a good stand-in, the one run_replace saw in epoch 0 */
            assert_true(got < n && !is_bad[got]);
            if (have_seen)
                assert_int_equal(got, seen_sub[0][orig]);
        }
        replaced += b.bad;
        batches++;
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_END_OF_EPOCH);
    uint64_t want_errors = 0;
    for (uint64_t nb = 0; nb * FU_BATCH < n; nb++) {
        int any = 0;
        for (uint64_t id = nb * FU_BATCH; id < n && id < (nb + 1) * FU_BATCH; id++)
            any |= is_bad[id];
        want_errors += (uint64_t)any;
    }
    assert_true(want_errors >= 3);
    assert_int_equal(errors, want_errors);
    assert_int_equal(replaced, (uint64_t)nkinds);
    assert_int_equal(feed_loader_bad_count(L), (uint64_t)nkinds);
    fu_destroy(L);
}

/* File lists reach files the folder scan would skip: a missing file and a
 * directory. They are I/O errors with their errno. */
static void test_unreadable(void **state)
{
    char list[4000], p[4200];
    snprintf(list, sizeof list, "%s/list.txt", fu_data);
    FILE *f = fopen(list, "w");
    assert_non_null(f);
    for (int i = 0; i < NGOOD; i++)
        fprintf(f, "class_%03d/img_%06d.jpg %d\n", i % 3, i, i % 3);
    fprintf(f, "class_001/missing.jpg 1\n");
    fprintf(f, "class_002 2\n");
    fclose(f);
    snprintf(p, sizeof p, "%s", list);
    feed_options o;
    fu_options(&o, "", "workers=2,shuffle=false,epochs=1,max_bad_fraction=0.5");
    snprintf(o.file_list, sizeof o.file_list, "%s", list);
    o.source[0] = 0;
    char err[1024];
    feed_loader *L;
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_OK);
    tu_hold(L);
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    uint64_t bad = 0;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        bad += b.bad;
        feed_batch_release(L, &b, NULL);
    }
    assert_int_equal(st, FEED_END_OF_EPOCH);
    assert_int_equal(bad, 2);
    assert_int_equal(feed_loader_bad_count(L), 2);
    feed_bad_sample r = {.struct_size = sizeof r};
    assert_int_equal(feed_loader_bad_sample(L, 0, &r), FEED_OK);
    assert_int_equal(r.sample_id, NGOOD);
    assert_int_equal(r.status, FEED_E_IO);
    assert_int_equal(r.sys_errno, ENOENT);
    assert_non_null(strstr(r.path, "class_001/missing.jpg"));
    assert_non_null(strstr(r.message, strerror(ENOENT)));
    assert_int_equal(feed_loader_bad_sample(L, 1, &r), FEED_OK);
    assert_int_equal(r.sample_id, NGOOD + 1);
    assert_int_equal(r.status, FEED_E_IO);
    assert_int_equal(r.sys_errno, EISDIR);
    r.struct_size = sizeof r - 1; /* smaller than 0.1.0's, which is today's */
    assert_int_equal(feed_loader_bad_sample(L, 1, &r), FEED_E_INVALID);
    tu_drop(L);
    unlink(list);
}

/* bad_policy=fail: after the error, seek / set_epoch work (the failed batch
 * is dropped, not held), and the error names every bad sample of the batch. */
static void test_fail_then_seek(void **state)
{
    char opts[256];
    snprintf(opts, sizeof opts, "workers=2,max_file_bytes=%llu,shuffle=false,bad_policy=fail,max_bad_fraction=0.5",
             (unsigned long long)max_file_bytes);
    feed_loader *L = fu_make(opts, NULL);
    uint64_t n = fu_nsamples(), nb;
    uint32_t bad_here = 0;
    for (nb = 0; nb * FU_BATCH < n; nb++) { /* the first batch with two or more bad samples */
        bad_here = 0;
        for (uint64_t id = nb * FU_BATCH; id < n && id < (nb + 1) * FU_BATCH; id++)
            bad_here += is_bad[id];
        if (bad_here >= 2)
            break;
    }
    assert_true(bad_here >= 2);
    feed_batch b = {.struct_size = sizeof b};
    for (uint64_t k = 0; k < nb; k++) { /* up to it: errors come and go */
        if (feed_loader_next(L, &b, 60000) != FEED_OK)
            assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    feed_status st = feed_loader_next(L, &b, 60000);
    assert_true(st != FEED_OK);
    const char *le = feed_loader_last_error(L);
    for (uint64_t id = nb * FU_BATCH; id < n && id < (nb + 1) * FU_BATCH; id++)
        if (is_bad[id] && !strstr(le, fu_name(id)))
            fail_msg("last error '%s' does not name %s", le, fu_name(id));
    char cnt[64];
    snprintf(cnt, sizeof cnt, "%u bad samples in this batch", bad_here);
    if (!strstr(le, cnt))
        fail_msg("last error '%s' does not say '%s'", le, cnt);
    /* Not released, never handed out: seek drops it. */
    st = feed_loader_seek(L, 1, 0);
    if (st != FEED_OK)
        fail_msg("seek after a bad_policy=fail error: %s: %s", feed_status_name(st), feed_loader_last_error(L));
    st = feed_loader_next(L, &b, 60000);
    if (st != FEED_OK) /* batch 0 may hold a bad sample too */
        st = feed_loader_next(L, &b, 60000);
    assert_int_equal(st, FEED_OK);
    assert_int_equal(b.epoch, 1);
    assert_int_equal(b.index, 0);
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    /* fail again, then seek to where it is: still no BUSY */
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK)
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    if (st != FEED_END_OF_EPOCH) {
        uint64_t e, pos;
        assert_int_equal(feed_loader_position(L, &e, &pos), FEED_OK);
        assert_int_equal(feed_loader_seek(L, e, pos), FEED_OK);
        assert_int_equal(feed_loader_next(L, &b, 60000) == FEED_OK ? FEED_OK : feed_loader_next(L, &b, 60000),
                         FEED_OK);
        assert_int_equal(b.index, pos);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    fu_destroy(L);
}

/* A file list whose root is wrong: every file is missing. next() fails
 * at once with FEED_E_DATASET naming the share and the first paths; with the
 * budget off (max_bad_fraction=1) it still fails, since no substitute can
 * be read: never an image of zeros. */
static void missing_run(const char *extra, const char *needle)
{
    char list[4000];
    snprintf(list, sizeof list, "%s/wrong_root.txt", fu_data);
    FILE *f = fopen(list, "w");
    assert_non_null(f);
    for (int i = 0; i < NGOOD; i++)
        fprintf(f, "class_%03d/img_%06d.jpg %d\n", i % 3, i, i % 3);
    fclose(f);
    feed_options o;
    fu_options(&o, "", extra);
    snprintf(o.file_list, sizeof o.file_list, "%s", list);
    snprintf(o.source, sizeof o.source, "%s/class_001", fu_data); /* the wrong root */
    char err[1024];
    feed_loader *L;
    assert_int_equal(feed_loader_create(&L, &o, err, sizeof err), FEED_OK);
    tu_hold(L);
    feed_batch b = {.struct_size = sizeof b};
    feed_status st = feed_loader_next(L, &b, 60000);
    if (st == FEED_OK) {
        const uint8_t *px = b.data;
        uint64_t nz = 0;
        for (uint64_t i = 0; i < b.sample_bytes * b.count; i++)
            nz += px[i] != 0;
        fail_msg("every file is missing, yet next() gave a batch (%u replaced, %llu nonzero bytes)", b.bad,
                 (unsigned long long)nz);
    }
    assert_int_equal(st, FEED_E_DATASET);
    const char *le = feed_loader_last_error(L);
    if (!strstr(le, needle) || !strstr(le, "class_001/class_000/img_000000.jpg") ||
        !strstr(le, strerror(ENOENT)))
        fail_msg("last error '%s' should say '%s' and name the first missing file", le, needle);
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_E_DATASET); /* it stays failed */
    tu_drop(L);
    unlink(list);
}

static void test_all_missing(void **state)
{
    missing_run("workers=2,shuffle=false", "100%");
}

static void test_no_substitute(void **state)
{
    missing_run("workers=2,shuffle=false,max_bad_fraction=1", "no substitute");
}

/* 17 bad of 41 samples, over the default budget (5%): the share is judged
 * once the window holds a whole epoch (41 samples, fewer than the 1000 of a
 * full window), so the batch that ends the first epoch is refused, naming
 * the share; max_bad_fraction=0.5 lets four epochs through. */
static void test_budget(void **state)
{
    char opts[256];
    snprintf(opts, sizeof opts, "workers=2,max_file_bytes=%llu,epochs=4", (unsigned long long)max_file_bytes);
    feed_loader *L = fu_make(opts, NULL);
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    uint64_t bad = 0, samples = 0;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK || st == FEED_END_OF_EPOCH) {
        if (st == FEED_OK) {
            bad += b.bad;
            samples += b.count;
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
        }
    }
    if (st != FEED_E_DATASET)
        fail_msg("%llu of %llu samples bad, and next() says %s", (unsigned long long)bad,
                 (unsigned long long)samples, feed_status_name(st));
    assert_true(samples < fu_nsamples() && bad < (uint64_t)nkinds); /* the first epoch's last batch */
    const char *le = feed_loader_last_error(L);
    char want[64];
    snprintf(want, sizeof want, "%u of the last %llu samples delivered were bad", nkinds,
             (unsigned long long)fu_nsamples());
    if (!strstr(le, "max_bad_fraction=0.05") || !strstr(le, fu_data) || !strstr(le, want))
        fail_msg("last error: %s (want '%s')", le, want);
    fu_destroy(L);

    snprintf(opts, sizeof opts, "workers=2,max_file_bytes=%llu,epochs=4,max_bad_fraction=0.5",
             (unsigned long long)max_file_bytes);
    L = fu_make(opts, NULL);
    uint64_t eoe = 0;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK || st == FEED_END_OF_EPOCH) {
        if (st == FEED_OK)
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
        else
            eoe++;
    }
    assert_int_equal(st, FEED_END_OF_DATA);
    assert_int_equal(eoe, 4);
    assert_int_equal(feed_loader_bad_count(L), 4 * (uint64_t)nkinds);
    fu_destroy(L);
}

/* Runs one epoch with stderr in a file; returns what was written. */
static char *epoch_stderr(const char *extra, uint64_t *reports)
{
    char opts[512], path[4200];
    snprintf(opts, sizeof opts, "workers=2,max_file_bytes=%llu,epochs=1,max_bad_fraction=0.5%s", (unsigned long long)max_file_bytes,
             extra);
    snprintf(path, sizeof path, "%s/stderr.txt", fu_data);
    int saved = tu_stderr_to(path);
    assert_true(saved >= 0);
    feed_loader *L = fu_make(opts, NULL);
    feed_batch b = {.struct_size = sizeof b};
    while (feed_loader_next(L, &b, 60000) == FEED_OK)
        feed_batch_release(L, &b, NULL);
    *reports = feed_loader_bad_count(L);
    fu_destroy(L);
    tu_stderr_back(saved);
    size_t len;
    char *text = (char *)fu_read(path, &len);
    text[len] = 0;
    unlink(path);
    return text;
}

/* Bad samples are reported on stderr: one line each (path and reason), the
 * first ones at least, the rest counted in a summary; report_bad=0: silent. */
static void test_report_stderr(void **state)
{
    uint64_t reports;
    char *text = epoch_stderr("", &reports);
    assert_int_equal(reports, (uint64_t)nkinds);
    uint64_t lines = 0, suppressed = 0;
    for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        unsigned long long k;
        if (!strncmp(l, "libfeed: bad sample ", 20)) {
            lines++;
            int named = 0;
            for (int i = 0; i < nkinds; i++)
                named |= !!strstr(l, kinds[i].name);
            if (!named || !strstr(l, fu_data))
                fail_msg("line without a bad file's path: %.300s", l);
        }
        if (sscanf(l, "libfeed: %llu more bad samples not shown", &k) == 1)
            suppressed += k;
    }
    if (lines < 10 || lines + suppressed != reports)
        fail_msg("%llu lines + %llu suppressed for %llu bad samples:\n%s", (unsigned long long)lines,
                 (unsigned long long)suppressed, (unsigned long long)reports, text);
    free(text);
    text = epoch_stderr(",report_bad=0", &reports);
    assert_int_equal(reports, (uint64_t)nkinds);
    if (strstr(text, "libfeed:"))
        fail_msg("report_bad=0, yet: %s", text);
    free(text);
}

/* bad_log=PATH: one line per bad sample and epoch, all of them. */
static void test_bad_log_file(void **state)
{
    char opts[4400], path[4200];
    snprintf(path, sizeof path, "%s/bad.log", fu_data);
    unlink(path);
    snprintf(opts, sizeof opts, "workers=2,max_file_bytes=%llu,epochs=2,report_bad=0,max_bad_fraction=0.5,bad_log=%s",
             (unsigned long long)max_file_bytes, path);
    feed_loader *L = fu_make(opts, NULL);
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK || st == FEED_END_OF_EPOCH)
        if (st == FEED_OK)
            feed_batch_release(L, &b, NULL);
    assert_int_equal(st, FEED_END_OF_DATA);
    uint64_t reports = feed_loader_bad_count(L);
    assert_int_equal(reports, 2 * (uint64_t)nkinds);
    fu_destroy(L);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[9000];
    uint64_t nlines = 0, per_epoch[2] = {0, 0};
    while (fgets(line, sizeof line, f)) {
        unsigned long long e, id, batch;
        char status[64], p[4400];
        int off = 0;
        if (sscanf(line, "%llu\t%llu\t%llu\t%63[^\t]\t%4399[^\t]\t%n", &e, &id, &batch, status, p, &off) != 5 ||
            !off)
            fail_msg("bad line: %s", line);
        assert_true(e < 2 && id < fu_nsamples() && is_bad[id]);
        const bad_kind *k = kind_of(id);
        char want[8400];
        snprintf(want, sizeof want, "%s/%s", fu_ix.hdr->root, feed__index_path(fu_ix.hdr, id));
        assert_string_equal(p, want);
        assert_string_equal(status, feed_status_name(k->status));
        if (!strstr(line + off, k->needle))
            fail_msg("reason of %s: %s", k->name, line + off);
        per_epoch[e]++;
        nlines++;
    }
    fclose(f);
    assert_int_equal(nlines, reports);
    assert_int_equal(per_epoch[0], (uint64_t)nkinds);
    assert_int_equal(per_epoch[1], (uint64_t)nkinds);
    unlink(path);
}

/* A transient failure is retried in the worker: with fault `once` on
 * img_000003 and img_000011 the epoch is the reference's exactly, nothing
 * reported; with fault `always` on img_000005 that sample is bad after the
 * tries, with status st (and errno e, unless 0) and a message holding text
 * and "3 tries". */
static void check_retried(const char *opts, const char *once, const char *always, int st, int e,
                          const char *text)
{
    static fu_run ref, got;
    char faults[128];
    feed_loader *L = fu_make(opts, NULL);
    fu_collect(L, 1, &ref, NULL, NULL);
    uint64_t ref_bad = feed_loader_bad_count(L);
    fu_destroy(L);
    snprintf(faults, sizeof faults, "%s:img_000003.jpg;%s:img_000011.jpg", once, once);
    L = fu_make(opts, faults);
    fu_collect(L, 1, &got, NULL, NULL);
    fu_assert_same(&ref, &got, NULL);
    assert_int_equal(feed_loader_bad_count(L), ref_bad);
    fu_destroy(L);

    snprintf(faults, sizeof faults, "%s:img_000005.jpg", always);
    L = fu_make(opts, faults);
    fu_collect(L, 1, &got, NULL, NULL);
    assert_int_equal(feed_loader_bad_count(L), ref_bad + 1);
    feed_bad_sample r = {.struct_size = sizeof r};
    int found = 0;
    for (uint64_t i = 0; i < feed_loader_bad_count(L); i++) {
        assert_int_equal(feed_loader_bad_sample(L, i, &r), FEED_OK);
        if (r.sample_id != fu_id_of("img_000005.jpg"))
            continue;
        found = 1;
        assert_int_equal(r.status, st);
        if (e)
            assert_int_equal(r.sys_errno, e);
        if (!strstr(r.message, text) || !strstr(r.message, "3 tries"))
            fail_msg("message: %s", r.message);
    }
    assert_true(found);
    fu_destroy(L);
}

/* A transient EIO (the first pread of a good file fails) is retried; an EIO
 * on every try is reported as an I/O error. */
static void test_transient_eio(void **state)
{
    char opts[256];
    snprintf(opts, sizeof opts, "workers=2,reader=pread,max_file_bytes=%llu,max_bad_fraction=0.5", (unsigned long long)max_file_bytes);
    check_retried(opts, "eio", "ioerr", FEED_E_IO, EIO, strerror(EIO));
}

/* A decode out of memory is transient too (a neighbour's peak): tried again
 * after a backoff; on every try it is reported as out of memory. */
static void test_decode_nomem_retried(void **state)
{
    char opts[256];
    snprintf(opts, sizeof opts, "workers=2,max_file_bytes=%llu,max_bad_fraction=0.5", (unsigned long long)max_file_bytes);
    check_retried(opts, "nomem", "nomemall", FEED_E_NOMEM, 0, "out of memory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_replace_1_worker),
        TU_TEST(test_replace_3_workers),
        TU_TEST(test_fail_policy),
        TU_TEST(test_unreadable),
        TU_TEST(test_fail_then_seek),
        TU_TEST(test_all_missing),
        TU_TEST(test_no_substitute),
        TU_TEST(test_budget),
        TU_TEST(test_report_stderr),
        TU_TEST(test_bad_log_file),
        TU_TEST(test_transient_eio),
        TU_TEST(test_decode_nomem_retried),
    };
    const char *filter = getenv("FEED_TEST_FILTER"); /* scripts/mutants: one case */
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, setup, teardown);
}
