/*
 * register.c - the CUDA backend's resources: the arena registered (pinned)
 * for DMA in chunks, or pinned bounce buffers where it cannot be; the copy
 * and conversion streams; the device buffers, their pinned host arrays and
 * their events. Made at open and freed at close, each time on a short-lived
 * thread whose current device is ours (on_device_thread says why).
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/internal.h"
#include "device/cuda/cuda_dev.h"

/* cudaHostRegister the arena in pieces of at most this much (a copy never
 * straddles two pieces). FEED_CUDA_REGISTER_CHUNK (bytes, rounded down to
 * whole pages) overrides it. */
#define FEED_CUDA_REGISTER_CHUNK ((size_t)1 << 30)

static feed_status cu_err(cudaError_t e, char *err, size_t errlen, const char *what, int ordinal)
{
    return feed__err(FEED_E_DEVICE, err, errlen, "cuda:%d: %s: %s (%s)", ordinal, what,
                     cudaGetErrorString(e), cudaGetErrorName(e));
}

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
        if (b->h_post)
            cudaFreeHost(b->h_post);
        if (b->h_soft)
            cudaFreeHost(b->h_soft);
        cudaFree(b->d_post);
        cudaFree(b->d_soft);
        if (b->h_tgt)
            cudaFreeHost(b->h_tgt);
        cudaFree(b->d_tgt);
        feed__free(b->h_loffs);
        feed__free(b->h_llist);
        feed__free(b->h_meta);
        feed__free(b->h_moff);
        feed__free(b->h_mlen);
        cudaEvent_t *evs[] = {&b->ev_start, &b->ev_copied, &b->ev_ready};
        for (size_t k = 0; k < FEED_ARRAY_SIZE(evs); k++)
            if (*evs[k])
                cudaEventDestroy(*evs[k]);
        for (size_t k = 0; k < FEED_CUDA_USERS; k++) {
            if (b->ev_release[k])
                cudaEventDestroy(b->ev_release[k]);
            if (b->ev_peer[k]) /* in the context it was made in */
                feed__cuda_event_destroy_in(d, b->peer_ctx[k], b->ev_peer[k]);
        }
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

/* Pins the arena for DMA, in chunks. 1: registered; 0: it cannot be (memlock
 * limit, not supported, FEED_FORCE_BOUNCE): use bounce buffers, and say why
 * in d->bounce_why; -1: no memory. */
static int register_arena(cuda_dev *d)
{
    const char *force = getenv("FEED_FORCE_BOUNCE");
    if (force && *force && *force != '0') {
        snprintf(d->bounce_why, sizeof d->bounce_why, "FEED_FORCE_BOUNCE is set");
        return 0;
    }
    if (!d->cfg.arena || !d->cfg.arena_bytes) {
        snprintf(d->bounce_why, sizeof d->bounce_why, "no arena to register");
        return 0;
    }
    size_t chunk = FEED_CUDA_REGISTER_CHUNK;
    const char *env = getenv("FEED_CUDA_REGISTER_CHUNK");
    /* whole pages of this host (64 KiB on some arm64 kernels): two chunks
     * never share one */
    long pg = sysconf(_SC_PAGESIZE);
    const unsigned long long page = pg > 0 ? (unsigned long long)pg : 4096;
    if (env && *env) {
        unsigned long long v = strtoull(env, NULL, 0);
        if (v >= page)
            chunk = (size_t)(v - v % page);
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
            snprintf(d->bounce_why, sizeof d->bounce_why,
                     "cudaHostRegister of %zu bytes at arena offset %zu: %s (%s)", len, i * chunk,
                     cudaGetErrorString(e), cudaGetErrorName(e));
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

/* A driver API function, or NULL (the driver has none by that name). */
static void *driver_fn(const char *name)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q);
#elif CUDART_VERSION >= 12000
    cudaError_t e = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &q);
#else
    cudaError_t e = cudaErrorNotSupported;
#endif
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) {
        cudaGetLastError();
        fn = NULL;
    }
    return fn;
}

/* Our primary context (current on this device thread) and the driver's
 * push/pop, for the calls made on the caller's thread (cuda_dev.h). */
