/*
 * device_cuda.c - the CUDA backend (src/device/device.h): one copier thread moves
 * each READY host slot to a device buffer on a copy stream of its own,
 * converts it there on a second stream, and gives the host slot back as soon
 * as the copy (not the conversion) has completed.
 *
 * Plain C against the CUDA runtime API (cudart_static), so libfeed loads and
 * runs on machines without a driver or a GPU: nothing here runs at load time,
 * and feed__device_cuda_count() says 0 there. The GPU-less tests compile these
 * same files against tests/fake_cuda.c.
 *
 * This file is the interface; the state, the device buffers and the ordering
 * contract are in cuda_dev.h, the resources in register.c, the copier thread
 * in copier.c.
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/internal.h"
#include "device/cuda/cuda_dev.h"
#include "pixels/convert.h"

static int is_default_stream(const void *stream)
{
    return !stream || stream == (void *)cudaStreamLegacy || stream == (void *)cudaStreamPerThread;
}

/* Makes our primary context current to the caller's thread for the calls
 * made on its behalf (cuda_dev.h); dev_pop puts back exactly what it had. A
 * runtime call on a thread with no current context initialises the primary
 * context of the thread's chosen device (0 if it chose none): without this,
 * a caller that never used device 0 would get a context there. Returns what
 * dev_pop needs: 1 pushed; 0 nothing done; -2 - prev: the device to put back
 * (no driver entry points: the caller's device, set and put back, for the
 * default streams only). */
static int dev_push(const cuda_dev *d, int default_stream)
{
    if (d->ctx)
        return d->ctx_push(d->ctx) == 0;
    if (!default_stream)
        return 0;
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    if (prev == d->ordinal || cudaSetDevice(d->ordinal) != cudaSuccess)
        return 0;
    return -2 - prev;
}

