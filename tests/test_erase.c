/*
 * test_erase.c - RandomErasing (pixels/erase.c): the box's distribution and
 * bounds against the options, the same box in every dtype and layout, the
 * values written, nothing changed without erasing, and through the loader:
 * what the workers deliver is the reference erased with the sample's own
 * draws, the same with 1 and 3 workers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "common/rng.h"
#include "dataset/index.h"
#include "hooks/loader_test.h"
#include "pixels/convert.h"
#include "pixels/erase.h"
#include "pixels/pipeline.h"
#include "testutil.h"

#define NIMG 24
#define NCLASS 3
#define SIDE 32

static char *data;
static feed__index ix;

static int setup(void **state)
{
    data = tu_dataset("erase", NIMG, 5, NCLASS, &ix);
    return 0;
}

static int teardown(void **state)
{
    feed__index_free(&ix);
    tu_rmtree(data);
    free(data);
    return 0;
}

static feed__xform erase_xform(uint32_t h, uint32_t w, float p)
{
    feed__xform x = {.out_h = h, .out_w = w, .mode = FEED_AUGMENT_TRAIN};
    x.erase_p = p;
    x.erase_scale_min = 0.02f, x.erase_scale_max = 0.33f;
    x.erase_ratio_min = 0.3f, x.erase_ratio_max = 3.3f;
    return x;
}

/* Bounds, the erase_p rate, and with a square ratio on a large image (the
 * rounding then negligible) the area share uniform over the scale range and
 * the corner uniform over where the box fits. Tolerances: 5 standard errors
 * of the mean for n draws. */
static void test_box_distribution(void **state)
{
    const int n = 20000;
    feed__xform x = erase_xform(37, 53, 0.4f);
    /* every try fits: the largest box, sqrt(0.2 * 37 * 53 * 2) = 28 a side, is smaller than the image */
    x.erase_scale_max = 0.2f, x.erase_ratio_min = 0.5f, x.erase_ratio_max = 2.0f;
    int erased = 0;
    for (int i = 0; i < n; i++) {
        feed__erase_box b;
        if (!feed__erase_draw(&x, 7, 1, (uint64_t)i, &b))
            continue;
        erased++;
        assert_true(b.h < x.out_h && b.w < x.out_w);
        assert_true(b.y + b.h <= x.out_h && b.x + b.w <= x.out_w);
        double A = (double)x.out_h * x.out_w;
        /* some unrounded (h, w) within half a pixel meets the area and ratio ranges */
        assert_true((b.h + 0.5) * (b.w + 0.5) >= x.erase_scale_min * A * (1 - 1e-6));
        assert_true((b.h - 0.5) * (b.w - 0.5) <= x.erase_scale_max * A * (1 + 1e-6));
        assert_true((b.h + 0.5) / fmax(b.w - 0.5, 1e-9) >= x.erase_ratio_min * (1 - 1e-6));
        assert_true((b.h - 0.5) / (b.w + 0.5) <= x.erase_ratio_max * (1 + 1e-6));
    }
    double p = x.erase_p, rate = (double)erased / n;
    assert_true(fabs(rate - p) < 5 * sqrt(p * (1 - p) / n));

    x = erase_xform(1000, 1000, 1.0f);
    x.erase_ratio_min = x.erase_ratio_max = 1.0f;
    double s = 0, s2 = 0, c = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        feed__erase_box b;
        assert_true(feed__erase_draw(&x, 3, 0, (uint64_t)i, &b)); /* p = 1, always fits */
        double share = (double)b.h * b.w / 1e6;
        s += share, s2 += share * share;
        if (b.h < x.out_h)
            c += (double)b.y / (x.out_h - b.h), m++;
    }
    double lo = x.erase_scale_min, hi = x.erase_scale_max;
    double mean = s / n, sd = (hi - lo) / sqrt(12.0);
    /* rounding a side of at most ~575 by half a pixel moves the share by < 0.0012 */
    assert_true(fabs(mean - (lo + hi) / 2) < 5 * sd / sqrt(n) + 0.0012);
    /* the sample variance's standard error: sqrt(m4 - sd^4) / sqrt(n), m4 = (hi - lo)^4 / 80 for a
     * uniform; the rounding moves it by at most 2 * 0.0012 * (hi - lo) */
    double se_var = sqrt(1.0 / 80 - 1.0 / 144) * (hi - lo) * (hi - lo) / sqrt(n);
    assert_true(fabs(s2 / n - mean * mean - sd * sd) < 5 * se_var + 2 * 0.0012 * (hi - lo));
    assert_true(fabs(c / m - 0.5) < 5 * sqrt(1.0 / 12 / m));
}

/* The same draws in every dtype and layout: the same box, erase_value where
 * it is, the converted pixels everywhere else. */
