/*
 * deliver.c - feed_loader_next, feed_batch_release, feed_batch_wait: a batch
 * from the device backend to the caller and back, through handles the loader
 * gives (never twice) and checks on every return; the bad-sample budget and
 * report of each batch on its way out, and bad_policy=fail's stash.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/internal.h"
#include "common/rng.h"
#include "device/device.h"
#include "loader/badlog.h"
#include "loader/loader.h"
#include "loader/mix.h"
#include "loader/schedule.h"

/* Remembers batch seq as held and returns its new handle. */
static uint64_t hold(feed_loader *L, uint64_t seq)
{
    uint64_t h;
    do /* a bijection of a counter: never the same twice */
        h = feed__mix64(L->handle_salt + ++L->handles_given);
    while (!h);
    for (uint32_t i = 0; i < L->max_held; i++)
        if (!L->held_tab[i].handle) {
            L->held_tab[i] = (struct feed__held_batch){h, seq};
            break;
        }
    L->held++;
    return h;
}

/* The entry of a batch the caller holds, or NULL (stale, doubled, zeroed, foreign). */
static struct feed__held_batch *held(feed_loader *L, const feed_batch *b)
{
    if (!L || !b || b->struct_size < FEED__BATCH_MIN_SIZE || !b->handle)
        return NULL;
    for (uint32_t i = 0; i < L->max_held; i++)
        if (L->held_tab[i].handle == b->handle)
            return &L->held_tab[i];
    return NULL;
}

/* MixUp/CutMix and the soft labels of batch seq, in place in its host slot
 * (the caller does not have it yet, no worker writes it any more): the host
 * backend's share of the recipe (recipe.c says why there). */
static feed_status mix_batch(feed_loader *L, uint64_t seq, feed_batch *b)
{
    feed__recipe_batch in = {.epoch = b->epoch, .index = b->index, .count = b->count, .labels = b->labels,
                             .ids = b->sample_ids};
    feed__recipe_out r;
    feed_status st = feed__loader_recipe(L, seq, &in, &r, L->data_msg, sizeof L->data_msg);
    if (st != FEED_OK)
        return st;
    if (r.draws)
        feed__mix_apply(&L->mix, r.draws, b->count, b->data, b->sample_bytes);
    b->soft_labels = r.soft;
    b->num_classes = L->mix.num_classes;
    b->label_offsets = r.label_offsets;
    b->label_list = r.label_list;
    return FEED_OK;
}

