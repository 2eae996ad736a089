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
 * futexes, futex.h). Whoever changes what the other waits for bumps the word
 * with a seq_cst fetch-add and then wakes; a sleeper announces itself
 * (consumer_waiting) before re-reading the word, so no wake-up is lost.
 * A new batch (assign, on the consumer's thread at every release) wakes one
 * worker, not all: a worker that wakes and claims a sample wakes one more
 * (feed__ring_pass_wake), so the sleepers get up one after another while the
 * consumer pays for one wake-up (each costs it ~5 us on a VM). A worker that
 * breaks the chain (dies, or will not pass it) costs the others at most
 * their once-a-second look.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "arena/futex.h"
#include "arena/protocol.h"
#include "arena/ring.h"

/* 1 if state word cur of a slot at gen is held by a worker (one that
 * exists), on this assignment or the one before (an assign that found a
 * stale claim leaves both). Any other word is none a worker may write. */
static int held(const feed__arena *a, uint32_t cur, uint32_t gen)
{
    uint32_t o = feed__state_owner(cur), g = cur >> 8;
    return (g == (gen & 0xffffffu) || g == ((gen - 1) & 0xffffffu)) && o != FEED_OWNER_FREE &&
           o != FEED_OWNER_DONE && o <= a->lay.nworkers;
}

/* 1 if state word cur of FILLING slot m is one no worker may write. */
static int invalid_state(const feed__arena *a, const feed__slot_meta *m, uint32_t cur)
{
    uint32_t o = feed__state_owner(cur);
    return (cur >> 8) != m->gen || (o != FEED_OWNER_FREE && o != FEED_OWNER_DONE && o > a->lay.nworkers);
}

/* Moves every state of slot i to newgen|FREE (t < count) or newgen|DONE
 * (t >= count). Fails, changing nothing further, at the first claimed one. */
static int reset_states(feed__arena *a, uint32_t i, uint32_t oldgen, uint32_t newgen, uint32_t count)
{
    _Atomic uint32_t *st = feed__slot_states(a, i);
    for (uint32_t t = 0; t < a->lay.batch_size; t++) {
        uint32_t want = feed__state(newgen, t < count ? FEED_OWNER_FREE : FEED_OWNER_DONE);
        uint32_t cur = atomic_load_explicit(&st[t], memory_order_acquire);
        for (;;) {
            if (cur == want)
                break;
            if (held(a, cur, oldgen))
                return -1;
            if (atomic_compare_exchange_weak_explicit(&st[t], &cur, want, memory_order_acq_rel,
                                                      memory_order_acquire))
                break;
        }
    }
    return 0;
}

/* Samples of FILLING slot i done on its current assignment (0 if it is not
 * FILLING): states compared with the parent's own gen, never a count a
 * worker keeps. */
static uint32_t done_in(const feed__arena *a, uint32_t i)
{
    const feed__slot_meta *m = &a->meta[i];
    if (atomic_load_explicit(&m->phase, memory_order_relaxed) != FEED_SLOT_FILLING)
        return 0;
    uint32_t done = feed__state(m->gen, FEED_OWNER_DONE), n = 0;
    _Atomic uint32_t *st = feed__slot_states(a, i);
    for (uint32_t t = 0; t < m->count; t++)
        n += atomic_load_explicit(&st[t], memory_order_acquire) == done;
    return n;
}

static int drain_locked(feed__arena *a, uint32_t i)
{
    feed__slot_hdr *s = feed__slot(a, i);
    feed__slot_meta *m = &a->meta[i];
    if (atomic_load_explicit(&m->phase, memory_order_relaxed) == FEED_SLOT_FILLING) {
        a->retired += done_in(a, i); /* before the FREE ones are closed as DONE below */
        atomic_store_explicit(&m->phase, FEED_SLOT_DRAINING, memory_order_relaxed);
        atomic_store_explicit(&s->phase, FEED_SLOT_DRAINING, memory_order_release);
    }
    /* Close every FREE sample so nobody claims it now; wait for claims. */
    _Atomic uint32_t *st = feed__slot_states(a, i);
    int busy = 0;
    for (uint32_t t = 0; t < a->lay.batch_size; t++) {
        uint32_t cur = atomic_load_explicit(&st[t], memory_order_acquire);
        for (;;) {
            if (held(a, cur, m->gen)) {
                busy = 1;
                break;
            }
            if (feed__state_owner(cur) == FEED_OWNER_DONE && (cur >> 8) == m->gen)
                break;
            /* FREE, or a word no worker may write: close it. */
            if (atomic_compare_exchange_weak_explicit(&st[t], &cur, feed__state(m->gen, FEED_OWNER_DONE),
                                                      memory_order_acq_rel, memory_order_acquire))
                break;
        }
    }
    return busy ? -1 : 0;
}

/* Writes the parent's fields of record t of slot i from the private copy;
 * fresh: also clears what the worker wrote (a sample started over). */
static void publish_rec(feed__arena *a, uint32_t i, uint32_t t, int fresh)
{
    const feed__sample_priv *p = &a->meta[i].s[t];
    feed__sample_rec *r = &feed__slot_recs(a, i)[t];
    r->sample_id = p->id;
    r->repeat = p->repeat;
    atomic_store_explicit(&r->attempts, p->attempts, memory_order_relaxed);
    atomic_store_explicit(&r->poisoned, p->poisoned, memory_order_relaxed);
    atomic_store_explicit(&r->subst_k, p->subst_k, memory_order_relaxed);
    atomic_store_explicit(&r->subst_deaths, p->subst_deaths, memory_order_relaxed);
    atomic_store_explicit(&r->filler, 0, memory_order_relaxed);
    if (p->status) {
        r->status = p->status;
        r->sys_errno = 0;
        snprintf(r->message, sizeof r->message, "%s", p->why);
    } else if (fresh) {
        r->status = 0, r->sys_errno = 0, r->message[0] = 0;
    }
}

static int assign_locked(feed__arena *a, uint32_t i, uint64_t seq, uint64_t epoch, uint64_t batch,
                      uint32_t count, const uint64_t *ids, const uint32_t *reps,
                      const char *const *quarantine)
{
    feed__slot_hdr *s = feed__slot(a, i);
    feed__slot_meta *m = &a->meta[i];
    uint32_t oldgen = m->gen;
    uint32_t newgen = (oldgen + 1) & 0xffffffu;
    if (count > a->lay.batch_size)
        count = a->lay.batch_size; /* the sampler's batches never are longer */
    uint32_t phase = atomic_load_explicit(&m->phase, memory_order_relaxed);
    atomic_store_explicit(&s->phase, FEED_SLOT_ASSIGNING, memory_order_release);
    _Atomic uint32_t *st = feed__slot_states(a, i);
    for (uint32_t t = 0; t < a->lay.batch_size; t++)
        if (held(a, atomic_load_explicit(&st[t], memory_order_acquire), oldgen))
            goto busy; /* a worker still writes into this slot */
    a->retired += done_in(a, i); /* the old batch's states go now (m->phase is still the old one) */
    m->seq = seq, m->epoch = epoch, m->index = batch, m->count = count;
    s->seq = seq, s->epoch = epoch, s->index = batch, s->count = count;
    uint8_t *flags = feed__slot_flags(a, i);
    for (uint32_t t = 0; t < count; t++) {
        feed__sample_priv *p = &m->s[t];
        memset(p, 0, sizeof *p);
        p->id = ids[t];
        p->repeat = reps ? reps[t] : 0;
        if (quarantine && quarantine[t]) { /* known poison pill: straight to a substitute */
            p->poisoned = 1;
            p->status = FEED_E_WORKER;
            snprintf(p->why, sizeof p->why, "%s", quarantine[t]);
        }
        publish_rec(a, i, t, 1);
        feed__slot_ids(a, i)[t] = ids[t];
        flags[t] = 0;
    }
    atomic_store_explicit(&s->ticket, 0, memory_order_relaxed);
    m->gen = newgen;
    atomic_store_explicit(&s->gen, newgen, memory_order_relaxed);
    if (reset_states(a, i, oldgen, newgen, count) != 0) {
        /* A claim raced the check above (a worker with a stale view): the
         * slot is half-assigned; close it until the claim is done. */
        phase = FEED_SLOT_DRAINING;
        goto busy;
    }
    atomic_store_explicit(&m->phase, FEED_SLOT_FILLING, memory_order_relaxed);
    atomic_store_explicit(&s->phase, FEED_SLOT_FILLING, memory_order_release);
    atomic_fetch_add(&a->hdr->work_seq, 1);
    feed__futex_wake(&a->hdr->work_seq, 1); /* the one woken wakes the next */
    return 0;
busy:
    atomic_store_explicit(&m->phase, phase, memory_order_relaxed);
    atomic_store_explicit(&s->phase, phase, memory_order_release);
    return -1;
}

static int ready_locked(const feed__arena *a, uint32_t i, uint64_t seq)
{
    const feed__slot_meta *m = &a->meta[i];
    if (atomic_load_explicit(&m->phase, memory_order_relaxed) != FEED_SLOT_FILLING || m->seq != seq)
        return 0;
    uint32_t done = feed__state(m->gen, FEED_OWNER_DONE);
    _Atomic uint32_t *st = feed__slot_states(a, i);
    for (uint32_t t = 0; t < m->count; t++)
        if (atomic_load_explicit(&st[t], memory_order_acquire) != done)
            return 0;
    return 1;
}

static uint32_t ready_count_locked(const feed__arena *a)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->lay.nslots; i++)
        n += (uint32_t)ready_locked(a, i, a->meta[i].seq);
    return n;
}

