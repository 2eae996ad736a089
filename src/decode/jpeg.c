/*
 * jpeg.c - region + DCT-scaled JPEG decoding on libjpeg-turbo's libjpeg API
 * (the planar output: jpeg_planes.c; the marker walk before it, EXIF
 * orientation included: jpeg_markers.c; the Huffman decoding: jpeg_huff.c).
 *
 * Why the libjpeg API and not TurboJPEG: TurboJPEG 2.x cannot decode a region
 * without a lossless-crop transform (a second full entropy pass), while
 * jpeg_crop_scanline()/jpeg_skip_scanlines() let us inverse-transform only the
 * iMCU columns and rows of the crop and stop reading after its last row.
 *
 * Exactness of the region: jpeg_crop_scanline() starts the region on an iMCU
 * column boundary and treats it as an image edge, so the fancy (triangle)
 * chroma upsampler replicates the edge chroma sample there instead of using
 * its real neighbour: the first and last pixel or two differ from a full
 * decode. We widen the requested columns by FEED_JPEG_MARGIN scaled pixels on
 * each side (inside the image) and hand back a pointer past the margin, so the
 * region the caller asked for is bit-identical to a full decode at the same
 * scale (tests/test_jpeg.c checks this for 4:4:4, 4:2:2, 4:2:0, grey, CMYK,
 * progressive and restart-marker files). jpeg_skip_scanlines() keeps the
 * upsampler's context rows itself, so rows need no margin.
 *
 * Errors: libjpeg reports fatal errors through error_exit and corrupt data
 * through warnings (emit_message level -1) after which it goes on with grey
 * fill. Both longjmp to the single setjmp in feed__jpeg_decode(), except for a
 * few harmless warnings (extraneous bytes before a marker, unknown JFIF
 * revision, bad ICC or thumbnail metadata) that do not change the pixels.
 *
 * CMYK/YCCK: libjpeg hands out the stored CMYK values (YCCK converted to CMYK).
 * Files with an Adobe APP14 marker (nearly all CMYK JPEGs: Photoshop, and
 * libjpeg itself writes one) store inverted CMYK, 255 meaning no ink, so
 * R = C*K/255, G = M*K/255, B = Y*K/255. Without an Adobe marker we take the
 * values as plain ink amounts: R = (255-C)*(255-K)/255. This is PIL's
 * conversion ("CMYK;I" for Adobe files) without colour management.
 */
#include "decode/jpeg.h"

#include <limits.h>
#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

#include "common/format.h"
#include "decode/jpeg_abi.h"
#include "decode/jpeg_huff.h"
#include "decode/jpeg_markers.h"
#include "decode/jpeg_planes.h"
#include "feed.h"

/* Extra scaled pixels decoded on each side of the requested columns. Two are
 * enough for 2x chroma subsampling; 8 keeps 4x (4:1:1) exact too. */
#define FEED_JPEG_MARGIN 8u

struct feed__jpeg_err {
    struct jpeg_error_mgr pub;
    jmp_buf jb;
    int status;
    char msg[JMSG_LENGTH_MAX];
};

/* The source: the file in memory, as jpeg_mem_src hands it out (past its end
 * a warning and a fake EOI), but in chunks of `chunk` bytes when a test asks
 * for libjpeg-turbo's reference decode (region.libjpeg_entropy 2): its
 * Huffman decoder takes its fast path only with 512 bytes a block in the
 * buffer, and that path decodes some damaged streams differently from its
 * own exact one (jpeg_huff.h). */
typedef struct feed__jpeg_src {
    struct jpeg_source_mgr pub;
    const JOCTET *data;
    size_t len, pos; /* handed out: [0, pos) */
    size_t chunk;
} feed__jpeg_src;

struct feed__jpeg {
    struct jpeg_decompress_struct cinfo;
    feed__jpeg_src src;
    struct feed__jpeg_err err;
    struct jpeg_progress_mgr progress;
    uint8_t *buf;
    size_t buf_cap;
    JSAMPROW *rows;
    size_t rows_cap;
    feed__jpeg_cap cap; /* the planar capture (jpeg_planes.c) */
    feed__huff *huff;   /* libfeed's entropy decoder (jpeg_huff.c) */
    int own_entropy;    /* the last decode used it */
    int arm_progressive; /* install it at the next progress call (a progressive file's first) */
};

