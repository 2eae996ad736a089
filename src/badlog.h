/*
 * badlog.h - the loader's record of bad samples: every sample delivered as a
 * replacement is counted, each (epoch, sample) is reported once with its
 * path and reason, and poison pills the pool quarantined are looked up when
 * a batch is assigned, so they go straight to a substitute. (The pool keeps
 * them across epochs: each costs max_retries + 1 worker deaths once, not once
 * per epoch.)
 *
 * Not thread-safe: the loader calls every function under its lock. Uses
 * index.h, shm.h and pool.h.
 */
#ifndef FEED_BADLOG_H
#define FEED_BADLOG_H

#include <stdint.h>

#include "feed.h"
#include "index.h"
#include "pool.h"
#include "shm.h"

typedef struct feed__badlog {
    const feed__index_hdr *ix; /* for the paths in the reports */
    feed_bad_sample *bad;      /* one report per (epoch, sample), in delivery order */
    uint64_t nbad, capbad;
    uint64_t *set;             /* open-addressing set of (epoch, id) keys, 0 = empty */
    uint64_t set_cap, set_n;
    uint64_t samples_bad;      /* replacements delivered, repeats included */
    const char **quar;         /* per batch position, for feed__ring_assign */
    char (*quar_why)[200];     /* their reasons */
} feed__badlog;

/* Prepares an empty log for batches of batch_size. FEED_OK or FEED_E_NOMEM
 * (then feed__badlog_free still frees what was allocated). */
feed_status feed__badlog_init(feed__badlog *b, const feed__index_hdr *ix, uint32_t batch_size);
void feed__badlog_free(feed__badlog *b);

/* Records the replaced samples of READY slot i; returns how many it has. */
uint32_t feed__badlog_harvest(feed__badlog *b, const feed__arena_hdr *h, uint32_t i);
/* Writes the first recorded bad sample of batch (epoch, batch) into msg as
 * "path: reason (sample S, epoch E, batch B)" and returns its status; if
 * there is none, leaves msg alone and returns FEED_E_DECODE. */
feed_status feed__badlog_report(const feed__badlog *b, uint64_t epoch, uint64_t batch, char *msg, size_t len);
/* Copies report i into *out. FEED_OK, or FEED_E_INVALID past the end. */
feed_status feed__badlog_get(const feed__badlog *b, uint64_t i, feed_bad_sample *out);

/* The quarantine argument of feed__ring_assign for the count samples ids[]:
 * the reason for each that p quarantined, or NULL if none is (or p is NULL).
 * Valid until the next call. */
const char *const *feed__badlog_quarantine(feed__badlog *b, feed__pool *p, const uint64_t *ids, uint32_t count);

#endif
