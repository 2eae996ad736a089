/*
 * loader.c - feed_loader_*: wires the index, sampler, arena, ring, worker
 * pool and device backend together. The only file that knows them all.
 * It stays one file (past the ~600 lines the others keep to) because what is
 * left here is the public entry points over one private struct, each a few
 * lines of locking and bookkeeping around a piece of its own file; splitting
 * them would only expose that struct to several files.
 *
 * Dependency order of the pieces it owns: device_select, trace (shm only);
 * verify (shm, index, worker); badlog (index, shm, pool); schedule (ring,
 * sampler, pool, badlog, readahead). None of them knows the loader.
 *
 * The trust boundary runs through ring_wait_ready: a batch is handed out only
 * after verify.h has checked what the workers wrote, and from the parent's
 * private copies; a worker that wrote something invalid is killed and
 * replaced, and the sample done again (pool.h, ring.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/ring.h"
#include "common/internal.h"
#include "common/rng.h"
#include "dataset/index.h"
#include "device/device.h"
#if FEED_TEST_HOOKS
#include "hooks/loader_test.h"
#endif
#include "loader/badlog.h"
#include "loader/device_select.h"
#include "loader/loader.h"
#include "loader/memroom.h"
#include "loader/options.h"
#include "loader/readahead.h"
#include "loader/sampler.h"
#include "loader/schedule.h"
#include "pixels/convert.h"
#include "supervise/pool.h"
#include "supervise/trace.h"
#include "supervise/verify.h"

struct feed_loader {
    feed_options o;
    feed__index ix;
    feed__sampler sampler;
    feed__readahead *ra; /* read-ahead thread (NULL: off) */
    feed__arena arena;
    feed__pool pool;
    int pool_started;
    feed__device_choice dev; /* backend, CUDA ordinal, launcher */
    void *dev_state;
    int dev_started;
    uint32_t host_dtype, host_layout;

    pthread_mutex_t mu;   /* ring assignment and the bad list: the copier thread uses them too */
    feed__schedule sched; /* positions, epoch ends, slot assignment */
    uint32_t held;        /* batches with the caller */
    uint32_t max_held;
    /* What each held batch's handle stands for (handle 0: a free entry).
     * Handles are never given twice, so a released or zeroed copy matches none. */
    struct held_batch {
        uint64_t handle, seq;
    } *held_tab;          /* max_held entries */
    uint64_t handle_salt, handles_given;

    /* bad_policy=fail: the batch whose error was returned, given on the next call
     * (it counts as held; its handle is only in the stash) */
    int stashed;
    feed_batch stash;
    uint64_t stash_seq;

    feed__badlog bad; /* bad samples, their budget and quarantine look-ups */
    /* The data is too bad to go on (feed__badlog_budget): next() returns
     * this until a seek. */
    feed_status data_error;
    char data_msg[1024];

    /* written by the loader's thread, read by feed_loader_stats from any */
    _Atomic uint64_t batches_delivered, samples_delivered, next_wait_ns;
    feed__trace_reader trace;
    /* when each step of create ended (feed__now_ns), for bench/startupbench */
    uint64_t create_ns[FEED__CREATE_STEPS + 1];
    char last_error[1024]; /* the caller's thread only: feed_loader_last_error reads it unlocked */
    /* What the ring said (ring_wait_ready, misbehaved), which on CUDA runs on
     * the copier thread: under mu, moved into last_error by next(). */
    char ring_error[1024];
    _Atomic int ring_error_new; /* set under mu; read without it first (next()'s every batch) */
};

static size_t dtype_size(uint32_t dt)
{
    return dt == FEED_DTYPE_UINT8 ? 1 : dt == FEED_DTYPE_FLOAT32 ? 4 : 2;
}

static void set_error(feed_loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(feed_loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->last_error, sizeof L->last_error, fmt, ap);
    va_end(ap);
}

/* ---- the host ring, as the device backend sees it ----------------------------- */

static void ring_release_slot(void *ring, uint64_t seq)
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

/* On the caller's thread: what the ring said since, into last_error.
 * Returns 1 if it said something. */
