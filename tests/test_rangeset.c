/* test_rangeset.c - byte range sets (remote/rangeset.h) against a model: one
 * flag a byte, over random adds, removes, covers and gaps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "remote/rangeset.h"

#define SPAN 300

static void check_shape(const feed__rangeset *s, const uint8_t *model)
{
    uint8_t seen[SPAN] = {0};
    for (size_t i = 0; i < s->n; i++) {
        assert_true(s->v[i].lo < s->v[i].hi);
        assert_true(s->v[i].hi <= SPAN);
        if (i)
            assert_true(s->v[i - 1].hi < s->v[i].lo); /* sorted, neither overlapping nor touching */
        for (uint64_t b = s->v[i].lo; b < s->v[i].hi; b++)
            seen[b] = 1;
    }
    assert_memory_equal(seen, model, SPAN);
}

static void random_ops_match_the_model(void **state)
{
    (void)state;
    srand(7);
    for (int round = 0; round < 40; round++) {
        feed__rangeset s = {0}, t = {0};
        uint8_t model[SPAN] = {0}, tmodel[SPAN] = {0};
        for (int op = 0; op < 400; op++) {
            uint64_t lo = (uint64_t)(rand() % SPAN), hi = lo + (uint64_t)(rand() % 40);
            if (hi > SPAN)
                hi = SPAN;
            int what = rand() % 5;
            if (what <= 1) {
                assert_int_equal(feed__rangeset_add(&s, lo, hi), 0);
                memset(model + lo, 1, hi - lo);
            } else if (what == 2) {
                assert_int_equal(feed__rangeset_remove(&s, lo, hi), 0);
                memset(model + lo, 0, hi - lo);
            } else if (what == 3) {
                assert_int_equal(feed__rangeset_add(&t, lo, hi), 0);
                memset(tmodel + lo, 1, hi - lo);
            } else {
                int want = 1;
                for (uint64_t b = lo; b < hi; b++)
                    want &= model[b];
                assert_int_equal(feed__rangeset_covers(&s, lo, hi), want);
            }
            check_shape(&s, model);
            /* the gaps of a random range in neither set, against the model's */
            uint64_t glo = (uint64_t)(rand() % SPAN), ghi = glo + (uint64_t)(rand() % 120);
            if (ghi > SPAN)
                ghi = SPAN;
            feed__span g[SPAN];
            size_t ng = feed__rangeset_gaps(&s, &t, glo, ghi, g, SPAN);
            uint8_t got[SPAN] = {0}, want[SPAN] = {0};
            for (size_t k = 0; k < ng; k++) {
                assert_true(g[k].lo < g[k].hi);
                if (k)
                    assert_true(g[k - 1].hi < g[k].lo || (g[k - 1].hi <= g[k].lo));
                memset(got + g[k].lo, 1, g[k].hi - g[k].lo);
            }
            for (uint64_t b = glo; b < ghi; b++)
                want[b] = !model[b] && !tmodel[b];
            assert_memory_equal(got, want, SPAN);
            /* each gap is a whole run: its neighbours are in a set or outside the range */
            for (size_t k = 0; k < ng; k++) {
                assert_true(g[k].lo == glo || model[g[k].lo - 1] || tmodel[g[k].lo - 1]);
                assert_true(g[k].hi == ghi || model[g[k].hi] || tmodel[g[k].hi]);
            }
        }
        feed__rangeset_free(&s);
        feed__rangeset_free(&t);
    }
}

static void gaps_stop_at_cap_and_go_on(void **state)
{
    (void)state;
    feed__rangeset s = {0};
    for (uint64_t b = 10; b < 100; b += 20)
        assert_int_equal(feed__rangeset_add(&s, b, b + 10), 0); /* [10,20) [30,40) ... [90,100) */
    feed__span g[2];
    assert_int_equal(feed__rangeset_gaps(&s, NULL, 0, 100, g, 2), 2);
    assert_true(g[0].lo == 0 && g[0].hi == 10 && g[1].lo == 20 && g[1].hi == 30);
    assert_int_equal(feed__rangeset_gaps(&s, NULL, g[1].hi, 100, g, 2), 2);
    assert_true(g[0].lo == 40 && g[0].hi == 50 && g[1].lo == 60 && g[1].hi == 70);
    assert_true(feed__rangeset_covers(&s, 30, 40) && !feed__rangeset_covers(&s, 30, 41));
    assert_true(feed__rangeset_covers(&s, 5, 5)); /* empty */
    assert_int_equal(feed__rangeset_add(&s, 20, 30), 0); /* touching both: one range */
    assert_int_equal(s.n, 4);
    assert_true(s.v[0].lo == 10 && s.v[0].hi == 40);
    assert_int_equal(feed__rangeset_remove(&s, 15, 35), 0); /* split */
    assert_true(s.v[0].lo == 10 && s.v[0].hi == 15 && s.v[1].lo == 35 && s.v[1].hi == 40);
    feed__rangeset_clear(&s);
    assert_int_equal(s.n, 0);
    assert_false(feed__rangeset_covers(&s, 0, 1));
    feed__rangeset_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_ops_match_the_model),
        cmocka_unit_test(gaps_stop_at_cap_and_go_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
