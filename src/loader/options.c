/*
 * options.c - defaults, "key=value" parsing and validation of feed_options.
 *
 * One table names every option once: its key, type, field and (for enums)
 * the accepted words. feed_options_set() parses from it; the Python binding
 * and the command-line tools use text keys only, so they never depend on the
 * struct layout.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/internal.h"
#include "dataset/tar.h"
#include "loader/options.h"
#include "pixels/convert.h"
#include "pixels/xform.h"

enum opt_type { T_U32, T_U32A, T_U64, T_U64A, T_F32, T_BOOL, T_STR, T_ENUM, T_RGB, T_HEX };

typedef struct opt_def {
    const char *key;
    enum opt_type type;
    size_t offset;
    size_t size;                 /* T_STR: buffer size */
    const char *const *words;    /* T_ENUM: NULL-terminated, index = value */
} opt_def;

static const char *const augment_words[] = {"none", "val", "train", NULL};
static const char *const dtype_words[] = {"uint8", "float32", "float16", "bfloat16", NULL};
static const char *const layout_words[] = {"hwc", "chw", NULL};
static const char *const policy_words[] = {"replace", "fail", NULL};
static const char *const reader_words[] = {"auto", "uring", "pread", NULL};
static const char *const entropy_words[] = {"auto", "libfeed", "libjpeg", NULL};
static const char *const interp_words[] = {"nearest", "bilinear", "bicubic", NULL};
static const char *const aa_interp_words[] = {"nearest", "bilinear", NULL};
static const char *const policy_aa_words[] = {"none", "trivialaugment", "randaugment", "autoaugment", NULL};
static const char *const mix_mode_words[] = {"batch", "pair", "elem", NULL};
static const char *const meta_missing_words[] = {"bad", "empty", NULL};
static const char *const fetch_ranges_words[] = {"whole", "ranges", NULL};

#define OPT(k, t, f) {k, t, offsetof(feed_options, f), sizeof(((feed_options *)0)->f), NULL}
#define OPTE(k, f, w) {k, T_ENUM, offsetof(feed_options, f), sizeof(((feed_options *)0)->f), w}