static int take_ring_error(feed_loader *L)
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

/* Worker w (UINT32_MAX: it cannot be told which) wrote what: say so, kill
 * it (the pool replaces it and redoes its claims). */
static void misbehaved(feed_loader *L, uint32_t w, const char *what)
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
            misbehaved(L, UINT32_MAX, what);
        }
        return 0;
    }
    if (feed__ring_ready(a, slot, seq)) {
        if (!feed__verify_slot(a, slot, L->ix.hdr, &v))
            return 1;
        feed__ring_redo(a, slot, v.t, FEED_REDO_REPORT);
        misbehaved(L, v.worker, v.what);
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
        misbehaved(L, w, what);
    }
    return 0;
}

static feed_status ring_wait_ready(void *ring, uint64_t seq, int64_t timeout_ms, feed__slot_view *v)
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
    return FEED_OK;
}

/* ---- create / destroy ------------------------------------------------------------ */

/* The index, and what an array source needs of the options. */
static feed_status build_index(feed_loader *L, char *err, size_t errlen)
{
    char note[1024];
    feed__index_spec spec = {.source = L->o.source, .file_list = L->o.file_list, .labels = L->o.labels,
                             .scan_cache = L->o.scan_cache, .scan_cache_path = L->o.scan_cache_path,
                             .note = note, .notelen = sizeof note};
    feed_status st = feed__index_build_spec(&L->ix, &spec, err, errlen);
    if (note[0])
        fprintf(stderr, "libfeed: %s\n", note);
    if (st != FEED_OK || L->ix.hdr->kind != FEED_INDEX_NPY)
        return st;
    const feed__npy_images *a = &L->ix.hdr->npy;
    if ((uint64_t)a->h * a->w > L->o.max_pixels)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: %s/%s: its images are %ux%u = %llu pixels, over max_pixels %llu", L->ix.hdr->root,
                         feed__index_path(L->ix.hdr, 0), a->w, a->h, (unsigned long long)a->h * a->w,
                         (unsigned long long)L->o.max_pixels);
    /* a worker holds one sample, its RGBX copy and the resize's rows */
    uint64_t need = a->sample_bytes + (uint64_t)a->h * a->w * 4 + (16ull << 20);
    if (L->o.max_worker_memory && need > L->o.max_worker_memory)
        return feed__err(FEED_E_DATASET, err, errlen,
                         "dataset: %s/%s: one %ux%ux%u sample needs about %llu bytes in a worker, over "
                         "max_worker_memory %llu",
                         L->ix.hdr->root, feed__index_path(L->ix.hdr, 0), a->h, a->w, a->c,
                         (unsigned long long)need, (unsigned long long)L->o.max_worker_memory);
    return FEED_OK;
}

/* The arena's pages come when the workers first write them: if they cannot
 * all be had, say so now. Past a memory cgroup's limit the kernel kills a
 * process (maybe the trainer) instead of failing a call, and fallocate is
 * no way out (it is charged the same way): what the cgroups and the system
 * leave is checked instead. */
static feed_status arena_fits(feed_loader *L, char *err, size_t errlen)
{
    feed__memroom r;
    feed__memroom_read(&r, "/proc/self", "/proc/meminfo");
    uint64_t need = L->arena.bytes;
    double mib = 1.0 / 1048576.0;
    if (r.cg_room != FEED_MEMROOM_UNKNOWN && need > r.cg_room)
        return feed__err(FEED_E_RESOURCE, err, errlen,
                         "arena: %.0f MiB of shared memory does not fit in the memory cgroup %s: it leaves "
                         "%.0f MiB (limit %.0f MiB, %.0f MiB in use, page cache not counted); lower "
                         "prefetch, batch_size, height or width, or raise the cgroup's memory limit",
                         need * mib, r.cg_dir, r.cg_room * mib, r.cg_limit * mib, r.cg_usage * mib);
    if (r.sys_avail != FEED_MEMROOM_UNKNOWN && need > r.sys_avail)
        return feed__err(FEED_E_RESOURCE, err, errlen,
                         "arena: %.0f MiB of shared memory does not fit in the %.0f MiB the system has "
                         "available (MemAvailable + SwapFree); lower prefetch, batch_size, height or width, "
                         "or free memory",
                         need * mib, r.sys_avail * mib);
    return FEED_OK;
}

