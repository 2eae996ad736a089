/*
 * ready.c - the host ring, as the device backend sees it: wait until a
 * batch's slot is ready and checked (the trust boundary: supervise/verify.h),
 * give a slot back to the schedule, and what the ring says about workers that
 * misbehave, from whichever thread waits on it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/futex.h"
#include "arena/ring.h"
#include "common/internal.h"
#include "loader/badlog.h"
#include "loader/loader.h"
#include "loader/schedule.h"
#include "supervise/pool.h"
#include "supervise/verify.h"

void feed__loader_release_slot(void *ring, uint64_t seq)
{
    feed_loader *L = ring;
    pthread_mutex_lock(&L->mu);
    feed__schedule_assign(&L->sched, seq + L->arena.lay.nslots);
    pthread_mutex_unlock(&L->mu);
}

#define FEED_REDO_REPORT "workers wrote invalid values for this sample too often; quarantined"

/* The ring's word for last_error, from whichever thread waits on it. */
static void ring_error(feed_loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ring_error(feed_loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&L->mu);
    vsnprintf(L->ring_error, sizeof L->ring_error, fmt, ap);
    L->ring_error_new = 1;
    pthread_mutex_unlock(&L->mu);
    va_end(ap);
}

int feed__loader_take_ring_error(feed_loader *L)
{
    if (!atomic_load_explicit(&L->ring_error_new, memory_order_acquire))
        return 0; /* the usual batch: no lock */
    pthread_mutex_lock(&L->mu);
    int said = L->ring_error_new;
    if (said) {
        memcpy(L->last_error, L->ring_error, sizeof L->last_error);
        L->ring_error_new = 0;
    }
    pthread_mutex_unlock(&L->mu);
    return said;
}

void feed__loader_misbehaved(feed_loader *L, uint32_t w, const char *what)
{
    if (w == UINT32_MAX)
        ring_error(L, "a worker wrote %s; the samples are done again", what);
    else
        ring_error(L, "worker %u wrote %s; it was killed and replaced, and the sample is done again", w, what);
    if (w != UINT32_MAX)
        feed__pool_condemn(&L->pool, w, what);
}

/* 1 if slot holds seq READY and checked; redoes the first invalid sample. */
static int ready_checked(feed_loader *L, uint32_t slot, uint64_t seq)
{
    feed__arena *a = &L->arena;
    feed__verdict v;
    char what[240];
    int g = feed__ring_guard(a, slot);
    if (g) {
        if (g == 1) { /* the header has no owner: who wrote it cannot be told */
            snprintf(what, sizeof what, "over the shared header of the slot of batch %llu", (unsigned long long)seq);
            feed__loader_misbehaved(L, UINT32_MAX, what);
        }
        return 0;
    }
    if (feed__ring_ready(a, slot, seq)) {
        if (!feed__verify_slot(a, slot, L->ix.hdr, &v))
            return 1;
        feed__ring_redo(a, slot, v.t, FEED_REDO_REPORT);
        feed__loader_misbehaved(L, v.worker, v.what);
        return 0;
    }
    /* A state word no worker may write would keep the slot from ever
     * becoming ready. The worker that claimed the sample last is killed,
     * and its death hands the sample out again (it can write no more by
     * then); if that cannot be told, the sample is handed out now. */
    uint32_t w, t = feed__ring_scan(a, slot, &w);
    if (t != UINT32_MAX) {
        snprintf(what, sizeof what, "an invalid state word over sample %u of batch %llu", t,
                 (unsigned long long)seq);
        if (w == UINT32_MAX)
            feed__ring_redo(a, slot, t, FEED_REDO_REPORT);
        feed__loader_misbehaved(L, w, what);
    }
    return 0;
}

/* A device backend's share of the recipe (recipe.c): the soft labels and
 * lists of the checked batch, and the parameters its kernel erases and
 * mixes with, on the thread that waits (the copier). */
