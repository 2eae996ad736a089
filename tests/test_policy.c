/*
 * test_policy.c - the policy augmentations (src/pixels/augops.c, policy.c):
 * the pixel functions against their formulas on every value, the geometric
 * ops against exact shifts, turns and a float64 shear, the policies' draws
 * against torchvision's tables (values printed by torch 2.15's torchvision
 * 0.29) and their distributions, determinism per (seed, epoch, id), and a
 * loader run with auto_augment=trivialaugment: the same bytes with 1 and 3
 * workers, each sample the in-process pipeline's, and not auto_augment=none's.
 * python/tests/test_torchvision_ops.py holds each op against torchvision.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "dataset/index.h"
#include "feed.h"
#include "hooks/loader_test.h"
#include "pixels/augops.h"
#include "pixels/pipeline.h"
#include "pixels/policy.h"
#include "test_image_util.h"
#include "testutil.h"

static const uint8_t black[3] = {0, 0, 0};

/* Every byte value, then noise: w x h RGB with w * h * 3 >= 256. */
static uint8_t *all_values(uint32_t w, uint32_t h, uint32_t seed)
{
    size_t n = (size_t)w * h * 3;
    uint8_t *p = malloc(n);
    feed__rng r;
    feed__rng_init(&r, seed, 0, 0, 99);
    for (size_t i = 0; i < n; i++)
        p[i] = i < 256 ? (uint8_t)i : (uint8_t)feed__rng_below(&r, 256);
    return p;
}

static void apply(uint32_t op, double arg, uint8_t *img, uint32_t w, uint32_t h, uint32_t interp,
                  const uint8_t fill[3])
{
    uint8_t *scratch = malloc((size_t)w * h * 3);
    feed__aug_apply(op, arg, img, w, h, interp, fill, scratch);
    free(scratch);
}

/* ---- the pixel functions ------------------------------------------------------------ */

static void test_pixel_functions(void **state)
{
    (void)state;
    const uint32_t w = 13, h = 11;
    const size_t n = (size_t)w * h * 3;
    uint8_t *src = all_values(w, h, 1), *img = malloc(n);
    for (int bits = 0; bits <= 8; bits++) {
        memcpy(img, src, n);
        apply(FEED__AUG_POSTERIZE, bits, img, w, h, 0, black);
        for (size_t i = 0; i < n; i++) /* keeps the top `bits` bits */
            assert_int_equal(img[i], src[i] >> (8 - bits) << (8 - bits));
    }
    const double thresholds[] = {0, 1, 127.5, 128, 237.99998, 255, 256};
    for (size_t t = 0; t < sizeof thresholds / sizeof *thresholds; t++) {
        memcpy(img, src, n);
        apply(FEED__AUG_SOLARIZE, thresholds[t], img, w, h, 0, black);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(img[i], src[i] >= (float)thresholds[t] ? 255 - src[i] : src[i]);
    }
    for (int add = 0; add <= 128; add += 32) {
        memcpy(img, src, n);
        apply(FEED__AUG_SOLARIZE_ADD, add, img, w, h, 0, black);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(img[i], src[i] < 128 ? (src[i] + add > 255 ? 255 : src[i] + add) : src[i]);
    }
    memcpy(img, src, n);
    apply(FEED__AUG_INVERT, 0, img, w, h, 0, black);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(img[i], 255 - src[i]);
    memcpy(img, src, n);
    apply(FEED__AUG_IDENTITY, 3, img, w, h, 0, black);
    assert_memory_equal(img, src, n);
    /* factors exact in float32: brightness is floor(v * f), clamped */
    const double factors[] = {0.5, 2.0, 0.25, 1.0, 0.0};
    for (size_t f = 0; f < 5; f++) {
        memcpy(img, src, n);
        apply(FEED__AUG_BRIGHTNESS, factors[f], img, w, h, 0, black);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(img[i], (int)fmin(255, floor(src[i] * factors[f])));
    }
    free(img);
    free(src);
}

