/*
 * decodebench - the per-image CPU cost of libfeed's image pipeline against a
 * plain full JPEG decode (the ceiling), per core and with all cores.
 *
 *   decodebench --data DIR [--json FILE] [--max N] [--seconds S] [--workers W]
 *               [--size N] [--format jpeg|png|webp] [--pil SCRIPT] [--resize-level L] [--quiet]
 *
 * --format png or webp: the mode of decodebench_formats.c, libfeed's decoder
 * and pipeline against PIL on the same files (the rows are described there).
 * This file holds main, the JPEG rows and their measurement; what both modes
 * use (the files in memory, the transforms, the clock) is in
 * decodebench_common.c. This file calls the other two; they call nothing here.
 *
 * DIR is an ImageFolder tree (searched recursively for .jpg/.jpeg; .png or
 * .webp with --format) or holds a
 * files.txt ("relative/path label" lines). Files are read into memory first,
 * so no I/O is measured. Each measurement cycles over the same files for S
 * seconds (default 1), split into rounds that alternate between the
 * configurations so that a noisy neighbour hurts them all alike; the best
 * round counts (for the all-cores rows too).
 *
 * Single-core rates are images per second of *thread CPU time*
 * (CLOCK_THREAD_CPUTIME_ID), which is what "per core" means and is not
 * inflated by other processes on a shared machine; wall-clock rates are
 * printed beside them. The all-cores rates run W processes (default: the
 * number of online CPUs) for S seconds of wall time and count what they
 * finish.
 *
 * Rows:
 *   ceiling      TurboJPEG tjDecompress2, full image, RGB (what a decoder costs)
 *   full-rgbx    libfeed's own full decode (libjpeg API, RGBX), for reference
 *   train        RandomResizedCrop(size) + flip, ROI + DCT-scaled decode into
 *                the file's planes, resized each at its own resolution
 *   train-rgb    the same through the interleaved RGB decode (feed__image_planar
 *                = 0: libjpeg upsamples the chroma and converts every pixel)
 *   train-noroi  the same with roi_decode=0 (full decode, then crop)
 *   val          Resize(size*8/7) + CenterCrop(size), ROI + DCT-scaled decode
 *   val-rgb      the same through the interleaved RGB decode
 *   val-noroi    the same with roi_decode=0
 *   train-ljhuff, val-ljhuff   train and val with libjpeg-turbo's Huffman
 *                decoder in place of libfeed's (src/decode/jpeg_huff.c): the same
 *                pixels, side by side
 *   train-entropy, val-entropy   what no ROI decode can go below with
 *                libfeed's Huffman decoder: the same kind of crop box (train:
 *                a RandomResizedCrop box; val: the centre crop), decoding
 *                nothing but one 1/8-scale
 *                row at the box's bottom edge, so the cost is the header and
 *                the entropy (Huffman) decoding of every row down to the crop's
 *                last one (rows above it are skipped without IDCT; columns
 *                cannot be skipped before the entropy decoder). Whatever the
 *                train/val rows spend above this is IDCT, upsampling, colour
 *                conversion and the augment stage.
 *   train-ta     train + TrivialAugmentWide (auto_augment=trivialaugment)
 *   train-ra     train + RandAugment(num_ops=2, magnitude=9) (auto_augment=randaugment)
 *   train-bicubic  train with interpolation=bicubic: each beside train gives
 *                what that step costs per image
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <turbojpeg.h>

#include "decodebench.h"
#include "decode/jpeg.h"
#include "decode/jpeg_huff.h" /* feed__huff_refine_level, for --refine-level */
#include "feed.h"
#include "pixels/geometry.h"
#include "pixels/pipeline.h"
#include "pixels/resize.h" /* feed__resize_simd, for --resize-level */

typedef db_file file;

/* ---- the measured operations --------------------------------------------------------- */

enum {
    OP_CEILING, OP_FULL_RGBX, OP_TRAIN, OP_TRAIN_RGB, OP_TRAIN_NOROI, OP_VAL, OP_VAL_RGB,
    OP_VAL_NOROI, OP_TRAIN_LJHUFF, OP_VAL_LJHUFF, OP_TRAIN_ENTROPY, OP_VAL_ENTROPY, OP_TRAIN_TA,
    OP_TRAIN_RA, OP_TRAIN_BICUBIC, OP_COUNT
};
static const char *op_names[OP_COUNT] = {"ceiling", "full-rgbx", "train", "train-rgb", "train-noroi",
                                         "val", "val-rgb", "val-noroi", "train-ljhuff",
                                         "val-ljhuff", "train-entropy", "val-entropy", "train-ta",
                                         "train-ra", "train-bicubic"};

