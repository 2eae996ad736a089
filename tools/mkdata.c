/*
 * feed-mkdata - write a deterministic synthetic JPEG dataset in ImageFolder
 * layout, for tests and benchmarks.
 *
 *   feed-mkdata --out DIR --count N --seed S [--classes K] [--image FMT] [--quiet]
 *               [--format folder|tar] [--shard-size M]
 *
 * DIR/class_000/img_000000.jpg ... plus DIR/files.txt ("class_000/img_000000.jpg 0"
 * per line, label = index of the class folder in sorted order). Image i goes to
 * class i % K and depends only on (seed, i, K), so a smaller --count writes a
 * prefix of a larger one. The same arguments give the same bytes (for one
 * build of this program and of libjpeg-turbo).
 *
 * --format tar writes the same images as WebDataset shards instead:
 * DIR/shard-000000.tar ... with M samples each (the last one fewer), sample i
 * as members img_XXXXXX.jpg and img_XXXXXX.cls (its label as decimal text),
 * in the order of i, and DIR/shards.txt listing the shards (a libfeed source).
 *
 * What the images look like, so that decode and resize cost what they cost on
 * photographs rather than on flat colour or white noise:
 *  - sizes like ImageNet's: shorter side 300..500 px for 85% of images, up to
 *    1000 for the rest; aspect 3:4..4:3, landscape twice as often as portrait;
 *  - a 1/f texture: white noise summed over octaves, each upsampled by cubic
 *    B-spline subdivision (a Laplacian pyramid run backwards). Noise on a grid
 *    of cell 2^k has power density ~ a_k^2 4^k at frequency ~ 2^-k, so equal
 *    amplitude per octave gives the 1/f^2 power (1/f amplitude) spectrum of
 *    natural images; a_k = 2^(k*beta), beta in [-0.05, 0.3], varies the slope
 *    a little. Costs about 1.3 upsamples per pixel;
 *  - a sky gradient over hilly ground, clutter shapes, thin "branches", and a
 *    foreground object whose hue and shape depend on the class (so labels are
 *    learnable, a little), all with hard edges, their own shading and texture;
 *  - smooth colour and illumination variations;
 *  - quality 85..95, 4:2:0; about 5% progressive and 3% greyscale.
 *
 * --image png|webp|mixed writes the same pictures as PNG (libspng, RGB 8-bit,
 * zlib's default level) or lossy WebP (libwebp, the JPEG's quality), or
 * image i as JPEG, PNG, WebP for i % 3 = 0, 1, 2 (mixed), with the matching
 * extension; greyscale and progressive apply to the JPEGs only.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <spng.h>
#include <turbojpeg.h>
#include <webp/encode.h>

#include "dataset/tar.h"

#define PROG "feed-mkdata"
#define MAX_REGIONS 64
#define MAX_SIDE 1000   /* longest side of the largest image: 1000 * 4/3 */
#define MAX_CLASSES 1000
#define MAX_COUNT 100000000u

/* ---- randomness: splitmix64, our own so the data never changes under us ---- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rnext(rng *r)
{
    return mix64(r->s += 0x9e3779b97f4a7c15ull);
}

static double runif(rng *r) /* [0, 1) */
{
    return (double)(rnext(r) >> 11) * 0x1.0p-53;
}

static float rrange(rng *r, double lo, double hi)
{
    return (float)(lo + (hi - lo) * runif(r));
}

static int rint_in(rng *r, int lo, int hi) /* [lo, hi], small ranges */
{
    return lo + (int)(runif(r) * (hi - lo + 1));
}

/* ---- the 1/f field ------------------------------------------------------------ */

typedef struct field_ws {
    float *a, *b, *t; /* ping-pong grids and the horizontal pass, (w+8)*(h+8) each */
} field_ws;

static void add_noise(float *g, size_t n, float amp, rng *r)
{
    size_t i = 0;
    while (i < n) {
        uint64_t v = rnext(r);
        for (int k = 0; k < 4 && i < n; k++, i++)
            g[i] += amp * (float)(int16_t)(v >> (16 * k)) * (1.0f / 32768.0f);
    }
}

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* One step of cubic B-spline subdivision: src (sw x sh) to dst (dw x dh), with
 * dw <= 2*sw, dh <= 2*sh. Even outputs: (1, 6, 1)/8, odd: (1, 1)/2. */
