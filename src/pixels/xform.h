/*
 * xform.h - a loader's fixed transform: what the options ask of every sample
 * (output size, crop, flip, rotation, jitter, limits), and its one rule set.
 * The parent fills and checks it at create and copies it into the arena; a
 * worker reads it from there and checks it again before its first sample.
 */
#ifndef FEED_PIXELS_XFORM_H
#define FEED_PIXELS_XFORM_H

#include <stddef.h>
#include <stdint.h>

#include "feed.h"

/* Largest output side (height, width). */
#define FEED_MAX_SIDE 8192u

/* The fixed transform of a loader (copied into the arena for the workers). */
typedef struct feed__xform {
    uint32_t out_h, out_w;      /* output size */
    uint32_t mode;              /* FEED_AUGMENT_NONE / VAL / TRAIN */
    uint32_t resize_shorter;    /* VAL: shorter side before the center crop */
    float scale_min, scale_max; /* TRAIN: RandomResizedCrop area fraction range */
    float ratio_min, ratio_max; /* TRAIN: aspect ratio (w/h) range, sampled in log space */
    float flip_p;               /* TRAIN: horizontal flip probability */
    float rotate_deg;           /* TRAIN: rotation angle uniform in [-d, d] */
    uint8_t fill[3];            /* rotation fill (RGB) */
    uint8_t pad0;
    float brightness, contrast, saturation, hue; /* TRAIN: colour jitter (0 = off) */
    float grayscale_p;          /* TRAIN: probability of converting to greyscale */
    uint32_t exif;              /* apply EXIF orientation */
    uint32_t roi_decode;        /* decode only the crop region, DCT-scaled when possible */
    uint32_t jpeg_entropy;      /* FEED_JPEG_ENTROPY_*: whose Huffman decoder (feed__image_entropy) */
    uint64_t max_pixels;        /* width*height limit: larger images are FEED_E_TOO_LARGE */
    uint64_t max_memory;        /* bytes a decode may need (0 = no cap): more is FEED_E_TOO_LARGE */
    uint32_t bicubic;           /* the resize filter: 0 bilinear, 1 bicubic (both antialiased) */
    /* TRAIN: the policy augmentation (pixels/policy.h) */
    uint32_t policy;            /* FEED_POLICY_* */
    uint32_t aa_num_ops, aa_num_bins, aa_inc, aa_interp;
    float aa_magnitude, aa_mstd;
    uint8_t aa_fill[3];
    uint8_t pad1;
    /* TRAIN: RandomErasing, applied by the worker to its converted output */
    float erase_p, erase_scale_min, erase_scale_max, erase_ratio_min, erase_ratio_max;
    float erase_value[3];
    uint32_t erase_random;
    uint32_t pad2;
} feed__xform;

/* What a worker's JPEG Huffman decoding is, and why (feed__image_entropy in
 * pixels/pipeline.h decides it; the worker's record carries it to the
 * parent, which checks the range: arena/arena.h). 0: not known yet. */
enum {
    FEED__ENTROPY_UNKNOWN = 0,
    FEED__ENTROPY_OPTION_LIBJPEG = 1, /* jpeg_entropy=libjpeg */
    FEED__ENTROPY_OPTION_LIBFEED = 2, /* jpeg_entropy=libfeed */
    FEED__ENTROPY_CHECK_PASSED = 3,   /* auto, the self-check passed: libfeed's */
    FEED__ENTROPY_CHECK_FAILED = 4,   /* auto, the self-check failed: libjpeg's */
    FEED__ENTROPY_COMPILED_OUT = 5,   /* auto, libfeed's not in this build: libjpeg's */
    FEED__ENTROPY_CODES = 6
};

/* Why jpeg_entropy=libfeed cannot run where the decoder is compiled out:
 * create says it (feed__xform_check), and so does a worker that finds it
 * (feed__image_entropy). */
#define FEED__ENTROPY_COMPILED_OUT_MSG                                                                 \
    "jpeg_entropy=libfeed: this build has libfeed's Huffman decoder compiled out (the "              \
    "libjpeg-turbo it was built with is not one the decoder was checked against); use "              \
    "jpeg_entropy=auto or libjpeg"

/* 1 when code means libfeed's decoder runs. */
static inline int feed__entropy_is_libfeed(uint32_t code)
{
    return code == FEED__ENTROPY_OPTION_LIBFEED || code == FEED__ENTROPY_CHECK_PASSED;
}

/* The transform options o ask for (o need not be validated). */
void feed__xform_from_options(feed__xform *x, const feed_options *o);

/* 0 if the workers can apply x to any image; else -1 and a message naming the
 * option and its range in err. The one rule set: create refuses what this
 * refuses (options.c), and the worker checks it again (feed__image_process),
 * so no option passes create and then breaks every sample. */
int feed__xform_check(const feed__xform *x, char *err, size_t errlen);

#endif
