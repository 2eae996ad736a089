/*
 * fetchahead.c - remote shards fetched ahead of the workers (fetchahead.h).
 *
 * One thread, woken by what changes the plan: the consumer's progress, a
 * reset (seek), an answer of the fetcher. Each wake-up it walks the batches
 * from the consumer's, lists their shards in first-read order within the
 * budget, hands the list to the fetcher (which rewrites its held list only
 * when the set changed), and calls the loader's retry.
 */
#include "loader/fetchahead.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/internal.h"

struct feed__fetchahead {
    const feed__index_hdr *ix;
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
};

static uint32_t shard_of(const feed__index_hdr *ix, uint64_t id)
{
    return (uint32_t)(feed__index_entries(ix)[id].path_off >> FEED_INDEX_SHARD_SHIFT);
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
        size_t before = n;
        uint64_t add = 0;
        for (uint32_t t = 0; t < count; t++) {
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
        size_t n = plan(p, seq0, epoch0, start0, end_seq, next_seq, &reach, err, sizeof err);
        feed_status st = err[0] ? FEED_E_RESOURCE : feed__fetcher_want(p->f, p->list, n, err, sizeof err);
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
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    feed__free(p);
}

feed__fetchahead *feed__fetchahead_start(const feed__index_hdr *ix, const feed__sampler *s, feed__fetcher *f,
                                         uint32_t batches, void (*retry)(void *), void *ctx)
{
    feed__fetchahead *p = feed__calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ix = ix, p->s = *s, p->f = f, p->batches = batches ? batches : 1, p->retry = retry, p->ctx = ctx;
    p->nshards = (uint32_t)feed__fetcher_count(f);
    p->ids = feed__malloc(s->batch * sizeof *p->ids);
    p->list = feed__malloc((p->nshards ? p->nshards : 1) * sizeof *p->list);
    p->seen = feed__calloc(p->nshards ? p->nshards : 1, 1);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (!p->ids || !p->list || !p->seen || pthread_create(&p->thread, NULL, fetchahead_main, p) != 0) {
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
    uint32_t last = UINT32_MAX;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t sh = shard_of(p->ix, ids[t]);
        if (sh != last && !feed__fetcher_present(p->f, sh))
            return 0;
        last = sh;
    }
    return 1;
}