static void upsample2(const float *src, int sw, int sh, float *dst, int dw, int dh, float *tmp)
{
    for (int y = 0; y < sh; y++) {
        const float *s = src + (size_t)y * sw;
        float *o = tmp + (size_t)y * dw;
        /* interior pairs without clamping, the edges with it */
        int lo = 1, hi = (dw - 2) / 2 < sw - 2 ? (dw - 2) / 2 : sw - 2;
        for (int x = 0; x < dw; x++) {
            int i = x >> 1;
            if (i == lo && lo <= hi) {
                for (; i <= hi; i++) {
                    o[2 * i] = 0.125f * (s[i - 1] + 6.0f * s[i] + s[i + 1]);
                    o[2 * i + 1] = 0.5f * (s[i] + s[i + 1]);
                }
                x = 2 * i - 1;
                continue;
            }
            int i0 = clampi(i - 1, 0, sw - 1), i1 = clampi(i, 0, sw - 1),
                i2 = clampi(i + 1, 0, sw - 1);
            o[x] = (x & 1) ? 0.5f * (s[i1] + s[i2]) : 0.125f * (s[i0] + 6.0f * s[i1] + s[i2]);
        }
    }
    for (int y = 0; y < dh; y++) {
        int j = y >> 1;
        const float *r0 = tmp + (size_t)clampi(j - 1, 0, sh - 1) * dw;
        const float *r1 = tmp + (size_t)clampi(j, 0, sh - 1) * dw;
        const float *r2 = tmp + (size_t)clampi(j + 1, 0, sh - 1) * dw;
        float *o = dst + (size_t)y * dw;
        if (y & 1)
            for (int x = 0; x < dw; x++)
                o[x] = 0.5f * (r1[x] + r2[x]);
        else
            for (int x = 0; x < dw; x++)
                o[x] = 0.125f * (r0[x] + 6.0f * r1[x] + r2[x]);
    }
}

/*
 * Fills out (w x h) with noise whose octave l (cell 2^l px) has amplitude
 * 2^(l*beta), for l from levels-1 down to finest (coarser detail only above
 * finest), normalised to mean 0, standard deviation 1.
 */
static void fractal(float *out, int w, int h, int finest, float beta, rng *r, field_ws *ws)
{
    int levels = 1;
    while (((w > h ? w : h) >> levels) >= 6)
        levels++;
    float *cur = ws->a, *nxt = ws->b;
    int cw = (w >> (levels - 1)) + 3, ch = (h >> (levels - 1)) + 3;
    memset(cur, 0, sizeof(float) * (size_t)cw * ch);
    add_noise(cur, (size_t)cw * ch, exp2f((float)(levels - 1) * beta), r);
    for (int l = levels - 2; l >= 0; l--) {
        int nw = l ? (w >> l) + 3 : w, nh = l ? (h >> l) + 3 : h;
        float *dst = l ? nxt : out;
        upsample2(cur, cw, ch, dst, nw, nh, ws->t);
        if (l >= finest)
            add_noise(dst, (size_t)nw * nh, exp2f((float)l * beta), r);
        cur = dst;
        nxt = (dst == ws->a) ? ws->b : ws->a;
        cw = nw;
        ch = nh;
    }
    size_t n = (size_t)w * h;
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        s += out[i];
        s2 += (double)out[i] * out[i];
    }
    double mean = s / n, var = s2 / n - mean * mean;
    float k = var > 1e-12 ? (float)(1.0 / sqrt(var)) : 0.0f, m = (float)mean;
    for (size_t i = 0; i < n; i++)
        out[i] = (out[i] - m) * k;
}

/* ---- shapes, rasterised as spans into a region map ------------------------------ */

typedef struct region {
    float base[3];   /* colour at the origin, 0..255 */
    float gx[3], gy[3]; /* shading: colour change per pixel */
    float gain;      /* texture amplitude, grey levels per unit of the field */
    float tint[3];   /* texture colour balance */
    int dx, dy;      /* where this region reads the texture field */
} region;

typedef struct image {
    int w, h;
    uint8_t *id; /* region of each pixel */
    float *tex, *ca, *cb, *il;
    uint8_t *rgb;
    region reg[MAX_REGIONS];
    int nreg;
} image;

static void fill_span(image *im, int y, float xa, float xb, uint8_t id)
{
    if (y < 0 || y >= im->h)
        return;
    int x0 = (int)ceilf(xa - 0.5f), x1 = (int)floorf(xb - 0.5f);
    if (x0 < 0)
        x0 = 0;
    if (x1 > im->w - 1)
        x1 = im->w - 1;
    if (x0 <= x1)
        memset(im->id + (size_t)y * im->w + x0, id, (size_t)(x1 - x0 + 1));
}

