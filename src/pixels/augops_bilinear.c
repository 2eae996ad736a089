/*
 * augops_bilinear.c - the bilinear grid sampler of augops_geom.c
 * (affine_row's bilinear branch) a chunk of a row at a time: the same
 * float32 operations per pixel, in three passes so that two of them
 * vectorise (elementwise float operations round alike in any vector
 * width):
 * - the grid point, its floor and the four weights, per pixel;
 * - the 2 x 2 neighbours' bytes, scalar: two 6-byte loads where all four
 *   lie inside, else byte by byte with a mask of those inside;
 * - the four chains of products onto the sum (mask, r, g, b) and the fill.
 */
#include "pixels/augops_geom.h"

#include <string.h>

/* Output pixels per chunk: the passes' buffers live on the stack. */
#define BILINEAR_CHUNK 128

typedef struct bilinear_chunk {
    float wt[4][BILINEAR_CHUNK]; /* nw, ne, sw, se */
    int32_t xi[BILINEAR_CHUNK], yi[BILINEAR_CHUNK];
    uint64_t top[BILINEAR_CHUNK], bottom[BILINEAR_CHUNK]; /* (x0, y0) (x0 + 1, y0); the same at y0 + 1 */
    uint8_t inside[BILINEAR_CHUNK];                        /* bit k: neighbour k inside */
} bilinear_chunk;

/* Pass 1. A point at 2^30 or beyond (or NaN) has no neighbour inside and
 * is the fill; it is moved to -2, whose neighbours all lie outside, so
 * that pass 3 gives the fill: (0 - f) * 0 + f. floorf (affine_row's
 * floor_f without the call, the same value below 2^30) vectorises with
 * AVX2's rounding instruction. */
static FEED__AUG_INLINE void bilinear_points(uint32_t w, uint32_t h, uint32_t y, uint32_t x0, uint32_t n,
                                             const float R[6], bilinear_chunk *restrict b)
{
    const float hw = (float)w * 0.5f, hh = (float)h * 0.5f;
    const float by = (float)y - (float)(((double)h - 1.0) * 0.5);
    const float yx = by * R[1], yy = by * R[4];
    const float cx = (float)(((double)w - 1.0) * 0.5);
    const int32_t ix0 = (int32_t)x0;
    for (int32_t i = 0; i < (int32_t)n; i++) {
        float bx = (float)(ix0 + i) - cx;
        float gx = (bx * R[0] + yx) + R[2];
        float gy = (bx * R[3] + yy) + R[5];
        float ix = feed__fma_f(gx + 1.0f, hw, -0.5f);
        float iy = feed__fma_f(gy + 1.0f, hh, -0.5f);
        int far = !((fabsf(ix) < 0x1p30f) & (fabsf(iy) < 0x1p30f));
        ix = far ? -2.0f : ix;
        iy = far ? -2.0f : iy;
        float fx = floorf(ix), fy = floorf(iy);
        float we = ix - fx, ea = 1.0f - we, no = iy - fy, so = 1.0f - no;
        b->wt[0][i] = so * ea, b->wt[1][i] = so * we, b->wt[2][i] = no * ea, b->wt[3][i] = no * we;
        b->xi[i] = (int32_t)fx, b->yi[i] = (int32_t)fy;
    }
}

/* The 6 bytes at p, byte j in bits 8j. In registers: 6 bytes copied into
 * a zeroed uint64 in memory would be read back before the stores could be
 * forwarded to the load. */
static inline uint64_t load6(const uint8_t *p)
{
    uint32_t lo;
    uint16_t hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + 4, 2);
    return (uint64_t)lo | (uint64_t)hi << 32; /* little-endian (x86-64, the targets) */
}

