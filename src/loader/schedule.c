/*
 * schedule.c - the batch schedule (see schedule.h).
 */
#include "loader/schedule.h"

#include <stdatomic.h>
#include <string.h>

#include "arena/ring.h"
#include "common/internal.h"

feed_status feed__schedule_init(feed__schedule *S, feed__arena *a, feed__sampler *sampler, feed__pool *pool,
                                feed__badlog *bad, feed__readahead *ra, const feed_options *o)
{
    *S = (feed__schedule){.a = a, .sampler = sampler, .pool = pool, .bad = bad, .ra = ra,
                          .first_epoch = o->start_epoch, .epochs = o->epochs};
    S->ids = feed__malloc(o->batch_size * sizeof *S->ids);
    S->reps = feed__malloc(o->batch_size * sizeof *S->reps);
    return S->ids && S->reps ? FEED_OK : FEED_E_NOMEM;
}

void feed__schedule_free(feed__schedule *S)
{
    feed__free(S->ids);
    feed__free(S->reps);
    feed__free(S->deferred);
    S->ids = NULL;
    S->reps = NULL;
    S->deferred = NULL;
}

feed_status feed__schedule_gate(feed__schedule *S, feed__fetchahead *fa)
{
    if (!(S->deferred = feed__calloc(S->a->lay.nslots, sizeof *S->deferred)))
        return FEED_E_NOMEM;
    S->fa = fa;
    return FEED_OK;
}

void feed__schedule_retry(feed__schedule *S)
{
    if (!S->deferred)
        return;
    for (;;) { /* the oldest first: the consumer waits for it */
        uint64_t best = 0;
        for (uint32_t i = 0; i < S->a->lay.nslots; i++)
            if (S->deferred[i] && (!best || S->deferred[i] < best))
                best = S->deferred[i];
        if (!best)
            return;
        feed__schedule_assign(S, best - 1);
        if (S->deferred[(best - 1) % S->a->lay.nslots] == best)
            return; /* still waiting: so are the later ones */
    }
}

/* Epoch, start of its part and batch number in the part of seq. */
static void locate(const feed__schedule *S, uint64_t seq, uint64_t *epoch, uint64_t *start, uint64_t *k)
{
    feed__sampler_locate(S->sampler, S->epoch0, S->start0, seq - S->seq0, epoch, start, k);
}

void feed__schedule_position(const feed__schedule *S, uint64_t seq, uint64_t *epoch, uint64_t *batch)
{
    uint64_t start, k;
    locate(S, seq, epoch, &start, &k);
    *batch = feed__sampler_index(S->sampler, start, k);
}

void feed__schedule_position_samples(const feed__schedule *S, uint64_t seq, uint64_t *epoch,
                                     uint64_t *consumed)
{
    uint64_t start, k;
    locate(S, seq, epoch, &start, &k);
    *consumed = feed__sampler_consumed(S->sampler, start, k);
}

/* Waits until no worker holds a sample of slot i (new claims are closed), or
 * the pool failed: FEED_OK or the pool's status. */
static feed_status drain_slot(feed__schedule *S, uint32_t i, char *msg, size_t msglen)
{
    feed__arena_hdr *h = S->a->hdr;
    for (;;) {
        uint32_t seen = atomic_load(&h->done_seq);
        if (feed__ring_drain(S->a, i) == 0)
            return FEED_OK;
        feed_status st = feed__pool_fatal(S->pool, msg, msglen);
        if (st != FEED_OK)
            return st;
        feed__futex_wait(&h->done_seq, seen, 100000000ll);
    }
}

void feed__schedule_assign(feed__schedule *S, uint64_t seq)
{
    uint32_t slot = (uint32_t)(seq % S->a->lay.nslots);
    if (seq >= S->end_seq)
        return;
    uint64_t epoch, start, k;
    locate(S, seq, &epoch, &start, &k);
    uint64_t batch = feed__sampler_index(S->sampler, start, k);
    uint32_t count = feed__sampler_batch_reps(S->sampler, epoch, start, k, S->ids, S->reps);
    if (S->deferred) {
        S->deferred[slot] = 0;
        if (!feed__fetchahead_gate(S->fa, seq, S->ids, count)) {
            S->deferred[slot] = seq + 1;
            return;
        }
    }
    const char *const *quar = feed__badlog_quarantine(S->bad, S->pool, S->ids, count);
    /* A worker still writes into the slot (only after a seek's drain): wait
     * for it to finish or die. */
    while (feed__ring_assign(S->a, slot, seq, epoch, batch, count, S->ids, S->reps, quar) != 0)
        if (drain_slot(S, slot, NULL, 0) != FEED_OK)
            return;
    feed__readahead_progress(S->ra, seq + 1, 0); /* any thread (the copier too): not next_seq */
}

void feed__schedule_start(feed__schedule *S, uint64_t seq, uint64_t epoch, uint64_t start)
{
    uint64_t nb0 = feed__sampler_batches_from(S->sampler, start);
    S->seq0 = seq;
    S->epoch0 = epoch;
    S->start0 = start;
    S->next_seq = seq;
    /* A part with no batch still ends its epoch: END_OF_EPOCH comes first. */
    S->eoe_seq = nb0 == 0 ? UINT64_MAX : seq;
    S->end_seq = UINT64_MAX;
    if (S->epochs) {
        uint64_t last = S->first_epoch + S->epochs; /* first epoch not delivered */
        uint64_t nb = S->sampler->nbatches;
        S->end_seq = epoch >= last ? seq : seq + nb0 + (last - epoch - 1) * nb;
    }
    feed__readahead_reset(S->ra, seq, epoch, start, S->end_seq);
    if (S->deferred)
        memset(S->deferred, 0, S->a->lay.nslots * sizeof *S->deferred);
    feed__fetchahead_reset(S->fa, seq, epoch, start, S->end_seq);
    for (uint32_t i = 0; i < S->a->lay.nslots; i++)
        feed__schedule_assign(S, seq + i);
}

feed_status feed__schedule_drain(feed__schedule *S, char *msg, size_t msglen)
{
    for (uint32_t i = 0; i < S->a->lay.nslots; i++) {
        feed_status st = drain_slot(S, i, msg, msglen);
        if (st != FEED_OK)
            return st;
    }
    return FEED_OK;
}

feed_status feed__schedule_boundary(feed__schedule *S)
{
    if (S->next_seq != S->eoe_seq) {
        uint64_t e, start, k;
        locate(S, S->next_seq, &e, &start, &k);
        if (k == 0 || S->next_seq == S->end_seq) {
            S->eoe_seq = S->next_seq;
            return FEED_END_OF_EPOCH;
        }
    }
    return S->next_seq >= S->end_seq ? FEED_END_OF_DATA : FEED_OK;
}

void feed__schedule_stay(feed__schedule *S)
{
    S->eoe_seq = S->next_seq;
}

void feed__schedule_delivered(feed__schedule *S)
{
    S->next_seq++;
    feed__readahead_progress(S->ra, 0, S->next_seq); /* the consumer's thread owns next_seq */
    feed__fetchahead_progress(S->fa, S->next_seq);
}