/* Even-odd fill of a polygon, sampled at pixel centres. */
static void fill_polygon(image *im, const float *px, const float *py, int n, uint8_t id)
{
    float ymin = py[0], ymax = py[0];
    for (int i = 1; i < n; i++) {
        ymin = fminf(ymin, py[i]);
        ymax = fmaxf(ymax, py[i]);
    }
    int y0 = clampi((int)floorf(ymin), 0, im->h - 1), y1 = clampi((int)ceilf(ymax), 0, im->h - 1);
    float xs[96];
    for (int y = y0; y <= y1; y++) {
        float yc = (float)y + 0.5f;
        int k = 0;
        for (int i = 0, j = n - 1; i < n; j = i++) {
            if ((py[i] <= yc) != (py[j] <= yc) && k < 96)
                xs[k++] = px[j] + (yc - py[j]) * (px[i] - px[j]) / (py[i] - py[j]);
        }
        for (int a = 1; a < k; a++) /* insertion sort: k is small */
            for (int b = a; b > 0 && xs[b - 1] > xs[b]; b--) {
                float t = xs[b];
                xs[b] = xs[b - 1];
                xs[b - 1] = t;
            }
        for (int a = 0; a + 1 < k; a += 2)
            fill_span(im, y, xs[a], xs[a + 1], id);
    }
}

/* A rotated ellipse: per row, the span where the quadratic in x is <= 1. */
static void fill_ellipse(image *im, float cx, float cy, float ra, float rb, float th, uint8_t id)
{
    float c = cosf(th), s = sinf(th);
    float A = c * c / (ra * ra) + s * s / (rb * rb);
    float B = 2.0f * c * s * (1.0f / (ra * ra) - 1.0f / (rb * rb));
    float C = s * s / (ra * ra) + c * c / (rb * rb);
    float ext = ra > rb ? ra : rb;
    int y0 = clampi((int)(cy - ext) - 1, 0, im->h - 1), y1 = clampi((int)(cy + ext) + 1, 0, im->h - 1);
    for (int y = y0; y <= y1; y++) {
        float d = (float)y + 0.5f - cy;
        /* A x^2 + B d x + C d^2 - 1 <= 0 */
        float bb = B * d, disc = bb * bb - 4.0f * A * (C * d * d - 1.0f);
        if (disc < 0)
            continue;
        float q = sqrtf(disc);
        fill_span(im, y, cx + (-bb - q) / (2 * A), cx + (-bb + q) / (2 * A), id);
    }
}

/* A blob: kind 0 ellipse, 1 irregular polygon, 2 star, 3 rectangle-ish. */
static void fill_shape(image *im, rng *r, int kind, float cx, float cy, float rad, uint8_t id)
{
    if (kind == 0) {
        fill_ellipse(im, cx, cy, rad, rad * rrange(r, 0.4, 1.0), rrange(r, 0, 3.14159265),
                     id);
        return;
    }
    float px[24] = {0}, py[24] = {0}; /* n >= 4; zeroed so -O3 sees them set */
    int n = kind == 1 ? rint_in(r, 5, 11) : kind == 2 ? 2 * rint_in(r, 4, 7) : 4;
    float rot = rrange(r, 0, 6.2831853), squash = rrange(r, 0.55, 1.0);
    for (int i = 0; i < n; i++) {
        float a = rot + 6.2831853f * ((float)i + (kind == 1 ? rrange(r, -0.3, 0.3) : 0)) / n;
        float rr = kind == 1 ? rad * rrange(r, 0.6, 1.0)
                   : kind == 2 ? rad * ((i & 1) ? rrange(r, 0.35, 0.6) : 1.0f)
                               : rad * 1.1f;
        float u = rr * cosf(a), v = rr * sinf(a) * squash;
        px[i] = cx + u * cosf(rot) - v * sinf(rot);
        py[i] = cy + u * sinf(rot) + v * cosf(rot);
    }
    fill_polygon(im, px, py, n, id);
}

static void hsv_rgb(float h, float s, float v, float out[3])
{
    h = fmodf(h, 360.0f);
    if (h < 0)
        h += 360.0f;
    float c = v * s, x = c * (1.0f - fabsf(fmodf(h / 60.0f, 2.0f) - 1.0f)), m = v - c;
    float r = 0, g = 0, b = 0;
    switch ((int)(h / 60.0f)) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
    }
    out[0] = (r + m) * 255.0f;
    out[1] = (g + m) * 255.0f;
    out[2] = (b + m) * 255.0f;
}

/* A new region: colour from (h, s, v), shading, texture settings. */
static uint8_t add_region(image *im, rng *r, float h, float s, float v, float gain)
{
    if (im->nreg >= MAX_REGIONS)
        return (uint8_t)(MAX_REGIONS - 1);
    region *g = &im->reg[im->nreg];
    float c[3];
    hsv_rgb(h, s, v, c);
    float ox = rrange(r, 0, im->w), oy = rrange(r, 0, im->h);
    /* up to +-35% of the colour across the image, in a random direction */
    float shade = rrange(r, -0.35, 0.35) / (float)(im->w > im->h ? im->w : im->h);
    float ang = rrange(r, 0, 6.2831853);
    for (int k = 0; k < 3; k++) {
        g->gx[k] = shade * cosf(ang) * c[k];
        g->gy[k] = shade * sinf(ang) * c[k];
        g->base[k] = c[k] - g->gx[k] * ox - g->gy[k] * oy;
        g->tint[k] = rrange(r, 0.8, 1.2);
    }
    g->gain = gain;
    g->dx = rint_in(r, 0, im->w - 1);
    g->dy = rint_in(r, 0, im->h - 1);
    return (uint8_t)im->nreg++;
}

