/*
 * trace.c - reading the workers' timeline rings (see trace.h).
 *
 * A worker writes event head % FEED_TRACE_RING and then publishes head + 1
 * with release; it never waits for the reader, so an event can be
 * overwritten while it is being copied. Having published head, the worker may
 * already be writing event head over event head - FEED_TRACE_RING: only the
 * events from head - FEED_TRACE_RING + 1 on are whole. The head is read again
 * after the copy and whatever the worker may have reached is dropped and
 * counted lost.
 */
#include "trace.h"

#include <stdatomic.h>
#include <string.h>

/* The oldest event that head says is not being overwritten. */
static uint64_t intact_from(uint64_t head)
{
    return head >= FEED_TRACE_RING ? head - FEED_TRACE_RING + 1 : 0;
}

uint64_t feed__trace_read(feed__trace_reader *r, const feed__arena_hdr *h, feed_trace_event *out, uint64_t max,
                          uint64_t *lost)
{
    uint64_t n = 0, gone = 0;
    for (uint32_t w = 0; w < h->nworkers && n < max; w++) {
        feed__trace_ring *tr = feed__trace(h, w);
        const feed_trace_event *ev = feed__trace_events(h, w);
        uint64_t head = atomic_load_explicit(&tr->head, memory_order_acquire);
        uint64_t cur = r->cursor[w];
        if (cur < intact_from(head)) { /* overwritten before we came */
            gone += intact_from(head) - cur;
            cur = intact_from(head);
        }
        uint64_t first = n;
        for (; cur < head && n < max; cur++)
            out[n++] = ev[cur % FEED_TRACE_RING];
        /* The worker may have lapped us while we copied: drop what it overwrote.
         * The fence keeps the copy's reads before this second look. */
        atomic_thread_fence(memory_order_acquire);
        uint64_t head2 = atomic_load_explicit(&tr->head, memory_order_relaxed);
        uint64_t safe_from = intact_from(head2); /* events below this may be torn */
        uint64_t copied_from = cur - (n - first);
        if (copied_from < safe_from) {
            uint64_t bad = safe_from - copied_from < n - first ? safe_from - copied_from : n - first;
            memmove(&out[first], &out[first + bad], (n - first - bad) * sizeof *out);
            n -= bad;
            gone += bad;
        }
        r->cursor[w] = cur;
    }
    if (lost)
        *lost = gone;
    return n;
}
