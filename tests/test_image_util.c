/*
 * test_image_util.c - fixtures and float64 references for the image tests.
 */
#include "test_image_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <turbojpeg.h>

#include "common/rng.h"
#include "pixels/geometry.h"

static uint32_t ti_lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

uint8_t *ti_pixels(uint32_t w, uint32_t h, uint32_t seed)
{
    uint8_t *p = malloc((size_t)w * h * 3);
    uint32_t s = seed * 2654435761u + 1;
    double cx = w * (0.3 + 0.4 * (seed % 7) / 7.0), cy = h * 0.45;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *q = p + ((size_t)y * w + x) * 3;
            double r = hypot(x - cx, y - cy);
            int ring = ((int)(r / 9.0)) & 1;
            int check = (((x + seed) / 13) ^ (y / 11)) & 1;
            int n = (int)(ti_lcg(&s) % 24) - 12;
            int v0 = (int)(x * 255.0 / (w > 1 ? w - 1 : 1)) + n;
            int v1 = (int)(y * 255.0 / (h > 1 ? h - 1 : 1)) + (ring ? 40 : -40);
            int v2 = check ? 220 + n : 30 + n;
            q[0] = (uint8_t)(v0 < 0 ? 0 : v0 > 255 ? 255 : v0);
            q[1] = (uint8_t)(v1 < 0 ? 0 : v1 > 255 ? 255 : v1);
            q[2] = (uint8_t)(v2 < 0 ? 0 : v2 > 255 ? 255 : v2);
        }
    }
    return p;
}

uint8_t *ti_jpeg(const uint8_t *rgb, uint32_t w, uint32_t h, int kind, int quality, int flags,
                 size_t *len)
{
    static const int samp[TI_KINDS] = {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_440,
                                       TJSAMP_411, TJSAMP_GRAY, TJSAMP_420};
    tjhandle c = tjInitCompress();
    uint8_t *src = (uint8_t *)rgb, *tmp = NULL;
    int pf = TJPF_RGB;
    size_t n = (size_t)w * h;
    if (kind == TI_GRAY) {
        tmp = malloc(n);
        for (size_t i = 0; i < n; i++)
            tmp[i] = (uint8_t)((rgb[3 * i] * 19595u + rgb[3 * i + 1] * 38470u +
                                rgb[3 * i + 2] * 7471u + 0x8000u) >> 16);
        src = tmp;
        pf = TJPF_GRAY;
    } else if (kind == TI_CMYK) {
        /* inverted (Adobe) CMYK that maps back to rgb with R = C*K/255 */
        tmp = malloc(n * 4);
        for (size_t i = 0; i < n; i++) {
            int r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
            int k = r > g ? (r > b ? r : b) : (g > b ? g : b);
            tmp[4 * i + 0] = (uint8_t)(k ? (r * 255 + k / 2) / k : 0);
            tmp[4 * i + 1] = (uint8_t)(k ? (g * 255 + k / 2) / k : 0);
            tmp[4 * i + 2] = (uint8_t)(k ? (b * 255 + k / 2) / k : 0);
            tmp[4 * i + 3] = (uint8_t)k;
        }
        src = tmp;
        pf = TJPF_CMYK;
    }
    unsigned char *out = NULL;
    unsigned long ol = 0;
    if (tjCompress2(c, src, (int)w, 0, (int)h, pf, &out, &ol, samp[kind], quality, flags) != 0) {
        fprintf(stderr, "tjCompress2: %s\n", tjGetErrorStr2(c));
        abort();
    }
    tjDestroy(c);
    free(tmp);
    uint8_t *r = malloc(ol);
    memcpy(r, out, ol);
    tjFree(out);
    *len = ol;
    return r;
}

