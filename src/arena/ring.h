/*
 * ring.h - the slot state machine and sample tickets (see the contract at the
 * top of ring.c). Parent side: assign, drain, ready, reclaim, guard.
 * Worker side: claim, complete.
 */
#ifndef FEED_RING_H
#define FEED_RING_H

#include <stdint.h>

#include "arena/arena.h"
#include "arena/futex.h" /* the sleeps on work_seq and done_seq */

static inline uint32_t feed__state(uint32_t gen, uint32_t owner)
{
    return (gen & 0xffffffu) << 8 | owner;
}
static inline uint32_t feed__state_owner(uint32_t s)
{
    return s & 0xffu;
}

/* ---- parent ----
 * The parent's functions take their geometry, and what each slot holds,
 * from the arena's private copies (a->lay, a->cfg, a->meta); a word a worker
 * wrote is only ever compared, never used as an index or a size. */

/* Binds batch seq (number batch of epoch) of count samples with dataset
 * ids[] (and their labels) to slot i, which must hold no claims, and wakes
 * the workers. reps (NULL: all 0) is each sample's repeat in the epoch
 * (feed__sample_rec.repeat).
 * quarantine (NULL, or count entries) names samples known to kill workers:
 * a non-NULL entry is the reason, and the sample goes straight to a
 * substitute without being decoded.
 * Returns 0, or -1 if a worker still holds a sample of the slot (the caller
 * waits on done_seq and tries again). */
int feed__ring_assign(feed__arena *a, uint32_t i, uint64_t seq, uint64_t epoch, uint64_t batch,
                      uint32_t count, const uint64_t *ids, const uint32_t *reps,
                      const char *const *quarantine);
/* Takes slot i out of circulation (no new claims). Returns 0 when no worker
 * holds a sample of it any more, -1 if one still does (wait and call again). */
int feed__ring_drain(feed__arena *a, uint32_t i);
/* 1 if slot i holds batch seq and every sample of it is done. */
int feed__ring_ready(const feed__arena *a, uint32_t i, uint64_t seq);
/* Returns every sample held by worker w (0-based) to the pool, counting an
 * attempt against each; a sample over max_retries attempts is poisoned (the
 * next worker goes straight to a substitute). Returns the number reclaimed. */
uint32_t feed__ring_reclaim(feed__arena *a, uint32_t w);
/* The same; a sample it poisons has killed exactly max_retries + 1 workers
 * and, unless a worker already reported an error for it, gets status
 * FEED_E_WORKER and report as its message (the caller words it; NULL: the
 * worker that picks it up writes a generic one). Deaths on a substitute are
 * counted per substitute: past max_retries the next substitute is tried. If
 * it poisons a sample, *poisoned_id (if not NULL) is its dataset index, else
 * UINT64_MAX. */
uint32_t feed__ring_reclaim_why(feed__arena *a, uint32_t w, const char *report, uint64_t *poisoned_id);
/* Samples the parent has seen done, ever: DONE states of FILLING slots now,
 * plus those of batches since reassigned or drained. Only the ring's state
 * words count (compared with the parent's gens), never a worker's own
 * tally: a measure of progress no worker can feign without delivering a
 * sample. Grows, but for a batch whose header was tampered with (handed
 * out again, feed__ring_guard). */
uint64_t feed__ring_progress(feed__arena *a);
/* The state word of every sample of every slot (of any slot: a draining
 * one's claims too), as the parent sees it now, for the pool's claim timer:
 * words[i * batch_size + t] is the word when a worker holds that sample (gen
 * << 8 | w + 1, w a worker that exists), FEED_CLAIM_DONE when it is DONE
 * (never a held word: owner 255), 0 otherwise; and
 * deaths[...] the workers that already died on what is held there (on the
 * sample, or on the substitute it is at: the parent's private counts), 0
 * where nothing is held. The parent times a claim from when it first saw
 * it, so no clock a worker writes decides a hang. */
#define FEED_CLAIM_DONE UINT32_MAX
void feed__ring_claims(feed__arena *a, uint32_t *words, uint32_t *deaths);
/* Number of slots whose batch is complete. */
uint32_t feed__ring_ready_count(const feed__arena *a);
/* Looks for a state word of FILLING slot i that no worker may write: a gen
 * other than the slot's, or an owner that is no worker. Returns the first
 * such sample's index and sets *filler to the worker (0-based) its record
 * names as the last to claim it (UINT32_MAX if that is no worker either);
 * UINT32_MAX if every state is valid. */
uint32_t feed__ring_scan(const feed__arena *a, uint32_t i, uint32_t *filler);
/* The slot header is shared: a worker may change what other workers read
 * there (a batch's epoch, count, gen). Compares it with the private copy
 * and restores it. Returns 0 if it was intact, 1 if it was restored now, 2
 * if it was restored during this batch and every sample is done: then every
 * sample has been handed out again (some were done from a wrong header). */
int feed__ring_guard(feed__arena *a, uint32_t i);
/* Hands sample t of slot i out again from scratch (its state back to FREE,
 * its record rewritten from the private copy), counting an attempt against
 * it as a death does; past max_retries it is poisoned with report. The
 * worker that wrote it is killed by the caller. */
void feed__ring_redo(feed__arena *a, uint32_t i, uint32_t t, const char *report);

/* ---- worker ---- */

typedef struct feed__claim {
    uint32_t slot, t, gen;
} feed__claim;

/* Claims one sample, oldest batch first. Returns 1 with *c set, 0 if there is
 * no unclaimed sample right now. */
int feed__ring_claim(const feed__arena *a, uint32_t w, feed__claim *c);
/* A worker that slept and then claimed a sample wakes one more sleeper
 * (a new batch wakes one worker only; see "Sleeping" in ring.c). */
void feed__ring_pass_wake(const feed__arena *a);
/* Marks a claimed sample done (its pixels, label, id and flags are written)
 * and wakes the consumer if it waits. Returns 0, or -1 if the claim was taken
 * away (never happens to a live worker). */
int feed__ring_complete(const feed__arena *a, uint32_t w, const feed__claim *c);

#endif
