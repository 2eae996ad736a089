/*
 * test_fault_batchsub.c - substitutes from the bad sample's own batch
 * (FEED_SUBSTITUTE_BATCH, set for local data by FEED_TEST_SUBSTITUTE=batch
 * in test builds), end to end: workers decode, the parent checks, the
 * loader delivers.
 *
 * Every batch is delivered; a bad sample's position holds another sample
 * the same batch asked for (never one outside it, never a bad one), with
 * the pixels and label that sample has at its own position; the first good
 * one of the positions feed__substitute_pos draws; the same batches with 1
 * and 3 workers. A batch of one sample has no other: its bad sample fails
 * the batch instead of delivering zeros (over the whole dataset it does not).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arena/protocol.h"
#include "faultutil.h"

#define NGOOD 29
#define NBAD 3 /* 32 samples: whole batches of FU_BATCH */
#define EPOCHS 2

static const char *const bad_names[NBAD] = {"bad_trunc.jpg", "bad_zero.jpg", "bad_noise.jpg"};
static uint8_t is_bad[FU_MAX_N];

static int setup(void **state)
{
    fu_setup_data("fbatchsub", NGOOD, 3); /* then the bad files beside, and the index again */
    char p[4200];
    snprintf(p, sizeof p, "%s/class_000/img_000000.jpg", fu_data);
    size_t len;
    uint8_t *good = fu_read(p, &len);
    uint8_t noise[2000];
    uint64_t x = 99;
    for (size_t i = 0; i < sizeof noise; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        noise[i] = (uint8_t)(x >> 56);
    }
    const void *data[NBAD] = {good, "", noise};
    const size_t lens[NBAD] = {len / 3, 0, sizeof noise};
    for (int k = 0; k < NBAD; k++) {
        snprintf(p, sizeof p, "%s/class_%03d/%s", fu_data, k % 3, bad_names[k]);
        tu_write(p, data[k], lens[k]);
    }
    free(good);
    char err[512];
    feed__index_free(&fu_ix);
    if (feed__index_build(&fu_ix, fu_data, "", err, sizeof err) != FEED_OK || fu_ix.hdr->count != NGOOD + NBAD) {
        fprintf(stderr, "index: %s\n", err);
        exit(1);
    }
    for (int k = 0; k < NBAD; k++)
        is_bad[fu_id_of(bad_names[k])] = 1;
    return 0;
}

static int teardown(void **state)
{
    fu_teardown_data();
    return 0;
}

/* What a run delivered: ids and hashes of pixels and labels, in order. */
typedef struct run_out {
    uint64_t id[EPOCHS][FU_MAX_N], hash[EPOCHS][FU_MAX_N];
    uint64_t replaced;
} run_out;