uint8_t *ti_jpeg_lib(const uint8_t *rgb, uint32_t w, uint32_t h,
                     void *(*setup)(struct jpeg_compress_struct *, const void *), const void *arg,
                     size_t *len)
{
    struct jpeg_compress_struct ci;
    struct jpeg_error_mgr err;
    ci.err = jpeg_std_error(&err);
    jpeg_create_compress(&ci);
    unsigned char *out = NULL;
    unsigned long ol = 0;
    jpeg_mem_dest(&ci, &out, &ol);
    ci.image_width = w;
    ci.image_height = h;
    ci.input_components = 3;
    ci.in_color_space = JCS_RGB;
    jpeg_set_defaults(&ci);
    jpeg_set_quality(&ci, 90, TRUE);
    void *owned = setup(&ci, arg);
    jpeg_start_compress(&ci, TRUE);
    while (ci.next_scanline < h) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)ci.next_scanline * w * 3);
        jpeg_write_scanlines(&ci, &row, 1);
    }
    jpeg_finish_compress(&ci);
    jpeg_destroy_compress(&ci);
    free(owned);
    uint8_t *r = malloc(ol);
    memcpy(r, out, ol);
    free(out);
    *len = ol;
    return r;
}

typedef struct restart_arg {
    int interval, rows;
} restart_arg;

static void *setup_restart(struct jpeg_compress_struct *ci, const void *arg)
{
    const restart_arg *a = arg;
    if (a->rows)
        ci->restart_in_rows = a->interval;
    else
        ci->restart_interval = (unsigned)a->interval;
    return NULL;
}

uint8_t *ti_jpeg_restart(const uint8_t *rgb, uint32_t w, uint32_t h, int interval,
                         int restart_rows, size_t *len)
{
    restart_arg a = {interval, restart_rows};
    return ti_jpeg_lib(rgb, w, h, setup_restart, &a, len);
}

static void *setup_progressive(struct jpeg_compress_struct *ci, const void *arg)
{
    int bitwise = *(const int *)arg;
    if (!bitwise) {
        jpeg_simple_progression(ci); /* its script lives in libjpeg's pool */
        return NULL;
    }
    enum { AL = 10 }; /* the most 8-bit libjpeg allows */
    int n = 0;
    jpeg_scan_info *scans = calloc((size_t)(AL + 1) * (1 + 3 * 63), sizeof *scans);
    for (int a = AL; a >= 0; a--) /* DC, interleaved */
        scans[n++] = (jpeg_scan_info){3, {0, 1, 2}, 0, 0, a == AL ? 0 : a + 1, a};
    for (int c = 0; c < 3; c++)
        for (int k = 1; k < 64; k++)
            for (int a = AL; a >= 0; a--)
                scans[n++] = (jpeg_scan_info){1, {c}, k, k, a == AL ? 0 : a + 1, a};
    ci->scan_info = scans;
    ci->num_scans = n;
    return scans;
}

uint8_t *ti_jpeg_progressive(const uint8_t *rgb, uint32_t w, uint32_t h, int bitwise, size_t *len)
{
    return ti_jpeg_lib(rgb, w, h, setup_progressive, &bitwise, len);
}

void *ti_deep_scan_script(int ncomp, int dc_apart, int *n_out)
{
    jpeg_scan_info *s = calloc(64, sizeof *s);
    if (!s)
        abort();
    int n = 0;
    for (int a = 2; a >= 0; a--) {
        if (dc_apart && ncomp > 1) {
            for (int c = 0; c < ncomp; c++)
                s[n++] = (jpeg_scan_info){1, {c}, 0, 0, a == 2 ? 0 : a + 1, a};
        } else {
            s[n++] = (jpeg_scan_info){ncomp, {0, 1, 2}, 0, 0, a == 2 ? 0 : a + 1, a};
        }
    }
    for (int c = 0; c < ncomp; c++) {
        s[n++] = (jpeg_scan_info){1, {c}, 1, 2, 0, 3};
        s[n++] = (jpeg_scan_info){1, {c}, 3, 20, 0, 1};
        if (c == 1) {
            s[n++] = (jpeg_scan_info){1, {c}, 3, 20, 1, 0};
            s[n++] = (jpeg_scan_info){1, {c}, 21, 63, 0, 0};
        } else {
            s[n++] = (jpeg_scan_info){1, {c}, 21, 63, 0, 0};
            s[n++] = (jpeg_scan_info){1, {c}, 3, 20, 1, 0};
        }
        for (int a = 2; a >= 0; a--)
            s[n++] = (jpeg_scan_info){1, {c}, 1, 2, a + 1, a};
    }
    *n_out = n;
    return s;
}

