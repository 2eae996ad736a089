/*
 * pipeline.h - the per-sample pixel pipeline: JPEG, PNG or WebP bytes in, uint8
 * HWC RGB out.
 *
 * Pure stages, no shared state: the decoders of decode/ (JPEG, PNG, WebP,
 * each the only user of its codec library) decode, chosen by the data's
 * magic bytes (common/format.h), never the file name; geometry.c places the
 * crop, orients, flips and rotates, resize.c resamples, colour.c jitters,
 * ycc.c turns a JPEG's resized planes into RGB; pipeline.c runs them in
 * order. A worker owns one feed__image_ctx and calls feed__image_process()
 * once per sample; the ctx keeps the decoders and scratch buffers between
 * calls so the steady state does no allocation.
 *
 * Randomness: every random choice is drawn from rng.h streams keyed by
 * (seed, epoch, sample_id, purpose), so a sample's output depends on nothing
 * but those and the bytes.
 */
#ifndef FEED_PIXELS_PIPELINE_H
#define FEED_PIXELS_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "feed.h"
#include "pixels/xform.h"

/* What happened to one sample (for flags and stats). */
typedef struct feed__image_info {
    uint32_t src_w, src_h;     /* decoded image size (after EXIF orientation) */
    uint32_t flipped;          /* 1 if horizontally flipped */
    uint32_t pad;
    uint64_t decode_ns;        /* time in the decoder */
    uint64_t augment_ns;       /* time in crop/resize/flip/rotate/jitter */
} feed__image_info;

typedef struct feed__image_ctx feed__image_ctx;

/* Returns NULL on out of memory. */
feed__image_ctx *feed__image_ctx_create(void);
void feed__image_ctx_destroy(feed__image_ctx *ctx); /* accepts NULL */

/*
 * Decodes the JPEG, PNG or WebP in data[0..len) (the format from its magic
 * bytes) and applies x for sample (seed, epoch, sample_id). Writes exactly
 * out_h*out_w*3 bytes, RGB, row-major HWC, to out. Greyscale, CMYK/YCCK,
 * palette and 16-bit input comes out as 8-bit RGB; alpha is dropped. The
 * steps after the decode are the same for every format; with roi_decode a
 * JPEG is decoded by region and DCT-scaled, a PNG only down to the region's
 * last row, a WebP the region by libwebp's cropping; the region's pixels
 * are a full decode's, but for a JPEG's chroma, which is resized from its
 * stored resolution (feed__image_planar).
 * Returns 0 (FEED_OK) or a feed_status: FEED_E_DECODE for corrupt, truncated,
 * empty or unsupported data (GIF, BMP, ...: the message names the format),
 * FEED_E_TOO_LARGE over max_pixels or max_memory, FEED_E_NOMEM.
 * On error writes a short message (the decoder's text) into msg and leaves
 * out unspecified. Never aborts or longjmps out.
 */
int feed__image_process(feed__image_ctx *ctx, const feed__xform *x, const uint8_t *data,
                        size_t len, uint64_t seed, uint64_t epoch, uint64_t sample_id,
                        uint8_t *out, feed__image_info *info, char *msg, size_t msglen);

/* With roi_decode, a YCbCr or greyscale JPEG is resized in its own planes
 * (luma at full resolution, chroma at its stored one) and only the output
 * is converted to RGB (jpeg_planes.c, ycc.c): 1 (the default) or 0 (the
 * interleaved RGB decode, for tests and side-by-side benchmarks). */
extern int feed__image_planar;

/* A JPEG's Huffman decoding is the transform's jpeg_entropy's (0, the
 * default: feed__image_entropy), or libjpeg-turbo's: 1 (as it runs) or 2
 * (its exact path), for side-by-side benchmarks and tests. */
extern int feed__image_libjpeg_huff;

/*
 * The JPEG Huffman decoder ctx uses for a transform with jpeg_entropy want
 * (FEED_JPEG_ENTROPY_*), decided at the first call for that want (the first
 * JPEG, or a worker's start): libjpeg: libjpeg-turbo's; libfeed: libfeed's;
 * auto: libfeed's if the self-check (decode/jpeg_selftest.h) passes, else
 * libjpeg-turbo's from then on. Returns its FEED__ENTROPY_* code
 * (pixels/xform.h), with what the self-check found in msg when it failed
 * ("" otherwise); or -1 and why in msg for libfeed in a build without it
 * (a JPEG is then FEED_E_UNSUPPORTED).
 */
int feed__image_entropy(feed__image_ctx *ctx, uint32_t want, char *msg, size_t msglen);

/*
 * The same pipeline from pixels instead of a JPEG (a .npy source, npy.h):
 * px is h rows of w pixels of c bytes (1 grey, 3 RGB, 4 RGBA: alpha
 * dropped), row-major. The transform means what it means for a decoded
 * image of w x h (no EXIF orientation, no DCT scaling): val resizes the
 * shorter side to resize_shorter and crops the centre, train draws the same
 * RandomResizedCrop, flip, rotation and jitter, none resizes the whole image
 * to out_w x out_h, and copies its bytes exactly (grey replicated, alpha
 * dropped) when that is its own size. Same returns as feed__image_process
 * (no FEED_E_DECODE: there is nothing to decode).
 */
int feed__image_process_pixels(feed__image_ctx *ctx, const feed__xform *x, const uint8_t *px, uint32_t w,
                               uint32_t h, uint32_t c, uint64_t seed, uint64_t epoch, uint64_t sample_id,
                               uint8_t *out, feed__image_info *info, char *msg, size_t msglen);

#endif /* FEED_IMAGE_H */