/* PIL's ImageOps.equalize, as its source states it, per channel. */
static void equalize_ref(const uint8_t *src, uint8_t *dst, size_t npx)
{
    for (int c = 0; c < 3; c++) {
        uint64_t hist[256] = {0};
        for (size_t i = 0; i < npx; i++)
            hist[src[i * 3 + c]]++;
        uint64_t last = 0, total = 0;
        int nonzero = 0;
        for (int k = 0; k < 256; k++)
            if (hist[k])
                last = hist[k], total += hist[k], nonzero++;
        uint64_t step = nonzero <= 1 ? 0 : (total - last) / 255;
        uint8_t lut[256];
        uint64_t acc = step / 2;
        for (int k = 0; k < 256; k++) {
            uint64_t v = step ? acc / step : (uint64_t)k;
            lut[k] = (uint8_t)(v > 255 ? 255 : v);
            acc += hist[k];
        }
        for (size_t i = 0; i < npx; i++)
            dst[i * 3 + c] = lut[src[i * 3 + c]];
    }
}

static void test_equalize_autocontrast(void **state)
{
    (void)state;
    const uint32_t w = 40, h = 30;
    const size_t npx = (size_t)w * h, n = npx * 3;
    uint8_t *src = ti_photo(w, h, 7), *img = malloc(n), *ref = malloc(n);
    for (size_t i = 0; i < n; i++) /* a narrow range: both have work to do */
        src[i] = (uint8_t)(60 + src[i] / 4);
    memcpy(img, src, n);
    apply(FEED__AUG_EQUALIZE, 0, img, w, h, 0, black);
    equalize_ref(src, ref, npx);
    assert_memory_equal(img, ref, n);
    assert_memory_not_equal(img, src, n);

    memcpy(img, src, n);
    apply(FEED__AUG_AUTOCONTRAST, 0, img, w, h, 0, black);
    for (int c = 0; c < 3; c++) {
        int lo = 255, hi = 0, olo = 255, ohi = 0;
        for (size_t i = 0; i < npx; i++) {
            int v = src[i * 3 + c], o = img[i * 3 + c];
            lo = v < lo ? v : lo, hi = v > hi ? v : hi;
            olo = o < olo ? o : olo, ohi = o > ohi ? o : ohi;
        }
        assert_true(hi > lo);
        assert_int_equal(olo, 0);
        assert_true(ohi >= 254); /* float32 (hi - lo) / ((hi - lo) * (1 / 255)) may be 254.99 */
        for (size_t i = 0; i < npx; i++) {
            double exact = (src[i * 3 + c] - lo) * 255.0 / (hi - lo);
            assert_true(fabs(img[i * 3 + c] - floor(exact)) <= 1);
        }
    }
    /* flat channels stay, and so does a flat image under equalize */
    memset(img, 77, n);
    apply(FEED__AUG_AUTOCONTRAST, 0, img, w, h, 0, black);
    apply(FEED__AUG_EQUALIZE, 0, img, w, h, 0, black);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(img[i], 77);
    free(ref);
    free(img);
    free(src);
}

/* ---- the geometric ops -------------------------------------------------------------- */

static void test_translate_rotate_exact(void **state)
{
    (void)state;
    const uint8_t fill[3] = {9, 8, 7};
    for (uint32_t interp = 0; interp <= 1; interp++) {
        const uint32_t w = 21, h = 17;
        uint8_t *src = ti_pixels(w, h, 3), *img = malloc((size_t)w * h * 3);
        const int shifts[][2] = {{3, 0}, {-5, 0}, {0, 4}, {0, -16}, {0, 0}};
        for (int s = 0; s < 5; s++) {
            int dx = shifts[s][0], dy = shifts[s][1];
            memcpy(img, src, (size_t)w * h * 3);
            apply(dx || !dy ? FEED__AUG_TRANSLATE_X : FEED__AUG_TRANSLATE_Y, dx ? dx : dy, img, w, h, interp,
                  fill);
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    int sx = (int)x - dx, sy = (int)y - dy;
                    const uint8_t *want = sx >= 0 && sx < (int)w && sy >= 0 && sy < (int)h
                                              ? src + ((size_t)sy * w + sx) * 3
                                              : fill;
                    assert_memory_equal(img + ((size_t)y * w + x) * 3, want, 3);
                }
        }
        /* 180 degrees (either sign) is the exact half turn */
        memcpy(img, src, (size_t)w * h * 3);
        apply(FEED__AUG_ROTATE, -180, img, w, h, interp, fill);
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++)
                assert_memory_equal(img + ((size_t)y * w + x) * 3,
                                    src + ((size_t)(h - 1 - y) * w + (w - 1 - x)) * 3, 3);
        free(img);
        free(src);
        /* 90 degrees counter-clockwise on a square, and -90 = 270 */
        const uint32_t s = 16;
        src = ti_pixels(s, s, 4), img = malloc((size_t)s * s * 3);
        for (int k = 0; k < 2; k++) {
            memcpy(img, src, (size_t)s * s * 3);
            apply(FEED__AUG_ROTATE, k ? -90 : 90, img, s, s, interp, fill);
            for (uint32_t y = 0; y < s; y++)
                for (uint32_t x = 0; x < s; x++) {
                    uint32_t sx = k ? y : s - 1 - y, sy = k ? s - 1 - x : x;
                    assert_memory_equal(img + ((size_t)y * s + x) * 3, src + ((size_t)sy * s + sx) * 3, 3);
                }
        }
        free(img);
        free(src);
    }
}

