/*
 * erase.c - RandomErasing on a converted sample (erase.h).
 *
 * The box follows torchvision.transforms.v2.RandomErasing.make_params: the
 * area a uniform share of the image in [scale_min, scale_max), the aspect
 * ratio h/w exp of a uniform draw in [log ratio_min, log ratio_max), h and w
 * rounded half to even as Python's round(), up to 10 tries for one smaller
 * than the image in both sides, then the top-left corner uniform over the
 * places it fits.
 */
#include <math.h>
#include <string.h>

#include "common/rng.h"
#include "pixels/convert.h"
#include "pixels/erase.h"
#include "pixels/post.h"

int feed__erase_draw(const feed__xform *x, uint64_t seed, uint64_t epoch, uint64_t id, feed__erase_box *b)
{
    if (!(x->erase_p > 0))
        return 0;
    feed__rng r;
    feed__rng_init(&r, seed, epoch, id, FEED_RNG_ERASE);
    if (feed__rng_uniform(&r) >= x->erase_p)
        return 0;
    uint32_t H = x->out_h, W = x->out_w;
    double area = (double)H * W;
    double lr0 = log(x->erase_ratio_min), lr1 = log(x->erase_ratio_max);
    for (int t = 0; t < 10; t++) {
        double ea = area * feed__rng_range(&r, x->erase_scale_min, x->erase_scale_max);
        double ar = exp(feed__rng_range(&r, lr0, lr1));
        double hh = nearbyint(sqrt(ea * ar)), ww = nearbyint(sqrt(ea / ar));
        if (!(hh < H && ww < W))
            continue;
        b->h = (uint32_t)hh, b->w = (uint32_t)ww;
        b->y = (uint32_t)feed__rng_below(&r, H - b->h + 1);
        b->x = (uint32_t)feed__rng_below(&r, W - b->w + 1);
        b->key = feed__mix64(r.key ^ feed__rng_u64(&r));
        return 1;
    }
    return 0;
}

float feed__erase_random_value(const feed__erase_box *b, uint32_t c, uint32_t y, uint32_t x)
{
    return feed__erase_normal(feed__erase_hash(b->key, b->h, b->w, c, y, x));
}

uint8_t feed__erase_random_byte(const feed__erase_box *b, uint32_t c, uint32_t y, uint32_t x)
{
    return (uint8_t)feed__erase_random_bits(FEED_DTYPE_UINT8, b->key, b->h, b->w, c, y, x);
}

uint32_t feed__erase_value_bits(const feed__xform *xf, uint32_t dtype, uint32_t c)
{
    if (dtype == FEED_DTYPE_UINT8)
        return (uint32_t)xf->erase_value[c];
    return feed__post_float_bits(dtype, xf->erase_value[c]);
}

static void put(uint8_t *p, uint32_t es, uint32_t v)
{
    if (es == 1)
        *p = (uint8_t)v;
    else if (es == 2) {
        uint16_t h = (uint16_t)v;
        memcpy(p, &h, 2);
    } else
        memcpy(p, &v, 4);
}

/* Row y of channel c of the box, erase_random's values: the element hashes
 * of feed__erase_hash walked by their counter (the same values, one add a
 * step), one loop per dtype. */
static void random_row(uint8_t *row, size_t step, uint32_t dtype, const feed__erase_box *b, uint32_t c,
                       uint32_t y)
{
    const uint64_t G = 0x9e3779b97f4a7c15ull;
    uint64_t k = b->key + G * ((((uint64_t)c * b->h + y) * b->w) + 1);
    switch (dtype) {
    case FEED_DTYPE_UINT8:
        for (uint32_t x = 0; x < b->w; x++, k += G)
            row[x * step] = (uint8_t)(feed__mix64(k) >> 56);
        break;
    case FEED_DTYPE_FLOAT32:
        for (uint32_t x = 0; x < b->w; x++, k += G) {
            float v = feed__erase_normal(feed__mix64(k));
            memcpy(row + x * step, &v, 4);
        }
        break;
    default:
        for (uint32_t x = 0; x < b->w; x++, k += G) {
            uint16_t h = (uint16_t)feed__post_float_bits(dtype, feed__erase_normal(feed__mix64(k)));
            memcpy(row + x * step, &h, 2);
        }
    }
}

void feed__erase_apply(const feed__xform *xf, const feed__erase_box *b, uint32_t dtype, uint32_t layout,
                       void *out)
{
    uint32_t W = xf->out_w, H = xf->out_h;
    uint32_t es = (uint32_t)feed__dtype_size(dtype);
    uint8_t *o = out;
    if (!b->h || !b->w)
        return;
    if (!xf->erase_random) {
        /* one row of the box's values, copied to each of its rows */
        uint8_t row[3 * FEED_MAX_SIDE * 4];
        uint32_t v[3];
        for (uint32_t c = 0; c < 3; c++)
            v[c] = feed__erase_value_bits(xf, dtype, c);
        if (layout == FEED_LAYOUT_HWC) {
            for (uint32_t x = 0; x < b->w; x++)
                for (uint32_t c = 0; c < 3; c++)
                    put(row + ((size_t)x * 3 + c) * es, es, v[c]);
            for (uint32_t y = 0; y < b->h; y++)
                memcpy(o + (((size_t)(b->y + y) * W + b->x) * 3) * es, row, (size_t)b->w * 3 * es);
            return;
        }
        for (uint32_t c = 0; c < 3; c++) {
            for (uint32_t x = 0; x < b->w; x++)
                put(row + (size_t)x * es, es, v[c]);
            for (uint32_t y = 0; y < b->h; y++)
                memcpy(o + (((size_t)c * H + b->y + y) * W + b->x) * es, row, (size_t)b->w * es);
        }
        return;
    }
    for (uint32_t c = 0; c < 3; c++)
        for (uint32_t y = 0; y < b->h; y++) {
            uint64_t Y = b->y + y;
            uint8_t *row = o + (layout == FEED_LAYOUT_CHW ? ((uint64_t)c * H + Y) * W + b->x : (Y * W + b->x) * 3 + c) * es;
            size_t step = (layout == FEED_LAYOUT_CHW ? 1 : 3) * es;
            random_row(row, step, dtype, b, c, y);
        }
}

void feed__erase_sample(const feed__xform *x, uint64_t seed, uint64_t epoch, uint64_t id, uint32_t dtype,
                        uint32_t layout, void *out)
{
    feed__erase_box b;
    if (feed__erase_draw(x, seed, epoch, id, &b))
        feed__erase_apply(x, &b, dtype, layout, out);
}
