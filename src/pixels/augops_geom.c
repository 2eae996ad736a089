/*
 * augops_geom.c - the geometric ops of augops.h: torchvision's affine grid
 * and grid sampler (affine_image, rotate_image) in its float32 arithmetic.
 *
 * affine_row is the sampler pixel by pixel. Nearest sampling also has a
 * path that forms the same float32 values a row at a time, in loops the
 * compiler vectorises (elementwise, so each value rounds as it does alone),
 * and copies the pixels afterwards; and where the matrix has no
 * off-diagonal term (a translation) x and y map independently, so the
 * source columns and rows are computed once each.
 */
#include "pixels/augops_geom.h"

#include <math.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "feed.h"

/* floorf without a libm call: the int conversion truncates, exact for |v| < 2^30 */
static inline float floor_f(float v)
{
    if (!(fabsf(v) < 0x1p30f))
        return floorf(v);
    float t = (float)(int32_t)v;
    return t > v ? t - 1.0f : t;
}

void feed__aug_inverse_matrix(double cx, double cy, double angle, double tx, double ty, double shear_x,
                              double shear_y, double m[6])
{
    /* Python's math.radians: x * (pi / 180) */
    const double deg2rad = M_PI / 180.0;
    double rot = angle * deg2rad, sx = shear_x * deg2rad, sy = shear_y * deg2rad;
    double cos_sy = cos(sy), tan_sx = tan(sx);
    double rot_minus_sy = rot - sy, cx_plus_tx = cx + tx, cy_plus_ty = cy + ty;
    double a = cos(rot_minus_sy) / cos_sy;
    double b = -(a * tan_sx + sin(rot));
    double c = sin(rot_minus_sy) / cos_sy;
    double d = cos(rot) - c * tan_sx;
    m[0] = d, m[1] = -b, m[2] = 0.0, m[3] = -c, m[4] = a, m[5] = 0.0;
    m[2] += cx - m[0] * cx_plus_tx - m[1] * cy_plus_ty;
    m[5] += cy - m[3] * cx_plus_tx - m[4] * cy_plus_ty;
}

/* One output row of the grid sampler. The grid point of output (x, y) is
 * the float32 theta, divided by (w / 2, h / 2), applied to the centred
 * (x, y) as _affine_grid's bmm (x * a + y * b, then + c: the rounding MKL's
 * sgemm gives), unnormalised as grid_sample's vector kernel ((g + 1) *
 * (size / 2) - 0.5, fused). Nearest rounds half to even; bilinear sums the
 * four neighbours' value * weight in ATen's order, each fused onto the sum,
 * and the fill goes in through the mask channel torchvision appends (the
 * same sum over ones): (v - fill) * mask + fill, then rounded half to even. */
static void affine_row(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, uint32_t y,
                       const float R[6], uint32_t interp, const uint8_t fill[3])
{
    const float hw = (float)w * 0.5f, hh = (float)h * 0.5f;
    const float by = (float)y - (float)(((double)h - 1.0) * 0.5);
    const float yx = by * R[1], yy = by * R[4];
    const size_t stride = (size_t)w * 3;
    for (uint32_t x = 0; x < w; x++, out += 3) {
        float bx = (float)x - (float)(((double)w - 1.0) * 0.5);
        float gx = (bx * R[0] + yx) + R[2];
        float gy = (bx * R[3] + yy) + R[5];
        float ix = feed__fma_f(gx + 1.0f, hw, -0.5f);
        float iy = feed__fma_f(gy + 1.0f, hh, -0.5f);
        if (interp == FEED_INTERP_NEAREST) {
            float rx = feed__round_even(ix), ry = feed__round_even(iy);
            if (rx >= 0 && rx <= (float)(w - 1) && ry >= 0 && ry <= (float)(h - 1))
                memcpy(out, in + (size_t)(int32_t)ry * stride + (size_t)(int32_t)rx * 3, 3);
            else
                memcpy(out, fill, 3);
            continue;
        }
        if (!(fabsf(ix) < 0x1p30f && fabsf(iy) < 0x1p30f)) {
            memcpy(out, fill, 3); /* far outside: no neighbour in, mask 0 */
            continue;
        }
        float x0 = floor_f(ix), y0 = floor_f(iy);
        float we = ix - x0, ea = 1.0f - we, no = iy - y0, so = 1.0f - no;
        float wt[4] = {so * ea, so * we, no * ea, no * we}; /* nw, ne, sw, se */
        /* the four neighbours' (mask, r, g, b), 0 outside: four chains
         * side by side, so that their roundings overlap */
        float val[4][4];
        int64_t xi = (int64_t)x0, yi = (int64_t)y0;
        for (int k = 0; k < 4; k++) {
            int64_t cx = xi + (k & 1), cy = yi + (k >> 1);
            if (cx >= 0 && cx < (int64_t)w && cy >= 0 && cy < (int64_t)h) {
                const uint8_t *p = in + (size_t)cy * stride + (size_t)cx * 3;
                val[k][0] = 1.0f, val[k][1] = p[0], val[k][2] = p[1], val[k][3] = p[2];
            } else {
                val[k][0] = val[k][1] = val[k][2] = val[k][3] = 0.0f;
            }
        }
        float acc[4];
        for (int c = 0; c < 4; c++)
            acc[c] = val[0][c] * wt[0];
        for (int k = 1; k < 4; k++)
            for (int c = 0; c < 4; c++)
                acc[c] = feed__fma_f(val[k][c], wt[k], acc[c]);
        for (int c = 0; c < 3; c++) {
            float f = fill[c];
            out[c] = (uint8_t)feed__round_even((acc[c + 1] - f) * acc[0] + f);
        }
    }
}