/* ShearX(s), nearest, samples x + s * (y + 0.5) (torchvision's shear about
 * the top-left corner), rounded half to even: against float64, but where the
 * point is within 1e-3 of a half (float32 may round either way). */
static void test_shear_nearest(void **state)
{
    (void)state;
    const uint32_t w = 30, h = 23;
    const uint8_t fill[3] = {1, 2, 3};
    const double shears[] = {0.3, -0.99, 0.137};
    uint8_t *src = ti_pixels(w, h, 5), *img = malloc((size_t)w * h * 3);
    for (int k = 0; k < 3; k++) {
        for (int axis = 0; axis < 2; axis++) {
            memcpy(img, src, (size_t)w * h * 3);
            apply(axis ? FEED__AUG_SHEAR_Y : FEED__AUG_SHEAR_X, shears[k], img, w, h, FEED_INTERP_NEAREST,
                  fill);
            size_t checked = 0;
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    double p = axis ? y + shears[k] * (x + 0.5) : x + shears[k] * (y + 0.5);
                    if (fabs(p - floor(p) - 0.5) < 1e-3)
                        continue;
                    long q = lrint(p), lim = axis ? h : w;
                    uint32_t sx = axis ? x : (uint32_t)q, sy = axis ? (uint32_t)q : y;
                    const uint8_t *want = q >= 0 && q < lim ? src + ((size_t)sy * w + sx) * 3 : fill;
                    assert_memory_equal(img + ((size_t)y * w + x) * 3, want, 3);
                    checked++;
                }
            assert_true(checked > (size_t)w * h * 9 / 10);
        }
    }
    free(img);
    free(src);
}

/* ---- the policies' draws ------------------------------------------------------------ */

static feed__xform policy_xform(uint32_t policy)
{
    feed__xform x = ti_xform(FEED_AUGMENT_TRAIN, 224, 224, 0);
    x.policy = policy;
    x.aa_num_ops = 2;
    x.aa_num_bins = 31;
    x.aa_magnitude = 9;
    return x;
}

static uint32_t draw(const feed__xform *x, uint64_t id, feed__aug_step *s)
{
    feed__rng r;
    feed__rng_init(&r, 42, 0, id, FEED_RNG_POLICY);
    return feed__policy_draw(x, 224, 224, &r, s);
}

/* TrivialAugmentWide: one op of 14, every op and every one of its 31 bins
 * drawn, uniform within 6 sigma; signed ops negated about half the time;
 * the arguments torchvision's tables give. */