static feed_status device_recipe(feed_loader *L, uint64_t seq, const feed__slot_meta *m, feed__slot_view *v)
{
    feed__recipe_batch in = {.epoch = m->epoch, .index = m->index, .count = m->count, .labels = m->labels,
                             .ids = m->ids, .samples = m->s};
    feed__recipe_out r = {0};
    if (L->soft) {
        char msg[sizeof L->data_msg];
        feed_status st = feed__loader_recipe(L, seq, &in, &r, msg, sizeof msg);
        if (st != FEED_OK) {
            ring_error(L, "%s", msg);
            return st;
        }
        v->soft = r.soft;
        v->label_offsets = r.label_offsets;
        v->label_list = r.label_list;
    }
    if (L->post) {
        feed__loader_post(L, &in, r.draws, L->post);
        v->post = L->post;
    }
    v->targets = feed__loader_targets(L, seq, m->ids, m->count);
    return FEED_OK;
}

feed_status feed__loader_wait_ready(void *ring, uint64_t seq, int64_t timeout_ms, feed__slot_view *v)
{
    feed_loader *L = ring;
    feed__arena_hdr *h = L->arena.hdr;
    uint32_t slot = (uint32_t)(seq % L->arena.lay.nslots);
    uint64_t start = feed__now_ns();
    /* A huge timeout is for ever, not a deadline wrapped into the past. */
    uint64_t deadline = timeout_ms < 0 || (uint64_t)timeout_ms >= (UINT64_MAX - start) / 1000000ull
                            ? UINT64_MAX
                            : start + (uint64_t)timeout_ms * 1000000ull;
    for (;;) {
        uint32_t seen = atomic_load(&h->done_seq);
        if (ready_checked(L, slot, seq))
            break;
        char msg[512];
        feed_status st = feed__pool_fatal(&L->pool, msg, sizeof msg);
        if (st == FEED_OK && L->fetcher) /* a shard its batch waits for cannot be had */
            st = feed__fetcher_failed(L->fetcher, msg, sizeof msg);
        if (st != FEED_OK) {
            ring_error(L, "%s", msg);
            return st;
        }
        uint64_t now = feed__now_ns();
        if (now >= deadline)
            return FEED_E_TIMEOUT;
        /* Slices: the futex words are shared, so a worker could hold back a
         * wake-up; look again at least every 100 ms. */
        int64_t left = deadline == UINT64_MAX || deadline - now > 100000000ull ? 100000000ll
                                                                              : (int64_t)(deadline - now);
        atomic_store(&h->consumer_waiting, 1);
        int r = 0;
        if (atomic_load(&h->done_seq) == seen)
            r = feed__futex_wait(&h->done_seq, seen, left);
        atomic_store(&h->consumer_waiting, 0);
        if (r == EINTR) /* a handler the caller installed without SA_RESTART ran (the copier blocks signals) */
            return FEED_E_INTERRUPTED;
    }
    const feed__slot_meta *m = &L->arena.meta[slot];
    pthread_mutex_lock(&L->mu);
    v->bad = feed__badlog_harvest(&L->bad, &L->arena, slot);
    pthread_mutex_unlock(&L->mu);
    v->seq = seq;
    v->epoch = m->epoch;
    v->index = m->index;
    v->count = m->count;
    v->pixels = feed__slot_pixels(&L->arena, slot);
    v->labels = m->labels; /* the checked copies, not the arena's words */
    v->sample_ids = m->ids;
    v->flags = m->flags;
    v->post = NULL, v->soft = NULL, v->label_offsets = NULL, v->label_list = NULL, v->targets = NULL;
    v->meta = L->arena.lay.nmeta ? feed__slot_members(&L->arena, slot) : NULL;
    v->meta_off = L->arena.lay.nmeta ? m->meta_off : NULL; /* the checked copies */
    v->meta_len = L->arena.lay.nmeta ? m->meta_len : NULL;
    return L->dev_recipe ? device_recipe(L, seq, m, v) : FEED_OK;
}
