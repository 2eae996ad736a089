/*
 * post.h - what happens to a converted sample after the conversion, element
 * by element: RandomErasing's values and MixUp/CutMix's blend with the
 * sample's partner (count-1-i of its batch).
 *
 * On the host backend the workers erase (pixels/erase.c) and the parent
 * mixes the host slot in place (loader/mix.c); with a CUDA device both run
 * in the conversion kernel (device/cuda/convert.cu), which reads the uint8
 * pixels of a sample and of its partner and writes the finished element.
 * The functions below (FEED_HD: host and device) are the arithmetic both
 * sides use, so the GPU's batch is bitwise the host's for every dtype and
 * layout:
 *  - an erased element's value comes from integer hashing and one float
 *    multiply (feed__erase_normal), never from libm, whose logf/sinf differ
 *    between glibc and CUDA in the last bit;
 *  - MixUp is own * fa + partner * fb as two products and one sum, never
 *    contracted into a fused multiply-add (the host files are compiled with
 *    -ffp-contract=off; the device uses __fmul_rn/__fadd_rn).
 */
#ifndef FEED_PIXELS_POST_H
#define FEED_PIXELS_POST_H

#include <stdint.h>

#include "common/rng.h"
#include "pixels/convert.h"

/* What a sample's MixUp/CutMix draw is (feed__mix_draw.kind, post.kind). */
enum { FEED__MIX_NONE = 0, FEED__MIX_MIXUP = 1, FEED__MIX_CUTMIX = 2 };

/* Per sample of a batch, as the loader draws it for the device's kernel. */
typedef struct feed__post_sample {
    uint32_t ey, ex, eh, ew; /* RandomErasing's box (rows ey.., columns ex..); eh == 0: none */
    uint64_t ekey;           /* erase_random's key (feed__erase_box.key) */
    uint32_t kind;           /* FEED__MIX_*: with partner count-1-i */
    uint32_t x1, y1, x2, y2; /* CutMix: the partner's pixels in [x1, x2) x [y1, y2) */
    float fa, fb;            /* MixUp: own * fa + partner * fb */
} feed__post_sample;

/* The same for every sample of a loader. */
typedef struct feed__post_cfg {
    uint32_t erase_random;  /* 1: each erased element its own draw; 0: erase_bits */
    uint32_t erase_bits[3]; /* erase_value per channel as bits of the dtype */
} feed__post_cfg;

/* 1 (nothing else) when 0 <= v - lo < n, for unsigned v and lo. */
static inline FEED_HD int feed__post_in(uint32_t v, uint32_t lo, uint32_t n)
{
    return v - lo < n;
}

/* The hash of element (c, y, x) of an erase box of h x w (box
 * coordinates): keyed by the element's place, not the order elements are
 * written in, so HWC and CHW, host and device, get the same. */
static inline FEED_HD uint64_t feed__erase_hash(uint64_t key, uint32_t h, uint32_t w, uint32_t c, uint32_t y,
                                                uint32_t x)
{
    uint64_t idx = ((uint64_t)c * h + y) * w + x;
    return feed__mix64(key + 0x9e3779b97f4a7c15ull * (idx + 1));
}

/* Bits -> float (a bit cast). */
static inline FEED_HD float feed__post_f32(uint32_t u)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

/* A normal(0, 1) value from one 64-bit hash: the sum of its four 16-bit
 * quarters (Irwin-Hall of 4 uniforms) centred and scaled to unit variance,
 * sd^2 = 4 (2^32 - 1) / 12. Within 2 sqrt(3) = 3.46 of 0, excess kurtosis
 * -0.3; integer arithmetic and one float multiply, so it is the same bits
 * on every machine and costs a few cycles (Box-Muller needs log and sine). */
static inline FEED_HD float feed__erase_normal(uint64_t h)
{
    int32_t s = (int32_t)((h & 0xffffu) + ((h >> 16) & 0xffffu) + ((h >> 32) & 0xffffu) + (h >> 48)) - 131070;
    return (float)s * 0x1.bb67aep-16f; /* 1 / sqrt((2^32 - 1) / 3), about sqrt(3) / 2^16 */
}

/* float -> bits of dtype (uint8: not used; erased bytes are a uniform draw). */
static inline FEED_HD uint32_t feed__post_float_bits(uint32_t dtype, float v)
{
    return dtype == FEED_DTYPE_FLOAT32   ? feed__f32_bits(v)
           : dtype == FEED_DTYPE_FLOAT16 ? (uint32_t)feed__f32_to_f16(v)
                                         : (uint32_t)feed__f32_to_bf16(v);
}

/* An erased element's value (box coordinates) as bits of dtype. */
static inline FEED_HD uint32_t feed__erase_random_bits(uint32_t dtype, uint64_t key, uint32_t h, uint32_t w,
                                                       uint32_t c, uint32_t y, uint32_t x)
{
    uint64_t r = feed__erase_hash(key, h, w, c, y, x);
    if (dtype == FEED_DTYPE_UINT8)
        return (uint32_t)(r >> 56);
    return feed__post_float_bits(dtype, feed__erase_normal(r));
}

/* IEEE half bits -> float, exact: the bits moved into place and the
 * exponent rebased; a subnormal half (exponent 0) by a float subtraction,
 * which is exact there. */