typedef struct runner {
    tjhandle tj;
    uint8_t *rgb;
    size_t rgb_cap;
    feed__image_ctx *ctx;
    feed__xform train, val;
    uint8_t *out;
    uint64_t counter; /* sample id: a new crop every time */
    uint64_t decode_ns[OP_COUNT], augment_ns[OP_COUNT], n[OP_COUNT]; /* stage split */
    feed__jpeg *jpeg;
} runner;

static uint32_t g_size = 224;

static void runner_init(runner *r)
{
    memset(r, 0, sizeof *r);
    r->tj = tjInitDecompress();
    r->ctx = feed__image_ctx_create();
    r->jpeg = feed__jpeg_create();
    db_xforms(g_size, &r->train, &r->val);
    r->out = malloc((size_t)g_size * g_size * 3);
    if (!r->tj || !r->ctx || !r->jpeg || !r->out) {
        fprintf(stderr, "decodebench: out of memory\n");
        exit(1);
    }
}

static void runner_free(runner *r)
{
    tjDestroy(r->tj);
    feed__image_ctx_destroy(r->ctx);
    feed__jpeg_destroy(r->jpeg);
    free(r->rgb);
    free(r->out);
}

/* The entropy floor's plan (train-entropy, val-entropy): the crop box as
 * pixels/pipeline.c places it (displayed orientation, mapped to the stored image), and
 * one 1/8-scale row at its bottom edge as the region. */
typedef struct floor_arg {
    const feed__xform *x;
    uint64_t id;
} floor_arg;

static int plan_floor(void *arg, const feed__decode_info *info, feed__decode_region *reg, char *msg,
                      size_t msglen)
{
    (void)msg, (void)msglen;
    const floor_arg *a = arg;
    const feed__xform *x = a->x;
    uint32_t o = info->orientation, ws = info->width, hs = info->height;
    uint32_t wd = o >= 5 ? hs : ws, hd = o >= 5 ? ws : hs;
    double b[4] = {0, wd, 0, hd}, v[4];
    if (x->mode == FEED_AUGMENT_VAL) {
        uint32_t sub[4];
        feed__center_crop_box(wd, hd, x->resize_shorter, x->out_w, x->out_h, b, sub);
    } else {
        feed__rng rng;
        feed__rng_init(&rng, 1, 0, a->id, FEED_RNG_CROP);
        uint32_t i, j, h, w;
        feed__rrc_box(&rng, wd, hd, x->scale_min, x->scale_max, x->ratio_min, x->ratio_max, &i, &j,
                      &h, &w);
        b[0] = j, b[1] = j + w, b[2] = i, b[3] = i + h;
    }
    feed__map_rect(o, ws, hs, b[0], b[1], b[2], b[3], v);
    uint32_t sh = feed__jpeg_scaled(hs, 1), y1 = (uint32_t)((v[3] + 7) / 8);
    y1 = y1 < 1 ? 1 : y1 > sh ? sh : y1;
    reg->scale = 1;
    reg->x0 = 0;
    reg->x1 = 1;
    reg->y0 = y1 - 1;
    reg->y1 = y1;
    return 0;
}

