/*
 * policy.c - the policy augmentations (policy.h): which ops, with which
 * magnitudes and signs, as torchvision.transforms.v2's _auto_augment.py
 * and timm's data/auto_augment.py define them.
 *
 * torchvision's magnitude tables are float32 torch.linspace vectors (and a
 * rounded float32 expression for Posterize); a bin's value is computed here
 * as ATen's linspace kernel computes it (a float32 step, start + step * i
 * with one rounding below the middle, end - step * (n - 1 - i) above), so
 * int(magnitude) for TranslateX/Y and 255 * magnitude for Solarize come out
 * as torchvision's. A fractional aa_magnitude (only timm's scale uses one)
 * evaluates the same expression between the bins.
 *
 * timm's RandAugment (aa_inc = 1 or aa_mstd > 0) follows timm's semantics:
 * its 15 ops (with SolarizeAdd, without Identity; "inc1" the increasing
 * set), each of the aa_num_ops layers picked with replacement and applied
 * with probability 0.5, the magnitude on timm's 0..10 scale (M of "rand-mM")
 * plus a normal draw of sd aa_mstd per op (uniform in [0, M] above 100, as
 * timm's "mstd" over 100), clipped to [0, 10], and timm's level-to-argument
 * functions. Its pixel functions (posterize, solarize, solarize_add,
 * invert, equalize) are PIL's exactly, and so are brightness and sharpness
 * on the test images; what cannot match timm pixel for pixel:
 * - the geometric ops: timm runs PIL's affine resampler, bilinear or bicubic
 *   picked at random per op, filling with its img_mean; libfeed runs
 *   torchvision's grid sampler with aa_interpolation and aa_fill. The
 *   geometry is the same (nearest shears and whole-pixel translations give PIL's
 *   pixels; a rotation differs where a point falls on a half), but bilinear
 *   differs by 1 inside and more in the band at the edge, which PIL does not
 *   blend with the fill;
 * - Color, Contrast and AutoContrast: PIL's fixed-point grey, its rounded
 *   mean and its double-precision autocontrast table differ from
 *   torchvision's float32 by 1 on some values;
 * - the draws: libfeed's generator, not Python's random and numpy's;
 * - PosterizeIncreasing at level 10 keeps 0 bits: black here and in older
 *   Pillow, an error in the Pillow in the torch venv.
 */
#include "pixels/policy.h"

#include <math.h>

#include "feed.h"
#include "pixels/augops.h"

/* torchvision's ops of TrivialAugmentWide and RandAugment, in its order */
static const uint8_t tv_ops[14] = {
    FEED__AUG_IDENTITY,   FEED__AUG_SHEAR_X,   FEED__AUG_SHEAR_Y,   FEED__AUG_TRANSLATE_X,
    FEED__AUG_TRANSLATE_Y, FEED__AUG_ROTATE,   FEED__AUG_BRIGHTNESS, FEED__AUG_COLOR,
    FEED__AUG_CONTRAST,   FEED__AUG_SHARPNESS, FEED__AUG_POSTERIZE, FEED__AUG_SOLARIZE,
    FEED__AUG_AUTOCONTRAST, FEED__AUG_EQUALIZE};

/* AutoAugmentPolicy.IMAGENET: 25 sub-policies of two (op, probability, bin);
 * bin -1 for the ops without a magnitude */
