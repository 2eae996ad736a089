/*
 * npy.h - NumPy .npy arrays as a dataset source (internal).
 *
 * A pure stage for the header: bytes in, a checked description out
 * (feed__npy_parse, feed__npy_check_images, feed__npy_check_labels), no
 * file system. The index builder (feed__npy_index_build) reads the header of
 * the images file and the whole labels file (by pread, in chunks), and makes an index that
 * describes the array (file, data offset, N, H, W, C) plus one int32 label a
 * sample: no per-sample path, so N can be large (the description,
 * feed__npy_images, is npy_images.h's: the index header embeds it). Workers
 * read sample i's H*W*C bytes at data_off + i*H*W*C (worker/loop.c) and run
 * the image pipeline on them without a decode (feed__image_process_pixels,
 * pixels/pipeline.h).
 *
 * Accepted: images uint8 ('|u1'), C order, shape (N, H, W, C) with C = 1
 * (grey), 3 (RGB) or 4 (RGBA: alpha dropped), or (N, H, W) as C = 1; labels
 * int32 or int64, either byte order, shape (N,), every value in
 * 0..FEED_MAX_LABEL. Format versions 1.0, 2.0 and 3.0.
 */
#ifndef FEED_NPY_H
#define FEED_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "dataset/npy_images.h"
#include "feed.h"

struct feed__index;

#define FEED_NPY_MAX_RANK 8
/* A header longer than this is refused (numpy's own reader refuses more than
 * 10000 bytes unless told otherwise). */
#define FEED_NPY_MAX_HEADER 65536u

/* What a .npy header says. */
typedef struct feed__npy_header {
    uint64_t data_off;                 /* bytes before the data (preamble + header) */
    uint64_t shape[FEED_NPY_MAX_RANK];
    uint32_t rank;
    uint32_t fortran;                  /* fortran_order: True */
    char order;                        /* '<', '>' or '|' */
    char kind;                         /* 'u', 'i', 'f', 'b', ... */
    uint16_t pad;
    uint32_t item;                     /* bytes per element */
    char descr[16];                    /* as written, NUL-terminated */
} feed__npy_header;

/*
 * Parses the header at p[0..n) (the file's first bytes; n may be larger
 * than the header). Returns 0, or FEED_E_DATASET with what is wrong in err
 * (no file name: the caller adds it). Needs the whole header: when n is too
 * short for the length the preamble gives, that is an error too ("truncated").
 */
feed_status feed__npy_parse(const uint8_t *p, size_t n, feed__npy_header *h, char *err, size_t errlen);

/* Checks that h describes uint8 images (see above) filling exactly
 * file_bytes; fills *out. 0 or FEED_E_DATASET with the reason in err. */
feed_status feed__npy_check_images(const feed__npy_header *h, uint64_t file_bytes, feed__npy_images *out,
                                   char *err, size_t errlen);

/* Checks that h describes n labels (int32/int64, shape (n,)) filling exactly
 * file_bytes. 0 or FEED_E_DATASET with the reason in err. */
feed_status feed__npy_check_labels(const feed__npy_header *h, uint64_t file_bytes, uint64_t n, char *err,
                                   size_t errlen);

/* Checks that h describes per-sample targets: float32, float64, int32 or
 * int64 (either byte order), shape (n,) or (n, K) in C order, 1 <= K <=
 * FEED_NPY_MAX_TARGET_DIM, filling exactly file_bytes. 0 or FEED_E_DATASET
 * with the reason in err. */
#define FEED_NPY_MAX_TARGET_DIM 65536u
feed_status feed__npy_check_targets(const feed__npy_header *h, uint64_t file_bytes, uint64_t n, char *err,
                                    size_t errlen);

/* Opens path (what names it in errors: "array", "labels", "targets"),
 * checks it is a regular file and reads and parses its header; *fd_out
 * and *size on success. */
feed_status feed__npy_open(const char *path, const char *what, int *fd_out, uint64_t *size,
                           feed__npy_header *h, char *err, size_t errlen);

/* Converts the n labels at data, labels first .. first + n - 1 of a file
 * feed__npy_check_labels accepted, into out, checking each is in
 * 0..FEED_MAX_LABEL; *max (set it to 0 before the first call) becomes the
 * largest so far. FEED_E_DATASET naming the first bad index and value in err. */
feed_status feed__npy_labels(const feed__npy_header *h, const uint8_t *data, uint64_t first, uint64_t n,
                             int32_t *out, int32_t *max, char *err, size_t errlen);

/* 1 if data starts with the .npy magic ("\x93NUMPY"). */
int feed__npy_is_npy(const uint8_t *data, size_t n);
/* 1 if the file at path is to be read as an array: it starts with the
 * magic, or is named *.npy (so that one without the magic gets the array's
 * error, not a file list's). */
int feed__npy_is_source(const char *path);

/* Builds an index (kind FEED_INDEX_NPY) over the images array at path with
 * the labels array at labels. Errors name the file and what is wrong. */
feed_status feed__npy_index_build(struct feed__index *ix, const char *path, const char *labels, char *err,
                                  size_t errlen);

#endif /* FEED_NPY_H */
