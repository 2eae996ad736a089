/*
 * options.c - feed-mkdata's command line: --key VALUE or --key=VALUE, each
 * value checked, a usage error said with the usage (exit status 2).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkdata.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " --out DIR --count N --seed S [--classes K] [--image FMT] [--quiet]\n"
            "                   [--format folder|tar] [--shard-size M] [--multi-label L] [--targets]\n"
            "                   [--meta]\n"
            "\n"
            "Writes N deterministic synthetic JPEGs (ImageNet-like sizes, 1/f texture, edges,\n"
            "colour regions) to DIR/class_XXX/img_XXXXXX.jpg, image i in class i %% K, and\n"
            "DIR/files.txt with one \"class_XXX/img_XXXXXX.jpg LABEL\" line per image.\n"
            "The same arguments always give the same bytes.\n"
            "\n"
            "  --out DIR      output folder (created if missing; files are replaced)\n"
            "  --count N      number of images, %d..%u, at least K\n"
            "  --seed S       any 64-bit number (decimal or 0x hex)\n"
            "  --classes K    number of classes, 1..%d (default 10)\n"
            "  --image FMT    jpeg (default), png, webp, or mixed (jpeg, png, webp in turn)\n"
            "  --quiet        no summary line\n"
            "  --format F     folder (default) or tar: WebDataset shards DIR/shard-NNNNNN.tar\n"
            "                 (img_XXXXXX.jpg/.png/.webp + img_XXXXXX.cls per sample, in image order)\n"
            "                 and DIR/shards.txt listing them\n"
            "  --shard-size M samples per shard with --format tar (default 1000)\n"
            "  --multi-label L  1..%d labels an image (its class first, then others drawn from\n"
            "                 the seed, none twice) in files.txt (\"PATH 3 17 42\") or each .cls\n"
            "                 (\"3 17 42\"), for multi_label=1 (default: one label, its class)\n"
            "  --targets      also DIR/targets.npy: each image's mean R, G, B / 255 (float32,\n"
            "                 count x 3, in the dataset's sample order), for targets=\n"
            "  --meta         with --format tar, also img_XXXXXX.json ({\"id\": i, \"class\": c,\n"
            "                 \"bytes\": image size, \"caption\": ...}) and img_XXXXXX.txt (the caption)\n"
            "                 per sample, for meta_members=json:txt\n",
            1, MAX_COUNT, MAX_CLASSES, MAX_LABELS);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* The arguments as given. */
typedef struct args {
    const char *out, *count, *seed, *classes, *image, *format, *shard, *multi;
    int quiet, targets, meta;
} args;

/* -1 to go on, else the exit status. */
static int read_args(args *a, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(s, "--quiet")) {
            a->quiet = 1;
            continue;
        }
        if (!strcmp(s, "--targets") || !strcmp(s, "--meta")) {
            *(s[2] == 't' ? &a->targets : &a->meta) = 1;
            continue;
        }
        static const char *const keys[] = {"--out", "--count", "--seed", "--classes", "--image",
                                           "--format", "--shard-size", "--multi-label"};
        const char **dst[] = {&a->out, &a->count, &a->seed, &a->classes, &a->image, &a->format,
                              &a->shard, &a->multi};
        int k;
        for (k = 0; k < 8; k++) {
            size_t n = strlen(keys[k]);
            if (!strncmp(s, keys[k], n) && (s[n] == 0 || s[n] == '=')) {
                if (s[n] == '=')
                    *dst[k] = s + n + 1;
                else if (i + 1 < argc)
                    *dst[k] = argv[++i];
                else
                    return bad_usage("%s needs a value", s);
                break;
            }
        }
        if (k == 8)
            return bad_usage("unknown argument '%s'", s);
    }
    return -1;
}

int mk_options_parse(mk_options *o, int argc, char **argv)
{
    args a = {.classes = "10", .image = "jpeg", .format = "folder", .shard = "1000"};
    int rc = read_args(&a, argc, argv);
    if (rc >= 0)
        return rc;
    if (!a.out || !*a.out)
        return bad_usage("%s", "--out DIR is required");
    if (!a.count)
        return bad_usage("%s", "--count N is required");
    if (!a.seed)
        return bad_usage("%s", "--seed S is required");
    if (parse_u64(a.count, &o->count) || o->count < 1 || o->count > MAX_COUNT)
        return bad_usage("--count '%s': want a whole number from 1 to 100000000", a.count);
    if (parse_u64(a.seed, &o->seed))
        return bad_usage("--seed '%s': want a whole number (decimal or 0x hex)", a.seed);
    if (parse_u64(a.classes, &o->classes) || o->classes < 1 || o->classes > MAX_CLASSES)
        return bad_usage("--classes '%s': want a whole number from 1 to 1000", a.classes);
    if (o->count < o->classes)
        return bad_usage("--count '%s' is below --classes: every class needs an image", a.count);
    static const char *const images[] = {"jpeg", "png", "webp", "mixed"}; /* IMG_* order */
    for (o->image_fmt = 0; o->image_fmt < 4 && strcmp(a.image, images[o->image_fmt]);)
        o->image_fmt++;
    if (o->image_fmt == 4)
        return bad_usage("--image '%s': want jpeg, png, webp or mixed", a.image);
    o->tar = !strcmp(a.format, "tar");
    if (!o->tar && strcmp(a.format, "folder"))
        return bad_usage("--format '%s': want folder or tar", a.format);
    if (parse_u64(a.shard, &o->shard_size) || o->shard_size < 1 || o->shard_size > MAX_COUNT)
        return bad_usage("--shard-size '%s': want a whole number from 1 to 100000000", a.shard);
    if (a.multi && (parse_u64(a.multi, &o->multi_label) || o->multi_label < 1 || o->multi_label > MAX_LABELS))
        return bad_usage("--multi-label '%s': want a whole number from 1 to 16", a.multi);
    o->quiet = a.quiet;
    o->targets = a.targets;
    o->meta = a.meta;
    if (o->meta && !o->tar)
        return bad_usage("%s", "--meta needs --format tar (metadata members live in shards)");
    o->out = a.out;
    o->outlen = strlen(a.out);
    while (o->outlen > 1 && a.out[o->outlen - 1] == '/')
        o->outlen--;
    return -1;
}
