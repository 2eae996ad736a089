/*
 * targets.h - a per-sample target array (regression values, embeddings, any
 * fixed-length vector): row i of an N x K .npy is the target of sample i of
 * the dataset, in the index's order (internal).
 *
 * Read whole by the parent at create and checked there (dtype, shape, size,
 * rows = samples); the workers never see it. A batch's rows are gathered by
 * the sample ids the parent has checked, so a replaced sample carries its
 * substitute's row, as it carries its labels. float32 and int64 are kept as
 * they are; float64 is rounded to float32 (to nearest even) and int32
 * widened to int64 once, at load: what a loss takes.
 */
#ifndef FEED_DATASET_TARGETS_H
#define FEED_DATASET_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#include "feed.h"

typedef struct feed__targets {
    uint8_t *data;  /* n x dim elements, little-endian, row-major; NULL: none */
    uint64_t n;
    uint32_t dim;   /* K */
    uint32_t dtype; /* FEED_TARGET_FLOAT32 or FEED_TARGET_INT64 */
    uint32_t elem;  /* bytes of one element (4 or 8) */
} feed__targets;

/* Loads path's array for a dataset of n samples. FEED_E_DATASET (or
 * FEED_E_NOMEM, FEED_E_RESOURCE) naming the file and what is wrong. */
feed_status feed__targets_load(feed__targets *t, const char *path, uint64_t n, char *err, size_t errlen);

struct feed__npy_header;
/* count elements of a file feed__npy_check_targets accepted (h) at in, into
 * out in their delivered form (4 bytes each for float kinds, else 8). */
void feed__targets_convert(const struct feed__npy_header *h, const uint8_t *in, uint64_t count, uint8_t *out);

/* Bytes of one sample's row. */
static inline size_t feed__targets_row(const feed__targets *t)
{
    return (size_t)t->dim * t->elem;
}

/* Rows of ids[0..count) into out (count x row bytes). ids are < n. */
void feed__targets_gather(const feed__targets *t, const uint64_t *ids, uint32_t count, void *out);

void feed__targets_free(feed__targets *t);

#endif