static void dev_pop(const cuda_dev *d, int token)
{
    void *ctx;
    if (token == 1)
        d->ctx_pop(&ctx);
    else if (token <= -2)
        cudaSetDevice(-2 - token);
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

static void bounce_note(const cuda_dev *d, char *buf, size_t len)
{
    snprintf(buf, len,
             "cuda:%d: the arena is not registered (%s): every batch goes through a pinned bounce buffer, "
             "one more copy on the host",
             d->ordinal, d->bounce_why);
}

static feed_status cuda_open(const feed__device_config *cfg, void **state, char *err, size_t errlen)
{
    *state = NULL;
    const int ord = cfg->ordinal;
    /* the recipe's erasing and mixing run in the conversion kernel */
    const int convert = !(cfg->dtype == cfg->host_dtype && cfg->layout == cfg->host_layout) || cfg->post;
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
    char why[160];
    const int count = feed__device_cuda_probe(why, sizeof why);
    if (!count)
        return feed__err(FEED_E_DEVICE, err, errlen, "cuda: no usable CUDA device: %s", why);
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

    feed_status st = feed__cuda_setup(d, err, errlen);
    if (st != FEED_OK) {
        pthread_cond_destroy(&d->cv);
        pthread_mutex_destroy(&d->mu);
        feed__free(d);
        return st;
    }
    if (!d->registered) { /* a slower path than asked for: on stderr once, as a caller may not look */
        static atomic_int said;
        const char *force = getenv("FEED_FORCE_BOUNCE");
        if (!(force && *force && *force != '0') && !atomic_exchange(&said, 1)) {
            char note[320];
            bounce_note(d, note, sizeof note);
            fprintf(stderr, "libfeed: %s\n", note);
        }
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
    if (feed__thread_start(&d->thread, feed__cuda_copier_main, d, "feed-copier") != 0)
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
    int tok = dev_push(d, 0);
    cudaStreamSynchronize(d->s_copy);
    cudaStreamSynchronize(d->s_conv);
    cudaGetLastError();
    dev_pop(d, tok);
    pthread_mutex_lock(&d->mu);
    for (uint32_t i = 0; i < d->depth; i++)
        d->buf[i].state = BUF_FREE;
    d->err_pending = 0;
    d->stop = 0;
    pthread_mutex_unlock(&d->mu);
}

static void cuda_close(void *state)
{
    cuda_dev *d = state;
    if (!d)
        return;
    cuda_stop(d);
    feed__cuda_teardown(d);
    pthread_cond_destroy(&d->cv);
    pthread_mutex_destroy(&d->mu);
    feed__free(d);
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
    out->soft_labels = b->h_soft;
    out->soft_labels_device = b->d_soft;
    out->num_classes = b->h_soft ? d->cfg.num_classes : 0;
    out->label_offsets = b->h_loffs;
    out->label_list = b->h_llist;
    out->targets = b->h_tgt;
    out->meta = b->h_meta;
    out->meta_offsets = b->h_moff;
    out->meta_lengths = b->h_mlen;
    out->meta_members = b->h_meta ? d->cfg.nmeta : 0;
    out->targets_device = b->d_tgt;
    out->target_dim = b->h_tgt ? d->cfg.target_dim : 0;
    out->target_dtype = b->h_tgt ? d->cfg.target_dtype : 0;
    out->bad = b->bad;
    out->ready_event = b->ev_ready;
    out->handle = seq;
    b->nusers = 0;
out:
    pthread_mutex_unlock(&d->mu);
    if (st == FEED_OK && d->cfg.sync) {
        int tok = dev_push(d, 0);
        cudaError_t e = cudaEventSynchronize(b->ev_ready);
        dev_pop(d, tok);
        if (e != cudaSuccess) { /* sticky: the context is gone; the batch is not delivered */
            pthread_mutex_lock(&d->mu);
            b->state = BUF_FREE;
            pthread_mutex_unlock(&d->mu);
            feed__cuda_set_fatal(d, FEED_E_DEVICE, e, "cudaEventSynchronize (sync mode)");
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

void feed__cuda_event_destroy_in(const cuda_dev *d, void *ctx, cudaEvent_t ev)
{
    void *c;
    int pushed = ctx && d->ctx_push && d->ctx_push(ctx) == 0;
    cudaEventDestroy(ev);
    if (pushed)
        d->ctx_pop(&c);
}

/* An event of stream's context, for a stream of another device: ev_peer[k],
 * made there (once per buffer and context), recorded on it. */
static cudaEvent_t record_peer(cuda_dev *d, cbuf *b, uint32_t k, void *stream)
{
    void *sctx = NULL, *c;
    if (!d->stream_ctx || is_default_stream(stream) || d->stream_ctx(stream, &sctx) != 0 || !sctx ||
        sctx == d->ctx || d->ctx_push(sctx) != 0)
        return NULL;
    cudaError_t e = cudaSuccess;
    if (b->peer_ctx[k] != sctx) {
        if (b->ev_peer[k])
            feed__cuda_event_destroy_in(d, b->peer_ctx[k], b->ev_peer[k]);
        b->ev_peer[k] = NULL;
        b->peer_ctx[k] = NULL;
        if ((e = cudaEventCreateWithFlags(&b->ev_peer[k], cudaEventDisableTiming)) == cudaSuccess)
            b->peer_ctx[k] = sctx;
        else
            b->ev_peer[k] = NULL;
    }
    if (e == cudaSuccess)
        e = cudaEventRecord(b->ev_peer[k], (cudaStream_t)stream);
    if (e != cudaSuccess)
        cudaGetLastError();
    d->ctx_pop(&c);
    return e == cudaSuccess ? b->ev_peer[k] : NULL;
}

/* Records a release event on stream as b->released[k]: ours, or for a
 * stream of another device one of its own context; where neither can be,
 * waits for the stream on the host. 1 if an event was recorded. */
static int record_release(cuda_dev *d, cbuf *b, uint32_t k, void *stream, pthread_t who)
{
    if (stream == (void *)cudaStreamPerThread && !pthread_equal(who, pthread_self())) {
        /* another thread's per-thread default stream: none can name it from
         * here; our device's streams, its included, are waited for */
        if (cudaDeviceSynchronize() != cudaSuccess)
            cudaGetLastError();
        return 0;
    }
    cudaError_t e = cudaEventRecord(b->ev_release[k], (cudaStream_t)stream);
    if (e == cudaSuccess) {
        b->released[k] = b->ev_release[k];
        return 1;
    }
    cudaGetLastError();
    if ((b->released[k] = record_peer(d, b, k, stream)) != NULL)
        return 1;
    if (cudaStreamSynchronize((cudaStream_t)stream) != cudaSuccess)
        cudaGetLastError();
    return 0;
}

static feed_status cuda_release(void *state, const feed_batch *batch, void *stream)
{
    cuda_dev *d = state;
    cbuf *b = held(d, batch);
    if (!b)
        return FEED_E_INVALID;
    int tok = dev_push(d, is_default_stream(stream));
    /* every stream the batch was waited for on may still read it: an event
     * on each, the release stream's included */
    uint32_t n = 0, nu = b->nusers;
    int on_release_stream = 0;
    for (uint32_t i = 0; i < nu; i++) {
        on_release_stream |= b->users[i] == stream && pthread_equal(b->user_thread[i], pthread_self());
        n += record_release(d, b, n, b->users[i], b->user_thread[i]);
    }
    if (!on_release_stream)
        n += record_release(d, b, n, stream, pthread_self());
    dev_pop(d, tok);
    pthread_mutex_lock(&d->mu);
    b->nreleased = n;
    b->nusers = 0;
    b->state = BUF_FREE;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
    return FEED_OK;
}

static feed_status cuda_wait(void *state, const feed_batch *batch, void *stream)
{
    cuda_dev *d = state;
    cbuf *b = held(d, batch);
    if (!b)
        return FEED_E_INVALID;
    uint32_t i = 0;
    while (i < b->nusers && !(b->users[i] == stream && pthread_equal(b->user_thread[i], pthread_self())))
        i++;
    if (i == FEED_CUDA_USERS)
        return FEED_E_BUSY; /* no release event left for one more stream */
    int tok = dev_push(d, is_default_stream(stream));
    cudaError_t e = cudaStreamWaitEvent((cudaStream_t)stream, b->ev_ready, 0);
    if (e != cudaSuccess)
        cudaGetLastError();
    dev_pop(d, tok);
    if (e == cudaSuccess && i == b->nusers) {
        b->users[i] = stream;
        b->user_thread[i] = pthread_self();
        b->nusers++;
    }
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

static void cuda_error(void *state, char *buf, size_t len)
{
    cuda_dev *d = state;
    pthread_mutex_lock(&d->mu);
    snprintf(buf, len, "%s", d->fatal != FEED_OK ? d->fatal_msg : "");
    pthread_mutex_unlock(&d->mu);
}

static void cuda_note(void *state, char *buf, size_t len)
{
    const cuda_dev *d = state;
    if (d->registered)
        snprintf(buf, len, "%s", "");
    else
        bounce_note(d, buf, len);
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
    .error = cuda_error,
    .note = cuda_note,
};

const feed__device_ops *feed__device_cuda(void)
{
    return &cuda_ops;
}

/* Why cudaGetDeviceCount() found no device: the driver, or the GPU? */
static void no_device_why(cudaError_t e, char *why, size_t whylen)
{
#if defined(FEED_FAKE_CUDA)
    const int driver = 1; /* tests/fake_cuda.c is the driver */
#else
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD); /* the runtime loaded it if it could */
    const int driver = lib != NULL;
    if (lib)
        dlclose(lib);
#endif
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (!driver)
        snprintf(why, whylen, "no NVIDIA driver (libcuda.so.1 is not installed or cannot be loaded)");
    else if (e == cudaSuccess || e == cudaErrorNoDevice)
        snprintf(why, whylen, "the NVIDIA driver is there but sees no GPU%s%s%s", vis ? " (CUDA_VISIBLE_DEVICES=" : "",
                 vis ? vis : "", vis ? ")" : "");
    else if (e == cudaErrorInsufficientDriver)
        snprintf(why, whylen, "the NVIDIA driver is older than libfeed's CUDA runtime");
    else
        snprintf(why, whylen, "%s", cudaGetErrorString(e));
}

int feed__device_cuda_probe(char *why, size_t whylen)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        n = 0;
    }
    if (n <= 0 && why && whylen)
        no_device_why(e, why, whylen);
    return n > 0 ? n : 0;
}

int feed__device_cuda_count(void)
{
    return feed__device_cuda_probe(NULL, 0);
}
