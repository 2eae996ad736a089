/*
 * create.c - feed_loader_create and feed_loader_destroy: the options, the
 * index (built once, shared), the sampler and the bad-sample log, the arena
 * (sized, checked against the memory left, its configuration sealed), the
 * device backend, the read-ahead and the schedule, the worker pool; and, in
 * test builds, the accessors to what create built (hooks/loader_test.h).
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena/arena.h"
#include "arena/protocol.h"
#include "common/internal.h"
#include "common/rng.h"
#include "dataset/index.h"
#include "dataset/shardcache.h"
#include "dataset/shards.h"
#include "device/device.h"
#if FEED_TEST_HOOKS
#include "hooks/loader_test.h"
#endif
#include "loader/badlog.h"
#include "loader/device_select.h"
#include "loader/loader.h"
#include "loader/memroom.h"
#include "loader/mix.h"
#include "loader/options.h"
#include "loader/readahead.h"
#include "loader/sampler.h"
#include "loader/schedule.h"
#include "pixels/convert.h"
#include "pixels/xform.h"
#include "remote/remote.h"
#include "supervise/pool.h"

/* The fetch-ahead thread's word: shards came, bind the batches that waited. */
static void retry_deferred(void *arg)
{
    feed_loader *L = arg;
    pthread_mutex_lock(&L->mu);
    feed__schedule_retry(&L->sched);
    pthread_mutex_unlock(&L->mu);
}

static size_t dtype_size(uint32_t dt)
{
    return dt == FEED_DTYPE_UINT8 ? 1 : dt == FEED_DTYPE_FLOAT32 ? 4 : 2;
}

