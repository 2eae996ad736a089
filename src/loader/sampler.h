/*
 * sampler.h - which samples make up batch b of epoch e on this rank.
 *
 * Epoch e's order is a keyed bijection on [0, n) drawn from (seed, epoch)
 * alone (identity when shuffle is off): a Feistel network on the smallest
 * even number of bits (6 at least) that holds n, cycle-walked back into [0, n). It is
 * computed per position on demand, so it costs O(1) memory for any n and
 * every rank, worker and thread that asks gets the same answer without
 * talking to the others or storing anything per epoch.
 *
 * Ranks take a strided share of the order, as PyTorch's DistributedSampler
 * does: the order is padded by wrapping around to a multiple of world_size (or
 * cut, with drop_last), and rank r takes positions r, r+W, r+2W, ... So the
 * ranks' shares are disjoint, and they all get the same number of batches
 * (they stay in step): after k batches of every rank, positions
 * [0, k*B*W) of the order have been consumed.
 *
 * A part of an epoch. A run can also start inside an epoch at a sample
 * position c (a checkpoint taken at another world size or batch size, see
 * feed_loader_seek_samples): the rest of the order, positions [c, n), is then
 * split the same way among this run's ranks (padded past n by wrapping to
 * the order's start, or cut with drop_last), so c = 0 is the whole epoch and
 * a part from c = k*B*W is exactly the whole epoch's batches k, k+1, ...
 *
 * Repeated augmentation (repeats = k > 1, feed__sampler_init_repeats), as
 * torchvision's RASampler: the epoch's order is n*k positions, position p
 * being repeat p % k of the sample at position p / k of the bijection, so
 * each sample's k repeats are consecutive and the strided rank shares give
 * them to k different ranks when world_size >= k. Everything above (shares,
 * padding, parts, consumed) counts positions of that n*k order.
 *
 * Shard windows (shuffle_window = K > 0, feed__sampler_window), for tar
 * shards, whose sample ids are contiguous per shard in shard order
 * (dataset/index.h): epoch e's order is then the shards permuted by a keyed
 * bijection drawn from (seed, epoch); the permuted shards taken K at a time
 * make windows (the last may have fewer; K past the shard count: one window);
 * the samples of window w, its shards' one after another, permuted by a keyed
 * bijection drawn from (seed, epoch, w). So the positions of window w are one
 * run of the order, holding every sample of its K shards and nothing else: a
 * stretch of the epoch reads a few shards, which a bounded cache of remote
 * shards can follow. Shards with no sample add nothing to their window. Only
 * position -> sample changes: shares, padding, repeats, parts and consumed
 * count positions as above, and shuffle 0 is the identity whatever K.
 *
 * Its per-epoch table, the one thing it cannot compute per position, is
 * where each permuted shard's samples start in the order (prefix sums over
 * the permuted shards' sizes: O(nshards) to make, 20 bytes a shard). The
 * sampler stays a value that holds no resources: it borrows the index (the
 * loader's, never written after create, outliving every copy) and carries a
 * layout id unique to its feed__sampler_window call; the tables live in a
 * per-thread cache in sampler.c (FEED_WINDOW_TABLES of them, by layout id,
 * seed and epoch, the least recently used replaced, freed at thread exit).
 * So copies (the read-ahead's) and threads (the caller's, the CUDA copier's,
 * the read-ahead's) share nothing writable: no lock, no race, and no table
 * outlives an index it was made from under another loader at the same
 * address. A thread pays O(nshards log n) when it meets an epoch it has no
 * table for (one per epoch and thread in a run). Where a table cannot be
 * allocated the same order is computed without one, O(nshards log n) a
 * position, rather than failing a batch.
 */
#ifndef FEED_SAMPLER_H
#define FEED_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "dataset/index.h"
#include "feed.h"

/* Feistel rounds. Four make a strong pseudo-random permutation from random
 * round functions (Luby-Rackoff, asymptotically in the half's width); with
 * halves of a few bits 6 rounds still showed a bias in test_sampler's
 * position x value count (chi-square 79 on 16 d.f. for n = 5 on 2-bit
 * halves), so 8. */
#define FEED_FEISTEL_ROUNDS 8
/* The narrowest half: on 2-bit halves (a block of 16) the cycle-walked order
 * stayed biased at any number of rounds (a Feistel network only makes even
 * permutations of its block); from 3 bits (a block of 64) on it passes. The
 * walk then costs 64 / n steps per position for tiny n, 4 at most otherwise. */
#define FEED_FEISTEL_MIN_HALF 3

/* The order of one epoch: position -> dataset index. */
typedef struct feed__order {
    uint64_t n;
    uint32_t half;    /* bits in each half of the Feistel block (0: identity) */
    uint64_t mask;    /* (1 << half) - 1 */
    uint64_t key[FEED_FEISTEL_ROUNDS];
} feed__order;

/* The order of epoch `epoch` over n samples (n >= 1). */
void feed__order_init(feed__order *o, uint64_t n, uint64_t seed, uint64_t epoch, int shuffle);
/* A shuffled order over n keyed by the generator's (seed, epoch, id, purpose). */
void feed__order_init_keyed(feed__order *o, uint64_t n, uint64_t seed, uint64_t epoch, uint64_t id,
                            uint32_t purpose);
