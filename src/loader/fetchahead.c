/*
 * fetchahead.c - remote shards fetched ahead of the workers (fetchahead.h).
 *
 * One thread, woken by what changes the plan: the consumer's progress, a
 * reset (seek), an answer of the fetcher. Each wake-up it walks the batches
 * from the consumer's, lists their shards in first-read order within the
 * budget, hands the list to the fetcher (which rewrites its held list only
 * when the set changed), and calls the loader's retry.
 *
 * With byte ranges (fetch_ranges) it also lists, for those batches, each
 * sample's members as tar member chains (header to padded end), merged per
 * shard where less than FEED_RANGE_GAP apart, asked in the order the first
 * of each is read; the shards still count whole against the budget (a
 * .ranges file never outgrows its shard), and a batch waits for its samples'
 * ranges, not its shards.
 */
#include "loader/fetchahead.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"

/* Wanted ranges of a shard this close are asked as one (the bytes between
 * cost less than another request). */
#define FEED_RANGE_GAP (64u << 10)

typedef struct prange {
    feed__byterange r;
    uint64_t need; /* the order of its first read */
} prange;

struct feed__fetchahead {
    const feed__index_hdr *ix;
    int ranges;
    uint64_t gap; /* FEED_RANGE_GAP */
    feed__sampler s;
    feed__fetcher *f;
    uint32_t batches, nshards;
    void (*retry)(void *);
    void *ctx;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, dirty;
    uint64_t seq0, epoch0, start0, end_seq, next_seq;
    /* the last plan's reach: batches before horizon have every shard in the
     * fetcher's wanted list (0: none yet); a reset bumps gen and clears it */
    uint64_t horizon, gen;
    /* the thread's */
    uint64_t *ids;
    uint32_t *list;
    uint8_t *seen;
    prange *pr;          /* ranges: the planned batches' member chains */
    feed__byterange *rg; /* ranges: merged, in read order */
    size_t nr, prcap;
};

static uint32_t shard_of(const feed__index_hdr *ix, uint64_t id)
{
    return (uint32_t)(feed__index_entries(ix)[id].path_off >> FEED_INDEX_SHARD_SHIFT);
}

/* Sample id's member chains (its image, its metadata members) into out
 * (1 + nmeta at most): their count. */
static uint32_t sample_ranges(const feed__fetchahead *p, uint64_t id, feed__byterange *out)
{
    const feed__index_entry *e = &feed__index_entries(p->ix)[id];
    uint32_t sh = (uint32_t)(e->path_off >> FEED_INDEX_SHARD_SHIFT), n = 0;
    uint64_t size = feed__fetcher_size(p->f, sh), off[1 + FEED_INDEX_MAX_META], len[1 + FEED_INDEX_MAX_META];
    off[0] = e->path_off & FEED_INDEX_MAX_SHARD_OFFSET, len[0] = e->path_len;
    uint32_t m = 1;
    for (uint32_t j = 0; j < p->ix->nmeta && j < FEED_INDEX_MAX_META; j++) {
        uint32_t ml;
        if (feed__index_member(p->ix, id, j, &off[m], &ml))
            len[m++] = ml;
    }
    for (uint32_t k = 0; k < m; k++) {
        uint64_t lo = off[k] >= 512 ? off[k] - 512 : 0, hi = off[k] + ((len[k] + 511) & ~(uint64_t)511);
        out[n++] = (feed__byterange){sh, lo, hi < size ? hi : size};
    }
    return n;
}

static int by_place(const void *a, const void *b)
{
    const prange *x = a, *y = b;
    if (x->r.shard != y->r.shard)
        return x->r.shard < y->r.shard ? -1 : 1;
    return x->r.lo < y->r.lo ? -1 : x->r.lo > y->r.lo;
}

static int by_need(const void *a, const void *b)
{
    const prange *x = a, *y = b;
    return x->need < y->need ? -1 : x->need > y->need;
}

/* p->pr[0..n) merged per shard (FEED_RANGE_GAP), in read order, into p->rg:
 * their count. */
