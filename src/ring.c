/*
 * ring.c - the lock-free ring of batch slots shared by the parent and the
 * worker processes.
 *
 * Ordering contract
 * -----------------
 * Slot i holds batch seq where seq % nslots == i. Its phase moves
 *   IDLE/DRAINING --assign (parent)--> ASSIGNING --> FILLING
 * and a FILLING slot is READY when every sample's state is DONE: readiness is
 * derived from the per-sample states, never stored, so no counter can go
 * stale when a worker dies between two stores.
 *
 * Each sample has one 32-bit state word: gen << 8 | owner, where gen is the
 * slot's assignment number (24 bits) and owner is FREE (0), a worker (w + 1)
 * or DONE (255). Every transition is a compare-and-swap that names the gen it
 * expects, so a worker acting on a stale view of a reassigned slot always
 * fails harmlessly:
 *   claim     (worker w)   gen|FREE  -> gen|w+1   acq_rel
 *   complete  (worker w)   gen|w+1   -> gen|DONE  release: publishes pixels, label, id, flags
 *   reclaim   (parent, w is dead and reaped)  gen|w+1 -> gen|FREE   acq_rel: publishes
 *             the record's attempt counters and, for a poisoned sample, its status/message
 *   assign    (parent)     oldgen|FREE or |DONE -> newgen|FREE; refused if any is claimed
 * The parent reads DONE with acquire before touching the pixels.
 *
 * The parent writes the slot's metadata (seq, epoch, count, ids) while the
 * phase is ASSIGNING and publishes it by storing FILLING with release; a
 * worker loads the phase with acquire before reading them.
 *
 * Tickets: a fetch-add on slot->ticket hands out sample indices in order so
 * workers spread over a batch without contention; it is only a hint. A ticket
 * lost (a worker died after the fetch-add, or raced a reassignment) leaves a
 * FREE state that the fallback scan in claim picks up.
 *
 * Sleeping: workers sleep on work_seq, the consumer on done_seq (shared
 * futexes). Whoever changes what the other waits for bumps the word with a
 * seq_cst fetch-add and then wakes; a sleeper announces itself
 * (consumer_waiting) before re-reading the word, so no wake-up is lost.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"

int feed__futex_wait(_Atomic uint32_t *w, uint32_t expected, int64_t timeout_ns)
{
    struct timespec ts, *tp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000);
        ts.tv_nsec = (long)(timeout_ns % 1000000000);
        tp = &ts;
    }
    long r = syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, expected, tp, NULL, 0);
    if (r == 0 || errno == EAGAIN)
        return 0;
    return errno;
}

void feed__futex_wake(_Atomic uint32_t *w, int n)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, n, NULL, NULL, 0);
}

void feed__futex_bump(_Atomic uint32_t *w)
{
    atomic_fetch_add(w, 1);
    feed__futex_wake(w, INT_MAX);
}

/* Moves every state of slot i to newgen|FREE (t < count) or newgen|DONE
 * (t >= count). Fails, changing nothing further, at the first claimed one. */
static int reset_states(feed__arena_hdr *h, uint32_t i, uint32_t oldgen, uint32_t newgen, uint32_t count)
{
    _Atomic uint32_t *st = feed__slot_states(h, i);
    for (uint32_t t = 0; t < h->batch_size; t++) {
        uint32_t want = feed__state(newgen, t < count ? FEED_OWNER_FREE : FEED_OWNER_DONE);
        uint32_t cur = atomic_load_explicit(&st[t], memory_order_acquire);
        for (;;) {
            if (cur == want)
                break;
            uint32_t o = feed__state_owner(cur);
            if ((cur >> 8) == (oldgen & 0xffffffu) && o != FEED_OWNER_FREE && o != FEED_OWNER_DONE)
                return -1;
            if (atomic_compare_exchange_weak_explicit(&st[t], &cur, want, memory_order_acq_rel,
                                                      memory_order_acquire))
                break;
        }
    }
    return 0;
}

int feed__ring_drain(feed__arena_hdr *h, uint32_t i)
{
    feed__slot_hdr *s = feed__slot(h, i);
    uint32_t phase = atomic_load_explicit(&s->phase, memory_order_acquire);
    if (phase == FEED_SLOT_FILLING)
        atomic_store_explicit(&s->phase, FEED_SLOT_DRAINING, memory_order_release);
    uint32_t gen = atomic_load_explicit(&s->gen, memory_order_relaxed);
    /* Bump gen so no FREE sample can be claimed any more; wait for claims. */
    _Atomic uint32_t *st = feed__slot_states(h, i);
    int busy = 0;
    for (uint32_t t = 0; t < h->batch_size; t++) {
        uint32_t cur = atomic_load_explicit(&st[t], memory_order_acquire);
        for (;;) {
            uint32_t o = feed__state_owner(cur);
            if (o != FEED_OWNER_FREE) {
                if (o != FEED_OWNER_DONE)
                    busy = 1;
                break;
            }
            /* FREE: close it so nobody claims it now. */
            if (atomic_compare_exchange_weak_explicit(&st[t], &cur, feed__state(gen, FEED_OWNER_DONE),
                                                      memory_order_acq_rel, memory_order_acquire))
                break;
        }
    }
    return busy ? -1 : 0;
}

