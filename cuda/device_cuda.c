/*
 * device_cuda.c - the CUDA backend (src/device.h): one copier thread moves
 * each READY host slot to a device buffer on a copy stream of its own,
 * converts it there on a second stream, and gives the host slot back as soon
 * as the copy (not the conversion) has completed.
 *
 * Plain C against the CUDA runtime API (cudart_static), so libfeed loads and
 * runs on machines without a driver or a GPU: nothing here runs at load time,
 * and feed__device_cuda_count() says 0 there. The GPU-less tests compile this
 * same file against tests/fake_cuda.c.
 *
 * Per device buffer d (depth of them, batch seq uses d = seq % depth):
 *   stage (uint8, host format) -> out (caller's dtype/layout; == stage when
 *   no conversion is needed), labels, pinned host labels/ids/flags, and the
 *   events start/copied (timing, copy_ns), ready and release.
 *
 * Ordering contract (what makes it safe):
 *  1. Device buffer reuse. The copier fills d for seq only when the caller has
 *     released seq - depth (host flag, under mu), and the copy stream first
 *     waits on-device for ev_release[d] (recorded on the caller's stream at
 *     release) and for ev_ready[d] (the previous conversion, which reads
 *     stage[d]). No host stall on the caller's work.
 *  2. Host slot return. release_slot(seq) is called only after ev_copied of
 *     seq has completed (cudaEventSynchronize in the copier), in seq order.
 *     Bounce mode copies the slot on the CPU into a pinned buffer first, so
 *     the slot goes back at once.
 *  3. Host-side per-buffer arrays (pinned labels, bounce, ids, flags) are
 *     rewritten only after the buffer's previous ev_copied has completed and
 *     the caller has released the batch that pointed at them.
 *  4. The copier keeps at most two copies in flight (the newest is queued
 *     behind the previous one, so the copy engine never idles between
 *     batches) and returns every slot it holds before it blocks on anything
 *     (the ring, a device buffer, an error being read): the workers can
 *     always refill, whatever the number of slots.
 *  5. The conversion runs on a second stream (after ev_copied), so the next
 *     copy does not queue behind the previous batch's kernel.
 *
 * Threads and the current device: the copier sets our device once; open and
 * close do their CUDA work on a short-lived thread of their own; next, wait
 * and release leave the caller's current device alone, except for the legacy
 * (NULL) stream, which means "the default stream of the batch's device".
 */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "convert_launch.h"
#include "device.h"
#include "internal.h"

#if defined(FEED_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#define FEED_NVTX_PUSH(name) nvtxRangePushA(name)
#define FEED_NVTX_POP() nvtxRangePop()
#else
#define FEED_NVTX_PUSH(name) ((void)0)
#define FEED_NVTX_POP() ((void)0)
#endif

/* How long one wait_ready call may block, so the copier notices stop. */
#define FEED_CUDA_SLICE_MS 20
/* cudaHostRegister the arena in pieces of at most this much (a copy never
 * straddles two pieces). FEED_CUDA_REGISTER_CHUNK (bytes) overrides it. */
#define FEED_CUDA_REGISTER_CHUNK ((size_t)1 << 30)

enum { BUF_FREE, BUF_FILLING, BUF_PUBLISHED, BUF_HELD };

typedef struct cbuf {
    uint8_t *d_stage;   /* batch_size * host_sample_bytes, device */
    void *d_out;        /* batch_size * out_sample_bytes, device (== d_stage: no conversion) */
    int32_t *d_labels;  /* batch_size, device */
    uint8_t *h_bounce;  /* pinned copy of the slot's pixels (bounce mode) */
    int32_t *h_labels;  /* pinned: source of the labels copy, and batch.labels */
    uint64_t *h_ids;
    uint8_t *h_flags;
    cudaEvent_t ev_start, ev_copied; /* timing events around the H2D copies */
    cudaEvent_t ev_ready;            /* the batch is complete on the device */
    cudaEvent_t ev_release;          /* recorded on the caller's stream at release */
    int used;                        /* ev_copied/ev_ready were recorded at least once */
    int released_on_device;          /* ev_release was recorded */
    int state;                       /* BUF_* (under mu) */
    uint64_t seq, epoch, index;
    uint32_t count, bad;
} cbuf;

typedef struct inflight {
    uint64_t seq;
    uint32_t buf;
    int slot_returned; /* bounce mode: the slot went back right after the CPU copy */
} inflight;