typedef struct deep_arg {
    int grey, dc_apart, restart;
} deep_arg;

static void *setup_deep(struct jpeg_compress_struct *ci, const void *arg)
{
    const deep_arg *a = arg;
    if (a->grey)
        jpeg_set_colorspace(ci, JCS_GRAYSCALE);
    ci->restart_interval = (unsigned)a->restart;
    int n;
    jpeg_scan_info *s = ti_deep_scan_script(ci->num_components, a->dc_apart, &n);
    ci->scan_info = s;
    ci->num_scans = n;
    return s;
}

uint8_t *ti_jpeg_progressive_deep(const uint8_t *rgb, uint32_t w, uint32_t h, int grey, int dc_apart,
                                  int restart, size_t *len)
{
    deep_arg a = {grey, dc_apart, restart};
    return ti_jpeg_lib(rgb, w, h, setup_deep, &a, len);
}

static void put16(uint8_t *p, uint32_t v, int big)
{
    if (big) {
        p[0] = (uint8_t)(v >> 8);
        p[1] = (uint8_t)v;
    } else {
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
    }
}

static void put32(uint8_t *p, uint32_t v, int big)
{
    if (big) {
        put16(p, v >> 16, 1);
        put16(p + 2, v & 0xFFFF, 1);
    } else {
        put16(p, v & 0xFFFF, 0);
        put16(p + 2, v >> 16, 0);
    }
}

uint8_t *ti_with_exif(const uint8_t *jpeg, size_t len, uint32_t o, int big, size_t *out_len)
{
    /* APP1: FF E1 len "Exif\0\0" TIFF(8) IFD: count(2) 2 entries(24) next(4) */
    uint8_t seg[2 + 2 + 6 + 8 + 2 + 24 + 4];
    size_t n = sizeof seg;
    memset(seg, 0, n);
    seg[0] = 0xFF;
    seg[1] = 0xE1;
    put16(seg + 2, (uint32_t)(n - 2), 1);
    memcpy(seg + 4, "Exif\0\0", 6);
    uint8_t *t = seg + 10;
    t[0] = t[1] = big ? 'M' : 'I';
    put16(t + 2, 42, big);
    put32(t + 4, 8, big);
    put16(t + 8, 2, big);
    /* an unrelated tag first (ImageWidth, LONG), then Orientation (SHORT) */
    put16(t + 10, 0x0100, big);
    put16(t + 12, 4, big);
    put32(t + 14, 1, big);
    put32(t + 18, 640, big);
    put16(t + 22, 0x0112, big);
    put16(t + 24, 3, big);
    put32(t + 26, 1, big);
    put16(t + 30, o, big);
    put32(t + 34, 0, big);
    uint8_t *r = malloc(len + n);
    memcpy(r, jpeg, 2);
    memcpy(r + 2, seg, n);
    memcpy(r + 2 + n, jpeg + 2, len - 2);
    *out_len = len + n;
    return r;
}

static uint8_t ti_div255(uint32_t v)
{
    v += 128;
    return (uint8_t)((v + (v >> 8)) >> 8);
}

/* 1 if the JPEG has an Adobe APP14 marker before SOS */
static int ti_has_adobe(const uint8_t *d, size_t len)
{
    size_t pos = 2;
    while (pos + 4 <= len && d[pos] == 0xFF) {
        uint8_t m = d[pos + 1];
        if (m == 0xDA)
            break;
        size_t seg = ((size_t)d[pos + 2] << 8) | d[pos + 3];
        if (m == 0xEE && seg >= 7 && pos + 9 <= len && memcmp(d + pos + 4, "Adobe", 5) == 0)
            return 1;
        pos += 2 + seg;
    }
    return 0;
}

