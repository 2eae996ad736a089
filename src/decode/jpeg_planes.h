/*
 * jpeg_planes.h - planar capture of a region decode (jpeg_planes.c), for
 * jpeg.c only. Only the decode/jpeg*.c files include libjpeg-turbo's
 * headers: this one names its decompression object without them.
 */
#ifndef FEED_JPEG_PLANES_H
#define FEED_JPEG_PLANES_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decoder.h"

struct jpeg_decompress_struct; /* jpeglib.h, which only decode/jpeg*.c include */

/* The capture of one decode: which output rows are kept, and where each
 * component's rows go. Lives in the decoder; ci->client_data points to it
 * while the decode runs. */
typedef struct feed__jpeg_cap {
    uint32_t y0, y1;      /* output (luma) rows kept */
    uint32_t n;           /* components: 1 or 3 */
    uint32_t maxv;        /* output rows per row group */
    uint32_t rgh[3];      /* a component's rows per row group */
    uint32_t next[3];     /* the next row of each component's grid to keep */
    uint32_t bytes[3];    /* samples copied from each row */
    uint8_t *dst[3];
    size_t stride[3];
    feed__decode_plane plane[3];
} feed__jpeg_cap;

/* After the scale is set (and jpeg_calc_output_dimensions run): 1 if this
 * file can come as planes (YCbCr in 3 components, or greyscale, with the
 * luma at full resolution), else 0. Sets the colour space and upsampling the
 * capture needs when it returns 1. */
int feed__jpeg_planes_ok(struct jpeg_decompress_struct *ci);

/* After jpeg_start_decompress and jpeg_crop_scanline (xoff, cw: the crop it
 * made): plans the planes for output rows [y0, y1) (widened by a margin for
 * the chroma the resize reads, within the image), grows *buf (*cap bytes)
 * to hold them, and replaces the post-processing step with the capture.
 * Returns 0 or FEED_E_NOMEM. *ry0 and *ry1 get the rows to read. */
int feed__jpeg_planes_begin(struct jpeg_decompress_struct *ci, feed__jpeg_cap *cap, uint32_t xoff, uint32_t cw,
                            uint32_t y0, uint32_t y1, uint8_t **buf, size_t *bufcap,
                            uint32_t *ry0, uint32_t *ry1);

/* After the rows were read: 0 with img->plane[] filled, or FEED_E_INTERNAL
 * if a component's row count is not the planned one. */
int feed__jpeg_planes_end(const feed__jpeg_cap *cap, feed__decode_image *img);

#endif /* FEED_JPEG_PLANES_H */
