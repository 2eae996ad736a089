/*
 * claims.c - the claim timer: a worker that holds a sample longer than
 * sample_timeout_ms (doubled for each worker that already died on it) is
 * killed, and its samples are done again by the others.
 *
 * Timed per sample, not per worker, from when the supervisor first saw the
 * claim in the ring's state words (feed__ring_claims), on the parent's
 * clock. A claim is the word gen << 8 | w + 1 of one worker's process (its
 * spawn time): the time keeps running while that word is not seen, so a
 * worker cannot reset it by writing FREE over its claim between two looks
 * and claiming again (a "flicker"), nor by moving from one sample to another
 * and back: when it is seen holding a sample again, the time counts from
 * the first look. It starts afresh only for another claim (another sample,
 * assignment, worker or process), or once the sample was seen DONE.
 *
 * A sample the parent itself sets FREE again in the same assignment (a
 * slot header a worker rewrote: the batch is done over, ring.c's guard)
 * keeps its record until a look sees it DONE: a claim of it by the same
 * process then counts from that process's first claim of it.
 *
 * What it cannot see: a claim held only between two looks (an eighth of the
 * timeout apart) leaves the sample FREE the rest of the time, for any other
 * worker to take; sample_timeout_ms=0 turns the timer off, and a worker may
 * then hold a claim for ever.
 */
#include <string.h>

#include "arena/ring.h"
#include "common/internal.h"
#include "supervise/pool.h"

feed_status feed__claims_init(feed__pool *p)
{
    size_t n = (size_t)p->a->lay.nslots * p->a->lay.batch_size;
    p->claim_seen = feed__calloc(n ? n : 1, sizeof *p->claim_seen);
    p->claim_words = feed__calloc(n ? n : 1, sizeof *p->claim_words);
    p->claim_deaths = feed__calloc(n ? n : 1, sizeof *p->claim_deaths);
    return p->claim_seen && p->claim_words && p->claim_deaths ? FEED_OK : FEED_E_NOMEM;
}

void feed__claims_free(feed__pool *p)
{
    feed__free(p->claim_seen);
    feed__free(p->claim_words);
    feed__free(p->claim_deaths);
    p->claim_seen = NULL, p->claim_words = NULL, p->claim_deaths = NULL;
}

void feed__claims_check(feed__pool *p)
{
    if (!p->timeout_ms || !p->claim_seen)
        return;
    uint64_t now = feed__now_ns(), limit = (uint64_t)p->timeout_ms * 1000000ull;
    size_t n = (size_t)p->a->lay.nslots * p->a->lay.batch_size;
    feed__ring_claims(p->a, p->claim_words, p->claim_deaths);
    for (size_t k = 0; k < n; k++) {
        uint32_t word = p->claim_words[k];
        struct feed__claim_seen *c = &p->claim_seen[k];
        if (word == FEED_CLAIM_DONE)
            c->word = 0; /* finished: the next claim of it is a new one */
        if (word == 0 || word == FEED_CLAIM_DONE)
            continue; /* not held now: a claim seen again goes on from its first look */
        uint32_t w = (word & 0xffu) - 1; /* held words name a worker that exists */
        uint64_t life = p->spawned_ns[w];
        if (c->word != word || c->life != life) {
            c->word = word, c->life = life, c->since = now;
            continue;
        }
        if (!p->pids[w] || p->hung[w])
            continue;
        /* A retry has twice the time of the try before it. */
        uint32_t d = p->claim_deaths[k];
        uint64_t lim = limit << (d < 16 ? d : 16);
        if (now - c->since > lim) {
            p->hung[w] = 1;
            p->hung_ms[w] = lim / 1000000ull;
            feed__pool_kill(p, w);
        }
    }
}