static void test_trivial_draws(void **state)
{
    (void)state;
    feed__xform x = policy_xform(FEED_POLICY_TRIVIAL);
    enum { N = 60000 };
    static uint32_t count[FEED__AUG_OPS], bins[FEED__AUG_OPS][31], neg[FEED__AUG_OPS];
    memset(count, 0, sizeof count), memset(bins, 0, sizeof bins), memset(neg, 0, sizeof neg);
    feed__aug_step s[FEED__POLICY_MAX_STEPS];
    for (uint64_t id = 0; id < N; id++) {
        assert_int_equal(draw(&x, id, s), 1);
        count[s[0].op]++;
        neg[s[0].op] += s[0].negated;
        if (s[0].bin >= 0)
            bins[s[0].op][s[0].bin]++;
        /* torchvision's values: linspace(0, 135, 31)[bin], (8 - arange(31) / 5).round() */
        if (s[0].op == FEED__AUG_ROTATE)
            assert_true(fabs(s[0].arg) == 4.5 * s[0].bin);
        if (s[0].op == FEED__AUG_POSTERIZE)
            assert_int_equal((int)s[0].arg, (int)nearbyint(8 - s[0].bin / 5.0));
        if (s[0].op == FEED__AUG_SHEAR_X && s[0].bin == 30)
            assert_true(fabs(s[0].arg) == 0.9900000095367432);
        if (s[0].op == FEED__AUG_TRANSLATE_Y && s[0].bin == 17)
            assert_true(fabs(s[0].arg) == 18); /* int(18.133333206176758) */
        if (s[0].op == FEED__AUG_SOLARIZE && s[0].bin == 9)
            assert_true(s[0].arg == 255.0 * 0.699999988079071);
    }
    const double mean = N / 14.0, sd = sqrt(N * (1 / 14.0) * (13 / 14.0));
    for (uint32_t op = 0; op < 14; op++) {
        assert_true(fabs(count[op] - mean) < 6 * sd);
        int has = op >= FEED__AUG_SHEAR_X && op <= FEED__AUG_SOLARIZE;
        for (int b = 0; b < 31; b++)
            assert_true(has ? bins[op][b] > 0 : bins[op][b] == 0);
        if (op >= FEED__AUG_SHEAR_X && op <= FEED__AUG_SHARPNESS)
            assert_true(fabs(neg[op] - count[op] / 2.0) < 6 * sqrt(count[op] / 4.0));
        else
            assert_int_equal(neg[op], 0);
    }
    assert_int_equal(count[FEED__AUG_INVERT], 0);
    assert_int_equal(count[FEED__AUG_SOLARIZE_ADD], 0);
}

/* RandAugment: aa_num_ops ops of the 14, each at bin aa_magnitude of
 * aa_num_bins, with torchvision's values at that bin. */
static void test_rand_draws(void **state)
{
    (void)state;
    feed__xform x = policy_xform(FEED_POLICY_RAND);
    static uint32_t count[FEED__AUG_OPS];
    memset(count, 0, sizeof count);
    feed__aug_step s[FEED__POLICY_MAX_STEPS];
    for (uint32_t ops = 1; ops <= 16; ops += 5) {
        x.aa_num_ops = ops;
        for (uint64_t id = 0; id < 4000; id++) {
            assert_int_equal(draw(&x, id, s), ops);
            for (uint32_t i = 0; i < ops; i++) {
                count[s[i].op]++;
                double a = fabs(s[i].arg);
                switch (s[i].op) {
                case FEED__AUG_SHEAR_X: /* linspace(0, 0.3, 31)[9] */
                    assert_true(a == 0.09000000357627869);
                    break;
                case FEED__AUG_TRANSLATE_X: /* int(linspace(0, 150 / 331 * 224, 31)[9] = 30.45...) */
                    assert_true(a == 30);
                    break;
                case FEED__AUG_ROTATE:
                    assert_true(a == 9);
                    break;
                case FEED__AUG_COLOR: /* 1 +- linspace(0, 0.9, 31)[9] */
                    assert_true(fabs(s[i].arg - 1) == 0.26999998092651367);
                    break;
                case FEED__AUG_POSTERIZE: /* (8 - 9 / 7.5).round() */
                    assert_true(a == 7);
                    break;
                default:
                    break;
                }
                if (s[i].bin >= 0)
                    assert_int_equal(s[i].bin, 9);
            }
        }
    }
    for (uint32_t op = 0; op < 14; op++)
        assert_true(count[op] > 0);
    assert_int_equal(count[FEED__AUG_INVERT], 0);
}

/* AutoAugment ImageNet: 0..2 ops, each an (op, bin) of the policy's table
 * (10 bins), Invert among them; Posterize bin 8 of 10 keeps 4 bits. */