static const opt_def defs[] = {
    OPT("source", T_STR, source),
    OPT("file_list", T_STR, file_list),
    OPT("batch_size", T_U32, batch_size),
    OPT("shuffle", T_BOOL, shuffle),
    OPT("drop_last", T_BOOL, drop_last),
    OPT("seed", T_U64, seed),
    OPT("epochs", T_U32, epochs),
    OPT("start_epoch", T_U32, start_epoch),
    OPT("rank", T_U32A, rank),
    OPT("world_size", T_U32A, world_size),
    OPT("workers", T_U32, workers),
    OPT("prefetch", T_U32, prefetch),
    OPT("height", T_U32, height),
    OPT("width", T_U32, width),
    OPTE("augment", augment, augment_words),
    OPT("resize_shorter", T_U32, resize_shorter),
    OPT("scale_min", T_F32, scale_min),
    OPT("scale_max", T_F32, scale_max),
    OPT("ratio_min", T_F32, ratio_min),
    OPT("ratio_max", T_F32, ratio_max),
    OPT("flip_p", T_F32, flip_p),
    OPT("rotate_deg", T_F32, rotate_deg),
    OPT("fill", T_HEX, fill),
    OPT("brightness", T_F32, brightness),
    OPT("contrast", T_F32, contrast),
    OPT("saturation", T_F32, saturation),
    OPT("hue", T_F32, hue),
    OPT("grayscale_p", T_F32, grayscale_p),
    OPT("exif", T_BOOL, exif),
    OPT("roi_decode", T_BOOL, roi_decode),
    OPTE("dtype", dtype, dtype_words),
    OPTE("layout", layout, layout_words),
    OPT("mean", T_RGB, mean),
    OPT("std", T_RGB, std),
    OPT("device", T_STR, device),
    OPT("device_prefetch", T_U32, device_prefetch),
    OPT("sync", T_BOOL, sync),
    OPTE("bad_policy", bad_policy, policy_words),
    OPT("max_retries", T_U32, max_retries),
    OPT("sample_timeout_ms", T_U32, sample_timeout_ms),
    OPT("max_pixels", T_U64, max_pixels),
    OPT("max_file_bytes", T_U64, max_file_bytes),
    OPTE("reader", reader, reader_words),
    OPT("worker_path", T_STR, worker_path),
    OPT("readahead", T_U32, readahead),
    OPT("max_bad_fraction", T_F32, max_bad_fraction),
    OPT("report_bad", T_BOOL, report_bad),
    OPT("bad_log", T_STR, bad_log),
    OPT("sandbox", T_BOOL, sandbox),
    OPT("max_worker_memory", T_U64A, max_worker_memory),
    OPT("labels", T_STR, labels),
    OPT("scan_cache", T_BOOL, scan_cache),
    OPT("scan_cache_path", T_STR, scan_cache_path),
    OPTE("jpeg_entropy", jpeg_entropy, entropy_words),
    OPTE("interpolation", interpolation, interp_words),
    OPTE("auto_augment", auto_augment, policy_aa_words),
    OPT("aa_num_ops", T_U32, aa_num_ops),
    OPT("aa_num_bins", T_U32, aa_num_bins),
    OPT("aa_magnitude", T_F32, aa_magnitude),
    OPT("aa_mstd", T_F32, aa_mstd),
    OPT("aa_inc", T_BOOL, aa_inc),
    OPTE("aa_interpolation", aa_interpolation, aa_interp_words),
    OPT("aa_fill", T_HEX, aa_fill),
    OPT("erase_p", T_F32, erase_p),
    OPT("erase_scale_min", T_F32, erase_scale_min),
    OPT("erase_scale_max", T_F32, erase_scale_max),
    OPT("erase_ratio_min", T_F32, erase_ratio_min),
    OPT("erase_ratio_max", T_F32, erase_ratio_max),
    OPT("erase_value", T_RGB, erase_value),
    OPT("erase_random", T_BOOL, erase_random),
    OPT("mixup_alpha", T_F32, mixup_alpha),
    OPT("cutmix_alpha", T_F32, cutmix_alpha),
    OPT("mix_p", T_F32, mix_p),
    OPT("mix_switch_p", T_F32, mix_switch_p),
    OPTE("mix_mode", mix_mode, mix_mode_words),
    OPT("label_smoothing", T_F32, label_smoothing),
    OPT("num_classes", T_U32, num_classes),
    OPT("repeats", T_U32, repeats),
    OPT("allow_empty_classes", T_BOOL, allow_empty_classes),
    OPT("multi_label", T_BOOL, multi_label),
    OPT("targets", T_STR, targets),
    OPT("target_columns", T_STR, target_columns),
    OPT("target_member", T_STR, target_member),
    OPT("meta_members", T_STR, meta_members),
    OPT("meta_max_bytes", T_U32, meta_max_bytes),
    OPTE("meta_missing", meta_missing, meta_missing_words),
    OPT("cache_dir", T_STR, cache_dir),
    OPT("cache_size", T_U64, cache_size),
    OPT("fetch_retries", T_U32, fetch_retries),
    OPT("fetch_timeout_ms", T_U32, fetch_timeout_ms),
    OPT("fetch_parallel", T_U32, fetch_parallel),
    OPT("fetch_ahead", T_U32, fetch_ahead),
    OPT("shuffle_window", T_U32, shuffle_window),
    OPTE("fetch_ranges", fetch_ranges, fetch_ranges_words),
};

/* The fields of the first released layout; a smaller struct_size is refused. */
#define FEED_OPTIONS_MIN_SIZE (offsetof(feed_options, worker_path) + FEED_PATH_MAX)