static const struct {
    uint8_t op;
    int8_t bin;
    float p;
} aa_imagenet[25][2] = {
    {{FEED__AUG_POSTERIZE, 8, 0.4f}, {FEED__AUG_ROTATE, 9, 0.6f}},
    {{FEED__AUG_SOLARIZE, 5, 0.6f}, {FEED__AUG_AUTOCONTRAST, -1, 0.6f}},
    {{FEED__AUG_EQUALIZE, -1, 0.8f}, {FEED__AUG_EQUALIZE, -1, 0.6f}},
    {{FEED__AUG_POSTERIZE, 7, 0.6f}, {FEED__AUG_POSTERIZE, 6, 0.6f}},
    {{FEED__AUG_EQUALIZE, -1, 0.4f}, {FEED__AUG_SOLARIZE, 4, 0.2f}},
    {{FEED__AUG_EQUALIZE, -1, 0.4f}, {FEED__AUG_ROTATE, 8, 0.8f}},
    {{FEED__AUG_SOLARIZE, 3, 0.6f}, {FEED__AUG_EQUALIZE, -1, 0.6f}},
    {{FEED__AUG_POSTERIZE, 5, 0.8f}, {FEED__AUG_EQUALIZE, -1, 1.0f}},
    {{FEED__AUG_ROTATE, 3, 0.2f}, {FEED__AUG_SOLARIZE, 8, 0.6f}},
    {{FEED__AUG_EQUALIZE, -1, 0.6f}, {FEED__AUG_POSTERIZE, 6, 0.4f}},
    {{FEED__AUG_ROTATE, 8, 0.8f}, {FEED__AUG_COLOR, 0, 0.4f}},
    {{FEED__AUG_ROTATE, 9, 0.4f}, {FEED__AUG_EQUALIZE, -1, 0.6f}},
    {{FEED__AUG_EQUALIZE, -1, 0.0f}, {FEED__AUG_EQUALIZE, -1, 0.8f}},
    {{FEED__AUG_INVERT, -1, 0.6f}, {FEED__AUG_EQUALIZE, -1, 1.0f}},
    {{FEED__AUG_COLOR, 4, 0.6f}, {FEED__AUG_CONTRAST, 8, 1.0f}},
    {{FEED__AUG_ROTATE, 8, 0.8f}, {FEED__AUG_COLOR, 2, 1.0f}},
    {{FEED__AUG_COLOR, 8, 0.8f}, {FEED__AUG_SOLARIZE, 7, 0.8f}},
    {{FEED__AUG_SHARPNESS, 7, 0.4f}, {FEED__AUG_INVERT, -1, 0.6f}},
    {{FEED__AUG_SHEAR_X, 5, 0.6f}, {FEED__AUG_EQUALIZE, -1, 1.0f}},
    {{FEED__AUG_COLOR, 0, 0.4f}, {FEED__AUG_EQUALIZE, -1, 0.6f}},
    {{FEED__AUG_EQUALIZE, -1, 0.4f}, {FEED__AUG_SOLARIZE, 4, 0.2f}},
    {{FEED__AUG_SOLARIZE, 5, 0.6f}, {FEED__AUG_AUTOCONTRAST, -1, 0.6f}},
    {{FEED__AUG_INVERT, -1, 0.6f}, {FEED__AUG_EQUALIZE, -1, 1.0f}},
    {{FEED__AUG_COLOR, 4, 0.6f}, {FEED__AUG_CONTRAST, 8, 1.0f}},
    {{FEED__AUG_EQUALIZE, -1, 0.8f}, {FEED__AUG_EQUALIZE, -1, 0.6f}},
};

/* timm's _RAND_TRANSFORMS / _RAND_INCREASING_TRANSFORMS: the same 15 ops
 * (the increasing set differs in the level functions, timm_arg) */
static const uint8_t timm_ops[15] = {
    FEED__AUG_AUTOCONTRAST, FEED__AUG_EQUALIZE, FEED__AUG_INVERT,  FEED__AUG_ROTATE,
    FEED__AUG_POSTERIZE,   FEED__AUG_SOLARIZE, FEED__AUG_SOLARIZE_ADD, FEED__AUG_COLOR,
    FEED__AUG_CONTRAST,    FEED__AUG_BRIGHTNESS, FEED__AUG_SHARPNESS, FEED__AUG_SHEAR_X,
    FEED__AUG_SHEAR_Y,     FEED__AUG_TRANSLATE_X, FEED__AUG_TRANSLATE_Y};

/* torch.linspace(start, end, n)[i] in float32, i possibly fractional */
static double linspace_at(double start, double end, uint32_t n, double i)
{
    float s = (float)start, e = (float)end;
    float step = (e - s) / (float)(n - 1);
    /* ATen fuses step * i + start: one rounding (exact in a double here) */
    if (i < (double)(n / 2))
        return (float)((double)s + (double)step * i);
    return (float)((double)e - (double)step * ((double)(n - 1) - i));
}

/* torchvision's magnitude of op at bin m of n bins for a w x h image (wide:
 * TrivialAugmentWide's table, else RandAugment's and AutoAugment's); 0 for
 * the ops without one. *has, *sgn: whether it has one and is signed. */