/* ---- one image ---------------------------------------------------------------------- */

typedef struct spec {
    int w, h, quality, progressive, grey;
} spec;

static void draw_spec(rng *r, spec *sp)
{
    int shorter = runif(r) < 0.85 ? rint_in(r, 300, 500) : rint_in(r, 501, 750);
    float aspect = rrange(r, 1.0, 4.0 / 3.0);
    int longer = (int)lrintf((float)shorter * aspect);
    if (longer > MAX_SIDE)
        longer = MAX_SIDE;
    if (runif(r) < 0.67)
        sp->w = longer, sp->h = shorter;
    else
        sp->w = shorter, sp->h = longer;
    sp->quality = rint_in(r, 85, 95);
    sp->progressive = runif(r) < 0.05;
    sp->grey = runif(r) < 0.03;
}

static void render(image *im, rng *r, int cls, int nclasses, field_ws *ws)
{
    int w = im->w, h = im->h;
    /* equal amplitude per octave is a 1/f^2 power spectrum; beta tilts it a little */
    float beta = rrange(r, -0.05, 0.3);
    fractal(im->tex, w, h, 0, beta, r, ws);
    int hw = (w + 1) / 2, hh = (h + 1) / 2; /* smooth fields: half resolution */
    fractal(im->ca, hw, hh, 2, 0.5f, r, ws);
    fractal(im->cb, hw, hh, 2, 0.5f, r, ws);
    fractal(im->il, hw, hh, 3, 0.5f, r, ws);
    im->nreg = 0;
    float side = (float)(w < h ? w : h);

    /* sky: blue, overcast grey or dusk, light, little texture */
    float sky_h = runif(r) < 0.6 ? rrange(r, 190, 225) : rrange(r, 0, 50);
    uint8_t sky = add_region(im, r, sky_h, rrange(r, 0.05, 0.55), rrange(r, 0.65, 0.98),
                             rrange(r, 2, 7));
    {
        region *g = &im->reg[sky];
        float lift = rrange(r, 0.1, 0.45) / (float)h; /* brighter towards the horizon */
        for (int k = 0; k < 3; k++) {
            float mid = g->base[k] + g->gx[k] * 0.5f * w + g->gy[k] * 0.5f * h;
            g->gx[k] = 0;
            g->gy[k] = lift * mid;
            g->base[k] = mid - g->gy[k] * 0.5f * h;
        }
    }
    memset(im->id, sky, (size_t)w * h);

    /* ground: a hilly horizon line, green, brown or grey, strongly textured */
    float gh = runif(r) < 0.5 ? rrange(r, 90, 140) : rrange(r, 20, 45);
    uint8_t ground = add_region(im, r, gh, rrange(r, 0.2, 0.7), rrange(r, 0.2, 0.6),
                                rrange(r, 18, 40));
    {
        float px[66], py[66];
        int n = 66;
        float hy = h * rrange(r, 0.3, 0.75), amp = h * rrange(r, 0.02, 0.15), y = 0;
        float tilt = h * rrange(r, -0.1, 0.1);
        for (int i = 0; i < n - 2; i++) {
            y = 0.85f * y + rrange(r, -0.6, 0.6);
            px[i] = (float)(w + 2) * i / (n - 3) - 1.0f;
            py[i] = hy + amp * y + tilt * ((float)i / (n - 3) - 0.5f);
        }
        px[n - 2] = (float)w + 1, py[n - 2] = (float)h + 1;
        px[n - 1] = -1, py[n - 1] = (float)h + 1;
        fill_polygon(im, px, py, n, ground);
    }

    /* clutter: random hues, muted, behind the object */
    int nclutter = rint_in(r, 3, 14);
    for (int i = 0; i < nclutter; i++) {
        uint8_t id = add_region(im, r, rrange(r, 0, 360), rrange(r, 0.05, 0.6),
                                rrange(r, 0.15, 0.9), rrange(r, 6, 35));
        fill_shape(im, r, rint_in(r, 0, 3), rrange(r, 0, w), rrange(r, 0, h),
                   side * rrange(r, 0.04, 0.22), id);
    }
    /* thin dark "branches" */
    int nlines = rint_in(r, 0, 4);
    for (int i = 0; i < nlines; i++) {
        uint8_t id = add_region(im, r, rrange(r, 15, 45), rrange(r, 0.2, 0.5),
                                rrange(r, 0.08, 0.3), rrange(r, 4, 12));
        float x0 = rrange(r, 0, w), y0 = rrange(r, 0, h), a = rrange(r, 0, 6.2831853);
        float len = side * rrange(r, 0.2, 0.8), th = rrange(r, 1.5, 7);
        float ux = cosf(a), uy = sinf(a);
        float px[4] = {x0 - uy * th, x0 + uy * th, x0 + ux * len + uy * th * 0.5f,
                       x0 + ux * len - uy * th * 0.5f};
        float py[4] = {y0 + ux * th, y0 - ux * th, y0 + uy * len - ux * th * 0.5f,
                       y0 + uy * len + ux * th * 0.5f};
        fill_polygon(im, px, py, 4, id);
    }
    /* the object: the class's hue and shape family, near the middle */
    float hue = 360.0f * (float)cls / (float)nclasses;
    int parts = rint_in(r, 1, 3);
    float ocx = w * rrange(r, 0.3, 0.7), ocy = h * rrange(r, 0.3, 0.7);
    float orad = side * rrange(r, 0.15, 0.35);
    for (int i = 0; i < parts; i++) {
        uint8_t id = add_region(im, r, hue + rrange(r, -12, 12), rrange(r, 0.45, 0.95),
                                rrange(r, 0.35, 0.95), rrange(r, 8, 30));
        fill_shape(im, r, (cls + i) % 4, ocx + orad * rrange(r, -0.5, 0.5),
                   ocy + orad * rrange(r, -0.5, 0.5), orad * rrange(r, 0.5, 1.0), id);
    }
    /* an occluder or two in front */
    int nfront = rint_in(r, 0, 2);
    for (int i = 0; i < nfront; i++) {
        uint8_t id = add_region(im, r, rrange(r, 0, 360), rrange(r, 0.05, 0.5),
                                rrange(r, 0.1, 0.8), rrange(r, 6, 30));
        fill_shape(im, r, rint_in(r, 0, 3), rrange(r, 0, w), rrange(r, 0, h),
                   side * rrange(r, 0.03, 0.12), id);
    }

    /* compose, one run of a region at a time; the smooth fields are at half
     * resolution (cw x ch) and read per 2x2 block */
    float kc = rrange(r, 3, 10), kl = rrange(r, 0.08, 0.3);
    int cw = (w + 1) / 2;
    for (int y = 0; y < h; y++) {
        const uint8_t *idr = im->id + (size_t)y * w;
        const float *car = im->ca + (size_t)(y >> 1) * cw, *cbr = im->cb + (size_t)(y >> 1) * cw;
        const float *ilr = im->il + (size_t)(y >> 1) * cw;
        uint8_t *out = im->rgb + (size_t)y * w * 3;
        for (int x = 0; x < w;) {
            int x1 = x + 1;
            while (x1 < w && idr[x1] == idr[x])
                x1++;
            const region *g = &im->reg[idr[x]];
            /* the field is not periodic: fold (mirror) rather than wrap, so no seam */
            int ty = y + g->dy;
            if (ty >= h)
                ty = 2 * h - 1 - ty;
            const float *trow = im->tex + (size_t)ty * w;
            float b0 = g->base[0] + g->gy[0] * y, b1 = g->base[1] + g->gy[1] * y,
                  b2 = g->base[2] + g->gy[2] * y;
            float t0 = g->tint[0] * g->gain, t1 = g->tint[1] * g->gain, t2 = g->tint[2] * g->gain;
            for (; x < x1; x++) {
                int tx = x + g->dx;
                if (tx >= w)
                    tx = 2 * w - 1 - tx;
                float t = trow[tx];
                float light = 1.0f + kl * ilr[x >> 1];
                float ca = car[x >> 1] * kc, cb = cbr[x >> 1] * kc;
                float v0 = (b0 + g->gx[0] * x + t * t0) * light + ca;
                float v1 = (b1 + g->gx[1] * x + t * t1) * light - 0.5f * (ca + cb);
                float v2 = (b2 + g->gx[2] * x + t * t2) * light + cb;
                v0 = v0 < 0 ? 0 : v0 > 255 ? 255 : v0;
                v1 = v1 < 0 ? 0 : v1 > 255 ? 255 : v1;
                v2 = v2 < 0 ? 0 : v2 > 255 ? 255 : v2;
                out[3 * x] = (uint8_t)(v0 + 0.5f);
                out[3 * x + 1] = (uint8_t)(v1 + 0.5f);
                out[3 * x + 2] = (uint8_t)(v2 + 0.5f);
            }
        }
    }
}

