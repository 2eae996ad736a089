/*
 * test_substitute.c - the deterministic substitute of a bad sample
 * (feed__substitute, arena/protocol.h), and of its position in its own batch
 * (feed__substitute_pos), against oracles that do not call them:
 *   - recorded values (computed once and kept here): any change of the
 *     function changes which sample stands in for a bad one, and so the
 *     batches of a run resumed under another build;
 *   - their properties: never the sample itself, always in the dataset (the batch), a
 *     function of the seed, the epoch, the id and k, each mattering (a bad
 *     sample should not get the same stand-in every epoch), spread evenly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arena/protocol.h"

static void test_recorded(void **state)
{
    static const struct {
        uint64_t seed, epoch, id;
        uint32_t k;
        uint64_t n, want;
    } gold[] = {
        {7, 0, 0, 1, 1000, 608},   {7, 0, 0, 2, 1000, 564},   {7, 0, 5, 1, 1000, 706},
        {7, 0, 5, 2, 1000, 686},   {7, 0, 999, 1, 1000, 572}, {7, 0, 999, 2, 1000, 964},
        {7, 1, 0, 1, 1000, 459},   {7, 1, 0, 2, 1000, 953},   {7, 1, 5, 1, 1000, 922},
        {7, 1, 5, 2, 1000, 719},   {7, 1, 999, 1, 1000, 866}, {7, 1, 999, 2, 1000, 779},
    };
    for (size_t i = 0; i < sizeof gold / sizeof *gold; i++) {
        uint64_t got = feed__substitute(gold[i].seed, gold[i].epoch, gold[i].id, gold[i].k, gold[i].n);
        if (got != gold[i].want)
            fail_msg("substitute(seed %llu, epoch %llu, id %llu, k %u, n %llu) = %llu, recorded %llu",
                     (unsigned long long)gold[i].seed, (unsigned long long)gold[i].epoch,
                     (unsigned long long)gold[i].id, gold[i].k, (unsigned long long)gold[i].n,
                     (unsigned long long)got, (unsigned long long)gold[i].want);
    }
}

/* How many of 200 ids get another substitute when one input changes. */
static int changed(uint64_t dseed, uint64_t depoch, uint32_t dk)
{
    int n = 0;
    for (uint64_t id = 0; id < 200; id++)
        n += feed__substitute(3, 4, id, 1, 5000) != feed__substitute(3 + dseed, 4 + depoch, id, 1 + dk, 5000);
    return n;
}

static void test_properties(void **state)
{
    const uint64_t n = 10;
    uint32_t hits[10] = {0};
    for (uint64_t epoch = 0; epoch < 200; epoch++)
        for (uint64_t id = 0; id < n; id++)
            for (uint32_t k = 1; k <= FEED_SUBSTITUTE_MAX; k += 21) {
                uint64_t s = feed__substitute(1, epoch, id, k, n);
                assert_true(s < n);
                assert_true(s != id);
                hits[s]++;
            }
    /* 200 * 10 * 4 draws over 10 values, 800 expected each: binomial sd
     * about 27; 6 sd either side */
    for (uint64_t v = 0; v < n; v++)
        if (hits[v] < 800 - 160 || hits[v] > 800 + 160)
            fail_msg("value %llu drawn %u times of 8000 (800 expected)", (unsigned long long)v, hits[v]);
    /* each input matters: out of 5000, a collision by chance is 1 in 4999 */
    assert_true(changed(1, 0, 0) >= 190);
    assert_true(changed(0, 1, 0) >= 190);
    assert_true(changed(0, 0, 1) >= 190);
    assert_int_equal(changed(0, 0, 0), 0);
    /* one sample alone has no other to stand in */
    assert_int_equal(feed__substitute(1, 2, 0, 1, 1), 0);
}