static uint32_t scan_locked(const feed__arena *a, uint32_t i, uint32_t *filler)
{
    const feed__slot_meta *m = &a->meta[i];
    *filler = UINT32_MAX;
    if (atomic_load_explicit(&m->phase, memory_order_relaxed) != FEED_SLOT_FILLING)
        return UINT32_MAX;
    _Atomic uint32_t *st = feed__slot_states(a, i);
    for (uint32_t t = 0; t < m->count; t++) {
        if (!invalid_state(a, m, atomic_load_explicit(&st[t], memory_order_acquire)))
            continue;
        uint32_t f = atomic_load_explicit(&feed__slot_recs(a, i)[t].filler, memory_order_relaxed);
        if (f >= 1 && f <= a->lay.nworkers)
            *filler = f - 1;
        return t;
    }
    return UINT32_MAX;
}

static int guard_locked(feed__arena *a, uint32_t i)
{
    feed__slot_meta *m = &a->meta[i];
    feed__slot_hdr *s = feed__slot(a, i);
    uint32_t phase = atomic_load_explicit(&m->phase, memory_order_relaxed);
    if (phase != FEED_SLOT_FILLING)
        return 0;
    int now = 0;
    if (s->seq != m->seq || s->epoch != m->epoch || s->index != m->index || s->count != m->count ||
        atomic_load_explicit(&s->gen, memory_order_relaxed) != m->gen ||
        atomic_load_explicit(&s->phase, memory_order_relaxed) != phase) {
        s->seq = m->seq, s->epoch = m->epoch, s->index = m->index, s->count = m->count;
        atomic_store_explicit(&s->gen, m->gen, memory_order_relaxed);
        atomic_store_explicit(&s->phase, phase, memory_order_release);
        m->tampered = now = 1;
    }
    if (!m->tampered || !ready_locked(a, i, m->seq))
        return now;
    m->tampered = 0;
    _Atomic uint32_t *st = feed__slot_states(a, i);
    for (uint32_t t = 0; t < m->count; t++) {
        publish_rec(a, i, t, 1);
        atomic_store_explicit(&st[t], feed__state(m->gen, FEED_OWNER_FREE), memory_order_release);
    }
    atomic_store_explicit(&s->ticket, 0, memory_order_relaxed);
    feed__futex_bump(&a->hdr->work_seq);
    return 2;
}

