/*
 * loop.h - the worker loop: claim a sample, read, decode, augment, write
 * into the slot, complete. Runs in the feed-worker process (worker/main.c);
 * never in the parent.
 */
#ifndef FEED_WORKER_H
#define FEED_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "arena/arena.h"
#include "arena/protocol.h"
#include "dataset/index.h"

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

#endif