static double tv_magnitude(int wide, uint32_t op, double m, uint32_t n, uint32_t w, uint32_t h,
                           int *has, int *sgn)
{
    *has = 1;
    *sgn = 1;
    switch (op) {
    case FEED__AUG_SHEAR_X:
    case FEED__AUG_SHEAR_Y:
        return linspace_at(0, wide ? 0.99 : 0.3, n, m);
    case FEED__AUG_TRANSLATE_X:
        return linspace_at(0, wide ? 32.0 : 150.0 / 331.0 * w, n, m);
    case FEED__AUG_TRANSLATE_Y:
        return linspace_at(0, wide ? 32.0 : 150.0 / 331.0 * h, n, m);
    case FEED__AUG_ROTATE:
        return linspace_at(0, wide ? 135.0 : 30.0, n, m);
    case FEED__AUG_BRIGHTNESS:
    case FEED__AUG_COLOR:
    case FEED__AUG_CONTRAST:
    case FEED__AUG_SHARPNESS:
        return linspace_at(0, wide ? 0.99 : 0.9, n, m);
    case FEED__AUG_POSTERIZE:
        /* (8 - (arange(n) / ((n - 1) / d))).round().int(), in float32 */
        *sgn = 0;
        return nearbyintf(8.0f - (float)m / (float)((n - 1) / (wide ? 6.0 : 4.0)));
    case FEED__AUG_SOLARIZE:
        *sgn = 0;
        return linspace_at(1.0, 0.0, n, m);
    default:
        *has = 0;
        *sgn = 0;
        return 0;
    }
}

/* _apply_image_or_video_transform: the functional's argument for magnitude */
static double tv_arg(uint32_t op, double mag)
{
    switch (op) {
    case FEED__AUG_TRANSLATE_X:
    case FEED__AUG_TRANSLATE_Y:
        return trunc(mag); /* int(magnitude) */
    case FEED__AUG_BRIGHTNESS:
    case FEED__AUG_COLOR:
    case FEED__AUG_CONTRAST:
    case FEED__AUG_SHARPNESS:
        return 1.0 + mag;
    case FEED__AUG_POSTERIZE:
        return trunc(mag);
    case FEED__AUG_SOLARIZE:
        return 255.0 * mag;
    default:
        return mag;
    }
}

double feed__policy_arg(uint32_t policy, uint32_t op, double m, uint32_t n, uint32_t w, uint32_t h,
                        int negate)
{
    int has, sgn;
    double mag = tv_magnitude(policy == FEED_POLICY_TRIVIAL, op, m, n, w, h, &has, &sgn);
    return tv_arg(op, sgn && negate ? -mag : mag);
}

/* One torchvision op at bin m (the sign drawn from r when it is signed). */
static feed__aug_step tv_step(int wide, uint32_t op, double m, uint32_t n, uint32_t w, uint32_t h,
                              feed__rng *r)
{
    int has, sgn;
    double mag = tv_magnitude(wide, op, m, n, w, h, &has, &sgn);
    feed__aug_step s = {.op = op, .bin = has && m == floor(m) ? (int32_t)m : -1};
    if (sgn && feed__rng_uniform(r) < 0.5) {
        mag = -mag;
        s.negated = 1;
    }
    s.arg = tv_arg(op, mag);
    return s;
}

/* timm's level-to-argument of op at level m in [0, 10], for w x h */
static feed__aug_step timm_step(int inc, uint32_t op, double m, uint32_t w, uint32_t h, feed__rng *r)
{
    feed__aug_step s = {.op = op, .bin = -1};
    double l = m / 10.0, v = 0;
    int neg = 0; /* _randomly_negate */
    switch (op) {
    case FEED__AUG_ROTATE:
        v = l * 30.0, neg = 1;
        break;
    case FEED__AUG_POSTERIZE:
        v = inc ? 4 - (int)(l * 4) : (int)(l * 4);
        break;
    case FEED__AUG_SOLARIZE: {
        int t = (int)(l * 256) < 256 ? (int)(l * 256) : 256;
        v = inc ? 256 - t : t;
        break;
    }
    case FEED__AUG_SOLARIZE_ADD:
        v = (int)(l * 110) < 128 ? (int)(l * 110) : 128;
        break;
    case FEED__AUG_COLOR:
    case FEED__AUG_CONTRAST:
    case FEED__AUG_BRIGHTNESS:
    case FEED__AUG_SHARPNESS:
        if (!inc) {
            v = l * 1.8 + 0.1;
            break;
        }
        v = l * 0.9;
        if (feed__rng_uniform(r) < 0.5)
            v = -v, s.negated = 1;
        v = fmax(0.1, 1.0 + v);
        break;
    case FEED__AUG_SHEAR_X:
    case FEED__AUG_SHEAR_Y:
        v = l * 0.3, neg = 1;
        break;
    case FEED__AUG_TRANSLATE_X:
    case FEED__AUG_TRANSLATE_Y:
        /* TranslateXRel: PIL's (1, 0, p, 0, 1, 0) samples x + p, moving the
         * content by -p pixels */
        v = -(l * 0.45) * (op == FEED__AUG_TRANSLATE_X ? w : h), neg = 1;
        break;
    default:
        break;
    }
    if (neg && feed__rng_uniform(r) < 0.5)
        v = -v, s.negated = 1;
    s.arg = v;
    return s;
}