feed_status feed_loader_create(feed_loader **out, const feed_options *opts, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!out)
        return feed__err(FEED_E_INVALID, err, errlen, "feed_loader_create: out is NULL");
    *out = NULL;
    feed_loader *L = feed__calloc(1, sizeof *L);
    if (!L)
        return feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
    pthread_mutex_init(&L->mu, NULL);
    L->ix.fd = -1;
    L->arena.fd = L->arena.cfg_fd = -1;
    L->bad.log_fd = -1;
    feed_status st;
    char worker[FEED_PATH_MAX];
    L->create_ns[0] = feed__now_ns();

    st = feed__options_copy(&L->o, opts, err, errlen);
    if (st == FEED_OK)
        feed__device_note_launcher(&L->dev, &L->o); /* before validate resolves auto */
    if (st != FEED_OK ||
        (st = feed__options_validate(&L->o, err, errlen)) != FEED_OK ||
        (st = feed__device_select(&L->dev, L->o.device, err, errlen)) != FEED_OK ||
        (st = feed__pool_find_worker(L->o.worker_path, worker, sizeof worker, err, errlen)) != FEED_OK)
        goto fail;
    L->create_ns[1] = feed__now_ns();
    if ((st = build_index(L, err, errlen)) != FEED_OK ||
        (st = feed__index_share(&L->ix, err, errlen)) != FEED_OK)
        goto fail;
    L->create_ns[2] = feed__now_ns();
    if ((st = feed__sampler_init(&L->sampler, L->ix.hdr->count, L->o.batch_size, L->o.shuffle,
                                 L->o.drop_last, L->o.rank, L->o.world_size, L->o.seed, err, errlen)) !=
            FEED_OK)
        goto fail;
    if ((st = feed__badlog_init(&L->bad, L->ix.hdr, L->o.batch_size, &L->o, err, errlen)) != FEED_OK)
        goto fail;
    /* The folder scan left files out: say so once, so that the sample count
     * never differs from what the user expects without a word. */
    if (L->ix.skipped && L->o.report_bad)
        fprintf(stderr, "libfeed: %s: %llu samples; skipped %llu files that are not *.jpg, *.jpeg, "
                "*.jpe, *.png, *.webp: %s%s (feed_loader_skipped_files; report_bad=0 silences this)\n",
                L->ix.hdr->root, (unsigned long long)L->ix.hdr->count,
                (unsigned long long)L->ix.skipped, L->ix.skipped_names,
                L->ix.skipped > FEED_INDEX_SKIPPED_SHOWN ? ", ..." : "");
    L->create_ns[3] = feed__now_ns();

    /* On the GPU the workers write uint8 HWC and the device converts; on the
     * host they write the final dtype and layout. */
    int on_host = L->dev.ops == &feed__device_host;
    L->host_dtype = on_host ? L->o.dtype : FEED_DTYPE_UINT8;
    L->host_layout = on_host ? L->o.layout : FEED_LAYOUT_HWC;
    uint64_t sample_bytes = (uint64_t)L->o.height * L->o.width * 3 * dtype_size(L->host_dtype);
    feed__arena_geom g = {L->o.prefetch, L->o.batch_size, L->o.workers, sample_bytes};
    if ((st = feed__arena_create(&L->arena, &g, err, errlen)) != FEED_OK ||
        (st = arena_fits(L, err, errlen)) != FEED_OK)
        goto fail;
    feed__arena_hdr *h = L->arena.cfg; /* private: sealed below, for the workers */
    h->channels = 3;
    h->out_dtype = L->host_dtype;
    h->out_layout = L->host_layout;
    feed__convert_params(L->o.mean, L->o.std, h->conv_scale, h->conv_bias);
    h->seed = L->o.seed;
    h->bad_policy = L->o.bad_policy;
    h->max_retries = L->o.max_retries;
    h->reader = L->o.reader;
    h->sandbox = L->o.sandbox;
    h->max_file_bytes = L->o.max_file_bytes;
    h->dataset_size = L->ix.hdr->count;
    feed__xform_from_options(&h->xform, &L->o);
    if ((st = feed__arena_seal_config(&L->arena, err, errlen)) != FEED_OK)
        goto fail;
    L->create_ns[4] = feed__now_ns();

    feed__device_config dc = {
        .batch_size = L->o.batch_size,
        .height = L->o.height,
        .width = L->o.width,
        .channels = 3,
        .host_dtype = L->host_dtype,
        .host_layout = L->host_layout,
        .host_sample_bytes = sample_bytes,
        .dtype = L->o.dtype,
        .layout = L->o.layout,
        .depth = L->o.device_prefetch,
        .ordinal = L->dev.ordinal,
        .sync = L->o.sync,
        .arena = L->arena.hdr,
        .arena_bytes = L->arena.bytes,
        .ring = L,
        .ring_slots = h->nslots,
        .wait_ready = ring_wait_ready,
        .release_slot = ring_release_slot,
    };
    memcpy(dc.mean, L->o.mean, sizeof dc.mean);
    memcpy(dc.std, L->o.std, sizeof dc.std);
    if ((st = L->dev.ops->open(&dc, &L->dev_state, err, errlen)) != FEED_OK)
        goto fail;
    L->max_held = on_host ? L->o.prefetch : L->o.device_prefetch;
    L->held_tab = feed__calloc(L->max_held, sizeof *L->held_tab);
    if (!L->held_tab) {
        st = feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
        goto fail;
    }
    L->handle_salt = feed__mix64(feed__now_ns() ^ (uint64_t)(uintptr_t)L);
    L->create_ns[5] = feed__now_ns();

    /* An array source is one file read by range: the read-ahead thread
     * advises whole files, which would be the whole array. */
    if (L->o.readahead && L->ix.hdr->kind != FEED_INDEX_NPY) { /* no thread: no read-ahead, nothing else changes */
        const char *fp = getenv("FEED_FORCE_PREAD");
        L->ra = feed__readahead_start(L->ix.hdr, &L->sampler, L->o.readahead,
                                      L->o.reader != FEED_READER_PREAD && !(fp && *fp && *fp != '0'));
    }
    if (feed__schedule_init(&L->sched, &L->arena, &L->sampler, &L->pool, &L->bad, L->ra, &L->o) != FEED_OK) {
        st = feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
        goto fail;
    }
    feed__schedule_start(&L->sched, 0, L->o.start_epoch, 0);
    L->create_ns[6] = feed__now_ns();
    if ((st = feed__pool_start(&L->pool, &L->arena, L->arena.fd, L->ix.fd, L->o.workers, worker,
                               L->o.sample_timeout_ms, err, errlen)) != FEED_OK)
        goto fail;
    L->pool_started = 1;
    L->create_ns[7] = feed__now_ns();
    if ((st = L->dev.ops->start(L->dev_state, L->sched.next_seq)) != FEED_OK) {
        feed__err(st, err, errlen, "device backend %s: cannot start", L->dev.ops->name);
        goto fail;
    }
    L->dev_started = 1;
    L->create_ns[8] = feed__now_ns();
    *out = L;
    return FEED_OK;
