/*
 * rng.h - the counter-based random generator behind every random choice.
 *
 * Every draw is a pure function of (seed, epoch, sample id, purpose, counter):
 * no state is carried between samples, so a sample gets the same crop, flip,
 * angle and jitter whichever worker decodes it, in whatever order, after any
 * crash and restart. The mixing function is the splitmix64/murmur3 finaliser
 * applied to a Weyl sequence, which passes BigCrush for this use (independent
 * streams keyed by a hashed tuple).
 */
#ifndef FEED_RNG_H
#define FEED_RNG_H

#include <stdint.h>

/* What a stream of draws is for: each purpose is independent of the others,
 * so adding a draw to one op never changes another op's choices. */
enum {
    FEED_RNG_PERMUTATION = 1,
    FEED_RNG_CROP = 2,
    FEED_RNG_FLIP = 3,
    FEED_RNG_ROTATE = 4,
    FEED_RNG_JITTER = 5,
    FEED_RNG_GRAY = 6,
    FEED_RNG_REPLACE = 7,
    FEED_RNG_POLICY = 8, /* TrivialAugment, RandAugment, AutoAugment: ops and magnitudes */
    FEED_RNG_ERASE = 9,  /* RandomErasing: whether, the box, random values */
    FEED_RNG_MIX = 10,   /* MixUp/CutMix: a batch's (or pair's, sample's) draws */
    FEED_RNG_WINDOW = 11 /* shuffle_window: the shard order (id UINT64_MAX), window w's (id w) */
};

typedef struct feed__rng {
    uint64_t key;
    uint64_t ctr;
} feed__rng;

/* The finaliser runs in CUDA kernels too (pixels/post.h). */
#if defined(__CUDACC__)
#define FEED_RNG_HD __host__ __device__
#else
#define FEED_RNG_HD
#endif

static inline FEED_RNG_HD uint64_t feed__mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline void feed__rng_init(feed__rng *r, uint64_t seed, uint64_t epoch, uint64_t id,
                                  uint32_t purpose)
{
    uint64_t k = feed__mix64(seed + 0x9e3779b97f4a7c15ull);
    k = feed__mix64(k ^ (epoch + 0x632be59bd9b4e019ull));
    k = feed__mix64(k ^ (id + 0x85157af5ull * 0x100000001ull));
    k = feed__mix64(k ^ purpose);
    r->key = k;
    r->ctr = 0;
}

static inline uint64_t feed__rng_u64(feed__rng *r)
{
    return feed__mix64(r->key + 0x9e3779b97f4a7c15ull * ++r->ctr);
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double feed__rng_uniform(feed__rng *r)
{
    return (double)(feed__rng_u64(r) >> 11) * 0x1.0p-53;
}

/* Uniform double in [lo, hi). */
static inline double feed__rng_range(feed__rng *r, double lo, double hi)
{
    return lo + (hi - lo) * feed__rng_uniform(r);
}

/* Uniform integer in [0, n), n > 0, unbiased (Lemire's multiply-shift with
 * rejection). */
static inline uint64_t feed__rng_below(feed__rng *r, uint64_t n)
{
    for (;;) {
        uint64_t x = feed__rng_u64(r);
        __uint128_t m = (__uint128_t)x * n;
        uint64_t lo = (uint64_t)m;
        if (lo >= n || lo >= (-n) % n)
            return (uint64_t)(m >> 64);
    }
}

#endif /* FEED_RNG_H */
