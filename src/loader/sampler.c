/* sampler.c - the epoch order (a keyed bijection), rank shares, batch boundaries. */
#include <stdio.h>
#include <string.h>

#include "common/internal.h"
#include "common/rng.h"
#include "loader/sampler.h"

/*
 * The order is a balanced Feistel network on 2*half bits, the smallest even
 * width (6 at least) whose block holds n (so the block is less than 4n, or
 * 64), keyed by (seed, epoch) through rng.h. A Feistel network is a bijection on its block
 * whatever its round function; cycle walking (apply it again until the value
 * is below n) restricts it to a bijection on [0, n), because the cycle of the
 * block permutation through a position in [0, n) comes back to [0, n). The
 * expected walk is block / n steps: under 4 for n > 16. Chosen over storing a
 * Fisher-Yates shuffle (8n bytes per cached epoch and an O(n) reshuffle at each
 * epoch boundary on the copier's thread; two were cached: 1.6 GB for 10^8 samples).
 */

static uint64_t feistel(const feed__order *o, uint64_t x)
{
    const uint32_t h = o->half;
    uint64_t l = x >> h, r = x & o->mask;
    for (int i = 0; i < FEED_FEISTEL_ROUNDS; i++) {
        /* The round function: the top half bits of mix64 (its best-mixed). */
        uint64_t f = feed__mix64(o->key[i] ^ r) >> (64 - h);
        uint64_t t = l ^ f;
        l = r;
        r = t;
    }
    return (l << h) | r;
}

void feed__order_init(feed__order *o, uint64_t n, uint64_t seed, uint64_t epoch, int shuffle)
{
    memset(o, 0, sizeof *o);
    o->n = n;
    if (!shuffle || n < 2)
        return; /* half 0: the identity */
    uint32_t h = FEED_FEISTEL_MIN_HALF;
    while (h < 32 && (n - 1) >> (2 * h) != 0) /* block 2^(2h) > n - 1 */
        h++;
    o->half = h;
    o->mask = h == 32 ? 0xFFFFFFFFull : (1ull << h) - 1;
    feed__rng r;
    feed__rng_init(&r, seed, epoch, UINT64_MAX, FEED_RNG_PERMUTATION);
    for (int i = 0; i < FEED_FEISTEL_ROUNDS; i++)
        o->key[i] = feed__rng_u64(&r);
}

uint64_t feed__order_at(const feed__order *o, uint64_t pos)
{
    if (!o->half)
        return pos;
    uint64_t x = pos;
    do
        x = feistel(o, x);
    while (x >= o->n);
    return x;
}

void feed__sampler_permutation(uint64_t n, uint64_t seed, uint64_t epoch, int shuffle, uint64_t *perm)
{
    feed__order o;
    feed__order_init(&o, n, seed, epoch, shuffle);
    for (uint64_t i = 0; i < n; i++)
        perm[i] = feed__order_at(&o, i);
}

/* This rank's samples in the part [start, positions) of the order. */
static uint64_t share_from(const feed__sampler *s, uint64_t start)
{
    uint64_t m = s->positions - start;
    return s->drop_last ? m / s->world : (m + s->world - 1) / s->world;
}

uint64_t feed__sampler_batches_from(const feed__sampler *s, uint64_t start)
{
    if (start >= s->positions)
        return 0;
    uint64_t share = share_from(s, start);
    return s->drop_last ? share / s->batch : (share + s->batch - 1) / s->batch;
}

feed_status feed__sampler_init_repeats(feed__sampler *s, uint64_t n, uint32_t repeats, uint32_t batch,
                                       uint32_t shuffle, uint32_t drop_last, uint32_t rank,
                                       uint32_t world, uint64_t seed, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (repeats == 0 || (n && repeats > UINT64_MAX / n))
        return feed__err(FEED_E_INVALID, err, errlen,
                         "repeats=%u: %llu samples repeated that often make no epoch", repeats,
                         (unsigned long long)n);
    s->n = n, s->batch = batch, s->shuffle = shuffle, s->drop_last = drop_last;
    s->rank = rank, s->world = world, s->seed = seed;
    s->repeats = repeats, s->positions = n * repeats;
    s->per_rank = n ? share_from(s, 0) : 0;
    s->nbatches = feed__sampler_batches_from(s, 0);
    if (s->nbatches == 0) {
        char rep[48] = "";
        if (repeats > 1)
            snprintf(rep, sizeof rep, " (each %u times)", repeats);
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: %llu samples%s over %u ranks make no batch of %u%s",
                         (unsigned long long)n, rep, world, batch, drop_last ? " (drop_last is on)" : "");
    }
    return FEED_OK;
}

feed_status feed__sampler_init(feed__sampler *s, uint64_t n, uint32_t batch, uint32_t shuffle,
                               uint32_t drop_last, uint32_t rank, uint32_t world, uint64_t seed,
                               char *err, size_t errlen)
{
    return feed__sampler_init_repeats(s, n, 1, batch, shuffle, drop_last, rank, world, seed, err, errlen);
}

uint32_t feed__sampler_batch_reps(const feed__sampler *s, uint64_t epoch, uint64_t start, uint64_t k,
                                  uint64_t *ids, uint32_t *reps)
{
    if (k >= feed__sampler_batches_from(s, start))
        return 0;
    uint64_t share = share_from(s, start);
    uint64_t first = k * s->batch;
    uint64_t count = share - first < s->batch ? share - first : s->batch;
    feed__order o;
    feed__order_init(&o, s->n, s->seed, epoch, (int)s->shuffle);
    for (uint64_t i = 0; i < count; i++) {
        /* in the padded order, then in the repeated one (RASampler's: each
         * sample of the bijection repeats times in a row) */
        uint64_t pos = (start + (first + i) * s->world + s->rank) % s->positions;
        ids[i] = feed__order_at(&o, pos / s->repeats);
        if (reps)
            reps[i] = (uint32_t)(pos % s->repeats);
    }
    return (uint32_t)count;
}

uint32_t feed__sampler_batch_from(const feed__sampler *s, uint64_t epoch, uint64_t start, uint64_t k,
                                  uint64_t *ids)
{
    return feed__sampler_batch_reps(s, epoch, start, k, ids, NULL);
}

uint32_t feed__sampler_batch(const feed__sampler *s, uint64_t epoch, uint64_t b, uint64_t *ids)
{
    return feed__sampler_batch_from(s, epoch, 0, b, ids);
}

void feed__sampler_locate(const feed__sampler *s, uint64_t epoch0, uint64_t start0, uint64_t k,
                          uint64_t *epoch, uint64_t *start, uint64_t *kpart)
{
    uint64_t nb0 = feed__sampler_batches_from(s, start0);
    if (k < nb0) {
        *epoch = epoch0, *start = start0, *kpart = k;
        return;
    }
    k -= nb0;
    *epoch = epoch0 + 1 + k / s->nbatches;
    *start = 0;
    *kpart = k % s->nbatches;
}

uint64_t feed__sampler_consumed(const feed__sampler *s, uint64_t start, uint64_t k)
{
    return start + k * s->batch * (uint64_t)s->world;
}

uint64_t feed__sampler_index(const feed__sampler *s, uint64_t start, uint64_t k)
{
    return feed__sampler_consumed(s, start, k) / (s->batch * (uint64_t)s->world);
}
