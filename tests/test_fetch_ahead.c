/*
 * test_fetch_ahead.c - remote shards fetched while the loader runs
 * (fetch_ahead), without a network: FEED_FETCH is tests/fake_fetch.py, which
 * speaks feed-fetch's stream protocol over a folder and answers each get
 * after a delay of its own (out of order). What a loader over
 * http://fake/f-{0..4}.tar delivers, batch by batch (ids, labels, pixels),
 * must equal what a loader over the same shards on disk delivers, for two
 * shuffled epochs and a seek back into the first; a get that fails stops the
 * run with an error naming the URL, delivering nothing wrong before it. Runs
 * under ASan and TSan with the rest of ctest (the fetcher's thread, the
 * fetch-ahead thread and the consumer all bind batches).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "testutil.h"

#define NSHARDS 5
#define PER 8
#define NIMG (NSHARDS * PER)
#define BASE "batch_size=6,height=24,width=24,resize_shorter=28,seed=9,device=host,shuffle=1,report_bad=0,workers=2"

static char *data, *cache, urls[256], files[4300], logpath[4300];
static feed__index ix;

static int setup(void **state)
{
    (void)state;
    data = tu_dataset("fetchahead", NIMG, 23, 4, &ix);
    for (int s = 0; s < NSHARDS; s++) {
        char path[4300];
        snprintf(path, sizeof path, "%s/f-%d.tar", data, s);
        FILE *f = fopen(path, "wb");
        for (int i = s * PER; i < (s + 1) * PER; i++) {
            char name[64], src[8700], cls[16];
            size_t n;
            snprintf(src, sizeof src, "%s/%s", data, feed__index_path(ix.hdr, (uint64_t)i));
            uint8_t *img = tu_read_file(src, &n);
            snprintf(name, sizeof name, "k%03d.jpg", i);
            assert_int_equal(tu_tar_member(f, name, img, n), 0);
            int cn = snprintf(cls, sizeof cls, "%d", feed__index_label(ix.hdr, (uint64_t)i));
            snprintf(name, sizeof name, "k%03d.cls", i);
            assert_int_equal(tu_tar_member(f, name, cls, (size_t)cn), 0);
            free(img);
        }
        fclose(f);
    }
    snprintf(urls, sizeof urls, "http://fake/f-{0..%d}.tar", NSHARDS - 1);
    snprintf(files, sizeof files, "%s/f-{0..%d}.tar", data, NSHARDS - 1);
    cache = malloc(4300);
    snprintf(cache, 4300, "%s/cache", data);
    snprintf(logpath, sizeof logpath, "%s/fetch.log", data);
    setenv("FEED_FETCH", FAKE_FETCH, 1);
    setenv("FAKE_FETCH_ROOT", data, 1);
    setenv("FAKE_FETCH_LOG", logpath, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_dataset_free(data, &ix);
    free(cache);
    return 0;
}

static feed_loader *make(const char *source, const char *extra)
{
    feed_loader *L;
    char err[1024], opts[5000];
    snprintf(opts, sizeof opts, "cache_dir=%s,%s", cache, extra);
    if (tu_loader(&L, source, BASE, opts, err, sizeof err) != FEED_OK)
        fail_msg("create %s: %s", source, err);
    return tu_hold(L);
}

/* One batch of each, compared; returns the status both returned. */
static feed_status same_batch(feed_loader *R, feed_loader *L)
{
    feed_batch a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b};
    feed_status sa = feed_loader_next(R, &a, 60000), sb = feed_loader_next(L, &b, 60000);
    if (sb != sa)
        fail_msg("local %d, remote %d: %s", sa, sb, feed_loader_last_error(L));
    if (sa != FEED_OK)
        return sa;
    assert_int_equal(a.count, b.count);
    assert_int_equal(a.epoch, b.epoch);
    assert_int_equal(a.index, b.index);
    assert_memory_equal(a.sample_ids, b.sample_ids, a.count * sizeof *a.sample_ids);
    assert_memory_equal(a.labels, b.labels, a.count * sizeof *a.labels);
    assert_int_equal(a.sample_bytes, b.sample_bytes);
    assert_memory_equal(a.data, b.data, a.count * a.sample_bytes);
    assert_int_equal(feed_batch_release(R, &a, NULL), FEED_OK);
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    return FEED_OK;
}

/* Epochs of both loaders, batch by batch; every sample once an epoch. */
static void same_epochs(feed_loader *R, feed_loader *L, int epochs)
{
    for (int e = 0; e < epochs; e++) {
        int n = 0;
        while (same_batch(R, L) == FEED_OK)
            n++;
        assert_int_equal(n, (NIMG + 5) / 6);
    }
}

static void test_same_as_local_shards(void **state)
{
    (void)state;
    feed_loader *R = make(files, "epochs=2"), *L = make(urls, "fetch_ahead=1,epochs=2");
    same_epochs(R, L, 2);
    tu_drop(L);
    tu_drop(R);
}

