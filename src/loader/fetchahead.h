/*
 * fetchahead.h - remote shards fetched ahead of the workers (option
 * fetch_ahead): a thread of the loader that walks the same sample order as
 * the schedule, from the consumer's batch to fetch_ahead batches past the
 * ring's slots, and tells the fetcher (remote/remote.h) which shards those
 * batches read, in the order they read them. As far as cache_size allows:
 * the consumer's batch always (a cache that cannot hold its shards is an
 * error), then whole batches while their shards fit. Shards behind the
 * consumer are let go.
 *
 * The schedule binds a batch to its slot only once it is within the plan
 * and all its shards are present (feed__fetchahead_gate); when shards arrive, the thread calls the
 * loader's retry, which binds the batches that waited. So a worker never
 * reads a shard still arriving, and a shard is held from before its batch is
 * bound until the consumer has its batch.
 */
#ifndef FEED_FETCHAHEAD_H
#define FEED_FETCHAHEAD_H

#include <stdint.h>

#include "dataset/index.h"
#include "loader/sampler.h"
#include "remote/remote.h"

typedef struct feed__fetchahead feed__fetchahead;

/* Starts the thread: batches = the ring's slots + fetch_ahead; s copied;
 * ranges: the fetcher's cfg ranges (the samples' byte ranges are fetched);
 * retry(ctx) runs on the thread, under no lock of this file, after shards
 * arrived. NULL: out of memory or no thread. */
feed__fetchahead *feed__fetchahead_start(const feed__index_hdr *ix, const feed__sampler *s, feed__fetcher *f,
                                         uint32_t batches, int ranges, void (*retry)(void *), void *ctx);
/* Stops and joins the thread (before the fetcher stops). Accepts NULL. */
void feed__fetchahead_stop(feed__fetchahead *p);

/* As the read-ahead's (readahead.h). Accept NULL. */
void feed__fetchahead_reset(feed__fetchahead *p, uint64_t seq0, uint64_t epoch0, uint64_t start0, uint64_t end_seq);
void feed__fetchahead_progress(feed__fetchahead *p, uint64_t next_seq);

/* 1: batch seq (its samples ids[0..n)) is within the last plan's reach and
 * every shard it reads is present (ranges: every sample's members). */
int feed__fetchahead_gate(feed__fetchahead *p, uint64_t seq, const uint64_t *ids, uint32_t n);

#endif