fail:
    feed_loader_destroy(L);
    return st;
}

void feed_loader_destroy(feed_loader *L)
{
    if (!L)
        return;
    if (L->dev_started)
        L->dev.ops->stop(L->dev_state); /* its copier may still give slots back: assign */
    if (L->pool_started)
        feed__pool_stop(&L->pool);
    feed__readahead_stop(L->ra); /* after everything that assigns slots */
    L->ra = NULL;
    if (L->dev.ops && L->dev_state)
        L->dev.ops->close(L->dev_state);
    feed__arena_close(&L->arena);
    feed__index_free(&L->ix);
    feed__schedule_free(&L->sched);
    feed__badlog_free(&L->bad);
    feed__free(L->held_tab);
    pthread_mutex_destroy(&L->mu);
    feed__free(L);
}

/* ---- delivery ------------------------------------------------------------------ */

/* The smallest struct_size accepted: each struct as version 0.1.0 laid it out.
 * A caller's struct between this and ours gets the fields it knows. */
#define BATCH_MIN_SIZE (offsetof(feed_batch, handle) + sizeof(uint64_t))
#define STATS_MIN_SIZE offsetof(feed_stats, readahead_files)
#define BAD_SAMPLE_MIN_SIZE (offsetof(feed_bad_sample, message) + sizeof(((feed_bad_sample *)0)->message))

