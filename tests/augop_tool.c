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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feed.h"
#include "pixels/augops.h"
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

int main(int argc, char **argv)
{
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
