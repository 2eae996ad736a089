/*
 * loader.h - what the loader's files share (internal; the public API is
 * feed.h): the loader's one private struct, and the few functions one of its
 * files gives the others.
 *
 * The files: create.c (build the index, the arena, the pool, the device
 * backend; tear them down), ready.c (the host ring as the device backend sees
 * it: wait for a batch, check it, give its slot back), deliver.c (next,
 * release, wait: the handles the caller holds), position.c (position, seek),
 * info.c (the dataset and its epochs), stats.c (the last error, bad samples,
 * stats, the workers' timeline).
 *
 * Dependency order of the pieces the loader owns: device_select, trace (the
 * arena only); verify (the arena, the index, the protocol); badlog (index,
 * arena, pool); schedule (ring, sampler, pool, badlog, readahead). None of
 * them knows the loader.
 *
 * The trust boundary runs through feed__loader_wait_ready (ready.c): a batch
 * is handed out only after supervise/verify.h has checked what the workers
 * wrote, and from the parent's private copies; a worker that wrote something
 * invalid is killed and replaced, and the sample done again
 * (supervise/pool.h, arena/ring.h).
 */
#ifndef FEED_LOADER_LOADER_H
#define FEED_LOADER_LOADER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "arena/arena.h"
#include "dataset/index.h"
#include "dataset/targets.h"
#include "device/device.h"
#include "feed.h"
#include "loader/badlog.h"
#include "loader/device_select.h"
#include "loader/mix.h"
#include "loader/fetchahead.h"
#include "loader/readahead.h"
#include "loader/sampler.h"
#include "remote/remote.h"
#include "loader/schedule.h"
#include "supervise/pool.h"
#include "supervise/trace.h"

/* The steps of feed_loader_create, in order, each timed (the names and the
 * accessor are test hooks: hooks/loader_test.h, bench/startupbench). */
#define FEED__CREATE_STEPS 8

/* The smallest struct_size accepted: each struct as version 0.1.0 laid it out.
 * A caller's struct between this and ours gets the fields it knows. */
#define FEED__BATCH_MIN_SIZE (offsetof(feed_batch, handle) + sizeof(uint64_t))
#define FEED__STATS_MIN_SIZE offsetof(feed_stats, readahead_files)
#define FEED__BAD_SAMPLE_MIN_SIZE \
    (offsetof(feed_bad_sample, message) + sizeof(((feed_bad_sample *)0)->message))

struct feed_loader {
    feed_options o;
    pid_t owner;           /* the process that created it (getpid() at create) */
    uint64_t fork_gen;     /* feed__fork_gen at create: another value means a fork's child */
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
    struct feed__held_batch {
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

    /* MixUp, CutMix, label smoothing (loader/mix.h, loader/recipe.c): on the
     * host backend run by next() on the host slot before it is handed out;
     * on a device, by wait_ready on the copier's thread, which hands the
     * kernel its parameters. soft: NULL when off, else ring slots x
     * batch_size x num_classes floats, the rows of the batch in slot
     * seq % soft_slots; draws: batch_size entries (one thread uses them:
     * the caller's on the host, the copier's on a device). */
    feed__mix_cfg mix;
    float *soft;
    feed__mix_draw *mix_draws;
    uint32_t soft_slots;
    /* A device backend's share of the recipe (NULL/0 on the host backend):
     * RandomErasing drawn here (post_xf: the options' erase fields; the
     * workers' copy has erase_p 0) and the post parameters of one batch. */
    uint32_t dev_recipe; /* a device backend with soft labels or erasing: wait_ready does it */
    feed__xform post_xf;
    feed__post_cfg post_cfg;
    feed__post_sample *post; /* batch_size; NULL without erasing or mixing */
    /* The targets option (dataset/targets.h): the array, and each ring
     * slot's rows (ring slots x batch_size rows, the batch in slot seq %
     * tg_slots), gathered by next() (host) or wait_ready (device). */
    feed__targets tg;
    feed__remote_hold remote; /* the claim on remote shards in the cache (remote.h); fd -1: none */
    feed__fetcher *fetcher;   /* fetch_ahead > 0 with remote shards: feed-fetch while it runs; else NULL */
    feed__fetchahead *fa;     /* the thread that tells it what to fetch (NULL: none) */
    uint8_t *tg_buf;
    uint32_t tg_slots;
    /* meta_members' extensions, parsed once at create (for the index and the workers' reports) */
    char meta_exts[FEED_INDEX_MAX_META][32];
    /* multi_label: each slot's label_offsets (batch_size + 1) and label_list
     * (batch_size x the index's max_labels), built from the index by sample id */
    uint32_t *label_offsets;
    int32_t *label_list;

