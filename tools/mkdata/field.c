/*
 * field.c - the 1/f texture field: white noise summed over octaves, each
 * upsampled by cubic B-spline subdivision (a Laplacian pyramid run
 * backwards). Noise on a grid of cell 2^k has power density ~ a_k^2 4^k at
 * frequency ~ 2^-k, so equal amplitude per octave gives the 1/f^2 power (1/f
 * amplitude) spectrum of natural images; a_k = 2^(k*beta) tilts the slope.
 * Costs about 1.3 upsamples per pixel.
 */
#include <math.h>
#include <string.h>

#include "mkdata.h"

static void add_noise(float *g, size_t n, float amp, rng *r)
{
    size_t i = 0;
    while (i < n) {
        uint64_t v = rnext(r);
        for (int k = 0; k < 4 && i < n; k++, i++)
            g[i] += amp * (float)(int16_t)(v >> (16 * k)) * (1.0f / 32768.0f);
    }
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

void mk_fractal(float *out, int w, int h, int finest, float beta, rng *r, field_ws *ws)
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
