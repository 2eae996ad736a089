/*
 * pipeline.c - the per-sample pipeline (pipeline.h): pick the decoder from
 * the bytes (common/format.h), plan the crop from the header (the decoder
 * contract, decode/decoder.h), decode (a JPEG only the crop's region,
 * DCT-scaled when it stays >= the output size; a PNG its rows down to the
 * crop's last; a WebP the crop, by libwebp), resample, orient, flip, rotate,
 * jitter. The steps after the decode are the same for every format.
 *
 * Geometry is planned in the *displayed* image (after EXIF orientation), as
 * torchvision sees it, then mapped back into the stored image, which is what
 * the decoder reads. The resize runs in stored orientation and a final exact
 * permutation (feed__orient_copy) turns the small output upright; a plain
 * horizontal flip is folded into the resize's horizontal pass.
 */
#include "pixels/pipeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/internal.h"
#include "common/pixel.h"
#include "common/rng.h"
#include "decode/decoder.h"
#include "decode/jpeg.h"
#include "decode/jpeg_selftest.h"
#include "decode/png.h"
#include "decode/webp.h"
#include "feed.h"
#include "pixels/colour.h"
#include "pixels/geometry.h"
#include "pixels/policy.h"
#include "pixels/resize.h"
#include "pixels/ycc.h"

int feed__image_planar = 1;
int feed__image_libjpeg_huff = 0;

struct feed__image_ctx {
    feed__jpeg *jpeg;
    uint32_t entropy_for;  /* the jpeg_entropy option entropy was decided for (+1; 0: none yet) */
    uint32_t entropy;      /* FEED__ENTROPY_* (pixels/xform.h) */
    char entropy_why[256]; /* what the self-check found, when it failed */
    feed__png *png;
    feed__webp *webp;
    feed__axis xa, ya;    /* the resize, in the scaled image (RGBX, or the luma plane) */
    feed__axis cxa, cya;  /* the chroma planes' resize */
    feed__resizer rz;
    uint8_t *buf1, *buf2; /* stored-orientation resize output; pre-rotation image */
    uint8_t *buf3;        /* raw pixels as RGBX (feed__image_process_pixels) */
    uint8_t *buf4;        /* resized planes, before their conversion to RGB */
    size_t cap1, cap2, cap3, cap4;
};

feed__image_ctx *feed__image_ctx_create(void)
{
    feed__image_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->jpeg = feed__jpeg_create();
    c->png = feed__png_create();
    c->webp = feed__webp_create();
    if (!c->jpeg || !c->png || !c->webp) {
        feed__image_ctx_destroy(c);
        return NULL;
    }
    return c;
}

void feed__image_ctx_destroy(feed__image_ctx *c)
{
    if (!c)
        return;
    feed__jpeg_destroy(c->jpeg);
    feed__png_destroy(c->png);
    feed__webp_destroy(c->webp);
    feed__axis_free(&c->xa);
    feed__axis_free(&c->ya);
    feed__axis_free(&c->cxa);
    feed__axis_free(&c->cya);
    feed__resizer_free(&c->rz);
    free(c->buf1);
    free(c->buf2);
    free(c->buf3);
    free(c->buf4);
    free(c);
}

/* Everything the plan decides, for the steps after decoding. */
typedef struct feed__plan {
    feed__image_ctx *ctx;
    const feed__xform *x;
    uint64_t seed, epoch, id;
    uint32_t o;              /* orientation applied (1 = none) */
    uint32_t wd, hd;         /* displayed size */
    uint32_t sub_x, sub_y;   /* output sub-rectangle (VAL when the crop overhangs) */
    uint32_t sub_w, sub_h;
    uint32_t rw, rh;         /* resize output, stored orientation */
    uint32_t vx0, vy0;       /* scaled valid region origin */
    uint32_t scale;
    uint32_t dct;            /* the decoder can scale by M/8 (JPEG) */
} feed__plan;

