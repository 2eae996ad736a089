/*
 * augops_geom.h - inside augops: the geometric ops (augops_geom.c), the
 * float32 helpers that they and the colour ops (augops.c) share, and the
 * instruction-set levels their loops are compiled for.
 */
#ifndef FEED_PIXELS_AUGOPS_GEOM_H
#define FEED_PIXELS_AUGOPS_GEOM_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The ops' hot loops are plain C that the compiler vectorises; each is
 * compiled for x86-64's baseline (level 0), for AVX2 (level 1) and for
 * AVX-512 with VBMI (level 2, which also has the intrinsics of the table
 * lookups and the nearest sampler's gather), and runs at the level the
 * CPU has. Elementwise float operations round the same in any vector
 * width, so the levels' results are equal (test_augops_levels checks it
 * on every op). feed__aug_simd >= 0 forces a level (the tests run each);
 * -1, the default, picks by CPU.
 */
extern int feed__aug_simd;
int feed__aug_level(void);
/* Set, the nearest sampler runs pixel by pixel (affine_row), as bilinear
 * does: the tests hold the row-at-a-time path against it. */
extern int feed__aug_pixelwise;

/* FEED__AUG_LEVELS(name, top, (params), (args)) defines static void
 * name(params) that runs name_c, a static FEED__AUG_INLINE void, compiled
 * at the level feed__aug_level picks, at most top (1 where AVX-512's
 * copy measured slower). The loops' helpers are FEED__AUG_INLINE too, so
 * that they are compiled into each level's copy. */
#define FEED__AUG_INLINE inline __attribute__((always_inline))
#if defined(__x86_64__) && defined(__GNUC__)
#define FEED__AUG_LEVELS(name, top, params, args)                                                            \
    __attribute__((target("avx2"))) static void name##_avx2 params                                          \
    {                                                                                                        \
        name##_c args;                                                                                       \
    }                                                                                                        \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi"), unused))                          \
    static void name##_avx512 params                                                                         \
    {                                                                                                        \
        name##_c args;                                                                                       \
    }                                                                                                        \
    static void name params                                                                                  \
    {                                                                                                        \
        int level = feed__aug_level();                                                                       \
        if (level >= 2 && (top) >= 2)                                                                        \
            name##_avx512 args;                                                                              \
        else if (level >= 1)                                                                                 \
            name##_avx2 args;                                                                                \
        else                                                                                                 \
            name##_c args;                                                                                   \
    }
#else
#define FEED__AUG_LEVELS(name, top, params, args)                                                            \
    static void name params                                                                                  \
    {                                                                                                        \
        name##_c args;                                                                                       \
    }
#endif

/* a * b + c rounded once to float32, as ATen's vector kernels (built with
 * FMA) round it. The product of two floats is exact in a double, and so is
 * the sum whenever it spans at most 53 bits: with 0..255 values, for every
 * factor whose magnitude is 0 or >= 2^-22 (the policies' are 0 or >= 0.03)
 * and for the sampler's weights >= 2^-22. Otherwise the double sum is
 * rounded first, and differs from the fused result only if that lands
 * exactly on a float midpoint (a chance under 2^-29). The colour ops form
 * the same double sums of exact products inline. */
static FEED__AUG_INLINE float feed__fma_f(float a, float b, float c)
{
    return (float)((double)a * b + c);
}

/* nearbyintf without a libm call (x86-64's baseline SSE2 has no rounding
 * instruction, and the calls dominated the sampler): adding and taking away
 * 1.5 * 2^23 rounds half to even in the default rounding mode, exact for
 * |v| < 2^22 */
static inline float feed__round_even(float v)
{
    return fabsf(v) < 0x1p22f ? (v + 0x1.8p23f) - 0x1.8p23f : nearbyintf(v);
}

/* augops_lut.c: lut applied to the n bytes of img; lut[c] to channel c
 * of the npx pixels of img; each channel's range; each channel's
 * histogram. */
void feed__aug_map_lut(uint8_t *img, size_t n, const uint8_t lut[256]);
void feed__aug_map_lut3(uint8_t *img, size_t npx, const uint8_t lut[3][256]);
void feed__aug_range3(const uint8_t *img, size_t npx, uint8_t lo[3], uint8_t hi[3]);
void feed__aug_hist3(const uint8_t *img, size_t npx, uint64_t hist[3][256]);

/* augops_bilinear.c: affine_row's bilinear sampling of in into out (w, h
 * below 2^22) with augops_geom.c's float32 matrix R. */
void feed__aug_affine_bilinear(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, const float R[6],
                               const uint8_t fill[3]);

/* The geometric ops of augops.h's feed__aug_apply on img, through scratch
 * (w * h * 3 bytes): ShearX (vertical 0) or ShearY by factor s,
 * TranslateX/Y by (dx, dy) pixels, Rotate by angle degrees. */
void feed__aug_shear(int vertical, double s, uint8_t *img, uint32_t w, uint32_t h, uint32_t interp,
                     const uint8_t fill[3], uint8_t *scratch);
void feed__aug_translate(double dx, double dy, uint8_t *img, uint32_t w, uint32_t h, uint32_t interp,
                         const uint8_t fill[3], uint8_t *scratch);
void feed__aug_rotate(double angle, uint8_t *img, uint32_t w, uint32_t h, uint32_t interp, const uint8_t fill[3],
                      uint8_t *scratch);

/*
 * The affine resampling behind the geometric ops: out(x, y) samples in at
 * the point the inverse matrix m (torchvision's _get_inverse_affine_matrix:
 * coordinates about the image centre) gives, as torchvision's
 * _affine_grid + grid_sample(align_corners=False) + fill mask. in and out
 * are w x h RGB and must not overlap.
 */
void feed__aug_affine(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, const double m[6],
                      uint32_t interp, const uint8_t fill[3]);

/* torchvision's _get_inverse_affine_matrix (angles in degrees), in double,
 * in its order of operations, into m. */
void feed__aug_inverse_matrix(double cx, double cy, double angle, double tx, double ty, double shear_x,
                              double shear_y, double m[6]);

#endif
