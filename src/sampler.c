/* sampler.c - epoch permutations, rank shares and batch boundaries. */
#include <string.h>

#include "internal.h"
#include "rng.h"
#include "sampler.h"

void feed__sampler_permutation(uint64_t n, uint64_t seed, uint64_t epoch, int shuffle, uint64_t *perm)
{
    for (uint64_t i = 0; i < n; i++)
        perm[i] = i;
    if (!shuffle)
        return;
    feed__rng r;
    feed__rng_init(&r, seed, epoch, UINT64_MAX, FEED_RNG_PERMUTATION);
    for (uint64_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
        uint64_t j = feed__rng_below(&r, i + 1);
        uint64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

feed_status feed__sampler_init(feed__sampler *s, uint64_t n, uint32_t batch, uint32_t shuffle,
                               uint32_t drop_last, uint32_t rank, uint32_t world, uint64_t seed,
                               char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->n = n, s->batch = batch, s->shuffle = shuffle, s->drop_last = drop_last;
    s->rank = rank, s->world = world, s->seed = seed;
    s->per_rank = drop_last ? n / world : (n + world - 1) / world;
    s->nbatches = drop_last ? s->per_rank / batch : (s->per_rank + batch - 1) / batch;
    if (s->nbatches == 0)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: %llu samples over %u ranks make no batch of %u%s",
                         (unsigned long long)n, world, batch, drop_last ? " (drop_last is on)" : "");
    for (int k = 0; k < 2; k++)
        if (!(s->perm[k] = feed__malloc(n * sizeof(uint64_t)))) {
            feed__sampler_free(s);
            return feed__err(FEED_E_NOMEM, err, errlen, "sampler: out of memory");
        }
    return FEED_OK;
}

void feed__sampler_free(feed__sampler *s)
{
    feed__free(s->perm[0]);
    feed__free(s->perm[1]);
    s->perm[0] = s->perm[1] = NULL;
}

static const uint64_t *epoch_perm(feed__sampler *s, uint64_t epoch)
{
    int k = (int)(epoch & 1);
    if (!s->perm_valid[k] || s->perm_epoch[k] != epoch) {
        feed__sampler_permutation(s->n, s->seed, epoch, (int)s->shuffle, s->perm[k]);
        s->perm_epoch[k] = epoch;
        s->perm_valid[k] = 1;
    }
    return s->perm[k];
}

uint32_t feed__sampler_batch(feed__sampler *s, uint64_t epoch, uint64_t b, uint64_t *ids)
{
    if (b >= s->nbatches)
        return 0;
    const uint64_t *perm = epoch_perm(s, epoch);
    uint64_t first = b * s->batch;
    uint64_t count = s->per_rank - first < s->batch ? s->per_rank - first : s->batch;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t pos = (first + i) * s->world + s->rank; /* position in the padded order */
        ids[i] = perm[pos % s->n];
    }
    return (uint32_t)count;
}