static void test_auto_draws(void **state)
{
    (void)state;
    feed__xform x = policy_xform(FEED_POLICY_AUTO);
    feed__aug_step s[FEED__POLICY_MAX_STEPS];
    static uint32_t count[FEED__AUG_OPS], nsteps[3];
    memset(count, 0, sizeof count), memset(nsteps, 0, sizeof nsteps);
    for (uint64_t id = 0; id < 20000; id++) {
        uint32_t n = draw(&x, id, s);
        assert_true(n <= 2);
        nsteps[n]++;
        for (uint32_t i = 0; i < n; i++) {
            count[s[i].op]++;
            if (s[i].op == FEED__AUG_POSTERIZE && s[i].bin == 8)
                assert_true(s[i].arg == 4);
            if (s[i].op == FEED__AUG_ROTATE) /* bins 3, 8, 9 of linspace(0, 30, 10) */
                assert_true(fabs(s[i].arg) == 10 || fabs(fabs(s[i].arg) - 80.0 / 3) < 1e-5 ||
                            fabs(s[i].arg) == 30);
        }
    }
    const uint32_t never[] = {FEED__AUG_IDENTITY, FEED__AUG_SHEAR_Y, FEED__AUG_TRANSLATE_X,
                              FEED__AUG_TRANSLATE_Y, FEED__AUG_BRIGHTNESS, FEED__AUG_SOLARIZE_ADD};
    for (size_t k = 0; k < sizeof never / sizeof *never; k++)
        assert_int_equal(count[never[k]], 0);
    assert_true(count[FEED__AUG_INVERT] > 0 && count[FEED__AUG_SHEAR_X] > 0);
    assert_true(count[FEED__AUG_SHARPNESS] > 0);
    assert_true(nsteps[0] > 0 && nsteps[1] > 0 && nsteps[2] > 0);
    /* Equalize's share of draws: the table's probabilities sum to 11.2 over 25 sub-policies */
    double p_eq = 11.2 / 25, n_eq = count[FEED__AUG_EQUALIZE];
    assert_true(fabs(n_eq - 20000 * p_eq) < 6 * sqrt(20000 * p_eq));
}

/* timm's RandAugment (rand-m9-mstd0.5-inc1): each layer applied with
 * probability 0.5, 15 ops with Invert and SolarizeAdd, magnitudes spread by
 * the noise and clipped to timm's 0..10; inc1 without noise: rotate 27. */
static void test_timm_draws(void **state)
{
    (void)state;
    feed__xform x = policy_xform(FEED_POLICY_RAND);
    x.aa_inc = 1;
    x.aa_mstd = 0.5f;
    feed__aug_step s[FEED__POLICY_MAX_STEPS];
    static uint32_t count[FEED__AUG_OPS];
    memset(count, 0, sizeof count);
    uint64_t total = 0;
    double rmin = 1e9, rmax = 0;
    enum { N = 20000 };
    for (uint64_t id = 0; id < N; id++) {
        uint32_t n = draw(&x, id, s);
        assert_true(n <= 2);
        total += n;
        for (uint32_t i = 0; i < n; i++) {
            count[s[i].op]++;
            if (s[i].op == FEED__AUG_ROTATE) {
                rmin = fmin(rmin, fabs(s[i].arg)), rmax = fmax(rmax, fabs(s[i].arg));
                assert_true(fabs(s[i].arg) <= 30);
            }
            if (s[i].op == FEED__AUG_POSTERIZE) /* 4 - int(m / 10 * 4), m in [0, 10] */
                assert_true(s[i].arg >= 0 && s[i].arg <= 4);
        }
    }
    assert_true(fabs(total - N * 1.0) < 6 * sqrt(N * 0.5));
    assert_int_equal(count[FEED__AUG_IDENTITY], 0);
    assert_true(count[FEED__AUG_INVERT] > 0 && count[FEED__AUG_SOLARIZE_ADD] > 0);
    assert_true(rmin < 27 && rmax > 27 && rmax <= 30); /* 9 +- noise, 3 degrees a unit */
    x.aa_mstd = 0;
    for (uint64_t id = 0; id < 2000; id++) {
        uint32_t n = draw(&x, id, s);
        for (uint32_t i = 0; i < n; i++)
            if (s[i].op == FEED__AUG_ROTATE)
                assert_true(fabs(s[i].arg) == 27);
    }
}

/* ---- determinism ------------------------------------------------------------------- */