/* Copies what the caller's struct has room for. Its struct_size becomes the
 * bytes written (stats, bad samples: how callers learn ours), or is kept. */
static void give(void *to, const void *from, size_t ours, int say_size)
{
    uint32_t size = *(const uint32_t *)to; /* every struct starts with struct_size */
    uint32_t n = size < ours ? size : (uint32_t)ours;
    memcpy(to, from, n);
    memcpy(to, say_size ? &n : &size, sizeof size);
}

/* Remembers batch seq as held and returns its new handle. */
static uint64_t hold(feed_loader *L, uint64_t seq)
{
    uint64_t h;
    do /* a bijection of a counter: never the same twice */
        h = feed__mix64(L->handle_salt + ++L->handles_given);
    while (!h);
    for (uint32_t i = 0; i < L->max_held; i++)
        if (!L->held_tab[i].handle) {
            L->held_tab[i] = (struct held_batch){h, seq};
            break;
        }
    L->held++;
    return h;
}

/* The entry of a batch the caller holds, or NULL (stale, doubled, zeroed, foreign). */
static struct held_batch *held(feed_loader *L, const feed_batch *b)
{
    if (!L || !b || b->struct_size < BATCH_MIN_SIZE || !b->handle)
        return NULL;
    for (uint32_t i = 0; i < L->max_held; i++)
        if (L->held_tab[i].handle == b->handle)
            return &L->held_tab[i];
    return NULL;
}

feed_status feed_loader_next(feed_loader *L, feed_batch *b, int64_t timeout_ms)
{
    if (!L || !b || b->struct_size < BATCH_MIN_SIZE)
        return FEED_E_INVALID;
    b->handle = 0; /* on every return but FEED_OK: nothing to release */
    if (L->data_error) {
        set_error(L, "%s", L->data_msg);
        return L->data_error;
    }
    if (L->stashed) {
        give(b, &L->stash, sizeof L->stash, 0);
        L->stashed = 0;
        return FEED_OK;
    }
    feed_status st = feed__schedule_boundary(&L->sched);
    if (st != FEED_OK)
        return st;
    if (L->held >= L->max_held) {
        set_error(L, "%u batches are held and not released (at most %u)", L->held, L->max_held);
        return FEED_E_BUSY;
    }
    uint64_t t0 = feed__now_ns();
    const uint64_t seq = L->sched.next_seq;
    feed_batch out = {.struct_size = sizeof out};
    st = L->dev.ops->next(L->dev_state, seq, timeout_ms, &out);
    atomic_fetch_add_explicit(&L->next_wait_ns, feed__now_ns() - t0, memory_order_relaxed);
    int ring_said = take_ring_error(L);
    if (st != FEED_OK && st != FEED_E_TIMEOUT && st != FEED_E_BUSY && st != FEED_E_INTERRUPTED && !ring_said &&
        L->dev.ops->error) { /* the backend's own failure (a CUDA error): say which */
        char why[sizeof L->last_error];
        L->dev.ops->error(L->dev_state, why, sizeof why);
        if (why[0])
            set_error(L, "%s", why);
    }
    if (st == FEED_E_BUSY)
        set_error(L, "the batch %u before this one is still held and this one needs its buffer: "
                  "release it first", L->max_held);
    if (st != FEED_OK) {
        out = (feed_batch){.struct_size = sizeof out};
        give(b, &out, sizeof out, 0);
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
        set_error(L, "%s", L->data_msg);
        L->dev.ops->release(L->dev_state, &out, NULL);
        out = (feed_batch){.struct_size = sizeof out};
        give(b, &out, sizeof out, 0);
        return dst; /* not counted delivered: position() still names it */
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
            give(b, &out, sizeof out, 0);
            return bst;
        }
    }
    give(b, &out, sizeof out, 0);
    return FEED_OK;
}

