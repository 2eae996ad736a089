/*
 * test_augops_levels.c - the ops of src/pixels/augops*.c at every
 * instruction-set level this CPU has (augops_geom.h: the baseline, AVX2,
 * AVX-512 VBMI) give the baseline's bytes, and the row-at-a-time nearest
 * sampler gives the pixel-by-pixel one's: every op, magnitudes across and
 * beyond the policies' ranges, both samplers, random fills, on noise and on
 * narrow-range images, at sizes that leave partial vector blocks, partial
 * 256-pixel chunks and a width past the kept column table.
 * python/tests/test_torchvision_ops.py holds the default level against
 * torchvision.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "feed.h"
#include "pixels/augops.h"
#include "pixels/augops_geom.h"

static const uint32_t sizes[][2] = {{224, 224}, {1, 1}, {2, 3}, {3, 2}, {17, 17}, {37, 23}, {5, 64},
                                    {64, 5},   {300, 200}, {257, 9}, {4099, 3}, {3, 700}};

/* An argument for op: draw k of a run, past the policies' ranges both ways */
static double draw_arg(uint32_t op, feed__rng *r, int k)
{
    double u = feed__rng_uniform(r) * 2 - 1;
    switch (op) {
    case FEED__AUG_SHEAR_X:
    case FEED__AUG_SHEAR_Y:
        /* k 11: a shear so steep that most points lie beyond 2^30, where
         * the samplers take the fill without rounding or flooring */
        return k == 11 ? 1e9 * (u < 0 ? -1 : 1) : u * 1.2;
    case FEED__AUG_TRANSLATE_X:
    case FEED__AUG_TRANSLATE_Y:
        return k & 1 ? (double)(int)(u * 300) : u * 300;
    case FEED__AUG_ROTATE: {
        static const double exact[] = {0, 90, 180, 270, -90, 45, 1e-3};
        return k < 7 ? exact[k] : u * 400;
    }
    case FEED__AUG_POSTERIZE:
        return k % 10 - 1;
    case FEED__AUG_SOLARIZE:
        return (u + 1) * 130;
    case FEED__AUG_SOLARIZE_ADD:
        return (int)((u + 1) * 64);
    default:
        return (u + 1) * 1.1;
    }
}

/* Noise, or a narrow range with a flat channel now and then */
static void fill_image(uint8_t *p, size_t n, feed__rng *r, int k)
{
    uint32_t base = (uint32_t)feed__rng_below(r, 200), span = 1 + (uint32_t)feed__rng_below(r, 40);
    for (size_t i = 0; i < n; i++)
        p[i] = k % 3 == 0 ? (uint8_t)feed__rng_below(r, 256)
               : k % 3 == 1 && i % 3 == 1 ? (uint8_t)base
                                           : (uint8_t)(base + feed__rng_below(r, span));
}

/* op with arg on src at the level (and pixel by pixel, pixelwise), into out */
static void run_op(uint32_t op, double arg, const uint8_t *src, uint8_t *out, uint8_t *scratch, uint32_t w,
                   uint32_t h, uint32_t interp, const uint8_t fill[3], int level, int pixelwise)
{
    memcpy(out, src, (size_t)w * h * 3);
    feed__aug_simd = level;
    feed__aug_pixelwise = pixelwise;
    feed__aug_apply(op, arg, out, w, h, interp, fill, scratch);
    feed__aug_simd = -1;
    feed__aug_pixelwise = 0;
}

static void test_levels_agree(void **state)
{
    (void)state;
    feed__aug_simd = -1;
    int top = feed__aug_level();
    feed__rng r;
    feed__rng_init(&r, 7, 0, 0, 99);
    size_t cap = 300 * 200 * 3; /* the largest of sizes */
    uint8_t *src = malloc(cap), *ref = malloc(cap), *out = malloc(cap), *scratch = malloc(cap);
    assert_non_null(src && ref && out && scratch);
    uint64_t cases = 0;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        uint32_t w = sizes[z][0], h = sizes[z][1];
        size_t n = (size_t)w * h * 3;
        assert_true(n <= cap);
        for (uint32_t op = 0; op < FEED__AUG_OPS; op++)
            for (int k = 0; k < 12; k++)
                for (uint32_t interp = 0; interp < 2; interp++) {
                    double arg = draw_arg(op, &r, k);
                    uint8_t fill[3] = {(uint8_t)feed__rng_below(&r, 256), (uint8_t)feed__rng_below(&r, 256),
                                       (uint8_t)feed__rng_below(&r, 256)};
                    fill_image(src, n, &r, k);
                    run_op(op, arg, src, ref, scratch, w, h, interp, fill, 0, 1);
                    for (int level = 0; level <= top; level++) {
                        run_op(op, arg, src, out, scratch, w, h, interp, fill, level, 0);
                        if (memcmp(ref, out, n)) {
                            fprintf(stderr, "%s(%.17g) %ux%u interp %u: level %d differs\n", feed__aug_name(op),
                                    arg, w, h, interp, level);
                            fail();
                        }
                        cases++;
                    }
                }
    }
    fprintf(stderr, "levels 0..%d: %llu cases agree\n", top, (unsigned long long)cases);
    free(src), free(ref), free(out), free(scratch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