static void feed__jpeg_fail(j_common_ptr ci)
{
    struct feed__jpeg_err *e = (struct feed__jpeg_err *)ci->err;
    int code = e->pub.msg_code;
    e->status = code == JERR_OUT_OF_MEMORY ? FEED_E_NOMEM
                : code == JERR_NO_BACKING_STORE ? FEED_E_TOO_LARGE : FEED_E_DECODE;
    (*e->pub.format_message)(ci, e->msg);
    if (code == JERR_NO_BACKING_STORE) /* max_memory_to_use ran out (jmemnobs has no disk) */
        snprintf(e->msg, sizeof e->msg, "needs more memory to decode than max_worker_memory");
    longjmp(e->jb, 1);
}

/* Called between the pieces of input libjpeg consumes: stops a file with
 * more scans than FEED_JPEG_MAX_SCANS (the way TurboJPEG's scan limit does). */
static void feed__jpeg_progress(j_common_ptr ci)
{
    struct jpeg_decompress_struct *d = (struct jpeg_decompress_struct *)ci;
    struct feed__jpeg_err *e = (struct feed__jpeg_err *)ci->err;
    feed__jpeg *j = (feed__jpeg *)(void *)d; /* cinfo is its first member */
    if (j->arm_progressive) {
        /* jpeg_start_decompress set up the first scan and reads every scan
         * before it returns: libfeed's decoder goes in now or not at all */
        j->arm_progressive = 0;
        j->own_entropy = feed__huff_install_progressive(j->huff, d);
    }
    if (d->input_scan_number > (int)FEED_JPEG_MAX_SCANS) {
        e->status = FEED_E_DECODE;
        snprintf(e->msg, sizeof e->msg, "progressive JPEG has more than %u scans: refused",
                 FEED_JPEG_MAX_SCANS);
        longjmp(e->jb, 1);
    }
}

static void feed__jpeg_emit(j_common_ptr ci, int level)
{
    if (level >= 0)
        return; /* trace messages */
    switch (ci->err->msg_code) {
    case JWRN_EXTRANEOUS_DATA:
    case JWRN_JFIF_MAJOR:
    case JWRN_BOGUS_ICC:
    case JWRN_ADOBE_XFORM:
        ci->err->num_warnings++;
        return;
    default:
        feed__jpeg_fail(ci);
    }
}

static void feed__src_init(j_decompress_ptr ci)
{
    (void)ci;
}

static boolean feed__src_fill(j_decompress_ptr ci)
{
    static const JOCTET eoi[2] = {0xFF, JPEG_EOI};
    feed__jpeg_src *s = (feed__jpeg_src *)ci->src;
    if (s->pos >= s->len) {
        WARNMS(ci, JWRN_JPEG_EOF);
        s->pub.next_input_byte = eoi;
        s->pub.bytes_in_buffer = 2;
        return TRUE;
    }
    size_t n = s->len - s->pos < s->chunk ? s->len - s->pos : s->chunk;
    s->pub.next_input_byte = s->data + s->pos;
    s->pub.bytes_in_buffer = n;
    s->pos += n;
    return TRUE;
}

static void feed__src_skip(j_decompress_ptr ci, long n)
{
    if (n <= 0)
        return;
    while ((size_t)n > ci->src->bytes_in_buffer) {
        n -= (long)ci->src->bytes_in_buffer;
        (void)feed__src_fill(ci);
    }
    ci->src->next_input_byte += n;
    ci->src->bytes_in_buffer -= (size_t)n;
}

static void feed__src_term(j_decompress_ptr ci)
{
    (void)ci;
}

/* Hands out data[0..len) whole (jpeg_mem_src's behaviour, its error for no
 * data included). */
static void feed__src_set(feed__jpeg *j, const uint8_t *data, size_t len)
{
    feed__jpeg_src *s = &j->src;
    if (len == 0)
        ERREXIT(&j->cinfo, JERR_INPUT_EMPTY);
    s->pub.init_source = feed__src_init;
    s->pub.fill_input_buffer = feed__src_fill;
    s->pub.skip_input_data = feed__src_skip;
    s->pub.resync_to_restart = jpeg_resync_to_restart;
    s->pub.term_source = feed__src_term;
    s->pub.next_input_byte = data;
    s->pub.bytes_in_buffer = len;
    s->data = data;
    s->len = s->pos = len;
    s->chunk = len;
    j->cinfo.src = &s->pub;
}