/* A standard normal draw (Box-Muller, the cosine branch). */
static double normal(feed__rng *r)
{
    double u1 = 1.0 - feed__rng_uniform(r), u2 = feed__rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static uint32_t timm_draw(const feed__xform *x, uint32_t w, uint32_t h, feed__rng *r, feed__aug_step *steps)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < x->aa_num_ops && i < FEED__POLICY_MAX_STEPS; i++) {
        uint32_t op = timm_ops[feed__rng_below(r, 15)];
        if (feed__rng_uniform(r) >= 0.5) /* AugmentOp's prob 0.5 */
            continue;
        double m = x->aa_magnitude;
        if (x->aa_mstd > 100)
            m = feed__rng_range(r, 0, m);
        else if (x->aa_mstd > 0)
            m += x->aa_mstd * normal(r);
        m = fmax(0.0, fmin(m, 10.0));
        steps[k++] = timm_step((int)x->aa_inc, op, m, w, h, r);
    }
    return k;
}

uint32_t feed__policy_draw(const feed__xform *x, uint32_t w, uint32_t h, feed__rng *r,
                           feed__aug_step *steps)
{
    uint32_t k = 0;
    switch (x->policy) {
    case FEED_POLICY_TRIVIAL: {
        uint32_t op = tv_ops[feed__rng_below(r, 14)];
        int has, sgn;
        tv_magnitude(1, op, 0, 31, w, h, &has, &sgn);
        /* the bin is drawn only for an op with magnitudes, as torchvision */
        double bin = has ? (double)feed__rng_below(r, 31) : 0;
        steps[k++] = tv_step(1, op, bin, 31, w, h, r);
        break;
    }
    case FEED_POLICY_RAND:
        if (x->aa_inc || x->aa_mstd > 0)
            return timm_draw(x, w, h, r, steps);
        for (uint32_t i = 0; i < x->aa_num_ops && i < FEED__POLICY_MAX_STEPS; i++)
            steps[k++] = tv_step(0, tv_ops[feed__rng_below(r, 14)], x->aa_magnitude, x->aa_num_bins,
                                 w, h, r);
        break;
    case FEED_POLICY_AUTO: {
        uint32_t sub = (uint32_t)feed__rng_below(r, 25);
        for (int j = 0; j < 2; j++) {
            if (!(feed__rng_uniform(r) < aa_imagenet[sub][j].p))
                continue;
            int bin = aa_imagenet[sub][j].bin;
            steps[k++] = tv_step(0, aa_imagenet[sub][j].op, bin < 0 ? 0 : bin, 10, w, h, r);
        }
        break;
    }
    default:
        break;
    }
    return k;
}

void feed__policy_apply(const feed__xform *x, uint8_t *img, uint32_t w, uint32_t h, uint64_t seed,
                        uint64_t epoch, uint64_t id, uint8_t *scratch)
{
    if (x->policy == FEED_POLICY_NONE)
        return;
    feed__rng r;
    feed__rng_init(&r, seed, epoch, id, FEED_RNG_POLICY);
    feed__aug_step steps[FEED__POLICY_MAX_STEPS];
    uint32_t n = feed__policy_draw(x, w, h, &r, steps);
    for (uint32_t i = 0; i < n; i++)
        feed__aug_apply(steps[i].op, steps[i].arg, img, w, h, x->aa_interp, x->aa_fill, scratch);
}
