/*
 * decodebench_formats.c - decodebench --format png|webp: libfeed's PNG
 * (libspng) or WebP (libwebp) decoder and pipeline against PIL decoding the
 * same files, on one core, side by side in one run.
 *
 * Rows:
 *   pil     PIL: Image.open(BytesIO(bytes)).convert("RGB"), torchvision's
 *           default loader (bench/pil_decode.py, a python3 process of its own)
 *   full    libfeed's decoder alone: the whole image to RGBX
 *   train   RandomResizedCrop(size) + flip (PNG: the rows down to the crop;
 *           WebP: the crop, by libwebp's cropping)
 *   val     Resize(size*8/7) + CenterCrop(size)
 *
 * Rates are images per second of thread CPU time (each side measures its own
 * thread), best of 3 rounds that alternate between the rows so that a noisy
 * neighbour hurts them all alike. "x PIL" is a row's rate over PIL's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/jpeg.h"
#include "decode/png.h"
#include "decode/webp.h"
#include "decodebench.h"
#include "feed.h"
#include "pixels/pipeline.h"

enum { F_PIL, F_FULL, F_TRAIN, F_VAL, F_COUNT };
static const char *f_names[F_COUNT] = {"pil", "full", "train", "val"};

typedef struct fctx {
    int webp;
    feed__png *png;
    feed__webp *wp;
    feed__image_ctx *ctx;
    feed__xform train, val;
    uint8_t *out;
    uint64_t counter;
    uint64_t decode_ns[F_COUNT], augment_ns[F_COUNT], n[F_COUNT];
} fctx;

static int f_run(fctx *c, int op, const db_file *f)
{
    char msg[256];
    if (op == F_FULL) {
        feed__decode_image img;
        return c->webp ? feed__webp_decode(c->wp, f->data, f->len, db_plan_full, NULL, &img, msg, sizeof msg)
                       : feed__png_decode(c->png, f->data, f->len, db_plan_full, NULL, &img, msg, sizeof msg);
    }
    feed__image_info info;
    int rc = feed__image_process(c->ctx, op == F_TRAIN ? &c->train : &c->val, f->data, f->len, 1, 0,
                                 c->counter++, c->out, &info, msg, sizeof msg);
    if (rc)
        fprintf(stderr, "decodebench: %s: %s\n", f->path, msg);
    c->decode_ns[op] += info.decode_ns;
    c->augment_ns[op] += info.augment_ns;
    c->n[op]++;
    return rc;
}

/* One round of PIL (a process of its own, seconds of its thread CPU time):
 * its images per second of CPU and of wall time, or -1 if it could not run. */
static int pil_round(const char *pil, const char *list, double seconds, double *cpu_rate,
                     double *wall_rate, char *version, size_t vlen)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "python3 '%s' --list '%s' --seconds %.3f", pil, list, seconds);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[1024] = "";
    size_t got = fread(line, 1, sizeof line - 1, p);
    line[got] = '\0';
    int st = pclose(p);
    const char *c = strstr(line, "\"img_s_cpu\": "), *w = strstr(line, "\"img_s_wall\": ");
    const char *v = strstr(line, "\"pillow\": \"");
    if (st != 0 || !c || !w || !v) {
        fprintf(stderr, "decodebench: PIL's side gave no rate: %s", line[0] ? line : "(nothing)\n");
        return -1;
    }
    *cpu_rate = strtod(c + 13, NULL);
    *wall_rate = strtod(w + 14, NULL);
    v += 11;
    size_t n = strcspn(v, "\"");
    snprintf(version, vlen, "%.*s", (int)(n < vlen ? n : vlen - 1), v);
    return 0;
}

