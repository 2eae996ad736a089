/*
 * mix.c - MixUp, CutMix and soft labels of a batch (mix.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "feed.h"
#include "loader/mix.h"
#include "pixels/convert.h"
#include "pixels/post.h"

int feed__mix_images(const feed__mix_cfg *c)
{
    return c->mixup_alpha > 0 || c->cutmix_alpha > 0;
}

int feed__mix_soft(const feed__mix_cfg *c)
{
    return feed__mix_images(c) || c->smoothing > 0 || c->multi;
}

static double rng_normal(feed__rng *r)
{
    double u1 = feed__rng_uniform(r), u2 = feed__rng_uniform(r);
    return sqrt(-2.0 * log1p(-u1)) * cos(6.283185307179586 * u2);
}

double feed__rng_log_gamma(feed__rng *r, double a)
{
    /* Gamma(a) = Gamma(a + 1) * U^(1/a) for a < 1 (Marsaglia and Tsang, 2000). */
    double boost = 0;
    if (a < 1) {
        boost = log1p(-feed__rng_uniform(r)) / a;
        a += 1;
    }
    double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        double u = 1.0 - feed__rng_uniform(r); /* (0, 1]: the log is finite */
        if (u < 1.0 - 0.0331 * (x * x) * (x * x) || log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
            return log(d * v) + boost;
    }
}

double feed__rng_beta(feed__rng *r, double a, double b)
{
    double lx = feed__rng_log_gamma(r, a), ly = feed__rng_log_gamma(r, b);
    /* X / (X + Y) = 1 / (1 + exp(ly - lx)): no 0/0 when both are tiny */
    return 1.0 / (1.0 + exp(ly - lx));
}

void feed__mix_cutmix_box(uint32_t H, uint32_t W, double lam, uint32_t rx, uint32_t ry, feed__mix_draw *d)
{
    double rr = 0.5 * sqrt(1.0 - lam);
    int64_t rw = (int64_t)(rr * W), rh = (int64_t)(rr * H);
    int64_t x1 = (int64_t)rx - rw, y1 = (int64_t)ry - rh, x2 = (int64_t)rx + rw, y2 = (int64_t)ry + rh;
    d->kind = FEED__MIX_CUTMIX;
    d->x1 = (uint32_t)(x1 < 0 ? 0 : x1);
    d->y1 = (uint32_t)(y1 < 0 ? 0 : y1);
    d->x2 = (uint32_t)(x2 > W ? W : x2);
    d->y2 = (uint32_t)(y2 > H ? H : y2);
    d->lam = 1.0 - (double)(d->x2 - d->x1) * (d->y2 - d->y1) / ((double)W * H);
}

/* One unit's draws (the batch, a pair or a sample), from its own stream. */
static void draw_unit(const feed__mix_cfg *c, const feed__rng *batch, uint64_t unit, feed__mix_draw *d)
{
    feed__rng r = {feed__mix64(batch->key ^ (0x9e3779b97f4a7c15ull * (unit + 1))), 0};
    *d = (feed__mix_draw){.kind = FEED__MIX_NONE, .lam = 1.0};
    if (!feed__mix_images(c) || feed__rng_uniform(&r) >= c->mix_p)
        return;
    int cut = c->cutmix_alpha > 0 && (c->mixup_alpha <= 0 || feed__rng_uniform(&r) < c->switch_p);
    double alpha = cut ? c->cutmix_alpha : c->mixup_alpha;
    double lam = feed__rng_beta(&r, alpha, alpha);
    if (!cut) {
        d->kind = FEED__MIX_MIXUP;
        d->lam = lam;
        return;
    }
    uint32_t rx = (uint32_t)feed__rng_below(&r, c->w), ry = (uint32_t)feed__rng_below(&r, c->h);
    feed__mix_cutmix_box(c->h, c->w, lam, rx, ry, d);
}

void feed__mix_draw_batch(const feed__mix_cfg *c, uint64_t epoch, uint64_t index, uint32_t count,
                          feed__mix_draw *d)
{
    feed__rng b;
    feed__rng_init(&b, c->seed, epoch, index, FEED_RNG_MIX);
    b.key = feed__mix64(b.key ^ (0xd1b54a32d192ed03ull * ((uint64_t)c->rank + 1)));
    for (uint32_t i = 0; i < count; i++) {
        uint32_t j = feed__mix_partner(i, count);
        if (c->mode == FEED_MIX_BATCH && i > 0)
            d[i] = d[0];
        else if (c->mode == FEED_MIX_PAIR && j < i)
            d[i] = d[j];
        else
            draw_unit(c, &b, i, &d[i]);
    }
    if (count % 2) /* the middle sample is its own partner: nothing changes */
        d[count / 2] = (feed__mix_draw){.kind = FEED__MIX_NONE, .lam = 1.0};
}