typedef struct cuda_dev {
    feed__device_config cfg;
    int ordinal;
    uint32_t depth;
    int convert;               /* a kernel turns stage into out */
    uint64_t out_sample_bytes; /* what the caller sees */
    float scale[3], bias[3];
    cudaStream_t s_copy, s_conv;
    cbuf *buf;
    /* arena registration */
    void **reg;
    size_t nreg, reg_chunk;
    uint8_t *reg_base;
    size_t reg_bytes;
    int registered;
    /* copier-thread-only state */
    inflight fl[2];
    uint32_t nfl;
    uint64_t cseq; /* the batch the copier works on */

    pthread_t thread;
    int running; /* the copier thread exists (caller's thread only) */

    pthread_mutex_t mu;
    pthread_cond_t cv; /* any change below */
    int stop;
    uint64_t next_seq;  /* next() wants this one */
    uint64_t published; /* every batch < published is published */
    int err_pending;    /* wait_ready failed for err_seq with err_status */
    uint64_t err_seq;
    feed_status err_status;
    feed_status fatal; /* sticky: the copier died of a CUDA error */
    char fatal_msg[256];
    uint64_t copy_ns, h2d_bytes;
} cuda_dev;

/* ---- small helpers -------------------------------------------------------------- */

static feed_status cu_err(cudaError_t e, char *err, size_t errlen, const char *what, int ordinal)
{
    return feed__err(FEED_E_DEVICE, err, errlen, "cuda:%d: %s: %s (%s)", ordinal, what,
                     cudaGetErrorString(e), cudaGetErrorName(e));
}

/* For the caller's legacy (NULL) or per-thread default stream, which are the
 * *current* device's: makes our device current, returning the caller's to
 * put back with dev_pop (-1: nothing to put back). Explicit streams carry
 * their device, so the caller's thread is left alone. */
static int dev_push(const cuda_dev *d, void *stream)
{
    if (stream && stream != (void *)cudaStreamLegacy && stream != (void *)cudaStreamPerThread)
        return -1;
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) {
        cudaGetLastError();
        prev = -1;
    }
    if (prev != d->ordinal)
        cudaSetDevice(d->ordinal);
    return prev;
}

static void dev_pop(const cuda_dev *d, int prev)
{
    if (prev >= 0 && prev != d->ordinal)
        cudaSetDevice(prev);
}

