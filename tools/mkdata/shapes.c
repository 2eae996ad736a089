/*
 * shapes.c - the picture's regions (a colour, its shading and texture) and
 * the shapes that paint them into the region map, as spans per row.
 */
#include <math.h>
#include <string.h>

#include "mkdata.h"

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

void mk_fill_polygon(image *im, const float *px, const float *py, int n, uint8_t id)
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

void mk_fill_shape(image *im, rng *r, int kind, float cx, float cy, float rad, uint8_t id)
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
    mk_fill_polygon(im, px, py, n, id);
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

uint8_t mk_add_region(image *im, rng *r, float h, float s, float v, float gain)
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