static int feed__plan_region(void *arg, const feed__decode_info *info, feed__decode_region *reg,
                             char *msg, size_t msglen)
{
    feed__plan *p = arg;
    const feed__xform *x = p->x;
    uint32_t ws = info->width, hs = info->height;
    uint64_t px = (uint64_t)ws * hs;
    if (x->max_pixels && px > x->max_pixels) {
        snprintf(msg, msglen, "image %ux%u = %llu pixels is over max_pixels %llu", ws, hs,
                 (unsigned long long)px, (unsigned long long)x->max_pixels);
        return FEED_E_TOO_LARGE;
    }
    p->o = x->exif ? info->orientation : 1;
    p->wd = p->o >= 5 ? hs : ws;
    p->hd = p->o >= 5 ? ws : hs;
    uint32_t wd = p->wd, hd = p->hd, oh = x->out_h, ow = x->out_w;

    /* box (continuous) and valid region (integer) in displayed coordinates;
     * the output sub-rectangle {x, y, w, h} the image fills */
    double bx0 = 0, bx1 = wd, by0 = 0, by1 = hd;
    uint32_t vx0 = 0, vx1 = wd, vy0 = 0, vy1 = hd;
    uint32_t sub[4] = {0, 0, ow, oh};
    if (x->mode == FEED_AUGMENT_VAL) {
        double box[4];
        feed__center_crop_box(wd, hd, x->resize_shorter, ow, oh, box, sub);
        bx0 = box[0];
        bx1 = box[1];
        by0 = box[2];
        by1 = box[3];
    } else if (x->mode == FEED_AUGMENT_TRAIN) {
        feed__rng r;
        feed__rng_init(&r, p->seed, p->epoch, p->id, FEED_RNG_CROP);
        uint32_t i, j, h, w;
        feed__rrc_box(&r, wd, hd, x->scale_min, x->scale_max, x->ratio_min, x->ratio_max, &i,
                      &j, &h, &w);
        bx0 = vx0 = j;
        bx1 = vx1 = j + w;
        by0 = vy0 = i;
        by1 = vy1 = i + h;
    }
    p->sub_x = sub[0];
    p->sub_y = sub[1];
    p->sub_w = sub[2];
    p->sub_h = sub[3];
    p->rw = p->o >= 5 ? p->sub_h : p->sub_w;
    p->rh = p->o >= 5 ? p->sub_w : p->sub_h;

    double b[4], v[4];
    feed__map_rect(p->o, ws, hs, bx0, bx1, by0, by1, b);
    feed__map_rect(p->o, ws, hs, vx0, vx1, vy0, vy1, v);

    /* DCT scale: the smallest fast one (1/8..4/8; 5/8..7/8 fall back to slow
     * C IDCTs in libjpeg-turbo 2.1) whose scaled box still covers the output */
    uint32_t m = 8;
    if (x->roi_decode && p->dct) {
        static const uint32_t fast[4] = {1, 2, 3, 4};
        for (int k = 0; k < 4; k++) {
            if ((b[1] - b[0]) * fast[k] >= 8.0 * p->rw && (b[3] - b[2]) * fast[k] >= 8.0 * p->rh) {
                m = fast[k];
                break;
            }
        }
    }
    uint32_t sw = feed__jpeg_scaled(ws, m), sh = feed__jpeg_scaled(hs, m);
    double f = m / 8.0;
    uint32_t svx0 = (uint32_t)floor(v[0] * f), svx1 = (uint32_t)ceil(v[1] * f);
    uint32_t svy0 = (uint32_t)floor(v[2] * f), svy1 = (uint32_t)ceil(v[3] * f);
    if (svx1 > sw)
        svx1 = sw;
    if (svy1 > sh)
        svy1 = sh;
    double in_w = svx1 - svx0, in_h = svy1 - svy0;
    int rc = feed__axis_build(&p->ctx->xa, svx1 - svx0, fmin(fmax(b[0] * f - svx0, 0), in_w),
                              fmin(b[1] * f - svx0, in_w), p->rw, x->bicubic);
    if (!rc)
        rc = feed__axis_build(&p->ctx->ya, svy1 - svy0, fmin(fmax(b[2] * f - svy0, 0), in_h),
                              fmin(b[3] * f - svy0, in_h), p->rh, x->bicubic);
    if (rc) {
        snprintf(msg, msglen, "%s", rc == FEED_E_NOMEM ? "out of memory" : "bad resize geometry");
        return rc;
    }
    p->scale = m;
    reg->max_memory = x->max_memory;
    reg->planes = x->roi_decode && feed__image_planar; /* a YCbCr or grey JPEG: its planes */
    reg->libjpeg_entropy = feed__image_libjpeg_huff ? (uint32_t)feed__image_libjpeg_huff
                                                    : !feed__entropy_is_libfeed(p->ctx->entropy);
    p->vx0 = svx0;
    p->vy0 = svy0;
    reg->scale = m;
    if (x->roi_decode) {
        reg->x0 = svx0 + p->ctx->xa.lo;
        reg->x1 = svx0 + p->ctx->xa.hi;
        reg->y0 = svy0 + p->ctx->ya.lo;
        reg->y1 = svy0 + p->ctx->ya.hi;
    } else {
        reg->x0 = reg->y0 = 0;
        reg->x1 = sw;
        reg->y1 = sh;
    }
    return 0;
}