/* From here on, at most n bytes a fill (the reference decode's source). */
static void feed__src_chunked(feed__jpeg *j, size_t n)
{
    feed__jpeg_src *s = &j->src;
    size_t at = (size_t)(s->pub.next_input_byte - s->data);
    if (s->pub.next_input_byte < s->data || at > s->len)
        return; /* in the fake EOI already */
    s->chunk = n;
    s->pos = at + (s->len - at < n ? s->len - at : n);
    s->pub.bytes_in_buffer = s->pos - at;
}

static void feed__jpeg_output(j_common_ptr ci)
{
    (void)ci; /* never print */
}

static int feed__jpeg_init(feed__jpeg *j)
{
    if (setjmp(j->err.jb)) /* jpeg_create_decompress fails only on out of memory */
        return -1;
    jpeg_create_decompress(&j->cinfo);
    return 0;
}

feed__jpeg *feed__jpeg_create(void)
{
    feed__jpeg *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->huff = feed__huff_create();
    if (!j->huff) {
        free(j);
        return NULL;
    }
    j->cinfo.err = jpeg_std_error(&j->err.pub);
    j->err.pub.error_exit = feed__jpeg_fail;
    j->err.pub.emit_message = feed__jpeg_emit;
    j->err.pub.output_message = feed__jpeg_output;
    if (feed__jpeg_init(j)) {
        jpeg_destroy_decompress(&j->cinfo);
        feed__huff_destroy(j->huff);
        free(j);
        return NULL;
    }
    j->progress.progress_monitor = feed__jpeg_progress; /* after create, which clears cinfo */
    j->cinfo.progress = &j->progress;
    return j;
}

void feed__jpeg_destroy(feed__jpeg *j)
{
    if (!j)
        return;
    jpeg_destroy_decompress(&j->cinfo);
    feed__huff_destroy(j->huff);
    free(j->buf);
    free(j->rows);
    free(j);
}

uint32_t feed__jpeg_exif_orientation(const uint8_t *data, size_t len)
{
    uint32_t o;
    if (!data)
        return 1;
    feed__jpeg_markers(data, len, &o);
    return o;
}

/* ---- decoding ------------------------------------------------------------------ */

static inline uint8_t div255(uint32_t v)
{
    v += 128;
    return (uint8_t)((v + (v >> 8)) >> 8);
}