int db_formats_main(const char *format, const char *pil, const char *json, double seconds,
                    uint32_t size, int quiet)
{
    fctx c;
    memset(&c, 0, sizeof c);
    c.webp = !strcmp(format, "webp");
    c.png = feed__png_create();
    c.wp = feed__webp_create();
    c.ctx = feed__image_ctx_create();
    c.out = malloc((size_t)size * size * 3);
    if (!c.png || !c.wp || !c.ctx || !c.out) {
        fprintf(stderr, "decodebench: out of memory\n");
        return 1;
    }
    db_xforms(size, &c.train, &c.val);

    /* every file must decode (and the same list goes to PIL) */
    char list[] = "/tmp/decodebench-list.XXXXXX";
    int fd = mkstemp(list);
    FILE *lf = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!lf) {
        fprintf(stderr, "decodebench: temporary file: %s\n", strerror(errno));
        return 1;
    }
    size_t bytes = 0, bad = 0;
    for (size_t i = 0; i < g_nfiles; i++) {
        fprintf(lf, "%s\n", g_files[i].path);
        bytes += g_files[i].len;
        for (int op = F_FULL; op < F_COUNT; op++)
            if (f_run(&c, op, &g_files[i]) != 0) {
                bad++;
                break;
            }
    }
    fclose(lf);
    memset(c.n, 0, sizeof c.n);
    memset(c.decode_ns, 0, sizeof c.decode_ns);
    memset(c.augment_ns, 0, sizeof c.augment_ns);
    if (!quiet)
        printf("decodebench --format %s: %zu files, %.1f MB, output %ux%u, %zu failed\n", format,
               g_nfiles, bytes / 1e6, size, size, bad);

    int rounds = seconds >= 0.6 ? 3 : 1;
    double cpu_rate[F_COUNT] = {0}, wall_rate[F_COUNT] = {0};
    char pil_version[32] = "";
    int pil_ok = 1;
    size_t cursor[F_COUNT] = {0};
    for (int round = 0; round < rounds; round++)
        for (int op = 0; op < F_COUNT; op++) {
            double cr = 0, wr = 0;
            if (op == F_PIL) {
                if (pil_ok && pil_round(pil, list, seconds / rounds, &cr, &wr, pil_version,
                                        sizeof pil_version) != 0)
                    pil_ok = 0;
            } else {
                double c0 = db_now(CLOCK_THREAD_CPUTIME_ID), w0 = db_now(CLOCK_MONOTONIC);
                uint64_t n = 0;
                do {
                    for (int k = 0; k < 8; k++, n++) {
                        f_run(&c, op, &g_files[cursor[op]]);
                        cursor[op] = (cursor[op] + 1) % g_nfiles;
                    }
                } while (db_now(CLOCK_THREAD_CPUTIME_ID) - c0 < seconds / rounds);
                cr = n / (db_now(CLOCK_THREAD_CPUTIME_ID) - c0);
                wr = n / (db_now(CLOCK_MONOTONIC) - w0);
            }
            if (cr > cpu_rate[op])
                cpu_rate[op] = cr;
            if (wr > wall_rate[op])
                wall_rate[op] = wr;
        }
    unlink(list);
    double pil1 = cpu_rate[F_PIL];
    if (!quiet) {
        printf("\n%-6s %11s %8s %15s %11s %7s\n", "", "img/s/core", "us/img", "decode+augment",
               "img/s(wall)", "x PIL");
        for (int op = 0; op < F_COUNT; op++) {
            char split[32] = "-", ratio[16] = "-";
            if (c.n[op])
                snprintf(split, sizeof split, "%.0f+%.0f", c.decode_ns[op] / 1e3 / c.n[op],
                         c.augment_ns[op] / 1e3 / c.n[op]);
            if (pil1 > 0)
                snprintf(ratio, sizeof ratio, "%.2f", cpu_rate[op] / pil1);
            if (cpu_rate[op] > 0)
                printf("%-6s %11.0f %8.1f %15s %11.0f %7s\n", f_names[op], cpu_rate[op],
                       1e6 / cpu_rate[op], split, wall_rate[op], ratio);
            else
                printf("%-6s %11s %8s %15s %11s %7s\n", f_names[op], "-", "-", split, "-", ratio);
        }
        printf("\nbest of %d rounds of %.2f s of thread CPU time each, rows alternating;\n"
               "pil: Pillow %s, Image.open(BytesIO).convert(\"RGB\"), in python3; full: libfeed's\n"
               "%s decoder alone (whole image, RGBX); train/val: the whole pipeline at %ux%u.\n",
               rounds, seconds / rounds, pil_ok ? pil_version : "(not run)",
               c.webp ? "libwebp" : "libspng", size, size);
    }
    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            fprintf(stderr, "decodebench: %s: %s\n", json, strerror(errno));
            return 1;
        }
        fprintf(f, "{\n  \"format\": \"%s\",\n  \"files\": %zu,\n  \"bytes\": %zu,\n  \"size\": %u,\n",
                format, g_nfiles, bytes, size);
        fprintf(f, "  \"seconds\": %.3f,\n  \"pillow\": \"%s\",\n", seconds, pil_version);
        for (int op = 0; op < F_COUNT; op++)
            fprintf(f, "  \"%s_img_s\": %.1f,\n  \"%s_img_s_wall\": %.1f,\n  \"%s_x_pil\": %.4f,\n",
                    f_names[op], cpu_rate[op], f_names[op], wall_rate[op], f_names[op],
                    pil1 > 0 ? cpu_rate[op] / pil1 : 0.0);
        fprintf(f, "  \"failed_files\": %zu\n}\n", bad);
        fclose(f);
    }
    feed__png_destroy(c.png);
    feed__webp_destroy(c.wp);
    feed__image_ctx_destroy(c.ctx);
    free(c.out);
    return bad == g_nfiles ? 1 : 0;
}