int feed__ring_assign(feed__arena_hdr *h, uint32_t i, uint64_t seq, uint64_t epoch, uint64_t batch,
                      uint32_t count, const uint64_t *ids, const char *const *quarantine)
{
    feed__slot_hdr *s = feed__slot(h, i);
    uint32_t oldgen = atomic_load_explicit(&s->gen, memory_order_relaxed);
    uint32_t newgen = (oldgen + 1) & 0xffffffu;
    uint32_t phase = atomic_exchange_explicit(&s->phase, FEED_SLOT_ASSIGNING, memory_order_acq_rel);
    _Atomic uint32_t *st = feed__slot_states(h, i);
    for (uint32_t t = 0; t < h->batch_size; t++) {
        uint32_t o = feed__state_owner(atomic_load_explicit(&st[t], memory_order_acquire));
        if (o != FEED_OWNER_FREE && o != FEED_OWNER_DONE)
            goto busy; /* a worker still writes into this slot */
    }
    s->seq = seq, s->epoch = epoch, s->index = batch, s->count = count;
    feed__sample_rec *recs = feed__slot_recs(h, i);
    uint64_t *sid = feed__slot_ids(h, i);
    uint8_t *flags = feed__slot_flags(h, i);
    for (uint32_t t = 0; t < count; t++) {
        feed__sample_rec *r = &recs[t];
        r->sample_id = ids[t];
        atomic_store_explicit(&r->attempts, 0, memory_order_relaxed);
        atomic_store_explicit(&r->subst_k, 0, memory_order_relaxed);
        atomic_store_explicit(&r->poisoned, 0, memory_order_relaxed);
        atomic_store_explicit(&r->subst_deaths, 0, memory_order_relaxed);
        r->status = 0, r->sys_errno = 0, r->message[0] = 0;
        if (quarantine && quarantine[t]) { /* known poison pill: straight to a substitute */
            atomic_store_explicit(&r->poisoned, 1, memory_order_relaxed);
            r->status = FEED_E_WORKER;
            snprintf(r->message, sizeof r->message, "%s", quarantine[t]);
        }
        sid[t] = ids[t];
        flags[t] = 0;
    }
    atomic_store_explicit(&s->ticket, 0, memory_order_relaxed);
    atomic_store_explicit(&s->gen, newgen, memory_order_relaxed);
    if (reset_states(h, i, oldgen, newgen, count) != 0) {
        /* A claim raced the check above (a worker with a stale view): the
         * slot is half-assigned; close it until the claim is done. */
        phase = FEED_SLOT_DRAINING;
        goto busy;
    }
    atomic_store_explicit(&s->phase, FEED_SLOT_FILLING, memory_order_release);
    feed__futex_bump(&h->work_seq);
    return 0;
busy:
    atomic_store_explicit(&s->phase, phase, memory_order_release);
    return -1;
}

int feed__ring_ready(const feed__arena_hdr *h, uint32_t i, uint64_t seq)
{
    feed__slot_hdr *s = feed__slot(h, i);
    if (atomic_load_explicit(&s->phase, memory_order_acquire) != FEED_SLOT_FILLING || s->seq != seq)
        return 0;
    uint32_t done = feed__state(atomic_load_explicit(&s->gen, memory_order_relaxed), FEED_OWNER_DONE);
    _Atomic uint32_t *st = feed__slot_states(h, i);
    for (uint32_t t = 0; t < s->count; t++)
        if (atomic_load_explicit(&st[t], memory_order_acquire) != done)
            return 0;
    return 1;
}

uint32_t feed__ring_ready_count(const feed__arena_hdr *h)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->nslots; i++)
        n += (uint32_t)feed__ring_ready(h, i, feed__slot(h, i)->seq);
    return n;
}

uint32_t feed__ring_reclaim(feed__arena_hdr *h, uint32_t w)
{
    return feed__ring_reclaim_why(h, w, NULL, NULL);
}