/* One more death (or invalid result) against sample p; 1 if that poisons it. */
static int count_attempt(feed__arena *a, feed__sample_priv *p, const char *report)
{
    if (++p->attempts <= a->cfg->max_retries || p->poisoned)
        return 0;
    p->poisoned = 1;
    if (report && !p->status) {
        p->status = FEED_E_WORKER;
        snprintf(p->why, sizeof p->why, "%s", report);
    }
    return 1;
}

static void redo_locked(feed__arena *a, uint32_t i, uint32_t t, const char *report)
{
    feed__slot_meta *m = &a->meta[i];
    if (atomic_load_explicit(&m->phase, memory_order_relaxed) != FEED_SLOT_FILLING || t >= m->count)
        return;
    feed__sample_priv *p = &m->s[t];
    count_attempt(a, p, report);
    p->subst_k = 0, p->subst_deaths = 0;
    publish_rec(a, i, t, 1);
    atomic_store_explicit(&feed__slot_states(a, i)[t], feed__state(m->gen, FEED_OWNER_FREE), memory_order_release);
    feed__futex_bump(&a->hdr->work_seq);
}

static uint32_t reclaim_why_locked(feed__arena *a, uint32_t w, const char *report, uint64_t *poisoned_id)
{
    uint32_t n = 0;
    if (poisoned_id)
        *poisoned_id = UINT64_MAX;
    for (uint32_t i = 0; i < a->lay.nslots; i++) {
        feed__slot_meta *m = &a->meta[i];
        _Atomic uint32_t *st = feed__slot_states(a, i);
        feed__sample_rec *recs = feed__slot_recs(a, i);
        for (uint32_t t = 0; t < a->lay.batch_size; t++) {
            uint32_t cur = atomic_load_explicit(&st[t], memory_order_acquire);
            int filling = atomic_load_explicit(&m->phase, memory_order_relaxed) == FEED_SLOT_FILLING;
            if (filling && t < m->count && invalid_state(a, m, cur) &&
                atomic_load_explicit(&recs[t].filler, memory_order_relaxed) == w + 1) {
                /* A word w wrote over its claim: the sample starts over, now
                 * that w can write no more. */
                redo_locked(a, i, t, report);
                n++;
                continue;
            }
            if (feed__state_owner(cur) != w + 1)
                continue;
            if ((cur >> 8) == m->gen && t < m->count) {
                /* The worker is dead and reaped: nobody else writes the
                 * record now, and the CAS below publishes it to the next
                 * claimant. On the sample itself: count the death, poison it
                 * (with the caller's report) past max_retries. On substitute
                 * k (the worker's progress, the one value taken from the
                 * record, bounded): count deaths on k, move on to k+1 past
                 * max_retries; until then k is retried, so a crash does not
                 * change which sample replaces this one. */
                feed__sample_priv *p = &m->s[t];
                uint32_t k = atomic_load_explicit(&recs[t].subst_k, memory_order_relaxed);
                if (k > FEED_SUBSTITUTE_MAX || (k == 0 && p->subst_k))
                    k = p->subst_k; /* not a value a worker writes */
                if (k != p->subst_k)
                    p->subst_k = k, p->subst_deaths = 0;
                if (k > 0) {
                    if (++p->subst_deaths > a->cfg->max_retries) {
                        p->subst_k = k + 1;
                        p->subst_deaths = 0;
                    }
                } else if (count_attempt(a, p, report) && poisoned_id) {
                    *poisoned_id = p->id;
                }
                publish_rec(a, i, t, 0);
            }
            /* A word of another gen, or past count, is no claim: FREE makes
             * it claimable (current gen) or lets assign overwrite it. */
            if (atomic_compare_exchange_strong_explicit(&st[t], &cur, (cur & ~0xffu) | FEED_OWNER_FREE,
                                                        memory_order_acq_rel, memory_order_acquire))
                n++;
        }
    }
    if (n)
        feed__futex_bump(&a->hdr->work_seq);
    return n;
}