int feed__aug_pixelwise = 0;

/* Output pixels per pass of the row-at-a-time nearest path: its buffers
 * live on the stack (the ops allocate nothing). */
#define NEAREST_CHUNK 256
/* The widest image whose source columns are kept for the whole call. */
#define NEAREST_COLS 4096

/* One axis of the nearest sampler for outputs x0 .. x0 + n - 1 of a row
 * whose centred y-term is t (affine_row's yx or yy): with a, c the
 * matrix's (R[0], R[2]) or (R[3], R[5]), half = size / 2, the rounded
 * source coordinate, or -1 outside 0 .. size - 1. The same float32
 * operations as affine_row, in a loop without branches. The bound test
 * reads the rounding (v + 1.5 * 2^23) - 1.5 * 2^23 even for |v| >= 2^22,
 * where it is not nearbyintf's: it is then >= 2^22 in magnitude, or NaN,
 * outside an image whose sides are below 2^22 as nearbyintf's would be. */
static FEED__AUG_INLINE void nearest_axis(uint32_t w, uint32_t x0, uint32_t n, float a, float t, float c,
                                          uint32_t size, float *out)
{
    const float cx = (float)(((double)w - 1.0) * 0.5), half = (float)size * 0.5f;
    const float max = (float)(size - 1);
    const int32_t ix0 = (int32_t)x0;
    for (int32_t i = 0; i < (int32_t)n; i++) {
        float bx = (float)(ix0 + i) - cx;
        float g = (bx * a + t) + c;
        float v = feed__fma_f(g + 1.0f, half, -0.5f);
        float r = (v + 0x1.8p23f) - 0x1.8p23f;
        out[i] = ((r >= 0) & (r <= max)) ? r : -1.0f;
    }
}

/* Source pixel indices from the coordinates (ry NULL: every pixel's row
 * is ry0), or -1 for the fill; exact in float32 for w * h <= 2^24. The
 * float is picked before the conversion, which may then run on every lane. */
static FEED__AUG_INLINE void nearest_index(const float *rx, const float *ry, float ry0, uint32_t w, uint32_t n,
                                           int32_t *idx)
{
    const float fw = (float)w;
    if (ry) {
        for (uint32_t i = 0; i < n; i++)
            idx[i] = (int32_t)(((rx[i] >= 0) & (ry[i] >= 0)) ? ry[i] * fw + rx[i] : -1.0f);
        return;
    }
    const float row = ry0 * fw;
    for (uint32_t i = 0; i < n; i++)
        idx[i] = (int32_t)(((rx[i] >= 0) & (ry0 >= 0)) ? row + rx[i] : -1.0f);
}

/* nearest_axis for both axes and nearest_index in one loop: a row of a
 * rotation, where neither axis is fixed. */
