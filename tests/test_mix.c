/*
 * test_mix.c - MixUp, CutMix and soft labels (loader/mix.c): the Beta and
 * Gamma samplers against their moments, the draws of each mode, the mixed
 * values against the formula in every dtype and layout, CutMix's box copied
 * exactly, soft labels; and through the loader: a mixed batch is the unmixed
 * one mixed with its own draws, the same with 1 and 3 workers and after a
 * seek, labels out of num_classes refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "common/internal.h"
#include "common/rng.h"
#include "dataset/index.h"
#include "loader/mix.h"
#include "pixels/convert.h"
#include "testutil.h"

#define NIMG 40
#define NCLASS 4
#define SIDE 24
#define BATCH 6

static char *data;
static feed__index ix;

static int setup(void **state)
{
    data = tu_dataset("mix", NIMG, 9, NCLASS, &ix);
    return 0;
}

static int teardown(void **state)
{
    feed__index_free(&ix);
    tu_rmtree(data);
    free(data);
    return 0;
}

/* Beta(a, b) and Gamma(a): mean and variance within 5 standard errors for
 * n draws (the variance's from the fourth central moment). */
static void test_beta_gamma_moments(void **state)
{
    const int n = 200000;
    const double as[] = {0.2, 1.0, 2.5};
    for (int k = 0; k < 3; k++) {
        double a = as[k];
        feed__rng r;
        feed__rng_init(&r, 1, 2, (uint64_t)k, FEED_RNG_MIX);
        double s = 0, s2 = 0;
        for (int i = 0; i < n; i++) {
            double x = feed__rng_beta(&r, a, a);
            assert_true(x >= 0 && x <= 1);
            s += x, s2 += x * x;
        }
        double mean = s / n, var = s2 / n - mean * mean;
        double v = 1.0 / (4 * (2 * a + 1));             /* Beta(a, a): mean 1/2 */
        double m4 = v * v * (3 - 6 / (2 * a + 3));       /* excess kurtosis -6 / (2a + 3) */
        assert_true(fabs(mean - 0.5) < 5 * sqrt(v / n));
        assert_true(fabs(var - v) < 5 * sqrt((m4 - v * v) / n));
    }
    /* an asymmetric one: Beta(2, 5) */
    feed__rng r;
    feed__rng_init(&r, 3, 0, 0, FEED_RNG_MIX);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += feed__rng_beta(&r, 2, 5);
    double v = 2.0 * 5 / (49.0 * 8);
    assert_true(fabs(s / n - 2.0 / 7) < 5 * sqrt(v / n));
    /* Gamma(a): mean a, variance a; the variance's standard error from m4 = 3a^2 + 6a */
    const double gs[] = {0.3, 3.0};
    for (int k = 0; k < 2; k++) {
        double a = gs[k], g = 0, g2 = 0;
        for (int i = 0; i < n; i++) {
            double x = exp(feed__rng_log_gamma(&r, a));
            g += x, g2 += x * x;
        }
        double mean = g / n, var = g2 / n - mean * mean;
        assert_true(fabs(mean - a) < 5 * sqrt(a / n));
        assert_true(fabs(var - a) < 5 * sqrt((3 * a * a + 6 * a - a * a) / n));
    }
}

static feed__mix_cfg cfg(uint32_t mode, float mixup, float cutmix)
{
    /* 30 x 41 x 3 is no multiple of 8: the vector loops' scalar tails run too */
    return (feed__mix_cfg){.seed = 5, .mode = mode, .mixup_alpha = mixup, .cutmix_alpha = cutmix, .mix_p = 1,
                           .switch_p = 0.5f, .num_classes = 10, .h = 30, .w = 41};
}

static int same(const feed__mix_draw *a, const feed__mix_draw *b)
{
    return a->kind == b->kind && a->lam == b->lam && a->x1 == b->x1 && a->x2 == b->x2 && a->y1 == b->y1 &&
           a->y2 == b->y2;
}

/* Batch: one draw; pair: one per (i, count-1-i); elem: one each. mix_p and
 * switch_p as rates; CutMix's lam is its box's. Pure in (seed, epoch, index, rank). */