static float load(const uint8_t *p, uint32_t dtype)
{
    uint32_t bits = 0;
    memcpy(&bits, p, feed__dtype_size(dtype)); /* little-endian: the element's bits */
    return feed__post_load(dtype, bits);
}

static void store(uint8_t *p, uint32_t dtype, float v)
{
    uint32_t bits = feed__post_store(dtype, v);
    memcpy(p, &bits, feed__dtype_size(dtype));
}

/* Sample-side factors of one draw: own * fa + partner * fb, in float32. */
typedef struct side {
    const feed__mix_draw *d;
    float fa, fb;
} side;

static int in_box(const feed__mix_draw *d, uint32_t y, uint32_t x)
{
    return y >= d->y1 && y < d->y2 && x >= d->x1 && x < d->x2;
}

/* One side of element (y, x) of a pair: own <- MixUp of own and partner, or
 * the partner's bytes inside a CutMix box; own and partner are the originals. */
static void mix_side(const side *s, uint8_t *out, const uint8_t *own, const uint8_t *partner, uint32_t dtype,
                     uint32_t y, uint32_t x)
{
    if (s->d->kind == FEED__MIX_MIXUP)
        store(out, dtype, feed__mix_value(load(own, dtype), load(partner, dtype), s->fa, s->fb));
    else if (s->d->kind == FEED__MIX_CUTMIX && in_box(s->d, y, x))
        memcpy(out, partner, feed__dtype_size(dtype));
}

/* Element (y, x) of the pair (a, b), each written from both originals. */
static void mix_elem(const side *sa, const side *sb, uint8_t *a, uint8_t *b, uint32_t dtype, uint32_t y, uint32_t x)
{
    uint8_t ta[4], tb[4];
    size_t es = feed__dtype_size(dtype);
    memcpy(ta, a, es), memcpy(tb, b, es);
    mix_side(sa, a, ta, tb, dtype, y, x);
    mix_side(sb, b, tb, ta, dtype, y, x);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#include <stdatomic.h>
#define FEED_MIX_AVX2 1
/* AVX2 and F16C, asked once (clang's __builtin_cpu_supports knows no "f16c"). */
static int mix_avx2_ok(void)
{
    static _Atomic int ok = -1;
    int v = atomic_load_explicit(&ok, memory_order_relaxed);
    if (v < 0) {
        unsigned a, b, c, d;
        v = __builtin_cpu_supports("avx2") && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
        atomic_store_explicit(&ok, v, memory_order_relaxed);
    }
    return v;
}
/* MixUp of a pair with AVX2, 8 elements a step, the same operations in the
 * same order as the scalar loop (two products, one sum, no fused
 * multiply-add; uint8: + 0.5 and truncation; float16 by F16C, bfloat16 by
 * the scalar's integer rounding, both nearest even and neither using MXCSR's
 * FTZ or DAZ on the conversion): the same bits. Returns the elements done;
 * the scalar loop does the rest. */
__attribute__((target("avx2,f16c"), always_inline)) static inline uint64_t
mixup_avx2_t(uint8_t *restrict A, uint8_t *restrict B, uint64_t n, uint32_t dtype, const float f[4])
{
    const __m256 a0 = _mm256_set1_ps(f[0]), a1 = _mm256_set1_ps(f[1]);
    const __m256 b0 = _mm256_set1_ps(f[2]), b1 = _mm256_set1_ps(f[3]), half = _mm256_set1_ps(0.5f);
    const __m256i absm = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    const __m256i r7 = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1), qn = _mm256_set1_epi32(0x40);
    size_t es = feed__dtype_size(dtype);
    uint64_t e = 0;
    for (; e + 8 <= n; e += 8) {
        uint8_t *pa = A + e * es, *pb = B + e * es;
        __m256 va, vb;
        if (dtype == FEED_DTYPE_UINT8) {
            va = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)pa)));
            vb = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)pb)));
        } else if (dtype == FEED_DTYPE_FLOAT32) {
            va = _mm256_loadu_ps((const float *)(void *)pa), vb = _mm256_loadu_ps((const float *)(void *)pb);
        } else if (dtype == FEED_DTYPE_FLOAT16) {
            va = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)pa));
            vb = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)pb));
        } else {
            __m256i ia = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)pa));
            __m256i ib = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)pb));
            va = _mm256_castsi256_ps(_mm256_slli_epi32(ia, 16));
            vb = _mm256_castsi256_ps(_mm256_slli_epi32(ib, 16));
        }
        __m256 mv[2] = {_mm256_add_ps(_mm256_mul_ps(va, a0), _mm256_mul_ps(vb, a1)),
                        _mm256_add_ps(_mm256_mul_ps(vb, b0), _mm256_mul_ps(va, b1))};
        uint8_t *dst[2] = {pa, pb};
        for (int k = 0; k < 2; k++) {
            __m256 m = mv[k];
            if (dtype == FEED_DTYPE_UINT8) {
                __m256i q = _mm256_cvttps_epi32(_mm256_add_ps(m, half));
                __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
                _mm_storel_epi64((__m128i *)dst[k], _mm_packus_epi16(w, w));
            } else if (dtype == FEED_DTYPE_FLOAT32) {
                _mm256_storeu_ps((float *)(void *)dst[k], m);
            } else if (dtype == FEED_DTYPE_FLOAT16) {
                _mm_storeu_si128((__m128i *)dst[k], _mm256_cvtps_ph(m, _MM_FROUND_TO_NEAREST_INT));
            } else {
                __m256i x = _mm256_castps_si256(m);
                __m256i r = _mm256_srli_epi32(
                    _mm256_add_epi32(x, _mm256_add_epi32(r7, _mm256_and_si256(_mm256_srli_epi32(x, 16), one))), 16);
                __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, absm), inf);
                r = _mm256_blendv_epi8(r, _mm256_or_si256(_mm256_srli_epi32(x, 16), qn), nan);
                r = _mm256_and_si256(r, _mm256_set1_epi32(0xffff));
                _mm_storeu_si128((__m128i *)dst[k],
                                 _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
            }
        }
    }
    return e;
}

