/*
 * sampler.h - which samples make up batch b of epoch e on this rank.
 *
 * Epoch e's order is a permutation drawn from (seed, epoch) alone (identity
 * when shuffle is off). Ranks take a strided share of it, as PyTorch's
 * DistributedSampler does: the order is padded by wrapping around to a
 * multiple of world_size (or cut, with drop_last), and rank r takes positions
 * r, r+W, r+2W, ... So all ranks draw the same permutation, their shares are
 * disjoint, and they all get the same number of batches (they stay in step).
 */
#ifndef FEED_SAMPLER_H
#define FEED_SAMPLER_H

#include <stdint.h>

#include "feed.h"

typedef struct feed__sampler {
    uint64_t n;          /* dataset size */
    uint64_t per_rank;   /* samples of this rank per epoch */
    uint64_t nbatches;   /* batches per epoch */
    uint64_t seed;
    uint32_t batch, shuffle, drop_last, rank, world;
    /* two cached permutations (the ring spans an epoch boundary) */
    uint64_t *perm[2];
    uint64_t perm_epoch[2];
    int perm_valid[2];
} feed__sampler;

feed_status feed__sampler_init(feed__sampler *s, uint64_t n, uint32_t batch, uint32_t shuffle,
                               uint32_t drop_last, uint32_t rank, uint32_t world, uint64_t seed,
                               char *err, size_t errlen);
void feed__sampler_free(feed__sampler *s);

/* Writes the dataset indices of batch b of epoch e into ids; returns the count
 * (batch, or less for a short last batch; 0 if b is past the epoch). */
uint32_t feed__sampler_batch(feed__sampler *s, uint64_t epoch, uint64_t b, uint64_t *ids);

/* The permutation of epoch e (n entries), computed into perm. */
void feed__sampler_permutation(uint64_t n, uint64_t seed, uint64_t epoch, int shuffle, uint64_t *perm);

#endif