/* The shards' bytes: the largest one's, or (largest 0) all of them. */
static uint64_t shard_bytes(int largest)
{
    uint64_t most = 0, sum = 0;
    for (int s = 0; s < NSHARDS; s++) {
        char path[4300];
        struct stat sb;
        snprintf(path, sizeof path, "%s/f-%d.tar", data, s);
        assert_int_equal(stat(path, &sb), 0);
        most = (uint64_t)sb.st_size > most ? (uint64_t)sb.st_size : most;
        sum += (uint64_t)sb.st_size;
    }
    return largest ? most : sum;
}

/* A cache that holds two shards: they are fetched, let go and evicted (the
 * stand-in evicts whatever is not held before each copy) as the epochs go;
 * a batch bound before its shards are there would read a missing file. */
static void test_through_a_cache_of_two_shards(void **state)
{
    (void)state;
    uint64_t most = shard_bytes(1);
    char extra[200];
    snprintf(extra, sizeof extra, "fetch_ahead=1,epochs=2,shuffle=0,cache_size=%llu", (unsigned long long)(2 * most));
    feed_loader *R = make(files, "epochs=2,shuffle=0"), *L = make(urls, extra);
    same_epochs(R, L, 2);
    tu_drop(L);
    tu_drop(R);
    /* shuffled, a window of one shard: a stretch of the epoch reads one shard (two at its ends) */
    snprintf(extra, sizeof extra, "fetch_ahead=2,epochs=2,shuffle_window=1,cache_size=%llu",
             (unsigned long long)(2 * most));
    R = make(files, "epochs=2,shuffle_window=1");
    L = make(urls, extra);
    same_epochs(R, L, 2);
    tu_drop(L);
    tu_drop(R);
}

/* One epoch of rank r of both, batch by batch (ids, labels, pixels); each
 * delivered sample counted in seen (NULL: not). */
static void same_rank_epoch(feed_loader *R, feed_loader *L, uint32_t r, uint8_t *seen)
{
    feed_batch a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b};
    feed_status st;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        assert_int_equal(feed_loader_next(R, &a, 60000), FEED_OK);
        assert_int_equal(a.count, b.count);
        assert_memory_equal(a.sample_ids, b.sample_ids, a.count * sizeof *a.sample_ids);
        assert_memory_equal(a.labels, b.labels, a.count * sizeof *a.labels);
        assert_memory_equal(a.data, b.data, a.count * a.sample_bytes);
        for (uint32_t t = 0; t < b.count && seen; t++)
            seen[b.sample_ids[t]]++;
        assert_int_equal(feed_batch_release(R, &a, NULL), FEED_OK);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    if (st != FEED_END_OF_EPOCH)
        fail_msg("rank %u: %d: %s", r, st, feed_loader_last_error(L));
    assert_int_equal(feed_loader_next(R, &a, 60000), FEED_END_OF_EPOCH);
}

/* Two ranks, each its own loader and fetcher over one cache (as two
 * processes of a node share it): each rank's batches are the local rank's,
 * the two shares disjoint and together every sample once an epoch. */
static void test_two_ranks_share_the_cache(void **state)
{
    (void)state;
    uint8_t seen[NIMG] = {0};
    for (uint32_t r = 0; r < 2; r++) {
        char extra[200];
        snprintf(extra, sizeof extra, "rank=%u,world_size=2,shuffle_window=2,epochs=1", r);
        feed_loader *R = make(files, extra);
        snprintf(extra, sizeof extra, "rank=%u,world_size=2,shuffle_window=2,epochs=1,fetch_ahead=1", r);
        feed_loader *L = make(urls, extra);
        same_rank_epoch(R, L, r, seen);
        tu_drop(L);
        tu_drop(R);
    }
    for (int i = 0; i < NIMG; i++) /* 40 samples, 2 ranks: 20 each, no padding */
        assert_int_equal(seen[i], 1);
}

/* The bytes the range requests in the log ask for; *gets: whole gets after
 * the first range (those before are the index scan's, at create). */
static uint64_t logged_range_bytes(int *gets)
{
    FILE *f = fopen(logpath, "r");
    char line[8192];
    uint64_t sum = 0;
    *gets = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "> get\t", 6) && sum)
            (*gets)++;
        if (strncmp(line, "> range\t", 8))
            continue;
        char *len = strrchr(line, '\t');
        sum += strtoull(len + 1, NULL, 10);
    }
    if (f)
        fclose(f);
    return sum;
}

/* Two ranks by range (fetch_ranges=ranges): each fetches the
 * byte ranges of its own samples' members, no shard whole, and delivers
 * the local rank's batches; the stand-in refuses a range that is not a chain
 * of whole tar members and evicts unheld .ranges files (a batch bound before
 * its ranges arrived reads zeros and differs from the local one). */