    /* written by the loader's thread, read by feed_loader_stats from any */
    _Atomic uint64_t batches_delivered, samples_delivered, next_wait_ns;
    feed__trace_reader trace;
    /* when each step of create ended (feed__now_ns), for bench/startupbench */
    uint64_t create_ns[FEED__CREATE_STEPS + 1];
    char last_error[1024]; /* the caller's thread only: feed_loader_last_error reads it unlocked */
    /* What the ring said (feed__loader_wait_ready, feed__loader_misbehaved),
     * which on CUDA runs on the copier thread: under mu, moved into last_error
     * by next(). */
    char ring_error[1024];
    _Atomic int ring_error_new; /* set under mu; read without it first (next()'s every batch) */
};

/* ---- stats.c ---- */

/* The caller's thread: what last_error says now. */
void feed__loader_set_error(feed_loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A fork's child holds a copy of every loader its parent had: the copy's
 * threads are gone, its locks may be held for ever, its workers and device
 * are the parent's. feed__loader_forked() is 1 there (last_error then says
 * so, unless L is const to the caller) and 0 in the process that created L;
 * every entry point that would wait, lock or touch a worker checks it first.
 * Counted by a pthread_atfork child handler, installed at the first create. */
extern _Atomic uint64_t feed__fork_gen;
void feed__fork_watch(void);
int feed__loader_forked(const feed_loader *L);
feed_status feed__loader_refuse_forked(feed_loader *L, const char *call);
/* Copies what the caller's struct has room for. Its struct_size becomes the
 * bytes written (stats, bad samples: how callers learn ours), or is kept. */
void feed__loader_give(void *to, const void *from, size_t ours, int say_size);

/* ---- deliver.c ---- */
/* The held entry of b, with k = b as the backend knows it (handle = seq);
 * NULL (and the error set) if b is not held. */
struct feed__held_batch *feed__loader_for_backend(feed_loader *L, const feed_batch *b, feed_batch *k,
                                            const char *who);

/* ---- recipe.c: the parent's per-batch step of the recipe ---- */

/* A checked batch, as the recipe step reads it. */
typedef struct feed__recipe_batch {
    uint64_t epoch, index;
    uint32_t count;
    const int32_t *labels;
    const uint64_t *ids;
    const feed__sample_priv *samples; /* the parent's records: each sample's repeat (RandomErasing's key);
                                         NULL on the host backend, which does not erase here */
} feed__recipe_batch;

typedef struct feed__recipe_out {
    const feed__mix_draw *draws; /* L->mix_draws, or NULL when images are not mixed */
    const float *soft;           /* count x num_classes, the loader's storage for seq */
    const uint32_t *label_offsets;
    const int32_t *label_list; /* multi_label; NULL otherwise */
} feed__recipe_out;

/* Batch seq's MixUp/CutMix draws (into L->mix_draws), soft labels and
 * multi-label lists (L->soft != NULL). FEED_E_DATASET and msg when a label
 * does not fit num_classes. */
feed_status feed__loader_recipe(feed_loader *L, uint64_t seq, const feed__recipe_batch *in, feed__recipe_out *r,
                                char *msg, size_t msglen);
/* A device backend's post parameters of the batch: each sample's
 * RandomErasing box (drawn as a worker would) and mixing draw (d: NULL for
 * none). */
void feed__loader_post(feed_loader *L, const feed__recipe_batch *in, const feed__mix_draw *d,
                       feed__post_sample *out);
/* L->post_cfg from L->post_xf and the dtype. */
void feed__loader_post_setup(feed_loader *L);
/* The targets rows of batch seq (its checked ids), in the loader's storage
 * for seq; NULL without the targets option. */
const void *feed__loader_targets(feed_loader *L, uint64_t seq, const uint64_t *ids, uint32_t count);

/* ---- ready.c: the host ring, as the device backend sees it ---- */

/* feed__device_config's wait_ready and release_slot (ring is the loader). */
feed_status feed__loader_wait_ready(void *ring, uint64_t seq, int64_t timeout_ms, feed__slot_view *v);
void feed__loader_release_slot(void *ring, uint64_t seq);
/* Worker w (UINT32_MAX: it cannot be told which) wrote what: say so, kill
 * it (the pool replaces it and redoes its claims). */
void feed__loader_misbehaved(feed_loader *L, uint32_t w, const char *what);
/* On the caller's thread: what the ring said since, into last_error.
 * Returns 1 if it said something. */
int feed__loader_take_ring_error(feed_loader *L);

#endif