static void test_draws(void **state)
{
    enum { N = 16 };
    feed__mix_draw d[N], e[N];
    feed__mix_cfg c = cfg(FEED_MIX_BATCH, 0.4f, 1.0f);
    feed__mix_draw_batch(&c, 0, 3, N, d);
    for (int i = 1; i < N; i++)
        assert_true(same(&d[i], &d[0]));
    c.mode = FEED_MIX_PAIR;
    feed__mix_draw_batch(&c, 0, 3, N, d);
    int distinct = 0;
    for (int i = 0; i < N; i++) {
        assert_true(same(&d[i], &d[N - 1 - i]));
        distinct += i > 0 && i < N / 2 && !same(&d[i], &d[i - 1]);
    }
    assert_true(distinct >= 5);
    c.mode = FEED_MIX_ELEM;
    feed__mix_draw_batch(&c, 0, 3, N, d);
    distinct = 0;
    for (int i = 1; i < N; i++)
        distinct += !same(&d[i], &d[i - 1]);
    assert_true(distinct >= 13);
    feed__mix_draw_batch(&c, 0, 3, N, e);
    assert_memory_equal(d, e, sizeof d);
    c.rank = 1;
    feed__mix_draw_batch(&c, 0, 3, N, e);
    assert_true(!same(&d[0], &e[0]));
    /* an odd count: the middle sample stays itself */
    feed__mix_draw_batch(&c, 0, 3, 5, e);
    assert_int_equal(e[2].kind, FEED__MIX_NONE);
    assert_true(e[2].lam == 1.0);

    /* rates over many batches: 5 standard errors */
    const int nb = 20000;
    c = cfg(FEED_MIX_BATCH, 0.4f, 1.0f);
    c.mix_p = 0.6f, c.switch_p = 0.3f;
    int mixed = 0, cut = 0;
    for (int b = 0; b < nb; b++) {
        feed__mix_draw_batch(&c, 1, (uint64_t)b, 2, d);
        mixed += d[0].kind != FEED__MIX_NONE;
        cut += d[0].kind == FEED__MIX_CUTMIX;
        if (d[0].kind == FEED__MIX_CUTMIX) {
            assert_true(d[0].x2 <= c.w && d[0].y2 <= c.h && d[0].x1 <= d[0].x2 && d[0].y1 <= d[0].y2);
            assert_true(d[0].lam == 1.0 - (double)(d[0].x2 - d[0].x1) * (d[0].y2 - d[0].y1) / (c.w * c.h));
        }
        if (d[0].kind == FEED__MIX_NONE)
            assert_true(d[0].lam == 1.0);
    }
    double p = c.mix_p, q = c.mix_p * c.switch_p;
    assert_true(fabs((double)mixed / nb - p) < 5 * sqrt(p * (1 - p) / nb));
    assert_true(fabs((double)cut / nb - q) < 5 * sqrt(q * (1 - q) / nb));
    c.mix_p = 0;
    feed__mix_draw_batch(&c, 1, 0, 2, d);
    assert_int_equal(d[0].kind, FEED__MIX_NONE);
    /* only cutmix_alpha: always CutMix; only mixup_alpha: always MixUp */
    c = cfg(FEED_MIX_ELEM, 0, 1.0f);
    feed__mix_draw_batch(&c, 0, 0, N, d);
    for (int i = 0; i < N; i++)
        assert_int_equal(d[i].kind, FEED__MIX_CUTMIX);
    c = cfg(FEED_MIX_ELEM, 1.0f, 0);
    feed__mix_draw_batch(&c, 0, 0, N, d);
    for (int i = 0; i < N; i++)
        assert_int_equal(d[i].kind, FEED__MIX_MIXUP);
}

/* torchvision v2.CutMix: r = 0.5 sqrt(1 - lam), half sides int(r W), int(r H),
 * clamped; lam from the box. */
static void test_cutmix_box(void **state)
{
    const uint32_t H = 30, W = 40;
    for (int k = 0; k < 1000; k++) {
        double lam = (k + 0.5) / 1000;
        uint32_t rx = (uint32_t)(k * 7 % W), ry = (uint32_t)(k * 13 % H);
        feed__mix_draw d;
        feed__mix_cutmix_box(H, W, lam, rx, ry, &d);
        long hw = (long)(0.5 * sqrt(1 - lam) * W), hh = (long)(0.5 * sqrt(1 - lam) * H);
        assert_int_equal(d.x1, rx > hw ? rx - hw : 0);
        assert_int_equal(d.y1, ry > hh ? ry - hh : 0);
        assert_int_equal(d.x2, rx + hw < W ? rx + hw : W);
        assert_int_equal(d.y2, ry + hh < H ? ry + hh : H);
        assert_true(d.lam == 1.0 - (double)(d.x2 - d.x1) * (d.y2 - d.y1) / (W * H));
    }
}