/* The decoder the bytes ask for, whatever the file is called. Data no
 * supported magic matches goes to the JPEG decoder, whose error says what
 * it is ("Not a JPEG file: starts with ..."). */
static int feed__image_decode(feed__image_ctx *ctx, const uint8_t *data, size_t len,
                              feed__plan *p, feed__decode_image *img, char *msg, size_t msglen)
{
    const char *fmt = data ? feed__image_format(data, len) : NULL;
    if (fmt && !strcmp(fmt, "PNG"))
        return feed__png_decode(ctx->png, data, len, feed__plan_region, p, img, msg, msglen);
    if (fmt && !strcmp(fmt, "WebP"))
        return feed__webp_decode(ctx->webp, data, len, feed__plan_region, p, img, msg, msglen);
    if (fmt && strcmp(fmt, "JPEG")) {
        if (msg && msglen)
            snprintf(msg, msglen, "%s data: not a supported image format (JPEG, PNG, WebP); "
                     "convert it, or leave it out of the dataset", fmt);
        return FEED_E_DECODE;
    }
    p->dct = 1;
    if (feed__image_entropy(ctx, p->x->jpeg_entropy, msg, msglen) < 0)
        return FEED_E_UNSUPPORTED;
    return feed__jpeg_decode(ctx->jpeg, data, len, feed__plan_region, p, img, msg, msglen);
}

int feed__image_entropy(feed__image_ctx *ctx, uint32_t want, char *msg, size_t msglen)
{
    if (ctx->entropy_for != want + 1) {
        int built = feed__jpeg_entropy_built();
        ctx->entropy_why[0] = '\0';
        if (want == FEED_JPEG_ENTROPY_LIBJPEG)
            ctx->entropy = FEED__ENTROPY_OPTION_LIBJPEG;
        else if (want == FEED_JPEG_ENTROPY_LIBFEED)
            ctx->entropy = built ? FEED__ENTROPY_OPTION_LIBFEED : FEED__ENTROPY_UNKNOWN;
        else if (!built)
            ctx->entropy = FEED__ENTROPY_COMPILED_OUT;
        else if (feed__jpeg_selftest(ctx->jpeg, ctx->entropy_why, sizeof ctx->entropy_why))
            ctx->entropy = FEED__ENTROPY_CHECK_FAILED;
        else
            ctx->entropy = FEED__ENTROPY_CHECK_PASSED;
        ctx->entropy_for = want + 1;
    }
    if (ctx->entropy == FEED__ENTROPY_UNKNOWN) {
        if (msg && msglen)
            snprintf(msg, msglen, "%s", FEED__ENTROPY_COMPILED_OUT_MSG);
        return -1;
    }
    if (msg && msglen)
        snprintf(msg, msglen, "%s", ctx->entropy_why);
    return (int)ctx->entropy;
}

static int finish(feed__plan *pp, const uint8_t *src, size_t stride, const feed__decode_image *pl,
                  uint8_t *out, feed__image_info *info, uint64_t t1, char *msg, size_t msglen);

/* The start of both entry points: clears *info and msg, then refuses bad
 * arguments (args_ok 0) and a transform the workers cannot apply. Returns 0
 * or FEED_E_INVALID. */
static int enter(int args_ok, const feed__xform *x, feed__image_info *info, char *msg, size_t msglen)
{
    memset(info, 0, sizeof *info);
    if (msg && msglen)
        msg[0] = '\0';
    if (!args_ok) {
        if (msg && msglen)
            snprintf(msg, msglen, "invalid arguments");
        return FEED_E_INVALID;
    }
    if (feed__xform_check(x, msg, msglen) != 0)
        return FEED_E_INVALID;
    return 0;
}

