/*
 * geometry.c - crop boxes, EXIF orientation and flips, rotation (geometry.h).
 *
 * Orientation and flips are exact permutations of pixels, so
 * feed__image_process() resizes in stored orientation and turns only the
 * small output upright; rotation samples in Q16 fixed point.
 */
#include "pixels/geometry.h"

#include <math.h>

#include "common/pixel.h"

/* ---- orientation, flip ----------------------------------------------------------------- */

void feed__orient_copy(const uint8_t *src, size_t src_stride, uint32_t sw, uint32_t sh,
                       uint32_t o, int hflip, uint8_t *dst, size_t dst_stride)
{
    uint32_t dw = o >= 5 ? sh : sw, dh = o >= 5 ? sw : sh;
    /* displayed (x, y) <- stored (u, v); u = u0 + x*ux + y*uy, v likewise */
    int64_t u0 = 0, v0 = 0, ux = 0, uy = 0, vx = 0, vy = 0;
    int64_t W1 = (int64_t)sw - 1, H1 = (int64_t)sh - 1;
    switch (o) {
    default:
    case 1: ux = 1; vy = 1; break;
    case 2: u0 = W1; ux = -1; vy = 1; break;
    case 3: u0 = W1; ux = -1; v0 = H1; vy = -1; break;
    case 4: ux = 1; v0 = H1; vy = -1; break;
    case 5: uy = 1; vx = 1; break;
    case 6: uy = 1; v0 = H1; vx = -1; break;
    case 7: u0 = W1; uy = -1; v0 = H1; vx = -1; break;
    case 8: u0 = W1; uy = -1; vx = 1; break;
    }
    if (hflip) { /* x -> dw-1-x before the orientation */
        u0 += ux * ((int64_t)dw - 1);
        v0 += vx * ((int64_t)dw - 1);
        ux = -ux;
        vx = -vx;
    }
    ptrdiff_t step = (ptrdiff_t)(ux * 3 + vx * (int64_t)src_stride);
    for (uint32_t y = 0; y < dh; y++) {
        const uint8_t *s = src + (u0 + uy * y) * 3 + (v0 + vy * y) * (int64_t)src_stride;
        uint8_t *d = dst + (size_t)y * dst_stride;
        for (uint32_t x = 0; x < dw; x++, s += step, d += 3) {
            d[0] = s[0];
            d[1] = s[1];
            d[2] = s[2];
        }
    }
}

void feed__map_rect(uint32_t o, double ws, double hs, double x0, double x1, double y0, double y1,
                    double r[4])
{
    switch (o) {
    default:
    case 1: r[0] = x0; r[1] = x1; r[2] = y0; r[3] = y1; break;
    case 2: r[0] = ws - x1; r[1] = ws - x0; r[2] = y0; r[3] = y1; break;
    case 3: r[0] = ws - x1; r[1] = ws - x0; r[2] = hs - y1; r[3] = hs - y0; break;
    case 4: r[0] = x0; r[1] = x1; r[2] = hs - y1; r[3] = hs - y0; break;
    case 5: r[0] = y0; r[1] = y1; r[2] = x0; r[3] = x1; break;
    case 6: r[0] = y0; r[1] = y1; r[2] = hs - x1; r[3] = hs - x0; break;
    case 7: r[0] = ws - y1; r[1] = ws - y0; r[2] = hs - x1; r[3] = hs - x0; break;
    case 8: r[0] = ws - y1; r[1] = ws - y0; r[2] = x0; r[3] = x1; break;
    }
}

/* ---- rotation ------------------------------------------------------------------------------ */