/* ---- files ---------------------------------------------------------------------------- */

/* Writes data to path through a temporary name and a rename. 0 or errno. */
static int write_atomic(const char *path, const void *data, size_t n)
{
    char tmp[4200];
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    snprintf(tmp, sizeof tmp, "%.*s.%s.tmp.%ld", dirlen, path, slash ? slash + 1 : path,
             (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    const uint8_t *p = data;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, p + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            unlink(tmp);
            return e;
        }
        off += (size_t)w;
    }
    if (close(fd) < 0 || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return e;
    }
    return 0;
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) < 0)
            return errno;
        return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    }
    return errno;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char p[4200];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        int e = make_dir(p);
        *s = '/';
        if (e)
            return e;
    }
    return make_dir(p);
}

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

/* ---- tar shards ---------------------------------------------------------------------------- */

typedef struct shard_writer {
    FILE *f;
    char path[4200], tmp[4300];
    int err;
} shard_writer;

static int shard_open(shard_writer *w, const char *dir, int dirlen, uint64_t k)
{
    snprintf(w->path, sizeof w->path, "%.*s/shard-%06llu.tar", dirlen, dir, (unsigned long long)k);
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld", w->path, (long)getpid());
    w->f = fopen(w->tmp, "we");
    w->err = w->f ? 0 : errno;
    return w->err;
}

