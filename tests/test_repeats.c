/*
 * test_repeats.c - repeated augmentation (option repeats), end to end with
 * real workers: over an epoch every sample comes `repeats` times in all ranks
 * together, its repeats on different ranks when world_size >= repeats, each
 * repeat with its own draws (the pixels of the in-process pipeline keyed by
 * sample id + j * n for repeat j, repeat 0 being the sample's own, so
 * repeats=1 is the loader without the option, bitwise); a resume by sample
 * position gives the same batches; the worker count changes nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset/index.h"
#include "hooks/loader_test.h"
#include "pixels/pipeline.h"
#include "testutil.h"

#define NIMG 48 /* 48 * 3 positions: a multiple of 1 and 4 ranks, no padding */
#define NCLASS 4
#define BATCH 8
#define SIDE 32
#define REPEATS 3
#define SEED 1234

static char *data;
static feed__index ix;

static int setup(void **state)
{
    (void)state;
    data = tu_dataset("repeats", NIMG, 5, NCLASS, &ix);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    feed__index_free(&ix);
    tu_rmtree(data);
    free(data);
    return 0;
}

static feed_loader *make(const char *extra)
{
    char base[128], err[1024];
    feed_loader *L;
    snprintf(base, sizeof base, "batch_size=%d,height=%d,width=%d,seed=%llu", BATCH, SIDE, SIDE,
             (unsigned long long)SEED);
    if (tu_loader(&L, data, base, extra, err, sizeof err) != FEED_OK)
        fail_msg("create (%s): %s", extra, err);
    return L;
}

/* Sample id's pixels in epoch with its draws keyed by draw, in-process. */
static void reference(feed_loader *L, uint64_t epoch, uint64_t id, uint64_t draw, uint8_t *out)
{
    static feed__image_ctx *ctx;
    if (!ctx)
        ctx = feed__image_ctx_create();
    char p[8192], msg[256];
    snprintf(p, sizeof p, "%s/%s", ix.hdr->root, feed__index_path(ix.hdr, id));
    size_t len;
    uint8_t *b = tu_read_file(p, &len);
    feed__image_info info;
    if (feed__image_process(ctx, feed__loader_xform(L), b, len, SEED, epoch, draw, out, &info, msg,
                            sizeof msg) != FEED_OK)
        fail_msg("reference of %s: %s", p, msg);
    free(b);
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* One epoch of world_size W, rank by rank (a loader each): which rank got
 * each repeat of each sample, the repeat found by its pixels (those of the
 * reference with draw id + j * NIMG; the three differ). */
static void check_world(uint32_t W, uint64_t epoch)
{
    uint32_t count[NIMG] = {0}, rank_of[NIMG][REPEATS];
    uint8_t got_rep[NIMG][REPEATS] = {{0}};
    size_t sb = SIDE * SIDE * 3;
    uint8_t *ref = malloc(REPEATS * sb);
    for (uint32_t r = 0; r < W; r++) {
        char opts[160];
        snprintf(opts, sizeof opts, "workers=2,augment=train,repeats=%d,world_size=%u,rank=%u,"
                 "start_epoch=%llu,epochs=1", REPEATS, W, r, (unsigned long long)epoch);
        feed_loader *L = make(opts);
        assert_int_equal(feed_loader_dataset_size(L), NIMG);
        assert_int_equal(feed_loader_samples_per_epoch(L), NIMG * REPEATS / W);
        assert_int_equal(feed_loader_batches_per_epoch(L), (NIMG * REPEATS / W + BATCH - 1) / BATCH);
        feed_batch b = {.struct_size = sizeof b};
        feed_status st;
        uint64_t nb = 0, ns = 0;
        while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
            assert_int_equal(b.epoch, epoch);
            assert_int_equal(b.index, nb);
            for (uint32_t i = 0; i < b.count; i++) {
                uint64_t id = b.sample_ids[i];
                assert_true(id < NIMG);
                assert_int_equal(b.labels[i], feed__index_label(ix.hdr, id));
                for (uint32_t j = 0; j < REPEATS; j++)
                    reference(L, epoch, id, id + (uint64_t)j * NIMG, ref + j * sb);
                for (uint32_t j = 0; j < REPEATS; j++)
                    for (uint32_t k = j + 1; k < REPEATS; k++)
                        assert_memory_not_equal(ref + j * sb, ref + k * sb, sb);
                uint32_t j = 0;
                while (j < REPEATS && memcmp((uint8_t *)b.data + i * b.sample_bytes, ref + j * sb, sb))
                    j++;
                if (j == REPEATS)
                    fail_msg("W %u rank %u: sample %llu's pixels are none of its repeats'", W, r,
                             (unsigned long long)id);
                assert_int_equal(got_rep[id][j], 0); /* each repeat once */
                got_rep[id][j] = 1;
                rank_of[id][j] = r;
                count[id]++;
            }
            nb++;
            ns += b.count;
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
        }
        assert_int_equal(st, FEED_END_OF_EPOCH);
        assert_int_equal(ns, NIMG * REPEATS / W);
        uint64_t e, c;
        assert_int_equal(feed_loader_position_samples(L, &e, &c), FEED_OK);
        assert_true(e == epoch + 1 && c == 0);
        feed_loader_destroy(L);
    }
    for (uint32_t id = 0; id < NIMG; id++) {
        assert_int_equal(count[id], REPEATS);
        if (W >= REPEATS) /* RASampler's point: a sample's repeats on different ranks */
            for (uint32_t j = 0; j < REPEATS; j++)
                for (uint32_t k = j + 1; k < REPEATS; k++)
                    assert_int_not_equal(rank_of[id][j], rank_of[id][k]);
    }
    free(ref);
}

