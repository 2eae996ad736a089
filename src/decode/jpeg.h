/*
 * jpeg.h - JPEG decoding for the image pipeline (internal), on the decoder
 * contract (decoder.h).
 *
 * It decodes a rectangle of a JPEG, optionally DCT-scaled by M/8, into
 * 4-byte RGBX pixels (greyscale and CMYK/YCCK converted to RGB), or, when
 * the caller takes planes, a YCbCr or greyscale file into its component
 * planes as stored (jpeg_planes.c: no chroma upsampling, no colour
 * conversion), and reads the EXIF orientation tag (jpeg_markers.c).
 * libjpeg's error_exit (and its corrupt-data warnings) are caught at the one
 * setjmp in feed__jpeg_decode() and turned into a status. Only the decode/
 * files named jpeg*.c include libjpeg-turbo's headers.
 */
#ifndef FEED_JPEG_H
#define FEED_JPEG_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decoder.h"

typedef struct feed__jpeg feed__jpeg;

/* Scans a file may have: a progressive JPEG with more is refused before
 * its pixels are decoded (each scan walks the whole coefficient buffer, so
 * thousands of tiny scans make a small file take minutes). libjpeg-turbo's
 * own fuzzers and tjbench -maxscans use the same limit. */
#define FEED_JPEG_MAX_SCANS 500u

/* Returns NULL on out of memory. */
feed__jpeg *feed__jpeg_create(void);
void feed__jpeg_destroy(feed__jpeg *j); /* accepts NULL */

/* Size of a dimension after DCT scaling by M/8 (libjpeg rounds up). */
static inline uint32_t feed__jpeg_scaled(uint32_t dim, uint32_t m)
{
    return (uint32_t)(((uint64_t)dim * m + 7) / 8);
}

/*
 * Reads the header of data[0..len), calls plan, and decodes the region it
 * asks for. Only the rows down to region.y1 are entropy-decoded (skipped rows
 * above it are entropy-decoded but not transformed) and only the iMCU columns
 * around [x0, x1) are inverse-transformed; the result equals a full decode at
 * the same scale, cropped. Returns 0, FEED_E_DECODE (corrupt, truncated, empty,
 * not a JPEG, more than FEED_JPEG_MAX_SCANS scans: the message in msg),
 * FEED_E_TOO_LARGE (the decode would need more than region.max_memory),
 * FEED_E_NOMEM, or the plan's status.
 * Data must end with an EOI marker somewhere: a truncated file is an error
 * even when the damage lies below the region.
 */
int feed__jpeg_decode(feed__jpeg *j, const uint8_t *data, size_t len, feed__decode_plan_fn plan,
                      void *arg, feed__decode_image *img, char *msg, size_t msglen);

/* 1 when the last decode's scans went through libfeed's Huffman decoder
 * (jpeg_huff.h: single-scan sequential and progressive Huffman files), 0 when
 * libjpeg's decoded them or took a scan back. */
int feed__jpeg_own_entropy(const feed__jpeg *j);

/* EXIF orientation (1..8) from the APP1 "Exif" segment of a JPEG, or 1 when
 * there is none or it is malformed. Bounds-checked: data is untrusted. */
uint32_t feed__jpeg_exif_orientation(const uint8_t *data, size_t len);

#endif /* FEED_JPEG_H */