static size_t merge_ranges(feed__fetchahead *p, size_t n)
{
    if (!n)
        return 0;
    qsort(p->pr, n, sizeof *p->pr, by_place);
    size_t m = 0;
    for (size_t k = 1; k < n; k++) {
        prange *c = &p->pr[m], *x = &p->pr[k];
        if (x->r.shard == c->r.shard && x->r.lo <= c->r.hi + p->gap) {
            if (x->r.hi > c->r.hi)
                c->r.hi = x->r.hi;
            if (x->need < c->need)
                c->need = x->need;
        } else {
            p->pr[++m] = *x;
        }
    }
    m++;
    qsort(p->pr, m, sizeof *p->pr, by_need);
    for (size_t k = 0; k < m; k++)
        p->rg[k] = p->pr[k].r;
    return m;
}

/* The shards of the batches from next_seq, within the budget, into list:
 * their count; *reach: the first batch not planned. 0 and err when the
 * consumer's batch alone does not fit. */
static size_t plan(feed__fetchahead *p, uint64_t seq0, uint64_t epoch0, uint64_t start0, uint64_t end_seq,
                   uint64_t next_seq, uint64_t *reach, char *err, size_t errlen)
{
    uint64_t budget = feed__fetcher_budget(p->f), used = 0;
    size_t n = 0;
    *reach = next_seq;
    for (uint64_t seq = next_seq; seq < end_seq && seq - next_seq < p->batches; seq++) {
        uint64_t epoch, start, k;
        feed__sampler_locate(&p->s, epoch0, start0, seq - seq0, &epoch, &start, &k);
        uint32_t count = feed__sampler_batch_from(&p->s, epoch, start, k, p->ids);
        size_t before = n, rbefore = p->nr;
        uint64_t add = 0;
        for (uint32_t t = 0; t < count; t++) {
            if (p->ranges && p->nr + 1 + FEED_INDEX_MAX_META <= p->prcap) {
                feed__byterange r[1 + FEED_INDEX_MAX_META];
                uint32_t nr = sample_ranges(p, p->ids[t], r);
                for (uint32_t k = 0; k < nr; k++, p->nr++)
                    p->pr[p->nr] = (prange){r[k], p->nr};
            }
            uint32_t sh = shard_of(p->ix, p->ids[t]);
            if (sh < p->nshards && !p->seen[sh]) {
                p->seen[sh] = 1;
                p->list[n++] = sh;
                add += feed__fetcher_size(p->f, sh);
            }
        }
        if (budget && used + add > budget) {
            if (seq == next_seq) {
                snprintf(err, errlen,
                         "remote shards: cache_size %llu cannot hold the %zu shards batch %llu of epoch %llu reads "
                         "(%llu bytes); raise cache_size, or lower shuffle_window so that a batch reads fewer shards",
                         (unsigned long long)budget, n, (unsigned long long)k, (unsigned long long)epoch,
                         (unsigned long long)add);
                n = 0;
            }
            for (size_t j = before; j < n; j++)
                p->seen[p->list[j]] = 0;
            n = before;
            p->nr = rbefore;
            break;
        }
        used += add;
        *reach = seq + 1;
    }
    for (size_t j = 0; j < n; j++)
        p->seen[p->list[j]] = 0;
    return n;
}

