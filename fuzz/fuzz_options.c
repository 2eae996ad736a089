/*
 * fuzz_options.c - "key=value,..." option text (feed_options_parse) and the
 * checks of feed_loader_create (feed__options_validate) on arbitrary text.
 *
 * Input: the text (up to its first NUL byte). Properties: parse and validate
 * return OK or FEED_E_INVALID, with a message when they refuse; parsing is
 * deterministic (the same text twice gives the same bytes); options that
 * validate accepts make a transform the worker accepts: a valid JPEG comes
 * out as a sample (or TOO_LARGE under max_pixels), through the policy and the
 * RandomErasing the options ask for, finite in its dtype, as
 * tests/test_options_xform.c checks at the edges (outputs up to 256 x 256
 * here, so that one input stays fast).
 */
#include "fuzz.h"
#include "loader/options.h"
#include "test_image_util.h"

static uint8_t *jpeg; /* a small valid JPEG */
static size_t jpeg_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    uint8_t *rgb = ti_pixels(24, 16, 7);
    jpeg = ti_jpeg(rgb, 24, 16, TI_420, 85, 0, &jpeg_len);
    free(rgb);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!jpeg)
        LLVMFuzzerInitialize(NULL, NULL);
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    feed_options o, o2;
    char err[512], err2[512];
    feed_options_init(&o, sizeof o);
    feed_options_init(&o2, sizeof o2);
    err[0] = err2[0] = 0;
    feed_status st = feed_options_parse(&o, text, err, sizeof err);
    feed_status st2 = feed_options_parse(&o2, text, err2, sizeof err2);
    free(text);
    FZ_CHECK(st == FEED_OK || st == FEED_E_INVALID, "parse: %s", feed_status_name(st));
    FZ_CHECK(st == FEED_OK || (err[0] && memchr(err, 0, sizeof err)), "parse refused without a message");
    FZ_CHECK(st2 == st && !memcmp(&o, &o2, sizeof o) && !strcmp(err, err2), "parse is not deterministic");
    if (st != FEED_OK)
        return 0;
    if (!o.source[0] && !o.file_list[0])
        strcpy(o.source, "fuzz"); /* the dataset is not what this target tests */
    err[0] = 0;
    st = feed__options_validate(&o, err, sizeof err);
    FZ_CHECK(st == FEED_OK || st == FEED_E_INVALID, "validate: %s", feed_status_name(st));
    FZ_CHECK(st == FEED_OK || err[0], "validate refused without a message");
    if (st != FEED_OK || (uint64_t)o.height * o.width > 256 * 256)
        return 0;
    size_t n = (size_t)o.height * o.width * 3;
    uint8_t *hwc = malloc(n);
    void *conv = malloc(n * 4);
    feed__image_ctx *ctx = feed__image_ctx_create();
    FZ_CHECK(hwc && conv && ctx, "out of memory");
    int rc = fz_sample(ctx, &o, jpeg, jpeg_len, o.start_epoch, 0, hwc, conv);
    FZ_CHECK(rc == FEED_OK || (rc == FEED_E_TOO_LARGE && o.max_pixels < 24 * 16),
             "options create accepts fail a valid 24x16 JPEG: %s", feed_status_name(rc));
    feed__image_ctx_destroy(ctx);
    free(hwc);
    free(conv);
    return 0;
}