static void test_two_ranks_fetch_their_share_by_range(void **state)
{
    (void)state;
    uint8_t seen[NIMG] = {0};
    uint64_t total = shard_bytes(0);
    setenv("FEED_TEST_RANGE_GAP", "0", 1);
    for (uint32_t r = 0; r < 2; r++) {
        char extra[200];
        snprintf(extra, sizeof extra, "rank=%u,world_size=2,shuffle_window=2,epochs=2", r);
        feed_loader *R = make(files, extra);
        snprintf(extra, sizeof extra,
                 "rank=%u,world_size=2,shuffle_window=2,epochs=2,fetch_ahead=1,fetch_ranges=ranges,cache_size=%llu", r,
                 (unsigned long long)total);
        FILE *lf = fopen(logpath, "w"); /* this loader's requests only */
        fclose(lf);
        feed_loader *L = make(urls, extra);
        for (int e = 0; e < 2; e++)
            same_rank_epoch(R, L, r, e == 0 ? seen : NULL);
        tu_drop(L);
        tu_drop(R);
        int gets;
        uint64_t asked = logged_range_bytes(&gets);
        assert_int_equal(gets, 0);
        /* two epochs of half the samples each: about the shards' bytes once
         * (a member's header and padding with it), never twice */
        assert_true(asked > total / 2);
        assert_true(asked < total * 3 / 2);
    }
    for (int i = 0; i < NIMG; i++)
        assert_int_equal(seen[i], 1);
    unsetenv("FEED_TEST_RANGE_GAP");
}

/* Ranges through a cache of two shards, over two epochs, in order and in
 * windows of one shard: the ranges of a shard let go are asked again. */
static void test_ranges_through_a_cache_of_two_shards(void **state)
{
    (void)state;
    setenv("FEED_TEST_RANGE_GAP", "0", 1);
    uint64_t most = shard_bytes(1);
    char extra[200];
    snprintf(extra, sizeof extra, "fetch_ahead=2,fetch_ranges=ranges,epochs=2,shuffle_window=1,cache_size=%llu",
             (unsigned long long)(2 * most));
    feed_loader *R = make(files, "epochs=2,shuffle_window=1"), *L = make(urls, extra);
    same_epochs(R, L, 2);
    tu_drop(L);
    tu_drop(R);
    unsetenv("FEED_TEST_RANGE_GAP");
}

static void test_seek_back_into_an_epoch(void **state)
{
    (void)state;
    feed_loader *R = make(files, "epochs=2,workers=3"), *L = make(urls, "fetch_ahead=2,epochs=2,workers=3");
    same_epochs(R, L, 1);
    assert_int_equal(same_batch(R, L), FEED_OK); /* into epoch 1 */
    assert_int_equal(feed_loader_seek(R, 0, 3), FEED_OK);
    assert_int_equal(feed_loader_seek(L, 0, 3), FEED_OK);
    int n = 0;
    while (same_batch(R, L) == FEED_OK)
        n++;
    assert_int_equal(n, (NIMG + 5) / 6 - 3);
    tu_drop(L);
    tu_drop(R);
}

static void test_a_failed_get_names_the_url(void **state)
{
    (void)state;
    /* a first loader scans the shards and saves the index */
    feed_loader *R = make(files, "shuffle=0,epochs=1"), *L = make(urls, "fetch_ahead=1,shuffle=0,epochs=1");
    same_epochs(R, L, 1);
    tu_drop(L);
    tu_drop(R);
    setenv("FAKE_FETCH_FAIL", "f-3.tar", 1);
    /* the next create takes the saved index (no scan, no get): the run meets the failure */
    R = make(files, "shuffle=0,epochs=1");
    L = make(urls, "fetch_ahead=1,shuffle=0,epochs=1");
    feed_batch a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b};
    feed_status st;
    int n = 0;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) { /* the batches before f-3's, right */
        assert_int_equal(feed_loader_next(R, &a, 60000), FEED_OK);
        assert_memory_equal(a.sample_ids, b.sample_ids, a.count * sizeof *a.sample_ids);
        assert_memory_equal(a.data, b.data, a.count * a.sample_bytes);
        assert_true(b.sample_ids[b.count - 1] < 3 * PER);
        assert_int_equal(feed_batch_release(R, &a, NULL), FEED_OK);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
        n++;
    }
    assert_int_equal(st, FEED_E_DATASET);
    assert_true(n < (NIMG + 5) / 6);
    assert_non_null(strstr(feed_loader_last_error(L), "http://fake/f-3.tar"));
    assert_non_null(strstr(feed_loader_last_error(L), "404"));
    tu_drop(L);
    tu_drop(R);
    /* without the saved index the scan meets it at create */
    char err[1024], opts[5000];
    snprintf(opts, sizeof opts, "cache_dir=%s-2,fetch_ahead=1,shuffle=0,epochs=1", cache);
    assert_int_equal(tu_loader(&L, urls, BASE, opts, err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "http://fake/f-3.tar"));
    unsetenv("FAKE_FETCH_FAIL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_same_as_local_shards),
        TU_TEST(test_through_a_cache_of_two_shards),
        TU_TEST(test_two_ranks_share_the_cache),
        TU_TEST(test_two_ranks_fetch_their_share_by_range),
        TU_TEST(test_ranges_through_a_cache_of_two_shards),
        TU_TEST(test_seek_back_into_an_epoch),
        TU_TEST(test_a_failed_get_names_the_url),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
