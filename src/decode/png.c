/*
 * png.c - PNG decoding on libspng (png.h).
 *
 * Why libspng and not libpng: one call decodes every colour type and bit
 * depth straight to RGBA8 (palette, tRNS, grey and 16-bit expanded by the
 * library, no transform setup), errors are return codes instead of libpng's
 * longjmp, it has image and chunk-size limits of its own, and it decodes
 * faster than libpng (bench/decodebench --format png measures it against
 * PIL, which uses libpng's zlib path). Debian packages it (libspng-dev).
 *
 * Region: PNG has no random access and no scaled decode, so the region's
 * columns come from whole rows; the rows below the region are not decoded
 * (a non-interlaced file whose IEND is in place), an interlaced one is
 * decoded whole. The region's pixels equal a full decode's either way.
 *
 * Memory: the RGBA8 image (4 bytes a pixel) is the decode's one big buffer;
 * libspng adds a few rows (16-bit, interlace) and the ancillary chunks it
 * keeps, capped by spng_set_chunk_limits. The sum is judged from the header
 * against max_worker_memory before anything is allocated, as in jpeg.c.
 */
#include "decode/png.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spng.h>

#include "decode/unscaled.h"
#include "feed.h"

/* Ancillary chunks (text, ICC profiles, ...) libspng may keep in memory,
 * and the largest one chunk may be: we use none of them, and a small cap
 * stops a file from asking for gigabytes of metadata. */
#define FEED_PNG_CACHE_LIMIT (8u << 20)

struct feed__png {
    feed__pixbuf px;
};

feed__png *feed__png_create(void)
{
    return calloc(1, sizeof(feed__png));
}

void feed__png_destroy(feed__png *p)
{
    if (!p)
        return;
    free(p->px.buf);
    free(p);
}

/* The file ends with an IEND chunk (length 0, its fixed CRC). */
static int feed__png_has_iend(const uint8_t *data, size_t len)
{
    static const uint8_t iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    return len >= 8 + 12 && !memcmp(data + len - 12, iend, 12);
}

static int feed__png_status(int err)
{
    return err == SPNG_EMEM ? FEED_E_NOMEM : FEED_E_DECODE;
}

static int feed__png_body(feed__png *p, spng_ctx *ctx, const uint8_t *data, size_t len,
                          feed__decode_plan_fn plan, void *arg, feed__decode_image *img, char *msg,
                          size_t msglen)
{
    int e = spng_set_png_buffer(ctx, data, len);
    if (!e)
        e = spng_set_chunk_limits(ctx, FEED_PNG_CACHE_LIMIT, FEED_PNG_CACHE_LIMIT);
    struct spng_ihdr ihdr;
    if (!e)
        e = spng_get_ihdr(ctx, &ihdr);
    if (e) {
        snprintf(msg, msglen, "PNG: %s", spng_strerror(e));
        return feed__png_status(e);
    }
    feed__decode_info info;
    memset(&info, 0, sizeof info);
    info.width = ihdr.width;
    info.height = ihdr.height;
    /* tRNS lies between IHDR and IDAT: looking for it reads the chunks up to
     * the image data, so a file cut short fails here (and libspng's context
     * is unusable after an error: its first message is the one to give). */
    struct spng_trns trns;
    e = spng_get_trns(ctx, &trns);
    if (e && e != SPNG_ECHUNKAVAIL) {
        snprintf(msg, msglen, "PNG: %s", spng_strerror(e));
        return feed__png_status(e);
    }
    int has_trns = e == 0;
    switch (ihdr.color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE: info.components = has_trns ? 2 : 1; break;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: info.components = 2; break;
    case SPNG_COLOR_TYPE_TRUECOLOR: info.components = has_trns ? 4 : 3; break;
    default: info.components = has_trns || ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA ? 4 : 3;
    }
    info.orientation = 1;
    info.progressive = ihdr.interlace_method == SPNG_INTERLACE_ADAM7;

    feed__decode_region r;
    int rc = feed__decode_plan(plan, arg, &info, &r, "PNG", msg, msglen);
    if (rc)
        return rc;
    size_t out_len;
    e = spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &out_len);
    if (e) {
        snprintf(msg, msglen, "PNG: %s", spng_strerror(e));
        return feed__png_status(e);
    }
    /* the image, libspng's rows (two scanlines of the widest format, 8
     * bytes a pixel, and one of RGBA8), the chunks it may keep, zlib */
    uint64_t need = (uint64_t)len + out_len + (uint64_t)info.width * 24 +
                    2ull * FEED_PNG_CACHE_LIMIT + (256u << 10);
    rc = feed__decode_fits(&r, need, &info, "PNG", msg, msglen);
    if (rc)
        return rc;
    /* Rows below the region need not be decoded (a non-interlaced PNG is
     * row after row): stop after row y1, keeping rows y0.. only, when the
     * file ends with its IEND chunk, so that a truncated file is still an
     * error wherever the cut falls (as jpeg.c insists on the EOI marker). */
    size_t stride = (size_t)info.width * 4;
    int rows_only = !info.progressive && r.y1 < info.height && feed__png_has_iend(data, len);
    size_t keep = rows_only ? stride * (r.y1 - r.y0 + 1) : out_len; /* + a row for the skipped */
    rc = feed__pixbuf_reserve(&p->px, keep, msg, msglen);
    if (rc)
        return rc;
    uint8_t *buf = p->px.buf;
    if (rows_only) {
        e = spng_decode_image(ctx, NULL, 0, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS | SPNG_DECODE_PROGRESSIVE);
        uint8_t *skipped = buf + stride * (r.y1 - r.y0);
        for (uint32_t y = 0; !e && y < r.y1; y++) {
            e = spng_decode_row(ctx, y < r.y0 ? skipped : buf + stride * (y - r.y0), stride);
        }
    } else {
        e = spng_decode_image(ctx, buf, out_len, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
    }
    if (e) {
        snprintf(msg, msglen, "PNG: %s", spng_strerror(e));
        return feed__png_status(e);
    }
    feed__decode_result(img, buf + (rows_only ? 0 : (size_t)r.y0 * stride) + (size_t)r.x0 * 4, stride, &r,
                        &info);
    return 0;
}

int feed__png_decode(feed__png *p, const uint8_t *data, size_t len, feed__decode_plan_fn plan,
                     void *arg, feed__decode_image *img, char *msg, size_t msglen)
{
    char scratch[1];
    int rc = feed__decode_start(&msg, &msglen, scratch, data, len, "PNG");
    if (rc)
        return rc;
    /* A context reads one file; making one is a small allocation. */
    spng_ctx *ctx = spng_ctx_new(0);
    if (!ctx) {
        snprintf(msg, msglen, "out of memory");
        return FEED_E_NOMEM;
    }
    rc = feed__png_body(p, ctx, data, len, plan, arg, img, msg, msglen);
    spng_ctx_free(ctx);
    return rc;
}
