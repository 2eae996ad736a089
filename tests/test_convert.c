/*
 * test_convert.c - src/pixels/convert.c and the per-element functions of convert.h
 * (which the CUDA kernel shares).
 *
 *  - float16/bfloat16 rounding against independent references computed in
 *    double with nearbyint (and the compiler's _Float16 where it has one):
 *    every tie between two adjacent representable values and its float
 *    neighbours, a sweep over the whole float range, special values.
 *  - feed__convert_sample for every dtype and layout, with and without flip,
 *    at widths around the vector block: float32 bitwise equal to the
 *    per-element fmaf (what the GPU computes) and within the error bound of a
 *    float64 reference; float16/bfloat16 equal to the rounding of that float32
 *    and within one ulp (of the output type) plus that bound; uint8 exact.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pixels/convert.h"

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static double half_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return h & 0x8000 ? -v : v;
}

static double bf16_value(uint16_t b)
{
    return from_bits((uint32_t)b << 16);
}

/* Round-to-nearest-even references, in double arithmetic (exact scalings and
 * nearbyint in the default rounding mode), for finite non-NaN v. */
static uint16_t ref_f16(double v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    if (a >= 65520.0)
        return sign | 0x7c00;
    if (a < ldexp(1, -14))
        return sign | (uint16_t)nearbyint(ldexp(a, 24)); /* 1024 is the smallest normal */
    int e;
    frexp(a, &e);
    int E = e - 1;
    double q = nearbyint(ldexp(a, 10 - E));
    if (q == 2048) {
        q = 1024;
        E++;
    }
    if (E > 15)
        return sign | 0x7c00;
    return sign | (uint16_t)((E + 15) << 10) | (uint16_t)(q - 1024);
}

static uint16_t ref_bf16(double v)
{
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    if (a >= ldexp(2.0 - ldexp(1, -8), 127))
        return sign | 0x7f80;
    if (a < ldexp(1, -126))
        return sign | (uint16_t)nearbyint(ldexp(a, 133));
    int e;
    frexp(a, &e);
    int E = e - 1;
    double q = nearbyint(ldexp(a, 7 - E));
    if (q == 256) {
        q = 128;
        E++;
    }
    if (E > 127)
        return sign | 0x7f80;
    return sign | (uint16_t)((E + 127) << 7) | (uint16_t)(q - 128);
}

static void check_f16(float f)
{
    uint16_t got = feed__f32_to_f16(f), want = ref_f16(f);
    if (got != want)
        fail_msg("f16(%a = 0x%08x) = 0x%04x, want 0x%04x", f, feed__f32_bits(f), got, want);
#if defined(__FLT16_MAX__)
    _Float16 h = (_Float16)f;
    uint16_t hb;
    memcpy(&hb, &h, sizeof hb);
    if (got != hb)
        fail_msg("f16(%a) = 0x%04x, the compiler says 0x%04x", f, got, hb);
#endif
}

static void check_bf16(float f)
{
    uint16_t got = feed__f32_to_bf16(f), want = ref_bf16(f);
    if (got != want)
        fail_msg("bf16(%a = 0x%08x) = 0x%04x, want 0x%04x", f, feed__f32_bits(f), got, want);
}