/* The dataset index at position pos (< n) of the order. */
uint64_t feed__order_at(const feed__order *o, uint64_t pos);

typedef struct feed__sampler {
    uint64_t n;          /* dataset size */
    uint64_t positions;  /* positions of an epoch's order: n * repeats */
    uint64_t per_rank;   /* samples of this rank per (whole) epoch */
    uint64_t nbatches;   /* batches per (whole) epoch */
    uint64_t seed;
    uint32_t batch, shuffle, drop_last, rank, world;
    uint32_t repeats;    /* times each sample comes in an epoch */
    uint32_t window;     /* shuffle_window: shards a window (0: one order over all samples) */
    const feed__index_hdr *ix; /* window > 0: the tar shards' index (borrowed) */
    uint64_t layout;     /* window > 0: this layout's id, unique in the process (the tables' key) */
} feed__sampler;

/* Per-thread tables of shard-window orders kept (see above). */
#define FEED_WINDOW_TABLES 4

/* Makes s's order shard windows of `window` shards over the tar shards of
 * ix (window 0: the order over all samples, as init leaves it). ix must be
 * the index s was sized for and outlive s and its copies. FEED_OK, or
 * FEED_E_INVALID (in err, naming shuffle_window) when ix is not tar shards. */
feed_status feed__sampler_window(feed__sampler *s, const feed__index_hdr *ix, uint32_t window, char *err,
                                 size_t errlen);

/* Each sample repeats (>= 1) times an epoch (see above): the epoch's order is
 * n * repeats positions. FEED_OK, FEED_E_DATASET (in err) when an epoch
 * makes no batch, or FEED_E_INVALID for repeats 0 or an order past 2^64
 * positions. Holds no resources: a sampler may be copied. */
feed_status feed__sampler_init_repeats(feed__sampler *s, uint64_t n, uint32_t repeats, uint32_t batch,
                                       uint32_t shuffle, uint32_t drop_last, uint32_t rank,
                                       uint32_t world, uint64_t seed, char *err, size_t errlen);
/* The same with each sample once an epoch (repeats 1). */
feed_status feed__sampler_init(feed__sampler *s, uint64_t n, uint32_t batch, uint32_t shuffle,
                               uint32_t drop_last, uint32_t rank, uint32_t world, uint64_t seed,
                               char *err, size_t errlen);

/* Batches of this rank in the part of an epoch from sample position start
 * (< positions; start 0: nbatches). 0 when drop_last leaves no full batch. */
uint64_t feed__sampler_batches_from(const feed__sampler *s, uint64_t start);

/* Writes the dataset indices of batch k of the part of epoch e from sample
 * position start into ids; returns the count (batch, or less for a short
 * last batch; 0 if k is past the part). */
uint32_t feed__sampler_batch_from(const feed__sampler *s, uint64_t epoch, uint64_t start, uint64_t k,
                                  uint64_t *ids);
/* The same, with each sample's repeat (0 .. repeats - 1) in reps[] (NULL:
 * not wanted). */
uint32_t feed__sampler_batch_reps(const feed__sampler *s, uint64_t epoch, uint64_t start, uint64_t k,
                                  uint64_t *ids, uint32_t *reps);
/* Batch b of the whole epoch e: feed__sampler_batch_from(s, e, 0, b, ids). */
uint32_t feed__sampler_batch(const feed__sampler *s, uint64_t epoch, uint64_t b, uint64_t *ids);

/* Where batch k of a run that starts at (epoch0, start0) is: its epoch, the
 * start of its part of that epoch (start0 in epoch0, 0 after) and its batch
 * number k in the part. A part with no batch (drop_last) is passed over. */
void feed__sampler_locate(const feed__sampler *s, uint64_t epoch0, uint64_t start0, uint64_t k,
                          uint64_t *epoch, uint64_t *start, uint64_t *kpart);

/* Samples of the order consumed by all ranks together before batch k of the
 * part from start: start + k * batch * world. */
uint64_t feed__sampler_consumed(const feed__sampler *s, uint64_t start, uint64_t k);
/* The batch's number within its epoch (feed_batch.index): the number of
 * whole batch * world strides before its first position, consumed / (B*W);
 * batch k of a part from start 0 is batch k. */
uint64_t feed__sampler_index(const feed__sampler *s, uint64_t start, uint64_t k);

/* The order of epoch e (n entries, each sample once), computed into perm
 * (tests, tools). */
void feed__sampler_permutation(uint64_t n, uint64_t seed, uint64_t epoch, int shuffle, uint64_t *perm);
/* The same for s's order (its seed, shuffle and window): perm[p] is the
 * sample at position p (< n) of epoch e's order before repeats. */
void feed__sampler_order(const feed__sampler *s, uint64_t epoch, uint64_t *perm);
/* With windows: the shards of epoch e in their permuted order (nshards
 * entries; the identity with shuffle 0); window w is shards[w*K ..]. */
void feed__sampler_shard_order(const feed__sampler *s, uint64_t epoch, uint64_t *shards);

#endif