feed_status feed_loader_next(feed_loader *L, feed_batch *b, int64_t timeout_ms)
{
    if (!L || !b || b->struct_size < FEED__BATCH_MIN_SIZE)
        return FEED_E_INVALID;
    b->handle = 0; /* on every return but FEED_OK: nothing to release */
    if (feed__loader_forked(L))
        return feed__loader_refuse_forked(L, "feed_loader_next");
    if (L->data_error) {
        feed__loader_set_error(L, "%s", L->data_msg);
        return L->data_error;
    }
    if (L->stashed) {
        feed__loader_give(b, &L->stash, sizeof L->stash, 0);
        L->stashed = 0;
        return FEED_OK;
    }
    feed_status st = feed__schedule_boundary(&L->sched);
    if (st != FEED_OK)
        return st;
    if (L->held >= L->max_held) {
        feed__loader_set_error(L, "%u batches are held and not released (at most %u)", L->held, L->max_held);
        return FEED_E_BUSY;
    }
    uint64_t t0 = feed__now_ns();
    const uint64_t seq = L->sched.next_seq;
    feed_batch out = {.struct_size = sizeof out};
    st = L->dev.ops->next(L->dev_state, seq, timeout_ms, &out);
    atomic_fetch_add_explicit(&L->next_wait_ns, feed__now_ns() - t0, memory_order_relaxed);
    int ring_said = feed__loader_take_ring_error(L);
    if (st != FEED_OK && st != FEED_E_TIMEOUT && st != FEED_E_BUSY && st != FEED_E_INTERRUPTED && !ring_said &&
        L->dev.ops->error) { /* the backend's own failure (a CUDA error): say which */
        char why[sizeof L->last_error];
        L->dev.ops->error(L->dev_state, why, sizeof why);
        if (why[0])
            feed__loader_set_error(L, "%s", why);
    }
    if (st == FEED_E_BUSY)
        feed__loader_set_error(L, "the batch %u before this one is still held and this one needs its buffer: "
                  "release it first", L->max_held);
    if (st != FEED_OK) {
        out = (feed_batch){.struct_size = sizeof out};
        feed__loader_give(b, &out, sizeof out, 0);
        return st;
    }
    pthread_mutex_lock(&L->mu);
    feed_status dst = feed__badlog_budget(&L->bad, out.epoch, out.flags, out.sample_ids, out.count, L->data_msg,
                                          sizeof L->data_msg);
    feed_status bst = FEED_OK;
    if (dst == FEED_OK && out.bad)
        bst = feed__badlog_report(&L->bad, out.epoch, out.index, L->last_error, sizeof L->last_error);
    pthread_mutex_unlock(&L->mu);
    if (dst != FEED_OK) { /* not delivered: given back here (out.handle is still the backend's seq) */
        L->data_error = dst;
        feed__loader_set_error(L, "%s", L->data_msg);
        L->dev.ops->release(L->dev_state, &out, NULL);
        out = (feed_batch){.struct_size = sizeof out};
        feed__loader_give(b, &out, sizeof out, 0);
        return dst; /* not counted delivered: position() still names it */
    }
    if (L->soft && !L->dev_recipe && (dst = mix_batch(L, seq, &out)) != FEED_OK) {
        /* as the budget's: not delivered, and said again until a seek */
        L->data_error = dst;
        feed__loader_set_error(L, "%s", L->data_msg);
        L->dev.ops->release(L->dev_state, &out, NULL);
        out = (feed_batch){.struct_size = sizeof out};
        feed__loader_give(b, &out, sizeof out, 0);
        return dst;
    }
    if (L->tg_buf && !L->dev_recipe) {
        out.targets = feed__loader_targets(L, seq, out.sample_ids, out.count);
        out.target_dim = L->tg.dim;
        out.target_dtype = L->tg.dtype;
    }
    feed__schedule_delivered(&L->sched);
    out.handle = hold(L, seq);
    atomic_fetch_add_explicit(&L->batches_delivered, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&L->samples_delivered, out.count, memory_order_relaxed);
    if (out.bad) {
        if (L->o.bad_policy == FEED_BAD_FAIL) {
            L->stash = out;
            L->stash_seq = seq;
            L->stashed = 1;
            out.handle = 0; /* not delivered yet: the next call delivers it */
            feed__loader_give(b, &out, sizeof out, 0);
            return bst;
        }
    }
    feed__loader_give(b, &out, sizeof out, 0);
    return FEED_OK;
}

struct feed__held_batch *feed__loader_for_backend(feed_loader *L, const feed_batch *b, feed_batch *k,
                                                 const char *who)
{
    struct feed__held_batch *e = held(L, b);
    if (!e) {
        if (L)
            feed__loader_set_error(L, "%s: not a batch this loader has given out, or released already", who);
        return NULL;
    }
    *k = (feed_batch){0};
    memcpy(k, b, b->struct_size < sizeof *k ? b->struct_size : sizeof *k);
    k->handle = e->seq;
    return e;
}

feed_status feed_batch_release(feed_loader *L, feed_batch *b, void *stream)
{
    feed_batch k;
    if (feed__loader_forked(L))
        return feed__loader_refuse_forked(L, "feed_batch_release");
    struct feed__held_batch *e = feed__loader_for_backend(L, b, &k, "feed_batch_release");
    if (!e)
        return FEED_E_INVALID;
    feed_status st = L->dev.ops->release(L->dev_state, &k, stream);
    if (st != FEED_E_INVALID) { /* anything else gave the buffer back */
        *e = (struct feed__held_batch){0};
        L->held--;
        b->handle = 0;
    }
    return st;
}

feed_status feed_batch_wait(feed_loader *L, const feed_batch *b, void *stream)
{
    feed_batch k;
    if (feed__loader_forked(L))
        return feed__loader_refuse_forked(L, "feed_batch_wait");
    if (!feed__loader_for_backend(L, b, &k, "feed_batch_wait"))
        return FEED_E_INVALID;
    return L->dev.ops->wait(L->dev_state, &k, stream);
}
