/* test_sampler.c - epoch permutations, rank shares, batch boundaries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sampler.h"

static void test_permutation(void **state)
{
    const uint64_t n = 1000;
    uint64_t *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8);
    char *seen = calloc(n, 1);
    feed__sampler_permutation(n, 42, 3, 1, a);
    for (uint64_t i = 0; i < n; i++) {
        assert_true(a[i] < n);
        assert_int_equal(seen[a[i]], 0); /* each index once */
        seen[a[i]] = 1;
    }
    feed__sampler_permutation(n, 42, 3, 1, b);
    assert_memory_equal(a, b, n * 8); /* same seed and epoch: same order */
    feed__sampler_permutation(n, 42, 4, 1, c);
    uint64_t same = 0;
    for (uint64_t i = 0; i < n; i++)
        same += a[i] == c[i];
    assert_true(same < 20); /* another epoch: another order (expected ~1 fixed point) */
    feed__sampler_permutation(n, 43, 3, 1, c);
    assert_true(memcmp(a, c, n * 8) != 0); /* another seed too */
    uint64_t moved = 0;
    for (uint64_t i = 0; i < n; i++)
        moved += a[i] != i;
    assert_true(moved > n / 2);
    feed__sampler_permutation(n, 42, 3, 0, c); /* no shuffle: identity */
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(c[i], i);
    free(a), free(b), free(c), free(seen);
}

static void test_batches(void **state)
{
    feed__sampler s;
    char err[256];
    uint64_t ids[64];
    /* 103 samples, batch 10: 11 batches, the last of 3. */
    assert_int_equal(feed__sampler_init(&s, 103, 10, 1, 0, 0, 1, 7, err, sizeof err), FEED_OK);
    assert_int_equal(s.nbatches, 11);
    char *seen = calloc(103, 1);
    uint64_t total = 0;
    for (uint64_t b = 0; b < s.nbatches; b++) {
        uint32_t n = feed__sampler_batch(&s, 5, b, ids);
        assert_int_equal(n, b == 10 ? 3 : 10);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(seen[ids[i]], 0);
            seen[ids[i]] = 1;
        }
        total += n;
    }
    assert_int_equal(total, 103);
    assert_int_equal(feed__sampler_batch(&s, 5, 11, ids), 0);
    /* Interleaving epochs (the ring spans a boundary) gives the same batches. */
    uint64_t x[10], y[10];
    feed__sampler_batch(&s, 5, 2, x);
    feed__sampler_batch(&s, 6, 0, y);
    feed__sampler_batch(&s, 7, 0, y);
    feed__sampler_batch(&s, 5, 2, y);
    assert_memory_equal(x, y, sizeof x);
    feed__sampler_free(&s);
    /* drop_last: 10 full batches only. */
    assert_int_equal(feed__sampler_init(&s, 103, 10, 1, 1, 0, 1, 7, err, sizeof err), FEED_OK);
    assert_int_equal(s.nbatches, 10);
    assert_int_equal(feed__sampler_batch(&s, 0, 9, ids), 10);
    feed__sampler_free(&s);
    /* Too few samples for one batch with drop_last: an error naming the counts. */
    assert_int_equal(feed__sampler_init(&s, 5, 10, 1, 1, 0, 1, 7, err, sizeof err), FEED_E_DATASET);
    assert_non_null(strstr(err, "5 samples"));
    free(seen);
}

static void test_ranks(void **state)
{
    /* 4 ranks over 1001 samples: shares are disjoint but for the wrap-around
     * padding, equal in length, and cover everything. */
    const uint64_t n = 1001;
    const uint32_t W = 4, B = 16;
    uint32_t *hits = calloc(n, sizeof *hits);
    uint64_t nb = 0;
    for (uint32_t r = 0; r < W; r++) {
        feed__sampler s;
        char err[256];
        assert_int_equal(feed__sampler_init(&s, n, B, 1, 0, r, W, 99, err, sizeof err), FEED_OK);
        assert_int_equal(s.per_rank, 251);
        if (r == 0)
            nb = s.nbatches;
        assert_int_equal(s.nbatches, nb); /* ranks stay in step */
        uint64_t ids[16];
        for (uint64_t b = 0; b < s.nbatches; b++) {
            uint32_t c = feed__sampler_batch(&s, 2, b, ids);
            for (uint32_t i = 0; i < c; i++)
                hits[ids[i]]++;
        }
        feed__sampler_free(&s);
    }
    uint32_t twice = 0;
    for (uint64_t i = 0; i < n; i++) {
        assert_true(hits[i] >= 1);
        twice += hits[i] - 1;
    }
    assert_int_equal(twice, 4 * 251 - n); /* exactly the padding */
    free(hits);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permutation),
        cmocka_unit_test(test_batches),
        cmocka_unit_test(test_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
