/*
 * fuzz_jpeghuff.c - libfeed's Huffman decoder (src/decode/jpeg_huff.c, jpeg_phuff.c) against
 * libjpeg-turbo's exact path, differentially: the same file through the
 * same region decode (feed__jpeg_decode) with region.libjpeg_entropy 0 and 2
 * (2: the data handed to libjpeg in small pieces, so that its fast path,
 * which decodes some damaged streams differently, never runs).
 *
 * Input: one byte that picks the scale (bits 0-2: M/8 = 1 + b % 8), the
 * region (bits 3-5: one of eight boxes), planar or RGBX output (bit 6) and
 * for progressive files libfeed's plain C refinement kernel instead of the
 * best this CPU has (bit 7), then the JPEG file.
 *
 * Property: the same status, message and bytes.
 */
#include <string.h>

#include "decode/jpeg.h"
#include "decode/jpeg_huff.h"
#include "fuzz.h"
#include "test_image_util.h"

typedef struct fz_arg {
    uint8_t sel;
    int libjpeg;
} fz_arg;

static const double fz_boxes[8][4] = {
    {0, 0, 1, 1},     {0.25, 0.25, 0.75, 0.75}, {0, 0.5, 1, 1},   {0.5, 0, 1, 0.5},
    {0, 0, 0.1, 0.1}, {0.9, 0.9, 1, 1},         {0.3, 0, 0.6, 1}, {0, 0.3, 1, 0.6},
};

static int fz_plan(void *arg, const feed__decode_info *info, feed__decode_region *r, char *msg, size_t msglen)
{
    const fz_arg *a = arg;
    if ((uint64_t)info->width * info->height > (1u << 20)) { /* milliseconds an input */
        snprintf(msg, msglen, "over 1 Mpx");
        return FEED_E_TOO_LARGE;
    }
    uint32_t m = 1 + (a->sel & 7);
    uint32_t sw = feed__jpeg_scaled(info->width, m), sh = feed__jpeg_scaled(info->height, m);
    const double *b = fz_boxes[(a->sel >> 3) & 7];
    r->scale = m;
    ti_region_from_box(r, b, sw, sh);
    r->planes = (a->sel >> 6) & 1;
    r->libjpeg_entropy = (uint32_t)a->libjpeg;
    return 0;
}

/* The decoded region's bytes, flattened (malloc'ed). */
static uint8_t *fz_flatten(const feed__decode_image *img, size_t *n)
{
    size_t t = img->nplanes ? 0 : (size_t)img->w * img->h * 4;
    for (uint32_t p = 0; p < img->nplanes; p++)
        t += (size_t)img->plane[p].w * img->plane[p].h;
    uint8_t *o = malloc(t ? t : 1), *w = o;
    FZ_CHECK(o != NULL, "out of memory");
    if (!img->nplanes)
        for (uint32_t y = 0; y < img->h; y++, w += (size_t)img->w * 4)
            memcpy(w, img->pixels + y * img->stride, (size_t)img->w * 4);
    for (uint32_t p = 0; p < img->nplanes; p++)
        for (uint32_t y = 0; y < img->plane[p].h; y++, w += img->plane[p].w)
            memcpy(w, img->plane[p].pixels + y * img->plane[p].stride, img->plane[p].w);
    *n = t;
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static feed__jpeg *ours, *theirs;
    if (!ours) {
        ours = feed__jpeg_create();
        theirs = feed__jpeg_create();
        FZ_CHECK(ours && theirs, "out of memory");
    }
    if (size < 1)
        return 0;
    fz_arg a = {data[0], 0}, b = {data[0], 2};
    feed__huff_refine_level(data[0] & 0x80 ? 0 : -1);
    feed__decode_image ia, ib;
    char ma[256], mb[256];
    int ra = feed__jpeg_decode(ours, data + 1, size - 1, fz_plan, &a, &ia, ma, sizeof ma);
    int rb = feed__jpeg_decode(theirs, data + 1, size - 1, fz_plan, &b, &ib, mb, sizeof mb);
    FZ_CHECK(!feed__jpeg_own_entropy(theirs), "libjpeg's run used ours");
    FZ_CHECK(ra == rb && !strcmp(ma, mb), "ours %d '%s', libjpeg's exact path %d '%s'", ra, ma, rb, mb);
    if (ra == 0) {
        size_t na, nb;
        uint8_t *fa = fz_flatten(&ia, &na), *fb = fz_flatten(&ib, &nb);
        FZ_CHECK(na == nb && memcmp(fa, fb, na) == 0, "different bytes (%zu, %zu)", na, nb);
        free(fa);
        free(fb);
    }
    return 0;
}