static void set_defaults(feed_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->version = FEED_VERSION_NUMBER;
    o->batch_size = 32;
    o->shuffle = 1;
    o->world_size = 1;
    o->workers = 2;
    o->prefetch = 4;
    o->height = 224;
    o->width = 224;
    o->augment = FEED_AUGMENT_VAL;
    o->resize_shorter = 256;
    o->scale_min = 0.08f;
    o->scale_max = 1.0f;
    o->ratio_min = 3.0f / 4.0f;
    o->ratio_max = 4.0f / 3.0f;
    o->flip_p = 0.5f;
    o->exif = 1;
    o->roi_decode = 1;
    o->dtype = FEED_DTYPE_UINT8;
    o->layout = FEED_OPT_LAYOUT_DEFAULT;
    o->mean[0] = 0.485f, o->mean[1] = 0.456f, o->mean[2] = 0.406f;
    o->std[0] = 0.229f, o->std[1] = 0.224f, o->std[2] = 0.225f;
    strcpy(o->device, "host");
    o->device_prefetch = 3;
    o->bad_policy = FEED_BAD_REPLACE;
    o->max_retries = 2;
    o->sample_timeout_ms = 30000;
    o->fetch_retries = 4;
    o->fetch_timeout_ms = 30000;
    o->fetch_parallel = 8;
    o->max_pixels = 100u * 1000u * 1000u;
    o->max_file_bytes = 256u << 20;
    o->reader = FEED_READER_AUTO;
    o->readahead = 4;
    o->max_bad_fraction = 0.05f;
    o->report_bad = 1;
    o->sandbox = 1;
    o->max_worker_memory = FEED_WORKER_MEMORY_AUTO;
    o->jpeg_entropy = FEED_JPEG_ENTROPY_AUTO;
    o->interpolation = FEED_INTERP_BILINEAR;
    o->auto_augment = FEED_POLICY_NONE;
    o->aa_num_ops = 2;
    o->aa_num_bins = 31;
    o->aa_magnitude = 9;
    o->aa_interpolation = FEED_INTERP_NEAREST;
    o->erase_scale_min = 0.02f;
    o->erase_scale_max = 0.33f;
    o->erase_ratio_min = 0.3f;
    o->erase_ratio_max = 3.3f;
    o->mix_p = 1.0f;
    o->mix_switch_p = 0.5f;
    o->mix_mode = FEED_MIX_BATCH;
    o->repeats = 1;
    o->meta_max_bytes = 16384;
}

int feed__options_meta_members(const feed_options *o, char exts[][32], char *why, size_t whylen)
{
    int n = 0;
    for (const char *p = o->meta_members; *p;) {
        size_t len = strcspn(p, ":");
        const char *bad = NULL;
        if (n == 4)
            bad = "more than 4 members";
        else if (len == 0 || len > 31)
            bad = "each member's extension is 1..31 bytes";
        for (size_t k = 0; !bad && k < len; k++)
            if (!(isalnum((unsigned char)p[k]) || p[k] == '_' || p[k] == '-' || (p[k] == '.' && k > 0)))
                bad = "an extension is letters, digits, '_', '-' and '.'";
        if (!bad) {
            memcpy(exts[n], p, len);
            exts[n][len] = 0;
            if (feed__tar_is_image_ext(exts[n]) || !strcasecmp(exts[n], "cls") ||
                !strcasecmp(exts[n], o->target_member))
                bad = "the image, the label (cls) and target_member are read otherwise";
            for (int j = 0; !bad && j < n; j++)
                if (!strcasecmp(exts[j], exts[n]))
                    bad = "a member named twice";
        }
        if (bad) {
            snprintf(why, whylen, "meta_members=%s: %s", o->meta_members, bad);
            return -1;
        }
        n++;
        p += len + (p[len] == ':');
    }
    return n;
}

