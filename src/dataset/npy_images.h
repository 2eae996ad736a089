/*
 * npy_images.h - what the index keeps of a .npy images array (kind
 * FEED_INDEX_NPY): where its samples are and their shape. npy.c fills it,
 * index.h embeds it in the index's header, a worker reads sample i's
 * sample_bytes at data_off + i * sample_bytes.
 */
#ifndef FEED_NPY_IMAGES_H
#define FEED_NPY_IMAGES_H

#include <stdint.h>

/* The images array a source can be: checked from a parsed header. */
typedef struct feed__npy_images {
    uint64_t data_off;     /* file offset of sample 0 */
    uint64_t count;        /* N */
    uint64_t sample_bytes; /* H * W * C */
    uint64_t file_bytes;   /* the file's size at create */
    uint32_t h, w, c;      /* c: 1, 3 or 4 */
    uint32_t pad;
} feed__npy_images;

#endif /* FEED_NPY_IMAGES_H */