static void deadline_after(struct timespec *ts, int64_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* The first fatal error wins; the copier ends and next() returns it. */
static void set_fatal(cuda_dev *d, feed_status st, cudaError_t e, const char *what)
{
    pthread_mutex_lock(&d->mu);
    if (d->fatal == FEED_OK) {
        d->fatal = st;
        snprintf(d->fatal_msg, sizeof d->fatal_msg, "cuda:%d: %s: %s", d->ordinal, what,
                 e != cudaSuccess ? cudaGetErrorString(e) : feed_strerror(st));
        /* No error channel in feed__device_ops: say it once. */
        fprintf(stderr, "libfeed: %s\n", d->fatal_msg);
    }
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
}

/* ---- the copier ------------------------------------------------------------------- */

/* Oldest copy in flight: wait for it, collect its time, return its slot. */
static void retire_one(cuda_dev *d)
{
    inflight f = d->fl[0];
    d->fl[0] = d->fl[1];
    d->nfl--;
    cbuf *b = &d->buf[f.buf];
    cudaError_t e = cudaEventSynchronize(b->ev_copied);
    float ms = 0;
    if (e == cudaSuccess && cudaEventElapsedTime(&ms, b->ev_start, b->ev_copied) != cudaSuccess) {
        cudaGetLastError();
        ms = 0;
    }
    if (!f.slot_returned)
        d->cfg.release_slot(d->cfg.ring, f.seq);
    pthread_mutex_lock(&d->mu);
    d->copy_ns += (uint64_t)((double)ms * 1e6);
    pthread_mutex_unlock(&d->mu);
    if (e != cudaSuccess)
        set_fatal(d, FEED_E_DEVICE, e, "copy");
}

static void retire_all(cuda_dev *d)
{
    while (d->nfl)
        retire_one(d);
}

/* H2D from the arena, cut at registration chunk boundaries so that every
 * cudaMemcpyAsync reads one registered range (pinned DMA, not staging). */
static cudaError_t h2d(cuda_dev *d, void *dst, const void *src, size_t n)
{
    const uint8_t *s = src;
    uint8_t *o = dst;
    while (n) {
        size_t take = n;
        if (d->registered && s >= d->reg_base && s < d->reg_base + d->reg_bytes) {
            size_t off = (size_t)(s - d->reg_base);
            size_t left = d->reg_chunk - off % d->reg_chunk;
            if (take > left)
                take = left;
        }
        cudaError_t e = cudaMemcpyAsync(o, s, take, cudaMemcpyHostToDevice, d->s_copy);
        if (e != cudaSuccess)
            return e;
        s += take;
        o += take;
        n -= take;
    }
    return cudaSuccess;
}

/* Enqueues batch seq (slot view v) into buffer bi. */
static cudaError_t issue(cuda_dev *d, uint32_t bi, const feed__slot_view *v, int *slot_returned,
                         const char **what)
{
    cbuf *b = &d->buf[bi];
    const feed__device_config *c = &d->cfg;
    const size_t pix = (size_t)v->count * c->host_sample_bytes;
    cudaError_t e;
    *slot_returned = 0;

    /* contract 3: the previous copy out of this buffer's host arrays is done */
    *what = "copy";
    if (b->used && (e = cudaEventSynchronize(b->ev_copied)) != cudaSuccess)
        return e;
    if (v->labels)
        memcpy(b->h_labels, v->labels, v->count * sizeof(int32_t));
    else
        memset(b->h_labels, 0, v->count * sizeof(int32_t));
    if (v->sample_ids)
        memcpy(b->h_ids, v->sample_ids, v->count * sizeof(uint64_t));
    else
        memset(b->h_ids, 0, v->count * sizeof(uint64_t));
    if (v->flags)
        memcpy(b->h_flags, v->flags, v->count);
    else
        memset(b->h_flags, 0, v->count);
    if (!d->registered) {
        memcpy(b->h_bounce, v->pixels, pix);
        c->release_slot(c->ring, v->seq);
        *slot_returned = 1;
    }

    /* contract 1: the caller is done with the buffer, and so is our kernel */
    *what = "stream wait";
    if (b->released_on_device && (e = cudaStreamWaitEvent(d->s_copy, b->ev_release, 0)) != cudaSuccess)
        return e;
    if (b->used && (e = cudaStreamWaitEvent(d->s_copy, b->ev_ready, 0)) != cudaSuccess)
        return e;

    FEED_NVTX_PUSH("feed:h2d");
    *what = "copy";
    e = cudaEventRecord(b->ev_start, d->s_copy);
    if (e == cudaSuccess)
        e = d->registered ? h2d(d, b->d_stage, v->pixels, pix)
                          : cudaMemcpyAsync(b->d_stage, b->h_bounce, pix, cudaMemcpyHostToDevice,
                                            d->s_copy);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(b->d_labels, b->h_labels, v->count * sizeof(int32_t),
                            cudaMemcpyHostToDevice, d->s_copy);
    if (e == cudaSuccess)
        e = cudaEventRecord(b->ev_copied, d->s_copy);
    FEED_NVTX_POP();
    if (e != cudaSuccess)
        return e;
    b->used = 1;

    if (d->convert) {
        FEED_NVTX_PUSH("feed:convert");
        *what = "convert";
        e = cudaStreamWaitEvent(d->s_conv, b->ev_copied, 0);
        if (e == cudaSuccess)
            e = (cudaError_t)feed__cuda_convert_launch(b->d_stage, c->host_sample_bytes, b->d_out,
                                                       v->count, c->height, c->width, c->dtype,
                                                       c->layout, d->scale, d->bias, NULL, d->s_conv);
        if (e == cudaSuccess)
            e = cudaEventRecord(b->ev_ready, d->s_conv);
        FEED_NVTX_POP();
    } else {
        *what = "event";
        e = cudaEventRecord(b->ev_ready, d->s_copy);
    }
    if (e != cudaSuccess)
        return e;

    pthread_mutex_lock(&d->mu);
    d->h2d_bytes += pix + v->count * sizeof(int32_t);
    pthread_mutex_unlock(&d->mu);
    return cudaSuccess;
}

/* Waits (returning our slots first) until buffer bi is free; 0 if the copier
 * must end (stop, or a fatal error). */
static int acquire_buffer(cuda_dev *d, uint32_t bi)
{
    pthread_mutex_lock(&d->mu);
    if (d->buf[bi].state != BUF_FREE && !d->stop) {
        pthread_mutex_unlock(&d->mu);
        retire_all(d);
        pthread_mutex_lock(&d->mu);
        while (d->buf[bi].state != BUF_FREE && !d->stop)
            pthread_cond_wait(&d->cv, &d->mu);
    }
    int ok = !d->stop && d->fatal == FEED_OK;
    if (ok)
        d->buf[bi].state = BUF_FILLING;
    pthread_mutex_unlock(&d->mu);
    return ok;
}

static void give_back_buffer(cuda_dev *d, uint32_t bi)
{
    pthread_mutex_lock(&d->mu);
    d->buf[bi].state = BUF_FREE;
    pthread_mutex_unlock(&d->mu);
}

static int stopping(cuda_dev *d)
{
    pthread_mutex_lock(&d->mu);
    int s = d->stop || d->fatal != FEED_OK;
    pthread_mutex_unlock(&d->mu);
    return s;
}

/* Hands an async error of the ring to next(), then waits until it has been
 * returned to the caller (or stop), so the ring is asked again only when the
 * caller asks again, as with the host backend. */
static void pass_error(cuda_dev *d, uint64_t seq, feed_status st)
{
    pthread_mutex_lock(&d->mu);
    d->err_pending = 1;
    d->err_seq = seq;
    d->err_status = st;
    pthread_cond_broadcast(&d->cv);
    while (d->err_pending && !d->stop)
        pthread_cond_wait(&d->cv, &d->mu);
    pthread_mutex_unlock(&d->mu);
}

static void *copier_main(void *arg)
{
    cuda_dev *d = arg;
    const feed__device_config *c = &d->cfg;
    cudaError_t e = cudaSetDevice(d->ordinal);
    if (e != cudaSuccess) {
        set_fatal(d, FEED_E_DEVICE, e, "cudaSetDevice in the copier");
        return NULL;
    }
#if defined(FEED_HAVE_NVTX)
    nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "feed-copier");
#endif
    for (;;) {
        const uint64_t seq = d->cseq;
        const uint32_t bi = (uint32_t)(seq % d->depth);
        if (!acquire_buffer(d, bi))
            break;

        feed__slot_view v;
        feed_status st = c->wait_ready(c->ring, seq, 0, &v);
        if (st == FEED_E_TIMEOUT) {
            retire_all(d); /* contract 4: never block on the ring holding slots */
            while (st == FEED_E_TIMEOUT && !stopping(d))
                st = c->wait_ready(c->ring, seq, FEED_CUDA_SLICE_MS, &v);
        }
        if (st == FEED_E_TIMEOUT) { /* stopping */
            give_back_buffer(d, bi);
            break;
        }
        if (st != FEED_OK) {
            give_back_buffer(d, bi);
            retire_all(d);
            pass_error(d, seq, st);
            continue; /* the same seq again */
        }
        v.seq = seq;
        if (v.count > c->batch_size) {
            retire_all(d);
            c->release_slot(c->ring, seq);
            give_back_buffer(d, bi);
            set_fatal(d, FEED_E_INTERNAL, cudaSuccess, "slot holds more samples than batch_size");
            break;
        }

        int slot_returned = 0;
        const char *what = "copy";
        e = issue(d, bi, &v, &slot_returned, &what);
        if (e != cudaSuccess) {
            /* A failed enqueue may leave earlier work queued that reads the
             * slot; the slots go back in order. */
            cudaStreamSynchronize(d->s_copy);
            retire_all(d);
            if (!slot_returned)
                c->release_slot(c->ring, seq);
            give_back_buffer(d, bi);
            set_fatal(d, FEED_E_DEVICE, e, what);
            break;
        }
        d->fl[d->nfl++] = (inflight){.seq = seq, .buf = bi, .slot_returned = slot_returned};

        cbuf *b = &d->buf[bi];
        pthread_mutex_lock(&d->mu);
        b->seq = seq;
        b->epoch = v.epoch;
        b->index = v.index;
        b->count = v.count;
        b->bad = v.bad;
        b->state = BUF_PUBLISHED;
        d->published = seq + 1;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->mu);

        while (d->nfl > 1) /* contract 4: the newest stays queued behind this one */
            retire_one(d);
        d->cseq = seq + 1;
    }
    retire_all(d);
    return NULL;
}