static void *fetchahead_main(void *arg)
{
    feed__fetchahead *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->dirty && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop)
            break;
        p->dirty = 0;
        uint64_t seq0 = p->seq0, epoch0 = p->epoch0, start0 = p->start0, end_seq = p->end_seq;
        uint64_t next_seq = p->next_seq, gen = p->gen, reach;
        pthread_mutex_unlock(&p->mu);
        char err[512] = "";
        p->nr = 0;
        size_t n = plan(p, seq0, epoch0, start0, end_seq, next_seq, &reach, err, sizeof err);
        size_t nrg = p->ranges ? merge_ranges(p, p->nr) : 0;
        feed_status st = err[0] ? FEED_E_RESOURCE
                                : feed__fetcher_want(p->f, p->list, n, p->ranges ? p->rg : NULL, nrg, err, sizeof err);
        if (st != FEED_OK)
            feed__fetcher_fail(p->f, st, err);
        pthread_mutex_lock(&p->mu);
        if (st == FEED_OK && p->gen == gen && reach > p->horizon)
            p->horizon = reach; /* its shards are wanted (held) now */
        pthread_mutex_unlock(&p->mu);
        p->retry(p->ctx);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void wake(void *arg)
{
    feed__fetchahead *p = arg;
    pthread_mutex_lock(&p->mu);
    p->dirty = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void free_it(feed__fetchahead *p)
{
    feed__free(p->ids);
    feed__free(p->list);
    feed__free(p->seen);
    feed__free(p->pr);
    feed__free(p->rg);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    feed__free(p);
}

feed__fetchahead *feed__fetchahead_start(const feed__index_hdr *ix, const feed__sampler *s, feed__fetcher *f,
                                         uint32_t batches, int ranges, void (*retry)(void *), void *ctx)
{
    feed__fetchahead *p = feed__calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ix = ix, p->s = *s, p->f = f, p->batches = batches ? batches : 1, p->retry = retry, p->ctx = ctx;
    p->nshards = (uint32_t)feed__fetcher_count(f);
    p->ids = feed__malloc(s->batch * sizeof *p->ids);
    p->list = feed__malloc((p->nshards ? p->nshards : 1) * sizeof *p->list);
    p->seen = feed__calloc(p->nshards ? p->nshards : 1, 1);
    p->ranges = ranges;
    p->gap = FEED_RANGE_GAP;
#if FEED_TEST_HOOKS /* the tests' shards are small: every range would be one */
    const char *gap = getenv("FEED_TEST_RANGE_GAP");
    if (gap && *gap)
        p->gap = strtoull(gap, NULL, 10);
#endif
    if (ranges) {
        p->prcap = (size_t)p->batches * s->batch * (1 + FEED_INDEX_MAX_META);
        p->pr = feed__malloc(p->prcap * sizeof *p->pr);
        p->rg = feed__malloc(p->prcap * sizeof *p->rg);
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (!p->ids || !p->list || !p->seen || (ranges && (!p->pr || !p->rg)) || pthread_create(&p->thread, NULL, fetchahead_main, p) != 0) {
        free_it(p);
        return NULL;
    }
    feed__fetcher_notify(f, wake, p);
    return p;
}

void feed__fetchahead_stop(feed__fetchahead *p)
{
    if (!p)
        return;
    feed__fetcher_notify(p->f, NULL, NULL);
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    free_it(p);
}

void feed__fetchahead_reset(feed__fetchahead *p, uint64_t seq0, uint64_t epoch0, uint64_t start0, uint64_t end_seq)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->seq0 = seq0, p->epoch0 = epoch0, p->start0 = start0, p->end_seq = end_seq, p->next_seq = seq0;
    p->gen++;
    p->horizon = 0;
    p->dirty = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void feed__fetchahead_progress(feed__fetchahead *p, uint64_t next_seq)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    if (next_seq > p->next_seq) {
        p->next_seq = next_seq;
        p->dirty = 1;
        pthread_cond_signal(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
}

int feed__fetchahead_gate(feed__fetchahead *p, uint64_t seq, const uint64_t *ids, uint32_t n)
{
    /* Present is not enough: a shard held for an earlier batch is let go once
     * the consumer is past that one, while a batch beyond the plan's reach
     * may still read it. Within the reach its shards stay wanted until the
     * consumer has it (the batches from the consumer's to the reach fit, and
     * do so the more as it moves on). */
    pthread_mutex_lock(&p->mu);
    int planned = seq < p->horizon;
    pthread_mutex_unlock(&p->mu);
    if (!planned)
        return 0;
    if (p->ranges) { /* each sample's members fetched */
        for (uint32_t t = 0; t < n; t++) {
            feed__byterange r[1 + FEED_INDEX_MAX_META];
            uint32_t nr = sample_ranges(p, ids[t], r);
            for (uint32_t k = 0; k < nr; k++)
                if (!feed__fetcher_has(p->f, r[k].shard, r[k].lo, r[k].hi))
                    return 0;
        }
        return 1;
    }
    uint32_t last = UINT32_MAX;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t sh = shard_of(p->ix, ids[t]);
        if (sh != last && !feed__fetcher_present(p->f, sh))
            return 0;
        last = sh;
    }
    return 1;
}