feed_status feed_options_init(feed_options *opts, size_t struct_size)
{
    if (!opts || struct_size < FEED_OPTIONS_MIN_SIZE)
        return FEED_E_INVALID;
    feed_options d;
    set_defaults(&d);
    d.struct_size = (uint32_t)(struct_size < sizeof d ? struct_size : sizeof d);
    memcpy(opts, &d, d.struct_size);
    return FEED_OK;
}

feed_status feed__options_copy(feed_options *dst, const feed_options *src, char *err, size_t errlen)
{
    set_defaults(dst);
    if (!src)
        return feed__err(FEED_E_INVALID, err, errlen, "options: NULL (use feed_options_init)");
    if (src->struct_size < FEED_OPTIONS_MIN_SIZE)
        return feed__err(FEED_E_INVALID, err, errlen,
                         "options: struct_size %u is too small; call feed_options_init(&o, sizeof o)",
                         src->struct_size);
    size_t n = src->struct_size < sizeof *dst ? src->struct_size : sizeof *dst;
    memcpy(dst, src, n);
    dst->struct_size = sizeof *dst;
    return FEED_OK;
}

int feed__parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || !*s)
        return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_f32(const char *s, float *out)
{
    char *end;
    errno = 0;
    if (!*s)
        return -1;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = (float)v;
    return 0;
}

static int parse_bool(const char *s, uint32_t *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i]))
            return *out = 1, 0;
        if (!strcasecmp(s, no[i]))
            return *out = 0, 0;
    }
    return -1;
}

feed_status feed_options_set(feed_options *o, const char *key, const char *value, char *err,
                             size_t errlen)
{
    if (!o || !key || !value)
        return feed__err(FEED_E_INVALID, err, errlen, "options: NULL argument");
    const opt_def *d = NULL;
    for (size_t i = 0; i < FEED_ARRAY_SIZE(defs); i++)
        if (!strcmp(defs[i].key, key))
            d = &defs[i];
    if (!d)
        return feed__err(FEED_E_INVALID, err, errlen, "options: unknown key '%s'", key);
    if (d->offset + d->size > o->struct_size)
        return feed__err(FEED_E_INVALID, err, errlen,
                         "options: '%s' is past this caller's struct_size", key);
    char *field = (char *)o + d->offset;
    uint64_t u;
    uint32_t b;
    float f;
    switch (d->type) {
    case T_U32A: /* a number, or "auto" (FEED_RANK_AUTO) */
        if (!strcasecmp(value, "auto")) {
            *(uint32_t *)field = FEED_RANK_AUTO;
            break;
        }
        if (feed__parse_u64(value, &u) || u >= FEED_RANK_AUTO)
            goto bad;
        *(uint32_t *)field = (uint32_t)u;
        break;
    case T_U32:
        if (feed__parse_u64(value, &u) || u > UINT32_MAX)
            goto bad;
        *(uint32_t *)field = (uint32_t)u;
        break;
    case T_U64A: /* a number, or "auto" (FEED_WORKER_MEMORY_AUTO) */
        if (!strcasecmp(value, "auto")) {
            *(uint64_t *)field = FEED_WORKER_MEMORY_AUTO;
            break;
        }
        if (feed__parse_u64(value, &u) || u == FEED_WORKER_MEMORY_AUTO)
            goto bad;
        *(uint64_t *)field = u;
        break;
    case T_U64:
        if (feed__parse_u64(value, &u))
            goto bad;
        *(uint64_t *)field = u;
        break;
    case T_F32:
        if (parse_f32(value, &f))
            goto bad;
        *(float *)field = f;
        break;
    case T_BOOL:
        if (parse_bool(value, &b))
            goto bad;
        *(uint32_t *)field = b;
        break;
    case T_STR:
        if (strlen(value) >= d->size)
            return feed__err(FEED_E_INVALID, err, errlen, "options: '%s' is too long (max %zu)",
                             key, d->size - 1);
        strcpy(field, value);
        break;
    case T_ENUM:
        for (uint32_t i = 0; d->words[i]; i++)
            if (!strcasecmp(value, d->words[i])) {
                *(uint32_t *)field = i;
                return FEED_OK;
            }
        goto bad;
    case T_RGB: {
        float v[3];
        char buf[128];
        if (strlen(value) >= sizeof buf)
            goto bad;
        strcpy(buf, value);
        char *save = NULL, *tok = strtok_r(buf, ":/ ", &save);
        int n = 0;
        for (; tok && n < 3; tok = strtok_r(NULL, ":/ ", &save))
            if (parse_f32(tok, &v[n++]))
                goto bad;
        if (n != 3 || tok)
            goto bad;
        memcpy(field, v, sizeof v);
        break;
    }
    case T_HEX: {
        const char *s = value[0] == '#' ? value + 1 : value;
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 16);
        if (errno || *end || !*s || v > 0xffffff)
            goto bad;
        *(uint32_t *)field = (uint32_t)v;
        break;
    }
    }
    return FEED_OK;