/* ---- the interface ------------------------------------------------------------------ */

static void free_buffers(cuda_dev *d)
{
    for (uint32_t i = 0; d->buf && i < d->depth; i++) {
        cbuf *b = &d->buf[i];
        if (b->d_out && b->d_out != b->d_stage)
            cudaFree(b->d_out);
        cudaFree(b->d_stage);
        cudaFree(b->d_labels);
        if (b->h_bounce)
            cudaFreeHost(b->h_bounce);
        if (b->h_labels)
            cudaFreeHost(b->h_labels);
        feed__free(b->h_ids);
        feed__free(b->h_flags);
        cudaEvent_t *evs[] = {&b->ev_start, &b->ev_copied, &b->ev_ready, &b->ev_release};
        for (size_t k = 0; k < FEED_ARRAY_SIZE(evs); k++)
            if (*evs[k])
                cudaEventDestroy(*evs[k]);
    }
    feed__free(d->buf);
    d->buf = NULL;
}

static void unregister_arena(cuda_dev *d)
{
    for (size_t i = 0; i < d->nreg; i++)
        cudaHostUnregister(d->reg[i]);
    feed__free(d->reg);
    d->reg = NULL;
    d->nreg = 0;
    d->registered = 0;
}

/* Frees every CUDA resource (on a device thread, see on_device_thread). */
static void teardown(cuda_dev *d)
{
    if (d->s_copy)
        cudaStreamSynchronize(d->s_copy);
    if (d->s_conv)
        cudaStreamSynchronize(d->s_conv);
    free_buffers(d);
    if (d->s_copy)
        cudaStreamDestroy(d->s_copy);
    if (d->s_conv)
        cudaStreamDestroy(d->s_conv);
    d->s_copy = d->s_conv = NULL;
    unregister_arena(d);
    cudaGetLastError();
}