static void test_every_repeat_once_1_rank(void **state)
{
    (void)state;
    check_world(1, 0);
}

static void test_every_repeat_once_4_ranks(void **state)
{
    (void)state;
    check_world(4, 1);
}

/* Hash of each batch (pixels, ids, labels) of epoch 0 from its batch `from`,
 * and the (epoch, consumed) before it; returns the number of batches. */
static uint32_t run_hashes(const char *opts, uint32_t from, uint64_t *h, uint32_t cap,
                           uint64_t *consumed_at_from)
{
    feed_loader *L = make(opts);
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    uint32_t n = 0;
    for (uint32_t k = 0; (st = feed_loader_next(L, &b, 60000)) == FEED_OK; k++) {
        if (k >= from) {
            assert_true(n < cap);
            h[n++] = hash_bytes(hash_bytes(hash_bytes(7, b.data, b.count * b.sample_bytes),
                                           b.sample_ids, b.count * 8),
                                b.labels, b.count * 4);
        }
        feed_batch_release(L, &b, NULL);
        if (k + 1 == from && consumed_at_from) {
            uint64_t e;
            assert_int_equal(feed_loader_position_samples(L, &e, consumed_at_from), FEED_OK);
            assert_int_equal(e, 0);
            /* elsewhere and back: the ring is drained and refilled from there */
            assert_int_equal(feed_loader_seek_samples(L, 0, 0), FEED_OK);
            assert_int_equal(feed_loader_seek_samples(L, 0, *consumed_at_from), FEED_OK);
        }
    }
    assert_int_equal(st, FEED_END_OF_EPOCH);
    feed_loader_destroy(L);
    return n;
}

/* 1 vs 3 workers: the same batches. A resume at the sample position after
 * batch 5 (of the n * repeats order: 5 * 8 * 2 = 80 with two ranks), in a new
 * loader, gives the full run's batches 5, 6, ... And repeats=1 is the loader
 * without the option. */