/* One copy of the loop per dtype, the dtype's branches folded away. */
__attribute__((target("avx2,f16c"))) static uint64_t mixup_avx2(uint8_t *restrict A, uint8_t *restrict B,
                                                               uint64_t n, uint32_t dtype, const float f[4])
{
    switch (dtype) {
    case FEED_DTYPE_UINT8:
        return mixup_avx2_t(A, B, n, FEED_DTYPE_UINT8, f);
    case FEED_DTYPE_FLOAT32:
        return mixup_avx2_t(A, B, n, FEED_DTYPE_FLOAT32, f);
    case FEED_DTYPE_FLOAT16:
        return mixup_avx2_t(A, B, n, FEED_DTYPE_FLOAT16, f);
    default:
        return mixup_avx2_t(A, B, n, FEED_DTYPE_BFLOAT16, f);
    }
}
#endif

/* Both samples of a pair MixUp'd: every element, in order, a loop per dtype. */
static void mixup_pair(const side *sa, const side *sb, uint8_t *restrict A, uint8_t *restrict B, uint64_t n,
                       uint32_t dtype)
{
    const float a0 = sa->fa, a1 = sa->fb, b0 = sb->fa, b1 = sb->fb;
    uint64_t e = 0;
#ifdef FEED_MIX_AVX2
    if (mix_avx2_ok()) {
        const float f[4] = {a0, a1, b0, b1};
        e = mixup_avx2(A, B, n, dtype, f);
    }
#endif
    if (dtype == FEED_DTYPE_UINT8) {
        for (; e < n; e++) {
            float va = A[e], vb = B[e];
            /* in [0, 255 * (a0 + a1)], under 256: no clamp needed before the cast */
            A[e] = (uint8_t)feed__post_store(FEED_DTYPE_UINT8, feed__mix_value(va, vb, a0, a1));
            B[e] = (uint8_t)feed__post_store(FEED_DTYPE_UINT8, feed__mix_value(vb, va, b0, b1));
        }
    } else if (dtype == FEED_DTYPE_FLOAT32) {
        float *restrict fa = (float *)(void *)A, *restrict fb = (float *)(void *)B; /* page-aligned slots */
        for (; e < n; e++) {
            float va = fa[e], vb = fb[e];
            fa[e] = feed__mix_value(va, vb, a0, a1);
            fb[e] = feed__mix_value(vb, va, b0, b1);
        }
    } else {
        uint16_t *restrict ha = (uint16_t *)(void *)A, *restrict hb = (uint16_t *)(void *)B;
        if (dtype == FEED_DTYPE_FLOAT16)
            for (; e < n; e++) {
                float va = feed__f16_to_f32(ha[e]), vb = feed__f16_to_f32(hb[e]);
                ha[e] = feed__f32_to_f16(feed__mix_value(va, vb, a0, a1));
                hb[e] = feed__f32_to_f16(feed__mix_value(vb, va, b0, b1));
            }
        else
            for (; e < n; e++) {
                float va = feed__bf16_to_f32(ha[e]), vb = feed__bf16_to_f32(hb[e]);
                ha[e] = feed__f32_to_bf16(feed__mix_value(va, vb, a0, a1));
                hb[e] = feed__f32_to_bf16(feed__mix_value(vb, va, b0, b1));
            }
    }
}