static float f16f(uint16_t h)
{
    /* via the exact encoder: find the float whose half is h by bits (only finite ones occur here) */
    uint32_t s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v = e ? ldexpf((float)(m | 0x400), (int)e - 25) : ldexpf((float)m, -24);
    uint32_t b;
    memcpy(&b, &v, 4);
    b |= s;
    memcpy(&v, &b, 4);
    return v;
}

static float get(const uint8_t *p, uint32_t dt)
{
    float f;
    uint16_t h;
    uint32_t u;
    if (dt == FEED_DTYPE_UINT8)
        return *p;
    if (dt == FEED_DTYPE_FLOAT32)
        return memcpy(&f, p, 4), f;
    memcpy(&h, p, 2);
    if (dt == FEED_DTYPE_FLOAT16)
        return f16f(h);
    u = (uint32_t)h << 16;
    return memcpy(&f, &u, 4), f;
}

/* Mixed = lam * own + (1 - lam) * partner (the factors as float32, one
 * rounding to the dtype); CutMix: the partner's box, bytes exactly, the rest
 * untouched; every dtype and layout, every mode's pairing. */
static void test_apply_formula(void **state)
{
    enum { N = 5 }; /* odd: the middle one is left as it is */
    for (uint32_t dt = 0; dt <= FEED_DTYPE_BFLOAT16; dt++)
        for (uint32_t lay = 0; lay <= FEED_LAYOUT_CHW; lay++)
            for (uint32_t mode = 0; mode <= FEED_MIX_ELEM + 1; mode++) {
                /* the last round: elem with mix_p < 1, so that a MixUp sample meets an unmixed partner */
                feed__mix_cfg c = cfg(mode > FEED_MIX_ELEM ? FEED_MIX_ELEM : mode, 0.7f, 1.2f);
                c.mix_p = mode > FEED_MIX_ELEM ? 0.5f : 1.0f;
                c.dtype = dt, c.layout = lay;
                size_t es = feed__dtype_size(dt), sb = (size_t)c.h * c.w * 3 * es;
                uint8_t *orig = malloc(N * sb), *px = malloc(N * sb);
                feed__rng r;
                feed__rng_init(&r, dt, lay, mode, 1);
                for (size_t i = 0; i < N * sb / es; i++) {
                    float v = (float)feed__rng_range(&r, -2, 2);
                    uint32_t bits = dt == 0 ? (uint32_t)feed__rng_below(&r, 256) : dt == 1 ? feed__f32_bits(v)
                                  : dt == 2 ? feed__f32_to_f16(v) : feed__f32_to_bf16(v);
                    memcpy(orig + i * es, &bits, es);
                }
                int kinds[3][3] = {{0}}; /* pairs seen by (kind of i, kind of its partner) */
                for (uint64_t batch = 0; batch < 12; batch++) {
                    feed__mix_draw d[N];
                    feed__mix_draw_batch(&c, 0, batch, N, d);
                    for (uint32_t i = 0; i < N; i++)
                        kinds[d[i].kind][d[N - 1 - i].kind]++;
                    memcpy(px, orig, N * sb);
                    feed__mix_apply(&c, d, N, px, sb);
                    for (uint32_t i = 0; i < N; i++) {
                        const uint8_t *a = orig + i * sb, *b = orig + (N - 1 - i) * sb, *o = px + i * sb;
                        float fa = (float)d[i].lam, fb = (float)(1.0 - d[i].lam);
                        for (uint32_t ch = 0; ch < 3; ch++)
                            for (uint32_t y = 0; y < c.h; y++)
                                for (uint32_t x = 0; x < c.w; x++) {
                                    size_t e = lay ? ((size_t)ch * c.h + y) * c.w + x : ((size_t)y * c.w + x) * 3 + ch;
                                    const uint8_t *want = a + e * es;
                                    if (d[i].kind == FEED__MIX_CUTMIX && y >= d[i].y1 && y < d[i].y2 &&
                                        x >= d[i].x1 && x < d[i].x2)
                                        want = b + e * es;
                                    if (d[i].kind != FEED__MIX_MIXUP) {
                                        assert_memory_equal(o + e * es, want, es);
                                        continue;
                                    }
                                    float m = get(a + e * es, dt) * fa + get(b + e * es, dt) * fb;
                                    float got = get(o + e * es, dt);
                                    if (dt == FEED_DTYPE_UINT8)
                                        assert_int_equal((uint8_t)got, (uint8_t)floorf(m + 0.5f));
                                    else if (dt == FEED_DTYPE_FLOAT32)
                                        assert_memory_equal(&got, &m, 4);
                                    else {
                                        uint16_t w16 = dt == 2 ? feed__f32_to_f16(m) : feed__f32_to_bf16(m);
                                        assert_memory_equal(o + e * es, &w16, 2);
                                    }
                                    /* and that is lam a + (1 - lam) b to the dtype's precision: half a
                                     * step for uint8; else 2 epsilons (2^-23, 2^-10, 2^-7) relative,
                                     * for the factors' rounding and the result's */
                                    double ga = get(a + e * es, dt), gb = get(b + e * es, dt);
                                    double exact = d[i].lam * ga + (1 - d[i].lam) * gb;
                                    double eps = dt == 1 ? 0x1p-23 : dt == 2 ? 0x1p-10 : 0x1p-7;
                                    double tol = dt == 0 ? 0.5 + 1e-4 : 2 * eps * fmax(fabs(exact), 1);
                                    assert_true(fabs(got - exact) <= tol);
                                }
                    }
                }
                if (mode > FEED_MIX_ELEM) /* the mixed pairs this round is for did occur */
                    assert_true(kinds[FEED__MIX_MIXUP][FEED__MIX_NONE] > 0 &&
                                kinds[FEED__MIX_CUTMIX][FEED__MIX_NONE] > 0);
                free(orig), free(px);
            }
}

