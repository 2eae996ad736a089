/*
 * decoder.h - the contract every decoder (jpeg.h, png.h, webp.h) keeps with
 * the pipeline (internal).
 *
 * A decode is one call: the decoder reads the header, hands its facts
 * (feed__decode_info) to the pipeline's plan callback, which chooses the
 * region (feed__decode_region) before any pixel is decoded or any pixel
 * buffer allocated, and hands back that region (feed__decode_image), owned
 * by the decoder until its next decode. So the pipeline plans a crop once
 * for every format.
 */
#ifndef FEED_DECODER_H
#define FEED_DECODER_H

#include <stddef.h>
#include <stdint.h>

/* Header facts handed to the plan callback. */
typedef struct feed__decode_info {
    uint32_t width, height; /* as stored (before EXIF orientation) */
    uint32_t components;    /* 1 grey, 3 YCbCr/RGB, 4 CMYK/YCCK */
    uint32_t orientation;   /* EXIF orientation 1..8 (1 when absent or invalid) */
    uint32_t progressive;   /* 1 for progressive (or arithmetic multi-scan) files */
    uint32_t cmyk_inverted; /* 4-component file with an Adobe marker (inverted CMYK) */
} feed__decode_info;

/* What to decode, chosen by the plan callback from the header. */
typedef struct feed__decode_region {
    uint32_t scale;  /* M in M/8, 1..8; 1, 2, 3, 4 and 8 are the fast ones (JPEG;
                        the other formats take 8 only) */
    uint32_t x0, y0; /* first pixel, in scaled pixels of the stored image */
    uint32_t x1, y1; /* one past the last; x1 <= scaled width, y1 <= scaled height */
    uint64_t max_memory; /* bytes the decode may need, the file's own included (0 = no cap) */
    uint32_t planes; /* 1: the caller takes planes (a YCbCr or greyscale JPEG then comes
                        as feed__decode_image.plane[]; other files as RGBX all the same) */
    uint32_t libjpeg_entropy; /* JPEG: libjpeg-turbo's Huffman decoder, not libfeed's
                                 (jpeg_huff.h): 1 as it runs (benchmarks), 2 on its exact
                                 path only (the reference of the tests: the data handed to
                                 it in small pieces, so its fast path never runs) */
} feed__decode_region;

/* Called once the header is read, before any pixel is decoded. Fills *region
 * and returns 0, or returns a feed_status (with a message in msg) to stop. */
typedef int (*feed__decode_plan_fn)(void *arg, const feed__decode_info *info,
                                    feed__decode_region *region, char *msg, size_t msglen);

/* One component plane, a byte a sample, as the file stores it (after the
 * IDCT). Its grid is the scaled image's times num_x / den_x across and
 * num_y / den_y down (4:2:0 chroma: 1/2 and 1/2; luma: 1/1), so sample
 * column c covers scaled pixels [c * den_x / num_x, (c + 1) * den_x / num_x).
 * It holds the samples [x0, x0 + w) x [y0, y0 + h) of that grid; each row
 * can be read (zeros) up to 64 bytes past its last sample. */
typedef struct feed__decode_plane {
    const uint8_t *pixels; /* sample (x0, y0) */
    size_t stride;
    uint32_t x0, y0, w, h;
    uint32_t num_x, den_x, num_y, den_y;
} feed__decode_plane;

/* The decoded region, owned by the decoder, valid until its next decode.
 * nplanes 0: RGBX, 4 bytes a pixel, pixel (region.x0, region.y0) first.
 * nplanes 1 (grey) or 3 (Y, Cb, Cr; only a JPEG, only when region.planes
 * asked for it): plane[], which cover at least the region (luma) and the
 * chroma samples around it; pixels and stride are then unused. */
typedef struct feed__decode_image {
    const uint8_t *pixels;
    size_t stride;               /* bytes from one row to the next */
    uint32_t w, h;               /* region size */
    uint32_t scaled_w, scaled_h; /* the whole image at this scale */
    uint32_t nplanes;
    feed__decode_plane plane[3];
} feed__decode_image;

#endif /* FEED_DECODER_H */
