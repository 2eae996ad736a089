/*
 * mix.h - MixUp and CutMix of a batch in place, and its soft labels, as
 * timm's Mixup (modes, mix_p, switch_p, label smoothing) with torchvision
 * v2's formulas (MixUp's lambda ~ Beta(alpha, alpha); CutMix's box from
 * lambda, lambda then adjusted to the box's true area).
 *
 * Pairing: sample i is mixed with sample count-1-i of the same batch (timm's
 * flip; torchvision's v2 rolls by one instead). A pair is then two reads and
 * two writes of the same places, so the batch is mixed in place with no copy
 * (the middle sample of an odd count is its own partner: unchanged, its own
 * label).
 *
 * Every draw is a pure function of (seed, epoch, batch index, rank): a batch
 * is mixed the same whatever the worker count, after a crash, a seek or a
 * resume. The parent runs it on the host slot it owns, after the batch is
 * checked and before it is handed out (loader/deliver.c).
 */
#ifndef FEED_LOADER_MIX_H
#define FEED_LOADER_MIX_H

#include <stdint.h>

#include "common/rng.h"
#include "pixels/post.h" /* FEED__MIX_* */

typedef struct feed__mix_cfg {
    uint64_t seed;
    uint32_t rank;
    uint32_t mode; /* FEED_MIX_BATCH / PAIR / ELEM */
    float mixup_alpha, cutmix_alpha, mix_p, switch_p, smoothing;
    uint32_t num_classes;
    uint32_t multi; /* multi_label: multi-hot rows (feed__mix_multi_hot) */
    uint32_t h, w, dtype, layout; /* the samples as the host slot holds them (3 channels) */
} feed__mix_cfg;

/* What one sample gets: its own image and label weighted by lam, its
 * partner's by 1 - lam; CutMix: the partner's pixels in [x1, x2) x [y1, y2). */
typedef struct feed__mix_draw {
    uint32_t kind;
    uint32_t x1, y1, x2, y2;
    double lam; /* 1 when kind is NONE */
} feed__mix_draw;

/* 1 when c mixes images (an alpha > 0). */
int feed__mix_images(const feed__mix_cfg *c);
/* 1 when c gives soft labels (mixing, label smoothing or multi_label). */
int feed__mix_soft(const feed__mix_cfg *c);

/* The partner of sample i in a batch of count. */
static inline uint32_t feed__mix_partner(uint32_t i, uint32_t count)
{
    return count - 1 - i;
}

/* d[i], i < count: the draws of batch (epoch, index). Batch mode: one draw
 * for all; pair: one per pair (i, partner); elem: one per sample. A draw is:
 * mixed with probability mix_p; CutMix rather than MixUp with probability
 * switch_p when both alphas are > 0 (else the one that is); lambda ~
 * Beta(alpha, alpha); CutMix's box (feed__mix_cutmix_box) from lambda and a
 * uniform centre. */
void feed__mix_draw_batch(const feed__mix_cfg *c, uint64_t epoch, uint64_t index, uint32_t count,
                          feed__mix_draw *d);

/* torchvision v2.CutMix's box for lam and centre (rx, ry) in an H x W image:
 * half sides int(0.5 sqrt(1 - lam) * W) and (* H), clamped to the image; lam
 * becomes 1 - box area / image area. */
void feed__mix_cutmix_box(uint32_t H, uint32_t W, double lam, uint32_t rx, uint32_t ry, feed__mix_draw *d);

/* Mixes count samples of pixels (sample_bytes apart) in place with d: a
 * mixed value is lam * own + (1 - lam) * partner computed in float32 (the
 * factors rounded to float32 first, as torch multiplies a float tensor),
 * rounded once to the dtype: nearest even for float16/bfloat16, nearest
 * (halves up) for uint8. CutMix copies the partner's box exactly and touches
 * nothing else. */
void feed__mix_apply(const feed__mix_cfg *c, const feed__mix_draw *d, uint32_t count, void *pixels,
                     uint64_t sample_bytes);

/* Soft labels, count rows of num_classes: the one-hot of each label with
 * smoothing e (e / num_classes off, 1 - e + e / num_classes on), and with d
 * (NULL: no mixing) lam * own row + (1 - lam) * partner's row. Returns -1
 * and *bad = the sample whose label is outside 0..num_classes-1 (nothing
 * written past it); 0 on success. */
int feed__mix_soft_labels(const feed__mix_cfg *c, const feed__mix_draw *d, const int32_t *labels,
                          uint32_t count, float *out, uint32_t *bad);

/* Multi-hot rows, count of num_classes: sample i's labels are
 * list[offsets[i] .. offsets[i + 1]); each row is e / num_classes off and
 * 1 - e + e / num_classes at each of its labels (timm's on/off values for
 * smoothing e), and with d (NULL: no mixing) lam * own row + (1 - lam) *
 * partner's row, as feed__mix_soft_labels does with one label a sample.
 * Returns -1 and *bad = the sample with a label outside 0..num_classes-1
 * (nothing written); 0 on success. */
int feed__mix_multi_hot(const feed__mix_cfg *c, const feed__mix_draw *d, const uint32_t *offsets,
                        const int32_t *list, uint32_t count, float *out, uint32_t *bad);

/* Gamma(a, 1), a > 0, as its logarithm (Marsaglia-Tsang; a < 1 boosted by
 * U^(1/a), in logs so that small alphas do not underflow). */
double feed__rng_log_gamma(feed__rng *r, double a);
/* Beta(a, b) from two gamma draws. */
double feed__rng_beta(feed__rng *r, double a, double b);

#endif
