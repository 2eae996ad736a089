/*
 * webp.c - WebP decoding on libwebp (webp.h).
 *
 * libwebp decodes into a buffer we own (is_external_memory), in RGBA order,
 * single-threaded (a worker is one decoder; the pool gives the parallelism).
 *
 * Region: libwebp's own cropping (options.use_cropping) decodes only the
 * macroblock rows down to the crop and converts only its pixels; its fancy
 * chroma upsampler treats the crop's edges as the image's, so the crop is
 * widened by FEED_WEBP_MARGIN pixels on each side (and its origin made even,
 * as libwebp snaps it) and a pointer past the margin handed back: the
 * region is then bit-identical to a full decode's (tests/test_webp.c checks
 * random regions of lossy, lossy+alpha and lossless files). A file cut short
 * anywhere is still an error: the RIFF chunk sizes say how long it must be.
 *
 * Memory, judged from the header before anything is allocated: our RGBA
 * image, plus what libwebp allocates on its own (lossless: an ARGB copy of
 * the image and a few rows of cache; lossy: a few macroblock rows of YUV
 * and, with alpha, an alpha plane): 4 bytes a pixel more bounds both.
 */
#include "decode/webp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>

#include "decode/unscaled.h"
#include "feed.h"

/* Pixels decoded beyond the region on each side (inside the image). Two
 * cover the upsampler's reach at 2x chroma subsampling; 8 for margin. */
#define FEED_WEBP_MARGIN 8u

struct feed__webp {
    feed__pixbuf px;
};

feed__webp *feed__webp_create(void)
{
    return calloc(1, sizeof(feed__webp));
}

void feed__webp_destroy(feed__webp *w)
{
    if (!w)
        return;
    free(w->px.buf);
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

int feed__webp_decode(feed__webp *w, const uint8_t *data, size_t len, feed__decode_plan_fn plan,
                      void *arg, feed__decode_image *img, char *msg, size_t msglen)
{
    char scratch[1];
    int rc = feed__decode_start(&msg, &msglen, scratch, data, len, "WebP");
    if (rc)
        return rc;
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
    feed__decode_info info;
    memset(&info, 0, sizeof info);
    info.width = (uint32_t)cfg.input.width;
    info.height = (uint32_t)cfg.input.height;
    info.components = cfg.input.has_alpha ? 4 : 3;
    info.orientation = 1;

    feed__decode_region r;
    rc = feed__decode_plan(plan, arg, &info, &r, "WebP", msg, msglen);
    if (rc)
        return rc;
    /* the decoded rectangle: the region widened by the margin, origin even */
    uint32_t cx0 = (r.x0 > FEED_WEBP_MARGIN ? r.x0 - FEED_WEBP_MARGIN : 0) & ~1u;
    uint32_t cy0 = (r.y0 > FEED_WEBP_MARGIN ? r.y0 - FEED_WEBP_MARGIN : 0) & ~1u;
    uint32_t cx1 = info.width - r.x1 > FEED_WEBP_MARGIN ? r.x1 + FEED_WEBP_MARGIN : info.width;
    uint32_t cy1 = info.height - r.y1 > FEED_WEBP_MARGIN ? r.y1 + FEED_WEBP_MARGIN : info.height;
    int crop = cx0 > 0 || cy0 > 0 || cx1 < info.width || cy1 < info.height;
    size_t stride = (size_t)(cx1 - cx0) * 4;
    size_t out_len = stride * (cy1 - cy0); /* <= 16383^2 * 4: the format's limit */
    /* judged on the whole image: libwebp's lossless decoder keeps whole rows */
    uint64_t whole = (uint64_t)info.width * info.height * 4;
    uint64_t need = (uint64_t)len + 2ull * whole + (uint64_t)info.width * 64 + (256u << 10);
    rc = feed__decode_fits(&r, need, &info, "WebP", msg, msglen);
    if (!rc)
        rc = feed__pixbuf_reserve(&w->px, out_len, msg, msglen);
    if (rc)
        return rc;
    cfg.output.colorspace = MODE_RGBA;
    cfg.output.is_external_memory = 1;
    cfg.output.width = (int)(cx1 - cx0);
    cfg.output.height = (int)(cy1 - cy0);
    cfg.output.u.RGBA.rgba = w->px.buf;
    cfg.output.u.RGBA.stride = (int)stride;
    cfg.output.u.RGBA.size = out_len;
    cfg.options.use_threads = 0;
    if (crop) {
        cfg.options.use_cropping = 1;
        cfg.options.crop_left = (int)cx0;
        cfg.options.crop_top = (int)cy0;
        cfg.options.crop_width = (int)(cx1 - cx0);
        cfg.options.crop_height = (int)(cy1 - cy0);
    }
    s = WebPDecode(data, len, &cfg);
    WebPFreeDecBuffer(&cfg.output); /* frees nothing of ours (external memory) */
    if (s != VP8_STATUS_OK)
        return feed__webp_fail(s, msg, msglen);
    feed__decode_result(img, w->px.buf + (size_t)(r.y0 - cy0) * stride + (size_t)(r.x0 - cx0) * 4, stride, &r,
                        &info);
    return 0;
}
