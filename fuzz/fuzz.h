/*
 * fuzz.h - what the fuzz targets share: a failed property aborts (libFuzzer
 * saves the input), and one sample runs as a worker runs it.
 */
#ifndef FEED_FUZZ_H
#define FEED_FUZZ_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feed.h"
#include "pixels/convert.h"
#include "pixels/erase.h"
#include "pixels/pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond, ...)                                                   \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* Elements of a converted sample that are not finite in dtype. */
static inline size_t fz_nonfinite(uint32_t dtype, const void *out, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (dtype == FEED_DTYPE_FLOAT32)
            bad += !isfinite(((const float *)out)[i]);
        else if (dtype == FEED_DTYPE_FLOAT16)
            bad += (((const uint16_t *)out)[i] & 0x7c00u) == 0x7c00u;
        else if (dtype == FEED_DTYPE_BFLOAT16)
            bad += (((const uint16_t *)out)[i] & 0x7f80u) == 0x7f80u;
    }
    return bad;
}

/*
 * One sample of a loader with (validated) options o, as src/worker/loop.c runs it:
 * decode + augment into hwc (height*width*3 bytes), then, unless the output
 * is uint8 HWC, convert into conv (height*width*3 elements of dtype).
 * Checks what image.h promises for any bytes: a status among OK, DECODE,
 * TOO_LARGE; a message with every error; a finite output. Returns the status.
 */
static inline int fz_sample(feed__image_ctx *ctx, const feed_options *o, const uint8_t *data,
                            size_t len, uint64_t epoch, uint64_t id, uint8_t *hwc, void *conv)
{
    feed__xform x;
    feed__xform_from_options(&x, o); /* as feed_loader_create() fills the arena's */
    feed__image_info info;
    char msg[256];
    int rc = feed__image_process(ctx, &x, data, len, o->seed, epoch, id, hwc, &info, msg, sizeof msg);
    FZ_CHECK(rc == FEED_OK || rc == FEED_E_DECODE || rc == FEED_E_TOO_LARGE, "status %s: %s",
             feed_status_name(rc), msg);
    FZ_CHECK(rc == FEED_OK || msg[0], "%s without a message", feed_status_name(rc));
    if (rc != FEED_OK)
        return rc;
    FZ_CHECK(info.src_w > 0 && info.src_h > 0, "decoded %ux%u", info.src_w, info.src_h);
    int converted = o->dtype != FEED_DTYPE_UINT8 || o->layout != FEED_LAYOUT_HWC;
    if (converted) {
        float scale[3], bias[3];
        feed__convert_params(o->mean, o->std, scale, bias);
        feed__convert_sample(hwc, o->height, o->width, o->dtype, o->layout, scale, bias, 0, conv);
    }
    /* RandomErasing, on the output as the worker does it (worker/loop.c) */
    feed__erase_sample(&x, o->seed, epoch, id, o->dtype, o->layout, converted ? conv : (void *)hwc);
    if (converted) {
        size_t n = (size_t)o->height * o->width * 3;
        size_t bad = fz_nonfinite(o->dtype, conv, n);
        FZ_CHECK(bad == 0, "%zu of %zu values not finite (dtype %u)", bad, n, o->dtype);
    }
    return rc;
}

#endif
