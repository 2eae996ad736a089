/*
 * copier.c - the CUDA backend's copier thread: takes READY host slots in
 * batch order, copies each into its device buffer on the copy stream,
 * converts it on the conversion stream, publishes it to next(), and gives
 * the host slot back once the copy has completed. The ordering contract it
 * keeps is at the top of cuda_dev.h.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/internal.h"
#include "device/cuda/convert_launch.h"
#include "device/cuda/cuda_dev.h"

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

/* The errors of "an exception on the device while executing a kernel"
 * (load/store faults, traps, asserts, timeouts): asynchronous and sticky,
 * returned by whichever call comes next, a copy's included. */
static int kernel_fault(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
        return 1;
    default:
        return 0;
    }
}

void feed__cuda_set_fatal(cuda_dev *d, feed_status st, cudaError_t e, const char *what)
{
    /* Our one kernel is the conversion: a fault the copy stream's next call
     * reports is the kernel's, not the copy's. Without a conversion there is
     * no kernel of ours to blame. */
    if (d->convert && kernel_fault(e))
        what = "convert (the conversion kernel faulted; reported by a later call)";
    pthread_mutex_lock(&d->mu);
    if (d->fatal == FEED_OK) {
        d->fatal = st;
        snprintf(d->fatal_msg, sizeof d->fatal_msg, "cuda:%d: %s: %s", d->ordinal, what,
                 e != cudaSuccess ? cudaGetErrorString(e) : feed_strerror(st));
        /* Also in last_error (feed__device_ops.error); on stderr once, as a
         * caller may not look. */
        fprintf(stderr, "libfeed: %s\n", d->fatal_msg);
    }
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
}

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
        feed__cuda_set_fatal(d, FEED_E_DEVICE, e, "copy");
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

/* The recipe's arrays of view v into buffer b's host arrays (their
 * previous copy is done: contract 3). 0 if the view lacks one the
 * configuration promised (a loader defect; the copier stops). */
static int recipe_arrays(cuda_dev *d, cbuf *b, const feed__slot_view *v)
{
    const feed__device_config *c = &d->cfg;
    if ((b->h_post && !v->post) || (b->h_soft && !v->soft) || (b->h_tgt && !v->targets) ||
        (b->h_loffs && (!v->label_offsets || !v->label_list)) || (b->h_meta && (!v->meta || !v->meta_len)))
        return 0;
    if (b->h_meta) { /* packed: the slot goes back to the workers once its pixels are copied */
        uint64_t at = 0, n = (uint64_t)v->count * c->nmeta;
        for (uint64_t k = 0; k < n; k++) {
            if (v->meta_len[k] > c->meta_bytes * v->count - at)
                return 0;
            memcpy(b->h_meta + at, v->meta + v->meta_off[k], v->meta_len[k]);
            b->h_moff[k] = at;
            b->h_mlen[k] = v->meta_len[k];
            at += v->meta_len[k];
        }
    }
    if (b->h_tgt)
        memcpy(b->h_tgt, v->targets, (size_t)v->count * c->target_row);
    if (b->h_post)
        memcpy(b->h_post, v->post, v->count * sizeof *b->h_post);
    if (b->h_soft)
        memcpy(b->h_soft, v->soft, (size_t)v->count * c->num_classes * sizeof(float));
    if (b->h_loffs) {
        uint32_t n = v->label_offsets[v->count];
        if (v->label_offsets[0] != 0 || n > (uint64_t)v->count * c->max_labels)
            return 0;
        memcpy(b->h_loffs, v->label_offsets, (v->count + 1) * sizeof *b->h_loffs);
        memcpy(b->h_llist, v->label_list, n * sizeof *b->h_llist);
    }
    return 1;
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
    *what = "recipe";
    if (!recipe_arrays(d, b, v))
        return cudaErrorInvalidValue;
    if (!d->registered) {
        memcpy(b->h_bounce, v->pixels, pix);
        c->release_slot(c->ring, v->seq);
        *slot_returned = 1;
    }

    /* contract 1: the caller is done with the buffer, and so is our kernel */
    *what = "stream wait";
    for (uint32_t k = 0; k < b->nreleased; k++)
        if ((e = cudaStreamWaitEvent(d->s_copy, b->released[k], 0)) != cudaSuccess)
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
    if (e == cudaSuccess && b->h_post)
        e = cudaMemcpyAsync(b->d_post, b->h_post, v->count * sizeof *b->h_post, cudaMemcpyHostToDevice,
                            d->s_copy);
    if (e == cudaSuccess && b->h_soft)
        e = cudaMemcpyAsync(b->d_soft, b->h_soft, (size_t)v->count * c->num_classes * sizeof(float),
                            cudaMemcpyHostToDevice, d->s_copy);
    if (e == cudaSuccess && b->h_tgt)
        e = cudaMemcpyAsync(b->d_tgt, b->h_tgt, (size_t)v->count * c->target_row, cudaMemcpyHostToDevice,
                            d->s_copy);
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
                                                       c->layout, d->scale, d->bias, NULL,
                                                       c->post ? &c->post_cfg : NULL, b->d_post, d->s_conv);
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
    d->h2d_bytes += pix + v->count * sizeof(int32_t) + (b->h_post ? v->count * sizeof *b->h_post : 0) +
                    (b->h_soft ? (uint64_t)v->count * c->num_classes * sizeof(float) : 0) +
                    (b->h_tgt ? (uint64_t)v->count * c->target_row : 0);
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

void *feed__cuda_copier_main(void *arg)
{
    cuda_dev *d = arg;
    const feed__device_config *c = &d->cfg;
    cudaError_t e = cudaSetDevice(d->ordinal);
    if (e != cudaSuccess) {
        feed__cuda_set_fatal(d, FEED_E_DEVICE, e, "cudaSetDevice in the copier");
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
            feed__cuda_set_fatal(d, FEED_E_INTERNAL, cudaSuccess, "slot holds more samples than batch_size");
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
            feed__cuda_set_fatal(d, FEED_E_DEVICE, e, what);
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