static void test_every_dtype_layout(void **state)
{
    const uint32_t H = 20, W = 28;
    uint8_t src[H * W * 3];
    feed__rng r;
    feed__rng_init(&r, 1, 2, 3, 99);
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)feed__rng_u64(&r);
    float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f}, sc[3], bi[3];
    feed__convert_params(mean, std, sc, bi);
    feed__xform x = erase_xform(H, W, 1.0f);
    int checked = 0;
    for (uint64_t id = 0; id < 40; id++) {
        feed__erase_box b;
        if (!feed__erase_draw(&x, 11, 0, id, &b))
            continue;
        checked++;
        for (uint32_t dt = 0; dt <= FEED_DTYPE_BFLOAT16; dt++)
            for (uint32_t lay = 0; lay <= FEED_LAYOUT_CHW; lay++) {
                size_t es = feed__dtype_size(dt), n = (size_t)H * W * 3 * es;
                uint8_t *conv = malloc(n), *out = malloc(n), *val = malloc(es);
                x.erase_value[0] = 10, x.erase_value[1] = 20, x.erase_value[2] = 255;
                feed__convert_sample(src, H, W, dt, lay, sc, bi, 0, conv);
                memcpy(out, conv, n);
                feed__erase_sample(&x, 11, 0, id, dt, lay, out);
                for (uint32_t c = 0; c < 3; c++) {
                    float v = x.erase_value[c];
                    uint32_t bits = dt == 0 ? (uint32_t)v : dt == 1 ? feed__f32_bits(v)
                                                          : dt == 2 ? feed__f32_to_f16(v) : feed__f32_to_bf16(v);
                    memcpy(val, &bits, es); /* little-endian: the low bytes */
                    for (uint32_t yy = 0; yy < H; yy++)
                        for (uint32_t xx = 0; xx < W; xx++) {
                            size_t e = lay == FEED_LAYOUT_CHW ? ((size_t)c * H + yy) * W + xx
                                                              : ((size_t)yy * W + xx) * 3 + c;
                            int in = yy >= b.y && yy < b.y + b.h && xx >= b.x && xx < b.x + b.w;
                            assert_memory_equal(out + e * es, in ? val : conv + e * es, es);
                        }
                }
                free(conv), free(out), free(val);
            }
    }
    assert_true(checked > 30);
}

/* erase_random: float dtypes get normal(0, 1) draws keyed by the element's
 * place (the same in HWC and CHW), uint8 uniform bytes. */
static void test_random_values(void **state)
{
    const uint32_t H = 64, W = 64;
    feed__xform x = erase_xform(H, W, 1.0f);
    x.erase_random = 1;
    double s = 0, s2 = 0, bs = 0;
    uint64_t n = 0;
    for (uint64_t id = 0; id < 200; id++) {
        feed__erase_box b;
        if (!feed__erase_draw(&x, 5, 0, id, &b))
            continue;
        float *hwc = calloc(H * W * 3, 4), *chw = calloc(H * W * 3, 4);
        uint8_t *u8 = calloc(H * W * 3, 1);
        feed__erase_apply(&x, &b, FEED_DTYPE_FLOAT32, FEED_LAYOUT_HWC, hwc);
        feed__erase_apply(&x, &b, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, chw);
        feed__erase_apply(&x, &b, FEED_DTYPE_UINT8, FEED_LAYOUT_HWC, u8);
        for (uint32_t c = 0; c < 3; c++)
            for (uint32_t yy = 0; yy < b.h; yy++)
                for (uint32_t xx = 0; xx < b.w; xx++) {
                    size_t eh = ((size_t)(b.y + yy) * W + b.x + xx) * 3 + c;
                    size_t ec = ((size_t)c * H + b.y + yy) * W + b.x + xx;
                    float v = feed__erase_random_value(&b, c, yy, xx);
                    assert_memory_equal(&hwc[eh], &v, 4);
                    assert_memory_equal(&chw[ec], &v, 4);
                    assert_int_equal(u8[eh], feed__erase_random_byte(&b, c, yy, xx));
                    s += v, s2 += (double)v * v, bs += u8[eh], n++;
                }
        free(hwc), free(chw), free(u8);
    }
    assert_true(n > 10000);
    /* normal(0, 1): mean 0 (sd 1/sqrt(n)), variance 1 (sd sqrt(2/n)); bytes: mean 127.5 (sd 73.9/sqrt(n)) */
    assert_true(fabs(s / n) < 5 / sqrt((double)n));
    assert_true(fabs(s2 / n - 1) < 5 * sqrt(2.0 / n));
    assert_true(fabs(bs / n - 127.5) < 5 * 73.9 / sqrt((double)n));
}

