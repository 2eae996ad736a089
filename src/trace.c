/*
 * trace.c - reading the workers' timeline rings (see trace.h).
 *
 * A worker writes event head % FEED_TRACE_RING and then publishes head + 1
 * with release; it never waits for the reader, so an event can be
 * overwritten while it is being copied. The head is read again after the
 * copy and whatever the worker may have lapped is dropped and counted lost.
 */
#include "trace.h"

#include <stdatomic.h>
#include <string.h>

uint64_t feed__trace_read(feed__trace_reader *r, const feed__arena_hdr *h, feed_trace_event *out, uint64_t max,
                          uint64_t *lost)
{
    uint64_t n = 0, gone = 0;
    for (uint32_t w = 0; w < h->nworkers && n < max; w++) {
        feed__trace_ring *tr = feed__trace(h, w);
        const feed_trace_event *ev = feed__trace_events(h, w);
        uint64_t head = atomic_load_explicit(&tr->head, memory_order_acquire);
        uint64_t cur = r->cursor[w];
        if (head - cur > FEED_TRACE_RING) { /* overwritten before we came */
            gone += head - FEED_TRACE_RING - cur;
            cur = head - FEED_TRACE_RING;
        }
        uint64_t first = n;
        for (; cur < head && n < max; cur++)
            out[n++] = ev[cur % FEED_TRACE_RING];
        /* The worker may have lapped us while we copied: drop what it overwrote. */
        uint64_t head2 = atomic_load_explicit(&tr->head, memory_order_acquire);
        if (head2 > FEED_TRACE_RING) {
            uint64_t safe_from = head2 - FEED_TRACE_RING; /* events below this may be torn */
            uint64_t copied_from = cur - (n - first);
            if (copied_from < safe_from) {
                uint64_t bad = safe_from - copied_from < n - first ? safe_from - copied_from : n - first;
                memmove(&out[first], &out[first + bad], (n - first - bad) * sizeof *out);
                n -= bad;
                gone += bad;
            }
        }
        r->cursor[w] = cur;
    }
    if (lost)
        *lost = gone;
    return n;
}