typedef struct devjob {
    cuda_dev *d;
    feed_status (*fn)(cuda_dev *d, char *err, size_t errlen);
    char *err;
    size_t errlen;
    feed_status st;
} devjob;

static void *devjob_main(void *arg)
{
    devjob *j = arg;
    cudaError_t e = cudaSetDevice(j->d->ordinal);
    if (e != cudaSuccess)
        j->st = cu_err(e, j->err, j->errlen, "cudaSetDevice", j->d->ordinal);
    else
        j->st = j->fn(j->d, j->err, j->errlen);
    return NULL;
}

/* Runs fn on a short-lived thread whose current device is ours. The CUDA
 * runtime's current device is per thread, and since CUDA 12 cudaSetDevice
 * creates that device's primary context: switching the caller's thread to
 * our device and back would leave it a context on the device it had (0 by
 * default) even if it never used one. */
static feed_status on_device_thread(cuda_dev *d, feed_status (*fn)(cuda_dev *, char *, size_t),
                                    char *err, size_t errlen)
{
    devjob j = {.d = d, .fn = fn, .err = err, .errlen = errlen, .st = FEED_OK};
    pthread_t t;
    int rc = feed__thread_start(&t, devjob_main, &j, "feed-cuda-setup");
    if (rc != 0)
        return feed__err(FEED_E_RESOURCE, err, errlen, "cuda backend: cannot start a thread: %s",
                         strerror(rc));
    pthread_join(t, NULL);
    return j.st;
}

static feed_status teardown_job(cuda_dev *d, char *err, size_t errlen)
{
    teardown(d);
    return FEED_OK;
}

static void cuda_stop(void *state);

static void cuda_close(void *state)
{
    cuda_dev *d = state;
    if (!d)
        return;
    cuda_stop(d);
    if (on_device_thread(d, teardown_job, NULL, 0) != FEED_OK)
        teardown(d); /* no thread to be had: from here, then */
    pthread_cond_destroy(&d->cv);
    pthread_mutex_destroy(&d->mu);
    feed__free(d);
}

/* Pins the arena for DMA, in chunks. 1: registered; 0: it cannot be (memlock
 * limit, not supported, FEED_FORCE_BOUNCE): use bounce buffers; -1: no memory. */
static int register_arena(cuda_dev *d)
{
    const char *force = getenv("FEED_FORCE_BOUNCE");
    if (!d->cfg.arena || !d->cfg.arena_bytes || (force && *force && *force != '0'))
        return 0;
    size_t chunk = FEED_CUDA_REGISTER_CHUNK;
    const char *env = getenv("FEED_CUDA_REGISTER_CHUNK");
    if (env && *env) {
        unsigned long long v = strtoull(env, NULL, 0);
        if (v >= 4096)
            chunk = (size_t)(v & ~4095ull);
    }
    size_t n = (d->cfg.arena_bytes + chunk - 1) / chunk;
    d->reg = feed__calloc(n, sizeof *d->reg);
    if (!d->reg)
        return -1;
    uint8_t *base = d->cfg.arena;
    for (size_t i = 0; i < n; i++) {
        size_t len = i + 1 < n ? chunk : d->cfg.arena_bytes - i * chunk;
        cudaError_t e = cudaHostRegister(base + i * chunk, len, cudaHostRegisterPortable);
        if (e != cudaSuccess) {
            cudaGetLastError(); /* not sticky: memlock limit, not supported, ... */
            unregister_arena(d);
            return 0;
        }
        d->reg[d->nreg++] = base + i * chunk;
    }
    d->reg_base = base;
    d->reg_bytes = d->cfg.arena_bytes;
    d->reg_chunk = chunk;
    d->registered = 1;
    return 1;
}