static void find_context(cuda_dev *d)
{
    int (*get)(void **) = NULL;
    void *p = driver_fn("cuCtxGetCurrent");
    memcpy(&get, &p, sizeof p);
    p = driver_fn("cuCtxPushCurrent");
    memcpy(&d->ctx_push, &p, sizeof p);
    p = driver_fn("cuCtxPopCurrent");
    memcpy(&d->ctx_pop, &p, sizeof p);
    p = driver_fn("cuStreamGetCtx");
    memcpy(&d->stream_ctx, &p, sizeof p);
    d->ctx = NULL;
    if (!get || !d->ctx_push || !d->ctx_pop || get(&d->ctx) != 0)
        d->ctx = NULL;
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
        const size_t soft = B * cfg->num_classes * sizeof(float);
        if (cfg->post && ((e = cudaMallocHost((void **)&b->h_post, B * sizeof *b->h_post)) != cudaSuccess ||
                          (e = cudaMalloc((void **)&b->d_post, B * sizeof *b->d_post)) != cudaSuccess))
            goto cuda_fail;
        if (soft && ((e = cudaMallocHost((void **)&b->h_soft, soft)) != cudaSuccess ||
                     (e = cudaMalloc((void **)&b->d_soft, soft)) != cudaSuccess))
            goto cuda_fail;
        const size_t tgt = B * cfg->target_row;
        if (tgt && ((e = cudaMallocHost((void **)&b->h_tgt, tgt)) != cudaSuccess ||
                    (e = cudaMalloc((void **)&b->d_tgt, tgt)) != cudaSuccess))
            goto cuda_fail;
        b->h_ids = feed__calloc(B, sizeof *b->h_ids);
        b->h_flags = feed__calloc(B, 1);
        if (!b->h_ids || !b->h_flags)
            goto nomem;
        if (cfg->max_labels) {
            b->h_loffs = feed__calloc(B + 1, sizeof *b->h_loffs);
            b->h_llist = feed__calloc(B * cfg->max_labels, sizeof *b->h_llist);
            if (!b->h_loffs || !b->h_llist)
                goto nomem;
        }
        if (cfg->nmeta) {
            b->h_meta = feed__malloc(B * cfg->meta_bytes);
            b->h_moff = feed__calloc(B * cfg->nmeta, sizeof *b->h_moff);
            b->h_mlen = feed__calloc(B * cfg->nmeta, sizeof *b->h_mlen);
            if (!b->h_meta || !b->h_moff || !b->h_mlen)
                goto nomem;
        }
        what = "cudaEventCreateWithFlags";
        if ((e = cudaEventCreateWithFlags(&b->ev_start, cudaEventDefault)) != cudaSuccess ||
            (e = cudaEventCreateWithFlags(&b->ev_copied, cudaEventBlockingSync)) != cudaSuccess ||
            (e = cudaEventCreateWithFlags(&b->ev_ready, cudaEventDisableTiming)) != cudaSuccess)
            goto cuda_fail;
        for (size_t k = 0; k < FEED_CUDA_USERS; k++)
            if ((e = cudaEventCreateWithFlags(&b->ev_release[k], cudaEventDisableTiming)) != cudaSuccess)
                goto cuda_fail;
    }
    find_context(d);
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

/* Frees every CUDA resource (on a device thread, see on_device_thread),
 * after the work that may still use them: our streams', and the caller's
 * up to its last release of each buffer (cudaFree "may perform implicit
 * synchronization", which is no promise). */
static void teardown(cuda_dev *d)
{
    if (d->s_copy)
        cudaStreamSynchronize(d->s_copy);
    if (d->s_conv)
        cudaStreamSynchronize(d->s_conv);
    for (uint32_t i = 0; d->buf && i < d->depth; i++)
        for (uint32_t k = 0; k < d->buf[i].nreleased; k++) {
            cbuf *b = &d->buf[i];
            void *c;
            /* a peer event: with its own context current */
            int pushed = b->released[k] == b->ev_peer[k] && d->ctx_push(b->peer_ctx[k]) == 0;
            cudaEventSynchronize(b->released[k]);
            if (pushed)
                d->ctx_pop(&c);
        }
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

feed_status feed__cuda_setup(cuda_dev *d, char *err, size_t errlen)
{
    feed_status st = on_device_thread(d, setup_job, err, errlen);
    if (st != FEED_OK)
        feed__cuda_teardown(d);
    return st;
}

void feed__cuda_teardown(cuda_dev *d)
{
    if (on_device_thread(d, teardown_job, NULL, 0) != FEED_OK)
        teardown(d); /* no thread to be had: from here, then */
}
