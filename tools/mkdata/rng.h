/*
 * rng.h - splitmix64, feed-mkdata's own generator, so that the data never
 * changes under us (a C library's rand() may).
 */
#ifndef FEED_MKDATA_RNG_H
#define FEED_MKDATA_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t s;
} rng;

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t rnext(rng *r)
{
    return mix64(r->s += 0x9e3779b97f4a7c15ull);
}

static inline double runif(rng *r) /* [0, 1) */
{
    return (double)(rnext(r) >> 11) * 0x1.0p-53;
}

static inline float rrange(rng *r, double lo, double hi)
{
    return (float)(lo + (hi - lo) * runif(r));
}

static inline int rint_in(rng *r, int lo, int hi) /* [lo, hi], small ranges */
{
    return lo + (int)(runif(r) * (hi - lo + 1));
}

#endif
