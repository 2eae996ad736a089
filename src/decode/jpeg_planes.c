/*
 * jpeg_planes.c - a region decode that keeps the component planes as the
 * file stores them: no chroma upsampling and no colour conversion of pixels
 * that the resize then drops (a 4:2:0 crop of 340 x 340 goes out as 224 x 224).
 * The resize runs on each plane, and only its output is turned into RGB
 * (pixels/pipeline.c, pixels/ycc.c).
 *
 * Why not jpeg_read_raw_data(): libjpeg-turbo 2.1 refuses jpeg_crop_scanline()
 * and jpeg_skip_scanlines() in raw mode, so every column and every row above
 * the crop would be inverse-transformed. Instead the decode runs in scanline
 * mode with the region's crop and skip, with the output colour space the
 * file's own (no conversion) and plain upsampling (no context rows), and the
 * post-processing step that would upsample and convert is replaced by
 * feed__jpeg_capture(), which copies each component's rows of the kept
 * output rows. That step's interface (jpeg_d_post_controller in jpegint.h)
 * keeps start_pass and post_process_data where libjpeg 6b had them
 * (libjpeg-turbo 3.0 appended the 12- and 16-bit variants after them);
 * libjpeg-turbo's skip logic only moves the counters the capture reads (the
 * output row and the row group).
 *
 * Which component row belongs to output row y: with Vmax the largest
 * vertical sampling factor and M the smallest DCT scaled size, an iMCU row
 * is Vmax * M output rows in M row groups of Vmax rows; a component with
 * factor v and DCT size D has v * D / M rows a row group, so its row of
 * output row y is floor(y * v * D / (Vmax * M)), and likewise across.
 */
#include "decode/jpeg_planes.h"

#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jpegint.h>

#include "common/pixel.h"
#include "feed.h"

#if JPEG_LIB_VERSION >= 70
#define FEED_DCT_SIZE(c) ((uint32_t)(c)->DCT_h_scaled_size)
#define FEED_MIN_DCT(ci) ((uint32_t)(ci)->min_DCT_h_scaled_size)
#else
#define FEED_DCT_SIZE(c) ((uint32_t)(c)->DCT_scaled_size)
#define FEED_MIN_DCT(ci) ((uint32_t)(ci)->min_DCT_scaled_size)
#endif

/* Rows are FEED_PLANE_PAD-byte multiples apart, zero past their samples,
 * and the planes are followed by FEED_PLANE_PAD zero bytes: the resize may
 * read a row's samples in whole 64-byte blocks (feed__resize_plane). */
#define FEED_PLANE_PAD 64u

/* Rows kept above and below the region (times Vmax: one chroma row of
 * 4:2:0), for the chroma rows that the resize's taps reach past the luma
 * ones (less than one; the columns: jpeg.c). */
#define FEED_PLANE_MARGIN_GROUPS 1u

int feed__jpeg_planes_ok(j_decompress_ptr ci)
{
    int ycc = ci->jpeg_color_space == JCS_YCbCr && ci->num_components == 3;
    int grey = ci->jpeg_color_space == JCS_GRAYSCALE && ci->num_components == 1;
    if (!ycc && !grey)
        return 0;
    uint32_t m = FEED_MIN_DCT(ci);
    const jpeg_component_info *y = &ci->comp_info[0];
    if (m == 0 || FEED_DCT_SIZE(y) != m || y->h_samp_factor != ci->max_h_samp_factor ||
        y->v_samp_factor != ci->max_v_samp_factor)
        return 0;
    for (int c = 0; c < ci->num_components; c++) {
        const jpeg_component_info *cp = &ci->comp_info[c];
        uint32_t d = FEED_DCT_SIZE(cp);
        if (d == 0 || d % m != 0)
            return 0;
    }
    ci->out_color_space = ci->jpeg_color_space;
    ci->do_fancy_upsampling = FALSE;
    return 1;
}

/* The post-processing step (libjpeg's post_process_data): "emits" the output
 * rows of the current row group, copying the component rows of those in
 * [y0, y1) that were not copied yet. Stateless but for cap->next: the row
 * is output_scanline + *out_row_ctr, its place in the group y % Vmax. */