/* Rows sum to 1 and are lam * smoothed one-hot(own) + (1 - lam) * (partner's). */
static void test_soft_labels(void **state)
{
    enum { N = 7 };
    feed__mix_cfg c = cfg(FEED_MIX_ELEM, 0.5f, 0.5f);
    c.smoothing = 0.1f;
    int32_t labels[N] = {0, 3, 9, 3, 5, 1, 0};
    feed__mix_draw d[N];
    feed__mix_draw_batch(&c, 2, 1, N, d);
    float out[N * 10];
    uint32_t bad = 99;
    for (int with = 0; with < 2; with++) {
        assert_int_equal(feed__mix_soft_labels(&c, with ? d : NULL, labels, N, out, &bad), 0);
        for (int i = 0; i < N; i++) {
            double sum = 0, lam = with ? d[i].lam : 1.0;
            for (uint32_t k = 0; k < c.num_classes; k++) {
                double off = c.smoothing / c.num_classes, on = 1 - c.smoothing + off;
                double own = labels[i] == (int)k ? on : off, partner = labels[N - 1 - i] == (int)k ? on : off;
                double want = lam * own + (1 - lam) * partner;
                assert_true(fabs(out[i * 10 + k] - want) < 1e-6);
                sum += out[i * 10 + k];
            }
            assert_true(fabs(sum - 1) < 1e-5);
        }
    }
    labels[4] = 10; /* = num_classes: out */
    assert_int_equal(feed__mix_soft_labels(&c, d, labels, N, out, &bad), -1);
    assert_int_equal(bad, 4);
    labels[4] = -1;
    assert_int_equal(feed__mix_soft_labels(&c, d, labels, N, out, &bad), -1);
}

static feed_loader *make(const char *extra, char *err, size_t errlen)
{
    char base[128];
    feed_loader *L;
    snprintf(base, sizeof base, "batch_size=%d,height=%d,width=%d,seed=31", BATCH, SIDE, SIDE);
    return tu_loader(&L, data, base, extra, err, errlen) == FEED_OK ? L : NULL;
}

typedef struct got {
    uint64_t hash;
    uint32_t batches;
} got;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
    return h;
}

/* One epoch of plain (no mixing) and mixed loaders in step: each mixed batch
 * is the plain one mixed with its draws, its soft labels the formula's. */