/* A pair with CutMix or nothing on each side: whole rows of each box, the
 * sources saved first (the two boxes may overlap), bytes copied as they are.
 * tmp: 2 rows of the image. */
static void cut_pair(const feed__mix_cfg *c, const feed__mix_draw *di, const feed__mix_draw *dj, uint8_t *A,
                     uint8_t *B, const uint32_t r[4], uint8_t *tmp)
{
    size_t es = feed__dtype_size(c->dtype);
    uint64_t W = c->w, H = c->h;
    int chw = c->layout == FEED_LAYOUT_CHW;
    size_t px = chw ? es : 3 * es; /* bytes of one pixel in a row run */
    uint8_t *ta = tmp, *tb = tmp + W * 3 * es;
    for (uint32_t y = r[1]; y < r[3]; y++) {
        int in_i = di->kind == FEED__MIX_CUTMIX && y >= di->y1 && y < di->y2 && di->x2 > di->x1;
        int in_j = dj->kind == FEED__MIX_CUTMIX && y >= dj->y1 && y < dj->y2 && dj->x2 > dj->x1;
        for (uint32_t ch = 0; ch < (chw ? 3u : 1u); ch++) {
            uint64_t row = chw ? ((uint64_t)ch * H + y) * W * es : (uint64_t)y * W * 3 * es;
            if (in_j) /* B's box takes A's pixels */
                memcpy(ta, A + row + dj->x1 * px, (dj->x2 - dj->x1) * px);
            if (in_i)
                memcpy(tb, B + row + di->x1 * px, (di->x2 - di->x1) * px);
            if (in_i)
                memcpy(A + row + di->x1 * px, tb, (di->x2 - di->x1) * px);
            if (in_j)
                memcpy(B + row + dj->x1 * px, ta, (dj->x2 - dj->x1) * px);
        }
    }
}

/* The rectangle a pair's writes can touch: the whole image with MixUp,
 * else the union of the boxes. 0 if nothing. */
static int region(const feed__mix_cfg *c, const feed__mix_draw *p, const feed__mix_draw *q, uint32_t r[4])
{
    r[0] = c->w, r[1] = c->h, r[2] = 0, r[3] = 0; /* x0, y0, x1, y1 */
    const feed__mix_draw *two[2] = {p, q};
    for (int k = 0; k < 2; k++) {
        const feed__mix_draw *d = two[k];
        if (d->kind == FEED__MIX_MIXUP) {
            r[0] = 0, r[1] = 0, r[2] = c->w, r[3] = c->h;
            return 1;
        }
        if (d->kind == FEED__MIX_CUTMIX && d->x2 > d->x1 && d->y2 > d->y1) {
            r[0] = d->x1 < r[0] ? d->x1 : r[0];
            r[1] = d->y1 < r[1] ? d->y1 : r[1];
            r[2] = d->x2 > r[2] ? d->x2 : r[2];
            r[3] = d->y2 > r[3] ? d->y2 : r[3];
        }
    }
    return r[2] > r[0] && r[3] > r[1];
}

