/*
 * jpeg.h - JPEG decoding for the image pipeline (internal).
 *
 * jpeg.c and jpeg_planes.c are the only files that include libjpeg-turbo's
 * headers. It decodes
 * a rectangle of a JPEG, optionally DCT-scaled by M/8, into 4-byte RGBX
 * pixels (greyscale and CMYK/YCCK converted to RGB), or, when the caller
 * takes planes, a YCbCr or greyscale file into its component planes as
 * stored (jpeg_planes.c: no chroma upsampling, no colour conversion), and
 * parses the EXIF
 * orientation tag. libjpeg's error_exit (and its corrupt-data warnings) are
 * caught at the one setjmp in feed__jpeg_decode() and turned into a status.
 */
#ifndef FEED_JPEG_H
#define FEED_JPEG_H

#include <stddef.h>
#include <stdint.h>

typedef struct feed__jpeg feed__jpeg;

/* Header facts handed to the plan callback. */
typedef struct feed__jpeg_info {
    uint32_t width, height; /* as stored (before EXIF orientation) */
    uint32_t components;    /* 1 grey, 3 YCbCr/RGB, 4 CMYK/YCCK */
    uint32_t orientation;   /* EXIF orientation 1..8 (1 when absent or invalid) */
    uint32_t progressive;   /* 1 for progressive (or arithmetic multi-scan) files */
    uint32_t cmyk_inverted; /* 4-component file with an Adobe marker (inverted CMYK) */
} feed__jpeg_info;

/* What to decode, chosen by the plan callback from the header. */
typedef struct feed__jpeg_region {
    uint32_t scale;  /* M in M/8, 1..8; 1, 2, 3, 4 and 8 are the fast ones */
    uint32_t x0, y0; /* first pixel, in scaled pixels of the stored image */
    uint32_t x1, y1; /* one past the last; x1 <= scaled width, y1 <= scaled height */
    uint64_t max_memory; /* bytes the decode may need, the file's own included (0 = no cap) */
    uint32_t planes; /* 1: the caller takes planes (a YCbCr or greyscale file then comes
                        as feed__jpeg_image.plane[]; other files as RGBX all the same) */
    uint32_t libjpeg_entropy; /* libjpeg-turbo's Huffman decoder, not libfeed's (jpeg_huff.c):
                                 1 as it runs (benchmarks), 2 on its exact path only (the
                                 reference of the tests: the data handed to it in small
                                 pieces, so its fast path never runs) */
} feed__jpeg_region;

/* Scans a file may have: a progressive JPEG with more is refused before
 * its pixels are decoded (each scan walks the whole coefficient buffer, so
 * thousands of tiny scans make a small file take minutes). libjpeg-turbo's
 * own fuzzers and tjbench -maxscans use the same limit. */
#define FEED_JPEG_MAX_SCANS 500u

/* Called once the header is read, before any pixel is decoded. Fills *region
 * and returns 0, or returns a feed_status (with a message in msg) to stop. */
typedef int (*feed__jpeg_plan_fn)(void *arg, const feed__jpeg_info *info,
                                  feed__jpeg_region *region, char *msg, size_t msglen);

/* One component plane, a byte a sample, as the file stores it (after the
 * IDCT). Its grid is the scaled image's times num_x / den_x across and
 * num_y / den_y down (4:2:0 chroma: 1/2 and 1/2; luma: 1/1), so sample
 * column c covers scaled pixels [c * den_x / num_x, (c + 1) * den_x / num_x).
 * It holds the samples [x0, x0 + w) x [y0, y0 + h) of that grid; each row
 * can be read (zeros) up to 64 bytes past its last sample. */
typedef struct feed__jpeg_plane {
    const uint8_t *pixels; /* sample (x0, y0) */
    size_t stride;
    uint32_t x0, y0, w, h;
    uint32_t num_x, den_x, num_y, den_y;
} feed__jpeg_plane;

/* The decoded region, owned by the decoder, valid until its next decode.
 * nplanes 0: RGBX, 4 bytes a pixel, pixel (region.x0, region.y0) first.
 * nplanes 1 (grey) or 3 (Y, Cb, Cr; only when region.planes asked for it):
 * plane[], which cover at least the region (luma) and the chroma samples
 * around it; pixels and stride are then unused. */
typedef struct feed__jpeg_image {
    const uint8_t *pixels;
    size_t stride;               /* bytes from one row to the next */
    uint32_t w, h;               /* region size */
    uint32_t scaled_w, scaled_h; /* the whole image at this scale */
    uint32_t nplanes;
    feed__jpeg_plane plane[3];
} feed__jpeg_image;

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
int feed__jpeg_decode(feed__jpeg *j, const uint8_t *data, size_t len, feed__jpeg_plan_fn plan,
                      void *arg, feed__jpeg_image *img, char *msg, size_t msglen);

/* 1 when the last decode's scan went through libfeed's Huffman decoder
 * (jpeg_huff.h: single-scan sequential files), 0 when libjpeg's decoded it. */
int feed__jpeg_own_entropy(const feed__jpeg *j);

/* EXIF orientation (1..8) from the APP1 "Exif" segment of a JPEG, or 1 when
 * there is none or it is malformed. Bounds-checked: data is untrusted. */
uint32_t feed__jpeg_exif_orientation(const uint8_t *data, size_t len);

#endif /* FEED_JPEG_H */