/* erase_p = 0: no draw, not a byte changed. */
static void test_p0_changes_nothing(void **state)
{
    feed__xform x = erase_xform(16, 16, 0.0f);
    uint8_t buf[16 * 16 * 3 * 4], ref[sizeof buf];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = ref[i] = (uint8_t)(i * 37);
    for (uint64_t id = 0; id < 100; id++) {
        feed__erase_box b;
        assert_int_equal(feed__erase_draw(&x, 1, 0, id, &b), 0);
        feed__erase_sample(&x, 1, 0, id, FEED_DTYPE_FLOAT32, FEED_LAYOUT_CHW, buf);
    }
    assert_memory_equal(buf, ref, sizeof buf);
}

static feed_loader *make(const char *extra)
{
    char base[128], err[1024];
    feed_loader *L;
    snprintf(base, sizeof base, "batch_size=8,height=%d,width=%d,seed=77", SIDE, SIDE);
    if (tu_loader(&L, data, base, extra, err, sizeof err) != FEED_OK)
        fail_msg("create (%s): %s", extra, err);
    return L;
}

/* Every sample as the workers deliver it: the in-process reference (uint8
 * HWC), erased with the sample's own draws; with erase_p=0, the reference
 * untouched. Returns a hash of the epoch. */
static uint64_t check_epoch(const char *opts, int expect_erase)
{
    feed_loader *L = make(opts);
    const feed__xform *x = feed__loader_xform(L);
    uint8_t ref[SIDE * SIDE * 3];
    char msg[256];
    uint64_t h = 0xcbf29ce484222325ull;
    int erased = 0;
    feed_batch b = {.struct_size = sizeof b};
    while (feed_loader_next(L, &b, 60000) == FEED_OK) {
        for (uint32_t i = 0; i < b.count; i++) {
            uint64_t id = b.sample_ids[i];
            assert_int_equal(tu_reference(ix.hdr, x, 77, b.epoch, id, ref, msg, sizeof msg), FEED_OK);
            feed__erase_box box;
            if (feed__erase_draw(x, 77, b.epoch, id, &box)) {
                feed__erase_apply(x, &box, FEED_DTYPE_UINT8, FEED_LAYOUT_HWC, ref);
                erased++;
            }
            assert_memory_equal((uint8_t *)b.data + i * b.sample_bytes, ref, sizeof ref);
        }
        for (size_t k = 0; k < b.count * b.sample_bytes; k++)
            h = (h ^ ((uint8_t *)b.data)[k]) * 0x100000001b3ull;
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    assert_true(expect_erase ? erased > NIMG / 2 : erased == 0);
    feed_loader_destroy(L);
    return h;
}

static void test_loader_erases_pure(void **state)
{
    uint64_t h1 = check_epoch("workers=1,augment=train,epochs=1,erase_p=0.8,erase_value=3:200:9", 1);
    uint64_t h3 = check_epoch("workers=3,augment=train,epochs=1,erase_p=0.8,erase_value=3:200:9", 1);
    assert_int_equal(h1, h3);
    uint64_t r1 = check_epoch("workers=1,augment=train,epochs=1,erase_p=0.8,erase_random=1", 1);
    uint64_t r3 = check_epoch("workers=3,augment=train,epochs=1,erase_p=0.8,erase_random=1", 1);
    assert_int_equal(r1, r3);
    assert_true(r1 != h1);
    uint64_t none = check_epoch("workers=2,augment=train,epochs=1,erase_p=0", 0);
    assert_true(none != h1);
}

/* Float output, CHW, erase_random: 1 and 3 workers bitwise the same. */
static void test_loader_float_workers(void **state)
{
    uint64_t hs[2];
    const char *w[2] = {"workers=1", "workers=3"};
    for (int k = 0; k < 2; k++) {
        char o[256];
        snprintf(o, sizeof o, "%s,augment=train,epochs=2,dtype=float16,erase_p=0.7,erase_random=1", w[k]);
        feed_loader *L = make(o);
        uint64_t h = 0xcbf29ce484222325ull;
        feed_batch b = {.struct_size = sizeof b};
        feed_status st;
        int batches = 0;
        while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK || st == FEED_END_OF_EPOCH) {
            if (st != FEED_OK)
                continue;
            for (size_t i = 0; i < b.count * b.sample_bytes; i++)
                h = (h ^ ((uint8_t *)b.data)[i]) * 0x100000001b3ull;
            batches++;
            assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
        }
        assert_int_equal(st, FEED_END_OF_DATA);
        assert_int_equal(batches, 2 * (NIMG / 8));
        hs[k] = h;
        feed_loader_destroy(L);
    }
    assert_int_equal(hs[0], hs[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_distribution),
        cmocka_unit_test(test_every_dtype_layout),
        cmocka_unit_test(test_random_values),
        cmocka_unit_test(test_p0_changes_nothing),
        cmocka_unit_test(test_loader_erases_pure),
        cmocka_unit_test(test_loader_float_workers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