static int run_one(runner *r, int op, const file *f)
{
    char msg[256];
    int rc = 0;
    switch (op) {
    case OP_CEILING: {
        int w, h, ss, cs;
        if (tjDecompressHeader3(r->tj, f->data, (unsigned long)f->len, &w, &h, &ss, &cs))
            return -1;
        size_t need = (size_t)w * h * 3;
        if (need > r->rgb_cap) {
            free(r->rgb);
            r->rgb = malloc(need);
            r->rgb_cap = need;
        }
        rc = tjDecompress2(r->tj, f->data, (unsigned long)f->len, r->rgb, w, 0, h, TJPF_RGB, 0);
        break;
    }
    case OP_FULL_RGBX: {
        feed__decode_image img;
        rc = feed__jpeg_decode(r->jpeg, f->data, f->len, db_plan_full, NULL, &img, msg, sizeof msg);
        break;
    }
    case OP_TRAIN_ENTROPY:
    case OP_VAL_ENTROPY: {
        feed__decode_image img;
        floor_arg a = {op == OP_TRAIN_ENTROPY ? &r->train : &r->val, r->counter++};
        rc = feed__jpeg_decode(r->jpeg, f->data, f->len, plan_floor, &a, &img, msg, sizeof msg);
        break;
    }
    default: {
        int train = op == OP_TRAIN || op == OP_TRAIN_RGB || op == OP_TRAIN_NOROI || op == OP_TRAIN_LJHUFF ||
                    op == OP_TRAIN_TA || op == OP_TRAIN_RA || op == OP_TRAIN_BICUBIC;
        feed__xform x = train ? r->train : r->val;
        if (op == OP_TRAIN_TA) { /* TrivialAugmentWide, torchvision's defaults */
            x.policy = FEED_POLICY_TRIVIAL;
        } else if (op == OP_TRAIN_RA) { /* RandAugment(num_ops=2, magnitude=9) */
            x.policy = FEED_POLICY_RAND;
        }
        x.bicubic = op == OP_TRAIN_BICUBIC;
        x.roi_decode = op != OP_TRAIN_NOROI && op != OP_VAL_NOROI;
        feed__image_info info;
        feed__image_planar = op != OP_TRAIN_RGB && op != OP_VAL_RGB;
        feed__image_libjpeg_huff = op == OP_TRAIN_LJHUFF || op == OP_VAL_LJHUFF;
        rc = feed__image_process(r->ctx, &x, f->data, f->len, 1, 0, r->counter++, r->out, &info,
                                 msg, sizeof msg);
        feed__image_planar = 1;
        feed__image_libjpeg_huff = 0;
        r->decode_ns[op] += info.decode_ns;
        r->augment_ns[op] += info.augment_ns;
        r->n[op]++;
        break;
    }
    }
    return rc;
}

#define now db_now

/* Runs op over the files (whole passes, at least one) for about `seconds` of
 * thread CPU time. Returns images; *cpu and *wall get the times. */
static uint64_t measure(runner *r, int op, double seconds, size_t *cursor, double *cpu,
                        double *wall)
{
    double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
    uint64_t n = 0;
    do {
        for (int k = 0; k < 8; k++) {
            run_one(r, op, &g_files[*cursor]);
            *cursor = (*cursor + 1) % g_nfiles;
            n++;
        }
    } while (now(CLOCK_THREAD_CPUTIME_ID) - c0 < seconds);
    *cpu = now(CLOCK_THREAD_CPUTIME_ID) - c0;
    *wall = now(CLOCK_MONOTONIC) - w0;
    return n;
}

/* W processes run op for `seconds` of wall time; images per second in total. */
static double measure_all(int op, int workers, double seconds)
{
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        exit(1);
    }
    double start = now(CLOCK_MONOTONIC) + 0.05;
    for (int w = 0; w < workers; w++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            exit(1);
        }
        if (pid == 0) {
            close(fds[0]);
            runner r;
            runner_init(&r);
            r.counter = (uint64_t)w << 40;
            size_t cursor = (g_nfiles * (size_t)w) / (size_t)workers;
            for (int k = 0; k < 8; k++) /* warm up */
                run_one(&r, op, &g_files[(cursor + (size_t)k) % g_nfiles]);
            while (now(CLOCK_MONOTONIC) < start)
                ;
            uint64_t n = 0;
            double t;
            while ((t = now(CLOCK_MONOTONIC)) < start + seconds) {
                run_one(&r, op, &g_files[cursor]);
                cursor = (cursor + 1) % g_nfiles;
                n++;
            }
            double rate = (double)n / (t - start);
            ssize_t wr = write(fds[1], &rate, sizeof rate);
            (void)wr;
            runner_free(&r);
            _exit(0);
        }
    }
    close(fds[1]);
    double total = 0, rate;
    while (read(fds[0], &rate, sizeof rate) == (ssize_t)sizeof rate)
        total += rate;
    close(fds[0]);
    while (wait(NULL) > 0)
        ;
    return total;
}

