/*
 * webp.h - WebP decoding for the image pipeline (internal).
 *
 * webp.c is the only file that includes libwebp's headers. Like png.h it
 * keeps the decoder contract (decoder.h): the header (VP8/VP8L/VP8X) is
 * read, the plan callback sees the size before a pixel buffer is allocated,
 * and only the region (and a margin) is decoded, by libwebp's cropping,
 * with the pixels of a full decode (scale must be 8). Lossy and lossless,
 * with or without alpha, come out as 4-byte RGBX, alpha dropped (not
 * composited, not premultiplied). Animated WebP is refused (FEED_E_DECODE):
 * which frame a training sample is has no good answer.
 */
#ifndef FEED_WEBP_H
#define FEED_WEBP_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decoder.h"

typedef struct feed__webp feed__webp;

/* Returns NULL on out of memory. */
feed__webp *feed__webp_create(void);
void feed__webp_destroy(feed__webp *w); /* accepts NULL */

/*
 * Reads the header of data[0..len), calls plan (info: the size, components
 * 3 or 4 with alpha, orientation 1), checks that the decode fits in
 * region.max_memory, decodes the region (libwebp's cropping, widened by a
 * margin; every file must still be whole) and returns it in img.
 * Returns 0, FEED_E_DECODE (corrupt, truncated, animated, not a WebP: the
 * reason in msg), FEED_E_TOO_LARGE (over region.max_memory), FEED_E_NOMEM,
 * FEED_E_INTERNAL (a region scale other than 8), or the plan's status.
 */
int feed__webp_decode(feed__webp *w, const uint8_t *data, size_t len, feed__decode_plan_fn plan,
                      void *arg, feed__decode_image *img, char *msg, size_t msglen);

#endif /* FEED_WEBP_H */
