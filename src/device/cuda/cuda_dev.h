/*
 * cuda_dev.h - the CUDA backend's state, shared by its files (private to
 * cuda/; nothing outside cuda/ includes CUDA headers):
 *
 *   device_cuda.c  the feed__device_ops interface: open, start, stop, next,
 *                  release, wait, stats, close
 *   register.c     the CUDA resources: the registered (pinned) arena, the
 *                  streams, the device buffers and their events
 *   copier.c       the copier thread: READY host slots to device buffers
 *
 * Per device buffer d (depth of them, batch seq uses d = seq % depth):
 *   stage (uint8, host format) -> out (caller's dtype/layout; == stage when
 *   no conversion is needed), labels, pinned host labels/ids/flags, and the
 *   events start/copied (timing, copy_ns), ready and release. With a recipe
 *   (RandomErasing, MixUp/CutMix, soft labels) also the per-sample post
 *   parameters and the soft labels, pinned and on the device, copied with
 *   the labels; the conversion kernel then erases and mixes as it converts
 *   (pixels/post.h), reading each sample's partner from stage.
 *
 * Ordering contract (what makes it safe):
 *  1. Device buffer reuse. The copier fills d for seq only when the caller has
 *     released seq - depth (host flag, under mu), and the copy stream first
 *     waits on-device for d's release events (one recorded at release on each
 *     stream the batch was waited for on, and on the release stream) and for
 *     ev_ready[d] (the previous conversion, which reads stage[d]). No host
 *     stall on the caller's work. A stream of another device gets an event
 *     made in its own context (an event is recorded only on its device's
 *     streams; a stream may wait for any device's); where even that fails,
 *     the stream is synchronised on the host at release.
 *     Close waits for the last release events before it frees a buffer
 *     (cudaFree "may", not must, synchronise).
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
 * and release push our primary context onto the caller's thread for their
 * calls and pop it after, so the caller's current context (or its having
 * none: no context is ever made on a device it did not use) is left as it
 * was. The default streams (NULL, cudaStreamLegacy, cudaStreamPerThread) are
 * therefore the batch's device's.
 */
#ifndef FEED_CUDA_DEV_H
#define FEED_CUDA_DEV_H

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "device/device.h"

enum { BUF_FREE, BUF_FILLING, BUF_PUBLISHED, BUF_HELD };

/* Streams a held batch may be waited for on (feed_batch_wait) before its
 * release: one release event each. */
#define FEED_CUDA_USERS 8

typedef struct cbuf {
    uint8_t *d_stage;   /* batch_size * host_sample_bytes, device */
    void *d_out;        /* batch_size * out_sample_bytes, device (== d_stage: no conversion) */
    int32_t *d_labels;  /* batch_size, device */
    uint8_t *h_bounce;  /* pinned copy of the slot's pixels (bounce mode) */
    int32_t *h_labels;  /* pinned: source of the labels copy, and batch.labels */
    uint64_t *h_ids;
    uint8_t *h_flags;
    /* the recipe's (cfg.post / num_classes / max_labels; NULL when off) */
    feed__post_sample *h_post, *d_post; /* pinned source and device copy, batch_size */
    float *h_soft, *d_soft;             /* pinned (batch.soft_labels) and device, batch_size x num_classes */
    uint32_t *h_loffs;                  /* multi-label lists (host only): batch_size + 1 */
    int32_t *h_llist;                   /* batch_size x max_labels */
    uint8_t *h_tgt, *d_tgt;             /* targets: pinned (batch.targets) and device, batch_size rows */
    uint8_t *h_meta;                    /* metadata members (host only): batch_size x meta_bytes, */
    uint64_t *h_moff;                   /* packed one after another, and where each is and how long */
    uint32_t *h_mlen;                   /* (batch_size x nmeta each) */
    cudaEvent_t ev_start, ev_copied; /* timing events around the H2D copies */
    cudaEvent_t ev_ready;            /* the batch is complete on the device */
    /* One release event per stream that used the batch (each stream wait()
     * was given, and release()'s): recorded on each at release. */
    cudaEvent_t ev_release[FEED_CUDA_USERS];
    /* The same for a stream of another device (its context's, made there
     * on first use, since an event is recorded only on its own device's
     * streams); peer_ctx: where ev_peer[k] was made. */
    cudaEvent_t ev_peer[FEED_CUDA_USERS];
    void *peer_ctx[FEED_CUDA_USERS];
    cudaEvent_t released[FEED_CUDA_USERS]; /* the events recorded at the last release... */
    uint32_t nreleased;                    /* ...this many */
    void *users[FEED_CUDA_USERS];    /* the streams wait() was given (caller's thread, while held) */
    pthread_t user_thread[FEED_CUDA_USERS]; /* who gave each (a per-thread default stream is theirs) */
    uint32_t nusers;
    int used;                        /* ev_copied/ev_ready were recorded at least once */
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
    char bounce_why[160]; /* why the arena is not registered ("" when it is) */
    /* Our device's primary context, made current to the caller's thread for
     * the calls made on its behalf (cuCtxPushCurrent/PopCurrent through
     * cudaGetDriverEntryPoint) so that its own current context, or the lack
     * of one, is left exactly as it was. NULL: not available; then
     * cudaSetDevice and back, only for the default streams. */
    void *ctx;
    int (*ctx_push)(void *ctx);
    int (*ctx_pop)(void **ctx);
    int (*stream_ctx)(void *stream, void **ctx); /* cuStreamGetCtx */
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

/* ---- register.c ---------------------------------------------------------------- */

/* Registers the arena (or allocates bounce buffers where it cannot be) and
 * creates the streams, device buffers and events, on a device thread. On
 * failure frees what was made (feed__cuda_teardown) before it returns. */
feed_status feed__cuda_setup(cuda_dev *d, char *err, size_t errlen);

/* Frees every CUDA resource of d (after synchronizing its streams) and
 * unregisters the arena, on a device thread when one can be had. */
void feed__cuda_teardown(cuda_dev *d);

/* ---- device_cuda.c ------------------------------------------------------------ */

/* Destroys ev with ctx (the context it was made in) current, if any. */
void feed__cuda_event_destroy_in(const cuda_dev *d, void *ctx, cudaEvent_t ev);

/* ---- copier.c ------------------------------------------------------------------ */

/* The copier thread (arg: the cuda_dev), started by cuda_start from d->cseq.
 * It ends on d->stop or a fatal error, having returned every slot it held. */
void *feed__cuda_copier_main(void *arg);

/* The first fatal error wins; the copier ends and next() returns it. */
void feed__cuda_set_fatal(cuda_dev *d, feed_status st, cudaError_t e, const char *what);

#endif
