/*
 * trace.h - the parent's side of the workers' timeline rings (arena/arena.h):
 * reads the events each worker published since the last read, for
 * feed_loader_trace_read. Uses arena/arena.h only.
 */
#ifndef FEED_TRACE_H
#define FEED_TRACE_H

#include <stdint.h>

#include "arena/arena.h"
#include "feed.h"

typedef struct feed__trace_reader {
    uint64_t cursor[FEED_ARENA_MAX_WORKERS]; /* events read so far, per worker ring */
} feed__trace_reader;

/* Copies at most max events, worker by worker, into out; events a worker
 * overwrote before they were copied are counted in *lost (if not NULL).
 * Returns the number copied. One reader thread at a time.
 * The rings are the workers' to write: a head that goes back or leaps, an
 * event that names another worker, an id past the dataset or unknown flags
 * is none a healthy worker writes. Its ring's events are dropped, *bad is
 * set to that worker (else UINT32_MAX) and why says what it wrote. */
uint64_t feed__trace_read(feed__trace_reader *r, const feed__arena *a, feed_trace_event *out, uint64_t max,
                          uint64_t *lost, uint32_t *bad, char *why, size_t whylen);

#endif
