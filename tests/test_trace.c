/*
 * test_trace.c - the parent's reader of the workers' timeline rings
 * (src/supervise/trace.c), on an arena whose rings the test fills as a worker would.
 * A worker that has published head may already be writing event head over
 * event head - FEED_TRACE_RING: the reader must never return that one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "supervise/trace.h"

#define R FEED_TRACE_RING

static feed__arena arena;

static int setup(void **state)
{
    feed__arena_geom g = {2, 4, 2, 64, 0, 0};
    char err[256];
    arena.fd = -1;
    if (feed__arena_create(&arena, &g, err, sizeof err) != FEED_OK) {
        fprintf(stderr, "arena: %s\n", err);
        return -1;
    }
    arena.cfg->dataset_size = 1ull << 40; /* every event number is a sample */
    return 0;
}

static int teardown(void **state)
{
    feed__arena_close(&arena);
    return 0;
}

/* As worker w does: events [from, head) written (sample_id = event number), head published. */
static void publish(uint32_t w, uint64_t from, uint64_t head)
{
    feed_trace_event *ev = feed__trace_events(&arena, w);
    for (uint64_t e = from; e < head; e++)
        ev[e % R] = (feed_trace_event){.sample_id = e, .worker = w};
    atomic_store_explicit(&feed__trace(&arena, w)->head, head, memory_order_release);
}

/* feed__trace_read of valid rings: no worker is blamed. */
static uint64_t rd(feed__trace_reader *r, feed_trace_event *out, uint64_t *lost)
{
    uint32_t bad;
    char why[200];
    uint64_t n = feed__trace_read(r, &arena, out, 4 * R, lost, &bad, why, sizeof why);
    if (bad != UINT32_MAX)
        fail_msg("worker %u blamed: %s", bad, why);
    return n;
}

static void test_oldest_slot_dropped(void **state)
{
    feed__trace_reader r = {{0}};
    feed_trace_event *out = calloc(4 * R, sizeof *out);
    uint64_t lost = 99;
    /* Worker 0: a few events, no wrap: all of them. */
    publish(0, 0, 5);
    publish(1, 0, 0);
    assert_int_equal(rd(&r, out, &lost), 5);
    assert_int_equal(lost, 0);
    for (uint64_t i = 0; i < 5; i++)
        assert_int_equal(out[i].sample_id, i);

    /* Worker 0 runs R + 10 - 5 more samples before the next read: head = R + 10,
     * and it may be writing event R + 10 into event 10's slot right now. */
    publish(0, 5, R + 10);
    uint64_t n = rd(&r, out, &lost);
    assert_int_equal(n, R - 1); /* events 11 .. R + 9 */
    assert_int_equal(lost, 6);  /* events 5 .. 10 */
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(out[i].sample_id, 11 + i);

    /* Exactly a ring's worth past the cursor is one too many as well. */
    publish(0, R + 10, 2 * R + 10);
    n = rd(&r, out, &lost);
    assert_int_equal(n, R - 1);
    assert_int_equal(lost, 1);
    assert_int_equal(out[0].sample_id, R + 11);
    assert_int_equal(out[n - 1].sample_id, 2 * R + 9);

    /* Less than a ring behind: everything, nothing lost. */
    publish(0, 2 * R + 10, 3 * R + 8);
    publish(1, 0, 3);
    n = rd(&r, out, &lost);
    assert_int_equal(n, R - 2 + 3);
    assert_int_equal(lost, 0);
    assert_int_equal(out[0].sample_id, 2 * R + 10);
    assert_int_equal(out[R - 2].worker, 1);
    assert_int_equal(rd(&r, out, &lost), 0);
    free(out);
}

/* A head that goes back, or an event naming another worker, is none a
 * healthy worker writes: that worker is blamed, its events dropped. */
static void test_invalid_rings(void **state)
{
    feed__trace_reader r = {{0}};
    feed_trace_event out[16];
    uint64_t lost;
    uint32_t bad;
    char why[200];
    publish(0, 0, 4);
    publish(1, 0, 2);
    assert_int_equal(feed__trace_read(&r, &arena, out, 16, &lost, &bad, why, sizeof why), 6);
    assert_int_equal(bad, UINT32_MAX);
    atomic_store(&feed__trace(&arena, 1)->head, 1); /* backwards */
    assert_int_equal(feed__trace_read(&r, &arena, out, 16, &lost, &bad, why, sizeof why), 0);
    assert_int_equal(bad, 1);
    assert_non_null(strstr(why, "head"));
    publish(0, 4, 6);
    feed__trace_events(&arena, 0)[5].worker = 7;
    assert_int_equal(feed__trace_read(&r, &arena, out, 16, &lost, &bad, why, sizeof why), 0);
    assert_int_equal(bad, 0);
    assert_non_null(strstr(why, "worker 7"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oldest_slot_dropped),
        cmocka_unit_test(test_invalid_rings),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
