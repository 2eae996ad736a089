/*
 * test_window.c - shuffle_window through the loader: tar shards (two of them
 * empty) in windows of 2; every sample once an epoch, each window's stretch of
 * the delivered order only its 2 shards' samples, the same ids in the same
 * batches with 1 and 3 workers (and the read-ahead thread walking the same
 * order); a seek to a sample position mid-epoch, at the same or another batch
 * size, and a resume from a position taken mid-epoch, continue with exactly the
 * rest of the epoch; two ranks share an epoch; a folder source is refused,
 * naming shuffle_window. The expected order is computed by the test from the
 * shard sizes it wrote and the sampler's shard order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hooks/loader_test.h"
#include "testutil.h"

#define NSHARDS 7
static const uint32_t sizes[NSHARDS] = {6, 0, 5, 4, 0, 7, 4};
#define NIMG 26
#define K 2
#define BASE "height=16,width=16,resize_shorter=20,seed=31,device=host,shuffle=1,report_bad=0"

static char *data, *pattern;
static feed__index ix;

static int setup(void **state)
{
    (void)state;
    data = tu_dataset("window", NIMG, 23, 3, &ix);
    pattern = malloc(4200);
    snprintf(pattern, 4200, "%s/w-{000000..%06u}.tar", data, NSHARDS - 1);
    uint32_t k = 0;
    for (uint32_t s = 0; s < NSHARDS; s++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/w-%06u.tar", data, s);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        for (uint32_t j = 0; j < sizes[s]; j++, k++) {
            char name[64], src[8700], cls[16];
            size_t n;
            snprintf(src, sizeof src, "%s/%s", data, feed__index_path(ix.hdr, k));
            uint8_t *img = tu_read_file(src, &n);
            snprintf(name, sizeof name, "s%03u.jpg", k);
            assert_int_equal(tu_tar_member(f, name, img, n), 0);
            free(img);
            snprintf(name, sizeof name, "s%03u.cls", k);
            snprintf(cls, sizeof cls, "%d", feed__index_label(ix.hdr, k));
            assert_int_equal(tu_tar_member(f, name, cls, strlen(cls)), 0);
        }
        uint8_t end[1024] = {0};
        assert_int_equal(fwrite(end, 1, sizeof end, f), sizeof end);
        fclose(f);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_dataset_free(data, &ix);
    free(pattern);
    return 0;
}

static feed_loader *make(const char *extra)
{
    feed_loader *L;
    char err[1024];
    if (tu_loader(&L, pattern, BASE, extra, err, sizeof err) != FEED_OK)
        fail_msg("create (%s): %s", extra, err);
    return tu_hold(L);
}

/* The shard a delivered id was read from, by its name ("DIR/w-00000S.tar:sNNN"),
 * and its key's number NNN, which is the id the test wrote it as. */
static uint32_t shard_of(feed_loader *L, uint64_t id, uint32_t *key)
{
    char path[8700];
    int32_t label;
    assert_int_equal(feed_loader_sample_info(L, id, path, sizeof path, &label), FEED_OK);
    const char *colon = strrchr(path, ':'), *dash = strrchr(path, '-');
    assert_true(colon && dash && dash < colon);
    *key = (uint32_t)atoi(colon + 2);
    return (uint32_t)atoi(dash + 1);
}

/* Reads batches until the epoch ends (or `most` batches): ids in order into
 * ids, each batch's count into counts. Returns the samples read. */
