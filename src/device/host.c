/*
 * host.c - the host backend: a batch is the READY host slot itself.
 * Zero copies: the caller reads pixels where the workers wrote them, and the
 * slot goes back to the workers at release.
 */
#include <string.h>

#include "common/internal.h"
#include "device/device.h"

typedef struct host_dev {
    feed__device_config cfg;
    uint8_t *held; /* per slot: its batch is the caller's until release */
} host_dev;

static feed_status host_open(const feed__device_config *cfg, void **state, char *err, size_t errlen)
{
    host_dev *d = feed__calloc(1, sizeof *d);
    if (!d)
        return feed__err(FEED_E_NOMEM, err, errlen, "host backend: out of memory");
    d->cfg = *cfg;
    d->held = feed__calloc(cfg->ring_slots ? cfg->ring_slots : 1, 1);
    if (!d->held) {
        feed__free(d);
        return feed__err(FEED_E_NOMEM, err, errlen, "host backend: out of memory");
    }
    *state = d;
    return FEED_OK;
}

static feed_status host_start(void *state, uint64_t seq)
{
    host_dev *d = state;
    /* (re)started, after a seek: every slot was bound afresh, none is held
     * (a bad_policy=fail batch the seek dropped included) */
    memset(d->held, 0, d->cfg.ring_slots ? d->cfg.ring_slots : 1);
    return FEED_OK;
}

static void host_stop(void *state)
{
}

static feed_status host_next(void *state, uint64_t seq, int64_t timeout_ms, feed_batch *b)
{
    host_dev *d = state;
    feed__slot_view v;
    /* The slot still holds seq - ring_slots (released out of order): only
     * the caller can give it back, so waiting would wait for ever. */
    if (d->held[seq % d->cfg.ring_slots])
        return FEED_E_BUSY;
    feed_status st = d->cfg.wait_ready(d->cfg.ring, seq, timeout_ms, &v);
    if (st != FEED_OK)
        return st;
    b->count = v.count;
    b->epoch = v.epoch;
    b->index = v.index;
    b->height = d->cfg.height;
    b->width = d->cfg.width;
    b->channels = d->cfg.channels;
    b->dtype = d->cfg.host_dtype;
    b->layout = d->cfg.host_layout;
    b->device = -1;
    b->data = v.pixels;
    b->sample_bytes = d->cfg.host_sample_bytes;
    b->labels = v.labels;
    b->labels_device = NULL;
    b->sample_ids = v.sample_ids;
    b->flags = v.flags;
    b->bad = v.bad;
    b->ready_event = NULL;
    b->meta = v.meta; /* the slot's own bytes, no copy */
    b->meta_offsets = v.meta_off;
    b->meta_lengths = v.meta_len;
    b->meta_members = v.meta ? d->cfg.nmeta : 0;
    b->handle = seq;
    d->held[seq % d->cfg.ring_slots] = 1;
    return FEED_OK;
}

static feed_status host_release(void *state, const feed_batch *b, void *stream)
{
    host_dev *d = state;
    d->held[b->handle % d->cfg.ring_slots] = 0;
    d->cfg.release_slot(d->cfg.ring, b->handle);
    return FEED_OK;
}

static feed_status host_wait(void *state, const feed_batch *b, void *stream)
{
    return FEED_OK;
}

static void host_stats(void *state, feed_stats *st)
{
    strcpy(st->backend, "host");
    strcpy(st->pinned, "none");
}

static void host_close(void *state)
{
    host_dev *d = state;
    if (d)
        feed__free(d->held);
    feed__free(d);
}

const feed__device_ops feed__device_host = {
    .name = "host",
    .open = host_open,
    .start = host_start,
    .stop = host_stop,
    .next = host_next,
    .release = host_release,
    .wait = host_wait,
    .stats = host_stats,
    .close = host_close,
};
