/*
 * policy.h - the policy augmentations of augment=train (auto_augment):
 * torchvision.transforms.v2's TrivialAugmentWide, RandAugment and
 * AutoAugment(AutoAugmentPolicy.IMAGENET), with their op sets, magnitude
 * tables and signs; and timm's RandAugment ("rand-m9-mstd0.5-inc1") when
 * aa_inc or aa_mstd asks for it. The ops are augops.h's.
 *
 * Every draw comes from the FEED_RNG_POLICY stream of (seed, epoch, sample
 * id): a sample gets the same ops and magnitudes in whichever worker.
 */
#ifndef FEED_PIXELS_POLICY_H
#define FEED_PIXELS_POLICY_H

#include <stdint.h>

#include "common/rng.h"
#include "pixels/xform.h"

/* The most ops one sample gets (aa_num_ops <= 16, feed__xform_check). */
#define FEED__POLICY_MAX_STEPS 16

/* One op a policy drew: the op (augops.h), its argument, and how it came
 * from the tables (for tests): the magnitude bin (-1: the op has none, or
 * timm's continuous magnitude) and whether the sign draw negated it. */
typedef struct feed__aug_step {
    uint32_t op;
    int32_t bin;
    uint32_t negated;
    uint32_t pad;
    double arg;
} feed__aug_step;

/* The ops x's policy draws from r for an image of w x h, in the order they
 * apply, into steps (FEED__POLICY_MAX_STEPS of room); the ops a policy
 * skips by probability are left out. Returns how many. */
uint32_t feed__policy_draw(const feed__xform *x, uint32_t w, uint32_t h, feed__rng *r,
                           feed__aug_step *steps);

/* The argument of op (augops.h) at magnitude bin m of n, as torchvision's
 * table of policy (FEED_POLICY_TRIVIAL: TrivialAugmentWide's; RAND, AUTO:
 * RandAugment's and AutoAugment's) gives it for an image of w x h, negated
 * when negate and the op is signed: what feed__policy_draw uses, for tests. */
double feed__policy_arg(uint32_t policy, uint32_t op, double m, uint32_t n, uint32_t w, uint32_t h,
                        int negate);

/* Draws (FEED_RNG_POLICY of seed, epoch, id) and applies x's policy to img,
 * w x h RGB, in place; scratch is w * h * 3 bytes. Nothing for
 * FEED_POLICY_NONE. No allocation. */
void feed__policy_apply(const feed__xform *x, uint8_t *img, uint32_t w, uint32_t h, uint64_t seed,
                        uint64_t epoch, uint64_t id, uint8_t *scratch);

#endif