static void feed__cmyk_to_rgbx(uint8_t *p, uint32_t n, int inverted)
{
    for (uint32_t i = 0; i < n; i++, p += 4) {
        uint32_t c = p[0], m = p[1], y = p[2], k = p[3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        p[0] = div255(c * k);
        p[1] = div255(m * k);
        p[2] = div255(y * k);
        p[3] = 255;
    }
}

/* Bytes as "12.3 MiB" / "1.20 GiB". */
static void feed__jpeg_bytes(char *buf, size_t len, uint64_t n)
{
    if (n >= (1ull << 30))
        snprintf(buf, len, "%.2f GiB", (double)n / (1ull << 30));
    else
        snprintf(buf, len, "%.1f MiB", (double)n / (1ull << 20));
}

/* What the decode of region r will allocate, from the header alone: the
 * whole coefficient buffer when the file has several scans (progressive, or
 * components in scans of their own: libjpeg keeps every block, 128 bytes,
 * until the last scan), the RGBX region we decode into, and a few strips
 * of rows per component (upsampling, colour conversion). */
static uint64_t feed__jpeg_need(const struct jpeg_decompress_struct *ci, const feed__decode_region *r,
                                uint32_t sw)
{
    uint64_t need = 0;
    if (ci->progressive_mode || ci->comps_in_scan < ci->num_components)
        for (int c = 0; c < ci->num_components; c++) {
            const jpeg_component_info *cp = &ci->comp_info[c];
            uint64_t hs = (uint64_t)cp->h_samp_factor, vs = (uint64_t)cp->v_samp_factor;
            uint64_t wb = (cp->width_in_blocks + hs - 1) / hs * hs;
            uint64_t hb = (cp->height_in_blocks + vs - 1) / vs * vs;
            need += wb * hb * sizeof(JBLOCK);
        }
    need += (uint64_t)(r->x1 - r->x0 + 2 * FEED_JPEG_MARGIN) * (r->y1 - r->y0) * 4;
    need += (uint64_t)sw * (uint64_t)ci->num_components * DCTSIZE * 4 * 2;
    return need;
}

/* The planar tail of feed__jpeg_body(): after the crop, the rows of r (and
 * a margin) into the component planes. */
static int feed__jpeg_read_planes(feed__jpeg *j, JDIMENSION xoff, JDIMENSION cw,
                                  const feed__decode_region *r, feed__decode_image *img)
{
    struct jpeg_decompress_struct *ci = &j->cinfo;
    char *msg = j->err.msg;
    size_t msglen = sizeof j->err.msg;
    uint32_t y0, y1;
    if (!j->rows_cap) {
        j->rows = malloc(sizeof *j->rows);
        if (!j->rows) {
            snprintf(msg, msglen, "out of memory");
            return FEED_E_NOMEM;
        }
        j->rows_cap = 1;
    }
    if (feed__jpeg_planes_begin(ci, &j->cap, xoff, cw, r->y0, r->y1, &j->buf, &j->buf_cap, &y0, &y1)) {
        snprintf(msg, msglen, "out of memory for the planes");
        return FEED_E_NOMEM;
    }
    if (y0 > 0 && jpeg_skip_scanlines(ci, y0) != y0) {
        snprintf(msg, msglen, "Premature end of JPEG file");
        return FEED_E_DECODE;
    }
    while (ci->output_scanline < y1) { /* the capture ignores the row pointers */
        if (jpeg_read_scanlines(ci, j->rows, y1 - ci->output_scanline) == 0) {
            snprintf(msg, msglen, "Premature end of JPEG file");
            return FEED_E_DECODE;
        }
    }
    if (feed__jpeg_planes_end(&j->cap, img)) {
        snprintf(msg, msglen, "internal: planes short of rows");
        return FEED_E_INTERNAL;
    }
    img->pixels = NULL;
    img->stride = 0;
    img->w = r->x1 - r->x0;
    img->h = r->y1 - r->y0;
    return 0;
}

/* The RGBX tail of feed__jpeg_body(): after the crop, the rows of r into
 * the pixel buffer; cmyk 0 for a YCbCr/grey/RGB file, 1 plain CMYK, 2
 * inverted (Adobe). */
static int feed__jpeg_read_rgbx(feed__jpeg *j, JDIMENSION xoff, JDIMENSION cw,
                                const feed__decode_region *r, int cmyk, feed__decode_image *img)
{
    struct jpeg_decompress_struct *ci = &j->cinfo;
    char *msg = j->err.msg;
    size_t msglen = sizeof j->err.msg;
    uint32_t h = r->y1 - r->y0;
    size_t stride = (size_t)cw * 4;
    size_t need = stride * h;
    if (need > j->buf_cap) {
        uint8_t *nb = realloc(j->buf, need);
        if (!nb) {
            snprintf(msg, msglen, "out of memory for %zu bytes of pixels", need);
            return FEED_E_NOMEM;
        }
        j->buf = nb;
        j->buf_cap = need;
    }
    if (h > j->rows_cap) {
        JSAMPROW *nr = realloc(j->rows, (size_t)h * sizeof *nr);
        if (!nr) {
            snprintf(msg, msglen, "out of memory");
            return FEED_E_NOMEM;
        }
        j->rows = nr;
        j->rows_cap = h;
    }
    for (uint32_t y = 0; y < h; y++)
        j->rows[y] = j->buf + stride * y;

    if (r->y0 > 0 && jpeg_skip_scanlines(ci, r->y0) != r->y0) {
        snprintf(msg, msglen, "Premature end of JPEG file");
        return FEED_E_DECODE;
    }
    while (ci->output_scanline < r->y1) {
        uint32_t at = ci->output_scanline - r->y0;
        JDIMENSION got = jpeg_read_scanlines(ci, j->rows + at, r->y1 - ci->output_scanline);
        if (got == 0) {
            snprintf(msg, msglen, "Premature end of JPEG file");
            return FEED_E_DECODE;
        }
    }
    if (cmyk) {
        for (uint32_t y = 0; y < h; y++)
            feed__cmyk_to_rgbx(j->rows[y], cw, cmyk == 2);
    }
    img->pixels = j->buf + (size_t)(r->x0 - xoff) * 4;
    img->stride = stride;
    img->w = r->x1 - r->x0;
    img->h = h;
    return 0;
}

/* The arguments of one decode, kept apart so nothing changes across setjmp. */
typedef struct feed__jpeg_call {
    const uint8_t *data;
    size_t len;
    feed__decode_plan_fn plan;
    void *arg;
    feed__decode_image *img;
} feed__jpeg_call;

static int feed__jpeg_body(feed__jpeg *j, const feed__jpeg_call *c)
{
    const uint8_t *data = c->data;
    size_t len = c->len;
    feed__decode_image *img = c->img;
    char *msg = j->err.msg;
    size_t msglen = sizeof j->err.msg;
    struct jpeg_decompress_struct *ci = &j->cinfo;
    feed__decode_info info;
    memset(&info, 0, sizeof info);

    size_t sos = feed__jpeg_markers(data, len, &info.orientation);
    feed__src_set(j, data, len);
    if (jpeg_read_header(ci, TRUE) != JPEG_HEADER_OK) {
        snprintf(msg, msglen, "JPEG stream holds tables only, no image");
        return FEED_E_DECODE;
    }
    info.width = ci->image_width;
    info.height = ci->image_height;
    info.components = (uint32_t)ci->num_components;
    info.progressive = ci->progressive_mode ? 1 : 0;
    int cmyk = ci->jpeg_color_space == JCS_CMYK || ci->jpeg_color_space == JCS_YCCK;
    info.cmyk_inverted = cmyk && ci->saw_Adobe_marker;

    feed__decode_region r;
    memset(&r, 0, sizeof r);
    int rc = c->plan(c->arg, &info, &r, msg, msglen);
    if (rc)
        return rc;
    /* After the plan, so that max_pixels is judged from the header alone. */
    if (!feed__jpeg_has_eoi(data, len, sos)) {
        snprintf(msg, msglen, "Premature end of JPEG file (no EOI marker)");
        return FEED_E_DECODE;
    }
    uint32_t sw = feed__jpeg_scaled(info.width, r.scale);
    uint32_t sh = feed__jpeg_scaled(info.height, r.scale);
    if (r.scale < 1 || r.scale > 8 || r.x0 >= r.x1 || r.y0 >= r.y1 || r.x1 > sw || r.y1 > sh) {
        snprintf(msg, msglen, "internal: bad decode region");
        return FEED_E_INTERNAL;
    }

    if (r.max_memory) {
        uint64_t need = feed__jpeg_need(ci, &r, sw) + len;
        if (need > r.max_memory) {
            char a[32], b[32];
            feed__jpeg_bytes(a, sizeof a, need);
            feed__jpeg_bytes(b, sizeof b, r.max_memory);
            snprintf(msg, msglen, "needs ~%s to decode (%ux%u, %u components%s), over max_worker_memory %s",
                     a, info.width, info.height, info.components,
                     info.progressive ? ", progressive" : "", b);
            return FEED_E_TOO_LARGE;
        }
        /* libjpeg's own manager holds to it too (for its big buffers). */
        ci->mem->max_memory_to_use = (long)(r.max_memory - len < (uint64_t)LONG_MAX ? r.max_memory - len : LONG_MAX);
    } else {
        ci->mem->max_memory_to_use = 0;
    }
    ci->scale_num = r.scale;
    ci->scale_denom = 8;
    ci->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBX;
    ci->dct_method = JDCT_ISLOW;
    ci->do_fancy_upsampling = TRUE;
    int planes = 0;
    if (r.planes && !cmyk) {
        jpeg_calc_output_dimensions(ci);
        planes = feed__jpeg_planes_ok(ci);
    }
    /* FEED_OWN_ENTROPY 0 (jpeg_abi.h): libjpeg's decoder for every scan */
    j->arm_progressive = FEED_OWN_ENTROPY && !r.libjpeg_entropy && ci->progressive_mode;
    jpeg_start_decompress(ci);
    j->arm_progressive = 0;
    if (r.libjpeg_entropy == 2)
        feed__src_chunked(j, 256);
    else if (FEED_OWN_ENTROPY && !r.libjpeg_entropy && !ci->progressive_mode)
        j->own_entropy = feed__huff_install(j->huff, ci);
    else if (j->own_entropy && feed__huff_handed_back(j->huff))
        j->own_entropy = 0; /* a scan went back to libjpeg's decoder */
    if (ci->output_width != sw || ci->output_height != sh ||
        ci->output_components != (planes ? ci->num_components : 4)) {
        snprintf(msg, msglen, "internal: unexpected scaled size");
        return FEED_E_INTERNAL;
    }

    JDIMENSION xoff = 0, cw = sw;
    /* planes: no upsampler to keep exact, only the chroma sample the resize
     * reaches past the luma's (two chroma samples' width is plenty) */
    uint32_t mg = planes ? 2u * (uint32_t)ci->max_h_samp_factor : FEED_JPEG_MARGIN;
    uint32_t cx0 = r.x0 > mg ? r.x0 - mg : 0;
    uint32_t cx1 = sw - r.x1 > mg ? r.x1 + mg : sw;
    if (cx0 > 0 || cx1 < sw) {
        xoff = cx0;
        cw = cx1 - cx0;
        jpeg_crop_scanline(ci, &xoff, &cw);
    }
    if (xoff > r.x0 || xoff + cw < r.x1) {
        snprintf(msg, msglen, "internal: crop does not cover the region");
        return FEED_E_INTERNAL;
    }

    img->scaled_w = sw;
    img->scaled_h = sh;
    img->nplanes = 0;
    if (planes)
        return feed__jpeg_read_planes(j, xoff, cw, &r, img);

    return feed__jpeg_read_rgbx(j, xoff, cw, &r, cmyk ? 1 + (int)info.cmyk_inverted : 0, img);
}

/* The one setjmp boundary: everything that can reach error_exit runs below it,
 * in feed__jpeg_body(); nothing this function reads is changed after setjmp. */
static int feed__jpeg_guarded(feed__jpeg *j, const feed__jpeg_call *c)
{
    if (setjmp(j->err.jb)) {
        jpeg_abort_decompress(&j->cinfo);
        return j->err.status ? j->err.status : FEED_E_DECODE;
    }
    int rc = feed__jpeg_body(j, c);
    jpeg_abort_decompress(&j->cinfo);
    return rc;
}

int feed__jpeg_decode(feed__jpeg *j, const uint8_t *data, size_t len, feed__decode_plan_fn plan,
                      void *arg, feed__decode_image *img, char *msg, size_t msglen)
{
    static const uint8_t empty[1];
    feed__jpeg_call c = {data ? data : empty, data ? len : 0, plan, arg, img};
    j->err.status = 0;
    j->err.msg[0] = '\0';
    j->own_entropy = 0;
    j->arm_progressive = 0;
    /* A fresh decompression object for every file: libjpeg keeps the
     * quantisation and Huffman tables of the last file (jpeg_abort leaves
     * them, for abbreviated streams), so a file without its DQT or DHT would
     * be decoded with the last file's tables instead of failing
     * ("Quantization table 0x00 was not defined") or taking the standard
     * Huffman tables, as it does alone (test_jpeg_huff's
     * test_tables_not_kept). */
    jpeg_destroy_decompress(&j->cinfo);
    if (feed__jpeg_init(j)) {
        if (msg && msglen)
            snprintf(msg, msglen, "out of memory");
        return FEED_E_NOMEM;
    }
    j->cinfo.progress = &j->progress;
    int rc = feed__jpeg_guarded(j, &c);
    if (rc == FEED_E_DECODE && c.len >= 2 && !(c.data[0] == 0xFF && c.data[1] == 0xD8)) {
        /* libjpeg's "Not a JPEG file: starts with 0x89 0x50": name the format */
        const char *fmt = feed__image_format(c.data, c.len);
        size_t n = strlen(j->err.msg);
        if (fmt)
            snprintf(j->err.msg + n, sizeof j->err.msg - n,
                     " (%s data, not JPEG: convert it, or leave it out of the dataset)", fmt);
    }
    if (msg && msglen)
        snprintf(msg, msglen, "%s", rc ? j->err.msg : "");
    return rc;
}

int feed__jpeg_own_entropy(const feed__jpeg *j)
{
    return j->own_entropy;
}