/* Registers the arena, creates the streams, buffers and events (on a device
 * thread). On failure the caller tears down what was made. */
static feed_status setup_job(cuda_dev *d, char *err, size_t errlen)
{
    const feed__device_config *cfg = &d->cfg;
    const char *what = "";
    cudaError_t e;
    int reg = register_arena(d);
    if (reg < 0)
        goto nomem;

    what = "cudaStreamCreateWithFlags";
    if ((e = cudaStreamCreateWithFlags(&d->s_copy, cudaStreamNonBlocking)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&d->s_conv, cudaStreamNonBlocking)) != cudaSuccess)
        goto cuda_fail;

    d->buf = feed__calloc(d->depth, sizeof *d->buf);
    if (!d->buf)
        goto nomem;
    const size_t B = cfg->batch_size;
    const size_t stage = B * cfg->host_sample_bytes, out = B * d->out_sample_bytes;
    for (uint32_t i = 0; i < d->depth; i++) {
        cbuf *b = &d->buf[i];
        what = "cudaMalloc";
        if ((e = cudaMalloc((void **)&b->d_stage, stage)) != cudaSuccess ||
            (e = cudaMalloc((void **)&b->d_labels, B * sizeof(int32_t))) != cudaSuccess)
            goto cuda_fail;
        if (d->convert) {
            if ((e = cudaMalloc(&b->d_out, out)) != cudaSuccess)
                goto cuda_fail;
        } else {
            b->d_out = b->d_stage;
        }
        what = "cudaMallocHost";
        if ((e = cudaMallocHost((void **)&b->h_labels, B * sizeof(int32_t))) != cudaSuccess)
            goto cuda_fail;
        if (!d->registered && (e = cudaMallocHost((void **)&b->h_bounce, stage)) != cudaSuccess)
            goto cuda_fail;
        b->h_ids = feed__calloc(B, sizeof *b->h_ids);
        b->h_flags = feed__calloc(B, 1);
        if (!b->h_ids || !b->h_flags)
            goto nomem;
        what = "cudaEventCreateWithFlags";
        if ((e = cudaEventCreateWithFlags(&b->ev_start, cudaEventDefault)) != cudaSuccess ||
            (e = cudaEventCreateWithFlags(&b->ev_copied, cudaEventBlockingSync)) != cudaSuccess ||
            (e = cudaEventCreateWithFlags(&b->ev_ready, cudaEventDisableTiming)) != cudaSuccess ||
            (e = cudaEventCreateWithFlags(&b->ev_release, cudaEventDisableTiming)) != cudaSuccess)
            goto cuda_fail;
    }
    return FEED_OK;

nomem:
    return feed__err(FEED_E_NOMEM, err, errlen, "cuda backend: out of memory");
cuda_fail:
    cudaGetLastError();
    if (e == cudaErrorMemoryAllocation) {
        cu_err(e, err, errlen, what, d->ordinal);
        return FEED_E_NOMEM;
    }
    return cu_err(e, err, errlen, what, d->ordinal);
}

