/*
 * fuzz_npy.c - .npy headers (src/dataset/npy.c) on untrusted input, as a .npy
 * source's array and labels files are.
 *
 * Input: the file's bytes. Properties: parse succeeds or fails with a
 * message; a parsed header's data offset is inside the input and its item
 * size matches its descr; an accepted images array fills the input exactly
 * with C in {1, 3, 4}, and its first sample runs through the pixel pipeline
 * (feed__image_process_pixels, val and train, a 24 x 16 output) to OK or
 * TOO_LARGE; accepted labels convert to values in 0..FEED_MAX_LABEL;
 * accepted targets (as the targets option reads them) fill the input exactly
 * and convert to what their type says (float32 and int64 bits kept, int32
 * sign-extended, float64 rounded to float32).
 */
#include <stdlib.h>
#include <string.h>

#include "dataset/index.h"
#include "dataset/npy.h"
#include "dataset/targets.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static feed__image_ctx *ctx;
    if (!ctx)
        ctx = feed__image_ctx_create();
    feed__npy_header h;
    char err[512];
    err[0] = 0;
    feed_status st = feed__npy_parse(data, size, &h, err, sizeof err);
    if (st != FEED_OK) {
        FZ_CHECK(st == FEED_E_DATASET && err[0], "status %d, message '%s'", st, err);
        return 0;
    }
    FZ_CHECK(h.data_off <= size && h.rank <= FEED_NPY_MAX_RANK, "data at %llu of %zu", (unsigned long long)h.data_off,
             size);
    feed__npy_images im;
    if (feed__npy_check_images(&h, size, &im, err, sizeof err) == FEED_OK) {
        FZ_CHECK(im.c == 1 || im.c == 3 || im.c == 4, "C = %u", im.c);
        FZ_CHECK(im.sample_bytes == (uint64_t)im.h * im.w * im.c && im.count >= 1 &&
                     im.data_off + im.count * im.sample_bytes == size,
                 "shape against size");
        if ((uint64_t)im.h * im.w <= 1u << 16) {
            feed_options o;
            feed_options_init(&o, sizeof o);
            o.height = 24, o.width = 16, o.resize_shorter = 20, o.rotate_deg = 15, o.brightness = 0.5f;
            o.max_pixels = 1u << 16;
            uint8_t out[24 * 16 * 3];
            for (uint32_t mode = FEED_AUGMENT_NONE; mode <= FEED_AUGMENT_TRAIN; mode++) {
                o.augment = mode;
                feed__xform x;
                feed__xform_from_options(&x, &o);
                int r = feed__image_process_pixels(ctx, &x, data + im.data_off, im.w, im.h, im.c, 1, 2, 3, out,
                                                   NULL, err, sizeof err);
                FZ_CHECK(r == FEED_OK, "pixels: status %d '%s'", r, err);
            }
        }
    }
    if (h.rank == 1 && feed__npy_check_labels(&h, size, h.shape[0], err, sizeof err) == FEED_OK) {
        int32_t *lab = malloc((size_t)h.shape[0] * sizeof *lab + 1), max = 0;
        if (feed__npy_labels(&h, data + h.data_off, 0, h.shape[0], lab, &max, err, sizeof err) == FEED_OK)
            for (uint64_t i = 0; i < h.shape[0]; i++)
                FZ_CHECK(lab[i] >= 0 && lab[i] <= max, "label %d, max %d", lab[i], max);
        free(lab);
    }
    if (h.rank >= 1 && feed__npy_check_targets(&h, size, h.shape[0], err, sizeof err) == FEED_OK) {
        uint64_t k = h.rank == 2 ? h.shape[1] : 1, n = h.shape[0] * k;
        FZ_CHECK(h.data_off + n * h.item == size, "targets fill the input");
        uint8_t *out = malloc(n * 8 + 1);
        feed__targets_convert(&h, data + h.data_off, n, out);
        for (uint64_t i = 0; i < n; i++) {
            const uint8_t *src = data + h.data_off + i * h.item;
            uint8_t le[8];
            for (uint32_t b = 0; b < h.item; b++)
                le[b] = src[h.order == '>' ? h.item - 1 - b : b];
            if (h.kind == 'f' && h.item == 4)
                FZ_CHECK(memcmp(out + i * 4, le, 4) == 0, "float32 kept");
            else if (h.kind == 'f') {
                double d;
                float f;
                memcpy(&d, le, 8), memcpy(&f, out + i * 4, 4);
                FZ_CHECK(f == (float)d || (d != d && f != f), "float64 rounded");
            } else {
                int64_t v, want;
                memcpy(&v, out + i * 8, 8);
                if (h.item == 4) {
                    int32_t w;
                    memcpy(&w, le, 4);
                    want = w;
                } else
                    memcpy(&want, le, 8);
                FZ_CHECK(v == want, "int %lld, want %lld", (long long)v, (long long)want);
            }
        }
        free(out);
    }
    return 0;
}
