/*
 * rangeset.h - a set of byte ranges [lo, hi) of one file, kept sorted and
 * merged: what of a shard's .ranges file is in the cache, or asked for
 * (remote/fetcher.c, fetch_ranges).
 */
#ifndef FEED_RANGESET_H
#define FEED_RANGESET_H

#include <stddef.h>
#include <stdint.h>

typedef struct feed__span {
    uint64_t lo, hi;
} feed__span;

typedef struct feed__rangeset {
    feed__span *v; /* sorted, disjoint, none empty, none touching another */
    size_t n, cap;
} feed__rangeset;

/* Adds [lo, hi) (merged with what it overlaps or touches). 0, -1: out of memory. */
int feed__rangeset_add(feed__rangeset *s, uint64_t lo, uint64_t hi);
/* Removes [lo, hi). 0, -1: out of memory (a range split in two). */
int feed__rangeset_remove(feed__rangeset *s, uint64_t lo, uint64_t hi);
/* 1: every byte of [lo, hi) is in s (an empty range is). */
int feed__rangeset_covers(const feed__rangeset *s, uint64_t lo, uint64_t hi);
/* The parts of [lo, hi) in neither a nor b (b may be NULL), in order, into
 * out[0..cap): their count (at most cap; the rest are left for a later call). */
size_t feed__rangeset_gaps(const feed__rangeset *a, const feed__rangeset *b, uint64_t lo, uint64_t hi,
                           feed__span *out, size_t cap);
static inline void feed__rangeset_clear(feed__rangeset *s)
{
    s->n = 0;
}
void feed__rangeset_free(feed__rangeset *s);

#endif
