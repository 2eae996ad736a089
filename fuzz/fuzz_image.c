/*
 * fuzz_image.c - the worker's per-sample path on untrusted bytes: JPEG
 * decode, augment and convert (feed__image_process, feed__convert_sample).
 *
 * Input: FZ_HDR bytes that choose the loader options (every combination one
 * that feed__options_validate() accepts: the transform a worker can be given),
 * then the JPEG file. Output at most 256 x 256 and max_pixels at most
 * FZ_MAX_PIXELS, so one input takes milliseconds, not minutes.
 * Properties: fz_sample()'s (fuzz.h); the same sample twice in one context,
 * with another sample between, gives the same bytes (nothing leaks from one
 * sample into the next); a uint8 HWC "conversion" is a copy, or a mirror.
 */
#include "fuzz.h"
#include "loader/options.h"

#define FZ_HDR 16
#define FZ_MAX_PIXELS (1u << 20) /* OSS-Fuzz's cap for libjpeg-turbo's own decoder */

/* A jitter strength 0..1.75, or a huge one (validate takes any finite value). */
static float jitter(uint32_t nibble)
{
    return nibble == 15 ? 1e6f : nibble / 8.0f;
}

/* Options from the header bytes h[0..FZ_HDR). */
static void options_from(const uint8_t *h, feed_options *o)
{
    feed_options_init(o, sizeof *o);
    strcpy(o->source, "fuzz");
    o->augment = (h[0] & 3) == 3 ? FEED_AUGMENT_TRAIN : h[0] & 3;
    o->exif = (h[0] >> 2) & 1;
    o->roi_decode = (h[0] >> 3) & 1;
    o->dtype = (h[0] >> 4) & 3;
    o->layout = (h[0] >> 6) & 1;
    o->width = 1u + h[1];
    o->height = 1u + h[2];
    o->resize_shorter = (o->width > o->height ? o->width : o->height) + 2u * h[3];
    o->scale_min = (1 + h[4]) / 256.0f;
    o->scale_max = fminf(o->scale_min + (1 - o->scale_min) * (h[5] / 255.0f), 1.0f);
    o->ratio_min = exp2f((h[6] - 128) / 32.0f);
    o->ratio_max = o->ratio_min * exp2f(h[7] / 64.0f);
    o->flip_p = h[8] / 255.0f;
    o->rotate_deg = h[9] >= 128 ? (h[9] - 128) * (180.0f / 127) : 0;
    o->fill = h[10] * 0x010203u & 0xffffffu;
    o->brightness = jitter(h[11] & 15);
    o->contrast = jitter(h[11] >> 4);
    o->saturation = jitter(h[12] & 15);
    o->hue = (h[12] >> 4) / 30.0f;
    o->grayscale_p = h[13] / 255.0f;
    o->max_pixels = h[14] < 16 ? 1u + h[14] * h[14] * 64u : FZ_MAX_PIXELS;
    o->seed = h[15];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < FZ_HDR)
        return 0;
    const uint8_t *jpeg = data + FZ_HDR;
    size_t len = size - FZ_HDR;
    feed_options o, o2;
    options_from(data, &o);
    char err[512];
    feed_status vs = feed__options_validate(&o, err, sizeof err);
    FZ_CHECK(vs == FEED_OK, "the header made options create refuses: %s", err);
    uint64_t epoch = data[15] >> 4, id = data[15] & 15;

    size_t n = (size_t)o.height * o.width * 3;
    uint8_t *hwc = malloc(n), *again = malloc(n);
    void *conv = malloc(n * 4);
    feed__image_ctx *ctx = feed__image_ctx_create();
    FZ_CHECK(hwc && again && conv && ctx, "out of memory");

    int rc = fz_sample(ctx, &o, jpeg, len, epoch, id, hwc, conv);
    if (rc == FEED_OK && o.dtype == FEED_DTYPE_UINT8 && o.layout == FEED_LAYOUT_HWC) {
        float scale[3], bias[3];
        feed__convert_params(o.mean, o.std, scale, bias);
        int flip = data[15] & 1;
        feed__convert_sample(hwc, o.height, o.width, FEED_DTYPE_UINT8, FEED_LAYOUT_HWC, scale, bias,
                             flip, conv);
        const uint8_t *c = conv;
        for (uint32_t y = 0; y < o.height; y++)
            for (uint32_t x = 0; x < o.width; x++) {
                size_t at = ((size_t)y * o.width + x) * 3;
                size_t from = ((size_t)y * o.width + (flip ? o.width - 1 - x : x)) * 3;
                FZ_CHECK(!memcmp(c + at, hwc + from, 3), "uint8 HWC (flip %d) changed pixel %u,%u",
                         flip, x, y);
            }
    }
    if (data[0] & 0x80) {
        /* Another sample in between (the other decode path, other sizes),
         * then this one again: the same status, the same bytes. */
        options_from(data, &o2);
        o2.roi_decode ^= 1;
        o2.width = 1u + (data[2] ^ 0x5a);
        o2.height = 1u + (data[1] ^ 0xa5);
        o2.resize_shorter = (o2.width > o2.height ? o2.width : o2.height) + 2u * data[3];
        vs = feed__options_validate(&o2, err, sizeof err);
        FZ_CHECK(vs == FEED_OK, "%s", err);
        size_t n2 = (size_t)o2.height * o2.width * 3;
        uint8_t *hwc2 = malloc(n2);
        void *conv2 = malloc(n2 * 4);
        FZ_CHECK(hwc2 && conv2, "out of memory");
        fz_sample(ctx, &o2, jpeg, len, epoch + 1, id, hwc2, conv2);
        free(hwc2);
        free(conv2);
        int rc2 = fz_sample(ctx, &o, jpeg, len, epoch, id, again, conv);
        FZ_CHECK(rc2 == rc, "%s, then %s for the same sample", feed_status_name(rc), feed_status_name(rc2));
        FZ_CHECK(rc != FEED_OK || !memcmp(hwc, again, n), "the same sample, other bytes");
    }
    feed__image_ctx_destroy(ctx);
    free(hwc);
    free(again);
    free(conv);
    return 0;
}