bad:
    if (d->type == T_ENUM) {
        char words[128] = "";
        for (uint32_t i = 0; d->words[i]; i++) {
            strncat(words, i ? "|" : "", sizeof words - strlen(words) - 1);
            strncat(words, d->words[i], sizeof words - strlen(words) - 1);
        }
        return feed__err(FEED_E_INVALID, err, errlen, "options: %s='%s': expected one of %s", key,
                         value, words);
    }
    static const char *const what[] = {"an unsigned 32-bit integer",
                                       "an unsigned 32-bit integer or auto", "an unsigned integer",
                                       "a number of bytes or auto",
                                       "a number", "true/false", "text", "", "three numbers r:g:b",
                                       "a hex colour RRGGBB"};
    return feed__err(FEED_E_INVALID, err, errlen, "options: %s='%s': expected %s", key, value,
                     what[d->type]);
}


feed_status feed__options_validate(feed_options *o, char *err, size_t errlen)
{
#define REQUIRE(cond, ...) \
    do {                   \
        if (!(cond))       \
            return feed__err(FEED_E_INVALID, err, errlen, "options: " __VA_ARGS__); \
    } while (0)
    REQUIRE(o->source[0] || o->file_list[0], "source is empty: give an ImageFolder root or a file_list");
    REQUIRE(o->batch_size >= 1 && o->batch_size <= FEED_MAX_BATCH,
            "batch_size=%u must be in 1..%u", o->batch_size, FEED_MAX_BATCH);
    REQUIRE(o->workers >= 1 && o->workers <= FEED_MAX_WORKERS, "workers=%u must be in 1..%u",
            o->workers, FEED_MAX_WORKERS);
    REQUIRE(o->prefetch >= 2 && o->prefetch <= 1024, "prefetch=%u must be in 2..1024", o->prefetch);
    if (o->rank == FEED_RANK_AUTO || o->world_size == FEED_RANK_AUTO) {
        feed__launcher l;
        char why[200];
        if (!feed__launcher_find(&l, why, sizeof why)) {
            if (why[0])
                return feed__err(FEED_E_INVALID, err, errlen, "options: rank/world_size=auto: %s", why);
            return feed__err(FEED_E_INVALID, err, errlen,
                             "options: rank/world_size=auto: no launcher in the environment (RANK and "
                             "WORLD_SIZE from torchrun, OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE, "
                             "MV2_COMM_WORLD_RANK/SIZE or SLURM_PROCID/SLURM_NTASKS)");
        }
        REQUIRE(o->world_size == FEED_RANK_AUTO || o->world_size == l.size,
                "world_size=%u, but %s says %s=%u", o->world_size, l.name, l.size_var, l.size);
        REQUIRE(o->rank == FEED_RANK_AUTO || o->rank == l.rank, "rank=%u, but %s says %s=%u",
                o->rank, l.name, l.rank_var, l.rank);
        o->rank = l.rank;
        o->world_size = l.size;
    }
    REQUIRE(o->world_size >= 1, "world_size=0 must be >= 1");
    REQUIRE(o->rank < o->world_size, "rank=%u must be < world_size=%u", o->rank, o->world_size);
    /* Every value a worker would refuse (feed__xform_check, pixels/xform.h)
     * or that would make each sample fail, overflow or come out meaningless is
     * refused here, so no option passes create and then breaks every sample. */
#define BOOL01(f) REQUIRE(o->f <= 1, #f "=%u must be 0 or 1 (false/true)", o->f)
    BOOL01(shuffle);
    BOOL01(drop_last);
    BOOL01(exif);
    BOOL01(roi_decode);
    BOOL01(sync);
    BOOL01(report_bad);
    BOOL01(sandbox);
    BOOL01(scan_cache);
    REQUIRE(o->interpolation == FEED_INTERP_BILINEAR || o->interpolation == FEED_INTERP_BICUBIC,
            "interpolation=%u: the resize is bilinear or bicubic (both antialiased), not nearest",
            o->interpolation);
    BOOL01(aa_inc);
    BOOL01(erase_random);
    BOOL01(allow_empty_classes);
    BOOL01(multi_label);
#undef BOOL01
    /* The transform: the workers' own rule set (pixels/xform.h). */
    feed__xform x;
    char xerr[512];
    feed__xform_from_options(&x, o);
    REQUIRE(feed__xform_check(&x, xerr, sizeof xerr) == 0, "%s", xerr);
    x.mode = FEED_AUGMENT_TRAIN; /* the train-only values too, whatever augment is */
    x.flip_p = o->flip_p;
    /* and the policy's and the erasing's, whether they are on or not */
    x.policy = o->auto_augment == FEED_POLICY_NONE ? FEED_POLICY_RAND : o->auto_augment;
    x.erase_p = o->erase_p == 0 ? 1 : o->erase_p;
    REQUIRE(feed__xform_check(&x, xerr, sizeof xerr) == 0, "%s", xerr);
    REQUIRE(o->fill <= 0xffffff, "fill=0x%x must be 0xRRGGBB (0..0xffffff)", o->fill);
    REQUIRE(o->aa_fill <= 0xffffff, "aa_fill=0x%x must be 0xRRGGBB (0..0xffffff)", o->aa_fill);
    for (int c = 0; c < 3; c++) {
        float v = o->erase_value[c];
        REQUIRE(o->dtype != FEED_DTYPE_UINT8 || (v >= 0 && v <= 255 && v == floorf(v)),
                "erase_value: %g must be an integer 0..255 with dtype=uint8 (it is the byte written)", v);
        REQUIRE(o->dtype != FEED_DTYPE_FLOAT16 || fabsf(v) <= 65504.0f,
                "erase_value: %g is out of float16's finite range (+-65504)", v);
    }
    REQUIRE(o->dtype <= FEED_DTYPE_BFLOAT16, "dtype=%u unknown (uint8|float32|float16|bfloat16, 0..3)",
            o->dtype);
    if (o->layout == FEED_OPT_LAYOUT_DEFAULT)
        o->layout = o->dtype == FEED_DTYPE_UINT8 ? FEED_LAYOUT_HWC : FEED_LAYOUT_CHW;
    REQUIRE(o->layout <= FEED_LAYOUT_CHW, "layout=%u unknown (hwc|chw, 0..1)", o->layout);
    static const char rgb[] = "rgb";
    for (int c = 0; c < 3; c++) {
        REQUIRE(isfinite(o->mean[c]), "mean: %c=%g must be a finite number", rgb[c], o->mean[c]);
        REQUIRE(o->std[c] > 0 && isfinite(o->std[c]), "std: %c=%g must be a finite number > 0",
                rgb[c], o->std[c]);
    }
    if (o->dtype != FEED_DTYPE_UINT8) {
        /* The values 0 and 255 become, exactly as the workers and the CUDA
         * kernel compute them; they are the extremes (the map is monotonic). */
        float scale[3], bias[3];
        feed__convert_params(o->mean, o->std, scale, bias);
        for (int c = 0; c < 3; c++) {
            float lo = feed__px_norm(0, scale[c], bias[c]), hi = feed__px_norm(255, scale[c], bias[c]);
            int inf16 = o->dtype == FEED_DTYPE_FLOAT16 &&
                        ((feed__f32_to_f16(lo) & 0x7c00u) == 0x7c00u ||
                         (feed__f32_to_f16(hi) & 0x7c00u) == 0x7c00u);
            int inf_bf = o->dtype == FEED_DTYPE_BFLOAT16 &&
                         ((feed__f32_to_bf16(lo) & 0x7f80u) == 0x7f80u ||
                          (feed__f32_to_bf16(hi) & 0x7f80u) == 0x7f80u);
            REQUIRE(isfinite(lo) && isfinite(hi) && !inf16 && !inf_bf,
                    "mean/std: %c (mean=%g, std=%g) maps pixels 0..255 to %g..%g, out of %s's "
                    "finite range%s: raise std",
                    rgb[c], o->mean[c], o->std[c], lo, hi,
                    o->dtype == FEED_DTYPE_FLOAT16 ? "float16" : o->dtype == FEED_DTYPE_BFLOAT16 ? "bfloat16" : "float32",
                    o->dtype == FEED_DTYPE_FLOAT16 ? " (+-65504)" : "");
        }
    }
    /* MixUp, CutMix, label smoothing (loader/mix.c) and repeated augmentation. */
    REQUIRE(o->mixup_alpha >= 0 && isfinite(o->mixup_alpha) && o->mixup_alpha <= 1000,
            "mixup_alpha=%g must be in [0, 1000] (0 = off)", o->mixup_alpha);
    REQUIRE(o->cutmix_alpha >= 0 && isfinite(o->cutmix_alpha) && o->cutmix_alpha <= 1000,
            "cutmix_alpha=%g must be in [0, 1000] (0 = off)", o->cutmix_alpha);
    REQUIRE(o->mix_p >= 0 && o->mix_p <= 1, "mix_p=%g must be in [0, 1]", o->mix_p);
    REQUIRE(o->mix_switch_p >= 0 && o->mix_switch_p <= 1, "mix_switch_p=%g must be in [0, 1]",
            o->mix_switch_p);
    REQUIRE(o->mix_mode <= FEED_MIX_ELEM, "mix_mode=%u unknown (batch|pair|elem, 0..2)", o->mix_mode);
    REQUIRE(o->label_smoothing >= 0 && o->label_smoothing < 1, "label_smoothing=%g must be in [0, 1)",
            o->label_smoothing);
    REQUIRE(o->num_classes <= FEED_MAX_SOFT_CLASSES,
            "num_classes=%u must be at most %u (the soft labels are batch_size x num_classes floats)",
            o->num_classes, FEED_MAX_SOFT_CLASSES);
    REQUIRE(o->mix_mode != FEED_MIX_PAIR || o->batch_size % 2 == 0 ||
                (o->mixup_alpha == 0 && o->cutmix_alpha == 0),
            "mix_mode=pair needs an even batch_size (got %u): samples are mixed in pairs", o->batch_size);
    REQUIRE(o->repeats >= 1 && o->repeats <= 64, "repeats=%u must be in 1..64", o->repeats);
    REQUIRE(o->device_prefetch >= 1 && o->device_prefetch <= 64,
            "device_prefetch=%u must be in 1..64", o->device_prefetch);
    REQUIRE(o->bad_policy <= FEED_BAD_FAIL, "bad_policy=%u unknown (replace|fail, 0..1)", o->bad_policy);
    REQUIRE(o->max_retries <= 100, "max_retries=%u must be in 0..100", o->max_retries);
    REQUIRE(o->fetch_parallel >= 1 && o->fetch_parallel <= 64, "fetch_parallel=%u must be in 1..64",
            o->fetch_parallel);
    REQUIRE(o->fetch_ahead <= 1024, "fetch_ahead=%u must be in 0..1024 (batches)", o->fetch_ahead);
    REQUIRE(o->fetch_ranges <= FEED_FETCH_RANGES, "fetch_ranges=%u unknown (whole|ranges, 0..1)",
            o->fetch_ranges);
    REQUIRE(o->fetch_ranges != FEED_FETCH_RANGES || o->fetch_ahead > 0,
            "fetch_ranges=ranges needs fetch_ahead > 0: the ranges fetched are those of the batches "
            "about to be read");
    REQUIRE(o->fetch_retries <= 100, "fetch_retries=%u must be in 0..100", o->fetch_retries);
    REQUIRE(o->fetch_timeout_ms >= 100 && o->fetch_timeout_ms <= 3600000,
            "fetch_timeout_ms=%u must be in 100..3600000", o->fetch_timeout_ms);
    REQUIRE(o->sample_timeout_ms == 0 || o->sample_timeout_ms >= FEED_MIN_SAMPLE_TIMEOUT_MS,
            "sample_timeout_ms=%u must be 0 (never) or >= %u: a worker busy longer than this on one "
            "sample is killed as hung, and a large JPEG takes tens of ms to decode",
            o->sample_timeout_ms, FEED_MIN_SAMPLE_TIMEOUT_MS);
    REQUIRE(o->max_file_bytes >= 1, "max_file_bytes=0 must be >= 1");
    REQUIRE(o->reader <= FEED_READER_PREAD, "reader=%u unknown (auto|uring|pread, 0..2)", o->reader);
    if (o->max_worker_memory == FEED_WORKER_MEMORY_AUTO) {
        uint64_t px = o->max_pixels, fb = o->max_file_bytes;
        o->max_worker_memory = px > UINT64_MAX / 16 || fb > UINT64_MAX / 4 ? 0 /* no cap to speak of */
                                                                          : 12 * px + fb + (64ull << 20);
    }
    REQUIRE(o->max_worker_memory == 0 || o->max_worker_memory >= FEED_MIN_WORKER_MEMORY,
            "max_worker_memory=%llu must be 0 (no cap) or >= %llu bytes (16 MiB)",
            (unsigned long long)o->max_worker_memory, (unsigned long long)FEED_MIN_WORKER_MEMORY);
    REQUIRE(o->readahead <= 4096, "readahead=%u must be in 0..4096 (batches)", o->readahead);
    REQUIRE(o->max_bad_fraction >= 0 && o->max_bad_fraction <= 1,
            "max_bad_fraction=%g must be in [0, 1] (0: the first bad sample fails next(); 1: no budget)",
            o->max_bad_fraction);
    /* every text option ends inside its buffer (a caller may fill one by hand) */
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        REQUIRE(defs[i].type != T_STR || memchr((const char *)o + defs[i].offset, 0, defs[i].size),
                "%s is not NUL-terminated (max %zu bytes)", defs[i].key, defs[i].size - 1);
    char exts[4][32], why[256];
    REQUIRE(feed__options_meta_members(o, exts, why, sizeof why) >= 0, "%s", why);
    REQUIRE(o->meta_max_bytes >= 1 && o->meta_max_bytes <= FEED_MAX_META_BYTES,
            "meta_max_bytes=%u must be in 1..%u", o->meta_max_bytes, FEED_MAX_META_BYTES);
    REQUIRE(o->meta_missing <= FEED_META_MISSING_EMPTY, "meta_missing=%u unknown (bad|empty, 0..1)",
            o->meta_missing);
#undef REQUIRE
    return FEED_OK;
}