/* Pass 2. */
static void bilinear_gather(const uint8_t *in, uint32_t w, uint32_t h, uint32_t n, bilinear_chunk *b)
{
    const size_t stride = (size_t)w * 3;
    for (uint32_t i = 0; i < n; i++) {
        int32_t x = b->xi[i], y = b->yi[i];
        uint64_t t = 0, u = 0;
        if ((uint32_t)x < w - 1 && (uint32_t)y < h - 1) {
            const uint8_t *p = in + (size_t)y * stride + (size_t)x * 3;
            t = load6(p), u = load6(p + stride);
            b->inside[i] = 15;
        } else {
            uint8_t px[2][8] = {{0}}, mask = 0;
            for (int k = 0; k < 4; k++) {
                int64_t cx = (int64_t)x + (k & 1), cy = (int64_t)y + (k >> 1);
                if (cx >= 0 && cx < (int64_t)w && cy >= 0 && cy < (int64_t)h) {
                    memcpy(px[k >> 1] + (k & 1) * 3, in + (size_t)cy * stride + (size_t)cx * 3, 3);
                    mask |= (uint8_t)(1 << k);
                }
            }
            memcpy(&t, px[0], 8), memcpy(&u, px[1], 8);
            b->inside[i] = mask;
        }
        b->top[i] = t, b->bottom[i] = u;
    }
}

/* Pass 3: affine_row's sums, neighbour by neighbour in ATen's order. */
static FEED__AUG_INLINE void bilinear_blend(uint32_t n, const bilinear_chunk *restrict b, const uint8_t fill[3],
                                             uint8_t *restrict out)
{
    const float f0 = fill[0], f1 = fill[1], f2 = fill[2];
    for (uint32_t i = 0; i < n; i++) {
        float acc[4];
        for (int k = 0; k < 4; k++) {
            uint64_t row = k >> 1 ? b->bottom[i] : b->top[i];
            int sh = (k & 1) * 24;
            uint32_t px = (uint32_t)(row >> sh); /* an int32 converts to float in a vector */
            float v[4] = {(float)(int32_t)((b->inside[i] >> k) & 1), (float)(int32_t)(px & 255),
                          (float)(int32_t)((px >> 8) & 255), (float)(int32_t)((px >> 16) & 255)};
            for (int c = 0; c < 4; c++)
                acc[c] = k ? feed__fma_f(v[c], b->wt[k][i], acc[c]) : v[c] * b->wt[0][i];
        }
        /* round half to even by 1.5 * 2^23: the results lie in 0 .. 255 */
        float r0 = ((acc[1] - f0) * acc[0] + f0 + 0x1.8p23f) - 0x1.8p23f;
        float r1 = ((acc[2] - f1) * acc[0] + f1 + 0x1.8p23f) - 0x1.8p23f;
        float r2 = ((acc[3] - f2) * acc[0] + f2 + 0x1.8p23f) - 0x1.8p23f;
        out[i * 3] = (uint8_t)(int32_t)r0;
        out[i * 3 + 1] = (uint8_t)(int32_t)r1;
        out[i * 3 + 2] = (uint8_t)(int32_t)r2;
    }
}

static FEED__AUG_INLINE void affine_bilinear_c(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h,
                                               const float R[6], const uint8_t fill[3])
{
    bilinear_chunk b;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x0 = 0; x0 < w; x0 += BILINEAR_CHUNK) {
            uint32_t n = w - x0 < BILINEAR_CHUNK ? w - x0 : BILINEAR_CHUNK;
            bilinear_points(w, h, y, x0, n, R, &b);
            bilinear_gather(in, w, h, n, &b);
            bilinear_blend(n, &b, fill, out + ((size_t)y * w + x0) * 3);
        }
}

FEED__AUG_LEVELS(affine_bilinear, 2,
                 (const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, const float R[6], const uint8_t fill[3]),
                 (in, out, w, h, R, fill))

void feed__aug_affine_bilinear(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, const float R[6],
                               const uint8_t fill[3])
{
    affine_bilinear(in, out, w, h, R, fill);
}