/* The held entry of b, with k = b as the backend knows it (handle = seq);
 * NULL (and the error set) if b is not held. */
static struct held_batch *for_backend(feed_loader *L, const feed_batch *b, feed_batch *k, const char *who)
{
    struct held_batch *e = held(L, b);
    if (!e) {
        if (L)
            set_error(L, "%s: not a batch this loader has given out, or released already", who);
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
    struct held_batch *e = for_backend(L, b, &k, "feed_batch_release");
    if (!e)
        return FEED_E_INVALID;
    feed_status st = L->dev.ops->release(L->dev_state, &k, stream);
    if (st != FEED_E_INVALID) { /* anything else gave the buffer back */
        *e = (struct held_batch){0};
        L->held--;
        b->handle = 0;
    }
    return st;
}

feed_status feed_batch_wait(feed_loader *L, const feed_batch *b, void *stream)
{
    feed_batch k;
    if (!for_backend(L, b, &k, "feed_batch_wait"))
        return FEED_E_INVALID;
    return L->dev.ops->wait(L->dev_state, &k, stream);
}

/* ---- position ------------------------------------------------------------------- */

uint64_t feed_loader_samples_per_epoch(const feed_loader *L)
{
    if (!L)
        return 0;
    uint64_t n = L->sampler.per_rank;
    if (L->o.drop_last)
        n = L->sampler.nbatches * L->o.batch_size;
    return n;
}

uint64_t feed_loader_batches_per_epoch(const feed_loader *L)
{
    return L ? L->sampler.nbatches : 0;
}

uint32_t feed_loader_num_classes(const feed_loader *L)
{
    return L ? L->ix.hdr->nclasses : 0;
}

uint64_t feed_loader_skipped_files(const feed_loader *L, const char **first)
{
    if (first)
        *first = L ? L->ix.skipped_names : "";
    return L ? L->ix.skipped : 0;
}

uint64_t feed_loader_shard_problems(const feed_loader *L, const char **first)
{
    if (first)
        *first = L ? L->ix.first_problem : "";
    return L ? L->ix.hdr->problems : 0;
}

const char *feed_loader_class_name(const feed_loader *L, uint32_t i)
{
    if (!L || i >= L->ix.hdr->nclasses || !L->ix.hdr->named_classes)
        return NULL; /* file lists have numbers, not names */
    return feed__index_class(L->ix.hdr, i);
}

uint64_t feed_loader_num_samples(const feed_loader *L)
{
    return L ? L->ix.hdr->count : 0;
}

feed_status feed_loader_sample_info(const feed_loader *L, uint64_t id, char *path, size_t pathlen,
                                    int32_t *label)
{
    if (path && pathlen)
        path[0] = 0;
    if (!L || id >= L->ix.hdr->count)
        return FEED_E_INVALID;
    const feed__index_hdr *h = L->ix.hdr;
    if (path) {
        const char *rel = feed__index_path(h, id);
        int n;
        uint64_t off, len;
        if (h->kind == FEED_INDEX_NPY)
            n = snprintf(path, pathlen, "%s%s%s[%llu]", h->root, strcmp(h->root, "/") ? "/" : "", rel,
                         (unsigned long long)id);
        else if (feed__index_range(h, id, &off, &len)) /* a shard member: its bytes, as a slice */
            n = snprintf(path, pathlen, "%s%s%s[%llu:%llu]", rel[0] == '/' ? "" : h->root,
                         rel[0] == '/' || !strcmp(h->root, "/") ? "" : "/", rel, (unsigned long long)off,
                         (unsigned long long)(off + len));
        else if (rel[0] == '/')
            n = snprintf(path, pathlen, "%s", rel);
        else
            n = snprintf(path, pathlen, "%s%s%s", h->root, strcmp(h->root, "/") ? "/" : "", rel);
        if (n < 0 || (size_t)n >= pathlen) {
            if (pathlen)
                path[0] = 0;
            return FEED_E_INVALID;
        }
    }
    if (label)
        *label = feed__index_label(h, id);
    return FEED_OK;
}

/* The sequence number of the next batch next() returns. */
static uint64_t next_seq(const feed_loader *L)
{
    return L->stashed ? L->stash_seq : L->sched.next_seq;
}

feed_status feed_loader_position(const feed_loader *L, uint64_t *epoch, uint64_t *batch)
{
    if (!L || !epoch || !batch)
        return FEED_E_INVALID;
    feed__schedule_position(&L->sched, next_seq(L), epoch, batch);
    return FEED_OK;
}

feed_status feed_loader_position_samples(const feed_loader *L, uint64_t *epoch, uint64_t *consumed)
{
    if (!L || !epoch || !consumed)
        return FEED_E_INVALID;
    feed__schedule_position_samples(&L->sched, next_seq(L), epoch, consumed);
    return FEED_OK;
}

uint64_t feed_loader_dataset_size(const feed_loader *L)
{
    return L ? L->sampler.n : 0;
}

feed_status feed_loader_seek(feed_loader *L, uint64_t epoch, uint64_t batch)
{
    if (!L)
        return FEED_E_INVALID;
    if (batch >= L->sampler.nbatches) {
        set_error(L, "seek: batch %llu is past the %llu batches of an epoch", (unsigned long long)batch,
                  (unsigned long long)L->sampler.nbatches);
        return FEED_E_INVALID;
    }
    return feed_loader_seek_samples(L, epoch, feed__sampler_consumed(&L->sampler, 0, batch));
}

feed_status feed_loader_seek_samples(feed_loader *L, uint64_t epoch, uint64_t consumed)
{
    if (!L)
        return FEED_E_INVALID;
    if (consumed >= L->sampler.n) {
        set_error(L, "seek: sample position %llu is past the %llu samples of an epoch (a position "
                  "from feed_loader_position_samples is below the dataset size it was taken with)",
                  (unsigned long long)consumed, (unsigned long long)L->sampler.n);
        return FEED_E_INVALID;
    }
    int stashed = L->stashed;
    if (L->held > (uint32_t)stashed) { /* the batch bad_policy=fail failed was never handed out */
        uint32_t n = L->held - (uint32_t)stashed;
        set_error(L, "seek: release the %u held batch%s first", n, n == 1 ? "" : "es");
        return FEED_E_BUSY;
    }
    uint64_t ce, cc;
    feed_loader_position_samples(L, &ce, &cc);
    if (stashed) { /* dropped: a seek goes on from elsewhere, or from that batch afresh */
        feed_batch k;
        struct held_batch *e = for_backend(L, &L->stash, &k, "seek");
        if (e) {
            L->dev.ops->release(L->dev_state, &k, NULL);
            *e = (struct held_batch){0};
        }
        L->held--;
        L->stashed = 0;
    }
    L->data_error = FEED_OK;
    pthread_mutex_lock(&L->mu);
    feed__badlog_budget_reset(&L->bad);
    pthread_mutex_unlock(&L->mu);
    /* Not once the run has ended: seek_samples(UINT64_MAX, c) to a part with
     * no batch ends the run with its position wrapped to (0, 0), which is not
     * where a seek to (0, 0) starts (fuzz_position found it). */
    if (ce == epoch && cc == consumed && !stashed && L->sched.next_seq < L->sched.end_seq) {
        feed__schedule_stay(&L->sched); /* next() returns that batch, not an END_OF_EPOCH */
        return FEED_OK;                 /* already there: keep what the ring has */
    }
    L->dev.ops->stop(L->dev_state);
    L->dev_started = 0;
    char msg[512];
    feed_status st = feed__schedule_drain(&L->sched, msg, sizeof msg);
    if (st != FEED_OK) {
        set_error(L, "%s", msg);
        return st;
    }
    uint64_t seq = L->sched.next_seq + L->arena.lay.nslots; /* fresh numbers: no stale slot matches */
    pthread_mutex_lock(&L->mu);
    feed__schedule_start(&L->sched, seq, epoch, consumed);
    pthread_mutex_unlock(&L->mu);
    st = L->dev.ops->start(L->dev_state, seq);
    if (st == FEED_OK)
        L->dev_started = 1;
    return st;
}

/* ---- errors and stats ------------------------------------------------------------- */

const char *feed_loader_last_error(const feed_loader *L)
{
    return L ? L->last_error : "";
}

uint64_t feed_loader_bad_count(const feed_loader *L)
{
    if (!L)
        return 0;
    pthread_mutex_lock((pthread_mutex_t *)&L->mu);
    uint64_t n = L->bad.nbad;
    pthread_mutex_unlock((pthread_mutex_t *)&L->mu);
    return n;
}

uint64_t feed_loader_bad_count_epoch(const feed_loader *L, uint64_t epoch)
{
    if (!L)
        return 0;
    pthread_mutex_lock((pthread_mutex_t *)&L->mu);
    uint64_t n = feed__badlog_epoch_count(&L->bad, epoch);
    pthread_mutex_unlock((pthread_mutex_t *)&L->mu);
    return n;
}

feed_status feed_loader_bad_sample(const feed_loader *L, uint64_t i, feed_bad_sample *out)
{
    if (!L || !out || out->struct_size < BAD_SAMPLE_MIN_SIZE)
        return FEED_E_INVALID;
    feed_bad_sample r = {.struct_size = sizeof r};
    pthread_mutex_lock((pthread_mutex_t *)&L->mu);
    feed_status st = feed__badlog_get(&L->bad, i, &r);
    pthread_mutex_unlock((pthread_mutex_t *)&L->mu);
    if (st == FEED_OK)
        give(out, &r, sizeof r, 1);
    return st;
}

feed_status feed_loader_stats(const feed_loader *L, feed_stats *out)
{
    if (!L || !out || out->struct_size < STATS_MIN_SIZE)
        return FEED_E_INVALID;
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
    }
    pthread_mutex_unlock(&p->mu);
    strcpy(s->reader, kinds == 3 ? "mixed" : kinds == 2 ? "io_uring" : kinds == 1 ? "pread" : "none");
    pthread_mutex_lock(&M->mu);
    s->samples_bad = L->bad.samples_bad;
    pthread_mutex_unlock(&M->mu);
    L->dev.ops->stats(L->dev_state, s);
    give(out, s, sizeof *s, 1);
    return FEED_OK;
}

