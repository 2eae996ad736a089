/*
 * stats.c - what the loader reports: its last error, the bad samples, the
 * stats (the loader's, the pool's, the workers' bounded by how long each
 * lived, the device backend's), and the workers' timeline; and how any of
 * the loader's structs reaches a caller's (feed__loader_give).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/ring.h"
#include "common/internal.h"
#include "device/device.h"
#include "loader/badlog.h"
#include "loader/loader.h"
#include "loader/readahead.h"
#include "supervise/pool.h"
#include "supervise/trace.h"

void feed__loader_set_error(feed_loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->last_error, sizeof L->last_error, fmt, ap);
    va_end(ap);
}

void feed__loader_give(void *to, const void *from, size_t ours, int say_size)
{
    uint32_t size = *(const uint32_t *)to; /* every struct starts with struct_size */
    uint32_t n = size < ours ? size : (uint32_t)ours;
    memcpy(to, from, n);
    memcpy(to, say_size ? &n : &size, sizeof size);
}

const char *feed_loader_last_error(const feed_loader *L)
{
    return L ? L->last_error : "";
}

uint64_t feed_loader_bad_count(const feed_loader *L)
{
    if (!L || feed__loader_forked(L)) /* a fork's child: the lock may be held for ever */
        return 0;
    pthread_mutex_lock((pthread_mutex_t *)&L->mu);
    uint64_t n = L->bad.nbad;
    pthread_mutex_unlock((pthread_mutex_t *)&L->mu);
    return n;
}

uint64_t feed_loader_bad_count_epoch(const feed_loader *L, uint64_t epoch)
{
    if (!L || feed__loader_forked(L))
        return 0;
    pthread_mutex_lock((pthread_mutex_t *)&L->mu);
    uint64_t n = feed__badlog_epoch_count(&L->bad, epoch);
    pthread_mutex_unlock((pthread_mutex_t *)&L->mu);
    return n;
}

feed_status feed_loader_bad_sample(const feed_loader *L, uint64_t i, feed_bad_sample *out)
{
    if (!L || !out || out->struct_size < FEED__BAD_SAMPLE_MIN_SIZE)
        return FEED_E_INVALID;
    if (feed__loader_forked(L)) /* single-threaded there: its own copy of last_error */
        return feed__loader_refuse_forked((feed_loader *)L, "feed_loader_bad_sample");
    feed_bad_sample r = {.struct_size = sizeof r};
    pthread_mutex_lock((pthread_mutex_t *)&L->mu);
    feed_status st = feed__badlog_get(&L->bad, i, &r);
    pthread_mutex_unlock((pthread_mutex_t *)&L->mu);
    if (st == FEED_OK)
        feed__loader_give(out, &r, sizeof r, 1);
    return st;
}

/* jpeg_entropy and its reason from the codes the running workers gave (a bit each). */
static void feed__stats_entropy(feed_stats *s, uint32_t ent)
{
    static const char *const why[FEED__ENTROPY_CODES] = {
        "", "option", "option", "self-check passed", "self-check failed", "compiled out"};
    uint32_t feed = 0, lj = 0;
    for (uint32_t e = 1; e < FEED__ENTROPY_CODES; e++)
        if (ent & (1u << e))
            *(feed__entropy_is_libfeed(e) ? &feed : &lj) = 1;
    strcpy(s->jpeg_entropy, feed && lj ? "mixed" : feed ? "libfeed" : lj ? "libjpeg" : "none");
    if (ent && !(ent & (ent - 1))) /* one code */
        snprintf(s->jpeg_entropy_reason, sizeof s->jpeg_entropy_reason, "%s", why[__builtin_ctz(ent)]);
    else
        strcpy(s->jpeg_entropy_reason, ent ? "mixed" : "");
}

