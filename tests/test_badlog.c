/*
 * test_badlog.c - the bad-sample record stays bounded: however many bad
 * samples over however many epochs, it keeps at most FEED_BAD_KEEP reports
 * (the most recent ones, numbered from the first ever) and its
 * deduplication set only spans one epoch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arena/arena.h"
#include "dataset/index.h"
#include "loader/badlog.h"
#include "testutil.h"

#define B 8

/* Marks every sample of slot 0 replaced, as batch `batch` of `epoch` (in
 * the parent's checked copies, which the log reads: verify.h). */
static void fill_slot(feed__arena *a, uint64_t epoch, uint64_t batch, uint64_t n)
{
    feed__slot_meta *m = &a->meta[0];
    m->count = B;
    m->epoch = epoch;
    m->index = batch;
    for (uint32_t t = 0; t < B; t++) {
        m->s[t].id = (batch * B + t) % n;
        m->s[t].got_status = FEED_E_DECODE;
        snprintf(m->s[t].got_message, sizeof m->s[t].got_message, "broken %u", t);
        m->flags[t] = FEED_SAMPLE_REPLACED;
    }
}

static void test_bounded(void **state)
{
    feed__index ix;
    char *dir = tu_dataset("badlog", 16, 1, 2, &ix);
    feed__arena a;
    char err[256];
    feed__arena_geom g = {2, B, 1, 16, 0, 0};
    assert_int_equal(feed__arena_create(&a, &g, err, sizeof err), FEED_OK);
    feed__badlog b;
    feed_options o;
    feed_options_init(&o, sizeof o);
    o.report_bad = 0; /* 11200 lines on stderr otherwise */
    assert_int_equal(feed__badlog_init(&b, ix.hdr, B, &o, err, sizeof err), FEED_OK);
    const uint64_t epochs = 700, per_epoch = 2; /* 2 batches of 8 = the whole dataset */
    for (uint64_t e = 0; e < epochs; e++)
        for (uint64_t k = 0; k < per_epoch; k++) {
            fill_slot(&a, e, k, ix.hdr->count);
            assert_int_equal(feed__badlog_harvest(&b, &a, 0), B);
            fill_slot(&a, e, k, ix.hdr->count); /* the same batch again: no new report */
            assert_int_equal(feed__badlog_harvest(&b, &a, 0), B);
        }
    uint64_t total = epochs * per_epoch * B;
    assert_int_equal(b.samples_bad, 2 * total); /* every replacement delivered */
    assert_int_equal(b.nbad, total);            /* one report per (epoch, sample) */
    uint64_t kept = 0, first = UINT64_MAX;
    feed_bad_sample r;
    for (uint64_t i = 0; i < total; i++)
        if (feed__badlog_get(&b, i, &r) == FEED_OK) {
            kept++;
            if (first == UINT64_MAX)
                first = i;
        }
    if (kept > 1024)
        fail_msg("%llu reports kept: the record grows without bound", (unsigned long long)kept);
    assert_int_equal(kept, 1024);
    assert_int_equal(first, total - 1024); /* the most recent ones */
    assert_int_equal(feed__badlog_get(&b, total - 1, &r), FEED_OK);
    assert_int_equal(r.epoch, epochs - 1);
    assert_int_equal(r.batch, per_epoch - 1);
    assert_int_equal(r.sample_id, ix.hdr->count - 1);
    assert_non_null(strstr(r.path, feed__index_path(ix.hdr, r.sample_id)));
    assert_string_equal(r.message, "broken 7");
    assert_true(b.set_n <= per_epoch * B); /* the dedup set spans one epoch */
    feed__badlog_free(&b);
    feed__arena_close(&a);
    feed__index_free(&ix);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
