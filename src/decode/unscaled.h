/*
 * unscaled.h - the steps the PNG and WebP decoders share (internal).
 *
 * png.c and webp.c each wrap one codec library (and are its only users),
 * but around the library call they do the same things: check the input,
 * call the plan with the header's facts, check the region it returns (no
 * DCT scaling: scale 8), judge the decode's memory against max_memory, keep
 * one pixel buffer between decodes, and hand the region back. Those steps
 * live here once, as small inline functions, so that the two decoders word
 * their errors alike and cannot drift apart. (jpeg.c has its own: its
 * regions are DCT-scaled and its errors come through libjpeg's error_exit.)
 */
#ifndef FEED_UNSCALED_H
#define FEED_UNSCALED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decoder.h"
#include "feed.h"

/* A decoder's pixel buffer, kept between decodes. */
typedef struct feed__pixbuf {
    uint8_t *buf;
    size_t cap;
} feed__pixbuf;

/*
 * Makes pb hold at least need bytes. Unlike feed__grow (common/pixel.h) the size is
 * exact and the contents are not kept: the decode overwrites them, and its
 * memory is what max_memory was judged against. Returns 0 or FEED_E_NOMEM
 * (with a message; pb is then empty).
 */
static inline int feed__pixbuf_reserve(feed__pixbuf *pb, size_t need, char *msg, size_t msglen)
{
    if (need <= pb->cap)
        return 0;
    free(pb->buf);
    pb->cap = 0;
    pb->buf = malloc(need);
    if (!pb->buf) {
        snprintf(msg, msglen, "out of memory for %zu bytes of pixels", need);
        return FEED_E_NOMEM;
    }
    pb->cap = need;
    return 0;
}

/*
 * The start of a decode: points *msg at scratch (one byte) when the caller
 * gave no message buffer, clears the message, and refuses empty data.
 * Returns 0 or FEED_E_DECODE ("FMT: empty data").
 */
static inline int feed__decode_start(char **msg, size_t *msglen, char *scratch, const uint8_t *data,
                                     size_t len, const char *fmt)
{
    if (!*msg || !*msglen) {
        *msg = scratch;
        *msglen = 1;
    }
    (*msg)[0] = '\0';
    if (!data || len == 0) {
        snprintf(*msg, *msglen, "%s: empty data", fmt);
        return FEED_E_DECODE;
    }
    return 0;
}

/*
 * Calls plan with the header's facts and checks the region it fills in *r:
 * scale 8 (these formats cannot be scaled while decoding), not empty, inside
 * the image. Returns 0, the plan's status, or FEED_E_INTERNAL.
 */
static inline int feed__decode_plan(feed__decode_plan_fn plan, void *arg, const feed__decode_info *info,
                                    feed__decode_region *r, const char *fmt, char *msg, size_t msglen)
{
    memset(r, 0, sizeof *r);
    int rc = plan(arg, info, r, msg, msglen);
    if (rc)
        return rc;
    if (r->scale != 8 || r->x0 >= r->x1 || r->y0 >= r->y1 || r->x1 > info->width || r->y1 > info->height) {
        snprintf(msg, msglen, "internal: bad %s decode region", fmt);
        return FEED_E_INTERNAL;
    }
    return 0;
}

/* 0 if a decode needing need bytes fits r->max_memory (0: no cap), else
 * FEED_E_TOO_LARGE with a message giving both and the image's size. */
static inline int feed__decode_fits(const feed__decode_region *r, uint64_t need, const feed__decode_info *info,
                                    const char *fmt, char *msg, size_t msglen)
{
    if (!r->max_memory || need <= r->max_memory)
        return 0;
    snprintf(msg, msglen, "needs ~%.1f MiB to decode (%ux%u %s), over max_worker_memory %.1f MiB",
             (double)need / (1 << 20), info->width, info->height, fmt, (double)r->max_memory / (1 << 20));
    return FEED_E_TOO_LARGE;
}

/* Hands back the region r of a full-size (scale 8) decode whose pixel
 * (r->x0, r->y0) is at pixels. */
static inline void feed__decode_result(feed__decode_image *img, const uint8_t *pixels, size_t stride,
                                       const feed__decode_region *r, const feed__decode_info *info)
{
    img->pixels = pixels;
    img->stride = stride;
    img->w = r->x1 - r->x0;
    img->h = r->y1 - r->y0;
    img->scaled_w = info->width;
    img->scaled_h = info->height;
}

#endif /* FEED_UNSCALED_H */
