/*
 * readahead.h - read-ahead: a thread of the loader's process that tells the
 * kernel which files the workers will read next, so that their reads come
 * from the page cache instead of waiting on the disk or the network.
 *
 * It walks the same sample order the workers are given (its own sampler,
 * same seed), from the consumer's position to `ahead` batches past the last
 * slot the ring was assigned, and for each file does openat +
 * posix_fadvise(WILLNEED) + close: the kernel starts reading the file in the
 * background and nothing is copied. Through io_uring (OPENAT, FADVISE, CLOSE,
 * up to FEED_READAHEAD_DEPTH files in flight, so slow metadata lookups
 * overlap) where the kernel allows it, else one file at a time on the
 * thread. It reads no sample and holds no claim: whatever it does, the
 * workers' results are the same; only their read time changes.
 */
#ifndef FEED_READAHEAD_H
#define FEED_READAHEAD_H

#include <stdint.h>

#include "dataset/index.h"
#include "loader/sampler.h"

#define FEED_READAHEAD_DEPTH 32

typedef struct feed__readahead feed__readahead;

/* Starts the thread (NULL on failure: no read-ahead, and nothing else
 * changes). s: the loader's sampler, copied.
 * use_uring: 0 forces the one-file-at-a-time path. */
feed__readahead *feed__readahead_start(const feed__index_hdr *ix, const feed__sampler *s,
                                       uint32_t ahead, int use_uring);
/* Stops and joins the thread, closes what it opened. Accepts NULL. */
void feed__readahead_stop(feed__readahead *p);

/* The loader's position mapping changed (create, seek): batch seq is batch
 * seq - seq0 of the run from sample position start0 of epoch0
 * (feed__sampler_locate); end_seq is the first seq not delivered. */
void feed__readahead_reset(feed__readahead *p, uint64_t seq0, uint64_t epoch0, uint64_t start0,
                           uint64_t end_seq);
/* The ring holds batches up to assigned (exclusive); the consumer is at
 * next_seq. Does not wake the thread: it looks every few milliseconds. */
void feed__readahead_progress(feed__readahead *p, uint64_t assigned, uint64_t next_seq);

/* Files advised so far; 1 if io_uring is in use. */
uint64_t feed__readahead_files(const feed__readahead *p);
int feed__readahead_uring(const feed__readahead *p);

#endif
