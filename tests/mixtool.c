/*
 * mixtool.c - libfeed's MixUp/CutMix and RandomErasing with parameters given
 * on the command line, for python/tests/test_torchvision_mix.py to compare
 * with torchvision and timm on the same lambda, box and pairing (the draws
 * themselves come from libfeed's generator, which those libraries do not
 * share). A test program: not installed, not part of the API.
 *
 *   feed-mixtool mix DTYPE LAYOUT N H W DRAWS IN OUT
 *       DRAWS: a text file, one line per sample: kind lam x1 y1 x2 y2
 *       (kind 0 none, 1 MixUp, 2 CutMix); IN, OUT: N samples, raw
 *   feed-mixtool soft NCLASSES SMOOTHING DRAWS LABEL...   prints the rows
 *   feed-mixtool cutbox H W LAM RX RY                      prints x1 y1 x2 y2 lam
 *   feed-mixtool erase DTYPE LAYOUT H W Y X BH BW V0 V1 V2 IN OUT
 * DTYPE: FEED_DTYPE_* number; LAYOUT: 0 HWC, 1 CHW. Floats are read with
 * strtod and printed with %.17g (exact round trips).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/mix.h"
#include "pixels/convert.h"
#include "pixels/erase.h"

static void *slurp(const char *path, size_t n)
{
    FILE *f = fopen(path, "rb");
    void *p = malloc(n);
    if (!f || !p || fread(p, 1, n, f) != n) {
        fprintf(stderr, "mixtool: cannot read %zu bytes from %s\n", n, path);
        exit(2);
    }
    fclose(f);
    return p;
}

static void spit(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "mixtool: cannot write %s\n", path);
        exit(2);
    }
}

static feed__mix_draw *read_draws(const char *path, uint32_t n)
{
    FILE *f = fopen(path, "r");
    feed__mix_draw *d = calloc(n, sizeof *d);
    for (uint32_t i = 0; f && i < n; i++)
        if (fscanf(f, "%u %lf %u %u %u %u", &d[i].kind, &d[i].lam, &d[i].x1, &d[i].y1, &d[i].x2, &d[i].y2) != 6) {
            fprintf(stderr, "mixtool: %s: line %u is not 'kind lam x1 y1 x2 y2'\n", path, i + 1);
            exit(2);
        }
    if (!f) {
        fprintf(stderr, "mixtool: cannot open %s\n", path);
        exit(2);
    }
    fclose(f);
    return d;
}

int main(int argc, char **argv)
{
    if (argc >= 10 && !strcmp(argv[1], "mix")) {
        feed__mix_cfg c = {.dtype = (uint32_t)atoi(argv[2]), .layout = (uint32_t)atoi(argv[3]),
                           .h = (uint32_t)atoi(argv[5]), .w = (uint32_t)atoi(argv[6])};
        uint32_t n = (uint32_t)atoi(argv[4]);
        size_t sb = (size_t)c.h * c.w * 3 * feed__dtype_size(c.dtype);
        feed__mix_draw *d = read_draws(argv[7], n);
        void *px = slurp(argv[8], n * sb);
        feed__mix_apply(&c, d, n, px, sb);
        spit(argv[9], px, n * sb);
        free(d), free(px);
        return 0;
    }
    if (argc >= 5 && !strcmp(argv[1], "soft")) {
        feed__mix_cfg c = {.num_classes = (uint32_t)atoi(argv[2]), .smoothing = (float)strtod(argv[3], NULL)};
        uint32_t n = (uint32_t)(argc - 5);
        feed__mix_draw *d = read_draws(argv[4], n);
        int32_t *labels = calloc(n, sizeof *labels);
        float *rows = calloc((size_t)n * c.num_classes, sizeof *rows);
        uint32_t bad;
        for (uint32_t i = 0; i < n; i++)
            labels[i] = atoi(argv[5 + i]);
        int st = feed__mix_soft_labels(&c, d, labels, n, rows, &bad);
        if (st != 0)
            printf("bad %u\n", bad);
        for (uint32_t i = 0; st == 0 && i < n; i++)
            for (uint32_t k = 0; k < c.num_classes; k++)
                printf("%.9g%c", rows[(size_t)i * c.num_classes + k], k + 1 == c.num_classes ? '\n' : ' ');
        free(d), free(labels), free(rows);
        return st ? 1 : 0;
    }
    if (argc == 7 && !strcmp(argv[1], "cutbox")) {
        feed__mix_draw d;
        feed__mix_cutmix_box((uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]), strtod(argv[4], NULL),
                             (uint32_t)atoi(argv[5]), (uint32_t)atoi(argv[6]), &d);
        printf("%u %u %u %u %.17g\n", d.x1, d.y1, d.x2, d.y2, d.lam);
        return 0;
    }
    if (argc == 15 && !strcmp(argv[1], "erase")) {
        uint32_t dt = (uint32_t)atoi(argv[2]), lay = (uint32_t)atoi(argv[3]);
        feed__xform x = {.out_h = (uint32_t)atoi(argv[4]), .out_w = (uint32_t)atoi(argv[5]), .erase_p = 1};
        feed__erase_box b = {.y = (uint32_t)atoi(argv[6]), .x = (uint32_t)atoi(argv[7]),
                             .h = (uint32_t)atoi(argv[8]), .w = (uint32_t)atoi(argv[9])};
        for (int c = 0; c < 3; c++)
            x.erase_value[c] = (float)strtod(argv[10 + c], NULL);
        size_t n = (size_t)x.out_h * x.out_w * 3 * feed__dtype_size(dt);
        void *px = slurp(argv[13], n);
        feed__erase_apply(&x, &b, dt, lay, px);
        spit(argv[14], px, n);
        free(px);
        return 0;
    }
    fprintf(stderr, "usage: see the comment at the top of tests/mixtool.c\n");
    return 2;
}