/* 1 if name is one of the comma-separated names in list. */
static int row_listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (e ? 1 : 0);
    }
    return 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: decodebench --data DIR [--json FILE] [--max N] [--seconds S] [--workers W]\n"
            "                   [--size N] [--format F] [--pil SCRIPT] [--resize-level L] [--rows LIST]\n"
            "                   [--progressive-only] [--refine-level L] [--quiet]\n"
            "  --data DIR     ImageFolder tree or folder with files.txt\n"
            "  --json FILE    also write the results as JSON\n"
            "  --max N        use at most N files (default 500)\n"
            "  --seconds S    CPU seconds per single-core measurement, wall seconds per\n"
            "                 all-cores one (default 1)\n"
            "  --workers W    processes for the all-cores rows (default: online CPUs)\n"
            "  --size N       output N x N (default 224; val resizes to N*8/7 first)\n"
            "  --format F     jpeg (default), or png / webp: against PIL, single core\n"
            "  --pil SCRIPT   PIL's side of --format (default: bench/pil_decode.py)\n"
            "  --rows LIST    measure only these rows (comma-separated names, as printed;\n"
            "                 the ceiling is always measured), e.g. for a profiler\n"
            "  --resize-level L  resize kernels: 0 C, 1 SSE2, 2 AVX2, 3 AVX-512 (default:\n"
            "                 the best this CPU has; for side-by-side runs)\n"
            "  --progressive-only  only the progressive JPEGs among the files (up to --max)\n"
            "  --refine-level L  progressive refinement kernel: 0 C, 1 popcnt, 2 popcnt and\n"
            "                 pdep (default: the best this CPU runs well)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *data = NULL, *json = NULL, *pil = DECODEBENCH_PIL_SCRIPT;
    double seconds = 1.0;
    long workers = sysconf(_SC_NPROCESSORS_ONLN);
    int quiet = 0;
    const char *rows = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--data") && v)
            data = v, i++;
        else if (!strcmp(a, "--json") && v)
            json = v, i++;
        else if (!strcmp(a, "--max") && v)
            g_max = strtoull(v, NULL, 10), i++;
        else if (!strcmp(a, "--seconds") && v)
            seconds = strtod(v, NULL), i++;
        else if (!strcmp(a, "--workers") && v)
            workers = strtol(v, NULL, 10), i++;
        else if (!strcmp(a, "--size") && v)
            g_size = (uint32_t)strtoul(v, NULL, 10), i++;
        else if (!strcmp(a, "--format") && v)
            g_format = v, i++;
        else if (!strcmp(a, "--pil") && v)
            pil = v, i++;
        else if (!strcmp(a, "--resize-level") && v)
            feed__resize_simd = (int)strtol(v, NULL, 10), i++;
        else if (!strcmp(a, "--rows") && v)
            rows = v, i++;
        else if (!strcmp(a, "--progressive-only"))
            g_progressive_only = 1;
        else if (!strcmp(a, "--refine-level") && v) {
            int l = (int)strtol(v, NULL, 10);
            if (feed__huff_refine_level(l) != l) {
                fprintf(stderr, "decodebench: this CPU has no refinement kernel %d\n", l);
                return 2;
            }
            i++;
        }
        else if (!strcmp(a, "--quiet"))
            quiet = 1;
        else
            usage();
    }
    if (!data || seconds <= 0 || workers < 1 || g_size < 1 || g_max < 1 ||
        (strcmp(g_format, "jpeg") && strcmp(g_format, "png") && strcmp(g_format, "webp")))
        usage();
    int want[OP_COUNT];
    for (int op = 0; op < OP_COUNT; op++)
        want[op] = !rows || op == OP_CEILING || row_listed(rows, op_names[op]);
    db_load(data);
    if (g_nfiles == 0) {
        fprintf(stderr, "decodebench: no %s files found in %s\n", g_format, data);
        return 1;
    }
    if (strcmp(g_format, "jpeg"))
        return db_formats_main(g_format, pil, json, seconds, g_size, quiet);

    runner r;
    runner_init(&r);
    /* check every file decodes, and gather sizes */
    double mpix = 0;
    size_t bytes = 0, bad = 0;
    for (size_t i = 0; i < g_nfiles; i++) {
        int w, h, ss, cs;
        if (tjDecompressHeader3(r.tj, g_files[i].data, (unsigned long)g_files[i].len, &w, &h, &ss,
                                &cs) == 0)
            mpix += (double)w * h / 1e6;
        bytes += g_files[i].len;
        for (int op = 0; op < OP_COUNT; op++)
            if (run_one(&r, op, &g_files[i]) != 0) {
                bad++;
                break;
            }
    }
    if (!quiet)
        printf("decodebench: %zu files, %.1f MB, %.3f Mpixel mean, output %ux%u, %s%zu failed\n",
               g_nfiles, bytes / 1e6, mpix / g_nfiles, g_size, g_size, bad ? "" : "", bad);

    /* single core: rounds alternate between the configurations */
    int rounds = seconds >= 0.6 ? 3 : 1;
    double best_cpu_rate[OP_COUNT] = {0}, best_wall_rate[OP_COUNT] = {0};
    size_t cursor[OP_COUNT] = {0};
    for (int round = 0; round < rounds; round++)
        for (int op = 0; op < OP_COUNT; op++) {
            if (!want[op])
                continue;
            double cpu, wall;
            uint64_t n = measure(&r, op, seconds / rounds, &cursor[op], &cpu, &wall);
            if (n / cpu > best_cpu_rate[op])
                best_cpu_rate[op] = n / cpu;
            if (n / wall > best_wall_rate[op])
                best_wall_rate[op] = n / wall;
        }
    double dec_us[OP_COUNT] = {0}, aug_us[OP_COUNT] = {0};
    for (int op = 0; op < OP_COUNT; op++)
        if (r.n[op]) {
            dec_us[op] = r.decode_ns[op] / 1e3 / r.n[op];
            aug_us[op] = r.augment_ns[op] / 1e3 / r.n[op];
        }
    runner_free(&r);

    /* all cores */
    static const int all_ops[] = {OP_CEILING, OP_TRAIN, OP_VAL};
    double all_rate[OP_COUNT] = {0};
    for (int round = 0; round < rounds; round++) /* alternating, best round counts */
        for (size_t k = 0; k < sizeof all_ops / sizeof *all_ops; k++) {
            if (!want[all_ops[k]])
                continue;
            double rate = measure_all(all_ops[k], (int)workers, seconds / rounds);
            if (rate > all_rate[all_ops[k]])
                all_rate[all_ops[k]] = rate;
        }

    double ceil1 = best_cpu_rate[OP_CEILING];
    if (!quiet) {
        printf("\n%-12s %11s %8s %15s %11s %9s | %10s %9s\n", "", "img/s/core", "us/img",
               "decode+augment", "img/s(wall)", "x ceiling", "img/s all", "x ceiling");
        for (int op = 0; op < OP_COUNT; op++) {
            if (!want[op])
                continue;
            char split[32] = "-";
            if (dec_us[op] > 0)
                snprintf(split, sizeof split, "%.0f+%.0f", dec_us[op], aug_us[op]);
            printf("%-12s %11.0f %8.1f %15s %11.0f %9.3f |", op_names[op], best_cpu_rate[op],
                   1e6 / best_cpu_rate[op], split, best_wall_rate[op], best_cpu_rate[op] / ceil1);
            if (all_rate[op] > 0)
                printf(" %10.0f %9.3f\n", all_rate[op], all_rate[op] / ceil1);
            else
                printf(" %10s %9s\n", "-", "-");
        }
        printf("\nall-cores rows: %ld processes, best of %d rounds of %.2f s wall; per-core rows:\n"
               "best of the same rounds of thread CPU time. 'x ceiling' is over the single-core\n"
               "ceiling.\n"
               "decode+augment: mean wall us in feed__image_process's two stages.\n",
               workers, rounds, seconds / rounds);
    }
    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            fprintf(stderr, "decodebench: %s: %s\n", json, strerror(errno));
            return 1;
        }
        fprintf(f, "{\n");
        fprintf(f, "  \"files\": %zu,\n  \"mean_mpixel\": %.4f,\n  \"size\": %u,\n", g_nfiles,
                mpix / g_nfiles, g_size);
        fprintf(f, "  \"workers\": %ld,\n  \"seconds\": %.3f,\n", workers, seconds);
        fprintf(f, "  \"ceiling_img_s\": %.1f,\n", ceil1);
        fprintf(f, "  \"full_rgbx_img_s\": %.1f,\n", best_cpu_rate[OP_FULL_RGBX]);
        fprintf(f, "  \"train_img_s\": %.1f,\n", best_cpu_rate[OP_TRAIN]);
        fprintf(f, "  \"train_rgb_img_s\": %.1f,\n", best_cpu_rate[OP_TRAIN_RGB]);
        fprintf(f, "  \"val_rgb_img_s\": %.1f,\n", best_cpu_rate[OP_VAL_RGB]);
        fprintf(f, "  \"train_rgb_ratio\": %.4f,\n", best_cpu_rate[OP_TRAIN_RGB] / ceil1);
        fprintf(f, "  \"val_rgb_ratio\": %.4f,\n", best_cpu_rate[OP_VAL_RGB] / ceil1);
        fprintf(f, "  \"train_noroi_img_s\": %.1f,\n", best_cpu_rate[OP_TRAIN_NOROI]);
        fprintf(f, "  \"val_img_s\": %.1f,\n", best_cpu_rate[OP_VAL]);
        fprintf(f, "  \"val_noroi_img_s\": %.1f,\n", best_cpu_rate[OP_VAL_NOROI]);
        fprintf(f, "  \"train_ratio\": %.4f,\n", best_cpu_rate[OP_TRAIN] / ceil1);
        fprintf(f, "  \"train_noroi_ratio\": %.4f,\n", best_cpu_rate[OP_TRAIN_NOROI] / ceil1);
        fprintf(f, "  \"val_ratio\": %.4f,\n", best_cpu_rate[OP_VAL] / ceil1);
        fprintf(f, "  \"val_noroi_ratio\": %.4f,\n", best_cpu_rate[OP_VAL_NOROI] / ceil1);
        fprintf(f, "  \"train_ljhuff_img_s\": %.1f,\n", best_cpu_rate[OP_TRAIN_LJHUFF]);
        fprintf(f, "  \"val_ljhuff_img_s\": %.1f,\n", best_cpu_rate[OP_VAL_LJHUFF]);
        fprintf(f, "  \"train_ljhuff_ratio\": %.4f,\n", best_cpu_rate[OP_TRAIN_LJHUFF] / ceil1);
        fprintf(f, "  \"val_ljhuff_ratio\": %.4f,\n", best_cpu_rate[OP_VAL_LJHUFF] / ceil1);
        fprintf(f, "  \"train_entropy_img_s\": %.1f,\n", best_cpu_rate[OP_TRAIN_ENTROPY]);
        fprintf(f, "  \"val_entropy_img_s\": %.1f,\n", best_cpu_rate[OP_VAL_ENTROPY]);
        fprintf(f, "  \"train_entropy_ratio\": %.4f,\n", best_cpu_rate[OP_TRAIN_ENTROPY] / ceil1);
        fprintf(f, "  \"val_entropy_ratio\": %.4f,\n", best_cpu_rate[OP_VAL_ENTROPY] / ceil1);
        /* the policies' and bicubic's cost: CPU time per image over plain train's */
        fprintf(f, "  \"train_ta_img_s\": %.1f,\n", best_cpu_rate[OP_TRAIN_TA]);
        fprintf(f, "  \"train_ra_img_s\": %.1f,\n", best_cpu_rate[OP_TRAIN_RA]);
        fprintf(f, "  \"train_bicubic_img_s\": %.1f,\n", best_cpu_rate[OP_TRAIN_BICUBIC]);
        if (best_cpu_rate[OP_TRAIN] > 0 && best_cpu_rate[OP_TRAIN_TA] > 0)
            fprintf(f, "  \"ta_time_over_train\": %.4f,\n", best_cpu_rate[OP_TRAIN] / best_cpu_rate[OP_TRAIN_TA]);
        if (best_cpu_rate[OP_TRAIN] > 0 && best_cpu_rate[OP_TRAIN_RA] > 0)
            fprintf(f, "  \"ra_time_over_train\": %.4f,\n", best_cpu_rate[OP_TRAIN] / best_cpu_rate[OP_TRAIN_RA]);
        if (best_cpu_rate[OP_TRAIN] > 0 && best_cpu_rate[OP_TRAIN_BICUBIC] > 0)
            fprintf(f, "  \"bicubic_time_over_train\": %.4f,\n",
                    best_cpu_rate[OP_TRAIN] / best_cpu_rate[OP_TRAIN_BICUBIC]);
        fprintf(f, "  \"ceiling_all_cores_img_s\": %.1f,\n", all_rate[OP_CEILING]);
        fprintf(f, "  \"train_all_cores_img_s\": %.1f,\n", all_rate[OP_TRAIN]);
        fprintf(f, "  \"val_all_cores_img_s\": %.1f,\n", all_rate[OP_VAL]);
        fprintf(f, "  \"train_ratio_all_cores\": %.4f,\n", all_rate[OP_TRAIN] / ceil1);
        fprintf(f, "  \"val_ratio_all_cores\": %.4f,\n", all_rate[OP_VAL] / ceil1);
        fprintf(f, "  \"failed_files\": %zu\n", bad);
        fprintf(f, "}\n");
        fclose(f);
    }
    return bad == g_nfiles ? 1 : 0;
}
