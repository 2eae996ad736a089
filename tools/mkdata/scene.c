/*
 * scene.c - one picture: its size and quality, then a scene painted into
 * the region map (sky, hilly ground, clutter, thin "branches", the class's
 * object, occluders), composed into RGB with each region's shading and
 * texture and smooth colour and illumination variations.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mkdata.h"

void mk_draw_spec(rng *r, spec *sp)
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

/* The sky, brighter towards the horizon, then the ground below a hilly line. */
static void paint_background(image *im, rng *r)
{
    int w = im->w, h = im->h;
    /* sky: blue, overcast grey or dusk, light, little texture */
    float sky_h = runif(r) < 0.6 ? rrange(r, 190, 225) : rrange(r, 0, 50);
    uint8_t sky = mk_add_region(im, r, sky_h, rrange(r, 0.05, 0.55), rrange(r, 0.65, 0.98),
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
    uint8_t ground = mk_add_region(im, r, gh, rrange(r, 0.2, 0.7), rrange(r, 0.2, 0.6),
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
        mk_fill_polygon(im, px, py, n, ground);
    }
}

/* Shapes over the background: clutter, branches, the class's object in
 * front of them, occluders in front of it. */
static void paint_shapes(image *im, rng *r, int cls, int nclasses)
{
    int w = im->w, h = im->h;
    float side = (float)(w < h ? w : h);

    /* clutter: random hues, muted, behind the object */
    int nclutter = rint_in(r, 3, 14);
    for (int i = 0; i < nclutter; i++) {
        uint8_t id = mk_add_region(im, r, rrange(r, 0, 360), rrange(r, 0.05, 0.6),
                                   rrange(r, 0.15, 0.9), rrange(r, 6, 35));
        mk_fill_shape(im, r, rint_in(r, 0, 3), rrange(r, 0, w), rrange(r, 0, h),
                      side * rrange(r, 0.04, 0.22), id);
    }
    /* thin dark "branches" */
    int nlines = rint_in(r, 0, 4);
    for (int i = 0; i < nlines; i++) {
        uint8_t id = mk_add_region(im, r, rrange(r, 15, 45), rrange(r, 0.2, 0.5),
                                   rrange(r, 0.08, 0.3), rrange(r, 4, 12));
        float x0 = rrange(r, 0, w), y0 = rrange(r, 0, h), a = rrange(r, 0, 6.2831853);
        float len = side * rrange(r, 0.2, 0.8), th = rrange(r, 1.5, 7);
        float ux = cosf(a), uy = sinf(a);
        float px[4] = {x0 - uy * th, x0 + uy * th, x0 + ux * len + uy * th * 0.5f,
                       x0 + ux * len - uy * th * 0.5f};
        float py[4] = {y0 + ux * th, y0 - ux * th, y0 + uy * len - ux * th * 0.5f,
                       y0 + uy * len + ux * th * 0.5f};
        mk_fill_polygon(im, px, py, 4, id);
    }
    /* the object: the class's hue and shape family, near the middle */
    float hue = 360.0f * (float)cls / (float)nclasses;
    int parts = rint_in(r, 1, 3);
    float ocx = w * rrange(r, 0.3, 0.7), ocy = h * rrange(r, 0.3, 0.7);
    float orad = side * rrange(r, 0.15, 0.35);
    for (int i = 0; i < parts; i++) {
        uint8_t id = mk_add_region(im, r, hue + rrange(r, -12, 12), rrange(r, 0.45, 0.95),
                                   rrange(r, 0.35, 0.95), rrange(r, 8, 30));
        mk_fill_shape(im, r, (cls + i) % 4, ocx + orad * rrange(r, -0.5, 0.5),
                      ocy + orad * rrange(r, -0.5, 0.5), orad * rrange(r, 0.5, 1.0), id);
    }
    /* an occluder or two in front */
    int nfront = rint_in(r, 0, 2);
    for (int i = 0; i < nfront; i++) {
        uint8_t id = mk_add_region(im, r, rrange(r, 0, 360), rrange(r, 0.05, 0.5),
                                   rrange(r, 0.1, 0.8), rrange(r, 6, 30));
        mk_fill_shape(im, r, rint_in(r, 0, 3), rrange(r, 0, w), rrange(r, 0, h),
                      side * rrange(r, 0.03, 0.12), id);
    }
}

/* The region map to RGB: each region's colour, shading and texture, under
 * smooth colour and illumination fields. */
static void compose(image *im, rng *r)
{
    int w = im->w, h = im->h;
    /* one run of a region at a time; the smooth fields are at half
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

void mk_render(image *im, rng *r, int cls, int nclasses, field_ws *ws)
{
    int w = im->w, h = im->h;
    /* equal amplitude per octave is a 1/f^2 power spectrum; beta tilts it a little */
    float beta = rrange(r, -0.05, 0.3);
    mk_fractal(im->tex, w, h, 0, beta, r, ws);
    int hw = (w + 1) / 2, hh = (h + 1) / 2; /* smooth fields: half resolution */
    mk_fractal(im->ca, hw, hh, 2, 0.5f, r, ws);
    mk_fractal(im->cb, hw, hh, 2, 0.5f, r, ws);
    mk_fractal(im->il, hw, hh, 3, 0.5f, r, ws);
    im->nreg = 0;
    paint_background(im, r);
    paint_shapes(im, r, cls, nclasses);
    compose(im, r);
}

int mk_canvas_alloc(image *im, field_ws *ws)
{
    size_t maxpx = (size_t)MAX_SIDE * MAX_SIDE, pad = (size_t)(MAX_SIDE + 8) * (MAX_SIDE + 8);
    im->id = malloc(maxpx);
    im->tex = malloc(maxpx * sizeof(float));
    im->ca = malloc(maxpx * sizeof(float));
    im->cb = malloc(maxpx * sizeof(float));
    im->il = malloc(maxpx * sizeof(float));
    im->rgb = malloc(maxpx * 3);
    ws->a = malloc(pad * sizeof(float));
    ws->b = malloc(pad * sizeof(float));
    ws->t = malloc(pad * sizeof(float));
    return im->id && im->tex && im->ca && im->cb && im->il && im->rgb && ws->a && ws->b && ws->t
               ? 0 : -1;
}

void mk_canvas_free(image *im, field_ws *ws)
{
    free(im->id);
    free(im->tex);
    free(im->ca);
    free(im->cb);
    free(im->il);
    free(im->rgb);
    free(ws->a);
    free(ws->b);
    free(ws->t);
}