uint8_t *ti_decode_ref(const uint8_t *jpeg, size_t len, int m, uint32_t *w, uint32_t *h)
{
    tjhandle d = tjInitDecompress();
    int iw, ih, ss, cs;
    if (tjDecompressHeader3(d, jpeg, len, &iw, &ih, &ss, &cs) != 0) {
        tjDestroy(d);
        return NULL;
    }
    int sw = (iw * m + 7) / 8, sh = (ih * m + 7) / 8;
    int cmyk = cs == TJCS_CMYK || cs == TJCS_YCCK;
    int pf = cmyk ? TJPF_CMYK : TJPF_RGB;
    int bpp = cmyk ? 4 : 3;
    uint8_t *buf = malloc((size_t)sw * sh * bpp);
    if (tjDecompress2(d, jpeg, len, buf, sw, 0, sh, pf, 0) != 0) {
        fprintf(stderr, "tjDecompress2: %s\n", tjGetErrorStr2(d));
        free(buf);
        tjDestroy(d);
        return NULL;
    }
    tjDestroy(d);
    if (cmyk) {
        int inv = ti_has_adobe(jpeg, len);
        uint8_t *rgb = malloc((size_t)sw * sh * 3);
        for (size_t i = 0; i < (size_t)sw * sh; i++) {
            uint32_t c = buf[4 * i], mm = buf[4 * i + 1], y = buf[4 * i + 2], k = buf[4 * i + 3];
            if (!inv) {
                c = 255 - c;
                mm = 255 - mm;
                y = 255 - y;
                k = 255 - k;
            }
            rgb[3 * i] = ti_div255(c * k);
            rgb[3 * i + 1] = ti_div255(mm * k);
            rgb[3 * i + 2] = ti_div255(y * k);
        }
        free(buf);
        buf = rgb;
    }
    *w = (uint32_t)sw;
    *h = (uint32_t)sh;
    return buf;
}

uint8_t *ti_rgbx(const uint8_t *rgb, uint32_t w, uint32_t h)
{
    uint8_t *p = malloc((size_t)w * h * 4);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        p[4 * i] = rgb[3 * i];
        p[4 * i + 1] = rgb[3 * i + 1];
        p[4 * i + 2] = rgb[3 * i + 2];
        p[4 * i + 3] = 255;
    }
    return p;
}

/* weights of one output along one axis, as PIL computes them */
static void ti_weights(uint32_t in, double b0, double b1, uint32_t out, uint32_t i, int *xmin,
                       int *n, double *wt)
{
    double scale = (b1 - b0) / out, fs = scale > 1 ? scale : 1, support = fs;
    double center = b0 + (i + 0.5) * scale;
    int lo = (int)floor(center - support + 0.5), hi = (int)floor(center + support + 0.5);
    if (lo < 0)
        lo = 0;
    if (hi > (int)in)
        hi = (int)in;
    double sum = 0;
    for (int x = lo; x < hi; x++) {
        double t = fabs((x - center + 0.5) / fs);
        wt[x - lo] = t < 1 ? 1 - t : 0;
        sum += wt[x - lo];
    }
    for (int x = lo; x < hi; x++)
        wt[x - lo] /= sum;
    *xmin = lo;
    *n = hi - lo;
}

double *ti_resize_ref(const uint8_t *rgb, uint32_t w, uint32_t h, double bx0, double by0,
                      double bx1, double by1, uint32_t dw, uint32_t dh)
{
    double *tmp = malloc(sizeof(double) * dw * h * 3);
    double *out = malloc(sizeof(double) * dw * dh * 3);
    double *wt = malloc(sizeof(double) * (w > h ? w : h) + 64);
    for (uint32_t x = 0; x < dw; x++) {
        int xmin, n;
        ti_weights(w, bx0, bx1, dw, x, &xmin, &n, wt);
        for (uint32_t y = 0; y < h; y++)
            for (int c = 0; c < 3; c++) {
                double a = 0;
                for (int k = 0; k < n; k++)
                    a += wt[k] * rgb[((size_t)y * w + xmin + k) * 3 + c];
                tmp[((size_t)y * dw + x) * 3 + c] = a;
            }
    }
    for (uint32_t y = 0; y < dh; y++) {
        int ymin, n;
        ti_weights(h, by0, by1, dh, y, &ymin, &n, wt);
        for (uint32_t x = 0; x < dw; x++)
            for (int c = 0; c < 3; c++) {
                double a = 0;
                for (int k = 0; k < n; k++)
                    a += wt[k] * tmp[((size_t)(ymin + k) * dw + x) * 3 + c];
                out[((size_t)y * dw + x) * 3 + c] = a;
            }
    }
    free(tmp);
    free(wt);
    return out;
}