static void run_batch_mode(uint32_t workers, run_out *out)
{
    char opts[256];
    snprintf(opts, sizeof opts, "workers=%u,epochs=%u,max_bad_fraction=0.5", workers, EPOCHS);
    setenv("FEED_TEST_SUBSTITUTE", "batch", 1);
    feed_loader *L = fu_make(opts, NULL);
    unsetenv("FEED_TEST_SUBSTITUTE"); /* read at create */
    const uint64_t n = fu_nsamples();
    uint64_t reports = 0;
    memset(out, 0, sizeof *out);
    for (uint32_t e = 0; e < EPOCHS; e++) {
        feed_batch b = {.struct_size = sizeof b};
        feed_status st;
        uint64_t pos = 0, nb = 0;
        while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
            assert_int_equal(b.count, FU_BATCH);
            /* what the batch asked: each position's own id, or for a
             * replaced one the id its report names (reports come in the
             * order of the replaced positions) */
            uint64_t asked[FU_BATCH];
            for (uint32_t i = 0; i < b.count; i++) {
                asked[i] = b.sample_ids[i];
                if (b.flags[i] & FEED_SAMPLE_REPLACED) {
                    feed_bad_sample r = {.struct_size = sizeof r};
                    assert_int_equal(feed_loader_bad_sample(L, reports++, &r), FEED_OK);
                    assert_int_equal(r.epoch, e);
                    assert_int_equal(r.batch, nb);
                    asked[i] = r.sample_id;
                }
                assert_true(asked[i] < n);
                assert_int_equal(!!(b.flags[i] & FEED_SAMPLE_REPLACED), is_bad[asked[i]]);
            }
            for (uint32_t i = 0; i < b.count; i++) {
                uint64_t got = b.sample_ids[i];
                out->id[e][pos + i] = got;
                out->hash[e][pos + i] = fu_sample_hash(&b, i);
                assert_false(is_bad[got]);
                assert_int_equal(b.labels[i], feed__index_label(fu_ix.hdr, got));
                if (!(b.flags[i] & FEED_SAMPLE_REPLACED))
                    continue;
                out->replaced++;
                /* the first drawn position that holds a good sample */
                uint64_t want = UINT64_MAX;
                for (uint32_t k = 1; k <= FEED_SUBSTITUTE_MAX && want == UINT64_MAX; k++) {
                    uint32_t u = feed__substitute_pos(FU_SEED, e, asked[i], k, i, b.count);
                    assert_true(u != i && u < b.count);
                    if (!is_bad[asked[u]])
                        want = asked[u];
                }
                uint32_t j = 0;
                while (j < b.count && (j == i || asked[j] != got))
                    j++;
                if (j == b.count)
                    fail_msg("epoch %u batch %llu: %s replaced by %s, which the batch did not ask for", e,
                             (unsigned long long)nb, fu_name(asked[i]), fu_name(got));
                assert_int_equal(got, want);
                /* decoded as at its own position: the same keys, the same pixels */
                assert_int_equal(out->hash[e][pos + i], fu_sample_hash(&b, j));
            }
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
            pos += b.count;
            nb++;
        }
        assert_int_equal(st, FEED_END_OF_EPOCH);
        assert_int_equal(pos, n);
    }
    assert_int_equal(out->replaced, EPOCHS * NBAD);
    assert_int_equal(feed_loader_bad_count(L), EPOCHS * NBAD);
    feed_stats s = fu_stats(L);
    assert_int_equal(s.samples_delivered, EPOCHS * n);
    assert_int_equal(s.worker_restarts, 0);
    fu_destroy(L);
    fu_assert_no_children();
}

static void test_batch_substitutes(void **state)
{
    static run_out one, three;
    run_batch_mode(1, &one);
    run_batch_mode(3, &three);
    const uint64_t n = fu_nsamples();
    for (uint32_t e = 0; e < EPOCHS; e++)
        for (uint64_t i = 0; i < n; i++) {
            if (one.id[e][i] != three.id[e][i])
                fail_msg("epoch %u position %llu: %s with 1 worker, %s with 3", e, (unsigned long long)i,
                         fu_name(one.id[e][i]), fu_name(three.id[e][i]));
            assert_int_equal(one.hash[e][i], three.hash[e][i]);
        }
}

/* Batches of one sample: the bad one fails its batch, naming it. */
static void test_batch_of_one(void **state)
{
    const char *opts = "workers=2,batch_size=1,shuffle=false,max_bad_fraction=1";
    /* over the whole dataset every batch comes */
    feed_loader *L = fu_make(opts, NULL);
    feed_batch b = {.struct_size = sizeof b};
    uint64_t got = 0;
    feed_status st;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        assert_int_equal(b.count, 1);
        assert_false(is_bad[b.sample_ids[0]]);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
        got++;
    }
    assert_int_equal(st, FEED_END_OF_EPOCH);
    assert_int_equal(got, fu_nsamples());
    fu_destroy(L);

    setenv("FEED_TEST_SUBSTITUTE", "batch", 1);
    L = fu_make(opts, NULL);
    unsetenv("FEED_TEST_SUBSTITUTE");
    uint64_t first_bad = 0;
    while (!is_bad[first_bad])
        first_bad++;
    for (uint64_t i = 0; i < first_bad; i++) { /* in order: the good ones before it come */
        assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
        assert_int_equal(b.sample_ids[0], i);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    st = feed_loader_next(L, &b, 60000);
    if (st == FEED_OK)
        fail_msg("the batch of bad %s alone was delivered (as %s, flags 0x%x)", fu_name(first_bad),
                 fu_name(b.sample_ids[0]), b.flags[0]);
    assert_int_equal(st, FEED_E_DATASET);
    const char *le = feed_loader_last_error(L);
    if (!strstr(le, fu_name(first_bad)) || !strstr(le, "no substitute"))
        fail_msg("last error '%s' should name %s and say 'no substitute'", le, fu_name(first_bad));
    fu_destroy(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TU_TEST(test_batch_substitutes),
        TU_TEST(test_batch_of_one),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
