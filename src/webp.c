/*
 * webp.c - WebP decoding on libwebp (webp.h).
 *
 * libwebp decodes into a buffer we own (is_external_memory), in RGBA order,
 * single-threaded (a worker is one decoder; the pool gives the parallelism).
 * Its own cropping (options.use_cropping) is not used: it snaps the crop to
 * even coordinates and would make the pixels depend on where the crop
 * falls, so a WebP is decoded whole and cropped after, like a PNG.
 *
 * Memory, judged from the header before anything is allocated: our RGBA
 * image, plus what libwebp allocates on its own (lossless: an ARGB copy of
 * the image and a few rows of cache; lossy: a few macroblock rows of YUV
 * and, with alpha, an alpha plane): 4 bytes a pixel more bounds both.
 */
#include "webp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>

#include "feed.h"

struct feed__webp {
    uint8_t *buf;
    size_t cap;
};

feed__webp *feed__webp_create(void)
{
    return calloc(1, sizeof(feed__webp));
}

void feed__webp_destroy(feed__webp *w)
{
    if (!w)
        return;
    free(w->buf);
    free(w);
}

static const char *feed__webp_reason(VP8StatusCode s)
{
    switch (s) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "corrupt bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "truncated (not enough data)";
    default: return "decode error";
    }
}

static int feed__webp_fail(VP8StatusCode s, char *msg, size_t msglen)
{
    snprintf(msg, msglen, "WebP: %s", feed__webp_reason(s));
    return s == VP8_STATUS_OUT_OF_MEMORY ? FEED_E_NOMEM : FEED_E_DECODE;
}

int feed__webp_decode(feed__webp *w, const uint8_t *data, size_t len, feed__jpeg_plan_fn plan,
                      void *arg, feed__jpeg_image *img, char *msg, size_t msglen)
{
    char scratch[1];
    if (!msg || !msglen) {
        msg = scratch;
        msglen = sizeof scratch;
    }
    msg[0] = '\0';
    if (!data || len == 0) {
        snprintf(msg, msglen, "WebP: empty data");
        return FEED_E_DECODE;
    }
    WebPDecoderConfig cfg;
    if (!WebPInitDecoderConfig(&cfg)) {
        snprintf(msg, msglen, "internal: libwebp version mismatch");
        return FEED_E_INTERNAL;
    }
    VP8StatusCode s = WebPGetFeatures(data, len, &cfg.input);
    if (s != VP8_STATUS_OK)
        return feed__webp_fail(s, msg, msglen);
    if (cfg.input.has_animation) {
        snprintf(msg, msglen, "WebP: animated WebP is not supported (which frame?)");
        return FEED_E_DECODE;
    }
    if (cfg.input.width <= 0 || cfg.input.height <= 0) {
        snprintf(msg, msglen, "WebP: bad size %dx%d", cfg.input.width, cfg.input.height);
        return FEED_E_DECODE;
    }
    feed__jpeg_info info;
    memset(&info, 0, sizeof info);
    info.width = (uint32_t)cfg.input.width;
    info.height = (uint32_t)cfg.input.height;
    info.components = cfg.input.has_alpha ? 4 : 3;
    info.orientation = 1;

    feed__jpeg_region r;
    memset(&r, 0, sizeof r);
    int rc = plan(arg, &info, &r, msg, msglen);
    if (rc)
        return rc;
    if (r.scale != 8 || r.x0 >= r.x1 || r.y0 >= r.y1 || r.x1 > info.width || r.y1 > info.height) {
        snprintf(msg, msglen, "internal: bad WebP decode region");
        return FEED_E_INTERNAL;
    }
    size_t stride = (size_t)info.width * 4;
    size_t out_len = stride * info.height; /* <= 16383^2 * 4: the format's limit */
    if (r.max_memory) {
        uint64_t need = (uint64_t)len + 2ull * out_len + (uint64_t)info.width * 64 + (256u << 10);
        if (need > r.max_memory) {
            snprintf(msg, msglen, "needs ~%.1f MiB to decode (%ux%u WebP), over max_worker_memory %.1f MiB",
                     (double)need / (1 << 20), info.width, info.height,
                     (double)r.max_memory / (1 << 20));
            return FEED_E_TOO_LARGE;
        }
    }
    if (out_len > w->cap) {
        free(w->buf);
        w->cap = 0;
        w->buf = malloc(out_len);
        if (!w->buf) {
            snprintf(msg, msglen, "out of memory for %zu bytes of pixels", out_len);
            return FEED_E_NOMEM;
        }
        w->cap = out_len;
    }
    cfg.output.colorspace = MODE_RGBA;
    cfg.output.is_external_memory = 1;
    cfg.output.width = cfg.input.width;
    cfg.output.height = cfg.input.height;
    cfg.output.u.RGBA.rgba = w->buf;
    cfg.output.u.RGBA.stride = (int)stride;
    cfg.output.u.RGBA.size = out_len;
    cfg.options.use_threads = 0;
    s = WebPDecode(data, len, &cfg);
    WebPFreeDecBuffer(&cfg.output); /* frees nothing of ours (external memory) */
    if (s != VP8_STATUS_OK)
        return feed__webp_fail(s, msg, msglen);
    img->pixels = w->buf + (size_t)r.y0 * stride + (size_t)r.x0 * 4;
    img->stride = stride;
    img->w = r.x1 - r.x0;
    img->h = r.y1 - r.y0;
    img->scaled_w = info.width;
    img->scaled_h = info.height;
    return 0;
}