static FEED__AUG_INLINE void nearest_both(uint32_t w, uint32_t h, uint32_t x0, uint32_t n, const float R[6], float yx,
                                          float yy, int32_t *idx)
{
    const float cx = (float)(((double)w - 1.0) * 0.5), hw = (float)w * 0.5f, hh = (float)h * 0.5f;
    const float xmax = (float)(w - 1), ymax = (float)(h - 1), fw = (float)w;
    const int32_t ix0 = (int32_t)x0;
    for (int32_t i = 0; i < (int32_t)n; i++) {
        float bx = (float)(ix0 + i) - cx;
        float gx = (bx * R[0] + yx) + R[2];
        float gy = (bx * R[3] + yy) + R[5];
        float vx = feed__fma_f(gx + 1.0f, hw, -0.5f);
        float vy = feed__fma_f(gy + 1.0f, hh, -0.5f);
        float rx = (vx + 0x1.8p23f) - 0x1.8p23f, ry = (vy + 0x1.8p23f) - 0x1.8p23f;
        int in = (rx >= 0) & (rx <= xmax) & (ry >= 0) & (ry <= ymax);
        idx[i] = (int32_t)((in ? ry : 0.0f) * fw + (in ? rx : -1.0f));
    }
}

/* The pixels idx names (npx in the source) to out, n of them, pixel by
 * pixel. A copy of 4 bytes is cheaper than one of 3: each pixel but the
 * last takes the following source byte along and the next pixel
 * overwrites it, except the source's last pixel, which has none. */
static void gather_pixels(const uint8_t *in, uint32_t npx, uint8_t *out, const int32_t *idx, uint32_t n,
                          const uint8_t fill[3])
{
    for (uint32_t i = 0; i < n; i++, out += 3) {
        if (i + 1 < n && (uint32_t)idx[i] < npx - 1) {
            uint32_t v;
            memcpy(&v, in + (size_t)idx[i] * 3, 4);
            memcpy(out, &v, 4);
        } else {
            memcpy(out, idx[i] >= 0 ? in + (size_t)idx[i] * 3 : fill, 3);
        }
    }
}

/* The same by runs: consecutive sources in one copy, and the fill. */
static void gather_runs(const uint8_t *in, uint8_t *out, const int32_t *idx, uint32_t n, const uint8_t fill[3])
{
    for (uint32_t i = 0, j; i < n; i = j) {
        int32_t s = idx[i];
        if (s < 0) {
            for (j = i; j < n && idx[j] < 0; j++)
                memcpy(out + (size_t)j * 3, fill, 3);
            continue;
        }
        for (j = i + 1; j < n && idx[j] == s + (int32_t)(j - i); j++)
            ;
        memcpy(out + (size_t)i * 3, in + (size_t)s * 3, (size_t)(j - i) * 3);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/* gather_pixels 16 pixels at a time with AVX-512 (level 2): a masked
 * gather of 4 bytes per pixel (the fill where idx is -1), the 16 pixels'
 * first 3 bytes packed by vpermb into 48 and stored under a mask. A block
 * that reads the source's last pixel (no byte after it) is left to
 * gather_pixels. Returns the pixels done, a prefix of the n. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static uint32_t
gather_avx512(const uint8_t *in, uint32_t npx, uint8_t *out, const int32_t *idx, uint32_t n, const uint8_t fill[3])
{
    uint8_t pick[64];
    for (int j = 0; j < 64; j++)
        pick[j] = (uint8_t)(j < 48 ? j / 3 * 4 + j % 3 : 0);
    const __m512i perm = _mm512_loadu_si512(pick), three = _mm512_set1_epi32(3);
    const __m512i last = _mm512_set1_epi32((int32_t)(npx - 1));
    const __m512i f = _mm512_set1_epi32((int32_t)(fill[0] | (uint32_t)fill[1] << 8 | (uint32_t)fill[2] << 16));
    uint32_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i id = _mm512_loadu_si512(idx + i);
        if (_mm512_cmpeq_epi32_mask(id, last))
            break;
        __mmask16 inside = _mm512_cmplt_epu32_mask(id, last); /* -1 is the greatest unsigned */
        __m512i v = _mm512_mask_i32gather_epi32(f, inside, _mm512_mullo_epi32(id, three), in, 1);
        _mm512_mask_storeu_epi8(out + (size_t)i * 3, ((__mmask64)1 << 48) - 1, _mm512_permutexvar_epi8(perm, v));
    }
    return i;
}
#endif

/* Runs when most neighbours are consecutive (a translation, a shear along
 * x), else pixel by pixel. */