static feed_status cuda_open(const feed__device_config *cfg, void **state, char *err, size_t errlen)
{
    *state = NULL;
    const int ord = cfg->ordinal;
    const int convert = !(cfg->dtype == cfg->host_dtype && cfg->layout == cfg->host_layout);
    const size_t hsz = feed__dtype_size(cfg->host_dtype), osz = feed__dtype_size(cfg->dtype);
    if (!cfg->batch_size || !cfg->height || !cfg->width || !cfg->channels || !hsz || !osz ||
        cfg->layout > FEED_LAYOUT_CHW || !cfg->wait_ready || !cfg->release_slot ||
        cfg->host_sample_bytes < (uint64_t)cfg->height * cfg->width * cfg->channels * hsz)
        return feed__err(FEED_E_INVALID, err, errlen, "cuda backend: invalid configuration");
    if (convert && (cfg->host_dtype != FEED_DTYPE_UINT8 || cfg->host_layout != FEED_LAYOUT_HWC ||
                    cfg->channels != 3))
        return feed__err(FEED_E_UNSUPPORTED, err, errlen,
                         "cuda backend: converts only uint8 HWC RGB host slots (got dtype %u "
                         "layout %u, %u channels)",
                         cfg->host_dtype, cfg->host_layout, cfg->channels);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return feed__err(FEED_E_DEVICE, err, errlen, "cuda: no usable CUDA device: %s",
                         cudaGetErrorString(e));
    }
    if (ord < 0 || ord >= count)
        return feed__err(FEED_E_INVALID, err, errlen, "device cuda:%d: there are %d CUDA devices",
                         ord, count);

    cuda_dev *d = feed__calloc(1, sizeof *d);
    if (!d)
        return feed__err(FEED_E_NOMEM, err, errlen, "cuda backend: out of memory");
    d->cfg = *cfg;
    d->ordinal = ord;
    d->depth = cfg->depth ? cfg->depth : 1;
    d->convert = convert;
    d->out_sample_bytes =
        convert ? (uint64_t)cfg->height * cfg->width * 3 * osz : cfg->host_sample_bytes;
    feed__convert_params(cfg->mean, cfg->std, d->scale, d->bias);
    feed__cond_init_monotonic(&d->cv);
    pthread_mutex_init(&d->mu, NULL);

    feed_status st = on_device_thread(d, setup_job, err, errlen);
    if (st != FEED_OK) {
        if (on_device_thread(d, teardown_job, NULL, 0) != FEED_OK)
            teardown(d);
        pthread_cond_destroy(&d->cv);
        pthread_mutex_destroy(&d->mu);
        feed__free(d);
        return st;
    }
    *state = d;
    return FEED_OK;
}

static feed_status cuda_start(void *state, uint64_t seq)
{
    cuda_dev *d = state;
    if (d->running)
        return FEED_E_INVALID;
    pthread_mutex_lock(&d->mu);
    feed_status fatal = d->fatal;
    d->stop = 0;
    d->next_seq = d->published = seq;
    d->err_pending = 0;
    pthread_mutex_unlock(&d->mu);
    if (fatal != FEED_OK)
        return fatal; /* the context is broken; nothing will copy again */
    d->cseq = seq;
    d->nfl = 0;

    /* The copier takes no signals: the caller's handlers run on its threads. */
    if (feed__thread_start(&d->thread, copier_main, d, "feed-copier") != 0)
        return FEED_E_RESOURCE;
    d->running = 1;
    return FEED_OK;
}

static void cuda_stop(void *state)
{
    cuda_dev *d = state;
    if (!d || !d->running)
        return;
    pthread_mutex_lock(&d->mu);
    d->stop = 1;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    pthread_join(d->thread, NULL); /* it returns every slot it holds on its way out */
    d->running = 0;
    cudaStreamSynchronize(d->s_copy);
    cudaStreamSynchronize(d->s_conv);
    cudaGetLastError();
    pthread_mutex_lock(&d->mu);
    for (uint32_t i = 0; i < d->depth; i++)
        d->buf[i].state = BUF_FREE;
    d->err_pending = 0;
    d->stop = 0;
    pthread_mutex_unlock(&d->mu);
}