int feed__image_process(feed__image_ctx *ctx, const feed__xform *x, const uint8_t *data,
                        size_t len, uint64_t seed, uint64_t epoch, uint64_t sample_id,
                        uint8_t *out, feed__image_info *info, char *msg, size_t msglen)
{
    feed__image_info dummy;
    if (!info)
        info = &dummy;
    int rc = enter(ctx && out, x, info, msg, msglen);
    if (rc)
        return rc;
    feed__plan p = {.ctx = ctx, .x = x, .seed = seed, .epoch = epoch, .id = sample_id};
    feed__decode_image img;
    memset(&img, 0, sizeof img); /* nplanes 0 unless the JPEG decoder sets planes */
    uint64_t t0 = feed__now_ns();
    rc = feed__image_decode(ctx, data, len, &p, &img, msg, msglen);
    uint64_t t1 = feed__now_ns();
    info->decode_ns = t1 - t0;
    if (rc)
        return rc;
    info->src_w = p.wd;
    info->src_h = p.hd;
    if (img.nplanes)
        return finish(&p, NULL, 0, &img, out, info, t1, msg, msglen);
    const uint8_t *src = img.pixels;
    if (!x->roi_decode) /* full decode: find the used region in the whole image */
        src += (size_t)(p.vy0 + ctx->ya.lo) * img.stride + (size_t)(p.vx0 + ctx->xa.lo) * 4;
    return finish(&p, src, img.stride, NULL, out, info, t1, msg, msglen);
}

/* One chroma axis: the luma axis a (valid region [v0, v0 + a->in) of the
 * scaled image, box [v0 + a->b0, v0 + a->b1)) on a plane's grid, num / den
 * of the scaled image's, whose samples [have0, have1) were decoded. The valid
 * region becomes the samples it touches, within those. Sets *v0c (the plane
 * sample that is the axis's 0). */
static int chroma_axis(feed__axis *c, const feed__axis *a, uint32_t v0, uint32_t num, uint32_t den,
                       uint32_t have0, uint32_t have1, uint32_t *v0c)
{
    double f = (double)num / den;
    uint32_t c0 = (uint32_t)((uint64_t)v0 * num / den);
    uint32_t c1 = (uint32_t)(((uint64_t)(v0 + a->in) * num + den - 1) / den);
    if (c0 < have0)
        c0 = have0;
    if (c1 > have1)
        c1 = have1;
    if (c1 <= c0)
        return FEED_E_INTERNAL;
    double in = c1 - c0;
    double b0 = fmin(fmax((v0 + a->b0) * f - c0, 0), in), b1 = fmin((v0 + a->b1) * f - c0, in);
    if (!(b1 > b0))
        return FEED_E_INTERNAL;
    *v0c = c0;
    return feed__axis_build(c, c1 - c0, b0, b1, a->out, a->filter);
}

/* The resize of a planar decode: each plane on its own grid, then the
 * resized planes to RGB at dst (xa.out x ya.out). */
static int resize_planes(feed__image_ctx *ctx, const feed__plan *p, const feed__decode_image *img,
                         uint8_t *dst, size_t dst_stride, int flip)
{
    uint32_t rw = ctx->xa.out, rh = ctx->ya.out;
    size_t psz = (size_t)rw * rh;
    if (feed__grow((void **)&ctx->buf4, &ctx->cap4, psz * img->nplanes))
        return FEED_E_NOMEM;
    for (uint32_t c = 0; c < img->nplanes; c++) {
        const feed__decode_plane *pl = &img->plane[c];
        feed__axis *xa = &ctx->xa, *ya = &ctx->ya;
        uint32_t x0 = p->vx0, y0 = p->vy0;
        if (c > 0) {
            int rc = chroma_axis(&ctx->cxa, &ctx->xa, p->vx0, pl->num_x, pl->den_x, pl->x0,
                                 pl->x0 + pl->w, &x0);
            if (!rc)
                rc = chroma_axis(&ctx->cya, &ctx->ya, p->vy0, pl->num_y, pl->den_y, pl->y0,
                                 pl->y0 + pl->h, &y0);
            if (rc)
                return rc;
            xa = &ctx->cxa;
            ya = &ctx->cya;
        } else if (pl->num_x != pl->den_x || pl->num_y != pl->den_y) {
            return FEED_E_INTERNAL;
        }
        /* the decoded samples must hold what the resize reads */
        if (x0 + xa->lo < pl->x0 || x0 + xa->hi > pl->x0 + pl->w || y0 + ya->lo < pl->y0 ||
            y0 + ya->hi > pl->y0 + pl->h)
            return FEED_E_INTERNAL;
        const uint8_t *src = pl->pixels + (size_t)(y0 + ya->lo - pl->y0) * pl->stride +
                             (x0 + xa->lo - pl->x0);
        if (feed__resize_plane(&ctx->rz, xa, ya, src, pl->stride, ctx->buf4 + psz * c, rw, flip))
            return FEED_E_NOMEM;
    }
    if (img->nplanes == 3)
        feed__ycc_to_rgb(ctx->buf4, ctx->buf4 + psz, ctx->buf4 + 2 * psz, rw, rw, rh, dst, dst_stride);
    else
        feed__grey_to_rgb(ctx->buf4, rw, rw, rh, dst, dst_stride);
    return 0;
}

