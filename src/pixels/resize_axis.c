/*
 * resize_axis.c - the coefficients of one axis of the resize (resize_axis.h):
 * each output's window of source pixels and its Q14 weights, built in double
 * and rounded so that they sum to exactly 1 << FEED_COEF_BITS.
 */
#include "pixels/resize_axis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/pixel.h"
#include "feed.h"

void feed__axis_free(feed__axis *a)
{
    if (!a)
        return;
    free(a->first);
    free(a->coef);
    free(a->cvec);
    free(a->wbuf);
    free(a->c8);
    memset(a, 0, sizeof *a);
}

/* The filter's weight at distance t (in source pixels, unscaled): the
 * triangle 1 - |t| or Keys' cubic with a = -0.5. Inline: it runs for every
 * tap of every build. */
static inline double filter_weight(uint32_t filter, double t)
{
    t = fabs(t);
    if (filter != FEED__FILTER_BICUBIC)
        return t < 1 ? 1 - t : 0;
    /* Keys (1981) with a = -0.5, written as PIL's Resample.c writes it (torch's
     * aa_filter form gives the same doubles: a is a power of two) */
    const double a = -0.5;
    if (t < 1)
        return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2)
        return (((t - 5) * t + 8) * t - 4) * a;
    return 0;
}

int feed__axis_build(feed__axis *a, uint32_t in, double b0, double b1, uint32_t out,
                     uint32_t filter)
{
    if (a->built && a->in == in && a->out == out && a->b0 == b0 && a->b1 == b1 &&
        a->filter == filter)
        return 0;
    a->built = 0;
    a->c8_built = 0;
    a->cvec_built = 0;
    if (in == 0 || out == 0 || !(b0 >= 0) || !(b1 > b0) || b1 > in + 1e-6 ||
        filter > FEED__FILTER_BICUBIC)
        return FEED_E_INVALID;
    if (b1 > in)
        b1 = in;
    double scale = (b1 - b0) / out;
    double fs = scale > 1 ? scale : 1;
    /* the filter's radius (1 triangle, 2 cubic), stretched when shrinking */
    double support = (filter == FEED__FILTER_BICUBIC ? 2 : 1) * fs, inv_fs = 1.0 / fs;
    double maxk_d = ceil(support) * 2 + 2;
    uint32_t maxk = maxk_d < in ? (uint32_t)maxk_d : in;
    if (feed__grow((void **)&a->first, &a->cap_first, (size_t)out * sizeof *a->first) ||
        feed__grow((void **)&a->coef, &a->cap_coef, (size_t)out * maxk * sizeof *a->coef) ||
        feed__grow((void **)&a->wbuf, &a->cap_wbuf, (size_t)maxk * sizeof *a->wbuf))
        return FEED_E_NOMEM;

    const int32_t one = 1 << FEED_COEF_BITS;
    uint32_t taps = 1;
    /* Pass 1: each output's weights at stride maxk, zero-padded */
    for (uint32_t xx = 0; xx < out; xx++) {
        double center = b0 + (xx + 0.5) * scale;
        double lo = floor(center - support + 0.5), hi = floor(center + support + 0.5);
        int64_t xmin = lo < 0 ? 0 : (int64_t)lo;
        int64_t xmax = hi > in ? (int64_t)in : (int64_t)hi;
        if (xmax - xmin > (int64_t)maxk)
            xmax = xmin + maxk;
        if (xmax <= xmin) { /* cannot happen for a box inside the image; be safe */
            xmin = (int64_t)fmin(fmax(floor(center), 0), in - 1);
            xmax = xmin + 1;
        }
        uint32_t n = (uint32_t)(xmax - xmin);
        double *wp = a->wbuf, sum = 0;
        for (uint32_t k = 0; k < n; k++) {
            wp[k] = filter_weight(filter, ((double)(xmin + k) - center + 0.5) * inv_fs);
            sum += wp[k];
        }
        int16_t *q = a->coef + (size_t)xx * maxk;
        int32_t qs = 0, bigv = -1;
        uint32_t big = 0;
        double norm = sum > 0 ? one / sum : 0;
        for (uint32_t k = 0; k < n; k++) {
            /* rounding half up; truncation is floor for v >= 0 and is no call
             * to libm (bicubic's outer lobes are the negative v) */
            double v = sum > 0 ? wp[k] * norm : (k == 0) * (double)one;
            int32_t qv = v >= 0 ? (int32_t)(v + 0.5) : (int32_t)floor(v + 0.5);
            q[k] = (int16_t)qv;
            qs += qv;
            if (qv > bigv) { /* the first largest */
                bigv = qv;
                big = k;
            }
        }
        q[big] = (int16_t)(q[big] + (one - qs)); /* weights sum to exactly one */
        uint32_t s = 0;
        while (s < n - 1 && q[s] == 0)
            s++;
        while (n > s + 1 && q[n - 1] == 0)
            n--;
        for (uint32_t k = 0; s && k + s < n; k++) /* a few taps: no memmove call */
            q[k] = q[k + s];
        n -= s;
        xmin += s;
        for (uint32_t k = n; k < maxk; k++)
            q[k] = 0;
        a->first[xx] = (int32_t)xmin;
        if (n > taps)
            taps = n;
    }
    if ((taps & 1) && taps + 1 <= maxk) /* pairs of taps for pmaddwd */
        taps++;
    /* Pass 2: compact to stride taps (in place: dst <= src, and an entry never
     * reaches the next one's source); a window that would run past the end
     * moves left with leading zeros. */
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t xx = 0; xx < out; xx++) {
        int16_t *src = a->coef + (size_t)xx * maxk, *dst = a->coef + (size_t)xx * taps;
        int32_t f = a->first[xx];
        uint32_t sh = 0;
        if ((uint32_t)f + taps > in)
            sh = (uint32_t)f + taps - in;
        if (dst + sh <= src) /* the copy may overlap its source: go the safe way */
            for (uint32_t k = 0; k < taps - sh; k++)
                dst[sh + k] = src[k];
        else
            for (uint32_t k = taps - sh; k-- > 0;)
                dst[sh + k] = src[k];
        for (uint32_t k = 0; k < sh; k++)
            dst[k] = 0;
        f -= (int32_t)sh;
        a->first[xx] = f;
        if ((uint32_t)f < lo)
            lo = (uint32_t)f;
        if ((uint32_t)f + taps > hi)
            hi = (uint32_t)f + taps;
    }
    a->cvec_built = 0;
    a->filter = filter;
    a->in = in;
    a->out = out;
    a->taps = taps;
    a->lo = lo;
    a->hi = hi;
    a->b0 = b0;
    a->b1 = b1;
    a->built = 1;
    return 0;
}
