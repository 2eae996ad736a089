/*
 * encode.c - a picture as the bytes of its file: JPEG (TurboJPEG, 4:2:0 or
 * greyscale, baseline or progressive, the picture's quality), PNG (libspng,
 * RGB 8-bit, zlib's default level) or lossy WebP (libwebp, the JPEG's quality).
 */
#include <stdlib.h>

#include <spng.h>
#include <webp/encode.h>

#include "mkdata.h"

/* RGB 8-bit PNG of rgb (libspng, its default compression); malloc'ed, or NULL. */
static void *encode_png(const uint8_t *rgb, int w, int h, size_t *len)
{
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    if (!ctx)
        return NULL;
    struct spng_ihdr ihdr = {.width = (uint32_t)w, .height = (uint32_t)h, .bit_depth = 8,
                             .color_type = SPNG_COLOR_TYPE_TRUECOLOR};
    int e = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    if (!e)
        e = spng_set_ihdr(ctx, &ihdr);
    if (!e)
        e = spng_encode_image(ctx, rgb, (size_t)w * h * 3, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    void *out = e ? NULL : spng_get_png_buffer(ctx, len, &e);
    spng_ctx_free(ctx);
    return e ? NULL : out;
}

int mk_encoder_init(mk_encoder *e)
{
    e->tj = tjInitCompress();
    e->tjp = tjInitCompress();
    e->jpeg = NULL;
    e->jpeg_cap = 0;
    if (e->tj && e->tjp) {
        e->jpeg_cap = tjBufSize(MAX_SIDE, MAX_SIDE, TJSAMP_444);
        e->jpeg = tjAlloc((int)e->jpeg_cap);
    }
    return e->jpeg ? 0 : -1;
}

void mk_encoder_free(mk_encoder *e)
{
    if (e->tj)
        tjDestroy(e->tj);
    if (e->tjp)
        tjDestroy(e->tjp);
    tjFree(e->jpeg);
}

int mk_encode(mk_encoder *e, const image *im, const spec *sp, int fmt, uint64_t i, mk_encoded *out)
{
    out->fmt = fmt;
    out->size = e->jpeg_cap;
    out->bytes = e->jpeg;
    out->other = NULL;
    if (fmt == IMG_PNG) {
        size_t n;
        if (!(out->other = encode_png(im->rgb, sp->w, sp->h, &n))) {
            fprintf(stderr, PROG ": PNG-encoding image %llu failed\n", (unsigned long long)i);
            return -1;
        }
        out->bytes = out->other;
        out->size = (unsigned long)n;
    } else if (fmt == IMG_WEBP) {
        uint8_t *wp = NULL;
        size_t n = WebPEncodeRGB(im->rgb, sp->w, sp->h, sp->w * 3, (float)sp->quality, &wp);
        if (!n) {
            fprintf(stderr, PROG ": WebP-encoding image %llu failed\n", (unsigned long long)i);
            return -1;
        }
        out->bytes = out->other = wp;
        out->size = (unsigned long)n;
    } else {
        int flags = TJFLAG_NOREALLOC | (sp->progressive ? TJFLAG_PROGRESSIVE : 0);
        tjhandle h = sp->progressive ? e->tjp : e->tj;
        unsigned long size = e->jpeg_cap;
        if (tjCompress2(h, im->rgb, sp->w, 0, sp->h, TJPF_RGB, &e->jpeg, &size,
                        sp->grey ? TJSAMP_GRAY : TJSAMP_420, sp->quality, flags) < 0) {
            fprintf(stderr, PROG ": compressing image %llu: %s\n", (unsigned long long)i,
                    tjGetErrorStr2(h));
            return -1;
        }
        out->size = size;
    }
    return 0;
}

void mk_encoded_free(mk_encoded *enc)
{
    if (enc->fmt == IMG_WEBP)
        WebPFree(enc->other);
    else
        free(enc->other);
    enc->other = NULL;
}