/* The resize step of finish(): RGBX pixels (src), or a planar decode (pl). */
static int resize_to(feed__image_ctx *ctx, const feed__plan *p, const uint8_t *src, size_t stride,
                     const feed__decode_image *pl, uint8_t *dst, size_t dst_stride, int flip)
{
    if (pl)
        return resize_planes(ctx, p, pl, dst, dst_stride, flip);
    return feed__resize_axes(&ctx->rz, &ctx->xa, &ctx->ya, src, stride, dst, dst_stride, flip);
}

/* The steps after decoding: resize the planned region (src: pixel (xa.lo,
 * ya.lo) of the valid region, RGBX; or the planes of pl), orient, flip,
 * rotate, jitter. */
static int finish(feed__plan *pp, const uint8_t *src, size_t stride, const feed__decode_image *pl,
                  uint8_t *out, feed__image_info *info, uint64_t t1, char *msg, size_t msglen)
{
    int rc;
    const feed__plan p = *pp;
    feed__image_ctx *ctx = p.ctx;
    const feed__xform *x = p.x;
    const uint64_t seed = p.seed, epoch = p.epoch, sample_id = p.id;
    const int train = x->mode == FEED_AUGMENT_TRAIN;
    int flip = 0;
    double angle = 0;
    if (train && x->flip_p > 0) {
        feed__rng r;
        feed__rng_init(&r, seed, epoch, sample_id, FEED_RNG_FLIP);
        flip = feed__rng_uniform(&r) < x->flip_p;
    }
    if (train && x->rotate_deg > 0) {
        feed__rng r;
        feed__rng_init(&r, seed, epoch, sample_id, FEED_RNG_ROTATE);
        angle = feed__rng_range(&r, -x->rotate_deg, x->rotate_deg);
    }
    info->flipped = (uint32_t)flip;

    size_t ostride = (size_t)x->out_w * 3;
    size_t osize = ostride * x->out_h;
    /* where the upright, flipped image goes: out, or buf2 when rotating */
    uint8_t *up = out;
    if (angle != 0) {
        if (feed__grow((void **)&ctx->buf2, &ctx->cap2, osize))
            goto nomem;
        up = ctx->buf2;
    }
    if (p.sub_w != x->out_w || p.sub_h != x->out_h)
        memset(up, 0, osize);
    uint8_t *sub = up + (size_t)p.sub_y * ostride + (size_t)p.sub_x * 3;

    if (p.o == 1) {
        if ((rc = resize_to(ctx, &p, src, stride, pl, sub, ostride, flip)) != 0)
            goto fail;
    } else {
        size_t rstride = (size_t)p.rw * 3;
        if (feed__grow((void **)&ctx->buf1, &ctx->cap1, rstride * p.rh))
            goto nomem;
        if ((rc = resize_to(ctx, &p, src, stride, pl, ctx->buf1, rstride, 0)) != 0)
            goto fail;
        feed__orient_copy(ctx->buf1, rstride, p.rw, p.rh, p.o, flip, sub, ostride);
    }
    if (angle != 0)
        feed__rotate(up, out, x->out_w, x->out_h, angle, x->fill);

    size_t npx = (size_t)x->out_w * x->out_h;
    if (train && (x->brightness > 0 || x->contrast > 0 || x->saturation > 0 || x->hue > 0)) {
        feed__rng r;
        feed__rng_init(&r, seed, epoch, sample_id, FEED_RNG_JITTER);
        feed__colour_jitter(out, npx, &r, x->brightness, x->contrast, x->saturation, x->hue);
    }
    if (train && x->grayscale_p > 0) {
        feed__rng r;
        feed__rng_init(&r, seed, epoch, sample_id, FEED_RNG_GRAY);
        if (feed__rng_uniform(&r) < x->grayscale_p)
            feed__to_grayscale(out, npx);
    }
    if (train && x->policy != FEED_POLICY_NONE) {
        /* buf2 held the pre-rotation image, done with by now: the policy's scratch */
        if (feed__grow((void **)&ctx->buf2, &ctx->cap2, osize))
            goto nomem;
        feed__policy_apply(x, out, x->out_w, x->out_h, seed, epoch, sample_id, ctx->buf2);
    }
    info->augment_ns = feed__now_ns() - t1;
    return 0;
nomem:
    rc = FEED_E_NOMEM;
fail:
    if (msg && msglen)
        snprintf(msg, msglen, "%s", rc == FEED_E_NOMEM ? "out of memory for image buffers"
                                    : "internal: the decoded planes do not cover the resize");
    info->augment_ns = feed__now_ns() - t1;
    return rc;
}