static void feed__jpeg_capture(j_decompress_ptr ci, JSAMPIMAGE in, JDIMENSION *group,
                               JDIMENSION groups, JSAMPARRAY out, JDIMENSION *out_ctr,
                               JDIMENSION out_avail)
{
    (void)out;
    feed__jpeg_cap *cap = ci->client_data;
    uint32_t maxv = cap->maxv;
    while (*group < groups && *out_ctr < out_avail) {
        uint32_t y = (uint32_t)(ci->output_scanline + *out_ctr);
        if (y >= ci->output_height)
            return;
        uint32_t k = y % maxv, n = maxv - k;
        if (n > out_avail - *out_ctr)
            n = out_avail - *out_ctr;
        if (n > ci->output_height - y)
            n = ci->output_height - y;
        for (uint32_t r = 0; r < n; r++) {
            uint32_t yy = y + r;
            if (yy < cap->y0 || yy >= cap->y1)
                continue;
            for (uint32_t c = 0; c < cap->n; c++) {
                const feed__decode_plane *p = &cap->plane[c];
                uint32_t row = (uint32_t)((uint64_t)yy * p->num_y / p->den_y);
                if (row != cap->next[c] || row - p->y0 >= p->h)
                    continue;
                uint32_t local = *group * cap->rgh[c] + (k + r) * cap->rgh[c] / maxv;
                uint8_t *d = cap->dst[c] + (size_t)(row - p->y0) * cap->stride[c];
                memcpy(d, in[c][local], cap->bytes[c]);
                memset(d + cap->bytes[c], 0, cap->stride[c] - cap->bytes[c]);
                cap->next[c]++;
            }
        }
        *out_ctr += n;
        if (k + n == maxv)
            (*group)++;
    }
}

int feed__jpeg_planes_begin(j_decompress_ptr ci, feed__jpeg_cap *cap, uint32_t xoff, uint32_t cw,
                            uint32_t y0, uint32_t y1, uint8_t **buf, size_t *bufcap,
                            uint32_t *ry0, uint32_t *ry1)
{
    memset(cap, 0, sizeof *cap);
    uint32_t m = FEED_MIN_DCT(ci), H = (uint32_t)ci->output_height;
    uint32_t maxh = (uint32_t)ci->max_h_samp_factor, maxv = (uint32_t)ci->max_v_samp_factor;
    uint32_t margin = FEED_PLANE_MARGIN_GROUPS * maxv;
    cap->y0 = y0 > margin ? y0 - margin : 0;
    cap->y1 = H - y1 > margin ? y1 + margin : H;
    cap->n = (uint32_t)ci->num_components;
    cap->maxv = maxv;
    size_t need = 0;
    for (uint32_t c = 0; c < cap->n; c++) {
        const jpeg_component_info *cp = &ci->comp_info[c];
        uint32_t d = FEED_DCT_SIZE(cp);
        uint32_t hs = (uint32_t)cp->h_samp_factor, vs = (uint32_t)cp->v_samp_factor;
        feed__decode_plane *p = &cap->plane[c];
        p->num_x = hs * d;
        p->den_x = maxh * m;
        p->num_y = vs * d;
        p->den_y = maxv * m;
        cap->rgh[c] = vs * d / m;
        p->x0 = (uint32_t)((uint64_t)xoff * p->num_x / p->den_x);
        uint32_t x1 = (uint32_t)(((uint64_t)(xoff + cw) * p->num_x + p->den_x - 1) / p->den_x);
        p->w = x1 - p->x0;
        p->y0 = (uint32_t)((uint64_t)cap->y0 * p->num_y / p->den_y);
        p->h = (uint32_t)((uint64_t)(cap->y1 - 1) * p->num_y / p->den_y) + 1 - p->y0;
        cap->next[c] = p->y0;
        cap->bytes[c] = p->w;
        cap->stride[c] = ((size_t)p->w + FEED_PLANE_PAD - 1) & ~(size_t)(FEED_PLANE_PAD - 1);
        need += cap->stride[c] * p->h;
    }
    if (feed__grow((void **)buf, bufcap, need + FEED_PLANE_PAD))
        return FEED_E_NOMEM;
    memset(*buf + need, 0, FEED_PLANE_PAD);
    uint8_t *at = *buf;
    for (uint32_t c = 0; c < cap->n; c++) {
        cap->dst[c] = at;
        cap->plane[c].pixels = at;
        cap->plane[c].stride = cap->stride[c];
        at += cap->stride[c] * cap->plane[c].h;
    }
    ci->client_data = cap;
    ci->post->post_process_data = feed__jpeg_capture;
    *ry0 = cap->y0;
    *ry1 = cap->y1;
    return 0;
}

int feed__jpeg_planes_end(const feed__jpeg_cap *cap, feed__decode_image *img)
{
    for (uint32_t c = 0; c < cap->n; c++) {
        if (cap->next[c] != cap->plane[c].y0 + cap->plane[c].h)
            return FEED_E_INTERNAL;
        img->plane[c] = cap->plane[c];
    }
    img->nplanes = cap->n;
    return 0;
}
