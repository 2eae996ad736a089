/*
 * augop_tool.c - one op of pixels/augops.h on a raw image, for
 * python/tests/test_torchvision_ops.py to hold against torchvision:
 *
 *   augop_tool OP ARG WIDTH HEIGHT nearest|bilinear RRGGBB IN OUT
 *
 * OP is a transform id of torchvision's ("ShearX", "Solarize", ...), ARG
 * the functional's argument (augops.h), IN and OUT raw uint8 HWC RGB files
 * of WIDTH x HEIGHT. ARG may be a policy's magnitude bin instead,
 * trivialaugment|randaugment|autoaugment:BIN[:BINS][:neg], turned into the
 * argument by that policy's table (feed__policy_arg; BINS 31, autoaugment
 * 10). Exit 0, or 2 with a message on stderr.
 *
 *   augop_tool bench nearest|bilinear [LEVEL]
 *
 * prints each op's time on a 224 x 224 noise image (the least of 300
 * runs, microseconds) at LEVEL (augops_geom.h, at most the CPU's;
 * default: the CPU's), with the arguments of RandAugment's bin 9 of 31
 * (SolarizeAdd: 90).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feed.h"
#include "pixels/augops.h"
#include "pixels/augops_geom.h"
#include "pixels/policy.h"

static int fail(const char *what)
{
    fprintf(stderr, "augop_tool: %s\n", what);
    return 2;
}

/* ARG as a number, or as a policy's bin: 0, or -1 when it is neither. */
static int policy_arg(const char *s, uint32_t op, uint32_t w, uint32_t h, double *arg)
{
    static const char *const names[] = {"trivialaugment", "randaugment", "autoaugment"};
    for (uint32_t k = 0; k < 3; k++) {
        size_t n = strlen(names[k]);
        if (strncmp(s, names[k], n) || s[n] != ':')
            continue;
        char *end;
        long bin = strtol(s + n + 1, &end, 10), bins = k == 2 ? 10 : 31;
        if (*end == ':' && end[1] >= '0' && end[1] <= '9')
            bins = strtol(end + 1, &end, 10);
        int neg = !strcmp(end, ":neg");
        if ((*end && !neg) || bins < 2 || bin < 0 || bin >= bins)
            return -1;
        *arg = feed__policy_arg(FEED_POLICY_TRIVIAL + k, op, (double)bin, (uint32_t)bins, w, h, neg);
        return 0;
    }
    char *end;
    *arg = strtod(s, &end);
    return end == s || *end ? -1 : 0;
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int bench(uint32_t interp, int level)
{
    const uint32_t w = 224, h = 224;
    const size_t n = (size_t)w * h * 3;
    const uint8_t fill[3] = {0, 0, 0};
    uint8_t *src = malloc(n), *img = malloc(n), *scratch = malloc(n);
    if (!src || !img || !scratch)
        return fail("out of memory");
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        src[i] = (uint8_t)(x >> 32);
    }
    feed__aug_simd = level;
    printf("level %d, %s\n", feed__aug_level(), interp == FEED_INTERP_NEAREST ? "nearest" : "bilinear");
    for (uint32_t op = 1; op < FEED__AUG_OPS; op++) {
        double arg = feed__policy_arg(FEED_POLICY_RAND, op, 9, 31, w, h, 0);
        if (op == FEED__AUG_SOLARIZE_ADD)
            arg = 90;
        double best = 1e30;
        for (int r = 0; r < 300; r++) {
            memcpy(img, src, n);
            double t0 = now_us();
            feed__aug_apply(op, arg, img, w, h, interp, fill, scratch);
            double t = now_us() - t0;
            best = t < best ? t : best;
        }
        printf("%-13s %8.1f us\n", feed__aug_name(op), best);
    }
    free(src), free(img), free(scratch);
    return 0;
}

int main(int argc, char **argv)
{
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "bench")) {
        int bilinear = !strcmp(argv[2], "bilinear");
        if (!bilinear && strcmp(argv[2], "nearest"))
            return fail("usage: augop_tool bench nearest|bilinear [LEVEL]");
        return bench(bilinear ? FEED_INTERP_BILINEAR : FEED_INTERP_NEAREST, argc == 4 ? atoi(argv[3]) : -1);
    }
    if (argc != 9)
        return fail("usage: augop_tool OP ARG WIDTH HEIGHT nearest|bilinear RRGGBB IN OUT");
    uint32_t op = feed__aug_by_name(argv[1]);
    if (op == FEED__AUG_OPS)
        return fail("unknown op");
    long w = strtol(argv[3], NULL, 10), h = strtol(argv[4], NULL, 10);
    if (w < 1 || h < 1 || w > 8192 || h > 8192)
        return fail("bad size");
    double arg;
    if (policy_arg(argv[2], op, (uint32_t)w, (uint32_t)h, &arg))
        return fail("ARG: a number, or POLICY:BIN[:BINS][:neg]");
    uint32_t interp;
    if (!strcmp(argv[5], "nearest"))
        interp = FEED_INTERP_NEAREST;
    else if (!strcmp(argv[5], "bilinear"))
        interp = FEED_INTERP_BILINEAR;
    else
        return fail("interpolation: nearest or bilinear");
    unsigned long f = strtoul(argv[6], NULL, 16);
    const uint8_t fill[3] = {(uint8_t)(f >> 16), (uint8_t)(f >> 8), (uint8_t)f};
    size_t n = (size_t)w * h * 3;
    uint8_t *img = malloc(n), *scratch = malloc(n);
    if (!img || !scratch)
        return fail("out of memory");
    FILE *in = fopen(argv[7], "rb");
    if (!in || fread(img, 1, n, in) != n)
        return fail("cannot read the input (WIDTH * HEIGHT * 3 bytes)");
    fclose(in);
    feed__aug_apply(op, arg, img, (uint32_t)w, (uint32_t)h, interp, fill, scratch);
    FILE *out = fopen(argv[8], "wb");
    if (!out || fwrite(img, 1, n, out) != n || fclose(out))
        return fail("cannot write the output");
    free(img);
    free(scratch);
    return 0;
}