static void test_reproducible(void **state)
{
    (void)state;
    const uint32_t w = 48, h = 40;
    const size_t n = (size_t)w * h * 3;
    uint8_t *src = ti_photo(w, h, 9), *a = malloc(n), *b = malloc(n), *scratch = malloc(n);
    for (uint32_t policy = FEED_POLICY_TRIVIAL; policy <= FEED_POLICY_AUTO; policy++) {
        feed__xform x = policy_xform(policy);
        x.aa_interp = FEED_INTERP_BILINEAR;
        memcpy(a, src, n);
        feed__policy_apply(&x, a, w, h, 5, 2, 77, scratch);
        memcpy(b, src, n);
        feed__policy_apply(&x, b, w, h, 5, 2, 77, scratch);
        assert_memory_equal(a, b, n);
        int differ = 0;
        for (uint64_t id = 78; id < 90; id++) {
            memcpy(b, src, n);
            feed__policy_apply(&x, b, w, h, 5, 2, id, scratch);
            differ += memcmp(a, b, n) != 0;
        }
        assert_true(differ >= 8); /* an id drawing what 77 drew is rare, never 5 in 12 */
        x.policy = FEED_POLICY_NONE;
        memcpy(b, src, n);
        feed__policy_apply(&x, b, w, h, 5, 2, 77, scratch);
        assert_memory_equal(b, src, n);
    }
    free(scratch);
    free(b);
    free(a);
    free(src);
}

/* ---- end to end --------------------------------------------------------------------- */

#define NIMG 24
#define SIDE 40
static char *data;
static feed__index ix;

static uint64_t run_loader(const char *extra)
{
    char base[128], err[1024];
    feed_loader *L;
    snprintf(base, sizeof base, "batch_size=8,height=%d,width=%d,seed=1234", SIDE, SIDE);
    if (tu_loader(&L, data, base, extra, err, sizeof err) != FEED_OK)
        fail_msg("create (%s): %s", extra, err);
    uint64_t hsh = 0xcbf29ce484222325ull;
    uint8_t ref[SIDE * SIDE * 3];
    feed_batch b = {.struct_size = sizeof b};
    feed_status st;
    uint32_t seen = 0;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK) {
        for (uint32_t i = 0; i < b.count; i++) {
            char msg[256];
            const uint8_t *px = (const uint8_t *)b.data + (size_t)i * b.sample_bytes;
            assert_int_equal(tu_reference(ix.hdr, feed__loader_xform(L), 1234, b.epoch, b.sample_ids[i], ref,
                                          msg, sizeof msg),
                             FEED_OK);
            assert_memory_equal(px, ref, sizeof ref);
            for (size_t k = 0; k < sizeof ref; k++)
                hsh = (hsh ^ px[k]) * 0x100000001b3ull;
        }
        seen += b.count;
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    assert_int_equal(st, FEED_END_OF_EPOCH);
    assert_int_equal(seen, NIMG);
    feed_loader_destroy(L);
    return hsh;
}

static void test_loader_trivialaugment(void **state)
{
    (void)state;
    uint64_t h1 = run_loader("workers=1,augment=train,auto_augment=trivialaugment,epochs=1,shuffle=false");
    uint64_t h3 = run_loader("workers=3,augment=train,auto_augment=trivialaugment,epochs=1,shuffle=false");
    uint64_t none = run_loader("workers=2,augment=train,auto_augment=none,epochs=1,shuffle=false");
    uint64_t ra = run_loader("workers=2,augment=train,auto_augment=randaugment,aa_interpolation=bilinear,"
                             "aa_fill=0x7c7468,epochs=1,shuffle=false");
    assert_true(h1 == h3);
    assert_true(h1 != none);
    assert_true(ra != none && ra != h1);
}

static int setup(void **state)
{
    (void)state;
    data = tu_dataset("policy", NIMG, 5, 3, &ix);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    feed__index_free(&ix);
    tu_rmtree(data);
    free(data);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pixel_functions),
        cmocka_unit_test(test_equalize_autocontrast),
        cmocka_unit_test(test_translate_rotate_exact),
        cmocka_unit_test(test_shear_nearest),
        cmocka_unit_test(test_trivial_draws),
        cmocka_unit_test(test_rand_draws),
        cmocka_unit_test(test_auto_draws),
        cmocka_unit_test(test_timm_draws),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_loader_trivialaugment),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
