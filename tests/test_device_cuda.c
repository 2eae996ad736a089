/*
 * test_device_cuda.c - the CUDA backend (src/device/cuda/) driven through a
 * test ring: a producer thread fills a few host slots with known pixel
 * patterns; wait_ready/release_slot are the ring's callbacks.
 *
 * Built twice:
 *  - test_device_cuda (FEED_FAKE_CUDA): the backend compiled against
 *    tests/fake_cuda.c, no GPU needed. The fake adds checks real hardware
 *    cannot make: no host slot goes back while a copy still reads it, no copy
 *    from pageable memory or across two registrations, no work issued with the
 *    wrong device current, no leaks; and it makes calls fail on demand.
 *  - test_cuda_real: the same tests against the real runtime and GPU (skipped,
 *    exit 77, without one). There the converted values are checked bitwise
 *    against feed__convert_sample() on the CPU.
 *
 * The consumer checks every batch the way a training loop uses it: wait on
 * its stream, copy the batch back (stream-ordered), release on that stream,
 * and compare the bytes only later, so a buffer reused before the release
 * event fired shows up as wrong bytes. Slots are poisoned on release, so a
 * slot returned before its copy completed shows up the same way.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "common/internal.h"
#include "device/device.h"
#include "pixels/convert.h"
#ifdef FEED_FAKE_CUDA
#include "device/cuda/convert_launch.h"
#include "fake_cuda.h"
#endif

#define NEXT_TIMEOUT_MS 20000
#define MAX_SLOTS 8

/* ---- the test ring ---------------------------------------------------------------- */

enum { SLOT_FREE, SLOT_FILLING, SLOT_READY, SLOT_TAKEN };

typedef struct tring {
    uint32_t nslots, B, H, W;
    uint64_t sample_bytes; /* host, >= H*W*3 (padding allowed) */
    uint64_t slot_bytes;
    uint8_t *arena;
    size_t arena_bytes;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct {
        uint64_t seq;
        int state;
    } slot[MAX_SLOTS];
    uint64_t fill_next; /* producer: next seq to fill */
    uint64_t fill_end;  /* producer fills seqs < fill_end */
    int quit;
    pthread_t producer;
    int producing;
    /* checks */
    long violations;
    char first_violation[160];
    uint64_t acquired, released;
    int64_t last_released; /* -1: none since start */
    /* error injection */
    int fail_armed;
    uint64_t fail_seq;
    feed_status fail_status;
} tring;

static uint32_t count_of(const tring *r, uint64_t seq)
{
    return seq % 5 == 4 ? r->B - 2 : r->B; /* some short batches */
}

static uint8_t pattern(uint64_t seq, uint32_t k, uint64_t j)
{
    uint64_t x = seq * 0x9e3779b97f4a7c15ull + k * 0xbf58476d1ce4e5b9ull + j * 0x94d049bb133111ebull;
    x ^= x >> 29;
    return (uint8_t)(x ^ (x >> 17) ^ (x >> 41));
}

static int32_t label_of(uint64_t seq, uint32_t k)
{
    return (int32_t)(seq * 1000 + k);
}

static uint8_t *slot_pixels(tring *r, uint32_t i)
{
    return r->arena + i * r->slot_bytes;
}

static int32_t *slot_labels(tring *r, uint32_t i)
{
    return (int32_t *)(slot_pixels(r, i) + FEED_ALIGN_UP(r->B * r->sample_bytes, 64));
}

static uint64_t *slot_ids(tring *r, uint32_t i)
{
    return (uint64_t *)((uint8_t *)slot_labels(r, i) + FEED_ALIGN_UP(r->B * 4, 64));
}

static uint8_t *slot_flags(tring *r, uint32_t i)
{
    return (uint8_t *)(slot_ids(r, i) + r->B);
}

static void violation(tring *r, const char *fmt, ...)
{
    if (r->violations++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->first_violation, sizeof r->first_violation, fmt, ap);
        va_end(ap);
    }
}