static int try_claim_at(const feed__arena *a, _Atomic uint32_t *st, uint32_t gen, uint32_t w, uint32_t slot,
                        uint32_t t)
{
    uint32_t expect = feed__state(gen, FEED_OWNER_FREE);
    if (!atomic_compare_exchange_strong_explicit(&st[t], &expect, feed__state(gen, w + 1), memory_order_acq_rel,
                                                 memory_order_acquire))
        return 0;
    atomic_store_explicit(&feed__slot_recs(a, slot)[t].filler, w + 1, memory_order_relaxed);
    return 1;
}

int feed__ring_claim(const feed__arena *a, uint32_t w, feed__claim *c)
{
    /* Visit FILLING slots oldest batch first, so the batch the consumer waits
     * for is finished first. nslots is small: a selection pass per claim.
     * The slot headers are shared: a count is bounded before use, and the
     * order is by (seq, slot), so that seqs a worker wrote the same (or out
     * of order) still leave every slot visited once per claim. */
    const uint32_t nslots = a->lay.nslots;
    uint64_t last = 0;
    uint32_t last_i = 0;
    int have_last = 0;
    for (uint32_t pass = 0; pass < nslots; pass++) {
        uint32_t best = UINT32_MAX;
        uint64_t best_seq = UINT64_MAX;
        for (uint32_t i = 0; i < nslots; i++) {
            feed__slot_hdr *s = feed__slot(a, i);
            if (atomic_load_explicit(&s->phase, memory_order_acquire) != FEED_SLOT_FILLING)
                continue;
            uint64_t seq = s->seq;
            if (have_last && (seq < last || (seq == last && i <= last_i)))
                continue; /* visited in an earlier pass */
            if (best != UINT32_MAX && (seq > best_seq || (seq == best_seq && i > best)))
                continue;
            best = i, best_seq = seq;
        }
        if (best == UINT32_MAX)
            return 0;
        last = best_seq, last_i = best, have_last = 1;
        feed__slot_hdr *s = feed__slot(a, best);
        uint32_t gen = atomic_load_explicit(&s->gen, memory_order_relaxed);
        uint32_t count = s->count;
        if (count > a->lay.batch_size)
            count = a->lay.batch_size;
        if (atomic_load_explicit(&s->phase, memory_order_acquire) != FEED_SLOT_FILLING)
            continue;
        _Atomic uint32_t *st = feed__slot_states(a, best);
        uint32_t t = atomic_fetch_add_explicit(&s->ticket, 1, memory_order_relaxed);
        if (t < count && try_claim_at(a, st, gen, w, best, t)) {
            *c = (feed__claim){best, t, gen};
            return 1;
        }
        /* Tickets used up: pick up any sample left FREE (reclaimed from a dead
         * worker, or a ticket that was lost). */
        for (t = 0; t < count; t++) {
            if (feed__state_owner(atomic_load_explicit(&st[t], memory_order_relaxed)) != FEED_OWNER_FREE)
                continue;
            if (try_claim_at(a, st, gen, w, best, t)) {
                *c = (feed__claim){best, t, gen};
                return 1;
            }
        }
    }
    return 0;
}