static void test_workers_and_resume(void **state)
{
    (void)state;
    const char *base = "augment=train,repeats=3,world_size=2,rank=1,epochs=1";
    char o1[160], o3[160];
    snprintf(o1, sizeof o1, "workers=1,%s", base);
    snprintf(o3, sizeof o3, "workers=3,%s", base);
    uint64_t h1[32], h3[32], hr[32];
    uint32_t n1 = run_hashes(o1, 0, h1, 32, NULL);
    assert_int_equal(n1, (NIMG * 3 / 2 + BATCH - 1) / BATCH);
    assert_int_equal(run_hashes(o3, 0, h3, 32, NULL), n1);
    assert_memory_equal(h1, h3, n1 * sizeof *h1);

    uint64_t consumed = 0;
    /* the same loader: position after batch 4, away, then back there */
    uint32_t nr = run_hashes(o3, 5, hr, 32, &consumed);
    assert_int_equal(consumed, 5 * BATCH * 2);
    assert_int_equal(nr, n1 - 5);
    assert_memory_equal(hr, h1 + 5, nr * sizeof *hr);
    /* a new loader that seeks there */
    feed_loader *L = make(o1);
    assert_int_equal(feed_loader_seek_samples(L, 0, consumed), FEED_OK);
    feed_batch b = {.struct_size = sizeof b};
    uint32_t k = 0;
    while (feed_loader_next(L, &b, 60000) == FEED_OK) {
        assert_true(5 + k < n1);
        uint64_t h = hash_bytes(hash_bytes(hash_bytes(7, b.data, b.count * b.sample_bytes),
                                           b.sample_ids, b.count * 8),
                                b.labels, b.count * 4);
        assert_int_equal(h, h1[5 + k]);
        assert_int_equal(b.index, 5 + k);
        k++;
        feed_batch_release(L, &b, NULL);
    }
    assert_int_equal(k, n1 - 5);
    /* positions run to n * repeats: the last one is valid, the next is not */
    assert_int_equal(feed_loader_seek_samples(L, 0, NIMG * 3 - 1), FEED_OK);
    assert_int_equal(feed_loader_seek_samples(L, 0, NIMG * 3), FEED_E_INVALID);
    assert_non_null(strstr(feed_loader_last_error(L), "repeats=3"));
    feed_loader_destroy(L);

    uint64_t a[8], d[8];
    uint32_t na = run_hashes("workers=2,augment=train,epochs=1", 0, a, 8, NULL);
    assert_int_equal(run_hashes("workers=2,augment=train,repeats=1,epochs=1", 0, d, 8, NULL), na);
    assert_memory_equal(a, d, na * sizeof *a);
}

/* repeats=1: every sample's pixels are those of its own draws (the
 * reference keyed by its id), as without the option. */
static void test_repeats_one_is_the_sample(void **state)
{
    (void)state;
    feed_loader *L = make("workers=2,augment=train,repeats=1,epochs=1");
    assert_int_equal(feed_loader_samples_per_epoch(L), NIMG);
    uint8_t *ref = malloc(SIDE * SIDE * 3);
    feed_batch b = {.struct_size = sizeof b};
    uint32_t seen[NIMG] = {0};
    while (feed_loader_next(L, &b, 60000) == FEED_OK) {
        for (uint32_t i = 0; i < b.count; i++) {
            reference(L, 0, b.sample_ids[i], b.sample_ids[i], ref);
            assert_memory_equal((uint8_t *)b.data + i * b.sample_bytes, ref, SIDE * SIDE * 3);
            seen[b.sample_ids[i]]++;
        }
        feed_batch_release(L, &b, NULL);
    }
    for (uint32_t i = 0; i < NIMG; i++)
        assert_int_equal(seen[i], 1);
    free(ref);
    feed_loader_destroy(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_repeat_once_1_rank),
        cmocka_unit_test(test_every_repeat_once_4_ranks),
        cmocka_unit_test(test_workers_and_resume),
        cmocka_unit_test(test_repeats_one_is_the_sample),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