static void deadline(struct timespec *ts, int64_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void fill(tring *r, uint32_t i, uint64_t seq)
{
    uint32_t n = count_of(r, seq);
    uint8_t *px = slot_pixels(r, i);
    for (uint32_t k = 0; k < n; k++)
        for (uint64_t j = 0; j < r->sample_bytes; j++)
            px[k * r->sample_bytes + j] = pattern(seq, k, j);
    for (uint32_t k = 0; k < n; k++) {
        slot_labels(r, i)[k] = label_of(seq, k);
        slot_ids(r, i)[k] = seq * 100 + k;
        slot_flags(r, i)[k] = (uint8_t)((seq + k) % 3 == 0 ? FEED_SAMPLE_FLIPPED : 0);
    }
}

static void *producer_main(void *arg)
{
    tring *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        uint64_t seq = r->fill_next;
        uint32_t i = (uint32_t)(seq % r->nslots);
        while (!r->quit && (r->slot[i].state != SLOT_FREE || seq >= r->fill_end))
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->quit)
            break;
        r->slot[i].state = SLOT_FILLING;
        r->slot[i].seq = seq;
        pthread_mutex_unlock(&r->mu);
        fill(r, i, seq);
        pthread_mutex_lock(&r->mu);
        r->slot[i].state = SLOT_READY;
        r->fill_next = seq + 1;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static feed_status ring_wait_ready(void *ring, uint64_t seq, int64_t timeout_ms, feed__slot_view *v)
{
    tring *r = ring;
    uint32_t i = (uint32_t)(seq % r->nslots);
    struct timespec dl;
    if (timeout_ms > 0)
        deadline(&dl, timeout_ms);
    pthread_mutex_lock(&r->mu);
    if (r->fail_armed && r->fail_seq == seq) {
        r->fail_armed = 0;
        pthread_mutex_unlock(&r->mu);
        return r->fail_status;
    }
    while (!(r->slot[i].seq == seq && r->slot[i].state == SLOT_READY)) {
        if (r->slot[i].seq == seq && r->slot[i].state == SLOT_TAKEN) {
            violation(r, "wait_ready(%llu) while the slot is already taken", (unsigned long long)seq);
            pthread_mutex_unlock(&r->mu);
            return FEED_E_INTERNAL;
        }
        int rc = 0;
        if (timeout_ms == 0)
            rc = ETIMEDOUT;
        else if (timeout_ms < 0)
            pthread_cond_wait(&r->cv, &r->mu);
        else
            rc = pthread_cond_timedwait(&r->cv, &r->mu, &dl);
        if (rc == ETIMEDOUT && !(r->slot[i].seq == seq && r->slot[i].state == SLOT_READY)) {
            pthread_mutex_unlock(&r->mu);
            return FEED_E_TIMEOUT;
        }
    }
    r->slot[i].state = SLOT_TAKEN;
    r->acquired++;
    *v = (feed__slot_view){
        .seq = seq,
        .epoch = seq / 10,
        .index = seq % 10,
        .count = count_of(r, seq),
        .bad = (uint32_t)(seq % 3),
        .pixels = slot_pixels(r, i),
        .labels = slot_labels(r, i),
        .sample_ids = slot_ids(r, i),
        .flags = slot_flags(r, i),
    };
    pthread_mutex_unlock(&r->mu);
    return FEED_OK;
}

static void ring_release_slot(void *ring, uint64_t seq)
{
    tring *r = ring;
    uint32_t i = (uint32_t)(seq % r->nslots);
#ifdef FEED_FAKE_CUDA
    long pending = fake_cuda_pending_reads(slot_pixels(r, i), r->slot_bytes);
#else
    long pending = 0;
#endif
    pthread_mutex_lock(&r->mu);
    if (pending)
        violation(r, "slot of seq %llu released with %ld copies still reading it",
                  (unsigned long long)seq, pending);
    if (r->slot[i].seq != seq || r->slot[i].state != SLOT_TAKEN)
        violation(r, "release_slot(%llu): slot holds %llu in state %d", (unsigned long long)seq,
                  (unsigned long long)r->slot[i].seq, r->slot[i].state);
    if (r->last_released >= 0 && (uint64_t)r->last_released + 1 != seq)
        violation(r, "release_slot(%llu) after %lld: out of order", (unsigned long long)seq,
                  (long long)r->last_released);
    r->last_released = (int64_t)seq;
    memset(slot_pixels(r, i), 0xee, r->B * r->sample_bytes); /* poison */
    r->slot[i].state = SLOT_FREE;
    r->released++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static tring *ring_new(uint32_t nslots, uint32_t B, uint32_t H, uint32_t W, uint32_t pad)
{
    tring *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->nslots = nslots;
    r->B = B;
    r->H = H;
    r->W = W;
    r->sample_bytes = (uint64_t)H * W * 3 + pad;
    r->slot_bytes = FEED_ALIGN_UP(FEED_ALIGN_UP(B * r->sample_bytes, 64) + FEED_ALIGN_UP(B * 4, 64) +
                                      B * 9, 4096);
    r->arena_bytes = nslots * r->slot_bytes;
    /* like the loader's arena: shared memory mapped by the parent */
    r->arena = mmap(NULL, r->arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(r->arena != MAP_FAILED);
    pthread_mutex_init(&r->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cv, &ca);
    pthread_condattr_destroy(&ca);
    r->fill_end = UINT64_MAX;
    r->last_released = -1;
    return r;
}

/* (Re)starts the producer at seq: every slot must be free or ready (a seek
 * discards what was filled). */
static void ring_start(tring *r, uint64_t seq)
{
    pthread_mutex_lock(&r->mu);
    for (uint32_t i = 0; i < r->nslots; i++) {
        assert_int_not_equal(r->slot[i].state, SLOT_TAKEN);
        r->slot[i].state = SLOT_FREE;
        r->slot[i].seq = UINT64_MAX;
    }
    r->fill_next = seq;
    r->quit = 0;
    r->last_released = -1;
    pthread_mutex_unlock(&r->mu);
    assert_int_equal(pthread_create(&r->producer, NULL, producer_main, r), 0);
    r->producing = 1;
}

static void ring_stop(tring *r)
{
    if (!r->producing)
        return;
    pthread_mutex_lock(&r->mu);
    r->quit = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->producer, NULL);
    r->producing = 0;
}

/* Waits until the backend holds no slot (every acquired one released). */
static int ring_wait_all_released(tring *r, int64_t ms)
{
    struct timespec dl;
    deadline(&dl, ms);
    pthread_mutex_lock(&r->mu);
    while (r->acquired != r->released)
        if (pthread_cond_timedwait(&r->cv, &r->mu, &dl) == ETIMEDOUT)
            break;
    int ok = r->acquired == r->released;
    pthread_mutex_unlock(&r->mu);
    return ok;
}

static void ring_set_end(tring *r, uint64_t end)
{
    pthread_mutex_lock(&r->mu);
    r->fill_end = end;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void ring_check(tring *r)
{
    pthread_mutex_lock(&r->mu);
    long v = r->violations;
    uint64_t a = r->acquired, rel = r->released;
    pthread_mutex_unlock(&r->mu);
    if (v)
        fail_msg("%ld ring violations, first: %s", v, r->first_violation);
    assert_int_equal(a, rel);
}

static void ring_free(tring *r)
{
    ring_stop(r);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    munmap(r->arena, r->arena_bytes);
    free(r);
}

/* ---- backend setup ----------------------------------------------------------------- */

static const feed__device_ops *ops;

static feed__device_config mkcfg(tring *r, uint32_t dtype, uint32_t layout, uint32_t depth)
{
    return (feed__device_config){
        .batch_size = r->B,
        .height = r->H,
        .width = r->W,
        .channels = 3,
        .host_dtype = FEED_DTYPE_UINT8,
        .host_layout = FEED_LAYOUT_HWC,
        .host_sample_bytes = r->sample_bytes,
        .dtype = dtype,
        .layout = layout,
        .mean = {0.485f, 0.456f, 0.406f},
        .std = {0.229f, 0.224f, 0.225f},
        .depth = depth,
        .ordinal = 0,
        .sync = 0,
        .arena = r->arena,
        .arena_bytes = r->arena_bytes,
        .ring = r,
        .wait_ready = ring_wait_ready,
        .release_slot = ring_release_slot,
    };
}

static int converting(const feed__device_config *c)
{
    return !(c->dtype == c->host_dtype && c->layout == c->host_layout);
}

static uint64_t out_sample_bytes(const feed__device_config *c)
{
    return converting(c) ? (uint64_t)c->height * c->width * 3 * feed__dtype_size(c->dtype)
                         : c->host_sample_bytes;
}

/* What sample k of batch seq must look like on the device. */
static void expected_sample(const tring *r, const feed__device_config *c, uint64_t seq, uint32_t k,
                            uint8_t *out)
{
    uint8_t *src = malloc(r->sample_bytes);
    assert_non_null(src);
    for (uint64_t j = 0; j < r->sample_bytes; j++)
        src[j] = pattern(seq, k, j);
    if (!converting(c)) {
        memcpy(out, src, r->sample_bytes);
    } else {
        float scale[3], bias[3];
        feed__convert_params(c->mean, c->std, scale, bias);
        feed__convert_sample(src, c->height, c->width, c->dtype, c->layout, scale, bias, 0, out);
    }
    free(src);
}

static void check_meta(const tring *r, const feed__device_config *c, const feed_batch *b,
                       uint64_t seq)
{
    uint32_t n = count_of(r, seq);
    assert_int_equal(b->handle, seq);
    assert_int_equal(b->count, n);
    assert_int_equal(b->epoch, seq / 10);
    assert_int_equal(b->index, seq % 10);
    assert_int_equal(b->bad, seq % 3);
    assert_int_equal(b->device, c->ordinal);
    assert_int_equal(b->dtype, c->dtype);
    assert_int_equal(b->layout, c->layout);
    assert_int_equal(b->height, c->height);
    assert_int_equal(b->width, c->width);
    assert_int_equal(b->channels, 3);
    assert_int_equal(b->sample_bytes, out_sample_bytes(c));
    assert_non_null(b->data);
    assert_non_null(b->labels_device);
    assert_non_null(b->ready_event);
    for (uint32_t k = 0; k < n; k++) {
        assert_int_equal(b->labels[k], label_of(seq, k));
        assert_int_equal(b->sample_ids[k], seq * 100 + k);
        assert_int_equal(b->flags[k], (seq + k) % 3 == 0 ? FEED_SAMPLE_FLIPPED : 0);
    }
}

/* A batch copied back on the consumer's stream, compared later. */
typedef struct pending {
    uint64_t seq;
    uint32_t count;
    uint8_t *data;
    int32_t *labels;
} pending;

typedef struct consumer {
    tring *r;
    feed__device_config cfg;
    void *dev;
    cudaStream_t stream[2]; /* releases alternate between these and the legacy stream */
    uint32_t lag;           /* batches copied back before the oldest is compared */
    pending *p;
    uint32_t np;
    /* lag + 1 pinned buffers the batches are copied back into, in turn
     * (pinned: the copies stay asynchronous, as a real consumer's work) */
    uint8_t **hdata;
    int32_t **hlabels;
    uint32_t rot;
    uint8_t *expect;
} consumer;

static void consumer_init(consumer *cs, tring *r, const feed__device_config *cfg, void *dev,
                          uint32_t lag)
{
    memset(cs, 0, sizeof *cs);
    cs->r = r;
    cs->cfg = *cfg;
    cs->dev = dev;
    cs->lag = lag;
    int prev = 0;
    cudaGetDevice(&prev);
    assert_int_equal(cudaSetDevice(cfg->ordinal), cudaSuccess);
    assert_int_equal(cudaStreamCreateWithFlags(&cs->stream[0], cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaStreamCreateWithFlags(&cs->stream[1], cudaStreamNonBlocking), cudaSuccess);
    cudaSetDevice(prev);
    cs->p = calloc(lag + 1, sizeof *cs->p);
    cs->hdata = calloc(lag + 1, sizeof *cs->hdata);
    cs->hlabels = calloc(lag + 1, sizeof *cs->hlabels);
    cs->expect = malloc(out_sample_bytes(cfg));
    assert_non_null(cs->p);
    assert_non_null(cs->hdata);
    assert_non_null(cs->hlabels);
    assert_non_null(cs->expect);
    for (uint32_t i = 0; i <= lag; i++) {
        assert_int_equal(cudaMallocHost((void **)&cs->hdata[i], r->B * out_sample_bytes(cfg)),
                         cudaSuccess);
        assert_int_equal(cudaMallocHost((void **)&cs->hlabels[i], r->B * sizeof(int32_t)),
                         cudaSuccess);
    }
}

static void compare(consumer *cs, pending *p)
{
    uint64_t sb = out_sample_bytes(&cs->cfg);
    for (uint32_t k = 0; k < p->count; k++) {
        expected_sample(cs->r, &cs->cfg, p->seq, k, cs->expect);
        if (memcmp(p->data + k * sb, cs->expect, sb) != 0) {
            uint64_t j = 0;
            while (p->data[k * sb + j] == cs->expect[j])
                j++;
            fail_msg("batch %llu sample %u: byte %llu is 0x%02x, want 0x%02x",
                     (unsigned long long)p->seq, k, (unsigned long long)j, p->data[k * sb + j],
                     cs->expect[j]);
        }
        assert_int_equal(p->labels[k], label_of(p->seq, k));
    }
}

/* The consumer's streams, and the legacy stream of the batches' device. */
static void consumer_sync(consumer *cs)
{
    int prev = 0;
    cudaGetDevice(&prev);
    cudaSetDevice(cs->cfg.ordinal);
    for (int i = 0; i < 2; i++)
        assert_int_equal(cudaStreamSynchronize(cs->stream[i]), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(NULL), cudaSuccess);
    cudaSetDevice(prev);
}

static void consumer_drain(consumer *cs)
{
    consumer_sync(cs);
    for (uint32_t i = 0; i < cs->np; i++)
        compare(cs, &cs->p[i]);
    cs->np = 0;
}

static void consumer_fini(consumer *cs)
{
    consumer_drain(cs);
    for (int i = 0; i < 2; i++)
        cudaStreamDestroy(cs->stream[i]);
    for (uint32_t i = 0; i <= cs->lag; i++) {
        cudaFreeHost(cs->hdata[i]);
        cudaFreeHost(cs->hlabels[i]);
    }
    free(cs->hdata);
    free(cs->hlabels);
    free(cs->p);
    free(cs->expect);
}

/* The consumer's side of one batch: check what is on the host, queue the copy
 * back behind the ready event, release on the stream that read it. */
static void consume(consumer *cs, const feed_batch *b)
{
    check_meta(cs->r, &cs->cfg, b, b->handle);
    cudaStream_t s = b->handle % 3 == 2 ? NULL : cs->stream[b->handle % 3];
    if (cs->np == cs->lag + 1) {
        consumer_sync(cs);
        compare(cs, &cs->p[0]);
        memmove(cs->p, cs->p + 1, cs->lag * sizeof *cs->p);
        cs->np--;
    }
    pending *p = &cs->p[cs->np++];
    p->seq = b->handle;
    p->count = b->count;
    p->data = cs->hdata[cs->rot % (cs->lag + 1)];
    p->labels = cs->hlabels[cs->rot % (cs->lag + 1)];
    cs->rot++;
    int prev = 0;
    cudaGetDevice(&prev);
    assert_int_equal(ops->wait(cs->dev, b, s), FEED_OK);
    cudaSetDevice(b->device); /* a legacy-stream copy goes to the current device's stream */
    assert_int_equal(cudaMemcpyAsync(p->data, b->data, b->count * b->sample_bytes,
                                     cudaMemcpyDeviceToHost, s),
                     cudaSuccess);
    assert_int_equal(cudaMemcpyAsync(p->labels, b->labels_device, b->count * sizeof(int32_t),
                                     cudaMemcpyDeviceToHost, s),
                     cudaSuccess);
    cudaSetDevice(prev);
    assert_int_equal(ops->release(cs->dev, b, s), FEED_OK);
}

static void run(consumer *cs, uint64_t from, uint64_t n)
{
    for (uint64_t seq = from; seq < from + n; seq++) {
        feed_batch b = {.struct_size = sizeof b};
        feed_status st = ops->next(cs->dev, seq, NEXT_TIMEOUT_MS, &b);
        if (st != FEED_OK)
            fail_msg("next(%llu): %s", (unsigned long long)seq, feed_status_name(st));
        consume(cs, &b);
    }
}

static void check_no_leaks(void)
{
#ifdef FEED_FAKE_CUDA
    fake_cuda_counters c;
    fake_cuda_get_counters(&c);
    assert_int_equal(c.live_device, 0);
    assert_int_equal(c.live_pinned, 0);
    assert_int_equal(c.live_events, 0);
    assert_int_equal(c.live_registered, 0);
#endif
}

static void check_dma_discipline(void)
{
#ifdef FEED_FAKE_CUDA
    fake_cuda_counters c;
    fake_cuda_get_counters(&c);
    if (c.pageable_h2d)
        fail_msg("%ld of %ld H2D copies from pageable memory", c.pageable_h2d, c.h2d_copies);
    assert_int_equal(c.pageable_h2d, 0);
    assert_int_equal(c.straddling_h2d, 0);
    assert_int_equal(c.wrong_device_ops, 0);
#endif
}

static int setup(void **state)
{
#ifdef FEED_FAKE_CUDA
    fake_cuda_reset();
#endif
    unsetenv("FEED_FORCE_BOUNCE");
    unsetenv("FEED_CUDA_REGISTER_CHUNK");
    cudaSetDevice(0);
    return 0;
}

static int teardown(void **state)
{
    unsetenv("FEED_FORCE_BOUNCE");
    unsetenv("FEED_CUDA_REGISTER_CHUNK");
    return 0;
}

static void *open_ok(const feed__device_config *cfg)
{
    void *dev = NULL;
    char err[256] = "";
    feed_status st = ops->open(cfg, &dev, err, sizeof err);
    if (st != FEED_OK)
        fail_msg("open: %s: %s", feed_status_name(st), err);
    return dev;
}

/* Runs 40 batches from 0 through one configuration and checks everything.
 * Samples are h x w, padded to h*w*3 + 13 bytes in the host slot. */
static void run_shape(uint32_t dtype, uint32_t layout, uint32_t depth, uint32_t nslots,
                      uint32_t lag, const char *want_pinned, uint32_t h, uint32_t w)
{
#ifdef FEED_FAKE_CUDA
    fake_cuda_counters c0;
    fake_cuda_get_counters(&c0);
#endif
    tring *r = ring_new(nslots, 5, h, w, 13);
    feed__device_config cfg = mkcfg(r, dtype, layout, depth);
    void *dev = open_ok(&cfg);
    consumer cs;
    consumer_init(&cs, r, &cfg, dev, lag);
    ring_start(r, 0);
#ifdef FEED_FAKE_CUDA
    fake_cuda_counters hot0, hot1;
    fake_cuda_get_counters(&hot0);
#endif
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    run(&cs, 0, 40);
    consumer_drain(&cs);
#ifdef FEED_FAKE_CUDA
    /* no cudaFree, cudaMallocHost or cudaHostRegister (each may synchronise
     * the whole device) between open and stop */
    fake_cuda_get_counters(&hot1);
    assert_int_equal(hot1.implicit_syncs, hot0.implicit_syncs);
#endif

    feed_stats st = {.struct_size = sizeof st};
    ops->stats(dev, &st);
    assert_string_equal(st.backend, "cuda:0");
    assert_string_equal(st.pinned, want_pinned);
    uint64_t bytes = 0;
    for (uint64_t s = 0; s < 40; s++)
        bytes += count_of(r, s) * (r->sample_bytes + 4);
    /* the copier may have copied ahead: at most depth more batches */
    assert_true(st.h2d_bytes >= bytes);
    assert_true(st.h2d_bytes <= bytes + depth * r->B * (r->sample_bytes + 4));
    assert_true(st.copy_ns > 0);

    ops->stop(dev);
    ring_check(r);
    consumer_fini(&cs);
    ops->close(dev);
    ring_free(r);
    check_no_leaks();
    check_dma_discipline();
#ifdef FEED_FAKE_CUDA
    fake_cuda_counters c;
    fake_cuda_get_counters(&c);
    if (converting(&cfg))
        assert_true(c.kernels - c0.kernels >= 40);
    else
        assert_int_equal(c.kernels - c0.kernels, 0);
    assert_int_equal(c.live_streams, 0);
#endif
}

static void run_config(uint32_t dtype, uint32_t layout, uint32_t depth, uint32_t nslots,
                       uint32_t lag, const char *want_pinned)
{
    run_shape(dtype, layout, depth, nslots, lag, want_pinned, 6, 7);
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_uint8_hwc_passthrough(void **state)
{
    run_config(FEED_DTYPE_UINT8, FEED_LAYOUT_HWC, 3, 4, 2, "registered");
}

static void test_uint8_chw(void **state)
{
    run_config(FEED_DTYPE_UINT8, FEED_LAYOUT_CHW, 3, 4, 2, "registered");
}

static void test_float32_chw(void **state)
{
    run_config(FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 3, 4, 2, "registered");
}

static void test_float32_hwc(void **state)
{
    run_config(FEED_DTYPE_FLOAT32, FEED_LAYOUT_HWC, 2, 3, 1, "registered");
}

static void test_float16_hwc(void **state)
{
    run_config(FEED_DTYPE_FLOAT16, FEED_LAYOUT_HWC, 3, 4, 3, "registered");
}

static void test_bfloat16_chw(void **state)
{
    run_config(FEED_DTYPE_BFLOAT16, FEED_LAYOUT_CHW, 4, 2, 2, "registered");
}

/* depth 1 and two slots: the tightest pipeline must still flow. With one
 * buffer, the next batch's labels are written into the pinned array the
 * previous batch's copy may still be reading: slow copies make that show. */
static void test_depth1_two_slots(void **state)
{
#ifdef FEED_FAKE_CUDA
    fake_cuda_set_max_delay_us(2000);
#endif
    run_config(FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 1, 2, 0, "registered");
}

static void test_bounce_forced(void **state)
{
    setenv("FEED_FORCE_BOUNCE", "1", 1);
    run_config(FEED_DTYPE_FLOAT16, FEED_LAYOUT_CHW, 3, 4, 2, "bounce");
    run_config(FEED_DTYPE_UINT8, FEED_LAYOUT_HWC, 2, 3, 1, "bounce");
}

#ifdef FEED_FAKE_CUDA
/* cudaHostRegister fails (memlock limit): the backend falls back to bounce
 * buffers, copies only from pinned memory, and registers nothing. */
static void test_bounce_when_register_fails(void **state)
{
    fake_cuda_fail_register(1);
    run_config(FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 3, 4, 2, "bounce");
    fake_cuda_counters c;
    fake_cuda_get_counters(&c);
    assert_true(c.register_calls >= 1);
}

/* The memlock limit reached half-way through the arena's registration:
 * what was registered is unregistered, the bounce path is taken and says
 * where it stopped. */
static void test_register_limit_midway(void **state)
{
    setenv("FEED_CUDA_REGISTER_CHUNK", "4096", 1);
    fake_cuda_set_register_limit(2 * 4096);
    tring *r = ring_new(4, 5, 20, 30, 13); /* 3 pages a slot */
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 2);
    void *dev = open_ok(&cfg);
    feed_stats st = {.struct_size = sizeof st};
    ops->stats(dev, &st);
    assert_string_equal(st.pinned, "bounce");
    fake_cuda_counters c;
    fake_cuda_get_counters(&c);
    assert_int_equal(c.register_calls, 3);
    assert_int_equal(c.live_registered, 0);
    char note[512];
    ops->note(dev, note, sizeof note);
    if (!strstr(note, "cudaHostRegister of 4096 bytes at arena offset 8192: "))
        fail_msg("note: '%s'", note);
    ops->close(dev);
    ring_free(r);
    check_no_leaks();
}

/* The arena registered in 4 KiB pieces: no copy may straddle two of them
 * (checked by run_config via straddling_h2d). */
static void test_register_chunks(void **state)
{
    setenv("FEED_CUDA_REGISTER_CHUNK", "4096", 1);
    /* 5 samples of 20*30*3 + 13 bytes: a batch spans 3 pages */
    run_shape(FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 3, 4, 2, "registered", 20, 30);
    fake_cuda_counters c;
    fake_cuda_get_counters(&c);
    assert_int_equal(c.register_calls, 4 * 3); /* one per page of the arena */
    /* more H2D copies than 2 a batch: the pixels were cut at page edges */
    assert_true(c.h2d_copies > 2 * 40);
}
#endif

/* Holding depth batches: next says BUSY at once, and the copier, blocked on a
 * device buffer, has given every host slot back. Held data stays intact. */
static void test_hold_busy(void **state)
{
    tring *r = ring_new(4, 4, 5, 5, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 2);
    void *dev = open_ok(&cfg);
    consumer cs;
    consumer_init(&cs, r, &cfg, dev, 4);
    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    feed_batch b0 = {.struct_size = sizeof b0}, b1 = b0, b2 = b0;
    assert_int_equal(ops->next(dev, 0, NEXT_TIMEOUT_MS, &b0), FEED_OK);
    assert_int_equal(ops->next(dev, 1, NEXT_TIMEOUT_MS, &b1), FEED_OK);
    assert_int_equal(ops->next(dev, 2, NEXT_TIMEOUT_MS, &b2), FEED_E_BUSY);
    assert_int_equal(ops->next(dev, 2, 0, &b2), FEED_E_BUSY);
    assert_true(ring_wait_all_released(r, 10000));
    consume(&cs, &b0); /* releases 0: batch 2 can come */
    assert_int_equal(ops->next(dev, 2, NEXT_TIMEOUT_MS, &b2), FEED_OK);
    consume(&cs, &b1);
    consume(&cs, &b2);
    run(&cs, 3, 10);
    consumer_drain(&cs);
    ops->stop(dev);
    ring_check(r);
    consumer_fini(&cs);
    ops->close(dev);
    ring_free(r);
    check_no_leaks();
    check_dma_discipline();
}

/* stop() with copies queued behind long simulated latencies, right after
 * start and in the middle of a run; then close() straight after a start. */
static void test_stop_in_flight(void **state)
{
#ifdef FEED_FAKE_CUDA
    fake_cuda_set_max_delay_us(3000);
#endif
    tring *r = ring_new(4, 3, 16, 16, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 3);
    void *dev = open_ok(&cfg);
    consumer cs;
    consumer_init(&cs, r, &cfg, dev, 1);

    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    ops->stop(dev); /* at once */
    ring_stop(r);
    ring_check(r);
#ifdef FEED_FAKE_CUDA
    assert_int_equal(fake_cuda_pending_reads(r->arena, r->arena_bytes), 0);
#endif

    for (int round = 0; round < 3; round++) {
        uint64_t from = 50 + 10 * (uint64_t)round;
        ring_start(r, from);
        assert_int_equal(ops->start(dev, from), FEED_OK);
        run(&cs, from, 2);
        consumer_drain(&cs);
        ops->stop(dev); /* the copier is ahead with copies in flight */
        ring_stop(r);
        ring_check(r);
#ifdef FEED_FAKE_CUDA
        assert_int_equal(fake_cuda_pending_reads(r->arena, r->arena_bytes), 0);
#endif
    }
    consumer_fini(&cs);

    ring_start(r, 7);
    assert_int_equal(ops->start(dev, 7), FEED_OK);
    ops->close(dev); /* close stops first */
    ring_stop(r);
    ring_check(r);
    ring_free(r);
    check_no_leaks();
    check_dma_discipline();
}

/* Restart at another position (seek), twice, with correct bytes each time. */
static void test_restart_seek(void **state)
{
    tring *r = ring_new(3, 4, 8, 6, 5);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT16, FEED_LAYOUT_CHW, 3);
    void *dev = open_ok(&cfg);
    consumer cs;
    consumer_init(&cs, r, &cfg, dev, 2);
    const uint64_t starts[] = {0, 1000, 3};
    for (size_t i = 0; i < FEED_ARRAY_SIZE(starts); i++) {
        ring_start(r, starts[i]);
        assert_int_equal(ops->start(dev, starts[i]), FEED_OK);
        assert_int_equal(ops->start(dev, starts[i]), FEED_E_INVALID); /* already started */
        run(&cs, starts[i], 12);
        consumer_drain(&cs);
        ops->stop(dev);
        ring_stop(r);
        ring_check(r);
    }
    consumer_fini(&cs);
    ops->close(dev);
    ring_free(r);
    check_no_leaks();
    check_dma_discipline();
}

/* sync=1: the data is complete when next() returns. */
static void test_sync_mode(void **state)
{
#ifdef FEED_FAKE_CUDA
    fake_cuda_set_max_delay_us(1000);
#endif
    tring *r = ring_new(4, 3, 8, 8, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_BFLOAT16, FEED_LAYOUT_HWC, 2);
    cfg.sync = 1;
    void *dev = open_ok(&cfg);
    consumer cs;
    consumer_init(&cs, r, &cfg, dev, 1);
    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    for (uint64_t seq = 0; seq < 12; seq++) {
        feed_batch b = {.struct_size = sizeof b};
        assert_int_equal(ops->next(dev, seq, NEXT_TIMEOUT_MS, &b), FEED_OK);
        assert_int_equal(cudaEventQuery((cudaEvent_t)b.ready_event), cudaSuccess);
        consume(&cs, &b);
    }
    consumer_drain(&cs);
    ops->stop(dev);
    ring_check(r);
    consumer_fini(&cs);
    ops->close(dev);
    ring_free(r);
    check_no_leaks();
}

/* An async error of the ring reaches next() once; asking again delivers the
 * batch. A ring that has nothing ready times out, and polls. */
static void test_errors_and_timeouts(void **state)
{
    tring *r = ring_new(4, 3, 4, 4, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_HWC, 3);
    void *dev = open_ok(&cfg);
    consumer cs;
    consumer_init(&cs, r, &cfg, dev, 0);
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(ops->next(dev, 0, 0, &b), FEED_E_INVALID); /* not started */

    pthread_mutex_lock(&r->mu);
    r->fail_armed = 1;
    r->fail_seq = 3;
    r->fail_status = FEED_E_WORKER;
    pthread_mutex_unlock(&r->mu);
    ring_set_end(r, 6);
    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    run(&cs, 0, 3);
    assert_int_equal(ops->next(dev, 4, 0, &b), FEED_E_INVALID); /* out of order */
    assert_int_equal(ops->next(dev, 3, NEXT_TIMEOUT_MS, &b), FEED_E_WORKER);
    run(&cs, 3, 3);
    /* the producer stops at 6: the copier, waiting for it, holds no slot
     * (else the workers could not refill the one it holds) */
    assert_int_equal(ops->next(dev, 6, 0, &b), FEED_E_TIMEOUT);
    assert_int_equal(ops->next(dev, 6, 30, &b), FEED_E_TIMEOUT);
    assert_true(ring_wait_all_released(r, 10000));
    ring_set_end(r, UINT64_MAX);
    run(&cs, 6, 4);

    /* releasing twice, or a batch never handed out */
    feed_batch b2 = {.struct_size = sizeof b2};
    assert_int_equal(ops->next(dev, 10, NEXT_TIMEOUT_MS, &b2), FEED_OK);
    feed_batch stale = b2;
    stale.handle = 7;
    assert_int_equal(ops->release(dev, &stale, NULL), FEED_E_INVALID);
    assert_int_equal(ops->wait(dev, &stale, NULL), FEED_E_INVALID);
    assert_int_equal(ops->release(dev, &b2, NULL), FEED_OK);
    assert_int_equal(ops->release(dev, &b2, NULL), FEED_E_INVALID);

    consumer_drain(&cs);
    ops->stop(dev);
    ring_check(r);
    consumer_fini(&cs);
    ops->close(dev);
    ring_free(r);
    check_no_leaks();
}

static void test_bad_config(void **state)
{
    tring *r = ring_new(2, 2, 4, 4, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 2);
    void *dev = (void *)1;
    char err[256] = "";
    feed__device_config c = cfg;
    c.host_dtype = FEED_DTYPE_FLOAT32; /* the kernel only reads uint8 HWC */
    c.layout = FEED_LAYOUT_HWC;
    c.host_layout = FEED_LAYOUT_CHW;
    c.host_sample_bytes = 4 * 4 * 3 * 4;
    assert_int_equal(ops->open(&c, &dev, err, sizeof err), FEED_E_UNSUPPORTED);
    assert_null(dev);
    assert_true(strlen(err) > 0);
    c = cfg;
    c.host_sample_bytes = 10;
    assert_int_equal(ops->open(&c, &dev, err, sizeof err), FEED_E_INVALID);
    c = cfg;
    c.ordinal = 99;
    assert_int_equal(ops->open(&c, &dev, err, sizeof err), FEED_E_INVALID);
    assert_non_null(strstr(err, "cuda:99"));
    ops->close(NULL);
    ring_free(r);
    check_no_leaks();
}

#ifdef FEED_FAKE_CUDA
/* Device 1 of 2: all work is issued with device 1 current (the fake counts
 * the rest), and the caller's current device is left as it was. */
static void test_other_device(void **state)
{
    fake_cuda_set_device_count(2);
    tring *r = ring_new(4, 3, 4, 5, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 3);
    cfg.ordinal = 1;
    assert_int_equal(cudaSetDevice(0), cudaSuccess);
    fake_cuda_thread_take_set_mask();
    void *dev = open_ok(&cfg);
    /* open did its CUDA work without touching this thread's current device */
    assert_int_equal(fake_cuda_thread_take_set_mask(), 0);
    consumer cs;
    consumer_init(&cs, r, &cfg, dev, 2);
    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    /* explicit streams: next/wait/release leave the current device alone */
    fake_cuda_thread_take_set_mask();
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(ops->next(dev, 0, NEXT_TIMEOUT_MS, &b), FEED_OK);
    assert_int_equal(b.device, 1);
    assert_int_equal(ops->wait(dev, &b, cs.stream[0]), FEED_OK);
    assert_int_equal(ops->release(dev, &b, cs.stream[0]), FEED_OK);
    assert_int_equal(fake_cuda_thread_take_set_mask(), 0);
    /* the legacy stream is the batch's device's: our context is pushed for
     * the call and popped after, the current device never set */
    assert_int_equal(ops->next(dev, 1, NEXT_TIMEOUT_MS, &b), FEED_OK);
    assert_int_equal(ops->release(dev, &b, NULL), FEED_OK);
    assert_int_equal(fake_cuda_thread_take_set_mask(), 0);
    int cur = -1;
    cudaGetDevice(&cur);
    assert_int_equal(cur, 0);
    run(&cs, 2, 15);
    cudaGetDevice(&cur);
    assert_int_equal(cur, 0);
    consumer_drain(&cs);
    fake_cuda_thread_take_set_mask();
    ops->stop(dev);
    ring_check(r);
    consumer_fini(&cs);
    fake_cuda_thread_take_set_mask();
    ops->close(dev);
    assert_int_equal(fake_cuda_thread_take_set_mask(), 0);
    ring_free(r);
    check_no_leaks();
    check_dma_discipline();
}

static void test_no_device(void **state)
{
    fake_cuda_set_device_count(0);
    tring *r = ring_new(2, 2, 4, 4, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 2);
    void *dev = NULL;
    char err[256] = "";
    assert_int_equal(feed__device_cuda_count(), 0);
    assert_int_equal(ops->open(&cfg, &dev, err, sizeof err), FEED_E_DEVICE);
    assert_null(dev);
    fake_cuda_set_device_count(3);
    assert_int_equal(feed__device_cuda_count(), 3);
    ring_free(r);
}

/* Every allocation open makes, failing in turn (CUDA's and the library's):
 * a clean error, nothing leaked. */
static void test_open_failures(void **state)
{
    tring *r = ring_new(2, 2, 4, 4, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT16, FEED_LAYOUT_CHW, 3);
    int opened = 0;
    for (long n = 0; !opened; n++) {
        assert_true(n < 1000);
        fake_cuda_fail_alloc_after(n);
        void *dev = (void *)1;
        char err[256] = "";
        feed_status st = ops->open(&cfg, &dev, err, sizeof err);
        fake_cuda_fail_alloc_after(-1);
        if (st == FEED_OK) {
            opened = 1;
            ops->close(dev);
        } else {
            assert_true(st == FEED_E_NOMEM || st == FEED_E_DEVICE);
            assert_null(dev);
            assert_true(strlen(err) > 0);
        }
        check_no_leaks();
    }
    opened = 0;
    for (long n = 0; !opened; n++) {
        assert_true(n < 1000);
        feed__alloc_fail_after(n);
        void *dev = (void *)1;
        char err[256] = "";
        feed_status st = ops->open(&cfg, &dev, err, sizeof err);
        feed__alloc_fail_after(-1);
        if (st == FEED_OK) {
            opened = 1;
            ops->close(dev);
        } else {
            assert_int_equal(st, FEED_E_NOMEM);
            assert_null(dev);
        }
        check_no_leaks();
    }
    ring_free(r);
}

/* A copy fails mid-run (a sticky device error): next() reports it, every
 * host slot still comes back, stop and close are clean. */
static void test_copy_failure(void **state)
{
    tring *r = ring_new(4, 3, 4, 4, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 3);
    void *dev = open_ok(&cfg);
    consumer cs;
    consumer_init(&cs, r, &cfg, dev, 1);
    fake_cuda_fail_memcpy_after(12); /* two copies a batch: fails in batch 6 */
    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    feed_status st = FEED_OK;
    uint64_t seq = 0;
    for (; seq < 20 && st == FEED_OK; seq++) {
        feed_batch b = {.struct_size = sizeof b};
        st = ops->next(dev, seq, NEXT_TIMEOUT_MS, &b);
        if (st == FEED_OK)
            consume(&cs, &b);
    }
    assert_int_equal(st, FEED_E_DEVICE);
    assert_true(seq >= 6 && seq <= 8);
    char why[256];
    ops->error(dev, why, sizeof why); /* what the loader puts in last_error */
    if (!strstr(why, "cuda:0: copy: "))
        fail_msg("error: '%s'", why);
    consumer_drain(&cs);
    fake_cuda_fail_memcpy_after(-1);
    assert_true(ring_wait_all_released(r, 10000));
    ops->stop(dev);
    ring_check(r);
    assert_int_equal(ops->start(dev, 0), FEED_E_DEVICE); /* sticky */
    consumer_fini(&cs);
    ops->close(dev);
    ring_free(r);
    check_no_leaks();
}

/* ---- what real hardware does behind a program's back --------------------------- */

static void run_on_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
}

typedef struct ctx_case {
    int ordinal;
    tring *r;
    cudaStream_t s; /* the application's stream on device ordinal */
    int has_ctx_after, dev_after;
    feed_status st[3];
} ctx_case;

/* The application's setup: a stream on the loader's device. */
static void *app_stream_make(void *arg)
{
    ctx_case *c = arg;
    if (cudaSetDevice(c->ordinal) != cudaSuccess ||
        cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking) != cudaSuccess)
        c->s = NULL;
    return NULL;
}

static void *app_stream_free(void *arg)
{
    ctx_case *c = arg;
    cudaSetDevice(c->ordinal);
    cudaStreamDestroy(c->s);
    return NULL;
}

/* A caller thread that never chose a device: open, batches waited for and
 * released on the legacy, the per-thread and an explicit stream, close. */
static void *ctx_caller(void *arg)
{
    ctx_case *c = arg;
    feed__device_config cfg = mkcfg(c->r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 2);
    cfg.ordinal = c->ordinal;
    void *dev = NULL;
    char err[256];
    c->st[0] = ops->open(&cfg, &dev, err, sizeof err);
    if (c->st[0] != FEED_OK)
        return NULL;
    ring_start(c->r, 0);
    c->st[1] = ops->start(dev, 0);
    for (uint64_t seq = 0; seq < 9 && c->st[1] == FEED_OK && c->st[2] == FEED_OK; seq++) {
        feed_batch b = {.struct_size = sizeof b};
        void *streams[] = {NULL, (void *)cudaStreamPerThread, c->s};
        void *s = streams[seq % 3];
        c->st[2] = ops->next(dev, seq, NEXT_TIMEOUT_MS, &b);
        if (c->st[2] == FEED_OK)
            c->st[2] = ops->wait(dev, &b, s);
        if (c->st[2] == FEED_OK)
            c->st[2] = ops->release(dev, &b, s);
    }
    ops->stop(dev);
    ops->close(dev);
    ring_stop(c->r);
    c->has_ctx_after = fake_cuda_thread_has_context();
    cudaGetDevice(&c->dev_after);
    return NULL;
}

/* A rank on cuda:k of 3 devices: no thread (the caller's, which never
 * chose a device, the copier, open's and close's) makes a context on any
 * other device; the caller's thread is left with no context at all. */
static void test_contexts_only_on_our_device(void **state)
{
    for (int k = 0; k < 3; k++) {
        fake_cuda_reset();
        fake_cuda_set_device_count(3);
        assert_int_equal(fake_cuda_context_mask(), 0);
        ctx_case c = {.ordinal = k, .r = ring_new(4, 3, 4, 5, 0)};
        run_on_thread(app_stream_make, &c);
        assert_non_null(c.s);
        assert_int_equal(fake_cuda_context_mask(), 1u << k);
        run_on_thread(ctx_caller, &c);
        assert_int_equal(c.st[0], FEED_OK);
        assert_int_equal(c.st[1], FEED_OK);
        assert_int_equal(c.st[2], FEED_OK);
        if (fake_cuda_context_mask() != 1u << k)
            fail_msg("cuda:%d: contexts made on devices 0x%x", k, fake_cuda_context_mask());
        assert_int_equal(c.has_ctx_after, 0);
        assert_int_equal(c.dev_after, 0);
        run_on_thread(app_stream_free, &c);
        ring_check(c.r);
        ring_free(c.r);
        check_no_leaks();
    }
}

/* A batch read on two streams (images on one, labels on the other) and
 * released on the second: the buffer is not refilled while the first still
 * reads it. s1 is held (its copy "still running") until someone waits. */
static void test_release_waits_for_every_stream(void **state)
{
    tring *r = ring_new(2, 3, 4, 5, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_UINT8, FEED_LAYOUT_HWC, 1);
    void *dev = open_ok(&cfg);
    cudaStream_t s1, s2;
    uint8_t *hb;
    int32_t *hl;
    const size_t bytes = r->B * r->sample_bytes;
    assert_int_equal(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaMallocHost((void **)&hb, bytes), cudaSuccess);
    assert_int_equal(cudaMallocHost((void **)&hl, r->B * sizeof *hl), cudaSuccess);
    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    feed_batch b0 = {.struct_size = sizeof b0}, b1 = b0;
    assert_int_equal(ops->next(dev, 0, NEXT_TIMEOUT_MS, &b0), FEED_OK);
    assert_int_equal(ops->wait(dev, &b0, s1), FEED_OK);
    fake_cuda_hold_stream(s1);
    assert_int_equal(cudaMemcpyAsync(hb, b0.data, b0.count * b0.sample_bytes, cudaMemcpyDeviceToHost, s1),
                     cudaSuccess);
    assert_int_equal(ops->wait(dev, &b0, s2), FEED_OK);
    assert_int_equal(cudaMemcpyAsync(hl, b0.labels_device, b0.count * sizeof *hl, cudaMemcpyDeviceToHost, s2),
                     cudaSuccess);
    assert_int_equal(ops->release(dev, &b0, s2), FEED_OK);
    assert_int_equal(ops->next(dev, 1, NEXT_TIMEOUT_MS, &b1), FEED_OK);
    assert_ptr_equal(b1.data, b0.data); /* depth 1: the same buffer */
    assert_int_equal(cudaEventSynchronize((cudaEvent_t)b1.ready_event), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s1), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s2), cudaSuccess);
    for (uint32_t k = 0; k < count_of(r, 0); k++) {
        for (uint64_t j = 0; j < r->sample_bytes; j++)
            if (hb[k * r->sample_bytes + j] != pattern(0, k, j))
                fail_msg("batch 0 sample %u byte %llu: overwritten while a stream still read it", k,
                         (unsigned long long)j);
        assert_int_equal(hl[k], label_of(0, k));
    }
    assert_int_equal(ops->release(dev, &b1, s2), FEED_OK);
    /* one release event a stream, 8 streams a batch: a ninth is refused, a
     * stream already waited on is not a new one */
    feed_batch b2 = {.struct_size = sizeof b2};
    cudaStream_t many[9];
    assert_int_equal(ops->next(dev, 2, NEXT_TIMEOUT_MS, &b2), FEED_OK);
    for (int i = 0; i < 9; i++) {
        assert_int_equal(cudaStreamCreateWithFlags(&many[i], cudaStreamNonBlocking), cudaSuccess);
        assert_int_equal(ops->wait(dev, &b2, many[i]), i < 8 ? FEED_OK : FEED_E_BUSY);
    }
    assert_int_equal(ops->wait(dev, &b2, many[3]), FEED_OK);
    /* counted on the caller's streams: the copier may record its next batch's events meanwhile */
    long before[9];
    for (int i = 0; i < 9; i++)
        before[i] = fake_cuda_stream_records(many[i]);
    assert_int_equal(ops->release(dev, &b2, many[0]), FEED_OK);
    for (int i = 0; i < 9; i++) /* one on each stream waited on, many[0] once; none on the refused ninth */
        assert_int_equal(fake_cuda_stream_records(many[i]) - before[i], i < 8 ? 1 : 0);
    for (int i = 0; i < 9; i++)
        cudaStreamDestroy(many[i]);
    ops->stop(dev);
    ops->close(dev);
    ring_stop(r);
    ring_check(r);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    cudaFreeHost(hb);
    cudaFreeHost(hl);
    ring_free(r);
    check_no_leaks();
}