void feed__mix_apply(const feed__mix_cfg *c, const feed__mix_draw *d, uint32_t count, void *pixels,
                     uint64_t sample_bytes)
{
    size_t es = feed__dtype_size(c->dtype);
    uint64_t W = c->w, H = c->h;
    uint8_t *tmp = malloc(2 * W * 3 * es); /* NULL: cut_pair's work done element by element */
    for (uint32_t i = 0; i < count / 2; i++) {
        uint32_t j = feed__mix_partner(i, count);
        uint32_t r[4];
        if (!region(c, &d[i], &d[j], r))
            continue;
        side sa = {&d[i], (float)d[i].lam, (float)(1.0 - d[i].lam)};
        side sb = {&d[j], (float)d[j].lam, (float)(1.0 - d[j].lam)};
        uint8_t *A = (uint8_t *)pixels + i * sample_bytes, *B = (uint8_t *)pixels + j * sample_bytes;
        if (d[i].kind == FEED__MIX_MIXUP && d[j].kind == FEED__MIX_MIXUP) {
            mixup_pair(&sa, &sb, A, B, H * W * 3, c->dtype); /* no place matters: one pass */
            continue;
        }
        if (tmp && d[i].kind != FEED__MIX_MIXUP && d[j].kind != FEED__MIX_MIXUP) {
            cut_pair(c, &d[i], &d[j], A, B, r, tmp);
            continue;
        }
        for (uint32_t ch = 0; ch < 3; ch++) /* MixUp on one side only (elem mode) */
            for (uint32_t y = r[1]; y < r[3]; y++)
                for (uint32_t x = r[0]; x < r[2]; x++) {
                    uint64_t e = c->layout == FEED_LAYOUT_CHW ? (ch * H + y) * W + x : (y * W + x) * 3 + ch;
                    mix_elem(&sa, &sb, A + e * es, B + e * es, c->dtype, y, x);
                }
    }
    free(tmp);
}

int feed__mix_soft_labels(const feed__mix_cfg *c, const feed__mix_draw *d, const int32_t *labels,
                          uint32_t count, float *out, uint32_t *bad)
{
    uint32_t n = c->num_classes;
    double off = (double)c->smoothing / n, on = 1.0 - c->smoothing + off;
    for (uint32_t i = 0; i < count; i++)
        if (labels[i] < 0 || (uint32_t)labels[i] >= n) {
            *bad = i;
            return -1;
        }
    for (uint32_t i = 0; i < count; i++) {
        float *row = out + (uint64_t)i * n;
        double lam = d ? d[i].lam : 1.0;
        uint32_t la = (uint32_t)labels[i], lb = (uint32_t)labels[feed__mix_partner(i, count)];
        for (uint32_t k = 0; k < n; k++)
            row[k] = (float)off;
        if (la == lb)
            row[la] = (float)on;
        else {
            row[la] = (float)(lam * on + (1.0 - lam) * off);
            row[lb] = (float)(lam * off + (1.0 - lam) * on);
        }
    }
    return 0;
}

int feed__mix_multi_hot(const feed__mix_cfg *c, const feed__mix_draw *d, const uint32_t *offsets,
                        const int32_t *list, uint32_t count, float *out, uint32_t *bad)
{
    uint32_t n = c->num_classes;
    double off = (double)c->smoothing / n, on = 1.0 - c->smoothing + off;
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = offsets[i]; k < offsets[i + 1]; k++)
            if (list[k] < 0 || (uint32_t)list[k] >= n) {
                *bad = i;
                return -1;
            }
    /* Each row as lam * own + (1 - lam) * partner, where own and partner are
     * on/off rows: a class in both is on, in one lam * on + (1 - lam) * off
     * (or the other way), in neither off; the same doubles as one-hot rows. */
    for (uint32_t i = 0; i < count; i++) {
        float *row = out + (uint64_t)i * n;
        double lam = d ? d[i].lam : 1.0;
        uint32_t j = feed__mix_partner(i, count);
        for (uint32_t k = 0; k < n; k++)
            row[k] = (float)off;
        if (lam != 1.0)
            for (uint32_t k = offsets[j]; k < offsets[j + 1]; k++)
                row[list[k]] = (float)(lam * off + (1.0 - lam) * on);
        for (uint32_t k = offsets[i]; k < offsets[i + 1]; k++) {
            uint32_t cl = (uint32_t)list[k];
            int in_partner = 0;
            for (uint32_t q = offsets[j]; q < offsets[j + 1] && !in_partner && lam != 1.0; q++)
                in_partner = list[q] == list[k];
            row[cl] = (float)(in_partner || lam == 1.0 ? on : lam * on + (1.0 - lam) * off);
        }
    }
    return 0;
}
