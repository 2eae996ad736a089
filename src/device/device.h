/*
 * device.h - the device backend interface: how finished host slots become
 * batches the caller sees.
 *
 * Two implementations: host (device/host.c: the batch *is* the host slot,
 * zero copies) and cuda (src/device/cuda/device_cuda.c: a copier thread moves each READY
 * slot to a device buffer on its own stream, converts it there, and gives
 * the host slot back once the copy's event has fired).
 *
 * The backend sees the host ring only through the two callbacks in
 * feed__device_config, so it knows nothing of workers or the arena layout.
 * Sequence numbers (seq) count batches from the loader's start position,
 * across epochs; the loader maps them to (epoch, index).
 *
 * Nothing here includes CUDA headers. Threads: next/release/wait/stats are
 * called from the loader's (caller's) thread; the backend may run threads of
 * its own which call wait_ready/release_slot.
 */
#ifndef FEED_DEVICE_H
#define FEED_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "feed.h"
#include "pixels/post.h"

/* A READY host slot, as the ring hands it out. Pointers are into the arena
 * and stay valid until release_slot(seq). */
typedef struct feed__slot_view {
    uint64_t seq;
    uint64_t epoch, index; /* position of this batch */
    uint32_t count;        /* samples in it */
    uint32_t bad;          /* samples replaced */
    void *pixels;          /* count * sample_bytes */
    int32_t *labels;
    uint64_t *sample_ids;
    uint8_t *flags;
    /* With a recipe the device finishes (feed__device_config.post,
     * num_classes, max_labels), filled by wait_ready; NULL otherwise. Valid
     * until release_slot(seq), as the rest. */
    const feed__post_sample *post; /* count: erase boxes and mix draws for the kernel */
    const float *soft;             /* count x num_classes soft labels */
    const uint32_t *label_offsets; /* multi_label: count + 1 offsets into label_list */
    const int32_t *label_list;
    const void *targets;           /* count rows of target_row bytes */
    /* Metadata members (feed__device_config.nmeta > 0; NULL otherwise):
     * member j of sample i is meta_len[i * nmeta + j] bytes at meta +
     * meta_off[same], in the host slot, checked. */
    const uint8_t *meta;
    const uint64_t *meta_off;
    const uint32_t *meta_len;
} feed__slot_view;

typedef struct feed__device_config {
    /* per-sample geometry of what the host slot holds */
    uint32_t batch_size, height, width, channels;
    uint32_t host_dtype, host_layout; /* what workers write (uint8 HWC for cuda) */
    uint64_t host_sample_bytes;
    /* what the caller wants delivered */
    uint32_t dtype, layout;
    float mean[3], std[3];
    uint32_t depth;   /* device buffers in flight (device_prefetch) */
    int32_t ordinal;  /* CUDA device; -1 for host */
    uint32_t sync;    /* 1: next() returns only when the data is ready */
    /* The recipe steps after the conversion (pixels/post.h) that a device
     * backend runs itself: the host backend's workers erase and the loader
     * mixes the host slot, so for it these are 0. */
    uint32_t post;            /* 1: each view's post[] is applied by the conversion */
    feed__post_cfg post_cfg;
    uint32_t num_classes;     /* > 0: each view carries soft[] (count x num_classes) */
    uint32_t max_labels;      /* > 0: each view carries multi-label lists, at most this a sample */
    uint32_t target_row;      /* > 0: each view carries targets, rows of this many bytes */
    uint32_t target_dim, target_dtype; /* for feed_batch */
    uint32_t nmeta;           /* > 0: each view carries metadata members, nmeta a sample */
    uint64_t meta_bytes;      /* at most this many bytes of them a sample */
    /* the shared arena: register it once for zero-copy DMA */
    void *arena;
    size_t arena_bytes;
    /* the host ring */
    void *ring;
    uint32_t ring_slots; /* batch seq lives in host slot seq % ring_slots (prefetch) */
    /* Waits until slot seq is READY (timeout_ms as in feed_loader_next) and
     * fills *view. Returns FEED_OK, FEED_E_TIMEOUT, or an async error
     * (FEED_E_WORKER...) that the backend must pass on to the caller. */
    feed_status (*wait_ready)(void *ring, uint64_t seq, int64_t timeout_ms, feed__slot_view *view);
    /* Gives slot seq back to the workers (it will be refilled with seq + prefetch). */
    void (*release_slot)(void *ring, uint64_t seq);
} feed__device_config;

typedef struct feed__device_ops {
    const char *name; /* "host", "cuda" */
    /* Sets up (register the arena, streams, buffers); starts nothing. */
    feed_status (*open)(const feed__device_config *cfg, void **state, char *err, size_t errlen);
    /* Starts delivering from seq (copier thread starts here). */
    feed_status (*start)(void *state, uint64_t seq);
    /* Stops delivering: waits for copies in flight, releases every host slot
     * it still holds back through release_slot, forgets batches not yet
     * returned. After stop, start may be called again (seek). Batches held by
     * the caller must have been released first. */
    void (*stop)(void *state);
    /* Returns batch seq (always the one after the previous, from start). Fills
     * the feed_batch fields data, sample_bytes, dtype, layout, device,
     * labels, labels_device, sample_ids, flags, bad, count, epoch, index,
     * ready_event, height/width/channels, and handle (= seq). */
    feed_status (*next)(void *state, uint64_t seq, int64_t timeout_ms, feed_batch *out);
    /* The caller is done with batch (stream: see feed_batch_release). */
    feed_status (*release)(void *state, const feed_batch *batch, void *stream);
    /* Makes stream wait for the batch's ready event. */
    feed_status (*wait)(void *state, const feed_batch *batch, void *stream);
    /* Adds the backend's fields: backend, pinned, copy_ns, h2d_bytes. */
    void (*stats)(void *state, feed_stats *st);
    /* Frees everything (after stop). Accepts NULL. */
    void (*close)(void *state);
    /* The backend's own reason for its last failure into buf ("" if none),
     * for last_error. Any thread. NULL: the backend has none. */
    void (*error)(void *state, char *buf, size_t len);
    /* What the backend wants known after a successful open that is no
     * failure (cuda: why the arena is not registered and batches take the
     * bounce path) into buf, "" if nothing; the loader puts it in
     * last_error. NULL: the backend has none. */
    void (*note)(void *state, char *buf, size_t len);
} feed__device_ops;

extern const feed__device_ops feed__device_host;

/* The CUDA backend, or NULL when libfeed was built without CUDA. */
const feed__device_ops *feed__device_cuda(void);

/* Number of usable CUDA devices (0 without a GPU, a driver, or CUDA support).
 * Never fails; never initialises a context when there is no device. */
int feed__device_cuda_count(void);
/* The same, and when it is 0 says why in why (if not NULL): no driver, a
 * driver that sees no GPU (CUDA_VISIBLE_DEVICES), a driver too old. */
int feed__device_cuda_probe(char *why, size_t whylen);

#endif /* FEED_DEVICE_H */