static int is_f16_nan(uint16_t h)
{
    return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

static int is_bf16_nan(uint16_t b)
{
    return (b & 0x7f80) == 0x7f80 && (b & 0x7f);
}

/* Every pair of adjacent non-negative finite halves: the midpoint (exact in
 * float) goes to the even one, its float neighbours to the nearer one. */
static void test_f16_ties(void **state)
{
    for (uint32_t h = 0; h < 0x7c00; h++) {
        double lo = half_value((uint16_t)h);
        double hi = h + 1 == 0x7c00 ? 65536.0 : half_value((uint16_t)(h + 1));
        float mid = (float)((lo + hi) / 2);
        assert_true((double)mid == (lo + hi) / 2);
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        assert_int_equal(feed__f32_to_f16(mid), even);
        assert_int_equal(feed__f32_to_f16(-mid), even | 0x8000);
        assert_int_equal(feed__f32_to_f16(nextafterf(mid, 0)), h);
        assert_int_equal(feed__f32_to_f16(nextafterf(mid, INFINITY)), h + 1);
        assert_int_equal(feed__f32_to_f16((float)lo), h); /* exact values stay */
        check_f16(mid);
        check_f16(nextafterf(mid, 0));
        check_f16(nextafterf(mid, INFINITY));
    }
}

static void test_bf16_ties(void **state)
{
    for (uint32_t b = 0; b < 0x7f80; b++) {
        float mid = from_bits(b << 16 | 0x8000);
        uint16_t even = (b & 1) ? (uint16_t)(b + 1) : (uint16_t)b;
        assert_int_equal(feed__f32_to_bf16(mid), even);
        assert_int_equal(feed__f32_to_bf16(-mid), even | 0x8000);
        assert_int_equal(feed__f32_to_bf16(from_bits(b << 16 | 0x7fff)), b);
        assert_int_equal(feed__f32_to_bf16(from_bits(b << 16 | 0x8001)), b + 1);
        assert_int_equal(feed__f32_to_bf16(from_bits(b << 16)), b);
        check_bf16(mid);
    }
}

/* About a million floats spread over the whole bit range (NaNs skipped). */
static void test_sweep(void **state)
{
    for (uint64_t u = 0; u < (1ull << 32); u += 4093) {
        float f = from_bits((uint32_t)u);
        if (isnan(f))
            continue;
        check_f16(f);
        check_bf16(f);
    }
}

static void test_special_values(void **state)
{
    /* infinities, zeros, overflow, the subnormal edges */
    assert_int_equal(feed__f32_to_f16(INFINITY), 0x7c00);
    assert_int_equal(feed__f32_to_f16(-INFINITY), 0xfc00);
    assert_int_equal(feed__f32_to_f16(0.0f), 0x0000);
    assert_int_equal(feed__f32_to_f16(-0.0f), 0x8000);
    assert_int_equal(feed__f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(feed__f32_to_f16(nextafterf(65520.0f, 0)), 0x7bff);
    assert_int_equal(feed__f32_to_f16(65520.0f), 0x7c00); /* tie: to the even inf */
    assert_int_equal(feed__f32_to_f16(1e10f), 0x7c00);
    assert_int_equal(feed__f32_to_f16(-3.4e38f), 0xfc00);
    assert_int_equal(feed__f32_to_f16(ldexpf(1, -24)), 0x0001);      /* smallest subnormal */
    assert_int_equal(feed__f32_to_f16(ldexpf(1, -25)), 0x0000);      /* tie: to even zero */
    assert_int_equal(feed__f32_to_f16(nextafterf(ldexpf(1, -25), 1)), 0x0001);
    assert_int_equal(feed__f32_to_f16(ldexpf(3, -25)), 0x0002);      /* 1.5 ulp: tie to 2 */
    assert_int_equal(feed__f32_to_f16(ldexpf(1, -14)), 0x0400);      /* smallest normal */
    assert_int_equal(feed__f32_to_f16(nextafterf(ldexpf(1, -14), 0)), 0x0400); /* carries */
    assert_int_equal(feed__f32_to_f16(1e-30f), 0x0000);
    assert_int_equal(feed__f32_to_f16(from_bits(1)), 0x0000);        /* float subnormal */
    assert_int_equal(feed__f32_to_f16(1.0f), 0x3c00);
    assert_int_equal(feed__f32_to_f16(-2.0f), 0xc000);
    assert_int_equal(feed__f32_to_f16(1.0f + ldexpf(1, -11)), 0x3c00); /* tie: to even */
    assert_int_equal(feed__f32_to_f16(1.0f + ldexpf(3, -11)), 0x3c02); /* tie: to even */

    assert_int_equal(feed__f32_to_bf16(INFINITY), 0x7f80);
    assert_int_equal(feed__f32_to_bf16(-INFINITY), 0xff80);
    assert_int_equal(feed__f32_to_bf16(-0.0f), 0x8000);
    assert_int_equal(feed__f32_to_bf16(from_bits(0x7f7fffff)), 0x7f80); /* FLT_MAX: inf */
    assert_int_equal(feed__f32_to_bf16(from_bits(0x7f7f7fff)), 0x7f7f);
    assert_int_equal(feed__f32_to_bf16(1.0f), 0x3f80);
    assert_int_equal(feed__f32_to_bf16(from_bits(1)), 0x0000);
    assert_int_equal(feed__f32_to_bf16(from_bits(0x00008000)), 0x0000); /* tie to even 0 */
    assert_int_equal(feed__f32_to_bf16(from_bits(0x00018000)), 0x0002); /* tie to even 2 */

    /* NaN stays NaN (quiet), with its sign, whatever its payload */
    const uint32_t nans[] = {0x7fc00000, 0x7f800001, 0x7fbfffff, 0xffc00000, 0xff800001, 0x7fffffff};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t h = feed__f32_to_f16(from_bits(nans[i]));
        uint16_t b = feed__f32_to_bf16(from_bits(nans[i]));
        assert_true(is_f16_nan(h));
        assert_true(is_bf16_nan(b));
        assert_true(h & 0x200);
        assert_true(b & 0x40);
        assert_int_equal(h >> 15, nans[i] >> 31);
        assert_int_equal(b >> 15, nans[i] >> 31);
    }
}

static void test_params_and_sizes(void **state)
{
    const float mean[3] = {0.485f, 0.456f, 0.406f}, sd[3] = {0.229f, 0.224f, 0.225f};
    float s[3], b[3];
    feed__convert_params(mean, sd, s, b);
    for (int c = 0; c < 3; c++) {
        assert_true(s[c] == 1.0f / (255.0f * sd[c]));
        assert_true(b[c] == -mean[c] / sd[c]);
    }
    assert_int_equal(feed__dtype_size(FEED_DTYPE_UINT8), 1);
    assert_int_equal(feed__dtype_size(FEED_DTYPE_FLOAT32), 4);
    assert_int_equal(feed__dtype_size(FEED_DTYPE_FLOAT16), 2);
    assert_int_equal(feed__dtype_size(FEED_DTYPE_BFLOAT16), 2);
    assert_int_equal(feed__dtype_size(99), 0);
    /* mean 0, std 1: x / 255 to within the fma's rounding */
    const float z[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    feed__convert_params(z, one, s, b);
    for (uint32_t x = 0; x < 256; x++)
        assert_true(fabs(feed__px_norm(x, s[0], b[0]) - x / 255.0) <= ldexp(x / 255.0, -23));
    assert_true(feed__px_norm(0, s[0], b[0]) == 0.0f);
}

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* The output at a 64-byte boundary (CHW float32 planes 32-byte aligned are
 * written with streaming stores) and 4 bytes past one (plain stores). */
static void check_image_at(uint32_t h, uint32_t w, const float mean[3], const float sd[3],
                           size_t misalign)
{
    const size_t n = (size_t)h * w * 3;
    uint8_t *in = malloc(n);
    uint8_t *mem = aligned_alloc(64, (n * 4 + 64 + misalign + 63) / 64 * 64);
    void *out = mem + misalign;
    assert_non_null(in);
    assert_non_null(mem);
    for (size_t i = 0; i < n; i++)
        in[i] = (uint8_t)rnd();
    in[0] = 0;
    in[n - 1] = 255;
    float s[3], b[3];
    feed__convert_params(mean, sd, s, b);
    for (uint32_t dt = FEED_DTYPE_UINT8; dt <= FEED_DTYPE_BFLOAT16; dt++)
        for (uint32_t layout = FEED_LAYOUT_HWC; layout <= FEED_LAYOUT_CHW; layout++)
            for (int flip = 0; flip <= 1; flip++) {
                memset(out, 0xa5, n * 4 + 64);
                feed__convert_sample(in, h, w, dt, layout, s, b, flip, out);
                size_t sz = feed__dtype_size(dt);
                /* nothing written past the sample */
                for (size_t j = n * sz; j < n * sz + 64; j++)
                    assert_int_equal(((uint8_t *)out)[j], 0xa5);
                for (uint32_t y = 0; y < h; y++)
                    for (uint32_t x = 0; x < w; x++)
                        for (uint32_t c = 0; c < 3; c++) {
                            uint8_t v = in[((size_t)y * w + (flip ? w - 1 - x : x)) * 3 + c];
                            size_t o = layout == FEED_LAYOUT_CHW ? (size_t)c * h * w + (size_t)y * w + x
                                                                 : ((size_t)y * w + x) * 3 + c;
                            if (dt == FEED_DTYPE_UINT8) {
                                assert_int_equal(((uint8_t *)out)[o], v);
                                continue;
                            }
                            double ref = (v / 255.0 - (double)mean[c]) / (double)sd[c];
                            float f32 = feed__px_norm(v, s[c], b[c]);
                            /* scale, bias and the fma each round once */
                            double tol = ldexp(fabs(v * (double)s[c]) + fabs((double)b[c]), -22) +
                                         ldexp(fabs(ref), -23);
                            if (dt == FEED_DTYPE_FLOAT32) {
                                float got = ((float *)out)[o];
                                if (feed__f32_bits(got) != feed__f32_bits(f32))
                                    fail_msg("f32 %ux%u layout %u flip %d (%u,%u,%u): %a, want %a",
                                             h, w, layout, flip, y, x, c, got, f32);
                                assert_true(fabs(got - ref) <= tol);
                            } else if (dt == FEED_DTYPE_FLOAT16) {
                                uint16_t got = ((uint16_t *)out)[o];
                                assert_int_equal(got, feed__f32_to_f16(f32));
                                double ulp = ldexp(1, (int)floor(log2(fmax(fabs(ref), ldexp(1, -14)))) - 10);
                                assert_true(fabs(half_value(got) - ref) <= ulp + tol);
                            } else {
                                uint16_t got = ((uint16_t *)out)[o];
                                assert_int_equal(got, feed__f32_to_bf16(f32));
                                double ulp = ldexp(1, (int)floor(log2(fmax(fabs(ref), ldexp(1, -126)))) - 7);
                                assert_true(fabs(bf16_value(got) - ref) <= ulp + tol);
                            }
                        }
            }
    free(in);
    free(mem);
}

static void check_image(uint32_t h, uint32_t w, const float mean[3], const float sd[3])
{
    check_image_at(h, w, mean, sd, 0);
    check_image_at(h, w, mean, sd, 4);
}

/* Widths around the vector block (16) and its tail, and odd shapes. */
static void test_convert_sample(void **state)
{
    const float mean[3] = {0.485f, 0.456f, 0.406f}, sd[3] = {0.229f, 0.224f, 0.225f};
    const uint32_t shapes[][2] = {{1, 1}, {1, 15}, {2, 16}, {3, 17}, {5, 31}, {4, 32},
                                  {7, 33}, {16, 16}, {9, 100}, {32, 224}, {3, 8}, {2, 24}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        check_image(shapes[i][0], shapes[i][1], mean, sd);
    /* other statistics: a mean that makes values cancel to near zero */
    const float mean2[3] = {0.5f, 0.0f, 1.0f}, sd2[3] = {0.5f, 1.0f, 0.25f};
    check_image(8, 40, mean2, sd2);
}

/* Flip is a mirror: the flipped output of x equals the output of mirrored x. */
static void test_flip_is_mirror(void **state)
{
    const uint32_t h = 5, w = 19;
    uint8_t in[5 * 19 * 3], mir[5 * 19 * 3];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)rnd();
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            memcpy(&mir[(y * w + x) * 3], &in[(y * w + (w - 1 - x)) * 3], 3);
    const float mean[3] = {0.1f, 0.2f, 0.3f}, sd[3] = {0.3f, 0.2f, 0.1f};
    float s[3], b[3];
    feed__convert_params(mean, sd, s, b);
    float a[5 * 19 * 3], c[5 * 19 * 3];
    for (uint32_t layout = 0; layout <= 1; layout++) {
        feed__convert_sample(in, h, w, FEED_DTYPE_FLOAT32, layout, s, b, 1, a);
        feed__convert_sample(mir, h, w, FEED_DTYPE_FLOAT32, layout, s, b, 0, c);
        assert_memory_equal(a, c, sizeof a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_f16_ties),
        cmocka_unit_test(test_bf16_ties),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_params_and_sizes),
        cmocka_unit_test(test_convert_sample),
        cmocka_unit_test(test_flip_is_mirror),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