uint8_t *ti_orient_ref(const uint8_t *rgb, uint32_t w, uint32_t h, uint32_t o, uint32_t *dw,
                       uint32_t *dh)
{
    uint32_t W = o >= 5 ? h : w, H = o >= 5 ? w : h;
    uint8_t *d = malloc((size_t)W * H * 3);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            uint32_t u, v; /* stored pixel shown at displayed (x, y) */
            switch (o) {
            default:
            case 1: u = x; v = y; break;
            case 2: u = w - 1 - x; v = y; break;
            case 3: u = w - 1 - x; v = h - 1 - y; break;
            case 4: u = x; v = h - 1 - y; break;
            case 5: u = y; v = x; break;
            case 6: u = y; v = h - 1 - x; break;
            case 7: u = w - 1 - y; v = h - 1 - x; break;
            case 8: u = w - 1 - y; v = x; break;
            }
            memcpy(d + ((size_t)y * W + x) * 3, rgb + ((size_t)v * w + u) * 3, 3);
        }
    *dw = W;
    *dh = H;
    return d;
}

double ti_max_err(const uint8_t *a, const double *ref, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double r = ref[i] < 0 ? 0 : ref[i] > 255 ? 255 : ref[i];
        double e = fabs(a[i] - floor(r + 0.5));
        if (e > m)
            m = e;
    }
    return m;
}

double ti_mean_err_u8(const uint8_t *a, const uint8_t *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += abs((int)a[i] - (int)b[i]);
    return n ? s / (double)n : 0;
}

int ti_max_err_u8(const uint8_t *a, const uint8_t *b, size_t n)
{
    int m = 0;
    for (size_t i = 0; i < n; i++) {
        int e = abs((int)a[i] - (int)b[i]);
        if (e > m)
            m = e;
    }
    return m;
}

uint8_t *ti_photo(uint32_t w, uint32_t h, uint32_t seed)
{
    /* smooth shading, soft-edged blobs, a little texture and noise: closer to
     * a photograph's spectrum than ti_pixels' hard checkerboard */
    uint8_t *p = malloc((size_t)w * h * 3);
    uint32_t s = seed * 747796405u + 7;
    double bx[6], by[6], br[6], bc[6][3];
    for (int k = 0; k < 6; k++) {
        bx[k] = (ti_lcg(&s) % 1000) / 1000.0 * w;
        by[k] = (ti_lcg(&s) % 1000) / 1000.0 * h;
        br[k] = (0.05 + (ti_lcg(&s) % 1000) / 4000.0) * (w < h ? w : h);
        for (int c = 0; c < 3; c++)
            bc[k][c] = (double)(ti_lcg(&s) % 256);
    }
    double fx = 2 * M_PI / (w / 3.0 + 7), fy = 2 * M_PI / (h / 2.0 + 5);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double v[3] = {90 + 60.0 * x / w, 80 + 50 * sin(x * fx) * cos(y * fy),
                           120 + 60.0 * y / h};
            for (int k = 0; k < 6; k++) {
                double d = hypot(x - bx[k], y - by[k]) / br[k];
                double a = d < 0.8 ? 1 : d < 1.2 ? (1.2 - d) / 0.4 : 0;
                for (int c = 0; c < 3; c++)
                    v[c] = v[c] * (1 - a) + bc[k][c] * a;
            }
            double tex = 6 * sin(x * 0.9 + y * 0.4) * sin(y * 0.7);
            for (int c = 0; c < 3; c++) {
                int q = (int)lrint(v[c] + tex + (int)(ti_lcg(&s) % 7) - 3);
                p[((size_t)y * w + x) * 3 + c] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
            }
        }
    return p;
}

int ti_plan_fixed(void *arg, const feed__decode_info *info, feed__decode_region *r, char *msg,
                  size_t msglen)
{
    ti_plan_arg *p = arg;
    p->seen = *info;
    p->calls++;
    if (p->status) {
        snprintf(msg, msglen, "plan says no");
        return p->status;
    }
    *r = p->want;
    return 0;
}