static uint32_t read_epoch(feed_loader *L, uint64_t *ids, uint32_t *counts, uint32_t *nbatches, uint32_t most)
{
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    uint32_t n = 0, nb = 0;
    while (nb < most && (st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        assert_true(n + b.count <= 2 * NIMG);
        memcpy(ids + n, b.sample_ids, b.count * sizeof *ids);
        n += b.count;
        if (counts)
            counts[nb] = b.count;
        nb++;
        assert_int_equal(b.bad, 0);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    if (nb < most)
        assert_int_equal(st, FEED_END_OF_EPOCH);
    if (nbatches)
        *nbatches = nb;
    return n;
}

/* Every id once; window by window of the sampler's shard order (sizes as
 * written), the run of positions holds only samples of the window's shards. */
static void check_epoch(feed_loader *L, uint64_t epoch, const uint64_t *ids, uint32_t n)
{
    assert_int_equal(n, NIMG);
    uint8_t seen[NIMG] = {0};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t key;
        shard_of(L, ids[i], &key);
        assert_int_equal(key, ids[i]); /* the index's ids are the ones the test wrote */
        assert_true(ids[i] < NIMG && !seen[ids[i]]);
        seen[ids[i]] = 1;
    }
    uint64_t order[NSHARDS]; /* the shard order of the test's own sampler over the loader's index */
    feed__sampler s;
    char err[256];
    assert_int_equal(feed__sampler_init(&s, NIMG, 1, 1, 0, 0, 1, 31, err, sizeof err), FEED_OK);
    assert_int_equal(feed__sampler_window(&s, L->ix.hdr, K, err, sizeof err), FEED_OK);
    assert_int_equal(L->ix.hdr->nshards, NSHARDS);
    feed__sampler_shard_order(&s, epoch, order);
    uint32_t p = 0;
    for (uint32_t a = 0; a < NSHARDS; a += K) {
        uint32_t b = a + K < NSHARDS ? a + K : NSHARDS, m = 0;
        for (uint32_t j = a; j < b; j++)
            m += sizes[order[j]];
        for (uint32_t end = p + m; p < end; p++) {
            uint32_t key, sh = shard_of(L, ids[p], &key), j = a;
            while (j < b && order[j] != sh)
                j++;
            if (j == b)
                fail_msg("epoch %llu: position %u (window %u) is sample %llu of shard %u, not of the "
                         "window's shards", (unsigned long long)epoch, p, a / K, (unsigned long long)ids[p], sh);
        }
    }
    assert_int_equal(p, NIMG);
}

/* Two epochs with 1 and with 3 workers: every sample once, each window's
 * samples together, the same ids in the same batches, epochs in other orders. */
static void test_epochs_and_workers(void **state)
{
    (void)state;
    uint64_t ids[2][2][2 * NIMG] = {0};
    uint32_t counts[2][2][NIMG] = {0}, nb[2][2];
    for (int w = 0; w < 2; w++) {
        feed_loader *L = make(w ? "shuffle_window=2,workers=3,batch_size=4" : "shuffle_window=2,workers=1,batch_size=4");
        assert_int_equal(feed_loader_num_samples(L), NIMG);
        for (uint64_t e = 0; e < 2; e++) {
            uint32_t n = read_epoch(L, ids[w][e], counts[w][e], &nb[w][e], UINT32_MAX);
            check_epoch(L, e, ids[w][e], n);
        }
        tu_drop(L);
    }
    assert_int_equal(nb[0][0], nb[1][0]);
    assert_memory_equal(counts[0], counts[1], sizeof counts[0]);
    assert_memory_equal(ids[0], ids[1], sizeof ids[0]);
    assert_memory_not_equal(ids[0][0], ids[0][1], NIMG * sizeof(uint64_t));
    /* shuffle_window=0 is another order (the one over all samples) */
    feed_loader *L = make("workers=1,batch_size=4");
    uint64_t plain[2 * NIMG];
    assert_int_equal(read_epoch(L, plain, NULL, NULL, UINT32_MAX), NIMG);
    assert_memory_not_equal(plain, ids[0][0], NIMG * sizeof(uint64_t));
    tu_drop(L);
}

/* A seek to sample position c of epoch 1 gives the rest of the epoch, at the
 * same batch size and at another; so does a resume from the position a run
 * stopped at mid-epoch. Two ranks of one epoch: disjoint, all samples. */
static void test_seek_and_resume(void **state)
{
    (void)state;
    uint64_t whole[2 * NIMG], rest[2 * NIMG];
    feed_loader *A = make("shuffle_window=2,workers=2,batch_size=4");
    assert_int_equal(feed_loader_seek(A, 1, 0), FEED_OK);
    assert_int_equal(read_epoch(A, whole, NULL, NULL, UINT32_MAX), NIMG);
    check_epoch(A, 1, whole, NIMG);
    static const uint32_t cs[] = {1, 8, 12, 25};
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        assert_int_equal(feed_loader_seek_samples(A, 1, cs[i]), FEED_OK);
        assert_int_equal(read_epoch(A, rest, NULL, NULL, UINT32_MAX), NIMG - cs[i]);
        assert_memory_equal(rest, whole + cs[i], (NIMG - cs[i]) * sizeof *rest);
    }
    /* stop after 3 batches of epoch 1; another loader (batch 3, 1 worker) resumes there */
    assert_int_equal(feed_loader_seek(A, 1, 0), FEED_OK);
    assert_int_equal(read_epoch(A, rest, NULL, NULL, 3), 12);
    uint64_t e, c;
    assert_int_equal(feed_loader_position_samples(A, &e, &c), FEED_OK);
    assert_int_equal(e, 1);
    assert_int_equal(c, 12);
    tu_drop(A);
    feed_loader *B = make("shuffle_window=2,workers=1,batch_size=3");
    assert_int_equal(feed_loader_seek_samples(B, e, c), FEED_OK);
    assert_int_equal(read_epoch(B, rest, NULL, NULL, UINT32_MAX), NIMG - 12);
    assert_memory_equal(rest, whole + 12, (NIMG - 12) * sizeof *rest);
    tu_drop(B);
    /* ranks 0 and 1 of 2: positions r, r + 2, ... of the same order */
    for (uint32_t r = 0; r < 2; r++) {
        char opts[128];
        snprintf(opts, sizeof opts, "shuffle_window=2,workers=1,batch_size=4,rank=%u,world_size=2", r);
        feed_loader *R = make(opts);
        assert_int_equal(feed_loader_seek(R, 1, 0), FEED_OK);
        assert_int_equal(read_epoch(R, rest, NULL, NULL, UINT32_MAX), NIMG / 2);
        for (uint32_t i = 0; i < NIMG / 2; i++)
            assert_int_equal(rest[i], whole[2 * i + r]);
        tu_drop(R);
    }
}

/* Not tar shards: create fails naming shuffle_window (shuffled or not). */
static void test_folder_refused(void **state)
{
    (void)state;
    static const char *const opts[] = {"shuffle_window=2", "shuffle_window=1,shuffle=0"};
    for (int i = 0; i < 2; i++) {
        feed_loader *L;
        char err[1024] = "";
        assert_int_equal(tu_loader(&L, data, BASE, opts[i], err, sizeof err), FEED_E_INVALID);
        assert_null(L);
        assert_non_null(strstr(err, "shuffle_window"));
        assert_non_null(strstr(err, "ImageFolder"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_epochs_and_workers),
        TU_TEST(test_seek_and_resume),
        TU_TEST(test_folder_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
