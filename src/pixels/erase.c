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

/* The element's own counter: its value does not depend on the order the
 * elements are written in, so HWC and CHW get the same. */
static uint64_t elem_bits(const feed__erase_box *b, uint32_t c, uint32_t y, uint32_t x)
{
    uint64_t idx = ((uint64_t)c * b->h + y) * b->w + x;
    return feed__mix64(b->key + 0x9e3779b97f4a7c15ull * (idx + 1));
}

/* Box-Muller on two 24-bit uniforms of one hash, in float: the pair of
 * normals of columns x and x + 1 (x even) of a box row. 1 - u1 is in (0, 1],
 * so the log is finite and |value| <= sqrt(2 * 24 ln 2) = 5.77. */
static void normal_pair(const feed__erase_box *b, uint32_t c, uint32_t y, uint32_t x, float v[2])
{
    uint64_t h = elem_bits(b, c, y, x);
    float u1 = (float)(h >> 40) * 0x1.0p-24f, u2 = (float)((h >> 16) & 0xffffffu) * 0x1.0p-24f;
    float r = sqrtf(-2.0f * logf(1.0f - u1)), t = 6.2831853f * u2;
    v[0] = r * cosf(t), v[1] = r * sinf(t);
}

float feed__erase_random_value(const feed__erase_box *b, uint32_t c, uint32_t y, uint32_t x)
{
    float v[2];
    normal_pair(b, c, y, x & ~1u, v);
    return v[x & 1];
}

uint8_t feed__erase_random_byte(const feed__erase_box *b, uint32_t c, uint32_t y, uint32_t x)
{
    return (uint8_t)(elem_bits(b, c, y, x) >> 56);
}

/* Element (c, y, x) of the box: its value as bits of dtype. */
static uint32_t value_bits(const feed__xform *xf, const feed__erase_box *b, uint32_t dtype, uint32_t c,
                           uint32_t y, uint32_t x)
{
    if (dtype == FEED_DTYPE_UINT8)
        return xf->erase_random ? feed__erase_random_byte(b, c, y, x) : (uint32_t)xf->erase_value[c];
    float v = xf->erase_random ? feed__erase_random_value(b, c, y, x) : xf->erase_value[c];
    return dtype == FEED_DTYPE_FLOAT32   ? feed__f32_bits(v)
           : dtype == FEED_DTYPE_FLOAT16 ? feed__f32_to_f16(v)
                                         : feed__f32_to_bf16(v);
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
            v[c] = value_bits(xf, b, dtype, c, 0, 0);
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
            float pair[2];
            for (uint32_t x = 0; x < b->w; x++) {
                uint64_t Y = b->y + y, X = b->x + x;
                uint64_t e = layout == FEED_LAYOUT_CHW ? ((uint64_t)c * H + Y) * W + X : (Y * W + X) * 3 + c;
                uint32_t bits;
                if (dtype == FEED_DTYPE_UINT8)
                    bits = feed__erase_random_byte(b, c, y, x);
                else {
                    if (!(x & 1)) /* one draw for two columns, as feed__erase_random_value */
                        normal_pair(b, c, y, x, pair);
                    float v = pair[x & 1];
                    bits = dtype == FEED_DTYPE_FLOAT32   ? feed__f32_bits(v)
                           : dtype == FEED_DTYPE_FLOAT16 ? feed__f32_to_f16(v)
                                                         : feed__f32_to_bf16(v);
                }
                put(o + e * es, es, bits);
            }
        }
}

void feed__erase_sample(const feed__xform *x, uint64_t seed, uint64_t epoch, uint64_t id, uint32_t dtype,
                        uint32_t layout, void *out)
{
    feed__erase_box b;
    if (feed__erase_draw(x, seed, epoch, id, &b))
        feed__erase_apply(x, &b, dtype, layout, out);
}
