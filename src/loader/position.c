/*
 * position.c - feed_loader_position and feed_loader_seek: where the next
 * batch comes from, in batches or in samples of the epoch's order, and a move
 * to another (drain the ring, restart the schedule and the device backend).
 */
#include <pthread.h>
#include <stdio.h>

#include "device/device.h"
#include "loader/badlog.h"
#include "loader/loader.h"
#include "loader/sampler.h"
#include "loader/schedule.h"

/* The sequence number of the next batch next() returns. */
static uint64_t next_seq(const feed_loader *L)
{
    return L->stashed ? L->stash_seq : L->sched.next_seq;
}

feed_status feed_loader_position(const feed_loader *L, uint64_t *epoch, uint64_t *batch)
{
    if (!L || !epoch || !batch)
        return FEED_E_INVALID;
    feed__schedule_position(&L->sched, next_seq(L), epoch, batch);
    return FEED_OK;
}

feed_status feed_loader_position_samples(const feed_loader *L, uint64_t *epoch, uint64_t *consumed)
{
    if (!L || !epoch || !consumed)
        return FEED_E_INVALID;
    feed__schedule_position_samples(&L->sched, next_seq(L), epoch, consumed);
    return FEED_OK;
}

feed_status feed_loader_seek(feed_loader *L, uint64_t epoch, uint64_t batch)
{
    if (!L)
        return FEED_E_INVALID;
    if (feed__loader_forked(L))
        return feed__loader_refuse_forked(L, "feed_loader_seek");
    if (batch >= L->sampler.nbatches) {
        feed__loader_set_error(L, "seek: batch %llu is past the %llu batches of an epoch", (unsigned long long)batch,
                  (unsigned long long)L->sampler.nbatches);
        return FEED_E_INVALID;
    }
    return feed_loader_seek_samples(L, epoch, feed__sampler_consumed(&L->sampler, 0, batch));
}

feed_status feed_loader_seek_samples(feed_loader *L, uint64_t epoch, uint64_t consumed)
{
    if (!L)
        return FEED_E_INVALID;
    if (feed__loader_forked(L))
        return feed__loader_refuse_forked(L, "feed_loader_seek_samples");
    if (consumed >= L->sampler.positions) {
        char rep[64] = "";
        if (L->sampler.repeats > 1)
            snprintf(rep, sizeof rep, " (%llu samples, repeats=%u)",
                     (unsigned long long)L->sampler.n, L->sampler.repeats);
        feed__loader_set_error(L, "seek: sample position %llu is past the %llu samples of an epoch%s (a "
                  "position from feed_loader_position_samples is below the dataset size times repeats "
                  "it was taken with)",
                  (unsigned long long)consumed, (unsigned long long)L->sampler.positions, rep);
        return FEED_E_INVALID;
    }
    int stashed = L->stashed;
    if (L->held > (uint32_t)stashed) { /* the batch bad_policy=fail failed was never handed out */
        uint32_t n = L->held - (uint32_t)stashed;
        feed__loader_set_error(L, "seek: release the %u held batch%s first", n, n == 1 ? "" : "es");
        return FEED_E_BUSY;
    }
    uint64_t ce, cc;
    feed_loader_position_samples(L, &ce, &cc);
    if (stashed) { /* dropped: a seek goes on from elsewhere, or from that batch afresh */
        feed_batch k;
        struct feed__held_batch *e = feed__loader_for_backend(L, &L->stash, &k, "seek");
        if (e) {
            L->dev.ops->release(L->dev_state, &k, NULL);
            *e = (struct feed__held_batch){0};
        }
        L->held--;
        L->stashed = 0;
    }
    L->data_error = FEED_OK;
    pthread_mutex_lock(&L->mu);
    feed__badlog_budget_reset(&L->bad);
    pthread_mutex_unlock(&L->mu);
    /* Not once the run has ended: seek_samples(UINT64_MAX, c) to a part with
     * no batch ends the run with its position wrapped to (0, 0), which is not
     * where a seek to (0, 0) starts (fuzz_position covers it). */
    if (ce == epoch && cc == consumed && !stashed && L->sched.next_seq < L->sched.end_seq) {
        feed__schedule_stay(&L->sched); /* next() returns that batch, not an END_OF_EPOCH */
        return FEED_OK;                 /* already there: keep what the ring has */
    }
    L->dev.ops->stop(L->dev_state);
    L->dev_started = 0;
    char msg[512];
    feed_status st = feed__schedule_drain(&L->sched, msg, sizeof msg);
    if (st != FEED_OK) {
        feed__loader_set_error(L, "%s", msg);
        return st;
    }
    uint64_t seq = L->sched.next_seq + L->arena.lay.nslots; /* fresh numbers: no stale slot matches */
    pthread_mutex_lock(&L->mu);
    feed__schedule_start(&L->sched, seq, epoch, consumed);
    pthread_mutex_unlock(&L->mu);
    st = L->dev.ops->start(L->dev_state, seq);
    if (st == FEED_OK)
        L->dev_started = 1;
    return st;
}
