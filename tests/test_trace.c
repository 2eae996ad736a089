/*
 * test_trace.c - the parent's reader of the workers' timeline rings
 * (src/trace.c), on an arena whose rings the test fills as a worker would.
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

#include "shm.h"
#include "trace.h"

#define R FEED_TRACE_RING

static feed__arena arena;

static int setup(void **state)
{
    feed__arena_geom g = {2, 4, 2, 64};
    char err[256];
    arena.fd = -1;
    if (feed__arena_create(&arena, &g, err, sizeof err) != FEED_OK) {
        fprintf(stderr, "arena: %s\n", err);
        return -1;
    }
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
    feed_trace_event *ev = feed__trace_events(arena.hdr, w);
    for (uint64_t e = from; e < head; e++)
        ev[e % R] = (feed_trace_event){.sample_id = e, .worker = w};
    atomic_store_explicit(&feed__trace(arena.hdr, w)->head, head, memory_order_release);
}

static void test_oldest_slot_dropped(void **state)
{
    feed__trace_reader r = {{0}};
    feed_trace_event *out = calloc(4 * R, sizeof *out);
    uint64_t lost = 99;
    /* Worker 0: a few events, no wrap: all of them. */
    publish(0, 0, 5);
    publish(1, 0, 0);
    assert_int_equal(feed__trace_read(&r, arena.hdr, out, 4 * R, &lost), 5);
    assert_int_equal(lost, 0);
    for (uint64_t i = 0; i < 5; i++)
        assert_int_equal(out[i].sample_id, i);

    /* Worker 0 runs R + 10 - 5 more samples before the next read: head = R + 10,
     * and it may be writing event R + 10 into event 10's slot right now. */
    publish(0, 5, R + 10);
    uint64_t n = feed__trace_read(&r, arena.hdr, out, 4 * R, &lost);
    assert_int_equal(n, R - 1); /* events 11 .. R + 9 */
    assert_int_equal(lost, 6);  /* events 5 .. 10 */
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(out[i].sample_id, 11 + i);

    /* Exactly a ring's worth past the cursor is one too many as well. */
    publish(0, R + 10, 2 * R + 10);
    n = feed__trace_read(&r, arena.hdr, out, 4 * R, &lost);
    assert_int_equal(n, R - 1);
    assert_int_equal(lost, 1);
    assert_int_equal(out[0].sample_id, R + 11);
    assert_int_equal(out[n - 1].sample_id, 2 * R + 9);

    /* Less than a ring behind: everything, nothing lost. */
    publish(0, 2 * R + 10, 3 * R + 8);
    publish(1, 0, 3);
    n = feed__trace_read(&r, arena.hdr, out, 4 * R, &lost);
    assert_int_equal(n, R - 2 + 3);
    assert_int_equal(lost, 0);
    assert_int_equal(out[0].sample_id, 2 * R + 10);
    assert_int_equal(out[R - 2].worker, 1);
    assert_int_equal(feed__trace_read(&r, arena.hdr, out, 4 * R, &lost), 0);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oldest_slot_dropped),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