feed__xform ti_xform(uint32_t mode, uint32_t oh, uint32_t ow, uint32_t resize_shorter)
{
    feed__xform x;
    memset(&x, 0, sizeof x);
    x.out_h = oh;
    x.out_w = ow;
    x.mode = mode;
    x.resize_shorter = resize_shorter;
    x.scale_min = 0.08f;
    x.scale_max = 1.0f;
    x.ratio_min = 3.0f / 4.0f;
    x.ratio_max = 4.0f / 3.0f;
    x.flip_p = mode == FEED_AUGMENT_TRAIN ? 0.5f : 0;
    x.exif = 1;
    x.roi_decode = 1;
    x.max_pixels = 100000000;
    return x;
}

void ti_resize_shorter(uint32_t W, uint32_t H, uint32_t s, uint32_t *rw, uint32_t *rh)
{
    if (W <= H) {
        *rw = s;
        *rh = (uint32_t)((uint64_t)s * H / W);
    } else {
        *rh = s;
        *rw = (uint32_t)((uint64_t)s * W / H);
    }
}

uint32_t ti_rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xFFFFFF;
}

double ti_rndu(uint32_t *s)
{
    return ti_rnd(s) / 16777216.0;
}

int ti_cpu_has_level(int l)
{
#if defined(__x86_64__)
    if (l == 3)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    return l < 2 || __builtin_cpu_supports("avx2");
#else
    return l == 0;
#endif
}

void ti_resize_case_make(uint32_t *seed, int k, ti_resize_case *c)
{
    c->dw = k < 80 ? 1 + (uint32_t)k % 40 : 1 + ti_rnd(seed) % 300;
    c->dh = 1 + ti_rnd(seed) % 9 + (k % 5 == 0 ? ti_rnd(seed) % 60 : 0);
    double sx = 0.3 + 5.7 * ti_rndu(seed) * ti_rndu(seed), sy = 0.3 + 3.0 * ti_rndu(seed);
    c->w = (uint32_t)(c->dw * sx) + 1 + ti_rnd(seed) % 4;
    c->h = (uint32_t)(c->dh * sy) + 1 + ti_rnd(seed) % 4;
    c->b[0] = c->b[1] = 0;
    c->b[2] = c->w;
    c->b[3] = c->h;
    if (k % 2) {
        c->b[0] = ti_rndu(seed) * c->w * 0.3;
        c->b[1] = ti_rndu(seed) * c->h * 0.3;
        c->b[2] = c->b[0] + (c->w - c->b[0]) * (0.7 + 0.3 * ti_rndu(seed));
        c->b[3] = c->b[1] + (c->h - c->b[1]) * (0.7 + 0.3 * ti_rndu(seed));
    }
    c->flip = (int)(ti_rnd(seed) & 1);
}

void ti_region_from_box(feed__decode_region *r, const double box[4], uint32_t sw, uint32_t sh)
{
    r->x0 = (uint32_t)(box[0] * sw);
    r->y0 = (uint32_t)(box[1] * sh);
    r->x1 = (uint32_t)(box[2] * sw + 0.999);
    r->y1 = (uint32_t)(box[3] * sh + 0.999);
    if (r->x0 >= sw)
        r->x0 = sw - 1;
    if (r->y0 >= sh)
        r->y0 = sh - 1;
    if (r->x1 <= r->x0)
        r->x1 = r->x0 + 1;
    if (r->y1 <= r->y0)
        r->y1 = r->y0 + 1;
    if (r->x1 > sw)
        r->x1 = sw;
    if (r->y1 > sh)
        r->y1 = sh;
}

/*
 * The reference pipeline, written the way torchvision does it and sharing no
 * geometry code with the library: full TurboJPEG decode, EXIF orientation by
 * permutation, then NONE: resize all; VAL: resize the whole image so the
 * shorter side is resize_shorter, crop the centre (zero padding when the crop
 * is larger); TRAIN: crop the box (from the library's rrc_box with the same
 * stream, checked against torchvision separately), resize the crop, flip.
 * Returns out_h*out_w*3 doubles.
 */