static feed_status cuda_next(void *state, uint64_t seq, int64_t timeout_ms, feed_batch *out)
{
    cuda_dev *d = state;
    if (!d->running)
        return FEED_E_INVALID;
    const uint32_t bi = (uint32_t)(seq % d->depth);
    cbuf *b = &d->buf[bi];
    struct timespec dl;
    if (timeout_ms > 0)
        deadline_after(&dl, timeout_ms);
    feed_status st = FEED_OK;
    pthread_mutex_lock(&d->mu);
    if (seq != d->next_seq) {
        st = FEED_E_INVALID;
        goto out;
    }
    /* The buffer still holds seq - depth, which only the caller can give back. */
    if (b->state == BUF_HELD) {
        st = FEED_E_BUSY;
        goto out;
    }
    for (;;) {
        if (d->published > seq || d->fatal != FEED_OK)
            break;
        if (d->err_pending && d->err_seq == seq)
            break;
        if (timeout_ms == 0) {
            st = FEED_E_TIMEOUT;
            goto out;
        }
        if (timeout_ms < 0) {
            pthread_cond_wait(&d->cv, &d->mu);
        } else if (pthread_cond_timedwait(&d->cv, &d->mu, &dl) == ETIMEDOUT) {
            if (d->published > seq || d->fatal != FEED_OK || (d->err_pending && d->err_seq == seq))
                continue;
            st = FEED_E_TIMEOUT;
            goto out;
        }
    }
    if (d->published <= seq && d->err_pending && d->err_seq == seq) {
        st = d->err_status;
        d->err_pending = 0;
        pthread_cond_broadcast(&d->cv);
        goto out;
    }
    if (d->published <= seq) {
        st = d->fatal;
        goto out;
    }
    b->state = BUF_HELD;
    d->next_seq = seq + 1;
    out->count = b->count;
    out->epoch = b->epoch;
    out->index = b->index;
    out->height = d->cfg.height;
    out->width = d->cfg.width;
    out->channels = d->convert ? 3 : d->cfg.channels;
    out->dtype = d->cfg.dtype;
    out->layout = d->cfg.layout;
    out->device = d->ordinal;
    out->data = b->d_out;
    out->sample_bytes = d->out_sample_bytes;
    out->labels = b->h_labels;
    out->labels_device = b->d_labels;
    out->sample_ids = b->h_ids;
    out->flags = b->h_flags;
    out->bad = b->bad;
    out->ready_event = b->ev_ready;
    out->handle = seq;
out:
    pthread_mutex_unlock(&d->mu);
    if (st == FEED_OK && d->cfg.sync) {
        cudaError_t e = cudaEventSynchronize(b->ev_ready);
        if (e != cudaSuccess) { /* sticky: the context is gone; the batch is not delivered */
            pthread_mutex_lock(&d->mu);
            b->state = BUF_FREE;
            pthread_mutex_unlock(&d->mu);
            set_fatal(d, FEED_E_DEVICE, e, "cudaEventSynchronize (sync mode)");
            return FEED_E_DEVICE;
        }
    }
    return st;
}

/* The buffer of a batch the caller holds, or NULL. */
static cbuf *held(cuda_dev *d, const feed_batch *batch)
{
    cbuf *b = &d->buf[batch->handle % d->depth];
    pthread_mutex_lock(&d->mu);
    int ok = b->state == BUF_HELD && b->seq == batch->handle;
    pthread_mutex_unlock(&d->mu);
    return ok ? b : NULL;
}

static feed_status cuda_release(void *state, const feed_batch *batch, void *stream)
{
    cuda_dev *d = state;
    cbuf *b = held(d, batch);
    if (!b)
        return FEED_E_INVALID;
    feed_status st = FEED_OK;
    int prev = dev_push(d, stream);
    cudaError_t e = cudaEventRecord(b->ev_release, (cudaStream_t)stream);
    if (e != cudaSuccess) {
        /* Without the event nothing orders the reuse after the caller's work
         * (a stream of another device?): wait for our whole device instead,
         * and say so. */
        cudaGetLastError();
        dev_pop(d, prev);
        prev = dev_push(d, NULL);
        cudaDeviceSynchronize();
        cudaGetLastError();
        st = FEED_E_DEVICE;
    }
    dev_pop(d, prev);
    pthread_mutex_lock(&d->mu);
    b->released_on_device = e == cudaSuccess;
    b->state = BUF_FREE;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    return st;
}

static feed_status cuda_wait(void *state, const feed_batch *batch, void *stream)
{
    cuda_dev *d = state;
    cbuf *b = held(d, batch);
    if (!b)
        return FEED_E_INVALID;
    int prev = dev_push(d, stream);
    cudaError_t e = cudaStreamWaitEvent((cudaStream_t)stream, b->ev_ready, 0);
    if (e != cudaSuccess)
        cudaGetLastError();
    dev_pop(d, prev);
    return e == cudaSuccess ? FEED_OK : FEED_E_DEVICE;
}

static void cuda_stats(void *state, feed_stats *st)
{
    cuda_dev *d = state;
    snprintf(st->backend, sizeof st->backend, "cuda:%d", d->ordinal);
    snprintf(st->pinned, sizeof st->pinned, "%s", d->registered ? "registered" : "bounce");
    pthread_mutex_lock(&d->mu);
    st->copy_ns = d->copy_ns;
    st->h2d_bytes = d->h2d_bytes;
    pthread_mutex_unlock(&d->mu);
}

static const feed__device_ops cuda_ops = {
    .name = "cuda",
    .open = cuda_open,
    .start = cuda_start,
    .stop = cuda_stop,
    .next = cuda_next,
    .release = cuda_release,
    .wait = cuda_wait,
    .stats = cuda_stats,
    .close = cuda_close,
};

const feed__device_ops *feed__device_cuda(void)
{
    return &cuda_ops;
}

int feed__device_cuda_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n > 0 ? n : 0;
}