uint32_t feed__ring_reclaim_why(feed__arena_hdr *h, uint32_t w, const char *report, uint64_t *poisoned_id)
{
    uint32_t n = 0;
    if (poisoned_id)
        *poisoned_id = UINT64_MAX;
    for (uint32_t i = 0; i < h->nslots; i++) {
        _Atomic uint32_t *st = feed__slot_states(h, i);
        feed__sample_rec *recs = feed__slot_recs(h, i);
        for (uint32_t t = 0; t < h->batch_size; t++) {
            uint32_t cur = atomic_load_explicit(&st[t], memory_order_acquire);
            if (feed__state_owner(cur) != w + 1)
                continue;
            feed__sample_rec *r = &recs[t];
            /* The worker is dead and reaped: nobody else writes the record
             * now, and the CAS below publishes it to the next claimant.
             * On the sample itself: count the death, poison it (with the
             * caller's report) past max_retries. On substitute k: count
             * deaths on k, move on to k+1 past max_retries; until then k is
             * retried, so a crash does not change which sample replaces
             * this one. */
            uint32_t k = atomic_load_explicit(&r->subst_k, memory_order_relaxed);
            if (k > 0) {
                uint32_t d = atomic_load_explicit(&r->subst_deaths, memory_order_relaxed) + 1;
                if (d > h->max_retries) {
                    atomic_store_explicit(&r->subst_k, k + 1, memory_order_relaxed);
                    d = 0;
                }
                atomic_store_explicit(&r->subst_deaths, d, memory_order_relaxed);
            } else {
                uint32_t d = atomic_fetch_add_explicit(&r->attempts, 1, memory_order_relaxed) + 1;
                if (d > h->max_retries && !atomic_load_explicit(&r->poisoned, memory_order_relaxed)) {
                    atomic_store_explicit(&r->poisoned, 1, memory_order_relaxed);
                    if (poisoned_id)
                        *poisoned_id = r->sample_id;
                    if (report && r->status == 0) {
                        r->status = FEED_E_WORKER;
                        r->sys_errno = 0;
                        snprintf(r->message, sizeof r->message, "%s", report);
                    }
                }
            }
            if (atomic_compare_exchange_strong_explicit(&st[t], &cur, (cur & ~0xffu) | FEED_OWNER_FREE,
                                                        memory_order_acq_rel, memory_order_acquire)) {
                /* Let the ticket hint point here again (fallback scan finds it anyway). */
                n++;
            }
        }
    }
    if (n)
        feed__futex_bump(&h->work_seq);
    return n;
}

static int try_claim_at(_Atomic uint32_t *st, uint32_t gen, uint32_t w, uint32_t t)
{
    uint32_t expect = feed__state(gen, FEED_OWNER_FREE);
    return atomic_compare_exchange_strong_explicit(&st[t], &expect, feed__state(gen, w + 1),
                                                   memory_order_acq_rel, memory_order_acquire);
}

int feed__ring_claim(feed__arena_hdr *h, uint32_t w, feed__claim *c)
{
    /* Visit FILLING slots oldest batch first, so the batch the consumer waits
     * for is finished first. nslots is small: a selection pass per claim. */
    uint64_t last = 0;
    int have_last = 0;
    for (uint32_t pass = 0; pass < h->nslots; pass++) {
        uint32_t best = UINT32_MAX;
        uint64_t best_seq = UINT64_MAX;
        for (uint32_t i = 0; i < h->nslots; i++) {
            feed__slot_hdr *s = feed__slot(h, i);
            if (atomic_load_explicit(&s->phase, memory_order_acquire) != FEED_SLOT_FILLING)
                continue;
            uint64_t seq = s->seq;
            if ((have_last && seq <= last) || seq >= best_seq)
                continue;
            best = i, best_seq = seq;
        }
        if (best == UINT32_MAX)
            return 0;
        last = best_seq, have_last = 1;
        feed__slot_hdr *s = feed__slot(h, best);
        uint32_t gen = atomic_load_explicit(&s->gen, memory_order_relaxed);
        uint32_t count = s->count;
        if (atomic_load_explicit(&s->phase, memory_order_acquire) != FEED_SLOT_FILLING)
            continue;
        _Atomic uint32_t *st = feed__slot_states(h, best);
        uint32_t t = atomic_fetch_add_explicit(&s->ticket, 1, memory_order_relaxed);
        if (t < count && try_claim_at(st, gen, w, t)) {
            *c = (feed__claim){best, t, gen};
            return 1;
        }
        /* Tickets used up: pick up any sample left FREE (reclaimed from a dead
         * worker, or a ticket that was lost). */
        for (t = 0; t < count; t++) {
            if (feed__state_owner(atomic_load_explicit(&st[t], memory_order_relaxed)) != FEED_OWNER_FREE)
                continue;
            if (try_claim_at(st, gen, w, t)) {
                *c = (feed__claim){best, t, gen};
                return 1;
            }
        }
    }
    return 0;
}

int feed__ring_complete(feed__arena_hdr *h, uint32_t w, const feed__claim *c)
{
    _Atomic uint32_t *st = feed__slot_states(h, c->slot);
    uint32_t expect = feed__state(c->gen, w + 1);
    if (!atomic_compare_exchange_strong_explicit(&st[c->t], &expect,
                                                 feed__state(c->gen, FEED_OWNER_DONE),
                                                 memory_order_release, memory_order_relaxed))
        return -1;
    atomic_fetch_add(&h->done_seq, 1);
    if (atomic_load(&h->consumer_waiting))
        feed__futex_wake(&h->done_seq, INT_MAX);
    return 0;
}
