/*
 * test_options_xform.c - what create accepts, the workers accept.
 *
 * For option sets at and past the edge of every transform option: when
 * feed__options_validate() accepts them, the transform built from them the
 * way feed_loader_create() builds it (src/loader/loader.c) is accepted by
 * feed__image_process() (feed__xform_check in src/pixels/xform.c) and decodes a
 * sample, and the normalised output (host conversion, the same arithmetic as
 * the CUDA kernel) is finite in the chosen dtype. An option that passes
 * create and then fails every sample in the workers fails this test.
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

#include "feed.h"
#include "loader/options.h"
#include "pixels/convert.h"
#include "pixels/pipeline.h"
#include "test_image_util.h"

/* As feed_loader_create() fills the arena's transform. */
static void xform_from(const feed_options *o, feed__xform *x)
{
    feed__xform_from_options(x, o);
}

static int finite_in(uint32_t dtype, const void *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (dtype == FEED_DTYPE_FLOAT32 && !isfinite(((const float *)out)[i]))
            return 0;
        if (dtype == FEED_DTYPE_FLOAT16 && (((const uint16_t *)out)[i] & 0x7c00u) == 0x7c00u)
            return 0;
        if (dtype == FEED_DTYPE_BFLOAT16 && (((const uint16_t *)out)[i] & 0x7f80u) == 0x7f80u)
            return 0;
    }
    return 1;
}

static const char *const cases[] = {
    "augment=val,resize_shorter=0",
    "augment=val,resize_shorter=1,height=1,width=1",
    "augment=val,resize_shorter=31,height=32,width=24",
    "augment=val,resize_shorter=32,height=32,width=24",
    "augment=val,resize_shorter=4000",
    "augment=none,resize_shorter=0",
    "augment=train,resize_shorter=0",
    "augment=train,scale_min=0,scale_max=1",
    "augment=train,scale_min=0.01,scale_max=0.01",
    "augment=train,scale_min=1,scale_max=1",
    "augment=train,ratio_min=0,ratio_max=1",
    "augment=train,ratio_min=0.001,ratio_max=1000",
    "augment=train,ratio_min=2,ratio_max=2",
    "augment=train,rotate_deg=180,fill=ffffff,flip_p=1",
    "augment=train,brightness=100,contrast=100,saturation=100,hue=0.5,grayscale_p=1",
    "augment=train,hue=0.6",
    "height=1,width=8192,augment=none",
    "height=8193,width=8,augment=none",
    "dtype=float32,std=1e-5:1:1",
    "dtype=float16,std=1e-5:1:1",
    "dtype=float16,std=1e-6:1:1",
    "dtype=float16,mean=-65000:0:0,std=1:1:1",
    "dtype=float16,mean=-70000:0:0,std=1:1:1",
    "dtype=bfloat16,mean=3.4e38:0:0,std=1:1:1",
    "dtype=float32,std=1e-44:1:1",
    "dtype=float32,mean=1e38:0:0,std=0.1:1:1",
    "jpeg_entropy=libfeed", /* refused by both where the decoder is compiled out */
    "jpeg_entropy=libjpeg",
    "jpeg_entropy=auto",
};

static void test_accepted_means_workable(void **state)
{
    (void)state;
    uint32_t iw = 48, ih = 40;
    uint8_t *px = ti_pixels(iw, ih, 3);
    size_t len;
    uint8_t *jpg = ti_jpeg(px, iw, ih, TI_420, 90, 0, &len);
    feed__image_ctx *ctx = feed__image_ctx_create();
    assert_non_null(ctx);
    int accepted = 0, refused = 0;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        feed_options o;
        char err[512] = "";
        feed_options_init(&o, sizeof o);
        strcpy(o.source, "/x");
        o.height = o.width = 32;
        o.resize_shorter = 36;
        if (feed_options_parse(&o, cases[k], err, sizeof err) != FEED_OK)
            fail_msg("%s: parse: %s", cases[k], err);
        if (feed__options_validate(&o, err, sizeof err) != FEED_OK) {
            refused++;
            continue;
        }
        accepted++;
        feed__xform x;
        xform_from(&o, &x);
        size_t n = (size_t)x.out_h * x.out_w * 3;
        uint8_t *out = malloc(n);
        void *conv = malloc(n * 4);
        assert_true(out && conv);
        char msg[256] = "";
        for (uint64_t id = 0; id < 4; id++) {
            int rc = feed__image_process(ctx, &x, jpg, len, 7, 0, id, out, NULL, msg, sizeof msg);
            if (rc != FEED_OK)
                fail_msg("%s: accepted by create, but the worker says %d (%s)", cases[k], rc, msg);
            if (o.dtype != FEED_DTYPE_UINT8) {
                float sc[3], bi[3];
                feed__convert_params(o.mean, o.std, sc, bi);
                feed__convert_sample(out, x.out_h, x.out_w, o.dtype, o.layout, sc, bi, 0, conv);
                if (!finite_in(o.dtype, conv, n))
                    fail_msg("%s: accepted by create, but samples come out infinite", cases[k]);
            }
        }
        free(out);
        free(conv);
    }
    /* both sides of the edges were exercised */
    assert_true(accepted >= 15);
    assert_true(refused >= 6);
    feed__image_ctx_destroy(ctx);
    free(jpg);
    free(px);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted_means_workable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