/* The consumer on another device than the batch (peer access): no event of
 * ours can be recorded on its stream; release still orders the reuse after
 * its work, succeeds, and waits for nothing on the host (an event of the
 * stream's own context, which our copy stream may wait for). */
static void test_release_on_other_device(void **state)
{
    fake_cuda_set_device_count(2);
    tring *r = ring_new(2, 3, 4, 5, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_UINT8, FEED_LAYOUT_HWC, 1);
    void *dev = open_ok(&cfg);
    cudaStream_t s;
    uint8_t *hb;
    const size_t bytes = r->B * r->sample_bytes;
    assert_int_equal(cudaSetDevice(1), cudaSuccess);
    assert_int_equal(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaMallocHost((void **)&hb, bytes), cudaSuccess);
    memset(hb, 0xee, bytes);
    uint8_t *untouched = malloc(bytes);
    memset(untouched, 0xee, bytes);
    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    feed_batch b0 = {.struct_size = sizeof b0}, b1 = b0;
    assert_int_equal(ops->next(dev, 0, NEXT_TIMEOUT_MS, &b0), FEED_OK);
    assert_int_equal(ops->wait(dev, &b0, s), FEED_OK); /* a wait may cross devices */
    fake_cuda_hold_stream(s);
    assert_int_equal(cudaMemcpyAsync(hb, b0.data, b0.count * b0.sample_bytes, cudaMemcpyDeviceToHost, s),
                     cudaSuccess);
    assert_int_equal(ops->release(dev, &b0, s), FEED_OK);
    assert_memory_equal(hb, untouched, bytes); /* s was not waited for on the host */
    free(untouched);
    assert_int_equal(ops->next(dev, 1, NEXT_TIMEOUT_MS, &b1), FEED_OK);
    assert_int_equal(cudaEventSynchronize((cudaEvent_t)b1.ready_event), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    for (uint32_t k = 0; k < count_of(r, 0); k++)
        for (uint64_t j = 0; j < r->sample_bytes; j++)
            if (hb[k * r->sample_bytes + j] != pattern(0, k, j))
                fail_msg("batch 0 sample %u byte %llu: overwritten while the other device's stream read it", k,
                         (unsigned long long)j);
    assert_int_equal(ops->release(dev, &b1, s), FEED_OK);
    ops->stop(dev);
    ops->close(dev);
    ring_stop(r);
    ring_check(r);
    cudaStreamDestroy(s);
    cudaFreeHost(hb);
    cudaSetDevice(0);
    ring_free(r);
    check_no_leaks();
}

typedef struct pts_reader {
    void *dev;
    feed_batch *b;
    uint8_t *hb;
    feed_status st;
    cudaError_t e;
} pts_reader;

static void *pts_read(void *arg)
{
    pts_reader *x = arg;
    cudaSetDevice(0);
    x->st = ops->wait(x->dev, x->b, (void *)cudaStreamPerThread);
    fake_cuda_hold_stream(cudaStreamPerThread);
    x->e = cudaMemcpyAsync(x->hb, x->b->data, x->b->count * x->b->sample_bytes, cudaMemcpyDeviceToHost,
                           cudaStreamPerThread);
    return NULL;
}

/* A batch read on one thread's per-thread default stream and released on
 * another thread (as a DLPack deleter's release deferred to the loader's
 * thread): that stream cannot be named from the releasing thread, and the
 * buffer is still not refilled before its copy ran. */
static void test_release_after_another_threads_stream(void **state)
{
    tring *r = ring_new(2, 3, 4, 5, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_UINT8, FEED_LAYOUT_HWC, 1);
    void *dev = open_ok(&cfg);
    uint8_t *hb;
    assert_int_equal(cudaMallocHost((void **)&hb, r->B * r->sample_bytes), cudaSuccess);
    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    feed_batch b0 = {.struct_size = sizeof b0}, b1 = b0;
    assert_int_equal(ops->next(dev, 0, NEXT_TIMEOUT_MS, &b0), FEED_OK);
    pts_reader x = {.dev = dev, .b = &b0, .hb = hb};
    run_on_thread(pts_read, &x);
    assert_int_equal(x.st, FEED_OK);
    assert_int_equal(x.e, cudaSuccess);
    /* released on a non-blocking stream (the legacy stream would wait for
     * the per-thread one by itself) */
    cudaStream_t s;
    assert_int_equal(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(ops->release(dev, &b0, s), FEED_OK);
    assert_int_equal(ops->next(dev, 1, NEXT_TIMEOUT_MS, &b1), FEED_OK);
    assert_int_equal(cudaEventSynchronize((cudaEvent_t)b1.ready_event), cudaSuccess);
    /* the reading thread is gone, its stream held: its copy has run by now
     * only if release waited for it (else hb is still garbage) */
    for (uint32_t k = 0; k < count_of(r, 0); k++)
        for (uint64_t j = 0; j < r->sample_bytes; j++)
            if (hb[k * r->sample_bytes + j] != pattern(0, k, j))
                fail_msg("batch 0 sample %u byte %llu: overwritten before another thread's stream read it", k,
                         (unsigned long long)j);
    assert_int_equal(ops->release(dev, &b1, s), FEED_OK);
    ops->stop(dev);
    ops->close(dev);
    ring_stop(r);
    ring_check(r);
    cudaStreamDestroy(s);
    cudaFreeHost(hb);
    ring_free(r);
    check_no_leaks();
}

/* close right after a release whose stream still reads the batch: the
 * device buffers are freed only after that work (cudaFree "may" synchronise,
 * which the fake does not). */
static void test_close_waits_for_release(void **state)
{
    tring *r = ring_new(2, 3, 4, 5, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 3);
    void *dev = open_ok(&cfg);
    cudaStream_t s;
    uint8_t *hb;
    const size_t bytes = r->B * out_sample_bytes(&cfg);
    assert_int_equal(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaMallocHost((void **)&hb, bytes), cudaSuccess);
    ring_set_end(r, 1); /* one batch: the copier touches no buffer after it */
    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(ops->next(dev, 0, NEXT_TIMEOUT_MS, &b), FEED_OK);
    fake_cuda_hold_stream(s);
    assert_int_equal(ops->wait(dev, &b, s), FEED_OK);
    assert_int_equal(cudaMemcpyAsync(hb, b.data, b.count * b.sample_bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
    assert_int_equal(ops->release(dev, &b, s), FEED_OK);
    uint32_t count = b.count;
    ops->stop(dev);
    ops->close(dev);
    fake_cuda_counters c;
    fake_cuda_get_counters(&c);
    assert_int_equal(c.freed_in_use, 0);
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    uint8_t *want = malloc(out_sample_bytes(&cfg));
    for (uint32_t k = 0; k < count; k++) {
        expected_sample(r, &cfg, 0, k, want);
        assert_memory_equal(hb + k * out_sample_bytes(&cfg), want, out_sample_bytes(&cfg));
    }
    free(want);
    ring_stop(r);
    ring_check(r);
    cudaStreamDestroy(s);
    cudaFreeHost(hb);
    ring_free(r);
    check_no_leaks();
}

/* The bounce path says why it was taken (the loader puts the note in
 * last_error); the registered path has nothing to say. */
static void test_bounce_says_why(void **state)
{
    tring *r = ring_new(2, 2, 4, 4, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 2);
    assert_non_null(ops->note);
    char note[512] = "x";
    void *dev = open_ok(&cfg);
    ops->note(dev, note, sizeof note);
    assert_string_equal(note, "");
    ops->close(dev);
    fake_cuda_fail_register(1);
    dev = open_ok(&cfg);
    ops->note(dev, note, sizeof note);
    if (!strstr(note, "cuda:0: the arena is not registered (cudaHostRegister of ") ||
        !strstr(note, "cudaErrorMemoryAllocation") || !strstr(note, "bounce"))
        fail_msg("note: '%s'", note);
    feed_stats st = {.struct_size = sizeof st};
    ops->stats(dev, &st);
    assert_string_equal(st.pinned, "bounce");
    ops->close(dev);
    ring_free(r);
    check_no_leaks();
}

/* A fault in the conversion kernel surfaces at some later call (the copy
 * stream's, usually): it is reported as the conversion's, the context stays
 * broken, and everything still comes back and is freed. */
static void test_kernel_fault_is_conversion(void **state)
{
    tring *r = ring_new(4, 3, 4, 4, 0);
    feed__device_config cfg = mkcfg(r, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, 3);
    void *dev = open_ok(&cfg);
    cudaStream_t s;
    assert_int_equal(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    fake_cuda_fault_kernel_after(3);
    ring_start(r, 0);
    assert_int_equal(ops->start(dev, 0), FEED_OK);
    feed_status st = FEED_OK;
    uint64_t seq = 0;
    for (; seq < 30 && st == FEED_OK; seq++) {
        feed_batch b = {.struct_size = sizeof b};
        st = ops->next(dev, seq, NEXT_TIMEOUT_MS, &b);
        if (st == FEED_OK) {
            ops->wait(dev, &b, s); /* may fail: the context is broken */
            assert_int_equal(ops->release(dev, &b, s), FEED_OK);
        }
    }
    assert_int_equal(st, FEED_E_DEVICE);
    assert_true(seq >= 4);
    char why[256];
    ops->error(dev, why, sizeof why);
    if (!strstr(why, "cuda:0: convert") || !strstr(why, "cudaErrorIllegalAddress"))
        fail_msg("error: '%s'", why);
    assert_true(ring_wait_all_released(r, 10000));
    ops->stop(dev);
    ring_check(r);
    assert_int_equal(ops->start(dev, 0), FEED_E_DEVICE); /* sticky */
    ops->close(dev);
    cudaStreamDestroy(s);
    ring_free(r);
    check_no_leaks();
}

/* The fake itself: what the tests above rely on it to model. */
static void host_nop(void *arg)
{
    (void)arg;
}

static void *per_thread_record(void *arg)
{
    cudaEvent_t ev = arg;
    cudaSetDevice(0);
    if (cudaEventRecord(ev, cudaStreamPerThread) == cudaSuccess)
        cudaEventSynchronize(ev); /* not behind the main thread's held one */
    return NULL;
}

static void *fresh_thread_alloc(void *arg)
{
    unsigned *masks = arg;
    int d = -1;
    cudaGetDevice(&d);
    masks[0] = fake_cuda_context_mask() | (d == 0 ? 0 : 0x100);
    void *p = NULL;
    cudaMalloc(&p, 16);
    masks[1] = fake_cuda_context_mask();
    cudaFree(p);
    return NULL;
}

static void test_fake_runtime_models(void **state)
{
    /* lazy primary contexts: cudaGetDevice makes none, an allocation does */
    fake_cuda_reset();
    fake_cuda_set_device_count(2);
    unsigned masks[2];
    run_on_thread(fresh_thread_alloc, masks);
    assert_int_equal(masks[0], 0);
    assert_int_equal(masks[1], 1);

    /* the legacy stream waits for a blocking stream, not a non-blocking one */
    assert_int_equal(cudaSetDevice(0), cudaSuccess);
    cudaStream_t blocking, nonblocking;
    cudaEvent_t ev, ev2;
    assert_int_equal(cudaStreamCreate(&blocking), cudaSuccess);
    assert_int_equal(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), cudaSuccess);
    assert_int_equal(cudaEventCreateWithFlags(&ev2, cudaEventDisableTiming), cudaSuccess);
    fake_cuda_hold_stream(nonblocking);
    assert_int_equal(cudaLaunchHostFunc(nonblocking, host_nop, NULL), cudaSuccess);
    assert_int_equal(cudaEventRecord(ev2, NULL), cudaSuccess);
    assert_int_equal(cudaEventSynchronize(ev2), cudaSuccess); /* did not wait for the held one */
    fake_cuda_hold_stream(blocking);
    assert_int_equal(cudaLaunchHostFunc(blocking, host_nop, NULL), cudaSuccess);
    assert_int_equal(cudaEventRecord(ev, NULL), cudaSuccess);
    assert_int_equal(cudaEventQuery(ev), cudaErrorNotReady); /* behind the held blocking stream */
    fake_cuda_counters c;
    fake_cuda_get_counters(&c);
    assert_true(c.legacy_syncs >= 1);
    assert_int_equal(cudaEventSynchronize(ev), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(nonblocking), cudaSuccess);

    /* per-thread default streams are streams of their own */
    fake_cuda_hold_stream(cudaStreamPerThread);
    assert_int_equal(cudaLaunchHostFunc(cudaStreamPerThread, host_nop, NULL), cudaSuccess);
    assert_int_equal(cudaEventRecord(ev, cudaStreamPerThread), cudaSuccess);
    run_on_thread(per_thread_record, ev2);
    assert_int_equal(cudaEventQuery(ev2), cudaSuccess);
    assert_int_equal(cudaEventQuery(ev), cudaErrorNotReady);
    assert_int_equal(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    assert_int_equal(cudaEventQuery(ev), cudaSuccess);

    /* a kernel fault: the launch succeeds, the next synchronising call
     * reports it, and it stays */
    void *src, *dst;
    assert_int_equal(cudaMalloc(&src, 2 * 2 * 3), cudaSuccess);
    assert_int_equal(cudaMalloc(&dst, 2 * 2 * 3 * 4), cudaSuccess);
    fake_cuda_fault_kernel_after(0);
    const float one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    assert_int_equal(feed__cuda_convert_launch(src, 12, dst, 1, 2, 2, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, one,
                                               zero, NULL, NULL, NULL, nonblocking),
                     cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(nonblocking), cudaErrorIllegalAddress);
    assert_int_equal(cudaGetLastError(), cudaErrorIllegalAddress);
    assert_int_equal(cudaGetLastError(), cudaErrorIllegalAddress);
    assert_int_equal(cudaEventRecord(ev, blocking), cudaErrorIllegalAddress);
    cudaFree(src);
    cudaFree(dst);
    cudaEventDestroy(ev);
    cudaEventDestroy(ev2);
    cudaStreamDestroy(blocking);
    cudaStreamDestroy(nonblocking);
    fake_cuda_reset(); /* as cudaDeviceReset */
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    check_no_leaks();
}
#endif

int main(void)
{
#ifndef FEED_FAKE_CUDA
    int n = feed__device_cuda_count();
    if (n <= 0) {
        printf("test_cuda_real: no CUDA device here (feed__device_cuda_count() == 0): skipped\n");
        return 77;
    }
#endif
    ops = feed__device_cuda();
    if (!ops) {
        printf("built without the CUDA backend: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_uint8_hwc_passthrough, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uint8_chw, setup, teardown),
        cmocka_unit_test_setup_teardown(test_float32_chw, setup, teardown),
        cmocka_unit_test_setup_teardown(test_float32_hwc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_float16_hwc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bfloat16_chw, setup, teardown),
        cmocka_unit_test_setup_teardown(test_depth1_two_slots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bounce_forced, setup, teardown),
#ifdef FEED_FAKE_CUDA
        cmocka_unit_test_setup_teardown(test_bounce_when_register_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_register_chunks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_register_limit_midway, setup, teardown),
#endif
        cmocka_unit_test_setup_teardown(test_hold_busy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_in_flight, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_seek, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors_and_timeouts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_config, setup, teardown),
#ifdef FEED_FAKE_CUDA
        cmocka_unit_test_setup_teardown(test_other_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_contexts_only_on_our_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_waits_for_every_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_on_other_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_after_another_threads_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_waits_for_release, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bounce_says_why, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_fault_is_conversion, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fake_runtime_models, setup, teardown),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
