/*
 * png.h - PNG decoding for the image pipeline (internal).
 *
 * png.c is the only file that includes libspng's header. It keeps the
 * decoder contract (decoder.h), so that the pipeline plans a crop once for
 * every format: the header is read, the plan callback sees
 * the size and may refuse the image (max_pixels) before a pixel buffer is
 * allocated, and the region it asks for is handed back as a pointer into
 * the decoded rows (PNG cannot be decoded by column or scaled while
 * decoding, so scale must be 8; the rows below the region are skipped
 * when the file is not interlaced and ends with its IEND chunk).
 *
 * Every PNG kind comes out as 4-byte RGBX: grey and grey+alpha replicated,
 * palette looked up, 16-bit samples scaled to 8 bits (the high byte), alpha
 * and tRNS transparency dropped (not composited: the colour values as
 * stored, as PIL's convert("RGB") gives them). Gamma, iCCP and sBIT are not
 * applied (as PIL and torchvision do not).
 */
#ifndef FEED_PNG_H
#define FEED_PNG_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decoder.h"

typedef struct feed__png feed__png;

/* Returns NULL on out of memory. */
feed__png *feed__png_create(void);
void feed__png_destroy(feed__png *p); /* accepts NULL */

/*
 * Reads the header of data[0..len), calls plan (info: the stored size,
 * components 1..4 as stored (palette: 3, or 4 with tRNS), orientation 1,
 * progressive = Adam7 interlaced), checks that the decode fits in
 * region.max_memory, decodes the rows down to the region's last (all of
 * them if interlaced, or if the file does not end with IEND: a truncated
 * file is an error wherever it is cut) and returns the region in img.
 * Returns 0, FEED_E_DECODE (corrupt, truncated, bad CRC, not a PNG: the
 * decoder's message in msg), FEED_E_TOO_LARGE (over region.max_memory),
 * FEED_E_NOMEM, FEED_E_INTERNAL (a region scale other than 8), or the
 * plan's status.
 */
int feed__png_decode(feed__png *p, const uint8_t *data, size_t len, feed__decode_plan_fn plan,
                     void *arg, feed__decode_image *img, char *msg, size_t msglen);

#endif /* FEED_PNG_H */