/* Pixel (i) of a C-channel row as RGB. */
static inline void rgb_of(const uint8_t *q, uint32_t c, uint8_t *d)
{
    if (c == 1)
        d[0] = d[1] = d[2] = q[0];
    else
        d[0] = q[0], d[1] = q[1], d[2] = q[2];
}

int feed__image_process_pixels(feed__image_ctx *ctx, const feed__xform *x, const uint8_t *px, uint32_t w,
                               uint32_t h, uint32_t c, uint64_t seed, uint64_t epoch, uint64_t sample_id,
                               uint8_t *out, feed__image_info *info, char *msg, size_t msglen)
{
    feed__image_info dummy;
    if (!info)
        info = &dummy;
    int rc = enter(ctx && out && px && w && h && (c == 1 || c == 3 || c == 4), x, info, msg, msglen);
    if (rc)
        return rc;
    uint64_t t1 = feed__now_ns();
    if ((uint64_t)w * h > x->max_pixels) {
        snprintf(msg, msglen, "image %ux%u = %llu pixels is over max_pixels %llu", w, h,
                 (unsigned long long)w * h, (unsigned long long)x->max_pixels);
        return FEED_E_TOO_LARGE;
    }
    info->src_w = w;
    info->src_h = h;
    if (x->mode == FEED_AUGMENT_NONE && w == x->out_w && h == x->out_h) {
        /* the whole image at its own size: the resize would be the identity */
        size_t n = (size_t)w * h;
        if (c == 3)
            memcpy(out, px, n * 3);
        else
            for (size_t i = 0; i < n; i++)
                rgb_of(px + i * c, c, out + i * 3);
        info->augment_ns = feed__now_ns() - t1;
        return 0;
    }
    /* Plan as for a decoded image: no EXIF, no DCT scaling, the whole image. */
    feed__xform xc = *x;
    xc.exif = 0;
    xc.roi_decode = 0;
    feed__plan p = {.ctx = ctx, .x = &xc, .seed = seed, .epoch = epoch, .id = sample_id};
    feed__decode_info ji = {.width = w, .height = h, .components = c, .orientation = 1};
    feed__decode_region reg;
    rc = feed__plan_region(&p, &ji, &reg, msg, msglen);
    if (rc)
        return rc;
    /* Only the region the resize reads, as RGBX. */
    uint32_t x0 = p.vx0 + ctx->xa.lo, x1 = p.vx0 + ctx->xa.hi;
    uint32_t y0 = p.vy0 + ctx->ya.lo, y1 = p.vy0 + ctx->ya.hi;
    size_t stride = (size_t)(x1 - x0) * 4;
    if (feed__grow((void **)&ctx->buf3, &ctx->cap3, stride * (y1 - y0))) {
        snprintf(msg, msglen, "out of memory for image buffers");
        return FEED_E_NOMEM;
    }
    for (uint32_t y = y0; y < y1; y++) {
        const uint8_t *q = px + ((size_t)y * w + x0) * c;
        uint8_t *d = ctx->buf3 + (size_t)(y - y0) * stride;
        for (uint32_t i = 0; i < x1 - x0; i++, q += c, d += 4) {
            rgb_of(q, c, d);
            d[3] = 255;
        }
    }
    return finish(&p, ctx->buf3, stride, NULL, out, info, t1, msg, msglen);
}