/* ---- timeline ------------------------------------------------------------------------ */

uint64_t feed_loader_trace_read(feed_loader *L, feed_trace_event *out, uint64_t max, uint64_t *lost)
{
    if (!L || (!out && max)) {
        if (lost)
            *lost = 0;
        return 0;
    }
    uint32_t bad;
    char what[200];
    uint64_t n = feed__trace_read(&L->trace, &L->arena, out, max, lost, &bad, what, sizeof what);
    if (bad != UINT32_MAX) {
        misbehaved(L, bad, what);
        take_ring_error(L); /* the caller's thread: last_error says it now */
    }
    return n;
}

#if FEED_TEST_HOOKS
/* ---- test hooks (not exported) ----------------------------------------------------- */


pid_t feed__loader_worker_pid(feed_loader *L, uint32_t i)
{
    return feed__pool_pid(&L->pool, i);
}

struct feed__pool *feed__loader_pool(feed_loader *L)
{
    return &L->pool;
}


const feed__xform *feed__loader_xform(feed_loader *L)
{
    return &L->arena.cfg->xform;
}

const char *const feed__create_step_names[FEED__CREATE_STEPS] = {
    "options, device, worker path", "index (build, share)", "sampler, bad-sample log",
    "arena (memfd, map, memory check)", "device backend open", "read-ahead, schedule",
    "worker spawn (pool start)", "device backend start"};

void feed__loader_create_times(const feed_loader *L, uint64_t ns[FEED__CREATE_STEPS])
{
    for (int i = 0; i < FEED__CREATE_STEPS; i++)
        ns[i] = L->create_ns[i + 1] - L->create_ns[i];
}
#endif
