/*
 * protocol.h - what the parent and a worker agree on besides the arena's
 * layout (arena.h) and the ring's words (ring.h): the file descriptors a
 * worker starts with, the words it may say on its report pipe, and the rule
 * that picks a bad sample's substitutes (both sides compute it: the worker to
 * take one, the parent to check the one it took).
 */
#ifndef FEED_ARENA_PROTOCOL_H
#define FEED_ARENA_PROTOCOL_H

#include <stdint.h>

#include "common/rng.h"

/* A worker's file descriptors, as the pool's posix_spawn leaves them; every
 * other descriptor is closed. */
#define FEED_WORKER_ARENA_FD 3  /* the arena (arena.h), a memfd mapped MAP_SHARED */
#define FEED_WORKER_INDEX_FD 4  /* the dataset index (dataset/index.h), a sealed memfd, read-only */
/* The write end of a pipe whose read end the parent's supervisor keeps. A
 * worker that cannot start (or must stop) says why on it (feed__worker_fail),
 * so the loader's error names the cause instead of only an exit status. */
#define FEED_WORKER_REPORT_FD 5
/* The arena's configuration page, a sealed memfd (arena.h), mapped read-only
 * over the first 64 KiB of the arena. The highest of a worker's fds. */
#define FEED_WORKER_CONFIG_FD 6

/* Prefix of the report a worker killed by its seccomp filter writes on its
 * report pipe: "sandbox: syscall socket, nr 41". */
#define FEED_SANDBOX_REPORT "sandbox: "

/* The last substitute a worker tries for a bad sample (k = 1..this). */
#define FEED_SUBSTITUTE_MAX 64u

/* Where a bad sample's substitutes come from (cfg substitute_from): the
 * whole dataset, the sample's own tar shard (its shards are the cached
 * ones), or its own batch (only the batch's samples are in the cache). */
#define FEED_SUBSTITUTE_DATASET 0u
#define FEED_SUBSTITUTE_SHARD 1u
#define FEED_SUBSTITUTE_BATCH 2u

/* The draw behind the k-th (k >= 1) substitute of sample id in epoch, below
 * n (n >= 1), whatever the mode. */
static inline uint64_t feed__substitute_draw(uint64_t seed, uint64_t epoch, uint64_t id, uint32_t k, uint64_t n)
{
    feed__rng r;
    feed__rng_init(&r, seed, epoch, id, FEED_RNG_REPLACE);
    r.ctr = (uint64_t)k * 4; /* draws of k never overlap those of k+1 */
    return feed__rng_below(&r, n);
}

/* The k-th (k >= 1) deterministic substitute for sample id in epoch: a
 * different sample among the count from first (id among them, count > 1),
 * the same for every worker: the whole dataset (feed__substitute), or the
 * sample's own tar shard. Inline: the parent (supervise/verify.c) checks
 * substitutes without linking the worker loop and its decoders. */
static inline uint64_t feed__substitute_in(uint64_t seed, uint64_t epoch, uint64_t id, uint32_t k,
                                           uint64_t first, uint64_t count)
{
    if (count <= 1 || id < first || id - first >= count)
        return id;
    uint64_t s = feed__substitute_draw(seed, epoch, id, k, count - 1);
    return first + (s >= id - first ? s + 1 : s);
}

/* FEED_SUBSTITUTE_BATCH: the position in its batch of the k-th (k >= 1)
 * substitute for sample id at position t of a batch of n: a different
 * position in [0, n), whose asked sample stands in. Keyed by the sample,
 * not by the worker, so every worker count gives the same. t itself when
 * there is no other (n <= 1, or t out of the batch). */
static inline uint32_t feed__substitute_pos(uint64_t seed, uint64_t epoch, uint64_t id, uint32_t k, uint32_t t,
                                            uint32_t n)
{
    if (n <= 1 || t >= n)
        return t;
    uint32_t s = (uint32_t)feed__substitute_draw(seed, epoch, id, k, n - 1);
    return s >= t ? s + 1 : s;
}

static inline uint64_t feed__substitute(uint64_t seed, uint64_t epoch, uint64_t id, uint32_t k,
                                        uint64_t n)
{
    return feed__substitute_in(seed, epoch, id, k, 0, n);
}

#endif