static void gather(const uint8_t *in, uint32_t npx, uint8_t *out, const int32_t *idx, uint32_t n,
                   const uint8_t fill[3])
{
    uint32_t next = 0;
    for (uint32_t i = 0; i + 1 < n; i++)
        next += idx[i + 1] == idx[i] + 1;
    if (next >= n - n / 8) {
        gather_runs(in, out, idx, n, fill);
        return;
    }
    uint32_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (feed__aug_level() >= 2)
        done = gather_avx512(in, npx, out, idx, n, fill);
#endif
    gather_pixels(in, npx, out + (size_t)done * 3, idx + done, n - done, fill);
}

/* Segments of a translation's source columns kept on the stack; more
 * (not a translation's 3 at most) take the general path. */
#define TRANSLATE_SEGMENTS 8

static void fill_pixels(uint8_t *out, uint32_t n, const uint8_t fill[3])
{
    for (uint32_t i = 0; i < n; i++)
        memcpy(out + (size_t)i * 3, fill, 3);
}

/* A translation (both axes fixed): the source columns cols (-1 outside) as
 * runs of consecutive sources and of fill, each row one copy per run, or
 * the fill where its source row lies outside. 0 if cols has too many runs. */
static int translate_rows(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, const float R[6],
                          const uint8_t fill[3], const float *cols)
{
    uint32_t start[TRANSLATE_SEGMENTS], len[TRANSLATE_SEGMENTS], nseg = 0;
    int32_t src[TRANSLATE_SEGMENTS];
    for (uint32_t x = 0; x < w;) {
        int32_t s = (int32_t)cols[x];
        uint32_t e = x + 1;
        while (e < w && (s < 0 ? cols[e] < 0 : (int32_t)cols[e] == s + (int32_t)(e - x)))
            e++;
        if (nseg == TRANSLATE_SEGMENTS)
            return 0;
        start[nseg] = x, len[nseg] = e - x, src[nseg++] = s;
        x = e;
    }
    for (uint32_t y = 0; y < h; y++) {
        const float by = (float)y - (float)(((double)h - 1.0) * 0.5);
        float ry = 0;
        nearest_axis(w, 0, 1, R[3], by * R[4], R[5], h, &ry);
        uint8_t *row = out + (size_t)y * w * 3;
        if (ry < 0) {
            fill_pixels(row, w, fill);
            continue;
        }
        const uint8_t *srow = in + (size_t)ry * w * 3;
        for (uint32_t k = 0; k < nseg; k++) {
            if (src[k] < 0)
                fill_pixels(row + (size_t)start[k] * 3, len[k], fill);
            else
                memcpy(row + (size_t)start[k] * 3, srow + (size_t)src[k] * 3, (size_t)len[k] * 3);
        }
    }
    return 1;
}

/* affine_row's nearest sampling a chunk of a row at a time. Where R[1] is
 * 0 (no shear along x, no rotation), x * R[0] + y * R[1] is x * R[0] + 0
 * for every row, so the source columns are computed once; where R[3] is
 * 0, the source row is one per row. Both: a translation. */
static FEED__AUG_INLINE void affine_nearest_c(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h,
                                              const float R[6], const uint8_t fill[3])
{
    float cols[NEAREST_COLS], rx[NEAREST_CHUNK], ry[NEAREST_CHUNK];
    int32_t idx[NEAREST_CHUNK];
    const int fixed_cols = R[1] == 0 && w <= NEAREST_COLS, fixed_row = R[3] == 0;
    if (fixed_cols)
        nearest_axis(w, 0, w, R[0], 0.0f, R[2], w, cols);
    if (fixed_cols && fixed_row && translate_rows(in, out, w, h, R, fill, cols))
        return;
    for (uint32_t y = 0; y < h; y++) {
        const float by = (float)y - (float)(((double)h - 1.0) * 0.5);
        const float yx = by * R[1], yy = by * R[4];
        float ry0 = 0;
        if (fixed_row)
            nearest_axis(w, 0, 1, R[3], yy, R[5], h, &ry0);
        for (uint32_t x0 = 0; x0 < w; x0 += NEAREST_CHUNK) {
            uint32_t n = w - x0 < NEAREST_CHUNK ? w - x0 : NEAREST_CHUNK;
            const float *cx = cols + x0;
            if (!fixed_cols && !fixed_row) {
                nearest_both(w, h, x0, n, R, yx, yy, idx);
            } else {
                if (!fixed_cols)
                    nearest_axis(w, x0, n, R[0], yx, R[2], w, rx), cx = rx;
                if (!fixed_row)
                    nearest_axis(w, x0, n, R[3], yy, R[5], h, ry);
                nearest_index(cx, fixed_row ? NULL : ry, ry0, w, n, idx);
            }
            gather(in, w * h, out + ((size_t)y * w + x0) * 3, idx, n, fill);
        }
    }
}