/* The index, and what an array source needs of the options. */
static feed_status build_index(feed_loader *L, const char *worker, char *err, size_t errlen)
{
    char note[1024];
    const char *ext_p[FEED_INDEX_MAX_META];
    int nmeta = feed__options_meta_members(&L->o, L->meta_exts, note, sizeof note); /* validate checked it */
    for (int j = 0; j < nmeta; j++)
        ext_p[j] = L->meta_exts[j];
    /* Remote shards: complete and checked in the cache before the index is
     * built from them, so a worker never reads a shard still arriving. */
    char **paths = NULL, **urls = NULL;
    size_t npaths = 0;
    int remote = 0;
    feed__remote_cfg rc = {.cache_dir = L->o.cache_dir, .cache_size = L->o.cache_size,
                           .retries = L->o.fetch_retries, .timeout_ms = L->o.fetch_timeout_ms,
                           .parallel = L->o.fetch_parallel, .worker_path = worker,
                           .ranges = L->o.fetch_ahead && L->o.fetch_ranges == FEED_FETCH_RANGES};
    feed_status rst;
    if (L->o.fetch_ahead) { /* the shards come while it runs; the index from one pass over them */
        rst = feed__fetcher_start(&rc, L->o.source, L->o.file_list, &L->fetcher, &remote, err, errlen);
        if (rst == FEED_OK && remote)
            npaths = feed__fetcher_count(L->fetcher);
    } else {
        rst = feed__remote_shards(&rc, L->o.source, L->o.file_list, &paths, &urls, &npaths, &remote, &L->remote,
                                  err, errlen);
        feed__shards_free(urls, npaths);
    }
    if (rst != FEED_OK)
        return rst;
    feed__index_spec spec = {.source = L->o.source, .file_list = L->o.file_list, .labels = L->o.labels,
                             .scan_cache = L->o.scan_cache, .scan_cache_path = L->o.scan_cache_path,
                             .multi_label = L->o.multi_label, .allow_empty_classes = L->o.allow_empty_classes,
                             .note = note, .notelen = sizeof note, .target_columns = L->o.target_columns,
                             .target_member = L->o.target_member, .targets = &L->tg,
                             .meta_exts = ext_p, .nmeta = nmeta > 0 ? (uint32_t)nmeta : 0,
                             .shard_paths = L->fetcher ? feed__fetcher_paths(L->fetcher) : remote ? paths : NULL,
                             .nshard_paths = npaths, .shard_open = L->fetcher ? feed__fetcher_scan_open : NULL,
                             .shard_close = L->fetcher ? feed__fetcher_scan_close : NULL, .shard_ctx = L->fetcher};
    if (!!L->o.targets[0] + !!L->o.target_columns[0] + !!L->o.target_member[0] > 1) {
        feed__shards_free(paths, paths ? npaths : 0);
        return feed__err(FEED_E_INVALID, err, errlen,
                         "targets=%s, target_columns=%s and target_member=%s: set one of them (each gives the "
                         "targets)", L->o.targets, L->o.target_columns, L->o.target_member);
    }
    /* fetch_ahead: the index saved for these shards' versions, else one pass
     * over them, saved for the next create (another rank, a resumed job) */
    feed__shard_members mem = {.multi_label = L->o.multi_label, .target_ext = L->o.target_member,
                               .targets = &L->tg, .meta_exts = ext_p, .nmeta = spec.nmeta};
    char *key = NULL, ipath[PATH_MAX + 64] = "", why[600] = "";
    size_t keylen = 0;
    int saved = 0;
    if (L->fetcher && !L->o.labels[0] && !L->o.target_columns[0] &&
        feed__fetcher_index_key(L->fetcher, &key, &keylen, ipath, sizeof ipath) == FEED_OK) {
        saved = feed__shardcache_load(ipath, key, keylen, feed__fetcher_paths(L->fetcher), npaths, &mem, &L->ix,
                                      why, sizeof why) == 1;
        if (saved) /* its last use: eviction goes oldest first (remote/fetch_cache.c) */
            utimensat(AT_FDCWD, ipath, NULL, 0);
        if (!saved && why[0])
            fprintf(stderr, "libfeed: the saved index %s is not used (%s); the shards are scanned again\n", ipath,
                    why);
        if (saved && L->ix.hdr->problems)
            fprintf(stderr, "libfeed: %llu malformed members in the shards (saved index %s), the first: %s\n",
                    (unsigned long long)L->ix.hdr->problems, ipath, L->ix.first_problem);
    }
    feed_status st = saved ? FEED_OK : feed__index_build_spec(&L->ix, &spec, err, errlen);
    if (st == FEED_OK && key && !saved &&
        feed__shardcache_save(ipath, &L->ix, &mem, key, keylen, why, sizeof why) != 0)
        fprintf(stderr, "libfeed: cannot save the index to %s: %s; the next create scans the shards again\n", ipath,
                why);
    feed__free(key);
    feed__shards_free(paths, paths ? npaths : 0);
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

/* RandomErasing runs in the workers on the converted output and MixUp/CutMix
 * in the parent on the host slot: on the CUDA backend the slot holds uint8
 * HWC and the device converts, so neither has its output to work on yet. */
/* The soft labels' width, every label checked against it, and the buffers
 * next() mixes with (loader.h). Off: nothing allocated. */
static feed_status setup_mix(feed_loader *L, uint32_t slots, char *err, size_t errlen)
{
    const feed_options *o = &L->o;
    const feed__index_hdr *ix = L->ix.hdr;
    feed__mix_cfg *c = &L->mix;
    *c = (feed__mix_cfg){.seed = o->seed, .rank = o->rank, .mode = o->mix_mode,
                         .mixup_alpha = o->mixup_alpha, .cutmix_alpha = o->cutmix_alpha, .mix_p = o->mix_p,
                         .switch_p = o->mix_switch_p, .smoothing = o->label_smoothing, .multi = o->multi_label,
                         .num_classes = o->num_classes ? o->num_classes : ix->nclasses, .h = o->height,
                         .w = o->width, .dtype = L->host_dtype, .layout = L->host_layout};
    if (!feed__mix_soft(c))
        return FEED_OK;
    if (c->num_classes == 0)
        return feed__err(FEED_E_INVALID, err, errlen,
                         "soft labels (MixUp, CutMix, label_smoothing) need num_classes: the dataset has no "
                         "classes, set num_classes");
    if (c->num_classes > FEED_MAX_SOFT_CLASSES)
        return feed__err(FEED_E_INVALID, err, errlen, "soft labels: the dataset has %u classes, more than %u",
                         c->num_classes, FEED_MAX_SOFT_CLASSES);
    if (c->num_classes < ix->nclasses) /* the labels are known now: say which one is out */
        for (uint64_t i = 0; i < ix->count; i++) {
            const int32_t *extra;
            uint32_t n = feed__index_labels(ix, i, &extra);
            for (uint32_t k = 0; k < n; k++) {
                int32_t lab = k ? extra[k - 1] : feed__index_label(ix, i);
                char name[2 * FEED_PATH_MAX + 32];
                if ((lab < 0 || (uint32_t)lab >= c->num_classes) && feed__index_name(ix, i, name, sizeof name) >= 0)
                    return feed__err(FEED_E_INVALID, err, errlen,
                                     "num_classes=%u: sample %llu (%s) has label %d, outside 0..%u (the "
                                     "dataset has %u classes); raise num_classes or leave it 0 (the dataset's)",
                                     c->num_classes, (unsigned long long)i, name, lab,
                                     c->num_classes - 1, ix->nclasses);
            }
        }
    L->soft_slots = slots;
    L->soft = feed__calloc((size_t)slots * o->batch_size, (size_t)c->num_classes * sizeof(float));
    L->mix_draws = feed__calloc(o->batch_size, sizeof *L->mix_draws);
    if (!L->soft || !L->mix_draws)
        return feed__err(FEED_E_NOMEM, err, errlen,
                         "out of memory for the soft labels (%u slots x %u samples x %u classes floats)", slots,
                         o->batch_size, c->num_classes);
    if (c->multi) {
        uint32_t most = ix->max_labels ? ix->max_labels : 1; /* an array's index says 0: one */
        L->label_offsets = feed__calloc((size_t)slots, ((size_t)o->batch_size + 1) * sizeof(uint32_t));
        L->label_list = feed__calloc((size_t)slots * o->batch_size, (size_t)most * sizeof(int32_t));
        if (!L->label_offsets || !L->label_list)
            return feed__err(FEED_E_NOMEM, err, errlen,
                             "out of memory for the label lists (%u slots x %u samples x %u labels)", slots,
                             o->batch_size, most);
    }
    return FEED_OK;
}

/* The targets option: the array, read whole and checked, and each ring
 * slot's rows. */
static feed_status setup_targets(feed_loader *L, uint32_t slots, char *err, size_t errlen)
{
    if (!L->o.targets[0] && !L->tg.data) /* none, from a file or from a .csv list's columns */
        return FEED_OK;
    feed_status st = L->tg.data ? FEED_OK : feed__targets_load(&L->tg, L->o.targets, L->ix.hdr->count, err, errlen);
    if (st != FEED_OK)
        return st;
    L->tg_slots = slots;
    L->tg_buf = feed__calloc((size_t)slots * L->o.batch_size, feed__targets_row(&L->tg));
    if (!L->tg_buf)
        return feed__err(FEED_E_NOMEM, err, errlen, "out of memory for the targets (%u slots x %u samples x %zu bytes)",
                         slots, L->o.batch_size, feed__targets_row(&L->tg));
    return FEED_OK;
}

/* A device backend's share of the recipe (recipe.c): the parameters of
 * its kernel's erasing and mixing, drawn in wait_ready. */
static feed_status setup_device_recipe(feed_loader *L, int on_host, char *err, size_t errlen)
{
    int erase = L->post_xf.erase_p > 0, images = feed__mix_images(&L->mix);
    if (on_host || (!erase && !images && !L->soft && !L->tg_buf))
        return FEED_OK;
    L->dev_recipe = 1;
    if (!erase && !images)
        return FEED_OK;
    L->post = feed__calloc(L->o.batch_size, sizeof *L->post);
    if (!L->post)
        return feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
    feed__loader_post_setup(L);
    return FEED_OK;
}

feed_status feed_loader_create(feed_loader **out, const feed_options *opts, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!out)
        return feed__err(FEED_E_INVALID, err, errlen, "feed_loader_create: out is NULL");
    *out = NULL;
    feed__fork_watch();
    feed_loader *L = feed__calloc(1, sizeof *L);
    if (!L)
        return feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
    L->owner = getpid();
    L->fork_gen = atomic_load_explicit(&feed__fork_gen, memory_order_relaxed);
    pthread_mutex_init(&L->mu, NULL);
    L->ix.fd = -1;
    L->arena.fd = L->arena.cfg_fd = -1;
    L->bad.log_fd = -1;
    L->remote.fd = -1;
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
    if ((st = build_index(L, worker, err, errlen)) != FEED_OK ||
        (st = feed__index_share(&L->ix, err, errlen)) != FEED_OK)
        goto fail;
    L->create_ns[2] = feed__now_ns();
    if ((st = feed__sampler_init_repeats(&L->sampler, L->ix.hdr->count, L->o.repeats, L->o.batch_size,
                                         L->o.shuffle, L->o.drop_last, L->o.rank, L->o.world_size,
                                         L->o.seed, err, errlen)) != FEED_OK ||
        (st = feed__sampler_window(&L->sampler, L->ix.hdr, L->o.shuffle_window, err, errlen)) != FEED_OK)
        goto fail;
    if ((st = feed__badlog_init(&L->bad, L->ix.hdr, L->o.batch_size, &L->o, err, errlen)) != FEED_OK)
        goto fail;
    feed__badlog_set_epoch_len(&L->bad, feed_loader_samples_per_epoch(L));
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
    feed__arena_geom g = {L->o.prefetch, L->o.batch_size, L->o.workers, sample_bytes, L->ix.hdr->nmeta,
                          L->o.meta_max_bytes};
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
    /* only what the batch reads is sure to be cached: with fetch_ahead its
     * shards, with fetch_ranges its samples' byte ranges */
    h->substitute_from = !(L->o.fetch_ahead && L->fetcher)   ? FEED_SUBSTITUTE_DATASET
                         : feed__fetcher_ranges(L->fetcher) ? FEED_SUBSTITUTE_BATCH
                                                            : FEED_SUBSTITUTE_SHARD;
#if FEED_TEST_HOOKS
    const char *subst = getenv("FEED_TEST_SUBSTITUTE"); /* "batch": BATCH with local data */
    if (subst && strcmp(subst, "batch") == 0)
        h->substitute_from = FEED_SUBSTITUTE_BATCH;
#endif
    h->meta_missing = L->o.meta_missing;
    memcpy(h->meta_exts, L->meta_exts, sizeof h->meta_exts);
    feed__xform_from_options(&h->xform, &L->o);
    if (!on_host && h->xform.erase_p > 0) { /* the device erases after converting (recipe.c) */
        L->post_xf = h->xform;
        h->xform.erase_p = 0;
    }
    if ((st = feed__arena_seal_config(&L->arena, err, errlen)) != FEED_OK ||
        (st = setup_mix(L, h->nslots, err, errlen)) != FEED_OK ||
        (st = setup_targets(L, h->nslots, err, errlen)) != FEED_OK ||
        (st = setup_device_recipe(L, on_host, err, errlen)) != FEED_OK)
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
        .nmeta = L->arena.lay.nmeta,
        .meta_bytes = L->arena.lay.meta_bytes,
        .wait_ready = feed__loader_wait_ready,
        .release_slot = feed__loader_release_slot,
    };
    if (L->dev_recipe) {
        dc.post = L->post != NULL;
        dc.post_cfg = L->post_cfg;
        dc.num_classes = L->soft ? L->mix.num_classes : 0;
        dc.max_labels = L->label_list ? (L->ix.hdr->max_labels ? L->ix.hdr->max_labels : 1) : 0;
        dc.target_row = L->tg_buf ? (uint32_t)feed__targets_row(&L->tg) : 0;
        dc.target_dim = L->tg.dim;
        dc.target_dtype = L->tg.dtype;
    }
    memcpy(dc.mean, L->o.mean, sizeof dc.mean);
    memcpy(dc.std, L->o.std, sizeof dc.std);
    if ((st = L->dev.ops->open(&dc, &L->dev_state, err, errlen)) != FEED_OK)
        goto fail;
    if (L->dev.ops->note) { /* no failure, but the caller may want to know (the bounce path) */
        char note[sizeof L->last_error];
        L->dev.ops->note(L->dev_state, note, sizeof note);
        if (note[0])
            feed__loader_set_error(L, "%s", note);
    }
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
    if (L->fetcher) {
        L->fa = feed__fetchahead_start(L->ix.hdr, &L->sampler, L->fetcher, L->arena.lay.nslots + L->o.fetch_ahead,
                                       feed__fetcher_ranges(L->fetcher), retry_deferred, L);
        if (!L->fa || feed__schedule_gate(&L->sched, L->fa) != FEED_OK) {
            st = feed__err(FEED_E_NOMEM, err, errlen, "out of memory");
            goto fail;
        }
    }
    /* The fetch-ahead thread binds batches too, under mu, and binding reads
     * the pool: it waits until the pool is up. */
    pthread_mutex_lock(&L->mu);
    feed__schedule_start(&L->sched, 0, L->o.start_epoch, 0);
    L->create_ns[6] = feed__now_ns();
    st = feed__pool_start(&L->pool, &L->arena, L->arena.fd, L->ix.fd, L->o.workers, worker, L->o.sample_timeout_ms,
                          err, errlen);
    pthread_mutex_unlock(&L->mu);
    if (st != FEED_OK)
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
    if (!L || feed__loader_forked(L)) /* a fork's child: nothing here is its to stop or free */
        return;
    if (L->dev_started)
        L->dev.ops->stop(L->dev_state); /* its copier may still give slots back: assign */
    feed__fetchahead_stop(L->fa); /* it binds batches: before the workers stop */
    L->fa = NULL;
    if (L->pool_started)
        feed__pool_stop(&L->pool);
    feed__readahead_stop(L->ra); /* after everything that assigns slots */
    L->ra = NULL;
    if (L->dev.ops && L->dev_state)
        L->dev.ops->close(L->dev_state);
    feed__arena_close(&L->arena);
    feed__index_free(&L->ix);
    feed__remote_release(&L->remote); /* after the workers: no one reads the shards now */
    feed__fetcher_stop(L->fetcher);
    L->fetcher = NULL;
    feed__schedule_free(&L->sched);
    feed__badlog_free(&L->bad);
    feed__free(L->held_tab);
    feed__free(L->soft);
    feed__free(L->mix_draws);
    feed__free(L->label_offsets);
    feed__free(L->label_list);
    feed__free(L->post);
    feed__free(L->tg_buf);
    feed__targets_free(&L->tg);
    pthread_mutex_destroy(&L->mu);
    feed__free(L);
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
