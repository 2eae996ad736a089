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
#include "supervise/trace.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* The oldest event that head says is not being overwritten. */
static uint64_t intact_from(uint64_t head)
{
    return head >= FEED_TRACE_RING ? head - FEED_TRACE_RING + 1 : 0;
}

/* Further than this ahead of what was read: no worker has done that many samples. */
#define FEED_TRACE_MAX_LEAP (1ull << 40)

/* 0 if event e of worker w is one a worker may write, else 1 with why. */
static int bad_event(const feed__arena *a, uint32_t w, const feed_trace_event *e, char *why, size_t whylen)
{
    if (e->worker != w)
        return snprintf(why, whylen, "an invalid trace event (worker %u in the ring of worker %u)", e->worker, w), 1;
    if (e->sample_id >= a->cfg->dataset_size)
        return snprintf(why, whylen, "an invalid trace event (sample %llu)", (unsigned long long)e->sample_id), 1;
    if (e->flags & ~(uint32_t)(FEED_SAMPLE_REPLACED | FEED_SAMPLE_FLIPPED | FEED__SAMPLE_NO_SUBSTITUTE))
        return snprintf(why, whylen, "an invalid trace event (flags 0x%x)", e->flags), 1;
    return 0;
}

/* Records the first misbehaving worker. */
static void blame(uint32_t *bad, uint32_t w, char *why, size_t whylen, const char *what)
{
    if (*bad != UINT32_MAX)
        return;
    *bad = w;
    snprintf(why, whylen, "%s", what);
}

uint64_t feed__trace_read(feed__trace_reader *r, const feed__arena *a, feed_trace_event *out, uint64_t max,
                          uint64_t *lost, uint32_t *bad, char *why, size_t whylen)
{
    uint64_t n = 0, gone = 0;
    *bad = UINT32_MAX;
    for (uint32_t w = 0; w < a->lay.nworkers && n < max; w++) {
        feed__trace_ring *tr = feed__trace(a, w);
        const feed_trace_event *ev = feed__trace_events(a, w);
        uint64_t head = atomic_load_explicit(&tr->head, memory_order_acquire);
        uint64_t cur = r->cursor[w];
        char what[160];
        if (head < cur || head - cur > FEED_TRACE_MAX_LEAP) {
            snprintf(what, sizeof what, "an invalid trace ring head %llu (%llu read)", (unsigned long long)head,
                     (unsigned long long)cur);
            blame(bad, w, why, whylen, what);
            r->cursor[w] = head;
            continue;
        }
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
            uint64_t torn = safe_from - copied_from < n - first ? safe_from - copied_from : n - first;
            memmove(&out[first], &out[first + torn], (n - first - torn) * sizeof *out);
            n -= torn;
            gone += torn;
        }
        r->cursor[w] = cur;
        for (uint64_t k = first; k < n; k++)
            if (bad_event(a, w, &out[k], what, sizeof what)) {
                blame(bad, w, why, whylen, what);
                n = first; /* none of this ring's events */
                break;
            }
    }
    if (lost)
        *lost = gone;
    return n;
}
