/*
 * schedule.h - the batch schedule: which batch each sequence number is,
 * where the epochs and the run end, and binding batches to ring slots.
 *
 * The loader numbers batches with a sequence number seq that only grows
 * (across epochs and seeks). Batch seq lives in ring slot seq % nslots.
 * After a start or a seek at seq0 to sample position start0 of epoch0 (the
 * samples of the epoch's order all ranks consumed before it, sampler.h), batch
 * seq is batch seq - seq0 of the run from there (feed__sampler_locate),
 * carried over epoch boundaries, so the ring keeps filling across an epoch's
 * end without a stall.
 *
 * Uses arena.h, ring.h, sampler.h, pool.h, badlog.h, readahead.h and
 * fetchahead.h. Not
 * thread-safe: the loader calls start and assign under its lock (the CUDA
 * copier assigns too); next_seq and eoe_seq are the consumer's thread's.
 */
#ifndef FEED_SCHEDULE_H
#define FEED_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "arena/arena.h"
#include "feed.h"
#include "loader/badlog.h"
#include "loader/fetchahead.h"
#include "loader/readahead.h"
#include "loader/sampler.h"
#include "supervise/pool.h"

typedef struct feed__schedule {
    feed__arena *a;            /* the ring */
    feed__sampler *sampler;    /* what each batch holds */
    feed__pool *pool;          /* whether a worker may still finish a slot */
    feed__badlog *bad;         /* quarantine look-ups */
    feed__readahead *ra;       /* told the position and what is assigned (NULL: off) */
    uint64_t *ids;             /* scratch, batch_size */
    uint32_t *reps;            /* scratch, batch_size: each sample's repeat */
    uint64_t first_epoch;      /* option start_epoch */
    uint64_t epochs;           /* option epochs (0: unlimited) */

    /* Remote shards fetched while the loader runs (NULL: none): a batch
     * whose shards are not all in the cache (gate says 0) is not bound to
     * its slot yet; feed__schedule_retry binds it once they are. */
    feed__fetchahead *fa;
    uint64_t *deferred;        /* per slot: seq + 1 of the batch waiting, 0: none */

    uint64_t seq0, epoch0, start0;
    uint64_t end_seq;  /* first seq past the last epoch (UINT64_MAX: unlimited) */
    uint64_t next_seq; /* next batch next() returns */
    uint64_t eoe_seq;  /* END_OF_EPOCH was returned before this seq */
} feed__schedule;

/* Borrows the pieces (they outlive the schedule). FEED_OK or FEED_E_NOMEM. */
feed_status feed__schedule_init(feed__schedule *S, feed__arena *a, feed__sampler *sampler, feed__pool *pool,
                                feed__badlog *bad, feed__readahead *ra, const feed_options *o);
void feed__schedule_free(feed__schedule *S);
/* Gates the binding of batches on their shards (fa's), from now on. FEED_OK or FEED_E_NOMEM. */
feed_status feed__schedule_gate(feed__schedule *S, feed__fetchahead *fa);
/* Binds the batches that waited for their shards and have them now, in order. */
void feed__schedule_retry(feed__schedule *S);

/* (epoch, batch index in the epoch) of sequence number seq (feed_batch's). */
void feed__schedule_position(const feed__schedule *S, uint64_t seq, uint64_t *epoch, uint64_t *batch);
/* (epoch, samples of its order consumed by all ranks before it) of seq. */
void feed__schedule_position_samples(const feed__schedule *S, uint64_t seq, uint64_t *epoch,
                                     uint64_t *consumed);
/* Makes seq the first batch, the first of epoch's part from sample position
 * start (< the dataset size), and the one next() gives; binds a batch to
 * every slot. Every slot must be drained (or never used). If that part has no
 * batch (drop_last), next() returns END_OF_EPOCH first, then epoch + 1. */
void feed__schedule_start(feed__schedule *S, uint64_t seq, uint64_t epoch, uint64_t start);
/* Binds batch seq to its slot (nothing past the end), waiting while a worker
 * still writes into the slot; gives up if the pool failed. With a gate, a
 * batch whose shards are not there yet waits for feed__schedule_retry. */
void feed__schedule_assign(feed__schedule *S, uint64_t seq);
/* Takes every slot out of circulation and waits for the samples in flight.
 * FEED_OK, or the pool's async error (its message in msg). */
feed_status feed__schedule_drain(feed__schedule *S, char *msg, size_t msglen);

/* What next() returns before it delivers next_seq: FEED_OK, or once per
 * epoch boundary FEED_END_OF_EPOCH, and past the end FEED_END_OF_DATA. */
feed_status feed__schedule_boundary(feed__schedule *S);
/* next() keeps returning the batch at next_seq, not an END_OF_EPOCH first. */
void feed__schedule_stay(feed__schedule *S);
/* next_seq was delivered. */
void feed__schedule_delivered(feed__schedule *S);

#endif