FEED__AUG_LEVELS(affine_nearest, 2,
                 (const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, const float R[6], const uint8_t fill[3]),
                 (in, out, w, h, R, fill))

void feed__aug_affine(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, const double m[6],
                      uint32_t interp, const uint8_t fill[3])
{
    float R[6];
    const float sw = (float)(0.5 * w), sh = (float)(0.5 * h);
    for (int k = 0; k < 3; k++) {
        R[k] = (float)m[k] / sw;
        R[3 + k] = (float)m[3 + k] / sh;
    }
    /* nearest_axis's and nearest_index's bounds */
    if (interp == FEED_INTERP_NEAREST && !feed__aug_pixelwise && w < (1u << 22) && h < (1u << 22) &&
        (uint64_t)w * h <= (1u << 24)) {
        affine_nearest(in, out, w, h, R, fill);
        return;
    }
    if (interp == FEED_INTERP_BILINEAR && !feed__aug_pixelwise && w < (1u << 22) && h < (1u << 22)) {
        feed__aug_affine_bilinear(in, out, w, h, R, fill);
        return;
    }
    for (uint32_t y = 0; y < h; y++)
        affine_row(in, out + (size_t)y * w * 3, w, h, y, R, interp, fill);
}

/* torch.rot90 of the HWC image by k quarter turns counter-clockwise (k = 2
 * any shape; k = 1, 3 square only), from in to out */
static void rot90(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, int k)
{
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t sx = x, sy = y;
            if (k == 1)
                sx = w - 1 - y, sy = x;
            else if (k == 2)
                sx = w - 1 - x, sy = h - 1 - y;
            else
                sx = y, sy = h - 1 - x;
            memcpy(out + ((size_t)y * w + x) * 3, in + ((size_t)sy * w + sx) * 3, 3);
        }
}

/* rotate_image(expand=False, center=None): the angle mod 360 as Python's %,
 * the exact fast paths torchvision takes (0, 180, and 90 / 270 on a square),
 * else the grid with the matrix of -angle */
void feed__aug_rotate(double angle, uint8_t *img, uint32_t w, uint32_t h, uint32_t interp, const uint8_t fill[3],
                      uint8_t *scratch)
{
    angle = fmod(angle, 360.0);
    if (angle < 0)
        angle += 360.0;
    if (angle == 0)
        return;
    size_t n = (size_t)w * h * 3;
    memcpy(scratch, img, n);
    if (angle == 180 || (w == h && (angle == 90 || angle == 270))) {
        rot90(scratch, img, w, h, angle == 90 ? 1 : angle == 180 ? 2 : 3);
        return;
    }
    double m[6];
    feed__aug_inverse_matrix(0, 0, -angle, 0, 0, 0, 0, m);
    feed__aug_affine(scratch, img, w, h, m, interp, fill);
}

/* affine_image with angle 0 and scale 1: a shear about the corner
 * (torchvision turns the factor into degrees(atan(s)) and back) */
void feed__aug_shear(int vertical, double s, uint8_t *img, uint32_t w, uint32_t h, uint32_t interp,
                     const uint8_t fill[3], uint8_t *scratch)
{
    double m[6];
    const double rad2deg = 180.0 / M_PI; /* Python's math.degrees */
    double shear = atan(s) * rad2deg;
    feed__aug_inverse_matrix(0 - w * 0.5, 0 - h * 0.5, 0, 0, 0, vertical ? 0 : shear, vertical ? shear : 0, m);
    memcpy(scratch, img, (size_t)w * h * 3);
    feed__aug_affine(scratch, img, w, h, m, interp, fill);
}

/* affine_image with angle 0 and scale 1: a translation about the centre */
void feed__aug_translate(double dx, double dy, uint8_t *img, uint32_t w, uint32_t h, uint32_t interp,
                         const uint8_t fill[3], uint8_t *scratch)
{
    double m[6];
    feed__aug_inverse_matrix(0, 0, 0, dx, dy, 0, 0, m);
    memcpy(scratch, img, (size_t)w * h * 3);
    feed__aug_affine(scratch, img, w, h, m, interp, fill);
}
