/* sampler.c - the epoch order (a keyed bijection), rank shares, batch boundaries. */
#include <pthread.h>
#include <stdatomic.h>
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

void feed__order_init_keyed(feed__order *o, uint64_t n, uint64_t seed, uint64_t epoch, uint64_t id,
                            uint32_t purpose)
{
    memset(o, 0, sizeof *o);
    o->n = n;
    if (n < 2)
        return; /* half 0: the identity */
    uint32_t h = FEED_FEISTEL_MIN_HALF;
    while (h < 32 && (n - 1) >> (2 * h) != 0) /* block 2^(2h) > n - 1 */
        h++;
    o->half = h;
    o->mask = h == 32 ? 0xFFFFFFFFull : (1ull << h) - 1;
    feed__rng r;
    feed__rng_init(&r, seed, epoch, id, purpose);
    for (int i = 0; i < FEED_FEISTEL_ROUNDS; i++)
        o->key[i] = feed__rng_u64(&r);
}

void feed__order_init(feed__order *o, uint64_t n, uint64_t seed, uint64_t epoch, int shuffle)
{
    if (shuffle) {
        feed__order_init_keyed(o, n, seed, epoch, UINT64_MAX, FEED_RNG_PERMUTATION);
        return;
    }
    memset(o, 0, sizeof *o);
    o->n = n;
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

/* ---- shard windows (sampler.h) --------------------------------------------------- */

/* One epoch's table of a layout: the permuted shards (perm[j]: the shard at
 * place j), where each place's samples start in the order (prefix[j], j <=
 * nshards, prefix[nshards] = n), each shard's first sample id (starts,
 * kept while the layout is), and the last window's order met. */
typedef struct win_table {
    uint64_t layout, seed, epoch; /* layout 0: empty */
    uint64_t nshards, cap;        /* cap: the shards the arrays have room for */
    uint64_t *starts, *prefix;    /* cap + 1 each */
    uint32_t *perm;               /* cap (at most FEED_INDEX_MAX_SHARDS shards) */
    uint64_t used;                /* the thread's clock at its last use */
    uint64_t win;                 /* the window wo is (UINT64_MAX: none yet) */
    feed__order wo;
} win_table;

static _Thread_local struct {
    win_table t[FEED_WINDOW_TABLES];
    uint64_t clock;
    int keyed; /* the key's value is set: the tables are freed at thread exit */
} cache;
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static int cache_key_ok;
static _Atomic uint64_t layouts; /* ids given (0 is no layout) */

static void cache_free(void *unused)
{
    (void)unused;
    for (int i = 0; i < FEED_WINDOW_TABLES; i++) {
        win_table *t = &cache.t[i];
        feed__free(t->starts), feed__free(t->prefix), feed__free(t->perm);
        memset(t, 0, sizeof *t);
    }
    cache.keyed = 0;
}

static void cache_key_make(void)
{
    cache_key_ok = pthread_key_create(&cache_key, cache_free) == 0;
}

/* A library unloaded while other threads live must not leave them a
 * destructor in unmapped code (their tables are then left, not freed). */
__attribute__((destructor)) static void cache_key_drop(void)
{
    if (cache_key_ok)
        pthread_key_delete(cache_key);
}

feed_status feed__sampler_window(feed__sampler *s, const feed__index_hdr *ix, uint32_t window, char *err,
                                 size_t errlen)
{
    s->window = 0, s->ix = NULL, s->layout = 0;
    if (!window)
        return FEED_OK;
    if (ix->kind != FEED_INDEX_SHARDS)
        return feed__err(FEED_E_INVALID, err, errlen,
                         "shuffle_window=%u: the source is %s, not tar shards: the order takes shards "
                         "shuffle_window at a time (use shuffle_window=0 with it)",
                         window, ix->kind == FEED_INDEX_NPY ? "a .npy array"
                                 : ix->named_classes        ? "an ImageFolder"
                                                            : "a file list");
    s->window = window, s->ix = ix;
    s->layout = atomic_fetch_add(&layouts, 1) + 1;
    return FEED_OK;
}

static void shard_order(const feed__sampler *s, uint64_t epoch, feed__order *o)
{
    if (s->shuffle)
        feed__order_init_keyed(o, s->ix->nshards, s->seed, epoch, UINT64_MAX, FEED_RNG_WINDOW);
    else
        feed__order_init(o, s->ix->nshards, 0, 0, 0);
}

static void window_order(const feed__sampler *s, uint64_t epoch, uint64_t w, uint64_t m, feed__order *o)
{
    if (s->shuffle)
        feed__order_init_keyed(o, m, s->seed, epoch, w, FEED_RNG_WINDOW);
    else
        feed__order_init(o, m, 0, 0, 0);
}

void feed__sampler_shard_order(const feed__sampler *s, uint64_t epoch, uint64_t *shards)
{
    feed__order o;
    shard_order(s, epoch, &o);
    for (uint64_t j = 0; j < s->ix->nshards; j++)
        shards[j] = feed__order_at(&o, j);
}

/* This thread's table of (s's layout, seed, epoch), made if it has none;
 * NULL when there is no room for one. */
static win_table *table_for(const feed__sampler *s, uint64_t epoch)
{
    win_table *t = &cache.t[0];
    for (int i = 0; i < FEED_WINDOW_TABLES; i++) {
        win_table *c = &cache.t[i];
        if (c->layout == s->layout && c->seed == s->seed && c->epoch == epoch) {
            c->used = ++cache.clock;
            return c;
        }
        if (c->used < t->used)
            t = c;
    }
    const uint64_t ns = s->ix->nshards;
    if (!cache.keyed) {
        pthread_once(&cache_once, cache_key_make);
        if (!cache_key_ok || pthread_setspecific(cache_key, &cache) != 0)
            return NULL; /* nothing would free the tables */
        cache.keyed = 1;
    }
    int same_layout = t->layout == s->layout;
    t->layout = 0;
    if (t->cap < ns) {
        uint64_t *st = feed__realloc(t->starts, (ns + 1) * sizeof *st);
        if (st)
            t->starts = st;
        uint64_t *pre = feed__realloc(t->prefix, (ns + 1) * sizeof *pre);
        if (pre)
            t->prefix = pre;
        uint32_t *pm = feed__realloc(t->perm, ns * sizeof *pm);
        if (pm)
            t->perm = pm;
        if (!st || !pre || !pm)
            return NULL;
        t->cap = ns, same_layout = 0;
    }
    if (!same_layout)
        feed__index_shard_starts(s->ix, t->starts);
    feed__order o;
    shard_order(s, epoch, &o);
    t->prefix[0] = 0;
    for (uint64_t j = 0; j < ns; j++) {
        uint64_t sh = feed__order_at(&o, j);
        t->perm[j] = (uint32_t)sh;
        t->prefix[j + 1] = t->prefix[j] + (t->starts[sh + 1] - t->starts[sh]);
    }
    t->layout = s->layout, t->seed = s->seed, t->epoch = epoch, t->nshards = ns;
    t->win = UINT64_MAX;
    t->used = ++cache.clock;
    return t;
}

/* Position pos (< n) of epoch's window order, from its table. */
static uint64_t window_at(const feed__sampler *s, win_table *t, uint64_t epoch, uint64_t pos)
{
    const uint64_t ns = t->nshards, k = s->window, nwin = (ns + k - 1) / k;
    const uint64_t *pre = t->prefix;
    /* the last window starting at or before pos: the one holding it (an
     * empty window starts where the next does) */
    uint64_t lo = 0, hi = nwin;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (pre[mid * k] <= pos)
            lo = mid;
        else
            hi = mid;
    }
    uint64_t a = lo * k, b = a + k < ns ? a + k : ns;
    if (t->win != lo) {
        window_order(s, epoch, lo, pre[b] - pre[a], &t->wo);
        t->win = lo;
    }
    uint64_t g = pre[a] + feed__order_at(&t->wo, pos - pre[a]);
    /* the last place of the window starting at or before g: the shard
     * holding it (an empty shard starts where the next does) */
    hi = b, lo = a;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (pre[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    return t->starts[t->perm[lo]] + (g - pre[lo]);
}

/* The same without a table (no memory for one): O(nshards log n). */
static uint64_t window_at_slow(const feed__sampler *s, uint64_t epoch, uint64_t pos)
{
    const feed__index_hdr *ix = s->ix;
    const uint64_t ns = ix->nshards, k = s->window;
    feed__order o, wo;
    shard_order(s, epoch, &o);
    uint64_t base = 0;
    for (uint64_t a = 0; a < ns; a += k) {
        uint64_t b = a + k < ns ? a + k : ns, m = 0;
        for (uint64_t j = a; j < b; j++) {
            uint64_t sh = feed__order_at(&o, j);
            m += feed__index_shard_start(ix, sh + 1) - feed__index_shard_start(ix, sh);
        }
        if (pos - base >= m) {
            base += m;
            continue;
        }
        window_order(s, epoch, a / k, m, &wo);
        uint64_t q = feed__order_at(&wo, pos - base);
        for (uint64_t j = a;; j++) {
            uint64_t sh = feed__order_at(&o, j), first = feed__index_shard_start(ix, sh);
            uint64_t size = feed__index_shard_start(ix, sh + 1) - first;
            if (q < size)
                return first + q;
            q -= size;
        }
    }
    return pos; /* not reached: pos < n, the windows' sizes add up to n */
}

/* Sample at position pos (< n) of epoch's order, before repeats: o is
 * epoch's order over all samples (used without windows), t its window table
 * (NULL: none could be made). */
static uint64_t order_at(const feed__sampler *s, const feed__order *o, win_table *t, uint64_t epoch,
                         uint64_t pos)
{
    if (!s->window || !s->shuffle)
        return feed__order_at(o, pos);
    return t ? window_at(s, t, epoch, pos) : window_at_slow(s, epoch, pos);
}

static win_table *table_if_windows(const feed__sampler *s, uint64_t epoch)
{
    return s->window && s->shuffle ? table_for(s, epoch) : NULL;
}

void feed__sampler_order(const feed__sampler *s, uint64_t epoch, uint64_t *perm)
{
    feed__order o;
    feed__order_init(&o, s->n, s->seed, epoch, (int)s->shuffle);
    win_table *t = table_if_windows(s, epoch);
    for (uint64_t i = 0; i < s->n; i++)
        perm[i] = order_at(s, &o, t, epoch, i);
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
    win_table *t = table_if_windows(s, epoch);
    for (uint64_t i = 0; i < count; i++) {
        /* in the padded order, then in the repeated one (RASampler's: each
         * sample of the bijection repeats times in a row) */
        uint64_t pos = (start + (first + i) * s->world + s->rank) % s->positions;
        ids[i] = order_at(s, &o, t, epoch, pos / s->repeats);
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