static got check_against_plain(const char *plain_opts, const char *mix_opts, float smoothing, uint32_t mode,
                               float mixup, float cutmix)
{
    char err[1024];
    feed_loader *P = make(plain_opts, err, sizeof err), *M = make(mix_opts, err, sizeof err);
    if (!P || !M)
        fail_msg("create: %s", err);
    got g = {0xcbf29ce484222325ull, 0};
    feed_batch p = {.struct_size = sizeof p}, m = {.struct_size = sizeof m};
    while (feed_loader_next(P, &p, 60000) == FEED_OK) {
        assert_int_equal(feed_loader_next(M, &m, 60000), FEED_OK);
        assert_int_equal(m.count, p.count);
        assert_memory_equal(m.sample_ids, p.sample_ids, p.count * 8);
        assert_non_null(m.soft_labels);
        assert_null(p.soft_labels);
        assert_int_equal(m.num_classes, NCLASS);
        feed__mix_cfg c = {.seed = 31, .mode = mode, .mixup_alpha = mixup, .cutmix_alpha = cutmix, .mix_p = 1,
                           .switch_p = 0.5f, .smoothing = smoothing, .num_classes = NCLASS, .h = SIDE, .w = SIDE,
                           .dtype = p.dtype, .layout = p.layout};
        feed__mix_draw d[BATCH];
        int images = feed__mix_images(&c);
        if (images)
            feed__mix_draw_batch(&c, m.epoch, m.index, m.count, d);
        uint8_t *want = malloc(p.count * p.sample_bytes);
        memcpy(want, p.data, p.count * p.sample_bytes);
        if (images)
            feed__mix_apply(&c, d, p.count, want, p.sample_bytes);
        assert_memory_equal(m.data, want, p.count * p.sample_bytes);
        float soft[BATCH * NCLASS];
        uint32_t bad;
        assert_int_equal(feed__mix_soft_labels(&c, images ? d : NULL, p.labels, p.count, soft, &bad), 0);
        assert_memory_equal(m.soft_labels, soft, sizeof(float) * p.count * NCLASS);
        g.hash = fnv(fnv(g.hash, m.data, m.count * m.sample_bytes), m.soft_labels, 4 * m.count * NCLASS);
        g.batches++;
        free(want);
        assert_int_equal(feed_batch_release(P, &p, NULL), FEED_OK);
        assert_int_equal(feed_batch_release(M, &m, NULL), FEED_OK);
    }
    feed_loader_destroy(P);
    feed_loader_destroy(M);
    return g;
}

static void test_loader_mix_formula_and_workers(void **state)
{
    const char *plain = "workers=2,augment=train,epochs=1,dtype=float32";
    got a = check_against_plain(plain, "workers=1,augment=train,epochs=1,dtype=float32,mixup_alpha=0.4,"
                                "cutmix_alpha=1,mix_mode=elem,label_smoothing=0.1", 0.1f, FEED_MIX_ELEM, 0.4f, 1.0f);
    got b = check_against_plain(plain, "workers=3,augment=train,epochs=1,dtype=float32,mixup_alpha=0.4,"
                                "cutmix_alpha=1,mix_mode=elem,label_smoothing=0.1", 0.1f, FEED_MIX_ELEM, 0.4f, 1.0f);
    assert_int_equal(a.batches, (NIMG + BATCH - 1) / BATCH); /* the short last batch too */
    assert_int_equal(a.hash, b.hash);
    check_against_plain("workers=2,augment=train,epochs=1", "workers=2,augment=train,epochs=1,mixup_alpha=1,"
                        "cutmix_alpha=1,mix_mode=pair,batch_size=6", 0, FEED_MIX_PAIR, 1.0f, 1.0f);
    check_against_plain("workers=2,augment=val,epochs=1,dtype=bfloat16,layout=hwc",
                        "workers=2,augment=val,epochs=1,dtype=bfloat16,layout=hwc,mixup_alpha=0.8", 0,
                        FEED_MIX_BATCH, 0.8f, 0);
    /* only smoothing: the pixels untouched, the rows smoothed one-hots */
    check_against_plain("workers=2,augment=val,epochs=1", "workers=2,augment=val,epochs=1,label_smoothing=0.2",
                        0.2f, FEED_MIX_BATCH, 0, 0);
}