/* One member: header, data, zero padding to the next block. */
static void shard_member(shard_writer *w, const char *name, const void *data, size_t n)
{
    static const uint8_t zero[512];
    uint8_t h[512];
    if (w->err)
        return;
    if (feed__tar_header(h, name, n, 0)) {
        w->err = ENAMETOOLONG;
        return;
    }
    if (fwrite(h, 1, 512, w->f) != 512 || fwrite(data, 1, n, w->f) != n ||
        fwrite(zero, 1, (512 - n % 512) % 512, w->f) != (512 - n % 512) % 512)
        w->err = errno ? errno : EIO;
}

/* Ends the archive (two zero blocks) and moves it into place. 0 or errno. */
static int shard_close(shard_writer *w)
{
    static const uint8_t zero[1024];
    if (!w->f)
        return w->err;
    if (!w->err && fwrite(zero, 1, sizeof zero, w->f) != sizeof zero)
        w->err = errno ? errno : EIO;
    if (fclose(w->f) != 0 && !w->err)
        w->err = errno;
    w->f = NULL;
    if (!w->err && rename(w->tmp, w->path) != 0)
        w->err = errno;
    if (w->err)
        unlink(w->tmp);
    return w->err;
}

/* ---- main -------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " --out DIR --count N --seed S [--classes K] [--image FMT] [--quiet]\n"
            "                   [--format folder|tar] [--shard-size M]\n"
            "\n"
            "Writes N deterministic synthetic JPEGs (ImageNet-like sizes, 1/f texture, edges,\n"
            "colour regions) to DIR/class_XXX/img_XXXXXX.jpg, image i in class i %% K, and\n"
            "DIR/files.txt with one \"class_XXX/img_XXXXXX.jpg LABEL\" line per image.\n"
            "The same arguments always give the same bytes.\n"
            "\n"
            "  --out DIR      output folder (created if missing; files are replaced)\n"
            "  --count N      number of images, %d..%u, at least K\n"
            "  --seed S       any 64-bit number (decimal or 0x hex)\n"
            "  --classes K    number of classes, 1..%d (default 10)\n"
            "  --image FMT    jpeg (default), png, webp, or mixed (jpeg, png, webp in turn)\n"
            "  --quiet        no summary line\n"
            "  --format F     folder (default) or tar: WebDataset shards DIR/shard-NNNNNN.tar\n"
            "                 (img_XXXXXX.jpg/.png/.webp + img_XXXXXX.cls per sample, in image order)\n"
            "                 and DIR/shards.txt listing them\n"
            "  --shard-size M samples per shard with --format tar (default 1000)\n",
            1, MAX_COUNT, MAX_CLASSES);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *count_s = NULL, *seed_s = NULL, *classes_s = "10", *image_s = "jpeg";
    const char *format_s = "folder", *shard_s = "1000";
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        static const char *const keys[] = {"--out", "--count", "--seed", "--classes", "--image",
                                           "--format", "--shard-size"};
        const char **dst[] = {&out, &count_s, &seed_s, &classes_s, &image_s, &format_s, &shard_s};
        int k;
        for (k = 0; k < 7; k++) {
            size_t n = strlen(keys[k]);
            if (!strncmp(a, keys[k], n) && (a[n] == 0 || a[n] == '=')) {
                if (a[n] == '=')
                    *dst[k] = a + n + 1;
                else if (i + 1 < argc)
                    *dst[k] = argv[++i];
                else
                    return bad_usage("%s needs a value", a);
                break;
            }
        }
        if (k == 7)
            return bad_usage("unknown argument '%s'", a);
    }
    if (!out || !*out)
        return bad_usage("%s", "--out DIR is required");
    if (!count_s)
        return bad_usage("%s", "--count N is required");
    if (!seed_s)
        return bad_usage("%s", "--seed S is required");
    uint64_t count, seed, classes;
    if (parse_u64(count_s, &count) || count < 1 || count > MAX_COUNT)
        return bad_usage("--count '%s': want a whole number from 1 to 100000000", count_s);
    if (parse_u64(seed_s, &seed))
        return bad_usage("--seed '%s': want a whole number (decimal or 0x hex)", seed_s);
    if (parse_u64(classes_s, &classes) || classes < 1 || classes > MAX_CLASSES)
        return bad_usage("--classes '%s': want a whole number from 1 to 1000", classes_s);
    if (count < classes)
        return bad_usage("--count '%s' is below --classes: every class needs an image", count_s);
    enum { IMG_JPEG, IMG_PNG, IMG_WEBP, IMG_MIXED } image_fmt;
    if (!strcmp(image_s, "jpeg"))
        image_fmt = IMG_JPEG;
    else if (!strcmp(image_s, "png"))
        image_fmt = IMG_PNG;
    else if (!strcmp(image_s, "webp"))
        image_fmt = IMG_WEBP;
    else if (!strcmp(image_s, "mixed"))
        image_fmt = IMG_MIXED;
    else
        return bad_usage("--image '%s': want jpeg, png, webp or mixed", image_s);
    int tar = !strcmp(format_s, "tar");
    uint64_t shard_size;
    if (!tar && strcmp(format_s, "folder"))
        return bad_usage("--format '%s': want folder or tar", format_s);
    if (parse_u64(shard_s, &shard_size) || shard_size < 1 || shard_size > MAX_COUNT)
        return bad_usage("--shard-size '%s': want a whole number from 1 to 100000000", shard_s);
    shard_writer sw = {0};

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = 1, e;
    size_t outlen = strlen(out);
    while (outlen > 1 && out[outlen - 1] == '/')
        outlen--;
    char path[4200];
    if (outlen > 4000) {
        fprintf(stderr, PROG ": %s: %s\n", out, strerror(ENAMETOOLONG));
        return 1;
    }
    snprintf(path, sizeof path, "%.*s", (int)outlen, out);
    if ((e = make_dirs(path))) {
        fprintf(stderr, PROG ": %s: %s\n", path, strerror(e));
        return 1;
    }
    for (uint64_t c = 0; c < classes && !tar; c++) {
        snprintf(path, sizeof path, "%.*s/class_%03u", (int)outlen, out, (unsigned)c);
        if ((e = make_dir(path))) {
            fprintf(stderr, PROG ": %s: %s\n", path, strerror(e));
            return 1;
        }
    }
    int digits = 6;
    for (uint64_t m = 1000000; m < count; m *= 10)
        digits++;

    size_t maxpx = (size_t)MAX_SIDE * MAX_SIDE, pad = (size_t)(MAX_SIDE + 8) * (MAX_SIDE + 8);
    image im = {0};
    field_ws ws = {0};
    im.id = malloc(maxpx);
    im.tex = malloc(maxpx * sizeof(float));
    im.ca = malloc(maxpx * sizeof(float));
    im.cb = malloc(maxpx * sizeof(float));
    im.il = malloc(maxpx * sizeof(float));
    im.rgb = malloc(maxpx * 3);
    ws.a = malloc(pad * sizeof(float));
    ws.b = malloc(pad * sizeof(float));
    ws.t = malloc(pad * sizeof(float));
    size_t listcap = (size_t)count * (size_t)(digits + 32), listlen = 0;
    char *list = malloc(listcap);
    /* Two compressors: with libjpeg-turbo 2.1.5, a handle that has made a
     * progressive JPEG makes corrupt baseline ones afterwards ("extraneous
     * bytes before marker 0xd9"), so each handle keeps to one mode. */
    tjhandle tj = tjInitCompress(), tjp = tjInitCompress();
    unsigned char *jpeg = NULL;
    unsigned long jpeg_cap = 0;
    if (!im.id || !im.tex || !im.ca || !im.cb || !im.il || !im.rgb || !ws.a || !ws.b || !ws.t ||
        !list || !tj || !tjp) {
        fprintf(stderr, PROG ": out of memory\n");
        goto done;
    }
    jpeg_cap = tjBufSize(MAX_SIDE, MAX_SIDE, TJSAMP_444);
    jpeg = tjAlloc((int)jpeg_cap);
    if (!jpeg) {
        fprintf(stderr, PROG ": out of memory\n");
        goto done;
    }

    double total_bytes = 0;
    /* Folders: classes outer, images inner, so files.txt comes out sorted
     * like ImageFolder's scan. Shards: images in order (classes mixed). */
    for (uint64_t cc = 0; cc < (tar ? 1 : classes); cc++) {
        for (uint64_t i = tar ? 0 : cc; i < count; i += tar ? 1 : classes) {
            uint64_t c = tar ? i % classes : cc;
            rng r = {mix64(seed ^ mix64(i + 0x632be59bd9b4e019ull)) ^ (classes << 48)};
            spec sp;
            draw_spec(&r, &sp);
            im.w = sp.w;
            im.h = sp.h;
            render(&im, &r, (int)c, (int)classes, &ws);
            int fmt = image_fmt == IMG_MIXED ? (int)(i % 3) : (int)image_fmt;
            unsigned long size = jpeg_cap;
            const void *bytes = jpeg;
            void *other = NULL; /* a PNG or WebP, malloc'ed by its encoder */
            if (fmt == IMG_PNG) {
                size_t n;
                if (!(other = encode_png(im.rgb, sp.w, sp.h, &n))) {
                    fprintf(stderr, PROG ": PNG-encoding image %llu failed\n", (unsigned long long)i);
                    goto done;
                }
                bytes = other;
                size = (unsigned long)n;
            } else if (fmt == IMG_WEBP) {
                uint8_t *wp = NULL;
                size_t n = WebPEncodeRGB(im.rgb, sp.w, sp.h, sp.w * 3, (float)sp.quality, &wp);
                if (!n) {
                    fprintf(stderr, PROG ": WebP-encoding image %llu failed\n", (unsigned long long)i);
                    goto done;
                }
                bytes = other = wp;
                size = (unsigned long)n;
            } else {
                int flags = TJFLAG_NOREALLOC | (sp.progressive ? TJFLAG_PROGRESSIVE : 0);
                tjhandle h = sp.progressive ? tjp : tj;
                if (tjCompress2(h, im.rgb, sp.w, 0, sp.h, TJPF_RGB, &jpeg, &size,
                                sp.grey ? TJSAMP_GRAY : TJSAMP_420, sp.quality, flags) < 0) {
                    fprintf(stderr, PROG ": compressing image %llu: %s\n", (unsigned long long)i,
                            tjGetErrorStr2(h));
                    goto done;
                }
            }
            static const char *const ext[3] = {"jpg", "png", "webp"};
            char rel[64];
            if (tar) {
                if (i % shard_size == 0 && ((e = shard_close(&sw)) ||
                                            (e = shard_open(&sw, out, (int)outlen, i / shard_size)))) {
                    fprintf(stderr, PROG ": %s: %s\n", sw.path, strerror(e));
                    goto done;
                }
                if (i % shard_size == 0)
                    listlen += (size_t)snprintf(list + listlen, listcap - listlen,
                                                "shard-%06llu.tar\n",
                                                (unsigned long long)(i / shard_size));
                char lab[16];
                snprintf(rel, sizeof rel, "img_%0*u.%s", digits & 15, (unsigned)i % 1000000000u, ext[fmt]);
                shard_member(&sw, rel, bytes, size);
                if (fmt == IMG_WEBP)
                    WebPFree(other);
                else
                    free(other);
                snprintf(rel, sizeof rel, "img_%0*u.cls", digits & 15, (unsigned)i % 1000000000u);
                int lablen = snprintf(lab, sizeof lab, "%u", (unsigned)c);
                shard_member(&sw, rel, lab, (size_t)lablen);
                total_bytes += (double)size;
                continue;
            }
            snprintf(rel, sizeof rel, "class_%03u/img_%0*u.%s", (unsigned)c % 1000u,
                     digits & 15, (unsigned)i % 1000000000u, ext[fmt]);
            snprintf(path, sizeof path, "%.*s/%s", (int)outlen, out, rel);
            e = write_atomic(path, bytes, size);
            if (fmt == IMG_WEBP)
                WebPFree(other);
            else
                free(other);
            if (e) {
                fprintf(stderr, PROG ": %s: %s\n", path, strerror(e));
                goto done;
            }
            total_bytes += (double)size;
            listlen += (size_t)snprintf(list + listlen, listcap - listlen, "%s %u\n", rel,
                                        (unsigned)c);
        }
    }
    if (tar && (e = shard_close(&sw))) {
        fprintf(stderr, PROG ": %s: %s\n", sw.path, strerror(e));
        goto done;
    }
    snprintf(path, sizeof path, "%.*s/%s", (int)outlen, out, tar ? "shards.txt" : "files.txt");
    if ((e = write_atomic(path, list, listlen))) {
        fprintf(stderr, PROG ": %s: %s\n", path, strerror(e));
        goto done;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!quiet)
        printf(PROG ": %llu images in %llu classes, %.1f MB, %.2f s -> %.*s\n",
               (unsigned long long)count, (unsigned long long)classes, total_bytes / 1e6,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
               (int)outlen, out);
    rc = 0;
done:
    if (sw.f) {
        fclose(sw.f);
        unlink(sw.tmp);
    }
    if (tj)
        tjDestroy(tj);
    if (tjp)
        tjDestroy(tjp);
    tjFree(jpeg);
    free(list);
    free(im.id);
    free(im.tex);
    free(im.ca);
    free(im.cb);
    free(im.il);
    free(im.rgb);
    free(ws.a);
    free(ws.b);
    free(ws.t);
    return rc;
}
