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

/* The k-th (k >= 1) deterministic substitute for sample id in epoch: a
 * different sample among the count from first (id among them, count > 1),
 * the same for every worker: the whole dataset (feed__substitute), or the
 * sample's own tar shard (cfg substitute_in_shard). Inline: the parent
 * (supervise/verify.c) checks substitutes without linking the worker loop
 * and its decoders. */
static inline uint64_t feed__substitute_in(uint64_t seed, uint64_t epoch, uint64_t id, uint32_t k,
                                           uint64_t first, uint64_t count)
{
    if (count <= 1 || id < first || id - first >= count)
        return id;
    feed__rng r;
    feed__rng_init(&r, seed, epoch, id, FEED_RNG_REPLACE);
    r.ctr = (uint64_t)k * 4; /* draws of k never overlap those of k+1 */
    uint64_t s = feed__rng_below(&r, count - 1);
    return first + (s >= id - first ? s + 1 : s);
}

static inline uint64_t feed__substitute(uint64_t seed, uint64_t epoch, uint64_t id, uint32_t k,
                                        uint64_t n)
{
    return feed__substitute_in(seed, epoch, id, k, 0, n);
}

#endif