/* A seek to a batch delivers the bytes and soft labels it had the first time. */
static void test_loader_seek_same(void **state)
{
    char err[1024];
    const char *o = "workers=2,augment=train,epochs=2,dtype=float16,mixup_alpha=0.5,cutmix_alpha=0.5,"
                    "label_smoothing=0.05,erase_p=0.5";
    feed_loader *L = make(o, err, sizeof err);
    assert_non_null(L);
    feed_batch b = {.struct_size = sizeof b};
    uint64_t want = 0, hash = 0;
    feed_status st;
    while ((st = feed_loader_next(L, &b, 60000)) == FEED_OK || st == FEED_END_OF_EPOCH) {
        if (st != FEED_OK)
            continue;
        if (b.epoch == 1 && b.index == 2)
            want = fnv(fnv(1, b.data, b.count * b.sample_bytes), b.soft_labels, 4 * b.count * b.num_classes);
        assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    }
    assert_int_equal(feed_loader_seek(L, 1, 2), FEED_OK);
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_int_equal(b.epoch, 1);
    assert_int_equal(b.index, 2);
    hash = fnv(fnv(1, b.data, b.count * b.sample_bytes), b.soft_labels, 4 * b.count * b.num_classes);
    assert_int_equal(hash, want);
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    feed_loader_destroy(L);
    /* a new loader seeking there (a resume) too */
    L = make(o, err, sizeof err);
    assert_int_equal(feed_loader_seek(L, 1, 2), FEED_OK);
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    hash = fnv(fnv(1, b.data, b.count * b.sample_bytes), b.soft_labels, 4 * b.count * b.num_classes);
    assert_int_equal(hash, want);
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    feed_loader_destroy(L);
}

/* num_classes below the dataset's: refused at create, naming a sample. */
static void test_num_classes(void **state)
{
    char err[1024];
    feed_loader *L = make("workers=1,mixup_alpha=1,num_classes=3", err, sizeof err);
    assert_null(L);
    assert_non_null(strstr(err, "num_classes=3"));
    assert_non_null(strstr(err, "label 3"));
    /* wider than the dataset's: fine, the extra columns are the smoothing's */
    L = make("workers=1,label_smoothing=0.5,num_classes=8,epochs=1", err, sizeof err);
    assert_non_null(L);
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_int_equal(b.num_classes, 8);
    for (uint32_t i = 0; i < b.count; i++)
        for (uint32_t k = 0; k < 8; k++)
            assert_true(b.soft_labels[i * 8 + k] == (k == (uint32_t)b.labels[i] ? 0.5f + 0.5f / 8 : 0.5f / 8));
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    feed_loader_destroy(L);
    /* off: no soft labels */
    L = make("workers=1,epochs=1", err, sizeof err);
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_null(b.soft_labels);
    assert_int_equal(b.num_classes, 0);
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    feed_loader_destroy(L);
}

/* Every allocation of a create with soft labels failing in turn: each
 * failure is a clean "out of memory" (the sanitizer builds see no leak),
 * until create succeeds and mixes as it should. */
static void test_create_alloc_fail(void **state)
{
    feed_options o;
    char err[1024];
    feed_options_init(&o, sizeof o);
    snprintf(o.source, sizeof o.source, "%s", data);
    o.batch_size = BATCH;
    o.height = o.width = SIDE;
    if (feed_options_parse(&o, "workers=1,epochs=1,mixup_alpha=1,label_smoothing=0.1", err, sizeof err) != FEED_OK)
        fail_msg("%s", err);
    feed_loader *L = NULL;
    feed_status st = FEED_E_NOMEM;
    long n;
    for (n = 0; n < 10000; n++) {
        feed__alloc_fail_after(n);
        st = feed_loader_create(&L, &o, err, sizeof err);
        feed__alloc_fail_after(-1);
        if (st == FEED_OK)
            break;
        if (st != FEED_E_NOMEM || !strstr(err, "out of memory"))
            fail_msg("allocation %ld failing: %s: %s", n, feed_status_name(st), err);
        assert_null(L);
    }
    assert_int_equal(st, FEED_OK);
    feed_batch b = {.struct_size = sizeof b};
    assert_int_equal(feed_loader_next(L, &b, 60000), FEED_OK);
    assert_non_null(b.soft_labels);
    assert_int_equal(feed_batch_release(L, &b, NULL), FEED_OK);
    feed_loader_destroy(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_beta_gamma_moments),
        cmocka_unit_test(test_draws),
        cmocka_unit_test(test_cutmix_box),
        cmocka_unit_test(test_apply_formula),
        cmocka_unit_test(test_soft_labels),
        cmocka_unit_test(test_loader_mix_formula_and_workers),
        cmocka_unit_test(test_loader_seek_same),
        cmocka_unit_test(test_num_classes),
        cmocka_unit_test(test_create_alloc_fail),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
