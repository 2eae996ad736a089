/*
 * worker.h - the worker loop: claim a sample, read, decode, augment, write
 * into the slot, complete. Runs in the feed-worker process (worker_main.c);
 * never in the parent.
 */
#ifndef FEED_WORKER_H
#define FEED_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "arena/arena.h"
#include "common/rng.h"
#include "dataset/index.h"

/* A worker's fd 5: the write end of a pipe whose read end the parent's
 * supervisor keeps. A worker that cannot start (or must stop) says why on it
 * (feed__worker_fail), so the loader's error names the cause instead of only
 * an exit status. */
#define FEED_WORKER_REPORT_FD 5

/* A worker's fd 6: the arena's configuration page, a sealed memfd (shm.h),
 * mapped read-only over the first 64 KiB of the arena (fd 3). */
#define FEED_WORKER_CONFIG_FD 6

/* Prints "feed-worker: MESSAGE" on stderr and writes MESSAGE to the report
 * fd (at most 255 bytes; nothing if the fd is not there). */
void feed__worker_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Called once the worker is set up (dataset root open, reader and decoder
 * made), before it takes work: the executable locks itself down here
 * (sandbox.h). Returns 0, or nonzero with the reason in err. */
typedef int (*feed__worker_ready_fn)(const feed__arena_hdr *h, char *err, size_t errlen);

/* Sets up, then serves samples until the process is killed: by the pool
 * (SIGKILL: stop, a hang, an invalid value) or by the kernel when the parent
 * dies (PR_SET_PDEATHSIG). No word of the arena stops it: every worker can
 * write them all. Returns only if setup fails, with the exit code. ready may
 * be NULL. */
int feed__worker_run(const feed__arena *a, const feed__index_hdr *ix, uint32_t w, feed__worker_ready_fn ready);

/* The k-th (k >= 1) deterministic substitute for sample id in epoch: a
 * different sample of the dataset (n > 1), the same for every worker.
 * Inline: the parent (verify.c) checks substitutes without linking the
 * worker loop and its decoders. */
static inline uint64_t feed__substitute(uint64_t seed, uint64_t epoch, uint64_t id, uint32_t k,
                                        uint64_t n)
{
    if (n <= 1)
        return id;
    feed__rng r;
    feed__rng_init(&r, seed, epoch, id, FEED_RNG_REPLACE);
    r.ctr = (uint64_t)k * 4; /* draws of k never overlap those of k+1 */
    uint64_t s = feed__rng_below(&r, n - 1);
    return s >= id ? s + 1 : s;
}

#endif
