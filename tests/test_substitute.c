/*
 * test_substitute.c - the deterministic substitute of a bad sample
 * (feed__substitute, arena/protocol.h), against oracles that do not call it:
 *   - recorded values (computed once and kept here): any change of the
 *     function changes which sample stands in for a bad one, and so the
 *     batches of a run resumed under another build;
 *   - its properties: never the sample itself, always in the dataset, a
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded),
        cmocka_unit_test(test_properties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