static void test_pos_recorded(void **state)
{
    static const struct {
        uint64_t seed, epoch, id;
        uint32_t k, t, n, want;
    } gold[] = {
        {7, 0, 0, 1, 0, 8, 5},   {7, 0, 0, 1, 7, 8, 4},   {7, 0, 0, 2, 0, 8, 4},   {7, 0, 0, 2, 7, 8, 3},
        {7, 0, 999, 1, 0, 8, 5}, {7, 0, 999, 1, 7, 8, 4}, {7, 0, 999, 2, 0, 8, 7}, {7, 0, 999, 2, 7, 8, 6},
        {7, 1, 0, 1, 0, 8, 4},   {7, 1, 0, 1, 7, 8, 3},   {7, 1, 0, 2, 0, 8, 7},   {7, 1, 0, 2, 7, 8, 6},
        {7, 1, 999, 1, 0, 8, 7}, {7, 1, 999, 1, 7, 8, 6}, {7, 1, 999, 2, 0, 8, 6}, {7, 1, 999, 2, 7, 8, 5},
    };
    for (size_t i = 0; i < sizeof gold / sizeof *gold; i++) {
        uint32_t got = feed__substitute_pos(gold[i].seed, gold[i].epoch, gold[i].id, gold[i].k, gold[i].t, gold[i].n);
        if (got != gold[i].want)
            fail_msg("substitute_pos(seed %llu, epoch %llu, id %llu, k %u, t %u, n %u) = %u, recorded %u",
                     (unsigned long long)gold[i].seed, (unsigned long long)gold[i].epoch,
                     (unsigned long long)gold[i].id, gold[i].k, gold[i].t, gold[i].n, got, gold[i].want);
    }
}

/* How many of 200 ids get another position when one input changes. */
static int pos_changed(uint64_t dseed, uint64_t depoch, uint64_t did, uint32_t dk)
{
    int n = 0;
    for (uint64_t id = 0; id < 200; id++)
        n += feed__substitute_pos(3, 4, id, 1, 10, 5000) !=
             feed__substitute_pos(3 + dseed, 4 + depoch, id + did * 1000, 1 + dk, 10, 5000);
    return n;
}

static void test_pos_properties(void **state)
{
    const uint32_t n = 10;
    uint32_t hits[10][10] = {{0}};
    for (uint64_t epoch = 0; epoch < 100; epoch++)
        for (uint64_t id = 0; id < 20; id++)
            for (uint32_t t = 0; t < n; t++)
                for (uint32_t k = 1; k <= FEED_SUBSTITUTE_MAX; k += 21) {
                    uint32_t u = feed__substitute_pos(1, epoch, id, k, t, n);
                    assert_true(u < n);
                    assert_true(u != t);
                    hits[t][u]++;
                }
    /* for each t, 100 * 20 * 4 draws over the 9 other positions, about 889
     * expected each: binomial sd about 28; 6 sd either side */
    for (uint32_t t = 0; t < n; t++)
        for (uint32_t u = 0; u < n; u++)
            if (u != t && (hits[t][u] < 889 - 170 || hits[t][u] > 889 + 170))
                fail_msg("position %u drawn %u times of 8000 for t %u (889 expected)", u, hits[t][u], t);
    /* each input matters: out of 4999 positions, a collision by chance is 1 in 4999 */
    assert_true(pos_changed(1, 0, 0, 0) >= 190);
    assert_true(pos_changed(0, 1, 0, 0) >= 190);
    assert_true(pos_changed(0, 0, 1, 0) >= 190);
    assert_true(pos_changed(0, 0, 0, 1) >= 190);
    assert_int_equal(pos_changed(0, 0, 0, 0), 0);
    /* no other sample in the batch: the position itself */
    assert_int_equal(feed__substitute_pos(1, 2, 3, 1, 0, 1), 0);
    assert_int_equal(feed__substitute_pos(1, 2, 3, 1, 0, 0), 0);
    assert_int_equal(feed__substitute_pos(1, 2, 3, 1, 5, 5), 5);
    /* two samples: always the other */
    for (uint32_t k = 1; k <= FEED_SUBSTITUTE_MAX; k++) {
        assert_int_equal(feed__substitute_pos(1, 2, 3, k, 0, 2), 1);
        assert_int_equal(feed__substitute_pos(1, 2, 3, k, 1, 2), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded),
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_pos_recorded),
        cmocka_unit_test(test_pos_properties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