static inline FEED_HD float feed__f16_to_f32(uint16_t h)
{
    uint32_t o = (uint32_t)(h & 0x7fffu) << 13, e = o & 0x0f800000u;
    o += (127u - 15u) << 23;
    if (e == 0x0f800000u) /* inf, NaN */
        o += (128u - 16u) << 23;
    else if (e == 0) /* zero, subnormal: (1.m - 1) * 2^-14 */
        o = feed__f32_bits(feed__post_f32(o + (1u << 23)) - 0x1p-14f);
    return feed__post_f32(o | (uint32_t)(h & 0x8000u) << 16);
}

static inline FEED_HD float feed__bf16_to_f32(uint16_t h)
{
    return feed__post_f32((uint32_t)h << 16);
}

/* Bits of dtype -> float (exact for every dtype). */
static inline FEED_HD float feed__post_load(uint32_t dtype, uint32_t bits)
{
    switch (dtype) {
    case FEED_DTYPE_UINT8:
        return (float)bits;
    case FEED_DTYPE_FLOAT32:
        return feed__post_f32(bits);
    case FEED_DTYPE_FLOAT16:
        return feed__f16_to_f32((uint16_t)bits);
    default:
        return feed__bf16_to_f32((uint16_t)bits);
    }
}

/* MixUp's value: own * fa + partner * fb in float32, not fused. */
static inline FEED_HD float feed__mix_value(float own, float partner, float fa, float fb)
{
#if defined(__CUDA_ARCH__)
    return __fadd_rn(__fmul_rn(own, fa), __fmul_rn(partner, fb));
#else
    return own * fa + partner * fb;
#endif
}

/* A mixed float back to bits of dtype, rounded once: uint8 to nearest
 * (halves up; v is in [0, 255 (fa + fb)], below 256), float16 and bfloat16
 * to nearest even. */
static inline FEED_HD uint32_t feed__post_store(uint32_t dtype, float v)
{
    if (dtype == FEED_DTYPE_UINT8)
        return v <= 0 ? 0u : v >= 255 ? 255u : (uint32_t)(v + 0.5f);
    return feed__post_float_bits(dtype, v);
}

/* A uint8 channel value converted to bits of dtype (feed__convert_sample's
 * element). */
static inline FEED_HD uint32_t feed__post_convert(uint32_t dtype, uint32_t x, float scale, float bias)
{
    return dtype == FEED_DTYPE_UINT8 ? x : feed__post_float_bits(dtype, feed__px_norm(x, scale, bias));
}

/* Element (c, y, x) of one sample after RandomErasing: conv (the converted
 * element) unless (y, x) is in the sample's box. */
static inline FEED_HD uint32_t feed__post_erased(uint32_t dtype, const feed__post_cfg *pc,
                                                 const feed__post_sample *p, uint32_t c, uint32_t y, uint32_t x,
                                                 uint32_t conv)
{
    if (!p->eh || !feed__post_in(y, p->ey, p->eh) || !feed__post_in(x, p->ex, p->ew))
        return conv;
    if (!pc->erase_random)
        return pc->erase_bits[c];
    return feed__erase_random_bits(dtype, p->ekey, p->eh, p->ew, c, y - p->ey, x - p->ex);
}

/* Element (y, x) of a sample after MixUp/CutMix with its partner: own and
 * partner are the two samples' (erased) elements at the same place. */
static inline FEED_HD uint32_t feed__post_mixed(uint32_t dtype, const feed__post_sample *p, uint32_t y, uint32_t x,
                                                uint32_t own, uint32_t partner)
{
    if (p->kind == FEED__MIX_MIXUP)
        return feed__post_store(dtype, feed__mix_value(feed__post_load(dtype, own), feed__post_load(dtype, partner),
                                                       p->fa, p->fb));
    if (p->kind == FEED__MIX_CUTMIX && y >= p->y1 && y < p->y2 && x >= p->x1 && x < p->x2)
        return partner;
    return own;
}

/* Channel c of output pixel (y, x) of a sample whose parameters are ps and
 * whose partner's are pj, as the conversion with post writes it: a and b
 * are the uint8 values of that channel in the sample and in its partner at
 * the pixel's source place; each is converted, then erased by its own
 * sample's box, then the two are mixed by ps. What the CUDA kernel computes
 * for every element, and what the host backend's workers (convert, erase)
 * and parent (mix) give in their own order. */
static inline FEED_HD uint32_t feed__post_element(uint32_t dtype, const feed__post_cfg *pc,
                                                  const feed__post_sample *ps, const feed__post_sample *pj,
                                                  uint32_t c, uint32_t y, uint32_t x, uint32_t a, uint32_t b,
                                                  float scale, float bias)
{
    uint32_t own = feed__post_erased(dtype, pc, ps, c, y, x, feed__post_convert(dtype, a, scale, bias));
    if (ps->kind == FEED__MIX_NONE ||
        (ps->kind == FEED__MIX_CUTMIX && !(y >= ps->y1 && y < ps->y2 && x >= ps->x1 && x < ps->x2)))
        return own;
    uint32_t partner = feed__post_erased(dtype, pc, pj, c, y, x, feed__post_convert(dtype, b, scale, bias));
    return feed__post_mixed(dtype, ps, y, x, own, partner);
}

#endif /* FEED_PIXELS_POST_H */