double *ti_process_ref(const uint8_t *jpg, size_t len, const feed__xform *x, uint64_t seed,
                       uint64_t epoch, uint64_t id, int flipped)
{
    uint32_t sw, sh, W, H;
    uint8_t *stored = ti_decode_ref(jpg, len, 8, &sw, &sh);
    if (!stored) {
        fprintf(stderr, "ti_process_ref: TurboJPEG cannot decode this\n");
        abort();
    }
    uint32_t o = x->exif ? feed__jpeg_exif_orientation(jpg, len) : 1;
    uint8_t *img = ti_orient_ref(stored, sw, sh, o, &W, &H);
    free(stored);
    uint32_t oh = x->out_h, ow = x->out_w;
    double *out = calloc((size_t)oh * ow * 3, sizeof *out);
    if (x->mode == FEED_AUGMENT_NONE) {
        double *r = ti_resize_ref(img, W, H, 0, 0, W, H, ow, oh);
        memcpy(out, r, sizeof(double) * oh * ow * 3);
        free(r);
    } else if (x->mode == FEED_AUGMENT_VAL) {
        uint32_t rw, rh;
        ti_resize_shorter((uint32_t)W, (uint32_t)H, x->resize_shorter, &rw, &rh);
        double *r = ti_resize_ref(img, W, H, 0, 0, W, H, rw, rh);
        /* CenterCrop: pad with zeros if needed, then crop the centre */
        long pad_t = oh > rh ? (long)(oh - rh) / 2 : 0, pad_l = ow > rw ? (long)(ow - rw) / 2 : 0;
        long ph = (long)rh + (oh > rh ? (long)(oh - rh) : 0);
        long pw = (long)rw + (ow > rw ? (long)(ow - rw) : 0);
        long top = lrint((ph - (long)oh) / 2.0), left = lrint((pw - (long)ow) / 2.0);
        for (uint32_t y = 0; y < oh; y++)
            for (uint32_t xx = 0; xx < ow; xx++) {
                long ry = (long)y + top - pad_t, rx = (long)xx + left - pad_l;
                if (ry < 0 || rx < 0 || ry >= (long)rh || rx >= (long)rw)
                    continue;
                memcpy(out + ((size_t)y * ow + xx) * 3, r + ((size_t)ry * rw + rx) * 3,
                       3 * sizeof(double));
            }
        free(r);
    } else {
        feed__rng r;
        feed__rng_init(&r, seed, epoch, id, FEED_RNG_CROP);
        uint32_t i, j, h, w;
        feed__rrc_box(&r, W, H, x->scale_min, x->scale_max, x->ratio_min, x->ratio_max, &i, &j,
                      &h, &w);
        uint8_t *crop = malloc((size_t)w * h * 3);
        for (uint32_t y = 0; y < h; y++)
            memcpy(crop + (size_t)y * w * 3, img + ((size_t)(i + y) * W + j) * 3, (size_t)w * 3);
        double *rs = ti_resize_ref(crop, w, h, 0, 0, w, h, ow, oh);
        for (uint32_t y = 0; y < oh; y++)
            for (uint32_t xx = 0; xx < ow; xx++)
                memcpy(out + ((size_t)y * ow + xx) * 3,
                       rs + ((size_t)y * ow + (flipped ? ow - 1 - xx : xx)) * 3, 3 * sizeof(double));
        free(rs);
        free(crop);
    }
    free(img);
    return out;
}

double ti_compare_ref(const uint8_t *got, const uint8_t *jpg, size_t len, const feed__xform *x, uint64_t seed,
                      uint64_t epoch, uint64_t id, double *mean, int *flipped)
{
    size_t n = (size_t)x->out_h * x->out_w * 3;
    int tries = x->mode == FEED_AUGMENT_TRAIN && x->flip_p > 0 ? 2 : 1;
    double best_max = 1e9, best_mean = 1e9;
    for (int f = 0; f < tries; f++) {
        double *ref = ti_process_ref(jpg, len, x, seed, epoch, id, f);
        double mx = 0, sum = 0;
        for (size_t i = 0; i < n; i++) {
            double d = fabs(got[i] - ref[i]);
            sum += d;
            if (fabs(got[i] - round(ref[i])) > mx)
                mx = fabs(got[i] - round(ref[i]));
        }
        free(ref);
        if (sum / n < best_mean) {
            best_mean = sum / n, best_max = mx;
            if (flipped)
                *flipped = f;
        }
    }
    if (mean)
        *mean = best_mean;
    return best_max;
}