void feed__rotate(const uint8_t *src, uint8_t *dst, uint32_t w, uint32_t h, double deg,
                  const uint8_t fill[3])
{
    double rad = deg * (M_PI / 180.0);
    int64_t ca = llrint(cos(rad) * 65536.0), sa = llrint(sin(rad) * 65536.0);
    int64_t cxq = ((int64_t)w - 1) << 15, cyq = ((int64_t)h - 1) << 15;
    size_t stride = (size_t)w * 3;
    for (uint32_t y = 0; y < h; y++) {
        int64_t dy2 = 2 * (int64_t)y - ((int64_t)h - 1);
        uint8_t *d = dst + (size_t)y * stride;
        for (uint32_t x = 0; x < w; x++, d += 3) {
            int64_t dx2 = 2 * (int64_t)x - ((int64_t)w - 1);
            int64_t sx = cxq + ((ca * dx2 - sa * dy2) >> 1);
            int64_t sy = cyq + ((sa * dx2 + ca * dy2) >> 1);
            int64_t x0 = sx >> 16, y0 = sy >> 16;
            int64_t fx = sx & 0xFFFF, fy = sy & 0xFFFF;
            if (x0 < -1 || y0 < -1 || x0 >= (int64_t)w || y0 >= (int64_t)h) {
                d[0] = fill[0];
                d[1] = fill[1];
                d[2] = fill[2];
                continue;
            }
            int64_t wt[4] = {(65536 - fx) * (65536 - fy), fx * (65536 - fy), (65536 - fx) * fy,
                             fx * fy};
            int64_t acc[3] = {1ll << 31, 1ll << 31, 1ll << 31};
            for (int k = 0; k < 4; k++) {
                if (!wt[k])
                    continue;
                int64_t xi = x0 + (k & 1), yi = y0 + (k >> 1);
                const uint8_t *p = (xi < 0 || yi < 0 || xi >= (int64_t)w || yi >= (int64_t)h)
                                       ? fill
                                       : src + (size_t)yi * stride + (size_t)xi * 3;
                acc[0] += wt[k] * p[0];
                acc[1] += wt[k] * p[1];
                acc[2] += wt[k] * p[2];
            }
            d[0] = feed__clamp8((int32_t)(acc[0] >> 32));
            d[1] = feed__clamp8((int32_t)(acc[1] >> 32));
            d[2] = feed__clamp8((int32_t)(acc[2] >> 32));
        }
    }
}

/* ---- crop boxes ---------------------------------------------------------------------------- */

/* torchvision CenterCrop on one axis of resized length r: the crop of o starts
 * at round((r - o) / 2) (half to even); a crop larger than the image pads with
 * zeros, (o - r) // 2 before it, so the image fills [*at, *at + *len) of the
 * output instead. */
static uint64_t center_crop_axis(uint64_t r, uint32_t o, uint32_t *at, uint32_t *len)
{
    if (r >= o)
        return (uint64_t)nearbyint((double)(r - o) / 2.0);
    *at = (uint32_t)((o - r) / 2);
    *len = (uint32_t)r;
    return 0;
}

void feed__center_crop_box(uint32_t W, uint32_t H, uint32_t shorter, uint32_t ow, uint32_t oh,
                           double box[4], uint32_t sub[4])
{
    uint64_t rw, rh;
    if (W <= H) {
        rw = shorter;
        rh = (uint64_t)shorter * H / W;
    } else {
        rh = shorter;
        rw = (uint64_t)shorter * W / H;
    }
    if (rw == 0)
        rw = 1;
    if (rh == 0)
        rh = 1;
    sub[0] = sub[1] = 0;
    sub[2] = ow;
    sub[3] = oh;
    uint64_t ry = center_crop_axis(rh, oh, &sub[1], &sub[3]);
    uint64_t rx = center_crop_axis(rw, ow, &sub[0], &sub[2]);
    double sx = (double)W / (double)rw, sy = (double)H / (double)rh;
    box[0] = rx * sx;
    box[1] = fmin((rx + sub[2]) * sx, W);
    box[2] = ry * sy;
    box[3] = fmin((ry + sub[3]) * sy, H);
}

int feed__rrc_box(feed__rng *r, uint32_t W, uint32_t H, double scale_min, double scale_max,
                  double ratio_min, double ratio_max, uint32_t *i, uint32_t *j, uint32_t *h,
                  uint32_t *w)
{
    double area = (double)W * (double)H;
    double lr0 = log(ratio_min), lr1 = log(ratio_max);
    for (int attempt = 0; attempt < 10; attempt++) {
        double target = area * feed__rng_range(r, scale_min, scale_max);
        double aspect = exp(feed__rng_range(r, lr0, lr1));
        double ww = nearbyint(sqrt(target * aspect)); /* Python round(): half to even */
        double hh = nearbyint(sqrt(target / aspect));
        if (ww > 0 && ww <= W && hh > 0 && hh <= H) {
            *w = (uint32_t)ww;
            *h = (uint32_t)hh;
            *i = (uint32_t)feed__rng_below(r, (uint64_t)H - *h + 1);
            *j = (uint32_t)feed__rng_below(r, (uint64_t)W - *w + 1);
            return 1;
        }
    }
    double in_ratio = (double)W / (double)H;
    double ww, hh;
    if (in_ratio < ratio_min) {
        ww = W;
        hh = nearbyint(ww / ratio_min);
    } else if (in_ratio > ratio_max) {
        hh = H;
        ww = nearbyint(hh * ratio_max);
    } else {
        ww = W;
        hh = H;
    }
    *w = (uint32_t)fmin(fmax(ww, 1), W);
    *h = (uint32_t)fmin(fmax(hh, 1), H);
    *i = (H - *h) / 2;
    *j = (W - *w) / 2;
    return 0;
}