void feed__ring_pass_wake(const feed__arena *a)
{
    feed__futex_wake(&a->hdr->work_seq, 1);
}

int feed__ring_complete(const feed__arena *a, uint32_t w, const feed__claim *c)
{
    feed__arena_hdr *h = a->hdr;
    _Atomic uint32_t *st = feed__slot_states(a, c->slot);
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

int feed__ring_drain(feed__arena *a, uint32_t i)
{
    pthread_mutex_lock(&a->mu);
    int r = drain_locked(a, i);
    pthread_mutex_unlock(&a->mu);
    return r;
}

int feed__ring_assign(feed__arena *a, uint32_t i, uint64_t seq, uint64_t epoch, uint64_t batch, uint32_t count,
                      const uint64_t *ids, const uint32_t *reps, const char *const *quarantine)
{
    pthread_mutex_lock(&a->mu);
    int r = assign_locked(a, i, seq, epoch, batch, count, ids, reps, quarantine);
    pthread_mutex_unlock(&a->mu);
    return r;
}

int feed__ring_ready(const feed__arena *a, uint32_t i, uint64_t seq)
{
    pthread_mutex_lock(&((feed__arena *)a)->mu);
    int r = ready_locked(a, i, seq);
    pthread_mutex_unlock(&((feed__arena *)a)->mu);
    return r;
}

uint32_t feed__ring_ready_count(const feed__arena *a)
{
    pthread_mutex_lock((pthread_mutex_t *)&a->mu);
    uint32_t n = ready_count_locked(a);
    pthread_mutex_unlock((pthread_mutex_t *)&a->mu);
    return n;
}

uint32_t feed__ring_scan(const feed__arena *a, uint32_t i, uint32_t *filler)
{
    pthread_mutex_lock(&((feed__arena *)a)->mu);
    uint32_t r = scan_locked(a, i, filler);
    pthread_mutex_unlock(&((feed__arena *)a)->mu);
    return r;
}

void feed__ring_redo(feed__arena *a, uint32_t i, uint32_t t, const char *report)
{
    pthread_mutex_lock(&a->mu);
    redo_locked(a, i, t, report);
    pthread_mutex_unlock(&a->mu);
}

uint32_t feed__ring_reclaim_why(feed__arena *a, uint32_t w, const char *report, uint64_t *poisoned_id)
{
    pthread_mutex_lock(&a->mu);
    uint32_t r = reclaim_why_locked(a, w, report, poisoned_id);
    pthread_mutex_unlock(&a->mu);
    return r;
}

int feed__ring_guard(feed__arena *a, uint32_t i)
{
    pthread_mutex_lock(&a->mu);
    int r = guard_locked(a, i);
    pthread_mutex_unlock(&a->mu);
    return r;
}

uint64_t feed__ring_progress(feed__arena *a)
{
    pthread_mutex_lock(&a->mu);
    uint64_t n = a->retired;
    for (uint32_t i = 0; i < a->lay.nslots; i++)
        n += done_in(a, i);
    pthread_mutex_unlock(&a->mu);
    return n;
}

void feed__ring_claims(feed__arena *a, uint32_t *words, uint32_t *deaths)
{
    const uint32_t bs = a->lay.batch_size;
    pthread_mutex_lock(&a->mu);
    for (uint32_t i = 0; i < a->lay.nslots; i++) {
        /* Every slot, as drain and assign see claims (held()): a seek's
         * drain waits for those of a slot no longer FILLING. */
        const feed__slot_meta *m = &a->meta[i];
        _Atomic uint32_t *st = feed__slot_states(a, i);
        for (uint32_t t = 0; t < bs; t++) {
            uint32_t cur = atomic_load_explicit(&st[t], memory_order_relaxed);
            uint32_t k = i * bs + t, d = 0;
            int h = held(a, cur, m->gen);
            words[k] = h ? cur : feed__state_owner(cur) == FEED_OWNER_DONE ? FEED_CLAIM_DONE : 0;
            if (h && (cur >> 8) == m->gen && t < m->count) {
                /* Deaths on what it holds: on the sample, or on the
                 * substitute it is at (none yet if it moved on). */
                const feed__sample_priv *p = &m->s[t];
                uint32_t sk = atomic_load_explicit(&feed__slot_recs(a, i)[t].subst_k, memory_order_relaxed);
                d = sk != p->subst_k ? 0 : sk ? p->subst_deaths : p->attempts;
            }
            deaths[k] = d;
        }
    }
    pthread_mutex_unlock(&a->mu);
}

uint32_t feed__ring_reclaim(feed__arena *a, uint32_t w)
{
    return feed__ring_reclaim_why(a, w, NULL, NULL);
}