feed_status feed_loader_stats(const feed_loader *L, feed_stats *out)
{
    if (!L || !out || out->struct_size < FEED__STATS_MIN_SIZE)
        return FEED_E_INVALID;
    if (feed__loader_forked(L)) /* single-threaded there: its own copy of last_error */
        return feed__loader_refuse_forked((feed_loader *)L, "feed_loader_stats");
    feed_loader *M = (feed_loader *)L;
    feed__arena_hdr *h = L->arena.hdr;
    feed_stats full = {0}, *s = &full;
    s->workers = L->o.workers;
    s->batches_delivered = atomic_load_explicit(&M->batches_delivered, memory_order_relaxed);
    s->samples_delivered = atomic_load_explicit(&M->samples_delivered, memory_order_relaxed);
    s->next_wait_ns = atomic_load_explicit(&M->next_wait_ns, memory_order_relaxed);
    s->ring_slots = L->arena.lay.nslots;
    pthread_mutex_lock(&M->mu); /* slot headers change under it */
    s->ring_ready = feed__ring_ready_count(&L->arena);
    pthread_mutex_unlock(&M->mu);
    s->rank = L->o.rank;
    s->world_size = L->o.world_size;
    snprintf(s->launcher, sizeof s->launcher, "%s", L->dev.launcher);
    s->readahead_files = feed__readahead_files(L->ra);
    snprintf(s->readahead, sizeof s->readahead, "%s",
             !L->ra ? "off" : feed__readahead_uring(L->ra) ? "io_uring" : "sync");

    feed__pool *p = &M->pool;
    pthread_mutex_lock(&p->mu);
    s->worker_restarts = p->restarts;
    s->worker_hangs = p->hangs;
    s->samples_redone = p->redone;
    s->read_ns = p->acc_read_ns, s->decode_ns = p->acc_decode_ns;
    s->augment_ns = p->acc_augment_ns, s->convert_ns = p->acc_convert_ns;
    s->read_bytes = p->acc_read_bytes;
    int kinds = 0;
    uint32_t ent = 0; /* bit FEED__ENTROPY_* of each running worker's code */
    for (uint32_t i = 0; i < L->o.workers; i++) {
        /* What a worker wrote: each stage time bounded by how long it lived. */
        feed__worker_rec *r = &h->workers[i];
        uint64_t lived = feed__pool_lifetime_ns(p, i);
        s->read_ns += feed__min_u64(atomic_load_explicit(&r->read_ns, memory_order_relaxed), lived);
        s->decode_ns += feed__min_u64(atomic_load_explicit(&r->decode_ns, memory_order_relaxed), lived);
        s->augment_ns += feed__min_u64(atomic_load_explicit(&r->augment_ns, memory_order_relaxed), lived);
        s->convert_ns += feed__min_u64(atomic_load_explicit(&r->convert_ns, memory_order_relaxed), lived);
        s->read_bytes += atomic_load_explicit(&r->read_bytes, memory_order_relaxed);
        if (atomic_load(&r->state) == FEED_WREC_RUNNING)
            kinds |= 1 << (atomic_load(&r->reader_kind) ? 1 : 0);
        uint32_t e = atomic_load(&r->entropy); /* the worker's word: bounded here */
        if (atomic_load(&r->state) == FEED_WREC_RUNNING && e > FEED__ENTROPY_UNKNOWN && e < FEED__ENTROPY_CODES)
            ent |= 1u << e;
    }
    pthread_mutex_unlock(&p->mu);
    strcpy(s->reader, kinds == 3 ? "mixed" : kinds == 2 ? "io_uring" : kinds == 1 ? "pread" : "none");
    feed__stats_entropy(s, ent);
    pthread_mutex_lock(&M->mu);
    s->samples_bad = L->bad.samples_bad;
    pthread_mutex_unlock(&M->mu);
    L->dev.ops->stats(L->dev_state, s);
    feed__loader_give(out, s, sizeof *s, 1);
    return FEED_OK;
}

/* ---- timeline ------------------------------------------------------------------------ */

uint64_t feed_loader_trace_read(feed_loader *L, feed_trace_event *out, uint64_t max, uint64_t *lost)
{
    if (!L || (!out && max) || feed__loader_forked(L)) {
        if (lost)
            *lost = 0;
        return 0;
    }
    uint32_t bad;
    char what[200];
    uint64_t n = feed__trace_read(&L->trace, &L->arena, out, max, lost, &bad, what, sizeof what);
    if (bad != UINT32_MAX) {
        feed__loader_misbehaved(L, bad, what);
        feed__loader_take_ring_error(L); /* the caller's thread: last_error says it now */
    }
    return n;
}
